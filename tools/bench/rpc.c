/*
 * rpcrdma_bench's RPC program, carried by librpcrdma (one listener per
 * forced Send strategy) and by libtirpc TCP, through the public API only:
 * the server's dispatcher, the client's caller threads with per-call
 * verification, and the TCP control channel for server-side figures.
 */
#include <errno.h>
#include <netdb.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "bench.h"
#include "rpc_int.h"

static const enum rpcrdma_send_strategy rdma_strategy[BS_NR_RPC] = {
	[BS_INLINE] = RPCRDMA_SEND_INLINE, [BS_PULLUP] = RPCRDMA_SEND_PULLUP,
	[BS_MAPPED] = RPCRDMA_SEND_MAPPED, [BS_AUTO] = RPCRDMA_SEND_AUTO,
};

#define BENCH_PROG	0x20049002
#define BENCH_VERS	1

#define BENCH_CTL_COST 0x100u	/* BP_STATS argument flag: cost wanted */
#define BENCH_CTL_CG_BEGIN 0x200u	/* a measured run starts: zero callgrind */
#define BENCH_CTL_CG_END 0x400u	/* it ended: dump callgrind, as the label */
#define BENCH_CTL_LABEL 160

/* BP_STATS's argument: the strategy and flags, and the cell's label the
 * server's callgrind dump takes (bench_callgrind_*, cost.c). */
struct bench_ctl_args {
	u_int ca_which;
	char *ca_label;
};

static bool_t xdr_bench_ctl_args(XDR *x, struct bench_ctl_args *a)
{
	return xdr_u_int(x, &a->ca_which) &&
	       xdr_string(x, &a->ca_label, BENCH_CTL_LABEL);
}
#define WIRE_NCOUNTERS 12
#define WIRE_NCOST 6
struct bench_wire_stats {
	u_quad_t ws_cpu_us;
	u_quad_t ws_c[WIRE_NCOUNTERS];	/* struct bench_counters, in order */
	u_quad_t ws_cost[WIRE_NCOST];	/* struct bench_cost, in order */
};

static bool_t xdr_bench_wire_stats(XDR *x, struct bench_wire_stats *w)
{
	if (!xdr_u_hyper(x, &w->ws_cpu_us))
		return FALSE;
	for (int i = 0; i < WIRE_NCOUNTERS; i++)
		if (!xdr_u_hyper(x, &w->ws_c[i]))
			return FALSE;
	for (int i = 0; i < WIRE_NCOST; i++)
		if (!xdr_u_hyper(x, &w->ws_cost[i]))
			return FALSE;
	return TRUE;
}

/* BP_SCALE's result: struct bench_scale's sc_pin_kb, sc_threads, sc_fds,
 * sc_recv_bytes and sc_ring_bytes, in order. */
#define WIRE_NSCALE 5
struct bench_wire_scale {
	u_quad_t wsc[WIRE_NSCALE];
};

static bool_t xdr_bench_wire_scale(XDR *x, struct bench_wire_scale *w)
{
	for (int i = 0; i < WIRE_NSCALE; i++)
		if (!xdr_u_hyper(x, &w->wsc[i]))
			return FALSE;
	return TRUE;
}

bool_t xdr_bench_bytes(XDR *x, struct bench_bytes *b)
{
	return xdr_bytes(x, &b->bb_val, &b->bb_len, b->bb_max);
}

bool_t xdr_bench_read_args(XDR *x, struct bench_read_args *a)
{
	return xdr_u_int(x, &a->ra_len) && xdr_u_int(x, &a->ra_seed);
}

/* ---- payloads -------------------------------------------------------- */

/* Both sides build the same pattern; a seed is an offset into it. */
uint8_t *pattern;
static size_t pattern_len;

static int pattern_init(unsigned max)
{
	size_t len = (size_t)max + PAT_SPAN + 8;

	if (pattern && pattern_len >= len)
		return 0;
	free(pattern);
	pattern = malloc(len);
	if (!pattern)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		pattern[i] = (uint8_t)(i * 131u + (i >> 8) * 7u + 1u);
	pattern_len = len;
	return 0;
}

/* Cheap enough for the server's hot path; any flipped byte changes it. */
uint64_t checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void to_counters(const struct rpcrdma_stats *s, struct bench_counters *k)
{
	k->bk_calls = s->rs_calls;
	k->bk_inline_sends = s->rs_inline_sends;
	k->bk_pullup_sends = s->rs_pullup_sends;
	k->bk_pullup_bytes = s->rs_pullup_bytes;
	k->bk_mapped_sends = s->rs_mapped_sends;
	k->bk_registrations = s->rs_hardway_register_count;
	k->bk_sendctx_waits = s->rs_empty_sendctx_q;
	k->bk_credit_waits = s->rs_credit_waits;
	k->bk_too_large = s->rs_too_large;
	k->bk_fallbacks = s->rs_fallback_too_many_sges +
			  s->rs_fallback_too_big_for_inline +
			  s->rs_fallback_too_big_for_sendbuf +
			  s->rs_fallback_not_mappable;
	k->bk_wakeups = s->rs_wakeups;
	k->bk_busy_poll_hits = s->rs_busy_poll_hits;
}

