/*
 * RDMA echo server for the transport tests: rpcgen's own dispatcher
 * (echo_prog_1) served by svc_run() over an svc_rdma_create() listener.
 * Writes READYFILE once listening; exits 0 after ECHO_SHUTDOWN.  With -l
 * it serves from its own loop (svc_rdma_serve) instead of svc_run().
 * With -j N the library's N service threads serve (ro_svc_threads); the
 * most ECHO_SLEEPs seen running at once is printed at exit.  With -A
 * every Reply goes by svc_rdma_sendreply_async(); results are poisoned
 * when released, and every Reply sent must have been released by exit.
 * With -P BYTES the program hands the listener a region of its own for
 * the chunk pool (huge pages if it can have them), registered on
 * svc_rdma_get_pd(), which must then have served chunk buffers; -F 0 or
 * -F 1 says whether Calls must have fallen back to per-Call
 * registrations (none ever fails to get memory).
 * With -c each new caller / local address pair of a Call is printed
 * (svc_getrpccaller, xp_ltaddr), and the listener's own address at
 * start.  -M N sets max_connections, -i MS idle_timeout_ms.  ECHO_STATUS reports the process's
 * descriptors, pinned memory and the listener's connection counters.
 * -m BYTES sets max_conn_memory to a connection's rings, by the formula
 * of rpcrdma.conf(5), plus BYTES; -x N (with -l) stops the server once
 * its listener has refused N connection requests.  -S: on SIGTERM (the
 * harness stopping a server whose client failed) the listener's counters
 * are printed first, so that a Call that never arrived can be told from
 * a Reply that never reached the client.  -W: no Reply may have waited
 * for its Send (rs_reply_waits_for_send 0), svc_sendreply() too; -O: some
 * Reply's results must have been copied for it (rs_reply_copies); -K:
 * served Calls' shared receive buffers must have gone back in batches,
 * two or more per post (rs_recv_posted, rs_srq_refills); -Q: some Call
 * with Read chunks must have waited for a holder (rs_reads_queued).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "drc_prog.h"
#include "strategy_check.h"
#include "lib_defaults.h"

void echo_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static SVCXPRT *listener;
static volatile int stopping;
static int sleeping, max_sleeping;	/* concurrent ECHO_SLEEPs (atomic) */
static int show_addrs;			/* -c */
static unsigned idle_ms;		/* -i */
static unsigned svc_threads;	/* -j, or as configured: in force */

/* "ADDR port N" of a netbuf holding a sockaddr, or why not. */
static void addr_text(const struct netbuf *nb, char *out, size_t len)
{
	const struct sockaddr *sa = nb ? nb->buf : NULL;
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (!sa || nb->len < sizeof(struct sockaddr_in)) {
		snprintf(out, len, "(none, len %u)", nb ? nb->len : 0);
		return;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = nb->buf;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = nb->buf;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		port = ntohs(in6->sin6_port);
	}
	snprintf(out, len, "%s port %u", ip, port);
}

/* -c: print each caller/local pair once, as a service would log it. */
static void show_call_addrs(SVCXPRT *xprt)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char last[256];
	char r[96], l[96], line[256];

	addr_text(svc_getrpccaller(xprt), r, sizeof(r));
	addr_text(&xprt->xp_ltaddr, l, sizeof(l));
	snprintf(line, sizeof(line), "server: caller %s local %s", r, l);
	pthread_mutex_lock(&lock);
	if (strcmp(line, last)) {
		strcpy(last, line);
		printf("%s\n", line);
		fflush(stdout);
	}
	pthread_mutex_unlock(&lock);
}

static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* not the one reading the directory */
}

static unsigned vmpin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	unsigned kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %u kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

