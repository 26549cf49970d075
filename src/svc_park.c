/*
 * Parked Replies (svc_park.h).  Invariant: a parked Reply owns every byte
 * its Send and Writes read, and is posted only with a deadline already
 * passed, so neither parking nor draining ever waits for a peer.  Writes
 * ahead of its Send go chain by chain as room comes, the Send last.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rdma_rw.h"
#include "svc_park.h"

/* A deadline already passed: take what is free now, or nothing. */
static const struct timespec park_now;

void svc_rdma_park_init(struct svc_rdma_park *pa, uint32_t max)
{
	memset(pa, 0, sizeof(*pa));
	pthread_mutex_init(&pa->pa_lock, NULL);
	pa->pa_max = max;
}

bool svc_rdma_park_busy(struct svc_rdma_park *pa)
{
	return __atomic_load_n(&pa->pa_n, __ATOMIC_ACQUIRE) != 0;
}

/* Its Send completed, or it never went / went in part (pk_owner's status):
 * its Write room back, then its owner's buffers, then it. */
static void park_release(void *arg, int status)
{
	struct svc_rdma_parked *pk = arg;

	if (pk->pk_room && status != -EINPROGRESS)
		rpcrdma_rw_unreserve(pk->pk_x, pk->pk_room);
	if (pk->pk_owner.rl_fn)
		pk->pk_owner.rl_fn(pk->pk_owner.rl_arg, status);
	free(pk);
}

int svc_rdma_park_reply(struct svc_rdma_park *pa, struct rpcrdma_xprt *x,
			const void *hdr, size_t hdrlen,
			const struct rpcrdma_xdr_buf *body,
			const struct rpcrdma_send_pre *pre,
			const struct svc_rdma_ahead *ahead,
			const struct rpcrdma_release *owner, bool reply)
{
	size_t len = body ? rpcrdma_xdrbuf_len(body) : 0;
	struct svc_rdma_parked *pk;

	if (hdrlen > sizeof(pk->pk_hdr))
		return -EINVAL;
	pthread_mutex_lock(&pa->pa_lock);
	if (pa->pa_n >= pa->pa_max) {
		pthread_mutex_unlock(&pa->pa_lock);
		return -ENOBUFS;
	}
	pthread_mutex_unlock(&pa->pa_lock);
	pk = calloc(1, sizeof(*pk) + len);
	if (!pk)
		return -ENOMEM;
	pk->pk_x = x;
	pk->pk_reply = reply;
	memcpy(pk->pk_hdr, hdr, hdrlen);
	pk->pk_hdrlen = (uint32_t)hdrlen;
	if (len && rpcrdma_xdrbuf_copy_out(body, pk->pk_copy, len) != (ssize_t)len) {
		free(pk);
		return -EMSGSIZE;
	}
	rpcrdma_xdrbuf_wrap(&pk->pk_body, pk->pk_copy, len);
	pk->pk_pre = *pre;
	if (ahead)
		pk->pk_ahead = *ahead;
	if (owner)
		pk->pk_owner = *owner;
	pthread_mutex_lock(&pa->pa_lock);
	if (pa->pa_tail)
		pa->pa_tail->pk_next = pk;
	else
		pa->pa_head = pk;
	pa->pa_tail = pk;
	__atomic_store_n(&pa->pa_n, pa->pa_n + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pa->pa_lock);
	return 0;
}

/* A parked Reply went: counted as a Reply sent (an RDMA_ERROR was counted
 * when it was answered).  pk may not be touched once its release is
 * queued: count from what was read before. */
static void count_posted(struct rpcrdma_xprt *x, bool reply)
{
	if (!reply)
		return;
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_replies++;
	pthread_mutex_unlock(&x->rx_lock);
}

/* The Writes ahead of its Send, each chain as room allows: 0 all
 * posted, -EAGAIN (no room yet), or the connection's failure. */
static int park_ahead(struct svc_rdma_parked *pk)
{
	struct svc_rdma_ahead *ah = &pk->pk_ahead;

	while (ah->ah_done < ah->ah_n) {
		int rc = rpcrdma_rw_ahead(pk->pk_x, ah->ah_local + ah->ah_done,
					  ah->ah_remote + ah->ah_done,
					  ah->ah_n - ah->ah_done);

		if (rc < 0)
			return rc;
		ah->ah_done += (unsigned int)rc;
	}
	return 0;
}