static void counters_to_wire(const struct bench_counters *k, u_quad_t *w)
{
	const uint64_t v[WIRE_NCOUNTERS] = {
		k->bk_calls, k->bk_inline_sends, k->bk_pullup_sends,
		k->bk_pullup_bytes, k->bk_mapped_sends, k->bk_registrations,
		k->bk_sendctx_waits, k->bk_credit_waits, k->bk_too_large,
		k->bk_fallbacks, k->bk_wakeups, k->bk_busy_poll_hits,
	};

	memcpy(w, v, sizeof(v));
}

static void counters_from_wire(const u_quad_t *w, struct bench_counters *k)
{
	k->bk_calls = w[0];
	k->bk_inline_sends = w[1];
	k->bk_pullup_sends = w[2];
	k->bk_pullup_bytes = w[3];
	k->bk_mapped_sends = w[4];
	k->bk_registrations = w[5];
	k->bk_sendctx_waits = w[6];
	k->bk_credit_waits = w[7];
	k->bk_too_large = w[8];
	k->bk_fallbacks = w[9];
	k->bk_wakeups = w[10];
	k->bk_busy_poll_hits = w[11];
}

static double process_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* ---- server ---------------------------------------------------------- */

/*
 * The server's state.  Calls may be served by several threads (-j) and a
 * Reply's data buffer lives until its release runs (svc_rdma_sendreply_
 * async: a mapped Reply gathers it), so decode buffers come from a locked
 * free list that only grows, to as many as are in use at once.
 */
struct srv_buf {
	struct srv_buf *sb_next;
	char sb_data[];
};

static struct {
	SVCXPRT *sv_rdma[BS_NR_RPC];
	pthread_mutex_t sv_lock;
	struct srv_buf *sv_free;	/* decode buffers not in use */
	unsigned sv_max;
	unsigned sv_corrupt;		/* corrupt the Nth data reply */
	unsigned long sv_data_replies;	/* atomic */
} srv = { .sv_lock = PTHREAD_MUTEX_INITIALIZER };

static struct srv_buf *buf_get(void)
{
	struct srv_buf *b;

	pthread_mutex_lock(&srv.sv_lock);
	b = srv.sv_free;
	if (b)
		srv.sv_free = b->sb_next;
	pthread_mutex_unlock(&srv.sv_lock);
	return b ? b : malloc(sizeof(*b) + srv.sv_max + 1);
}

static void buf_put(void *arg, int status)
{
	struct srv_buf *b = arg;

	(void)status;
	pthread_mutex_lock(&srv.sv_lock);
	b->sb_next = srv.sv_free;
	srv.sv_free = b;
	pthread_mutex_unlock(&srv.sv_lock);
}

/* The --corrupt self-test: true exactly once, on the chosen reply. */
static int corrupt_now(void)
{
	return srv.sv_corrupt &&
	       __atomic_add_fetch(&srv.sv_data_replies, 1, __ATOMIC_RELAXED) ==
	       srv.sv_corrupt;
}

static void serve_stats(SVCXPRT *xprt)
{
	struct bench_wire_stats w;
	struct bench_counters k;
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	struct bench_cost cost;
	char label[BENCH_CTL_LABEL + 1];
	struct bench_ctl_args a = { 0, label };
	u_int which, flags;

	if (!svc_getargs(xprt, (xdrproc_t)xdr_bench_ctl_args, (char *)&a)) {
		svcerr_decode(xprt);
		return;
	}
	which = a.ca_which & ~(BENCH_CTL_CG_BEGIN | BENCH_CTL_CG_END);
	flags = a.ca_which & (BENCH_CTL_CG_BEGIN | BENCH_CTL_CG_END);
	if (flags & BENCH_CTL_CG_END)
		bench_callgrind_dump(label);
	memset(&w, 0, sizeof(w));
	memset(&k, 0, sizeof(k));
	/* The cost pass asks for the cost counters: start them on first use. */
	if (which & BENCH_CTL_COST) {
		static int started;

		which &= ~BENCH_CTL_COST;
		if (!started++)
			bench_cost_init();
	}
	/* Asynchronous calls go to auto's listener (bench_rpc_connect). */
	if (which == BS_ASYNC)
		which = BS_AUTO;
	if (which < BS_NR_RPC && srv.sv_rdma[which] &&
	    !svc_rdma_get_stats(srv.sv_rdma[which], &s))
		to_counters(&s, &k);
	counters_to_wire(&k, w.ws_c);
	w.ws_cpu_us = (u_quad_t)process_cpu_us();
	if (!bench_cost_snapshot(&cost)) {
		w.ws_cost[0] = cost.ck_syscalls;
		w.ws_cost[1] = cost.ck_instructions;
		w.ws_cost[2] = cost.ck_vcsw;
		w.ws_cost[3] = cost.ck_ivcsw;
		w.ws_cost[4] = cost.ck_allocs;
		w.ws_cost[5] = cost.ck_have;
	}
	svc_sendreply(xprt, (xdrproc_t)xdr_bench_wire_stats, (char *)&w);
	if (flags & BENCH_CTL_CG_BEGIN)
		bench_callgrind_begin();
}

