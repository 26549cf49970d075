/*
 * Asynchronous calls (clnt_rdma_call_async(3)) on real verbs, against
 * echo_server: one thread keeps many calls in flight, every Reply is
 * verified and every callback must run exactly once.
 *   -m fd|wait|thread  who drives: the program's poll(2) on the
 *                      descriptor, clnt_rdma_progress with a timeout, or
 *                      the library's progress thread
 *   -d DEPTH -n CALLS  calls in flight, calls in all (mixed sizes: inline,
 *                      Read chunks, Reply chunks)
 *   -B                 another thread makes blocking calls meanwhile
 *   -H                 the hostile sequence: timeouts among good calls,
 *                      credit starvation (2 credits, 64 in flight, then
 *                      every credit held by abandoned calls), and calls
 *                      abandoned by clnt_destroy
 *   -Y FLAG            FLAG is created with calls in flight; the harness
 *                      restarts the server: every call completes after
 *                      the reconnection (retransmitted, counted)
 * Without -H or -Y, what the CLIENT keeps registered is checked at the end
 * (tu_check_pinned): windows within reply_windows, all of it pinned.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "test_util.h"

#define ECHO_DROP 0xffffffffu	/* ECHO_SLEEP of this: no Reply, ever */

enum kind { K_ECHO, K_DROP, K_NULL };

struct call {
	unsigned c_id;
	enum kind c_kind;
	unsigned c_len;
	char *c_in;
	echo_bytes c_arg, c_res;
	u_int c_drop;
	int c_done;			/* callbacks run for it */
	enum clnt_stat c_st;
};

static const unsigned sizes[] = { 0, 64, 1024, 4000, 9000, 70000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct call *calls;
static unsigned ncalls, nalloc, started, completed, depth;
static struct timeval tmo = { 30, 0 };
static int refill = 1;		/* callbacks start the next call */
static int destroying;		/* in clnt_destroy: RPC_INTR is due */
static const char *mode = "wait";

static char pattern(unsigned id, unsigned i)
{
	return (char)(id * 31 + i * 7 + 1);
}

static void check(struct call *c)
{
	unsigned i;

	if (c->c_kind != K_ECHO)
		return;
	if (c->c_res.echo_bytes_len != c->c_len)
		die("call %u: %u bytes back for %u", c->c_id,
		    c->c_res.echo_bytes_len, c->c_len);
	for (i = 0; i < c->c_len; i++)
		if (c->c_res.echo_bytes_val[i] != pattern(c->c_id, i))
			die("call %u: byte %u differs", c->c_id, i);
}

static void start(CLIENT *cl, unsigned id);

static void done(CLIENT *cl, enum clnt_stat st, void *arg)
{
	struct call *c = arg;
	int more;

	if (__atomic_add_fetch(&c->c_done, 1, __ATOMIC_SEQ_CST) != 1)
		die("call %u: callback run twice", c->c_id);
	c->c_st = st;
	if (st == RPC_SUCCESS)
		check(c);
	else if (c->c_kind != K_DROP && !(st == RPC_INTR && destroying))
		die("call %u (%u bytes): %s (%d)", c->c_id, c->c_len,
		    clnt_sperrno(st), (int)st);
	if (c->c_kind == K_ECHO && st == RPC_SUCCESS)
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&c->c_res);
	pthread_mutex_lock(&lock);
	completed++;
	more = refill && started < ncalls;
	if (more)
		started++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (more)
		start(cl, started - 1);
}

static void prepare(unsigned id, enum kind k, unsigned len)
{
	struct call *c = &calls[id];
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->c_id = id;
	c->c_kind = k;
	c->c_len = len;
	c->c_in = malloc(len ? len : 1);
	if (!c->c_in)
		die("out of memory");
	for (i = 0; i < len; i++)
		c->c_in[i] = pattern(id, i);
	c->c_arg.echo_bytes_len = len;
	c->c_arg.echo_bytes_val = c->c_in;
	c->c_drop = ECHO_DROP;
}

static void start(CLIENT *cl, unsigned id)
{
	struct call *c = &calls[id];
	int rc;

	switch (c->c_kind) {
	case K_ECHO:
		rc = clnt_rdma_call_async(cl, ECHO_BYTES,
					  (xdrproc_t)xdr_echo_bytes, &c->c_arg,
					  (xdrproc_t)xdr_echo_bytes, &c->c_res,
					  tmo, done, c);
		break;
	case K_DROP:
		rc = clnt_rdma_call_async(cl, ECHO_SLEEP, (xdrproc_t)xdr_u_int,
					  &c->c_drop, (xdrproc_t)(void (*)(void))xdr_void, NULL,
					  tmo, done, c);
		break;
	default:
		rc = clnt_rdma_call_async(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void,
					  NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
					  tmo, done, c);
	}
	if (rc)
		die("clnt_rdma_call_async: %s", strerror(errno));
}