bool_t echo_status_1_svc(void *argp, echo_status *res, struct svc_req *rq)
{
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;
	int n;

	(void)argp; (void)rq;
	memset(res, 0, sizeof(*res));
	res->es_fds = count_fds();
	res->es_vmpin_kb = vmpin_kb();
	/* Without service threads: the listener's fd and one per connection. */
	n = svc_rdma_pollfds(listener, NULL, 0);
	/* ... and with an idle timeout (the default has one), the timer's,
	 * and under svc_run the kick's (the turns of busy connections). */
	n -= 1 + (idle_ms > 0) + (svc_threads == 0);
	res->es_conns = n > 0 ? (unsigned)n : 0;
	if (svc_rdma_get_stats(listener, &st) == 0) {
		res->es_accepted = (unsigned)st.rs_conns_accepted;
		res->es_refused = (unsigned)st.rs_conns_refused;
		res->es_lost = (unsigned)st.rs_conns_lost;
		res->es_freed = (unsigned)st.rs_conns_freed;
		res->es_idle_closed = (unsigned)st.rs_idle_closed;
		res->es_ring_kb = (unsigned)(st.rs_ring_pinned >> 10);
	}
	return TRUE;
}

static unsigned count_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	unsigned n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	fclose(f);
	return n;
}

bool_t echo_srq_1_svc(void *argp, echo_srq *res, struct svc_req *rq)
{
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;

	(void)argp; (void)rq;
	memset(res, 0, sizeof(*res));
	res->eq_vmpin_kb = vmpin_kb();
	res->eq_threads = count_threads();
	if (svc_rdma_get_stats(listener, &st))
		return TRUE;
	res->eq_posted = (unsigned)st.rs_srq_posted;
	res->eq_in_use = (unsigned)st.rs_srq_in_use;
	res->eq_pinned_kb = (unsigned)(st.rs_srq_pinned >> 10);
	res->eq_committed = (unsigned)st.rs_srq_committed;
	res->eq_grant_min = (unsigned)st.rs_grant_min;
	res->eq_grant_max = (unsigned)st.rs_grant_max;
	res->eq_grant_sum = (unsigned)st.rs_grant_sum;
	res->eq_raises = (unsigned)st.rs_credit_raises;
	res->eq_cuts = (unsigned)st.rs_credit_cuts;
	res->eq_exceeded = (unsigned)st.rs_grant_exceeded;
	res->eq_overcommits = (unsigned)st.rs_grant_overcommits;
	res->eq_fallbacks = (unsigned)st.rs_srq_fallbacks;
	res->eq_downgrades = (unsigned)st.rs_recv_downgrades;
	res->eq_ring_kb = (unsigned)(st.rs_ring_pinned >> 10);
	res->eq_limit_events = (unsigned)st.rs_srq_limit_events;
	res->eq_recv_posted = (unsigned)st.rs_recv_posted;
	res->eq_refills = (unsigned)st.rs_srq_refills;
	return TRUE;
}

bool_t echo_null_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp; (void)result; (void)rq;
	return TRUE;
}

bool_t echo_bytes_1_svc(echo_bytes *argp, echo_bytes *result,
			struct svc_req *rq)
{
	(void)rq;
	/* Hand the decoded buffer over; freeresult releases it once. */
	*result = *argp;
	memset(argp, 0, sizeof(*argp));
	return TRUE;
}

/* Two patterned opaques of *n bytes (echo.x), at most 1 MiB each. */
bool_t echo_pair_1_svc(u_int *n, echo_pair *res, struct svc_req *rq)
{
	u_int i, len = *n < (1u << 20) ? *n : (1u << 20);

	(void)rq;
	memset(res, 0, sizeof(*res));
	res->ep_a.echo_bytes_val = malloc(len ? len : 1);
	res->ep_b.echo_bytes_val = malloc(len ? len : 1);
	if (!res->ep_a.echo_bytes_val || !res->ep_b.echo_bytes_val) {
		free(res->ep_a.echo_bytes_val);
		free(res->ep_b.echo_bytes_val);
		memset(res, 0, sizeof(*res));
		return FALSE;
	}
	res->ep_a.echo_bytes_len = res->ep_b.echo_bytes_len = len;
	for (i = 0; i < len; i++) {
		res->ep_a.echo_bytes_val[i] = (char)((i * 7 + 1) & 0xff);
		res->ep_b.echo_bytes_val[i] = (char)((i * 13 + 2) & 0xff);
	}
	return TRUE;
}

bool_t echo_fixed_1_svc(echo_fixed *argp, echo_fixed *result,
			struct svc_req *rq)
{
	(void)rq;
	*result = *argp;
	result->ef_int = ~argp->ef_int;	/* proves the server touched it */
	return TRUE;
}

