/*
 * The verbs layer's shared receive queues (verbs.h): what a device offers,
 * an SRQ made and destroyed on a protection domain, and receives posted
 * to it as one chain.  Like verbs.c, it decides nothing (svc_srq.c does).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include "verbs.h"
#include "verbs_int.h"
#include "verbs_thread.h"

static int rpcrdma_dev_srq_limits_here(struct ibv_context *verbs,
				       uint32_t *max_srq, uint32_t *max_wr)
{
	struct ibv_device_attr da;

	memset(&da, 0, sizeof(da));
	*max_srq = *max_wr = 0;
	errno = 0;
	if (ibv_query_device(verbs, &da))
		return errno ? -errno : -EIO;
	*max_srq = da.max_srq > 0 ? (uint32_t)da.max_srq : 0;
	*max_wr = da.max_srq_wr > 0 ? (uint32_t)da.max_srq_wr : 0;
	return 0;
}

static struct ibv_srq *rpcrdma_srq_create_here(struct ibv_pd *pd,
					       uint32_t max_wr)
{
	struct ibv_srq_init_attr a;

	rpcrdma_siw_key_guard(pd->context);
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = max_wr;
	a.attr.max_sge = 1;
	return ibv_create_srq(pd, &a);
}

static int rpcrdma_srq_destroy_here(struct ibv_srq *srq)
{
	errno = 0;
	return rpcrdma_vt_rc(ibv_destroy_srq(srq));
}

/* At most this many receives go in one ibv_post_srq_recv. */
#define SRQ_POST_RUN 32

static int rpcrdma_srq_post_here(struct ibv_srq *srq,
				 struct rpcrdma_rep *const *reps,
				 unsigned int n, uint32_t size,
				 unsigned int *posted)
{
	struct ibv_recv_wr wr[SRQ_POST_RUN], *bad = NULL;
	struct ibv_sge sge[SRQ_POST_RUN];
	unsigned int i, done = 0;
	int rc = 0;

	while (done < n && !rc) {
		unsigned int k = n - done < SRQ_POST_RUN ? n - done : SRQ_POST_RUN;

		for (i = 0; i < k; i++) {
			const struct rpcrdma_rep *rep = reps[done + i];

			sge[i] = (struct ibv_sge){
				.addr = (uintptr_t)rep->rr_buf,
				.length = size,
				.lkey = rep->rr_lkey,
			};
			wr[i] = (struct ibv_recv_wr){
				.wr_id = (uintptr_t)&rep->rr_cqe,
				.sg_list = &sge[i],
				.num_sge = 1,
				.next = i + 1 < k ? &wr[i + 1] : NULL,
			};
		}
		errno = 0;
		rc = rpcrdma_vt_rc(ibv_post_srq_recv(srq, wr, &bad));
		/* On failure, those before bad went. */
		done += rc && bad ? (unsigned int)(bad - wr) : (rc ? 0 : k);
	}
	*posted = done;
	return rc;
}

static int rpcrdma_srq_arm_here(struct ibv_srq *srq, uint32_t limit)
{
	struct ibv_srq_attr a;

	memset(&a, 0, sizeof(a));
	a.srq_limit = limit;
	errno = 0;
	return rpcrdma_vt_rc(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT));
}

static int rpcrdma_dev_async_next_here(struct ibv_context *verbs,
				       struct ibv_srq **srq, const char **kind)
{
	struct ibv_async_event ev;
	int fl = fcntl(verbs->async_fd, F_GETFL);

	*srq = NULL;
	*kind = NULL;
	if (fl < 0)
		return -errno;
	if (!(fl & O_NONBLOCK) &&
	    fcntl(verbs->async_fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	errno = 0;
	if (ibv_get_async_event(verbs, &ev))
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
		       (errno ? -errno : -EIO);
	if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
		*srq = ev.element.srq;
	*kind = ibv_event_type_str(ev.event_type);
	ibv_ack_async_event(&ev);
	return 1;
}

/* ---- the public names: here, or on the verbs thread (verbs_thread.h) ---- */

RPCRDMA_VT_R3(int, rpcrdma_dev_srq_limits, struct ibv_context *, uint32_t *, uint32_t *)
RPCRDMA_VT_R2(struct ibv_srq *, rpcrdma_srq_create, struct ibv_pd *, uint32_t)
RPCRDMA_VT_R1(int, rpcrdma_srq_destroy, struct ibv_srq *)
RPCRDMA_VT_R5(int, rpcrdma_srq_post, struct ibv_srq *, struct rpcrdma_rep *const *, unsigned int, uint32_t, unsigned int *)
RPCRDMA_VT_R2(int, rpcrdma_srq_arm, struct ibv_srq *, uint32_t)
RPCRDMA_VT_R3(int, rpcrdma_dev_async_next, struct ibv_context *, struct ibv_srq **, const char **)