/* The connections sweep: what the server process and a listener hold. */
static void serve_scale(SVCXPRT *xprt)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	struct bench_wire_scale w = { { 0 } };
	struct bench_scale k = { 0 };
	u_int which = 0;

	if (!svc_getargs(xprt, (xdrproc_t)xdr_u_int, (char *)&which)) {
		svcerr_decode(xprt);
		return;
	}
	bench_proc_scale(&k);
	if (which < BS_NR_RPC && srv.sv_rdma[which] &&
	    !svc_rdma_get_stats(srv.sv_rdma[which], &s)) {
		k.sc_recv_bytes = s.rs_srq_pinned;
		k.sc_ring_bytes = s.rs_ring_pinned;
	}
	w.wsc[0] = k.sc_pin_kb;
	w.wsc[1] = k.sc_threads;
	w.wsc[2] = k.sc_fds;
	w.wsc[3] = k.sc_recv_bytes;
	w.wsc[4] = k.sc_ring_bytes;
	svc_sendreply(xprt, (xdrproc_t)xdr_bench_wire_scale, (char *)&w);
}

/* Replies that carry data go async: their buffer returns in buf_put. */
static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	struct srv_buf *buf = NULL;
	struct bench_bytes b = { 0, NULL, srv.sv_max };
	struct bench_read_args ra;
	uint64_t sum;

	switch (rq->rq_proc) {
	case BP_NULL:
		svc_sendreply(xprt, XDR_VOID, NULL);
		return;
	case BP_WRITE:
		buf = buf_get();
		if (!buf)
			break;
		b.bb_val = buf->sb_data;
		if (!svc_getargs(xprt, (xdrproc_t)xdr_bench_bytes, (char *)&b))
			break;
		sum = checksum(b.bb_val, b.bb_len) ^ (corrupt_now() ? 1 : 0);
		buf_put(buf, 0);
		svc_sendreply(xprt, (xdrproc_t)xdr_u_hyper, (char *)&sum);
		return;
	case BP_READ:
		if (!svc_getargs(xprt, (xdrproc_t)xdr_bench_read_args, (char *)&ra) ||
		    ra.ra_len > srv.sv_max)
			break;
		b.bb_val = (char *)pattern + ra.ra_seed % PAT_SPAN;
		b.bb_len = ra.ra_len;
		if (ra.ra_len && corrupt_now()) {
			/* From a copy: the pattern itself must stay right. */
			buf = buf_get();
			if (!buf)
				break;
			memcpy(buf->sb_data, b.bb_val, ra.ra_len);
			buf->sb_data[ra.ra_len / 2] ^= 0x5a;
			b.bb_val = buf->sb_data;
			svc_rdma_sendreply_async(xprt, (xdrproc_t)xdr_bench_bytes,
						 (char *)&b, buf_put, buf);
			return;
		}
		svc_sendreply(xprt, (xdrproc_t)xdr_bench_bytes, (char *)&b);
		return;
	case BP_ECHO:
		buf = buf_get();
		if (!buf)
			break;
		b.bb_val = buf->sb_data;
		if (!svc_getargs(xprt, (xdrproc_t)xdr_bench_bytes, (char *)&b))
			break;
		if (b.bb_len && corrupt_now())
			b.bb_val[b.bb_len / 2] ^= 0x5a;
		svc_rdma_sendreply_async(xprt, (xdrproc_t)xdr_bench_bytes,
					 (char *)&b, buf_put, buf);
		return;
	case BP_STATS:
		serve_stats(xprt);
		return;
	case BP_SCALE:
		serve_scale(xprt);
		return;
	case BP_SHUTDOWN:
		svc_sendreply(xprt, XDR_VOID, NULL);
		svc_exit();
		return;
	default:
		svcerr_noproc(xprt);
		return;
	}
	if (buf)
		buf_put(buf, 0);
	svcerr_decode(xprt);
}

static int tcp_listener(const char *addr, unsigned port, SVCXPRT **out)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai;
	char pbuf[16];
	int fd, one = 1, rc;

	snprintf(pbuf, sizeof(pbuf), "%u", port);
	rc = getaddrinfo(addr, pbuf, &hints, &ai);
	if (rc)
		return -EADDRNOTAVAIL;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0) {
		rc = -errno;
		goto out_free;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Accepted sockets inherit it: without it Nagle and delayed ACKs
	 * stall pipelined Replies by ~200 ms, and TCP would look worse than
	 * a tuned TCP server is. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		rc = -errno;
		goto out_close;
	}
	*out = svc_vc_create(fd, 0, 0);
	if (!*out) {
		rc = -ENOMEM;
		goto out_close;
	}
	freeaddrinfo(ai);
	return 0;

