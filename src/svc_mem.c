/*
 * The server's chunk memory (svc_mem.h): one PD and pool per listener and
 * device; a Call takes a run for its bytes and gives it back when answered.
 * The program's regions are tried first; when no pool has room, ordinary
 * memory is registered for that one Call.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rpcrdma/rpcrdma.h>
#include "svc_int.h"
#include "svc_limits.h"

/* ---- devices ------------------------------------------------------------- */

static void region_free(struct svc_rdma_region *r)
{
	rpcrdma_dereg_mem(r->rgn_mr);
	if (!r->rgn_user)
		free(r->rgn_mem);
	rpcrdma_pool_fini(&r->rgn_pool);
	free(r);
}

static struct svc_rdma_dev *dev_find(struct svc_rdma_listener *l,
				     struct ibv_context *verbs)
{
	struct svc_rdma_dev *d;

	for (d = l->ln_devs; d; d = d->dv_next)
		if (d->dv_verbs == verbs)
			return d;
	return NULL;
}

/*
 * The listener's table entry for verbs, created with its PD on first use
 * (the listener keeps one reference until it goes), with one more
 * reference for the caller.  NULL when no PD can be had.
 */
struct svc_rdma_dev *svc_rdma_dev_get(struct svc_rdma_listener *l,
				      struct ibv_context *verbs)
{
	struct svc_rdma_dev *d;

	pthread_mutex_lock(&l->ln_lock);
	d = dev_find(l, verbs);
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (d)
			d->dv_pd = rpcrdma_pd_alloc(verbs);
		if (d && !d->dv_pd) {
			free(d);
			d = NULL;
		}
		if (d) {
			pthread_mutex_init(&d->dv_lock, NULL);
			d->dv_verbs = verbs;
			d->dv_pool_size = l->ln_opts.ro_pool_size;
			d->dv_refs = 1;
			d->dv_next = l->ln_devs;
			l->ln_devs = d;
		}
	}
	if (d)
		d->dv_refs++;
	pthread_mutex_unlock(&l->ln_lock);
	return d;
}

static void dev_free(struct svc_rdma_dev *d)
{
	/* Its shared receive queues first: their buffers are on its PD. */
	svc_rdma_srqs_fini(&d->dv_srqs);
	while (d->dv_regions) {
		struct svc_rdma_region *r = d->dv_regions;

		d->dv_regions = r->rgn_next;
		region_free(r);
	}
	if (rpcrdma_pd_free(d->dv_pd))
		RPCRDMA_DBG("PD of device %p still in use", (void *)d->dv_verbs);
	pthread_mutex_destroy(&d->dv_lock);
	free(d);
}

void svc_rdma_dev_put(struct svc_rdma_listener *l, struct svc_rdma_dev *d)
{
	struct svc_rdma_dev **pp;
	int last;

	pthread_mutex_lock(&l->ln_lock);
	/* A connection went: a moment to read the device's events (the
	 * SRQ limit's; its QP's last WQE), as when counters are read. */
	l->ln_closed.rs_srq_limit_events +=
		svc_rdma_srqs_events(&d->dv_srqs, d->dv_verbs);
	last = !--d->dv_refs;
	if (last)
		for (pp = &l->ln_devs; *pp; pp = &(*pp)->dv_next)
			if (*pp == d) {
				*pp = d->dv_next;
				break;
			}
	pthread_mutex_unlock(&l->ln_lock);
	if (last)
		dev_free(d);
}

/* The listener goes, after its last connection: drop its references. */
void svc_rdma_devs_fini(struct svc_rdma_listener *l)
{
	while (l->ln_devs) {
		struct svc_rdma_dev *d = l->ln_devs;

		l->ln_devs = d->dv_next;
		dev_free(d);
	}
}

/* Its shared receive queues' gauges, summed over its devices (ln_lock). */
void svc_rdma_devs_srq_stats(struct svc_rdma_listener *l,
			     struct rpcrdma_stats *st)
{
	struct svc_rdma_dev *d;