/* Drive until @n calls completed, as -m says; 60 s at most. */
static void drive(CLIENT *cl, unsigned n)
{
	double t0 = now();
	unsigned got;

	for (;;) {
		pthread_mutex_lock(&lock);
		got = completed;
		if (got < n && !strcmp(mode, "thread")) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&cond, &lock, &ts);
			got = completed;
		}
		pthread_mutex_unlock(&lock);
		if (got >= n)
			return;
		if (now() - t0 > 60)
			die("%u of %u calls completed after 60 s", got, n);
		if (!strcmp(mode, "fd")) {
			struct pollfd p = { .fd = clnt_rdma_progress_fd(cl),
					    .events = POLLIN };

			if (p.fd < 0)
				die("clnt_rdma_progress_fd: %s", strerror(errno));
			if (poll(&p, 1, 1000) < 0)
				die("poll: %s", strerror(errno));
			if (clnt_rdma_progress(cl, 0) < 0)
				die("clnt_rdma_progress: %s", strerror(errno));
		} else if (!strcmp(mode, "wait")) {
			if (clnt_rdma_progress(cl, 1000) < 0)
				die("clnt_rdma_progress: %s", strerror(errno));
		}
	}
}

static void expect_all_once(unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (calls[i].c_done != 1)
			die("call %u: %d callbacks", i, calls[i].c_done);
}

static void reset(unsigned n)
{
	unsigned i;

	for (i = 0; i < nalloc; i++)
		free(calls[i].c_in);
	free(calls);
	calls = n ? calloc(n, sizeof(*calls)) : NULL;
	if (n && !calls)
		die("out of memory");
	ncalls = nalloc = n;
	started = completed = 0;
}

static CLIENT *create(const char *addr, const char *port,
		      struct rpcrdma_options *o)
{
	CLIENT *cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, o);

	if (!cl)
		die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
	if (!strcmp(mode, "thread") && clnt_rdma_progress_thread(cl))
		die("clnt_rdma_progress_thread: %s", strerror(errno));
	return cl;
}

/* Start the first @d of the calls, then drive them all home. */
static void run(CLIENT *cl, unsigned d)
{
	unsigned i, first;

	pthread_mutex_lock(&lock);
	first = d < ncalls ? d : ncalls;
	started = first;
	pthread_mutex_unlock(&lock);
	for (i = 0; i < first; i++)
		start(cl, i);
	drive(cl, ncalls);
	expect_all_once(ncalls);
}

/* ---- blocking calls beside them (-B) ------------------------------------- */

static void *blocking(void *arg)
{
	CLIENT *cl = arg;
	char in[1500];
	unsigned i, n;

	for (n = 0; n < 200; n++) {
		echo_bytes a = { (n * 37) % sizeof(in), in }, r = { 0, NULL };

		for (i = 0; i < a.echo_bytes_len; i++)
			in[i] = (char)(i + n);
		if (clnt_call(cl, ECHO_BYTES, (xdrproc_t)xdr_echo_bytes,
			      (char *)&a, (xdrproc_t)xdr_echo_bytes, (char *)&r,
			      tmo) != RPC_SUCCESS)
			die("blocking call %u: %s", n, clnt_sperror(cl, "echo"));
		/* An empty result has no buffer (memcmp must not see NULL). */
		if (r.echo_bytes_len != a.echo_bytes_len ||
		    (a.echo_bytes_len &&
		     memcmp(r.echo_bytes_val, in, a.echo_bytes_len)))
			die("blocking call %u came back different", n);
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&r);
	}
	return NULL;
}

/* ---- the hostile sequence (-H) ------------------------------------------- */

/* Calls the server never answers time out among calls it answers. */
static void timeouts(const char *addr, const char *port,
		     struct rpcrdma_options *o)
{
	CLIENT *cl = create(addr, port, o);
	struct rpcrdma_stats s0, s;
	unsigned i, drops = 0;

