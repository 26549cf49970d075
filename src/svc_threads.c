/*
 * Service threads (ro_svc_threads > 0): a listener's own threads serve its
 * connections, Calls of one connection in parallel, leader/follower: one
 * thread polls every CQ and the CM channel, the others serve what it
 * queued.  Each Call goes through libtirpc's svc_getreq_common().  Who
 * leads, sleeps and wakes whom: src/event-loop.md.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "poller.h"
#include "svc_int.h"
#include "verbs_thread.h"

struct svc_thread_arg {
	struct svc_rdma_listener *ta_lst;
	uint32_t ta_slot;
	int ta_vt_marked;	/* its creator's mark (verbs_thread.h) */
};

/* What the leader watches: connections alive when it took the role. */
struct lead_set {
	struct svc_rdma_listener *ls_lst;
	struct svc_rdma_conn **ls_conns;
	struct pollfd *ls_fds;		/* wake eventfd, CM channel, then CQs */
	int ls_n, ls_cap;
	uint32_t ls_spin_us;		/* the largest busy_poll_us in the set */
};

static int conn_dead(struct svc_rdma_conn *c)
{
	return __atomic_load_n(&c->cn_x.rx_dead, __ATOMIC_RELAXED) != 0;
}

/* A Call to take (none while its head waits for a holder), or a held
 * Call's Reads to step on (svc_hold.c). */
static int conn_ready(struct svc_rdma_conn *c)
{
	if (conn_dead(c))
		return 0;
	/* One of its RPCSEC_GSS Calls is being served (svc_rdma_gss_enter):
	 * the thread serving it picks it next. */
	if (__atomic_load_n(&c->cn_gss_busy, __ATOMIC_RELAXED))
		return 0;
	if (__atomic_load_n(&c->cn_qlen, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&c->cn_hold_full, __ATOMIC_RELAXED))
		return 1;
	return svc_rdma_hold_ready(c);
}

/* ---- the leader's side of the completion model (poller.h) -------------- */

static int set_reap(void *arg)
{
	struct lead_set *s = arg;
	int i, n, total = 0;

	/* A CQ that fails marks its own connection dead: not the others'. */
	for (i = 0; i < s->ls_n; i++) {
		n = svc_rdma_conn_reap(s->ls_conns[i]);
		if (n > 0)
			total += n;
	}
	return total;
}

static int set_done(void *arg)
{
	struct lead_set *s = arg;
	int i;

	if (__atomic_load_n(&s->ls_lst->ln_threads.th_stop, __ATOMIC_RELAXED))
		return 1;
	for (i = 0; i < s->ls_n; i++)
		if (conn_ready(s->ls_conns[i]) || conn_dead(s->ls_conns[i]))
			return 1;
	return 0;
}

static int set_arm(void *arg)
{
	struct lead_set *s = arg;
	int i;

	for (i = 0; i < s->ls_n; i++) {
		struct rpcrdma_xprt *x = &s->ls_conns[i]->cn_x;

		int rc = rpcrdma_cq_arm(&x->rx_ep);

		if (rc) {
			pthread_mutex_lock(&x->rx_lock);
			if (!x->rx_dead)
				x->rx_dead = rc == -EACCES ? rc : -EIO;
			pthread_mutex_unlock(&x->rx_lock);
		}
	}
	return 0;
}

/* The leader sleeps in its own poll(2) over the whole set: no po_sleep. */
static const struct rpcrdma_poll_ops set_ops = {
	.po_reap = set_reap,
	.po_done = set_done,
	.po_arm = set_arm,
	.po_now_ns = rpcrdma_poll_now_ns,
	.po_yield = rpcrdma_poll_yield,
};

/*
 * Under ln_lock: mark the dead connections nobody serves (returned, to be
 * destroyed unlocked; they stay listed so their counters are never missing
 * from svc_rdma_get_stats until conn_destroy moves them to ln_closed), and
 * gather the live ones into the set.
 */