	st->rs_srq_posted = st->rs_srq_in_use = st->rs_srq_pinned = 0;
	st->rs_srq_committed = st->rs_grant_overcommits = 0;
	st->rs_grant_min = st->rs_grant_max = st->rs_grant_sum = 0;
	for (d = l->ln_devs; d; d = d->dv_next) {
		l->ln_closed.rs_srq_limit_events +=
			svc_rdma_srqs_events(&d->dv_srqs, d->dv_verbs);
		svc_rdma_srqs_stats(&d->dv_srqs, st);
	}
	st->rs_srq_limit_events = l->ln_closed.rs_srq_limit_events;
}

/* What the listener has registered for chunks, now and at most. */
void svc_rdma_devs_pinned(struct svc_rdma_listener *l, uint64_t *now,
			  uint64_t *peak)
{
	struct svc_rdma_dev *d;

	*now = *peak = 0;
	for (d = l->ln_devs; d; d = d->dv_next) {
		pthread_mutex_lock(&d->dv_lock);
		*now += d->dv_pinned;
		*peak += d->dv_pinned_peak;
		pthread_mutex_unlock(&d->dv_lock);
	}
}

static void pinned_add(struct svc_rdma_dev *d, size_t len)
{
	d->dv_pinned += len;
	if (d->dv_pinned > d->dv_pinned_peak)
		d->dv_pinned_peak = d->dv_pinned;
}

/* ---- buffers ------------------------------------------------------------- */

/*
 * Our own region, registered the first time a Call needs one: a listener
 * whose peers never send chunks pins nothing for them.  Tried once; if it
 * cannot be had, every Call falls back.
 */
static void own_region_locked(struct svc_rdma_dev *d)
{
	struct svc_rdma_region *r, **pp;

	if (d->dv_own_tried || d->dv_pool_size < RPCRDMA_POOL_UNIT)
		return;
	d->dv_own_tried = 1;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	if (rpcrdma_pool_init(&r->rgn_pool, d->dv_pool_size, RPCRDMA_POOL_UNIT) ||
	    posix_memalign((void **)&r->rgn_mem, 4096, d->dv_pool_size))
		goto out_free;
	r->rgn_mr = rpcrdma_pd_reg(d->dv_pd, r->rgn_mem, d->dv_pool_size);
	if (!r->rgn_mr)
		goto out_free;
	pinned_add(d, d->dv_pool_size);
	/* After the program's regions: theirs are used first. */
	for (pp = &d->dv_regions; *pp; pp = &(*pp)->rgn_next)
		;
	*pp = r;
	return;

out_free:
	free(r->rgn_mem);
	rpcrdma_pool_fini(&r->rgn_pool);
	free(r);
}