/*
 * Post the head Reply now: 0 posted (or failed for good, given back),
 * -EAGAIN when no send context or Write room is free yet (it stays, its
 * Writes ahead posted so far), or the connection's failure (it stays for
 * svc_rdma_park_fini).
 */
static int park_post(struct svc_rdma_parked *pk)
{
	struct rpcrdma_xprt *x = pk->pk_x;
	struct rpcrdma_release rel = { 0, park_release, pk };
	uint32_t n = pk->pk_pre.sp_nwrites;
	bool reply = pk->pk_reply;
	uint64_t seq;
	int rc, queued;

	rc = park_ahead(pk);
	if (rc)
		return rc;
	if (n) {
		rc = rpcrdma_rw_reserve(x, n, &park_now);
		if (rc)
			return rc == -ETIMEDOUT ? -EAGAIN : rc;
		pk->pk_room = n;
	}
	rc = rpcrdma_xprt_send_chain(x, pk->pk_hdr, pk->pk_hdrlen,
				     &pk->pk_body, &park_now, &rel,
				     &pk->pk_pre, &seq, &queued);
	/* Queued (before its post): park_release is the release queue's,
	 * run on its completion or when the QP goes, even if the post
	 * failed. */
	if (queued) {
		if (!rc)
			count_posted(x, reply);
		return 0;
	}
	if (rc && !seq) {
		/* Nothing posted. */
		if (n)
			rpcrdma_rw_unreserve(x, n);
		pk->pk_room = 0;
		return rc == -ETIMEDOUT ? -EAGAIN : rc;
	}
	if (!rc)
		count_posted(x, reply);
	if (rc) {
		park_release(pk, -EINPROGRESS);	/* posted, perhaps in part */
		return 0;
	}
	/* Its release queue full (a mapped Send, or Writes in front): the one
	 * wait left, counted in rs_reply_waits_for_send, within svc_stall_ms. */
	if (seq) {
		struct timespec deadline;

		rpcrdma_deadline_ms(&deadline, x->rx_opts.ro_svc_stall_ms);
		if (rpcrdma_xprt_wait_send(x, seq, &deadline)) {
			park_release(pk, -EINPROGRESS);
			return 0;
		}
	}
	park_release(pk, 0);
	return 0;
}

static void park_drain_locked(struct svc_rdma_park *pa)
{
	struct svc_rdma_parked *pk;

	while ((pk = pa->pa_head)) {
		/* Read first: once posted, its release may free it at once. */
		struct svc_rdma_parked *next = pk->pk_next;

		if (park_post(pk))
			return;
		pa->pa_head = next;
		if (!pa->pa_head)
			pa->pa_tail = NULL;
		__atomic_store_n(&pa->pa_n, pa->pa_n - 1, __ATOMIC_RELEASE);
	}
}

/*
 * Why the flag before the trylock: a drain asked while another runs must
 * not be lost.  The asker sets pa_again before it fails to take the lock,
 * so the runner, which reads pa_again after letting the lock go, sees it
 * and drains once more.
 */
void svc_rdma_park_drain(struct svc_rdma_park *pa)
{
	if (!svc_rdma_park_busy(pa))
		return;
	__atomic_store_n(&pa->pa_again, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&pa->pa_again, __ATOMIC_SEQ_CST) &&
	       !pthread_mutex_trylock(&pa->pa_lock)) {
		__atomic_store_n(&pa->pa_again, 0, __ATOMIC_SEQ_CST);
		park_drain_locked(pa);
		pthread_mutex_unlock(&pa->pa_lock);
	}
}

void svc_rdma_park_fini(struct svc_rdma_park *pa)
{
	struct svc_rdma_parked *pk, *next;

	pthread_mutex_lock(&pa->pa_lock);
	for (pk = pa->pa_head; pk; pk = next) {
		next = pk->pk_next;
		/* Writes ahead went: what they read stays until the QP goes. */
		park_release(pk, pk->pk_ahead.ah_done ? -EINPROGRESS :
						      -ECONNRESET);
	}
	pa->pa_head = pa->pa_tail = NULL;
	__atomic_store_n(&pa->pa_n, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pa->pa_lock);
	pthread_mutex_destroy(&pa->pa_lock);
}