out_close:
	close(fd);
out_free:
	freeaddrinfo(ai);
	return rc;
}

int bench_rpc_serve(const struct bench_opts *o)
{
	char port[16];
	SVCXPRT *tcp = NULL;
	int rc;

	srv.sv_max = o->bo_max_size;
	srv.sv_corrupt = o->bo_corrupt;
	if (pattern_init(srv.sv_max))
		return -ENOMEM;
	for (int s = 0; s < BS_NR_RPC; s++) {
		struct rpcrdma_options ro;

		rpcrdma_options_init(&ro);
		ro.ro_send_strategy = rdma_strategy[s];
		/* -j, not RPCRDMA_SVC_THREADS: the report says which ran. */
		ro.ro_svc_threads = o->bo_svc_threads;
		snprintf(port, sizeof(port), "%u", o->bo_port + (unsigned)s);
		srv.sv_rdma[s] = svc_rdma_create(o->bo_addr, port, &ro);
		if (!srv.sv_rdma[s]) {
			clnt_pcreateerror("rpcrdma_bench: svc_rdma_create");
			return -EADDRNOTAVAIL;
		}
		if (!svc_reg(srv.sv_rdma[s], BENCH_PROG, BENCH_VERS, dispatch, NULL))
			return -EEXIST;
	}
	rc = tcp_listener(o->bo_addr, o->bo_port + BENCH_PORT_TCP, &tcp);
	if (rc) {
		fprintf(stderr, "rpcrdma_bench: TCP listener on port %u: %s\n",
			o->bo_port + BENCH_PORT_TCP, strerror(-rc));
		return rc;
	}
	if (!svc_reg(tcp, BENCH_PROG, BENCH_VERS, dispatch, NULL))
		return -EEXIST;
	printf("rpcrdma_bench: ready\n");
	fflush(stdout);
	svc_run();
	return 0;
}

/* ---- client ---------------------------------------------------------- */

struct bench_rpc_client {
	enum bench_strategy rc_strategy;
	unsigned rc_n;
	CLIENT **rc_cl;			/* rc_n of them */
};

static CLIENT *tcp_client(const char *addr, const char *source, unsigned port,
			  char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai, *src = NULL;
	struct netbuf nb;
	char pbuf[16];
	CLIENT *cl = NULL;
	int fd, one = 1;

	snprintf(pbuf, sizeof(pbuf), "%u", port);
	if (getaddrinfo(addr, pbuf, &hints, &ai)) {
		snprintf(err, errlen, "cannot resolve %s", addr);
		return NULL;
	}
	if (source && getaddrinfo(source, NULL, &hints, &src)) {
		snprintf(err, errlen, "cannot resolve %s", source);
		goto out_free;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || (src && bind(fd, src->ai_addr, src->ai_addrlen)) ||
	    connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		snprintf(err, errlen, "TCP connect to %s:%u: %s", addr, port,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_free;
	}
	/* Small Calls go at once, not after a delayed ACK (Nagle). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	nb.buf = ai->ai_addr;
	nb.len = nb.maxlen = ai->ai_addrlen;
	cl = clnt_vc_create(fd, &nb, BENCH_PROG, BENCH_VERS, 0, 0);
	if (!cl) {
		snprintf(err, errlen, "clnt_vc_create: %s",
			 clnt_spcreateerror("tcp"));
		close(fd);
		goto out_free;
	}
	clnt_control(cl, CLSET_FD_CLOSE, NULL);
out_free:
	if (src)
		freeaddrinfo(src);
	freeaddrinfo(ai);
	return cl;
}

static CLIENT *rdma_client(const struct bench_opts *o, enum bench_strategy s,
			   char *err, size_t errlen)
{
	struct rpcrdma_options ro;
	char port[16];
	CLIENT *cl;

	/* async: the auto listener, the asynchronous API (rpc_async.c). */
	if (s == BS_ASYNC)
		s = BS_AUTO;
	rpcrdma_options_init(&ro);
	ro.ro_send_strategy = rdma_strategy[s];
	ro.ro_source = o->bo_source;
	snprintf(port, sizeof(port), "%u", o->bo_port + (unsigned)s);
	cl = clnt_rdma_create(o->bo_addr, port, BENCH_PROG, BENCH_VERS, &ro);
	if (!cl)
		snprintf(err, errlen, "clnt_rdma_create %s:%s: %s", o->bo_addr,
			 port, clnt_spcreateerror("rdma"));
	return cl;
}

/*
 * A libtirpc TCP CLIENT carries one call at a time (clnt_vc_call holds
 * the descriptor's lock for the whole call), so TCP gets a connection per
 * caller: at depth it is measured as a program would use it, not
 * serialized.  librpcrdma's CLIENT takes as many calls as it has credits.
 */
static unsigned conns_for(const struct bench_opts *o, enum bench_strategy s)
{
	unsigned n = o->bo_conns;

	if (s == BS_ASYNC)
		return 1;	/* one thread, one CLIENT, all calls on it */
	if (s == BS_TCP)
		for (unsigned i = 0; i < o->bo_ninflight; i++)
			if (o->bo_inflight[i] > n)
				n = o->bo_inflight[i];
	return n < BENCH_MAX_CALLERS ? n : BENCH_MAX_CALLERS;
}

struct bench_rpc_client *bench_rpc_connect(const struct bench_opts *o,
					   enum bench_strategy s,
					   char *err, size_t errlen)
{
	return bench_rpc_connect_n(o, s, conns_for(o, s), err, errlen);
}

#define CONNECT_TRIES 3

struct bench_rpc_client *bench_rpc_connect_n(const struct bench_opts *o,
					     enum bench_strategy s, unsigned n,
					     char *err, size_t errlen)
{
	struct bench_rpc_client *rc;
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };

	if (pattern_init(o->bo_max_size))
		return NULL;
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return NULL;
	rc->rc_strategy = s;
	rc->rc_cl = calloc(n ? n : 1, sizeof(*rc->rc_cl));
	if (!rc->rc_cl) {
		free(rc);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		CLIENT *cl = NULL;

		/* A connection attempt on an emulated bed can fail half-way. */
		for (int t = 0; !cl && t < CONNECT_TRIES; t++) {
			if (t)
				usleep(200 * 1000);
			cl = s == BS_TCP ?
				tcp_client(o->bo_addr, o->bo_source,
					   o->bo_port + BENCH_PORT_TCP, err, errlen) :
				rdma_client(o, s, err, errlen);
		}
		if (!cl) {
			char why[256];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "connection %u of %u: %s", i + 1, n,
				 why);
			bench_rpc_close(rc);
			return NULL;
		}
		clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo);
		rc->rc_cl[rc->rc_n++] = cl;
	}
	return rc;
}