static struct svc_rdma_conn *set_build(struct lead_set *s)
{
	struct svc_rdma_listener *l = s->ls_lst;
	struct svc_rdma_conn *c, *gone = NULL;
	int n = 0;

	/* idle_timeout_ms: idle ones die here and are collected below. */
	svc_rdma_idle_sweep(l);
	for (c = l->ln_conns; c; c = c->cn_next) {
		if (conn_dead(c) && !c->cn_refs) {
			c->cn_refs = -1;	/* pick() skips it: it is dead */
			c->cn_gone = gone;
			gone = c;
			continue;
		}
		n++;
	}
	if (n + 2 > s->ls_cap) {
		int cap = n + 16;
		struct svc_rdma_conn **cs = realloc(s->ls_conns, cap * sizeof(*cs));
		struct pollfd *fds;

		if (cs)
			s->ls_conns = cs;
		fds = cs ? realloc(s->ls_fds, (cap + 2) * sizeof(*fds)) : NULL;
		if (fds) {
			s->ls_fds = fds;
			s->ls_cap = cap;
		}
	}
	s->ls_fds[0] = (struct pollfd){ .fd = l->ln_threads.th_wakefd, .events = POLLIN };
	/* poll(2) skips a negative descriptor: a refused CM channel. */
	s->ls_fds[1] = (struct pollfd){ .fd = l->ln_cm_refused ? -1 : l->ln_ch->fd,
					.events = POLLIN };
	s->ls_n = 0;
	s->ls_spin_us = l->ln_opts.ro_busy_poll_us;
	for (c = l->ln_conns; c && s->ls_n + 2 <= s->ls_cap; c = c->cn_next) {
		/* A dead one still served is left out until it is released. */
		if (conn_dead(c))
			continue;
		/* A connection's value knows its device (driver defaults). */
		if (!s->ls_n || c->cn_x.rx_opts.ro_busy_poll_us > s->ls_spin_us)
			s->ls_spin_us = c->cn_x.rx_opts.ro_busy_poll_us;
		s->ls_conns[s->ls_n] = c;
		s->ls_fds[2 + s->ls_n] = (struct pollfd){
			.fd = c->cn_x.rx_ep.re_comp_ch->fd, .events = POLLIN };
		s->ls_n++;
	}
	return gone;
}

/* Take what woke the poll: the wake eventfd, CM events, CQ events. */
static void set_handle(struct lead_set *s)
{
	struct svc_rdma_listener *l = s->ls_lst;
	uint64_t v;
	int i;

	if (s->ls_fds[0].revents &&
	    read(l->ln_threads.th_wakefd, &v, sizeof(v)) < 0)
		RPCRDMA_DBG("wake eventfd: %s", strerror(errno));
	if (s->ls_fds[1].revents)
		svc_rdma_lst_events(l);
	for (i = 0; i < s->ls_n; i++) {
		struct svc_rdma_conn *c = s->ls_conns[i];

		if (!s->ls_fds[2 + i].revents)
			continue;
		if (rpcrdma_cq_drain_events(&c->cn_x.rx_ep)) {
			pthread_mutex_lock(&c->cn_x.rx_lock);
			c->cn_x.rx_stats.rs_wakeups++;
			pthread_mutex_unlock(&c->cn_x.rx_lock);
		}
		svc_rdma_conn_reap(c);
	}
}

/*
 * One turn as leader: collect dead connections, take CM events (always
 * looked at, so new connections are accepted under load too), then reap
 * the CQs, spinning as long as learned (spin.h), at most busy_poll_us;
 * only when all is quiet arm them and sleep in poll(2).  Returns with
 * Calls queued, or on a wake.
 * forced: Calls are queued already (svc_loop.c): one look at the CM
 * channel and every CQ, no spin, no sleep, and so no arming either.
 */