	reset(60);
	for (i = 0; i < ncalls; i++) {
		prepare(i, i % 10 == 3 ? K_DROP : K_ECHO, sizes[i % 4]);
		drops += calls[i].c_kind == K_DROP;
	}
	s0 = stats(cl);
	refill = 0;
	tmo.tv_sec = 0;
	tmo.tv_usec = 500 * 1000;
	for (i = 0; i < ncalls; i++) {
		if (calls[i].c_kind == K_ECHO) {
			tmo.tv_sec = 30;
			tmo.tv_usec = 0;
		}
		start(cl, i);
		tmo.tv_sec = 0;
		tmo.tv_usec = 500 * 1000;
	}
	started = ncalls;
	drive(cl, ncalls);
	expect_all_once(ncalls);
	for (i = 0; i < ncalls; i++)
		if (calls[i].c_kind == K_DROP && calls[i].c_st != RPC_TIMEDOUT)
			die("dropped call %u: %s", i, clnt_sperrno(calls[i].c_st));
	s = stats(cl);
	if (s.rs_timeouts - s0.rs_timeouts != drops)
		die("%llu timeouts counted for %u", (unsigned long long)
		    (s.rs_timeouts - s0.rs_timeouts), drops);
	printf("async_client: %u calls timed out among %u answered\n", drops,
	       ncalls - drops);
	clnt_destroy(cl);
	tmo.tv_sec = 30;
	tmo.tv_usec = 0;
	refill = 1;
}

/* Two credits: 64 calls queue for them; then every credit is held by an
 * abandoned call and the next calls recover by reconnecting. */
static void starvation(const char *addr, const char *port,
		       struct rpcrdma_options *o)
{
	struct rpcrdma_options o2 = *o;
	struct rpcrdma_stats s0, s;
	unsigned i, credits;
	CLIENT *cl;

	o2.ro_max_requests = 2;
	cl = create(addr, port, &o2);
	reset(200);
	for (i = 0; i < ncalls; i++)
		prepare(i, K_ECHO, sizes[i % 5]);
	run(cl, 64);
	s0 = stats(cl);
	credits = (unsigned)s0.rs_credits_granted;
	if (!s0.rs_credit_waits)
		die("64 calls in flight on %u credits never waited", credits);
	printf("async_client: 200 calls, 64 in flight on %u credits, %llu "
	       "waited\n", credits, (unsigned long long)s0.rs_credit_waits);

	reset(credits + 20);
	refill = 0;
	for (i = 0; i < ncalls; i++)
		prepare(i, i < credits ? K_DROP : K_ECHO, sizes[i % 4]);
	tmo.tv_sec = 0;
	tmo.tv_usec = 300 * 1000;
	for (i = 0; i < credits; i++)
		start(cl, i);
	drive(cl, credits);
	tmo.tv_sec = 30;
	tmo.tv_usec = 0;
	for (; i < ncalls; i++)
		start(cl, i);
	started = ncalls;
	drive(cl, ncalls);
	expect_all_once(ncalls);
	s = stats(cl);
	if (s.rs_credit_recoveries != s0.rs_credit_recoveries + 1 ||
	    s.rs_reconnects != s0.rs_reconnects + 1 ||
	    s.rs_timeouts != s0.rs_timeouts + credits)
		die("expected %u timeouts, one credit recovery and one "
		    "reconnection: %llu, %llu, %llu", credits,
		    (unsigned long long)(s.rs_timeouts - s0.rs_timeouts),
		    (unsigned long long)(s.rs_credit_recoveries -
					 s0.rs_credit_recoveries),
		    (unsigned long long)(s.rs_reconnects - s0.rs_reconnects));
	printf("async_client: %u credits held by abandoned calls, recovered\n",
	       credits);
	clnt_destroy(cl);
	refill = 1;
}

/* clnt_destroy with calls in flight: each callback runs once, there. */
static void destroyed(const char *addr, const char *port,
		      struct rpcrdma_options *o)
{
	CLIENT *cl = create(addr, port, o);
	unsigned i, intr = 0, ok = 0;