unsigned bench_rpc_touch(struct bench_rpc_client *rc, char *err, size_t errlen)
{
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };
	unsigned ok = 0;

	for (unsigned i = 0; i < rc->rc_n; i++) {
		enum clnt_stat st = clnt_call(rc->rc_cl[i], BP_NULL, XDR_VOID, NULL,
					      XDR_VOID, NULL, tmo);

		if (st == RPC_SUCCESS)
			ok++;
		else if (ok == i)	/* the first failure says why */
			snprintf(err, errlen, "connection %u: %s", i + 1,
				 clnt_sperrno(st));
	}
	return ok;
}

/*
 * --totals: the counters of every librpcrdma CLIENT the run made, summed
 * as each is destroyed (bench_rpc_close), for comparing with the USDT
 * probes of this process (tests/rdma/probe-cases.sh).
 */
#define TOTAL(f) { #f, offsetof(struct rpcrdma_stats, f) }
static const struct { const char *name; size_t off; } total_fields[] = {
	TOTAL(rs_calls), TOTAL(rs_calls_refused), TOTAL(rs_replies), TOTAL(rs_bad_replies),
	TOTAL(rs_timeouts), TOTAL(rs_signaled_sends), TOTAL(rs_inline_sends),
	TOTAL(rs_pullup_sends), TOTAL(rs_mapped_sends), TOTAL(rs_too_large),
	TOTAL(rs_read_chunk_calls), TOTAL(rs_long_calls),
	TOTAL(rs_reply_chunks), TOTAL(rs_reply_chunk_replies),
	TOTAL(rs_write_chunks), TOTAL(rs_chunk_regs), TOTAL(rs_chunk_deregs),
	TOTAL(rs_err_chunk), TOTAL(rs_reply_chunk_retries),
	TOTAL(rs_reconnects), TOTAL(rs_reconnect_failures),
	TOTAL(rs_retransmits), TOTAL(rs_remote_invs),
	TOTAL(rs_credit_waits), TOTAL(rs_empty_sendctx_q),
	TOTAL(rs_wakeups), TOTAL(rs_busy_poll_hits),
	TOTAL(rs_busy_poll_misses), TOTAL(rs_empty_polls),
	TOTAL(rs_reply_waits_for_send),
};
#define NTOTALS (sizeof(total_fields) / sizeof(total_fields[0]))
static uint64_t totals[NTOTALS];
static unsigned totals_clients;

static void add_totals(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		return;
	totals_clients++;
	for (size_t i = 0; i < NTOTALS; i++)
		totals[i] += *(const uint64_t *)((const char *)&s +
						 total_fields[i].off);
}

int bench_rpc_write_totals(const char *path)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -errno;
	fprintf(f, "pid %ld\nclients %u\n", (long)getpid(), totals_clients);
	for (size_t i = 0; i < NTOTALS; i++)
		fprintf(f, "%s %llu\n", total_fields[i].name,
			(unsigned long long)totals[i]);
	bad = ferror(f);
	return fclose(f) || bad ? -EIO : 0;
}