bool_t echo_string_1_svc(echo_str *argp, echo_str *result, struct svc_req *rq)
{
	(void)rq;
	*result = *argp;
	*argp = NULL;
	return TRUE;
}

/* Copied, not referenced, data both ways: each word encoded on its own. */
bool_t echo_words_1_svc(echo_words *argp, echo_words *result,
			struct svc_req *rq)
{
	(void)rq;
	*result = *argp;
	memset(argp, 0, sizeof(*argp));
	return TRUE;
}

bool_t echo_shutdown_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp; (void)result; (void)rq;
	return TRUE;
}

bool_t echo_sleep_1_svc(u_int *ms, void *result, struct svc_req *rq)
{
	int now, max;

	(void)result; (void)rq;
	/* The Call is dropped: no Reply, ever (a server that loses calls). */
	if (*ms == 0xffffffffu)
		return FALSE;
	now = __atomic_add_fetch(&sleeping, 1, __ATOMIC_SEQ_CST);
	max = __atomic_load_n(&max_sleeping, __ATOMIC_SEQ_CST);
	while (now > max && !__atomic_compare_exchange_n(&max_sleeping, &max, now,
							 0, __ATOMIC_SEQ_CST,
							 __ATOMIC_SEQ_CST))
		;
	usleep(*ms * 1000u);
	__atomic_sub_fetch(&sleeping, 1, __ATOMIC_SEQ_CST);
	return TRUE;
}

int echo_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t result)
{
	(void)transp;
	xdr_free(xres, result);
	return 1;
}

/* -A: one Call's arguments and results, alive until the release runs. */
union echo_any {
	echo_bytes b;
	echo_fixed f;
	echo_str s;
	echo_words w;
	u_int ms;
	echo_status st;
	echo_srq sq;
	echo_pair pr;
};

struct async_call {
	union echo_any ac_arg, ac_res;
	xdrproc_t ac_xres;
};

static unsigned long async_sent, async_released, async_reset;

/* The transport no longer references the results: poison, then free. */
static void async_done(void *arg, int status)
{
	struct async_call *ac = arg;

	if (ac->ac_xres == (xdrproc_t)(void (*)(void))xdr_echo_bytes && ac->ac_res.b.echo_bytes_val)
		memset(ac->ac_res.b.echo_bytes_val, 0xa5, ac->ac_res.b.echo_bytes_len);
	xdr_free(ac->ac_xres, (char *)&ac->ac_res);
	memset(ac, 0xa5, sizeof(*ac));
	free(ac);
	__atomic_add_fetch(&async_released, 1, __ATOMIC_SEQ_CST);
	if (status)
		__atomic_add_fetch(&async_reset, 1, __ATOMIC_SEQ_CST);
}

/* rpcgen's dispatcher, but answering with svc_rdma_sendreply_async(). */
static void dispatch_async(struct svc_req *rq, SVCXPRT *xprt)
{
	bool_t (*fn)(void *, void *, struct svc_req *);
	xdrproc_t xargs, xres;
	struct async_call *ac;

	switch (rq->rq_proc) {
#define P(proc, f, xa, xr) case proc: fn = (bool_t (*)(void *, void *, struct svc_req *))(void (*)(void))f; \
		xargs = (xdrproc_t)(void (*)(void))xa; xres = (xdrproc_t)(void (*)(void))xr; break
	P(ECHO_NULL, echo_null_1_svc, xdr_void, xdr_void);
	P(ECHO_BYTES, echo_bytes_1_svc, xdr_echo_bytes, xdr_echo_bytes);
	P(ECHO_FIXED, echo_fixed_1_svc, xdr_echo_fixed, xdr_echo_fixed);
	P(ECHO_STRING, echo_string_1_svc, xdr_echo_str, xdr_echo_str);
	P(ECHO_SHUTDOWN, echo_shutdown_1_svc, xdr_void, xdr_void);
	P(ECHO_SLEEP, echo_sleep_1_svc, xdr_u_int, xdr_void);
	P(ECHO_WORDS, echo_words_1_svc, xdr_echo_words, xdr_echo_words);
	P(ECHO_STATUS, echo_status_1_svc, xdr_void, xdr_echo_status);
	P(ECHO_SRQ, echo_srq_1_svc, xdr_void, xdr_echo_srq);
	P(ECHO_PAIR, echo_pair_1_svc, xdr_u_int, xdr_echo_pair);
#undef P
	default:
		svcerr_noproc(xprt);
		return;
	}
	ac = calloc(1, sizeof(*ac));
	if (!ac) {
		svcerr_systemerr(xprt);
		return;
	}
	if (!svc_getargs(xprt, xargs, (char *)&ac->ac_arg)) {
		svcerr_decode(xprt);
		free(ac);
		return;
	}
	ac->ac_xres = xres;
	if (!fn(&ac->ac_arg, &ac->ac_res, rq)) {
		svcerr_systemerr(xprt);
		svc_freeargs(xprt, xargs, (char *)&ac->ac_arg);
		free(ac);
		return;
	}
	svc_freeargs(xprt, xargs, (char *)&ac->ac_arg);
	__atomic_add_fetch(&async_sent, 1, __ATOMIC_SEQ_CST);
	svc_rdma_sendreply_async(xprt, xres, (char *)&ac->ac_res, async_done, ac);
}