static void count(struct svc_rdma_conn *c, uint64_t *field)
{
	pthread_mutex_lock(&c->cn_x.rx_lock);
	(*field)++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

static struct svc_rdma_region *pool_take_locked(struct svc_rdma_dev *d,
					       size_t len, size_t *offp)
{
	struct svc_rdma_region *r;

	own_region_locked(d);
	for (r = d->dv_regions; r; r = r->rgn_next)
		if (!rpcrdma_pool_take(&r->rgn_pool, len, offp))
			break;
	return r;
}

/* Run the connection's queued releases, waiting up to its stall budget
 * for their Sends: 0 if any were queued (try the pools again). */
static int reclaim(struct svc_rdma_conn *c)
{
	struct timespec deadline;

	/* A peer already penalized for stalling gets no wait (as Sends). */
	rpcrdma_deadline_ms(&deadline,
			    __atomic_load_n(&c->cn_penalized, __ATOMIC_RELAXED) ? 0 :
			    svc_rdma_stall_budget_ms(c->cn_x.rx_opts.ro_svc_stall_ms, 0));
	return rpcrdma_xprt_reclaim(&c->cn_x, &deadline) == -ENOENT ? -ENOENT : 0;
}

/*
 * len registered bytes for one Call: from the first pool with a run that
 * long, else ordinary memory registered for this Call alone (counted).
 * 0, or -ENOMEM when not even that can be had.
 */
int svc_rdma_buf_get(struct svc_rdma_conn *c, size_t len,
		     struct svc_rdma_buf *b)
{
	struct svc_rdma_dev *d = c->cn_dev;
	struct rpcrdma_stats *st = &c->cn_x.rx_stats;
	struct svc_rdma_region *r;
	size_t off;

	memset(b, 0, sizeof(*b));
	if (!len)
		len = 1;
	pthread_mutex_lock(&d->dv_lock);
	if (svc_rdma_mem_take(&c->cn_mem, len)) {
		pthread_mutex_unlock(&d->dv_lock);
		RPCRDMA_DBG("conn %p: %zu chunk bytes over max_conn_memory",
			    (void *)c, len);
		svc_rdma_count_mem_limit(c);
		return -ENOMEM;
	}
	r = pool_take_locked(d, len, &off);
	pthread_mutex_unlock(&d->dv_lock);
	/* Before memory of its own: this connection's chained Replies give
	 * their chunk buffers back once their Sends are reaped. */
	if (!r && !reclaim(c)) {
		pthread_mutex_lock(&d->dv_lock);
		r = pool_take_locked(d, len, &off);
		pthread_mutex_unlock(&d->dv_lock);
	}
	if (r) {
		b->sb_mem = r->rgn_mem + off;
		b->sb_len = len;
		b->sb_lkey = rpcrdma_mr_lkey(r->rgn_mr);
		b->sb_reg = r;
		b->sb_off = off;
		count(c, r->rgn_user ? &st->rs_pool_user_bufs : &st->rs_pool_bufs);
		return 0;
	}
	/* Rare by design (pool_size covers the common case): a system call
	 * and a registration, for this Call only. */
	if (posix_memalign((void **)&b->sb_mem, 4096, len))
		goto out_nomem;
	b->sb_mr = rpcrdma_pd_reg(d->dv_pd, b->sb_mem, len);
	if (!b->sb_mr) {
		free(b->sb_mem);
		goto out_nomem;
	}
	b->sb_len = len;
	b->sb_lkey = rpcrdma_mr_lkey(b->sb_mr);
	pthread_mutex_lock(&d->dv_lock);
	pinned_add(d, len);
	pthread_mutex_unlock(&d->dv_lock);
	count(c, &st->rs_pool_fallbacks);
	return 0;

out_nomem:
	b->sb_mem = NULL;
	pthread_mutex_lock(&d->dv_lock);
	svc_rdma_mem_give(&c->cn_mem, len);
	pthread_mutex_unlock(&d->dv_lock);
	count(c, &st->rs_pool_failures);
	return -ENOMEM;
}

/* How much of want max_conn_memory lets this connection take now. */
size_t svc_rdma_buf_room(struct svc_rdma_conn *c, size_t want)
{
	struct svc_rdma_dev *d = c->cn_dev;
	uint64_t room;

	pthread_mutex_lock(&d->dv_lock);
	room = svc_rdma_mem_room(&c->cn_mem, want);
	pthread_mutex_unlock(&d->dv_lock);
	return (size_t)room;
}

void svc_rdma_count_mem_limit(struct svc_rdma_conn *c)
{
	count(c, &c->cn_x.rx_stats.rs_conn_mem_limit);
}

/* Keep the first keep bytes of b: a Reply smaller than the room taken. */
void svc_rdma_buf_trim(struct svc_rdma_conn *c, struct svc_rdma_buf *b,
		       size_t keep)
{
	struct svc_rdma_dev *d = c->cn_dev;

	if (!b->sb_reg || !keep || keep >= b->sb_len)
		return;
	pthread_mutex_lock(&d->dv_lock);
	rpcrdma_pool_trim(&b->sb_reg->rgn_pool, b->sb_off, b->sb_len, keep);
	svc_rdma_mem_trim(&c->cn_mem, b->sb_len, keep);
	pthread_mutex_unlock(&d->dv_lock);
	b->sb_len = keep;
}

void svc_rdma_buf_put(struct svc_rdma_conn *c, struct svc_rdma_buf *b)
{
	struct svc_rdma_dev *d = c->cn_dev;

	if (!b->sb_mem)
		return;
	if (b->sb_reg) {
		pthread_mutex_lock(&d->dv_lock);
		rpcrdma_pool_give(&b->sb_reg->rgn_pool, b->sb_off, b->sb_len);
	} else {
		rpcrdma_dereg_mem(b->sb_mr);
		free(b->sb_mem);
		pthread_mutex_lock(&d->dv_lock);
		d->dv_pinned -= b->sb_len;
	}
	svc_rdma_mem_give(&c->cn_mem, b->sb_len);
	pthread_mutex_unlock(&d->dv_lock);
	memset(b, 0, sizeof(*b));
}

/*
 * An RDMA Read or Write into b failed or timed out: it may still land,
 * so b is not reused before the connection's QP is destroyed.  Without
 * memory to note it, b is leaked: never reused is still safe.
 */
void svc_rdma_buf_hold(struct svc_rdma_conn *c, struct svc_rdma_buf *b)
{
	struct svc_rdma_held *h;

	if (!b->sb_mem)
		return;
	h = malloc(sizeof(*h));
	if (h) {
		h->sh_buf = *b;
		pthread_mutex_lock(&c->cn_lock);
		h->sh_next = c->cn_held;
		c->cn_held = h;
		pthread_mutex_unlock(&c->cn_lock);
	}
	memset(b, 0, sizeof(*b));
}

/* The connection goes: its QP first, then every buffer it still has. */
void svc_rdma_bufs_free(struct svc_rdma_conn *c)
{
	rpcrdma_ep_destroy_qp(&c->cn_x.rx_ep);
	if (!c->cn_dev)
		return;
	while (c->cn_held) {
		struct svc_rdma_held *h = c->cn_held;

		c->cn_held = h->sh_next;
		svc_rdma_buf_put(c, &h->sh_buf);
		free(h);
	}
	svc_rdma_buf_put(c, &c->cn_call.ct_callbuf);
}

/* ---- the program's regions (svc_rdma_pool_add(3)) ------------------------ */

/* The device for a public call: verbs, or the listener's bound one. */
static struct ibv_context *lst_verbs(struct svc_rdma_listener *l,
				     struct ibv_context *verbs)
{
	return verbs ? verbs : rpcrdma_id_verbs(l->ln_id);
}

struct ibv_pd *svc_rdma_mem_get_pd(struct svc_rdma_listener *l,
				   struct ibv_context *verbs)
{
	struct svc_rdma_dev *d;

	if (!l || !(verbs = lst_verbs(l, verbs))) {
		errno = EINVAL;
		return NULL;
	}
	d = svc_rdma_dev_get(l, verbs);
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	/* The listener's own reference keeps it; the PD is its to free. */
	svc_rdma_dev_put(l, d);
	return d->dv_pd;
}

int svc_rdma_mem_add(struct svc_rdma_listener *l, struct ibv_mr *mr)
{
	struct svc_rdma_region *r, **pp;
	struct svc_rdma_dev *d;
	int rc;

	if (!l || !mr || !rpcrdma_mr_addr(mr) ||
	    rpcrdma_mr_len(mr) < RPCRDMA_POOL_UNIT) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&l->ln_lock);
	for (d = l->ln_devs; d; d = d->dv_next)
		if (d->dv_pd == rpcrdma_mr_pd(mr))
			break;
	pthread_mutex_unlock(&l->ln_lock);
	/* Only a PD svc_rdma_get_pd() gave out: the connections use it. */
	if (!d) {
		errno = EINVAL;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	rc = rpcrdma_pool_init(&r->rgn_pool, rpcrdma_mr_len(mr), RPCRDMA_POOL_UNIT);
	if (rc) {
		free(r);
		errno = -rc;
		return -1;
	}
	r->rgn_mem = rpcrdma_mr_addr(mr);
	r->rgn_mr = mr;
	r->rgn_user = 1;
	pthread_mutex_lock(&d->dv_lock);
	/* After the program's earlier regions, before ours. */
	for (pp = &d->dv_regions; *pp && (*pp)->rgn_user; pp = &(*pp)->rgn_next)
		;
	r->rgn_next = *pp;
	*pp = r;
	pthread_mutex_unlock(&d->dv_lock);
	return 0;
}