void bench_rpc_close(struct bench_rpc_client *rc)
{
	if (!rc)
		return;
	for (unsigned i = 0; i < rc->rc_n; i++) {
		if (rc->rc_strategy != BS_TCP)
			add_totals(rc->rc_cl[i]);
		clnt_destroy(rc->rc_cl[i]);
	}
	free(rc->rc_cl);
	free(rc);
}

void bench_rpc_counters(struct bench_rpc_client *rc, struct bench_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (rc->rc_strategy == BS_TCP)
		return;
	for (unsigned i = 0; i < rc->rc_n; i++) {
		struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
		struct bench_counters k;

		if (!clnt_control(rc->rc_cl[i], RPCRDMA_CLGET_STATS, (char *)&s))
			continue;
		to_counters(&s, &k);
		out->bk_calls += k.bk_calls;
		out->bk_inline_sends += k.bk_inline_sends;
		out->bk_pullup_sends += k.bk_pullup_sends;
		out->bk_pullup_bytes += k.bk_pullup_bytes;
		out->bk_mapped_sends += k.bk_mapped_sends;
		out->bk_registrations += k.bk_registrations;
		out->bk_sendctx_waits += k.bk_sendctx_waits;
		out->bk_credit_waits += k.bk_credit_waits;
		out->bk_too_large += k.bk_too_large;
		out->bk_fallbacks += k.bk_fallbacks;
		out->bk_wakeups += k.bk_wakeups;
		out->bk_busy_poll_hits += k.bk_busy_poll_hits;
	}
}

/* One caller thread of a cell. */
struct caller {
	CLIENT *ca_cl;
	struct bench_rpc_client *ca_conns;
	unsigned ca_first, ca_next;	/* connections: its first, the next */
	unsigned ca_stride;		/* callers in the cell */
	const struct bench_run *ca_run;
	unsigned ca_seed;
	char *ca_buf;			/* results decode here */
	uint64_t ca_expect;		/* write: the checksum due */
	unsigned long ca_quota;		/* count mode: calls to make */
	float *ca_lat;
	size_t ca_nlat, ca_cap;
	uint64_t ca_calls;
	double ca_done;			/* when its last call ended */
	int ca_rc;
	char ca_note[96];
	pthread_t ca_thread;
};

/* Shared by a cell's callers. */
static pthread_barrier_t cell_start;
static double cell_end;
static atomic_int cell_failed;

/* One call and its verification: 0, or a negative errno with a note. */
static int call_once(struct caller *ca)
{
	const struct bench_run *r = ca->ca_run;
	const char *src = (const char *)pattern + ca->ca_seed % PAT_SPAN;
	struct bench_bytes arg = { r->br_size, (char *)src, r->br_size };
	struct bench_bytes res = { 0, ca->ca_buf, r->br_size };
	struct bench_read_args ra = { r->br_size, ca->ca_seed };
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };
	enum clnt_stat st;
	uint64_t sum = 0;

	switch (r->br_workload) {
	case BW_NULL:
		st = clnt_call(ca->ca_cl, BP_NULL, XDR_VOID, NULL,
			       XDR_VOID, NULL, tmo);
		break;
	case BW_WRITE:
		st = clnt_call(ca->ca_cl, BP_WRITE, (xdrproc_t)xdr_bench_bytes,
			       (char *)&arg, (xdrproc_t)xdr_u_hyper, (char *)&sum, tmo);
		break;
	case BW_READ:
		st = clnt_call(ca->ca_cl, BP_READ, (xdrproc_t)xdr_bench_read_args,
			       (char *)&ra, (xdrproc_t)xdr_bench_bytes, (char *)&res, tmo);
		break;
	default:
		st = clnt_call(ca->ca_cl, BP_ECHO, (xdrproc_t)xdr_bench_bytes,
			       (char *)&arg, (xdrproc_t)xdr_bench_bytes, (char *)&res, tmo);
		break;
	}
	if (st != RPC_SUCCESS) {
		struct rpc_err e;

		clnt_geterr(ca->ca_cl, &e);
		snprintf(ca->ca_note, sizeof(ca->ca_note), "%s (errno %d)",
			 clnt_sperrno(st), e.re_errno);
		if (st == RPC_CANTSEND && e.re_errno == EMSGSIZE)
			return -EMSGSIZE;
		if (st == RPC_CANTRECV && e.re_errno == EPROTO)
			return -EPROTO;
		return st == RPC_TIMEDOUT ? -ETIMEDOUT : -EIO;
	}
	if (r->br_workload == BW_WRITE && sum != ca->ca_expect) {
		snprintf(ca->ca_note, sizeof(ca->ca_note),
			 "write of %u bytes: the server's checksum differs",
			 r->br_size);
		return -EILSEQ;
	}
	if ((r->br_workload == BW_READ || r->br_workload == BW_ECHO) &&
	    (res.bb_len != r->br_size || memcmp(res.bb_val, src, r->br_size))) {
		snprintf(ca->ca_note, sizeof(ca->ca_note),
			 "%s of %u bytes: the result (%u bytes) differs",
			 bench_workload_name(r->br_workload), r->br_size,
			 res.bb_len);
		return -EILSEQ;
	}
	return 0;
}