static int async;

/* Wraps rpcgen's dispatcher to stop svc_run() after ECHO_SHUTDOWN. */
static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	if (show_addrs)
		show_call_addrs(xprt);
	if (async)
		dispatch_async(rq, xprt);
	else
		echo_prog_1(rq, xprt);
	if (rq->rq_proc == ECHO_SHUTDOWN) {
		stopping = 1;
		svc_exit();
	}
}

/*
 * -S.  Not async-signal-safe in general (the counters are read under the
 * library's locks): the harness sends SIGTERM once a client gave up on a
 * call, when svc_run() normally sleeps in poll(2) holding none; a server
 * that deadlocked here is ended by the harness's timeout all the same.
 */
static SVCXPRT *term_listener;

static void term_stats(int sig)
{
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;
	char buf[320];
	int n;

	if (term_listener && !svc_rdma_get_stats(term_listener, &st)) {
		n = snprintf(buf, sizeof(buf), "server: at SIGTERM: calls %llu "
			     "replies %llu bad_calls %llu stalled_conns %llu "
			     "conns_accepted %llu lost %llu freed %llu "
			     "stall_refused %llu cqe_unknown %llu\n",
			     (unsigned long long)st.rs_calls,
			     (unsigned long long)st.rs_replies,
			     (unsigned long long)st.rs_bad_calls,
			     (unsigned long long)st.rs_stalled_conns,
			     (unsigned long long)st.rs_conns_accepted,
			     (unsigned long long)st.rs_conns_lost,
			     (unsigned long long)st.rs_conns_freed,
			     (unsigned long long)st.rs_stall_refused,
			     (unsigned long long)st.rs_cqe_unknown);
		if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) < 0)
			n = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Regions the pool cannot use are refused (EINVAL), and stay the program's. */
