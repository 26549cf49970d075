/*
 * RDMA echo client for the transport tests, through unmodified rpcgen
 * stubs over clnt_rdma_create(): every opaque size up to the inline
 * threshold byte-exact, the fixed struct and string, many threads on one
 * CLIENT, a too-large Call that must fail cleanly, and the counters;
 * other modes (-k, -B, -A, -S, -U, -F) test one behaviour each.
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "strategy_check.h"
#include "lib_defaults.h"

static const char *prog_name = "echo_client";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: FAIL: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint8_t pat(unsigned seed, unsigned i)
{
	return (uint8_t)(i * 29u + seed * 101u + (i >> 7));
}

/* One ECHO_BYTES call of len bytes keyed by seed; checks every byte. */
static void echo_once(CLIENT *cl, unsigned len, unsigned seed, char *buf)
{
	echo_bytes arg, res;
	enum clnt_stat st;
	unsigned i;

	for (i = 0; i < len; i++)
		buf[i] = (char)pat(seed, i);
	arg.echo_bytes_len = len;
	arg.echo_bytes_val = buf;
	memset(&res, 0, sizeof(res));
	st = echo_bytes_1(&arg, &res, cl);
	if (st != RPC_SUCCESS)
		die("ECHO_BYTES len %u seed %u: %s", len, seed, clnt_sperrno(st));
	if (res.echo_bytes_len != len)
		die("ECHO_BYTES len %u: reply has %u bytes", len, res.echo_bytes_len);
	for (i = 0; i < len; i++)
		if ((uint8_t)res.echo_bytes_val[i] != pat(seed, i))
			die("ECHO_BYTES len %u seed %u: byte %u differs", len, seed, i);
	xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
}

struct worker {
	CLIENT *w_cl;
	unsigned w_id, w_calls, w_max;
	pthread_t w_thread;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char *buf = malloc(w->w_max + 1);
	unsigned i, seed = w->w_id * 7919u;

	if (!buf)
		die("out of memory");
	for (i = 0; i < w->w_calls; i++) {
		seed = seed * 1103515245u + 12345u;
		echo_once(w->w_cl, (seed >> 8) % (w->w_max + 1),
			  w->w_id * 100000u + i, buf);
	}
	free(buf);
	return NULL;
}

static struct rpcrdma_stats stats(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		die("RPCRDMA_CLGET_STATS refused");
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The server is killed while a call is in flight (the harness kills it
 * once `flag` exists): the call must fail within its timeout, later calls
 * must fail at once, and destroying the CLIENT must be clean.
 */
/* -D: how long the -k call's ECHO_SLEEP asks the server to sleep. */
static u_int kill_sleep_ms = 60000;

static int killed_server(CLIENT *cl, const char *flag)
{
	struct timeval tmo = { 20, 0 };
	enum clnt_stat st;
	u_int ms = kill_sleep_ms;
	double t0, dt;
	FILE *f;

	if (!clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo))
		die("CLSET_TIMEOUT refused");
	f = fopen(flag, "w");
	if (!f || fclose(f))
		die("cannot create %s", flag);
	t0 = now();
	st = echo_sleep_1(&ms, NULL, cl);
	dt = now() - t0;
	printf("client: in-flight call ended after %.2f s: %s\n", dt,
	       clnt_sperror(cl, "ECHO_SLEEP"));
	if (st == RPC_SUCCESS)
		die("the call succeeded although the server was killed");
	if (dt > 21.0)
		die("the call outlived its 20 s timeout (%.2f s)", dt);
	t0 = now();
	st = echo_null_1(NULL, NULL, cl);
	dt = now() - t0;
	printf("client: next call: %s after %.2f s\n", clnt_sperrno(st), dt);
	if (st == RPC_SUCCESS)
		die("a call on the dead connection succeeded");
	if (dt > 2.0)
		die("a call on the dead connection took %.2f s to fail", dt);
	clnt_destroy(cl);
	printf("client: ok\n");
	return 0;
}