static void *caller_main(void *arg)
{
	struct caller *ca = arg;

	bench_cost_thread_start();
	pthread_barrier_wait(&cell_start);
	while (!atomic_load(&cell_failed)) {
		double t0 = bench_now(), t1;
		int rc;

		if (ca->ca_run->br_duration ? t0 >= cell_end :
		    ca->ca_calls >= ca->ca_quota)
			break;
		/* More connections than callers (--conns): each caller goes
		 * round its own share of them, one call on each in turn. */
		ca->ca_cl = ca->ca_conns->rc_cl[ca->ca_next];
		ca->ca_next += ca->ca_stride;
		if (ca->ca_next >= ca->ca_conns->rc_n)
			ca->ca_next = ca->ca_first;
		rc = call_once(ca);
		t1 = bench_now();
		if (rc) {
			ca->ca_rc = rc;
			atomic_store(&cell_failed, 1);
			break;
		}
		if (ca->ca_nlat < ca->ca_cap)
			ca->ca_lat[ca->ca_nlat++] = (float)((t1 - t0) * 1e6);
		ca->ca_calls++;
		ca->ca_done = t1;
	}
	return NULL;
}

/* A single call first: a size the transport cannot carry is no failure. */
static int probe(struct bench_rpc_client *rc, const struct bench_run *run,
		 char *buf, char *note, size_t notelen)
{
	struct caller ca = { .ca_cl = rc->rc_cl[0], .ca_run = run,
			     .ca_buf = buf, .ca_seed = 7 };
	struct timeval tmo = { PROBE_TIMEOUT_S, 0 }, back = { CALL_TIMEOUT_S, 0 };
	int ret;

	ca.ca_expect = checksum(pattern + 7, run->br_size);
	clnt_control(ca.ca_cl, CLSET_TIMEOUT, (char *)&tmo);
	ret = call_once(&ca);
	clnt_control(ca.ca_cl, CLSET_TIMEOUT, (char *)&back);
	if (ret)
		snprintf(note, notelen, "%s", ca.ca_note);
	return ret;
}

int bench_rpc_run(struct bench_rpc_client *rc, const struct bench_run *run,
		  struct bench_samples *lat, uint64_t *calls, double *secs,
		  char *note, size_t notelen)
{
	unsigned n = run->br_inflight;
	struct caller *ca;
	size_t cap_each;
	double t0, done = 0;
	int ret = 0;

	if (rc->rc_strategy == BS_ASYNC) {
		/* The same first call as the callers' (a size the transport
		 * cannot carry is no failure), blocking. */
		ca = calloc(1, sizeof(*ca));
		if (!ca)
			return -ENOMEM;
		ca->ca_buf = malloc(run->br_size + 1);
		ret = ca->ca_buf ? probe(rc, run, ca->ca_buf, note, notelen) :
				   -ENOMEM;
		free(ca->ca_buf);
		free(ca);
		return ret ? ret : bench_async_run(rc->rc_cl[0], run, lat, calls,
						   secs, note, notelen);
	}

	*calls = 0;
	*secs = 0;
	lat->bs_n = 0;
	if (!n || n > BENCH_MAX_CALLERS)
		return -EINVAL;
	ca = calloc(n, sizeof(*ca));
	if (!ca)
		return -ENOMEM;
	cap_each = lat->bs_cap / n;
	for (unsigned i = 0; i < n; i++) {
		ca[i].ca_buf = malloc(run->br_size + 1);
		ca[i].ca_lat = malloc((cap_each + 1) * sizeof(float));
		if (!ca[i].ca_buf || !ca[i].ca_lat) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	ret = probe(rc, run, ca[0].ca_buf, note, notelen);
	if (ret)
		goto out_free;

	pthread_barrier_init(&cell_start, NULL, n + 1);
	atomic_store(&cell_failed, 0);
	for (unsigned i = 0; i < n; i++) {
		ca[i].ca_conns = rc;
		ca[i].ca_first = ca[i].ca_next = i % rc->rc_n;
		ca[i].ca_stride = n;
		ca[i].ca_run = run;
		ca[i].ca_seed = i * 37u + 11u;
		ca[i].ca_expect = checksum(pattern + ca[i].ca_seed % PAT_SPAN,
					   run->br_size);
		ca[i].ca_cap = cap_each;
		ca[i].ca_quota = run->br_count / n + (i < run->br_count % n);
		if (pthread_create(&ca[i].ca_thread, NULL, caller_main, &ca[i])) {
			/* Those started are stuck at the barrier: let them go. */
			atomic_store(&cell_failed, 1);
			n = i;
			ret = -EAGAIN;
			break;
		}
	}
	t0 = bench_now();
	cell_end = t0 + run->br_duration;
	pthread_barrier_wait(&cell_start);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(ca[i].ca_thread, NULL);
		if (ca[i].ca_rc && !ret) {
			ret = ca[i].ca_rc;
			snprintf(note, notelen, "%s", ca[i].ca_note);
		}
		*calls += ca[i].ca_calls;
		if (ca[i].ca_done > done)
			done = ca[i].ca_done;
		for (size_t j = 0; j < ca[i].ca_nlat && lat->bs_n < lat->bs_cap; j++)
			lat->bs_us[lat->bs_n++] = ca[i].ca_lat[j];
	}
	pthread_barrier_destroy(&cell_start);
	*secs = done > t0 ? done - t0 : 0;
out_free:
	for (unsigned i = 0; i < run->br_inflight; i++) {
		free(ca[i].ca_buf);
		free(ca[i].ca_lat);
	}
	free(ca);
	return ret;
}