static void lead(struct lead_set *s, int forced)
{
	struct svc_rdma_listener *l = s->ls_lst;
	struct rpcrdma_poll_stats ps = { 0 };
	struct svc_rdma_conn *gone, *next;
	int rc;

	pthread_mutex_lock(&l->ln_lock);
	gone = set_build(s);
	pthread_mutex_unlock(&l->ln_lock);
	for (; gone; gone = next) {
		next = gone->cn_gone;
		svc_rdma_conn_destroy(gone);
	}
	if (forced) {
		/* CQs left unarmed fire no event: each is reaped once too. */
		if (poll(s->ls_fds, (nfds_t)(2 + s->ls_n), 0) > 0)
			set_handle(s);
		set_reap(s);
		return;
	}
	if (poll(s->ls_fds, 2, 0) > 0) {
		int n = s->ls_n;

		/* Just the wake fd and CM events; the set may change. */
		s->ls_n = 0;
		set_handle(s);
		s->ls_n = n;
		return;
	}
	rc = rpcrdma_poll_wait(&set_ops, s, &l->ln_threads.th_spin,
			       s->ls_spin_us, 0, &ps);
	if (rc == -EAGAIN) {
		/* Armed with nothing queued: sleep.  The timeout only bounds
		 * how long a connection that died silently waits for reaping. */
		rc = poll(s->ls_fds, (nfds_t)(2 + s->ls_n), 1000);
		if (rc > 0) {
			ps.ps_wakeups++;
			set_handle(s);
		}
	}
	pthread_mutex_lock(&l->ln_lock);
	l->ln_closed.rs_wakeups += ps.ps_wakeups;
	l->ln_closed.rs_busy_poll_hits += ps.ps_hits;
	l->ln_closed.rs_busy_poll_misses += ps.ps_misses;
	l->ln_closed.rs_empty_polls += ps.ps_empty;
	pthread_mutex_unlock(&l->ln_lock);
}

/* Under ln_lock: a live connection with a Call queued, taken round-robin. */
static struct svc_rdma_conn *pick(struct svc_rdma_listener *l)
{
	struct svc_rdma_conn **pp, *c, **tail;

	for (pp = &l->ln_conns; (c = *pp); pp = &c->cn_next)
		if (conn_ready(c))
			break;
	if (!c)
		return NULL;
	/* To the tail, so a busy connection cannot starve the others. */
	*pp = c->cn_next;
	for (tail = pp; *tail; tail = &(*tail)->cn_next)
		;
	*tail = c;
	c->cn_next = NULL;
	c->cn_refs++;
	return c;
}

/*
 * Serve one Call through libtirpc (its auth and dispatch table).  Then,
 * if the dispatcher called svc_exit(), wake svc_run() so it can return:
 * it never wakes otherwise, as nothing it polls is ever written.
 */
static void serve(struct svc_rdma_listener *l, struct svc_rdma_call *ct,
		  struct svc_rdma_conn *c)
{
	struct svc_rdma_call *cur;
	struct svc_rdma_hold *h;

	ct->ct_conn = c;
	l->ln_tirpc->to_getreq(c->cn_fd);
	/* A dispatcher that never replied leaves its Call behind; one held
	 * while its Reads went (svc_hold.c) frees its holder after. */
	cur = svc_rdma_thread_call;
	svc_rdma_gss_leave(c, cur);
	svc_rdma_call_release(c, cur);
	h = svc_rdma_hold_of(c, cur);
	if (h)
		svc_rdma_hold_free(c, h);
	svc_rdma_thread_call = ct;
	ct->ct_conn = NULL;
	if (!svc_max_pollfd && !svc_pollfd)
		svc_threads_kick(l);
}