static int refuses_bad_regions(struct ibv_pd *pd, void *mem)
{
	struct ibv_pd *other = ibv_alloc_pd(pd->context);
	struct ibv_mr *small = ibv_reg_mr(pd, mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *foreign = other ? ibv_reg_mr(other, mem, 1u << 20,
						    IBV_ACCESS_LOCAL_WRITE) : NULL;
	int bad = 0;

	if (!small || !foreign) {
		perror("ibv_alloc_pd/ibv_reg_mr");
		return 1;
	}
	errno = 0;
	if (svc_rdma_pool_add(listener, small) != -1 || errno != EINVAL)
		bad = printf("server: FAIL: a 4 KiB region was taken\n");
	errno = 0;
	if (svc_rdma_pool_add(listener, foreign) != -1 || errno != EINVAL)
		bad = printf("server: FAIL: a region on another PD was taken\n");
	errno = 0;
	if (svc_rdma_pool_add(NULL, small) != -1 || errno != EINVAL)
		bad = printf("server: FAIL: no listener, yet taken\n");
	ibv_dereg_mr(small);
	ibv_dereg_mr(foreign);
	ibv_dealloc_pd(other);
	return bad;
}

/* A region of len bytes (huge pages when there are), handed to the pool. */
static void *give_region(size_t len, size_t *mapped)
{
	size_t huge = 2u << 20, hlen = (len + huge - 1) / huge * huge;
	struct ibv_pd *pd = svc_rdma_get_pd(listener, NULL);
	struct ibv_mr *mr;
	void *mem;

	if (!pd) {
		perror("svc_rdma_get_pd");
		return NULL;
	}
	mem = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	*mapped = hlen;
	if (mem == MAP_FAILED) {
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*mapped = len;
	}
	if (mem == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	printf("server: region of %zu bytes, %s pages\n", len,
	       *mapped == hlen && hlen != len ? "huge" : "ordinary");
	if (refuses_bad_regions(pd, mem))
		return NULL;
	mr = ibv_reg_mr(pd, mem, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || svc_rdma_pool_add(listener, mr)) {
		perror("ibv_reg_mr/svc_rdma_pool_add");
		return NULL;
	}
	return mem;
}

/* The pool's counters, and what -P / -F said they must show. */
static int pool_verify(const struct rpcrdma_stats *st, int region, int fallback)
{
	printf("server: pool bufs %llu user_bufs %llu fallbacks %llu failures %llu "
	       "pinned %llu pinned_peak %llu VmPin %ld kB\n",
	       (unsigned long long)st->rs_pool_bufs,
	       (unsigned long long)st->rs_pool_user_bufs,
	       (unsigned long long)st->rs_pool_fallbacks,
	       (unsigned long long)st->rs_pool_failures,
	       (unsigned long long)st->rs_pool_pinned,
	       (unsigned long long)st->rs_pool_pinned_peak, (long)vmpin_kb());
	if (region && !st->rs_pool_user_bufs) {
		printf("server: FAIL: the program's region was never used\n");
		return 1;
	}
	if (fallback >= 0 && !st->rs_pool_fallbacks != !fallback) {
		printf("server: FAIL: fallbacks %llu, expected %s\n",
		       (unsigned long long)st->rs_pool_fallbacks,
		       fallback ? "some" : "none");
		return 1;
	}
	if (fallback >= 0 && st->rs_pool_failures) {
		printf("server: FAIL: Calls got no memory at all\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL;
	int own_loop = 0, no_wait = 0, want_copies = 0, want_batches = 0;
	int want_queued = 0;
	int strategy = -1, live = -1, fallback = -1;
	size_t region = 0, mapped = 0;
	void *region_mem = NULL;
	uint32_t threads = 0, inl = TEST_INLINE_RECV_DEFAULT;
	unsigned long long conn_budget = 0, stop_refused = 0;
	int term_on = 0;
	struct rpcrdma_options o;
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;
	FILE *f;
	int c;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "Aa:p:r:ls:ST:j:e:L:P:F:cM:i:m:x:WOKQ")) != -1) {
		switch (c) {
		case 'A':
			async = 1;
			break;
		case 'L':	/* a strategy set on the live listener */
			strategy = live = strategy_parse(optarg);
			if (live < 0)
				return 2;
			break;
		case 'e':	/* the strategy the configuration must force */
			strategy = strategy_parse(optarg);
			if (strategy < 0)
				return 2;
			break;
		case 'j':
			o.ro_svc_threads = threads = (uint32_t)atoi(optarg);
			break;
		case 'T':
			o.ro_inline_send = o.ro_inline_recv = inl = (uint32_t)atoi(optarg);
			break;
		case 'm':
			conn_budget = strtoull(optarg, NULL, 0);
			break;
		case 'x':
			stop_refused = strtoull(optarg, NULL, 0);
			break;
		case 's':
			strategy = strategy_parse(optarg);
			if (strategy < 0)
				return 2;
			o.ro_send_strategy = (uint32_t)strategy;
			break;
		case 'P':
			region = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			fallback = atoi(optarg);
			break;
		case 'l': own_loop = 1; break;
		case 'W': no_wait = 1; break;
		case 'O': want_copies = 1; break;
		case 'K': want_batches = 1; break;
		case 'Q': want_queued = 1; break;
		case 'c': show_addrs = 1; break;
		case 'S': term_on = 1; break;
		case 'M': o.ro_max_connections = (uint32_t)atoi(optarg); break;
		case 'i':
			idle_ms = (unsigned)atoi(optarg);
			o.ro_idle_timeout_ms = idle_ms;
			break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || !ready) {
		fprintf(stderr, "usage: echo_server -a ADDR -p PORT -r READYFILE\n");
		return 2;
	}
	if (conn_budget) {
		/* max_requests x (inline_recv + inline_send), and one
		 * inline_send of Reply scratch per thread serving at once. */
		o.ro_max_requests = 32;
		o.ro_max_conn_memory = (uint32_t)(32ull * 2 * inl +
						  (uint64_t)inl * (threads ? threads : 1) +
						  conn_budget);
		printf("server: max_conn_memory %u\n", o.ro_max_conn_memory);
	}
	listener = svc_rdma_create(addr, port, &o);
	if (!listener) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
	}
	if (term_on) {
		term_listener = listener;
		signal(SIGTERM, term_stats);
	}
	{
		struct rpcrdma_options in_force;

		/* The idle timeout and service threads in force, from -i
		 * and -j or the configuration. */
		rpcrdma_options_init(&in_force);
		if (!svc_rdma_get_options(listener, &in_force)) {
			idle_ms = in_force.ro_idle_timeout_ms;
			svc_threads = in_force.ro_svc_threads;
		}
	}
	if (live >= 0) {
		struct rpcrdma_options ch;

		rpcrdma_options_init(&ch);
		ch.ro_send_strategy = (uint32_t)live;
		if (svc_rdma_set_options(listener, &ch) ||
		    svc_rdma_get_options(listener, &o) ||
		    o.ro_send_strategy != (uint32_t)live) {
			fprintf(stderr, "svc_rdma_set_options failed\n");
			return 1;
		}
	}
	if (region && !(region_mem = give_region(region, &mapped)))
		return 1;
	if (show_addrs) {
		char l[96];

		addr_text(&listener->xp_ltaddr, l, sizeof(l));
		printf("server: listener local %s xp_port %u\n", l,
		       (unsigned)listener->xp_port);
	}
	/* The counter of the duplicate request cache tests (drcpeer). */
	if (!svc_reg(listener, ECHO_PROG, ECHO_VERS, dispatch, NULL) ||
	    drc_prog_register(listener)) {
		fprintf(stderr, "svc_reg failed\n");
		return 1;
	}
	f = fopen(ready, "w");
	if (!f || fclose(f))
		return 1;
	if (own_loop) {
		/* The program's own loop, as an event-driven server would. */
		while (!stopping) {
			if (svc_rdma_serve(listener, 1000) < 0) {
				perror("svc_rdma_serve");
				return 1;
			}
			if (stop_refused && !svc_rdma_get_stats(listener, &st) &&
			    st.rs_conns_refused >= stop_refused)
				stopping = 1;
		}
	} else {
		svc_run();
	}
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: calls %llu replies %llu bad_calls %llu pullup_sends %llu "
		       "stalled_conns %llu conns_accepted %llu refused %llu lost %llu "
		       "freed %llu\n",
		       (unsigned long long)st.rs_calls,
		       (unsigned long long)st.rs_replies,
		       (unsigned long long)st.rs_bad_calls,
		       (unsigned long long)st.rs_pullup_sends,
		       (unsigned long long)st.rs_stalled_conns,
		       (unsigned long long)st.rs_conns_accepted,
		       (unsigned long long)st.rs_conns_refused,
		       (unsigned long long)st.rs_conns_lost,
		       (unsigned long long)st.rs_conns_freed);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: srq grant_exceeded %llu overcommits %llu "
		       "fallbacks %llu downgrades %llu raises %llu cuts %llu\n",
		       (unsigned long long)st.rs_grant_exceeded,
		       (unsigned long long)st.rs_grant_overcommits,
		       (unsigned long long)st.rs_srq_fallbacks,
		       (unsigned long long)st.rs_recv_downgrades,
		       (unsigned long long)st.rs_credit_raises,
		       (unsigned long long)st.rs_credit_cuts);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: chunk_limit %llu too_large %llu conn_mem_limit %llu\n",
		       (unsigned long long)st.rs_chunk_limit,
		       (unsigned long long)st.rs_too_large,
		       (unsigned long long)st.rs_conn_mem_limit);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: reads_peak %llu cqe_unknown %llu\n",
		       (unsigned long long)st.rs_reads_peak,
		       (unsigned long long)st.rs_cqe_unknown);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: fair turns_yielded %llu forced_leads %llu "
		       "stall_refused %llu\n",
		       (unsigned long long)st.rs_turns_yielded,
		       (unsigned long long)st.rs_forced_leads,
		       (unsigned long long)st.rs_stall_refused);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: drc hits %llu misses %llu inprog_drops %llu "
		       "evictions %llu\n", (unsigned long long)st.rs_drc_hits,
		       (unsigned long long)st.rs_drc_misses,
		       (unsigned long long)st.rs_drc_inprog_drops,
		       (unsigned long long)st.rs_drc_evictions);
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: remote_inv_sends %llu write_chunks %llu "
		       "reply_chunk_replies %llu\n",
		       (unsigned long long)st.rs_remote_inv_sends,
		       (unsigned long long)st.rs_write_chunks,
		       (unsigned long long)st.rs_reply_chunk_replies);
	if (svc_rdma_get_stats(listener, &st) == 0) {
		printf("server: reply_copies %llu reply_waits_for_send %llu "
		       "mapped_sends %llu replies_parked %llu\n",
		       (unsigned long long)st.rs_reply_copies,
		       (unsigned long long)st.rs_reply_waits_for_send,
		       (unsigned long long)st.rs_mapped_sends,
		       (unsigned long long)st.rs_replies_parked);
		printf("server: reads_deferred %llu recv_posted %llu "
		       "srq_refills %llu reads_queued %llu\n",
		       (unsigned long long)st.rs_reads_deferred,
		       (unsigned long long)st.rs_recv_posted,
		       (unsigned long long)st.rs_srq_refills,
		       (unsigned long long)st.rs_reads_queued);
		printf("server: writes_ahead %llu\n",
		       (unsigned long long)st.rs_writes_ahead);
		if (want_batches && (!st.rs_srq_refills ||
				     st.rs_srq_refills * 2 > st.rs_recv_posted)) {
			printf("server: FAIL: receives given back one by one\n");
			return 1;
		}
		if (want_queued && !st.rs_reads_queued) {
			printf("server: FAIL: no Call waited for a holder\n");
			return 1;
		}
		if (want_copies && !st.rs_reply_copies) {
			printf("server: FAIL: no Reply's results were copied\n");
			return 1;
		}
		if (no_wait && st.rs_reply_waits_for_send) {
			printf("server: FAIL: a service thread waited for a Send\n");
			return 1;
		}
	}
	printf("server: max concurrent %d\n",
	       __atomic_load_n(&max_sleeping, __ATOMIC_SEQ_CST));
	if (pool_verify(&st, region != 0, fallback))
		return 1;
	/* The SHUTDOWN Reply was just posted: destroying lets it go out
	 * (the library lingers) and runs every release left. */
	svc_destroy(listener);
	/* The listener deregistered the region: the memory is ours again. */
	if (region_mem)
		munmap(region_mem, mapped);
	if (async) {
		printf("server: async sent %lu released %lu (reset %lu) "
		       "reply_waits_for_send %llu\n", async_sent, async_released,
		       async_reset, (unsigned long long)st.rs_reply_waits_for_send);
		if (async_sent != async_released) {
			printf("server: FAIL: %lu async Replies never released\n",
			       async_sent - async_released);
			return 1;
		}
		if (st.rs_reply_waits_for_send) {
			printf("server: FAIL: a service thread waited for a Send\n");
			return 1;
		}
	}
	if (strategy >= 0) {
		const char *why;

		strategy_print("server", &st);
		why = strategy_verify(strategy, &st, st.rs_replies + st.rs_bad_calls);
		if (why) {
			printf("server: FAIL: strategy %d: %s\n", strategy, why);
			return 1;
		}
	}
	return 0;
}