/* ---- control channel ------------------------------------------------- */

struct bench_ctl {
	CLIENT *ct_cl;
};

struct bench_ctl *bench_ctl_connect(const struct bench_opts *o, double give_up_s,
				    char *err, size_t errlen)
{
	double give_up = bench_now() + give_up_s;
	struct bench_ctl *ctl = calloc(1, sizeof(*ctl));
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };

	if (!ctl)
		return NULL;
	/* The server may still be starting: retry until the deadline. */
	while (!(ctl->ct_cl = tcp_client(o->bo_addr, o->bo_source,
					 o->bo_port + BENCH_PORT_TCP, err, errlen))) {
		if (bench_now() > give_up) {
			free(ctl);
			return NULL;
		}
		usleep(200 * 1000);
	}
	clnt_control(ctl->ct_cl, CLSET_TIMEOUT, (char *)&tmo);
	return ctl;
}

int bench_ctl_snapshot(struct bench_ctl *ctl, enum bench_strategy s,
		       double *cpu_us, struct bench_counters *server,
		       struct bench_cost *cost)
{
	return bench_ctl_snapshot_cg(ctl, s, cpu_us, server, cost, 0, NULL);
}

int bench_ctl_snapshot_cg(struct bench_ctl *ctl, enum bench_strategy s,
			  double *cpu_us, struct bench_counters *server,
			  struct bench_cost *cost, int cg, const char *label)
{
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };
	struct bench_wire_stats w;
	struct bench_ctl_args a = {
		(u_int)s | (cost ? BENCH_CTL_COST : 0) |
		(cg > 0 ? BENCH_CTL_CG_BEGIN : cg < 0 ? BENCH_CTL_CG_END : 0),
		(char *)(label ? label : ""),
	};

	memset(&w, 0, sizeof(w));
	if (clnt_call(ctl->ct_cl, BP_STATS, (xdrproc_t)xdr_bench_ctl_args, (char *)&a,
		      (xdrproc_t)xdr_bench_wire_stats, (char *)&w, tmo) != RPC_SUCCESS)
		return -EIO;
	*cpu_us = (double)w.ws_cpu_us;
	counters_from_wire(w.ws_c, server);
	if (cost) {
		cost->ck_syscalls = w.ws_cost[0];
		cost->ck_instructions = w.ws_cost[1];
		cost->ck_vcsw = w.ws_cost[2];
		cost->ck_ivcsw = w.ws_cost[3];
		cost->ck_allocs = w.ws_cost[4];
		cost->ck_have = (unsigned)w.ws_cost[5];
	}
	return 0;
}

int bench_ctl_scale(struct bench_ctl *ctl, enum bench_strategy s,
		    struct bench_scale *out)
{
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };
	struct bench_wire_scale w = { { 0 } };
	u_int which = (u_int)s;

	if (clnt_call(ctl->ct_cl, BP_SCALE, (xdrproc_t)xdr_u_int, (char *)&which,
		      (xdrproc_t)xdr_bench_wire_scale, (char *)&w, tmo) != RPC_SUCCESS)
		return -EIO;
	out->sc_pin_kb = w.wsc[0];
	out->sc_threads = w.wsc[1];
	out->sc_fds = w.wsc[2];
	out->sc_recv_bytes = w.wsc[3];
	out->sc_ring_bytes = w.wsc[4];
	return 0;
}

int bench_ctl_shutdown(struct bench_ctl *ctl)
{
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };

	return clnt_call(ctl->ct_cl, BP_SHUTDOWN, XDR_VOID, NULL,
			 XDR_VOID, NULL, tmo) == RPC_SUCCESS ? 0 : -EIO;
}

void bench_ctl_close(struct bench_ctl *ctl)
{
	if (!ctl)
		return;
	clnt_destroy(ctl->ct_cl);
	free(ctl);
}