static void *svc_thread_main(void *arg)
{
	struct svc_thread_arg *ta = arg;
	struct svc_rdma_listener *l = ta->ta_lst;
	struct svc_rdma_threads *p = &l->ln_threads;
	struct svc_rdma_call ct = { .ct_slot = ta->ta_slot };
	struct lead_set s = { .ls_lst = l };
	struct svc_rdma_conn *c;
	uint64_t one = 1;

	/* Created by a thread that switches credentials per thread, it has
	 * that thread's of the moment: its verbs calls are routed too. */
	rpcrdma_vt_marked = ta->ta_vt_marked;
	free(ta);
	svc_rdma_thread_call = &ct;
	pthread_mutex_lock(&l->ln_lock);
	while (!p->th_stop) {
		/* Busy connections take turns with everything else. */
		int due = !p->th_leader &&
			  p->th_since_lead >= SVC_RDMA_TURN_CALLS;

		c = due ? NULL : pick(l);
		if (c) {
			p->th_since_lead++;
			pthread_mutex_unlock(&l->ln_lock);
			serve(l, &ct, c);
			pthread_mutex_lock(&l->ln_lock);
			/* The last user of a dead one: the leader reaps it. */
			if (!--c->cn_refs && conn_dead(c) &&
			    write(p->th_wakefd, &one, sizeof(one)) < 0)
				RPCRDMA_DBG("wake: %s", strerror(errno));
			continue;
		}
		if (p->th_leader) {
			pthread_cond_wait(&p->th_cond, &l->ln_lock);
			continue;
		}
		p->th_leader = 1;
		p->th_since_lead = 0;
		if (due)
			l->ln_closed.rs_forced_leads++;
		pthread_mutex_unlock(&l->ln_lock);
		lead(&s, due);
		pthread_mutex_lock(&l->ln_lock);
		p->th_leader = 0;
		/* Followers serve what was queued; one of them leads next. */
		pthread_cond_broadcast(&p->th_cond);
	}
	pthread_mutex_unlock(&l->ln_lock);
	free(s.ls_conns);
	free(s.ls_fds);
	return NULL;
}

/* Wake svc_run() (after svc_exit) through the listener's private fd. */
void svc_threads_kick(struct svc_rdma_listener *l)
{
	uint64_t one = 1;

	if (write(l->ln_runfd, &one, sizeof(one)) < 0)
		RPCRDMA_DBG("kick: %s", strerror(errno));
}

int svc_threads_start(struct svc_rdma_listener *l)
{
	struct svc_rdma_threads *p = &l->ln_threads;
	uint32_t i, n = l->ln_opts.ro_svc_threads;
	int rc;

	p->th_wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->th_wakefd < 0)
		return -errno;
	rc = rpcrdma_cond_init(&p->th_cond);
	p->th_threads = rc ? NULL : calloc(n, sizeof(*p->th_threads));
	if (!p->th_threads) {
		if (!rc)
			pthread_cond_destroy(&p->th_cond);
		close(p->th_wakefd);
		return rc ? rc : -ENOMEM;
	}
	/* Connections accepted from now on get one scratch slice per thread. */
	p->th_nthreads = n;
	for (i = 0; i < n; i++) {
		struct svc_thread_arg *ta = malloc(sizeof(*ta));

		if (ta) {
			ta->ta_lst = l;
			ta->ta_slot = i;
			ta->ta_vt_marked = rpcrdma_vt_marked;
		}
		rc = ta ? -pthread_create(&p->th_threads[i], NULL,
					  svc_thread_main, ta) : -ENOMEM;
		if (rc) {
			free(ta);
			break;
		}
	}
	if (i < n) {
		/* Stop the ones that started: they saw no connection yet. */
		p->th_nthreads = i;
		svc_threads_stop(l);
		return rc;
	}
	return 0;
}

/* Stop and join every thread; connections stay for lst_destroy. */
void svc_threads_stop(struct svc_rdma_listener *l)
{
	struct svc_rdma_threads *p = &l->ln_threads;
	uint64_t one = 1;
	uint32_t i;

	pthread_mutex_lock(&l->ln_lock);
	p->th_stop = 1;
	pthread_cond_broadcast(&p->th_cond);
	pthread_mutex_unlock(&l->ln_lock);
	if (write(p->th_wakefd, &one, sizeof(one)) < 0)
		RPCRDMA_DBG("stop: %s", strerror(errno));
	for (i = 0; i < p->th_nthreads; i++)
		pthread_join(p->th_threads[i], NULL);
	free(p->th_threads);
	p->th_threads = NULL;
	pthread_cond_destroy(&p->th_cond);
	close(p->th_wakefd);
}
