/*
 * The listener's CM events, taken in order: svc_rdma_lst_events acts on
 * them, and a wait that holds svc_run()'s one thread (a Call's RDMA
 * Reads, a Reply's Writes or Send) takes them early, to learn whether its
 * own peer is gone, keeping them for svc_rdma_lst_events.
 */
#include "config.h"
#include <errno.h>
#include "svc_int.h"

/*
 * An event that ends one of the listener's connections: anything but a
 * request or its establishment, on an id that has one.  The one rule for
 * svc_rdma_lst_events and the early look alike.
 */
int svc_rdma_cm_ends_conn(const struct svc_rdma_listener *l,
			  const struct rdma_cm_event *ev)
{
	return ev->id != l->ln_id && ev->id->context &&
	       ev->event != RDMA_CM_EVENT_CONNECT_REQUEST &&
	       ev->event != RDMA_CM_EVENT_ESTABLISHED;
}

int svc_rdma_cm_next(struct svc_rdma_listener *l, struct rdma_cm_event **evp)
{
	uint32_t i;

	pthread_mutex_lock(&l->ln_lock);
	if (l->ln_nkept) {
		*evp = l->ln_kept[0];
		for (i = 1; i < l->ln_nkept; i++)
			l->ln_kept[i - 1] = l->ln_kept[i];
		l->ln_nkept--;
		pthread_mutex_unlock(&l->ln_lock);
		return 0;
	}
	pthread_mutex_unlock(&l->ln_lock);
	return rpcrdma_cm_next(l->ln_ch, evp);
}

/*
 * Why: under svc_run() the one thread waiting for c's RDMA Reads takes
 * no CM event, so a client killed with its Reads outstanding is seen only
 * when they run out: at the transport's retry limit (seconds on rxe, its
 * QP gone answers nothing), maybe after svc_stall_ms, which would judge a
 * stall and refuse the client's whole address for 30 times as long.  Its
 * DISCONNECTED is on the channel long before: a connection it ends is
 * marked dead (-ECONNRESET, lost) now, so waits on it end at once; the
 * rest (teardown, counting) is svc_rdma_lst_events's, in order, after.
 * At most SVC_RDMA_CM_KEPT are kept: the others stay in the kernel.
 * 1 if c is dead.
 */
int svc_rdma_cm_watch(struct svc_rdma_conn *c)
{
	struct svc_rdma_listener *l = c->cn_lst;
	struct rdma_cm_event *ev;
	uint32_t took = 0;

	if (l->ln_cm_refused)
		return 0;
	pthread_mutex_lock(&l->ln_lock);
	while (l->ln_nkept < SVC_RDMA_CM_KEPT &&
	       !rpcrdma_cm_next(l->ln_ch, &ev)) {
		l->ln_kept[l->ln_nkept++] = ev;
		took++;
		if (svc_rdma_cm_ends_conn(l, ev)) {
			struct svc_rdma_conn *gone = ev->id->context;

			pthread_mutex_lock(&gone->cn_x.rx_lock);
			if (!gone->cn_x.rx_dead)
				gone->cn_x.rx_dead = -ECONNRESET;
			pthread_mutex_unlock(&gone->cn_x.rx_lock);
		}
	}
	pthread_mutex_unlock(&l->ln_lock);
	/* The channel no longer wakes svc_run() for them: the kick will
	 * (svc_rdma.c's kick_recv runs svc_rdma_lst_events first). */
	if (took)
		svc_rdma_kick(l);
	return __atomic_load_n(&c->cn_x.rx_dead, __ATOMIC_ACQUIRE) != 0;
}

/* Ack and drop the kept events of id, or of every id (all). */
static void cm_drop(struct svc_rdma_listener *l, struct rdma_cm_id *id, int all)
{
	uint32_t i, n = 0;

	pthread_mutex_lock(&l->ln_lock);
	for (i = 0; i < l->ln_nkept; i++) {
		struct rdma_cm_event *ev = l->ln_kept[i];

		if (all || ev->id == id)
			rpcrdma_cm_ack(ev);
		else
			l->ln_kept[n++] = ev;
	}
	l->ln_nkept = n;
	pthread_mutex_unlock(&l->ln_lock);
}

/*
 * Before id is destroyed (rdma_destroy_id waits until its events are
 * acked) and its connection freed (a kept event names it).
 */
void svc_rdma_cm_forget(struct svc_rdma_listener *l, struct rdma_cm_id *id)
{
	if (id)
		cm_drop(l, id, 0);
}

/* The listener goes: nobody will act on what was kept. */
void svc_rdma_cm_forget_all(struct svc_rdma_listener *l)
{
	cm_drop(l, NULL, 1);
}