	reset(40);
	refill = 0;
	/* A first Reply grants the credits: one call until then. */
	if (clnt_call(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
		      (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo) != RPC_SUCCESS)
		die("NULL: %s", clnt_sperror(cl, "ECHO_NULL"));
	for (i = 0; i < ncalls; i++)
		prepare(i, i % 4 == 3 ? K_DROP : K_ECHO, sizes[i % 5]);
	for (i = 0; i < ncalls; i++)
		start(cl, i);
	started = ncalls;
	/* Some answered, some not yet, some never. */
	drive(cl, 5);
	/* Echo calls still in flight end RPC_INTR there, as dropped ones. */
	destroying = 1;
	clnt_destroy(cl);
	destroying = 0;
	expect_all_once(ncalls);
	for (i = 0; i < ncalls; i++) {
		if (calls[i].c_st == RPC_INTR)
			intr++;
		else if (calls[i].c_st == RPC_SUCCESS)
			ok++;
		else
			die("call %u at destroy: %s", i,
			    clnt_sperrno(calls[i].c_st));
		if (calls[i].c_kind == K_DROP && calls[i].c_st != RPC_INTR)
			die("dropped call %u ended %s", i,
			    clnt_sperrno(calls[i].c_st));
	}
	printf("async_client: destroyed with calls in flight: %u answered, "
	       "%u interrupted, each callback once\n", ok, intr);
	refill = 1;
}

/* ---- the server restarted under calls in flight (-Y) --------------------- */

static void restarted(CLIENT *cl, const char *flag)
{
	struct rpcrdma_stats s;
	/* Enough calls to outlast the harness (its poll for the flag, a
	 * fork of pkill, slow under emulation): 4000 all ended before the
	 * server went, seen on rxe.  The calls stop at the reconnection. */
	unsigned i, total = 40000;
	FILE *f;

	reset(total);
	for (i = 0; i < ncalls; i++)
		prepare(i, K_ECHO, sizes[i % 4]);
	pthread_mutex_lock(&lock);
	started = depth;
	pthread_mutex_unlock(&lock);
	for (i = 0; i < depth; i++)
		start(cl, i);
	drive(cl, 100);
	f = fopen(flag, "w");
	if (!f)
		die("%s: %s", flag, strerror(errno));
	fclose(f);
	for (;;) {
		drive(cl, completed + 1);
		s = stats(cl);
		if (s.rs_reconnects || completed >= ncalls)
			break;
	}
	/* Stop starting, let what is in flight finish. */
	pthread_mutex_lock(&lock);
	ncalls = started;
	pthread_mutex_unlock(&lock);
	drive(cl, ncalls);
	expect_all_once(ncalls);
	s = stats(cl);
	if (!s.rs_reconnects || !s.rs_retransmits)
		die("%u calls, %llu reconnections, %llu retransmits", ncalls,
		    (unsigned long long)s.rs_reconnects,
		    (unsigned long long)s.rs_retransmits);
	printf("async_client: %u calls across a server restart, %llu "
	       "retransmitted, all verified\n", ncalls,
	       (unsigned long long)s.rs_retransmits);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *flag = NULL;
	struct rpcrdma_options o;
	int c, hostile = 0, beside = 0;
	unsigned n = 1000, i;
	pthread_t t;
	CLIENT *cl;

	tu_name = "async_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	rpcrdma_options_init(&o);
	depth = 32;
	while ((c = getopt(argc, argv, "a:b:p:m:d:n:BHY:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 'm': mode = optarg; break;
		case 'd': depth = (unsigned)atoi(optarg); break;
		case 'n': n = (unsigned)atoi(optarg); break;
		case 'B': beside = 1; break;
		case 'H': hostile = 1; break;
		case 'Y': flag = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || (strcmp(mode, "fd") && strcmp(mode, "wait") &&
			       strcmp(mode, "thread")))
		die("usage: async_client -a ADDR [-b SRC] -p PORT [-m fd|wait|thread] "
		    "[-d DEPTH] [-n CALLS] [-B] [-H] [-Y FLAG]");
	if (!n && !hostile && !flag)
		die("-n 0: no call would be verified");
	alarm(110);
	/*
	 * -H: the CLIENT that stops the server connects first.  A server
	 * with one thread, blocked on the RDMA Writes of a Reply to the
	 * CLIENT destroyed() destroys, sees that peer's disconnect only
	 * after: on rxe (no NAK for a QP gone) it counts a stall and then
	 * refuses this address's new connections a while (a server matter).
	 */
	cl = create(addr, port, &o);
	if (hostile) {
		timeouts(addr, port, &o);
		starvation(addr, port, &o);
		destroyed(addr, port, &o);
	}
	if (flag) {
		restarted(cl, flag);
	} else if (!hostile) {
		struct rpcrdma_stats s0 = stats(cl), s;

		reset(n);
		for (i = 0; i < n; i++)
			prepare(i, i % 7 == 6 ? K_NULL : K_ECHO,
				sizes[i % (sizeof(sizes) / sizeof(sizes[0]))]);
		if (beside && pthread_create(&t, NULL, blocking, cl))
			die("pthread_create");
		run(cl, depth);
		if (beside)
			pthread_join(t, NULL);
		/* Past 8 in flight, more ECHO calls with Reply chunks (every
		 * one, once the 70000-byte echo needed one) than the default
		 * reply_windows were in flight at once. */
		tu_check_pinned(cl, depth > 8);
		s = stats(cl);
		if (s.rs_calls - s0.rs_calls != n + (beside ? 200u : 0u))
			die("%llu calls counted for %u", (unsigned long long)
			    (s.rs_calls - s0.rs_calls), n);
		printf("async_client: %s: %u calls, %u in flight, every Reply "
		       "verified, each callback once%s\n", mode, n, depth,
		       beside ? ", 200 blocking calls beside" : "");
	}
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	clnt_destroy(cl);
	reset(0);
	printf("async_client: ok\n");
	return 0;
}