/*
 * A caller abandons its call (it times out) while other threads wait for
 * theirs or poll the CQ: nobody else's Reply may be lost.  The server
 * serves one Call at a time, so an ECHO_SLEEP of 1.5 s holds the others'
 * Calls back while the sleeper's own call gives up after 0.5 s; the
 * others (timeout 25 s) must all come back byte-exact.  Three rounds.
 */
static int abandon(CLIENT *cl, unsigned threads, unsigned per_thread)
{
	struct timeval tmo = { 0, 500 * 1000 };
	struct rpcrdma_stats s0, s;
	struct worker *w = calloc(threads, sizeof(*w));
	unsigned round;

	if (!w)
		die("out of memory");
	s0 = stats(cl);
	for (round = 0; round < 3; round++) {
		u_int ms = 1500;
		enum clnt_stat st;

		for (unsigned i = 0; i < threads; i++) {
			w[i] = (struct worker){ cl, round * 100 + i + 1, per_thread,
						512, 0 };
			if (pthread_create(&w[i].w_thread, NULL, work, &w[i]))
				die("pthread_create");
		}
		usleep(100 * 1000);	/* the others are calling by now */
		st = clnt_call(cl, ECHO_SLEEP, (xdrproc_t)xdr_u_int, (char *)&ms,
			       (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo);
		if (st != RPC_TIMEDOUT)
			die("round %u: the abandoned call ended with %s", round,
			    clnt_sperrno(st));
		for (unsigned i = 0; i < threads; i++)
			pthread_join(w[i].w_thread, NULL);
	}
	/* The server answers in order: by this Reply the late ones came. */
	if (echo_null_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("NULL after the abandoned calls failed");
	s = stats(cl);
	printf("client: 3 calls abandoned among %u threads x %u calls: calls %llu "
	       "replies %llu timeouts %llu bad %llu\n", threads, per_thread,
	       (unsigned long long)(s.rs_calls - s0.rs_calls),
	       (unsigned long long)(s.rs_replies - s0.rs_replies),
	       (unsigned long long)(s.rs_timeouts - s0.rs_timeouts),
	       (unsigned long long)(s.rs_bad_replies - s0.rs_bad_replies));
	if (s.rs_timeouts - s0.rs_timeouts != 3 || s.rs_bad_replies != s0.rs_bad_replies ||
	    s.rs_calls - s0.rs_calls != s.rs_replies - s0.rs_replies + 3)
		die("counters disagree with 3 abandoned calls");
	echo_shutdown_1(NULL, NULL, cl);
	clnt_destroy(cl);
	free(w);
	printf("client: ok\n");
	return 0;
}

/*
 * -F: more blocking callers than credits (the client asks for 2), each
 * making NULL calls without pause.  When the first
 * thread has made per_thread calls, every other thread must have made at
 * least a quarter as many: credits go to waiting callers in the order
 * they came, so a caller whose Reply comes while it polls cannot take
 * the freed credit again and again while the others sleep.
 */
struct fair {
	CLIENT *f_cl;
	unsigned f_target;
	unsigned f_calls;		/* atomic */
	int *f_stop;			/* atomic: the first one finished */
	pthread_t f_thread;
};

static void *fair_work(void *arg)
{
	struct fair *f = arg;

	while (!__atomic_load_n(f->f_stop, __ATOMIC_ACQUIRE)) {
		if (echo_null_1(NULL, NULL, f->f_cl) != RPC_SUCCESS)
			die("NULL failed: %s", clnt_sperror(f->f_cl, "NULL"));
		if (__atomic_add_fetch(&f->f_calls, 1, __ATOMIC_RELAXED) >=
		    f->f_target)
			__atomic_store_n(f->f_stop, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int fairness(CLIENT *cl, unsigned threads, unsigned per_thread)
{
	struct fair *f = calloc(threads, sizeof(*f));
	unsigned i, least = ~0u, most = 0;
	uint64_t waits;
	int stop = 0;

	if (!f)
		die("calloc");
	for (i = 0; i < threads; i++) {
		f[i] = (struct fair){ cl, per_thread, 0, &stop, 0 };
		if (pthread_create(&f[i].f_thread, NULL, fair_work, &f[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(f[i].f_thread, NULL);
	for (i = 0; i < threads; i++) {
		least = f[i].f_calls < least ? f[i].f_calls : least;
		most = f[i].f_calls > most ? f[i].f_calls : most;
	}
	waits = stats(cl).rs_credit_waits;
	printf("client: %u threads on %u credits: calls per thread %u..%u, "
	       "credit waits %llu\n", threads,
	       (unsigned)stats(cl).rs_credits_granted, least, most,
	       (unsigned long long)waits);
	if (waits == 0)
		die("no caller waited for a credit: the test proves nothing");
	if (least < per_thread / 4)
		die("a caller made %u calls while another made %u", least, most);
	free(f);
	echo_shutdown_1(NULL, NULL, cl);
	clnt_destroy(cl);
	printf("client: ok\n");
	return 0;
}

/* Bench: NULL calls from `threads` threads for `secs` seconds (informational). */
/*
 * -S: every thread of one CLIENT calls ECHO_SLEEP 300 ms per_thread times,
 * so a server with service threads has several Calls of one connection
 * to run at once (it reports how many it ran concurrently).
 */
static void *sleep_work(void *arg)
{
	struct worker *w = arg;
	u_int ms = 300;

	for (unsigned i = 0; i < w->w_calls; i++)
		if (echo_sleep_1(&ms, NULL, w->w_cl) != RPC_SUCCESS)
			die("ECHO_SLEEP failed: %s", clnt_sperror(w->w_cl, "ECHO_SLEEP"));
	return NULL;
}

/*
 * -U: Replies other than an accepted SUCCESS, decoded in full (the RPC
 * header's common shape is read in one piece, everything else by
 * xdr_replymsg): an unknown procedure, a version the server has not
 * (with its range), arguments it cannot decode; a call after each one
 * still succeeds.
 */
static int error_replies(CLIENT *cl, const char *addr, const char *port,
			 const struct rpcrdma_options *o)
{
	xdrproc_t xv = (xdrproc_t)(void (*)(void))xdr_void;
	struct timeval tmo = { 20, 0 };
	struct rpc_err e;
	enum clnt_stat st;
	CLIENT *v;

	st = clnt_call(cl, 99, xv, NULL, xv, NULL, tmo);
	if (st != RPC_PROCUNAVAIL)
		die("procedure 99: %s, expected RPC_PROCUNAVAIL",
		    clnt_sperrno(st));
	if (echo_null_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("NULL after PROCUNAVAIL: %s", clnt_sperror(cl, "ECHO_NULL"));
	st = clnt_call(cl, ECHO_BYTES, xv, NULL, xv, NULL, tmo);
	if (st != RPC_CANTDECODEARGS)
		die("ECHO_BYTES without its argument: %s, expected "
		    "RPC_CANTDECODEARGS", clnt_sperrno(st));
	if (echo_null_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("NULL after CANTDECODEARGS: %s",
		    clnt_sperror(cl, "ECHO_NULL"));
	v = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS + 1, o);
	if (!v)
		die("clnt_rdma_create (version %u): %s", ECHO_VERS + 1,
		    clnt_spcreateerror(addr));
	st = clnt_call(v, ECHO_NULL, xv, NULL, xv, NULL, tmo);
	clnt_geterr(v, &e);
	if (st != RPC_PROGVERSMISMATCH || e.re_vers.low != ECHO_VERS ||
	    e.re_vers.high != ECHO_VERS)
		die("version %u: %s (%lu-%lu), expected RPC_PROGVERSMISMATCH "
		    "(%u-%u)", ECHO_VERS + 1, clnt_sperrno(st),
		    (unsigned long)e.re_vers.low,
		    (unsigned long)e.re_vers.high, ECHO_VERS, ECHO_VERS);
	clnt_destroy(v);
	if (echo_null_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("NULL after PROGVERSMISMATCH: %s",
		    clnt_sperror(cl, "ECHO_NULL"));
	printf("client: PROCUNAVAIL, CANTDECODEARGS, PROGVERSMISMATCH "
	       "%u-%u, each followed by a call that succeeded\n",
	       ECHO_VERS, ECHO_VERS);
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN failed");
	clnt_destroy(cl);
	return 0;
}

static int sleepers(CLIENT *cl, unsigned threads, unsigned per_thread,
		    int no_shutdown)
{
	struct worker *w = calloc(threads, sizeof(*w));
	double t0 = now();

	if (!w)
		die("out of memory");
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ cl, i + 1, per_thread, 0, 0 };
		if (pthread_create(&w[i].w_thread, NULL, sleep_work, &w[i]))
			die("pthread_create");
	}
	for (unsigned i = 0; i < threads; i++)
		pthread_join(w[i].w_thread, NULL);
	printf("client: %u threads x %u sleeps of 300 ms in %.2f s\n", threads,
	       per_thread, now() - t0);
	if (!no_shutdown && echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN failed");
	clnt_destroy(cl);
	free(w);
	printf("client: ok\n");
	return 0;
}

struct bencher {
	CLIENT *b_cl;
	unsigned b_payload;		/* 0: NULL calls, else ECHO_BYTES */
	double b_end;
	unsigned long b_calls;
	pthread_t b_thread;
};

static void *bench_work(void *arg)
{
	struct bencher *b = arg;
	char *buf = calloc(1, b->b_payload + 1);
	echo_bytes arg_, res;

	if (!buf)
		die("out of memory");
	while (now() < b->b_end) {
		enum clnt_stat st;

		if (b->b_payload) {
			arg_.echo_bytes_len = b->b_payload;
			arg_.echo_bytes_val = buf;
			memset(&res, 0, sizeof(res));
			st = echo_bytes_1(&arg_, &res, b->b_cl);
			if (st == RPC_SUCCESS)
				xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
		} else {
			st = echo_null_1(NULL, NULL, b->b_cl);
		}
		if (st != RPC_SUCCESS)
			die("call failed during the bench: %s", clnt_sperrno(st));
		b->b_calls++;
	}
	free(buf);
	return NULL;
}

static int bench(CLIENT *cl, unsigned threads, double secs, unsigned payload)
{
	struct bencher *b = calloc(threads, sizeof(*b));
	unsigned long total = 0;
	double t0 = now();
	unsigned i;

	if (!b)
		die("out of memory");
	for (i = 0; i < threads; i++) {
		b[i].b_cl = cl;
		b[i].b_payload = payload;
		b[i].b_end = t0 + secs;
		if (pthread_create(&b[i].b_thread, NULL, bench_work, &b[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(b[i].b_thread, NULL);
		total += b[i].b_calls;
	}
	secs = now() - t0;
	printf("bench: payload %u in flight %u: %lu calls in %.2f s: %.0f calls/s, "
	       "mean round trip %.1f us\n", payload, threads, total, secs,
	       (double)total / secs, secs * 1e6 * threads / (double)total);
	free(b);
	echo_shutdown_1(NULL, NULL, cl);
	clnt_destroy(cl);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *kill_flag = NULL;
	double bench_secs = 0;
	int strategy = 0, register_buf = 0, abandon_test = 0, no_shutdown = 0;
	int sleep_test = 0, error_test = 0, fair_test = 0, expect = -1, live = -1;
	long expect_granted = -1, expect_signal = -1;
	struct rpcrdma_options in_force;
	unsigned payload = 0;
	struct rpcrdma_mr *mr = NULL;
	const unsigned inline_max = 4096 - TEST_ECHO_CALL_OVERHEAD;
	unsigned over;
	struct rpcrdma_options o;
	unsigned max = 0, min = 0, threads = 8, per_thread = 300, len;
	struct worker *w;
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	echo_fixed fx, fres;
	echo_str str, sres;
	CLIENT *cl;
	char *buf;
	int c;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:m:o:t:n:k:B:s:RI:P:T:C:AFNSUe:E:g:L:X:D:")) != -1) {
		switch (c) {
		/* -e: the strategy the configuration must have forced (not
		 * set here); -g: the inline size the QP must have granted. */
		case 'e':
			expect = strategy_parse(optarg);
			if (expect < 0)
				die("unknown strategy %s", optarg);
			break;
		case 'g': expect_granted = atol(optarg); break;
		case 'E': expect_signal = atol(optarg); break;	/* signal_every */
		/* -L: a strategy set on the live handle (CLSET_OPTIONS). */
		case 'L':
			live = strategy_parse(optarg);
			if (live < 0)
				die("unknown strategy %s", optarg);
			break;
		case 'S': sleep_test = 1; break;
		case 'F': fair_test = 1; o.ro_max_requests = 2; break;
		case 'U': error_test = 1; break;
		case 'X':	/* when to offer a Reply chunk */
			o.ro_reply_chunks = !strcmp(optarg, "always") ?
				RPCRDMA_REPLY_CHUNK_ALWAYS :
				!strcmp(optarg, "never") ?
				RPCRDMA_REPLY_CHUNK_NEVER : RPCRDMA_REPLY_CHUNK_AUTO;
			break;
		case 'N': no_shutdown = 1; break;
		case 'b': o.ro_source = optarg; break;
		case 'k': kill_flag = optarg; break;
		case 'D': kill_sleep_ms = (u_int)atoi(optarg); break;
		case 'B': bench_secs = atof(optarg); break;
		case 's':
			strategy = strategy_parse(optarg);
			if (strategy < 0)
				die("unknown strategy %s", optarg);
			o.ro_send_strategy = (uint32_t)strategy;
			break;
		case 'R': register_buf = 1; break;
		case 'A': abandon_test = 1; break;
		case 'C': o.ro_mr_cache = (uint32_t)atoi(optarg); break;
		case 'P': payload = (unsigned)atoi(optarg); break;
		case 'T': o.ro_inline_send = o.ro_inline_recv = (uint32_t)atoi(optarg); break;
		case 'I': o.ro_max_inline_data = (uint32_t)atoi(optarg); break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'm': max = (unsigned)atoi(optarg); break;
		case 'o': min = (unsigned)atoi(optarg); break;
		case 't': threads = (unsigned)atoi(optarg); break;
		case 'n': per_thread = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (!addr || !port)
		die("usage: echo_client -a ADDR -p PORT [-m MAXLEN] [-t THREADS] [-n CALLS]");

	/* The server listens already (the harness waited for it), but a
	 * connection attempt on the emulated test bed can still fail
	 * half-way; retry for a while, as a client of a restarting server
	 * would. */
	{
		double give_up = now() + 30;

		while (!(cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, &o))) {
			clnt_pcreateerror("clnt_rdma_create");
			if (now() > give_up)
				die("cannot create the client");
			usleep(200 * 1000);
		}
	}
	/* Before the first call, so that every Send counted is by it. */
	if (live >= 0) {
		struct rpcrdma_options ch;

		rpcrdma_options_init(&ch);
		ch.ro_send_strategy = (uint32_t)live;
		if (!clnt_control(cl, RPCRDMA_CLSET_OPTIONS, (char *)&ch))
			die("RPCRDMA_CLSET_OPTIONS refused");
		/* A key that cannot change on a live handle is refused. */
		rpcrdma_options_init(&ch);
		ch.ro_max_requests = 4;
		if (clnt_control(cl, RPCRDMA_CLSET_OPTIONS, (char *)&ch))
			die("RPCRDMA_CLSET_OPTIONS changed max_requests");
		expect = live;
	}
	if (echo_null_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("NULL call failed: %s", clnt_sperror(cl, "ECHO_NULL"));
	rpcrdma_options_init(&in_force);
	if (!clnt_control(cl, RPCRDMA_CLGET_OPTIONS, (char *)&in_force))
		die("RPCRDMA_CLGET_OPTIONS refused");
	printf("client: in force: send_strategy %u max_inline_data %u "
	       "signal_every %u\n", in_force.ro_send_strategy,
	       in_force.ro_max_inline_data, in_force.ro_signal_every);
	if (expect_signal >= 0 &&
	    in_force.ro_signal_every != (uint32_t)expect_signal)
		die("signal_every in force %u, expected %ld",
		    in_force.ro_signal_every, expect_signal);
	if (expect >= 0) {
		if (in_force.ro_send_strategy != (uint32_t)expect)
			die("send_strategy in force %u, expected %d",
			    in_force.ro_send_strategy, expect);
		strategy = expect;
	}
	if (expect_granted >= 0 &&
	    stats(cl).rs_inline_granted != (uint64_t)expect_granted)
		die("inline granted %llu, expected %ld",
		    (unsigned long long)stats(cl).rs_inline_granted, expect_granted);
	if (kill_flag)
		return killed_server(cl, kill_flag);
	if (bench_secs > 0)
		return bench(cl, threads, bench_secs, payload);
	if (abandon_test)
		return abandon(cl, threads, per_thread);
	if (sleep_test)
		return sleepers(cl, threads, per_thread, no_shutdown);
	if (fair_test)
		return fairness(cl, threads, per_thread);
	if (error_test)
		return error_replies(cl, addr, port, &o);

	/* The largest opaque whose Call fits 4 KiB inline: 4096 less the
	 * transport header (28), the call header with AUTH_NONE (40) and
	 * the opaque's length word; every size up to it is swept (whatever
	 * the inline sizes: the sweep's length stays the same).  -m tests
	 * only the sizes up to MAXLEN, -o from MINLEN.  @over: one byte more than fits the
	 * inline size in force (17 KiB by default, -T). */
	if (!max)
		max = inline_max;
	over = in_force.ro_inline_send - TEST_ECHO_CALL_OVERHEAD + 1;
	if (max >= over)
		die("-m %u: at most %u", max, over - 1);
	buf = malloc(over + 64);
	if (!buf)
		die("out of memory");
	/* Registered once, the buffer is gathered by mapped Sends as it is. */
	if (register_buf && !(mr = clnt_rdma_reg_mem(cl, buf, over + 64)))
		die("clnt_rdma_reg_mem failed");
	if (min > max)
		die("-o %u: more than -m %u", min, max);
	for (len = min; len <= max; len++)
		echo_once(cl, len, len, buf);
	printf("client: %u sizes %u..%u byte-exact\n", max - min + 1, min, max);
	s = stats(cl);
	strategy_print("client", &s);
	{
		/* Sends: each call once, and again if retried or resent. */
		const char *why = strategy_verify(strategy, &s, s.rs_calls -
						  s.rs_calls_refused +
						  s.rs_reply_chunk_retries +
						  s.rs_retransmits);

		if (why)
			die("strategy %d: %s", strategy, why);
	}
	if (register_buf && strategy == RPCRDMA_SEND_MAPPED &&
	    (s.rs_hardway_register_count || s.rs_pullup_bytes))
		die("mapped Sends from registered memory registered or copied");
	if (!register_buf && strategy == RPCRDMA_SEND_MAPPED && max > 2048 &&
	    !s.rs_hardway_register_count)
		die("mapped Sends from unregistered memory registered nothing");
	/* One buffer, reused: a cache registers it a page range at a time,
	 * not once per Send. */
	if (o.ro_mr_cache != RPCRDMA_OPT_UNSET && o.ro_mr_cache &&
	    strategy == RPCRDMA_SEND_MAPPED &&
	    s.rs_hardway_register_count > 16)
		die("the registration cache registered %llu times",
		    (unsigned long long)s.rs_hardway_register_count);

	/* One byte too many cannot go inline: it goes as a Read chunk and
	 * its echo comes back in a Reply chunk (chunk_client covers the
	 * sizes beyond); the connection keeps working inline after it. */
	echo_once(cl, over, 41, buf);
	printf("client: over-inline Call went by chunks\n");
	echo_once(cl, 100, 42, buf);

	memset(&fx, 0, sizeof(fx));
	fx.ef_int = 0x12345678;
	fx.ef_hyper = 0xfedcba9876543210ULL;
	memcpy(fx.ef_tag, "librpcrdma!!", 12);
	fx.ef_flag = TRUE;
	memset(&fres, 0, sizeof(fres));
	if (echo_fixed_1(&fx, &fres, cl) != RPC_SUCCESS)
		die("ECHO_FIXED failed");
	if (fres.ef_int != ~fx.ef_int || fres.ef_hyper != fx.ef_hyper ||
	    memcmp(fres.ef_tag, fx.ef_tag, 12) || fres.ef_flag != TRUE)
		die("ECHO_FIXED came back different");

	str = "over RDMA, unchanged";
	sres = NULL;
	if (echo_string_1(&str, &sres, cl) != RPC_SUCCESS || !sres ||
	    strcmp(sres, str))
		die("ECHO_STRING failed");
	xdr_free((xdrproc_t)xdr_echo_str, (char *)&sres);

	w = calloc(threads, sizeof(*w));
	if (!w)
		die("out of memory");
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ cl, i + 1, per_thread, max, 0 };
		if (pthread_create(&w[i].w_thread, NULL, work, &w[i]))
			die("pthread_create");
	}
	for (unsigned i = 0; i < threads; i++)
		pthread_join(w[i].w_thread, NULL);
	printf("client: %u threads x %u calls matched\n", threads, per_thread);

	s = stats(cl);
	printf("client: calls %llu replies %llu bad %llu credits %llu credit_waits %llu "
	       "pullup_sends %llu signaled %llu too_large %llu\n",
	       (unsigned long long)s.rs_calls, (unsigned long long)s.rs_replies,
	       (unsigned long long)s.rs_bad_replies,
	       (unsigned long long)s.rs_credits_granted,
	       (unsigned long long)s.rs_credit_waits,
	       (unsigned long long)s.rs_pullup_sends,
	       (unsigned long long)s.rs_signaled_sends,
	       (unsigned long long)s.rs_too_large);
	printf("client: read-chunk calls %llu long calls %llu reply chunks %llu/%llu "
	       "regs %llu deregs %llu err_chunk %llu bad_chunks %llu\n",
	       (unsigned long long)s.rs_read_chunk_calls,
	       (unsigned long long)s.rs_long_calls,
	       (unsigned long long)s.rs_reply_chunk_replies,
	       (unsigned long long)s.rs_reply_chunks,
	       (unsigned long long)s.rs_chunk_regs,
	       (unsigned long long)s.rs_chunk_deregs,
	       (unsigned long long)s.rs_err_chunk,
	       (unsigned long long)s.rs_bad_chunks);
	/* The over-inline Call went with a Read chunk (so may Calls near the
	 * threshold whose header carries a Reply chunk).  Its echo is larger
	 * than a client receives inline (17 KiB against 65 KiB sent), so it
	 * comes in a Reply chunk: the client had learned to offer none for
	 * ECHO_BYTES, so one ERR_CHUNK, and one retry with a Reply chunk,
	 * may come first (chunk_client -L covers that learning); nothing
	 * else may fail. */
	if (s.rs_calls != s.rs_replies || s.rs_bad_replies != s.rs_err_chunk ||
	    s.rs_err_chunk > 1 || s.rs_err_chunk != s.rs_reply_chunk_retries ||
	    !s.rs_read_chunk_calls || s.rs_too_large ||
	    s.rs_bad_chunks || s.rs_chunk_regs != s.rs_chunk_deregs)
		die("counters disagree with what happened");
	if (s.rs_credits_granted < 2)
		die("the server granted %llu credits", (unsigned long long)s.rs_credits_granted);
	/* -E 1: every Call's Send asked for a completion. */
	if (expect_signal == 1 && s.rs_signaled_sends < s.rs_calls)
		die("signal_every 1, but %llu signaled Sends for %llu calls",
		    (unsigned long long)s.rs_signaled_sends,
		    (unsigned long long)s.rs_calls);

	/* -N: the server keeps serving others (a test's later clients). */
	if (!no_shutdown && echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN failed");
	if (mr && clnt_rdma_dereg_mem(cl, mr))
		die("clnt_rdma_dereg_mem failed");
	clnt_destroy(cl);
	free(buf);
	free(w);
	printf("client: ok\n");
	return 0;
}
