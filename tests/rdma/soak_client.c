/*
 * Load and soak: -c CLIENTs (connections) with -t threads each, so -t
 * calls in flight per connection, echoing a mix of sizes (most inline,
 * some through chunks up to -M bytes) for -D seconds; every Reply is
 * verified byte by byte.  It prints the calls made and fails on any
 * error, mismatch, timeout, retransmission or stray Reply, so calls sent
 * = Replies received, none lost, none duplicated.  -S: only send
 * SHUTDOWN (the harness measures the server in between).  -W: one
 * chunked echo on one connection, so the server has registered its
 * listener-wide chunk pool before the harness takes its baseline.
 */
#include "config.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "test_util.h"
#include "lib_defaults.h"

static unsigned max_size = 131072;
static double stop_at;
static unsigned long long total_calls, total_bytes, chunked_calls;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

/* xorshift: each thread's own, reproducible sequence. */
static uint32_t next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Four in five calls inline (1..3500 bytes), the rest through chunks:
 * past the default inline threshold. */
#define SOAK_INLINE TEST_INLINE_RECV_DEFAULT
static unsigned pick_size(uint32_t *s)
{
	uint32_t r = next(s);

	if (r % 5)
		return 1 + r / 5 % 3500;
	return SOAK_INLINE + 1 + r / 5 % (max_size - SOAK_INLINE);
}

struct worker {
	pthread_t w_t;
	CLIENT *w_cl;
	unsigned w_id;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char *in = malloc(max_size);
	uint32_t seed = 0x9e3779b9u * (w->w_id + 1);
	unsigned long long calls = 0, bytes = 0, chunked = 0;
	unsigned i;

	if (!in)
		die("out of memory");
	while (now() < stop_at) {
		unsigned n = pick_size(&seed);
		echo_bytes arg2 = { n, in }, res = { 0, NULL };
		uint32_t fillseed = next(&seed);
		enum clnt_stat st;

		for (i = 0; i < n; i++)
			in[i] = (char)(fillseed + i * 131 + (i >> 9));
		st = echo_bytes_1(&arg2, &res, w->w_cl);
		if (st != RPC_SUCCESS)
			die("thread %u, call %llu (%u bytes): %s", w->w_id, calls,
			    n, clnt_sperror(w->w_cl, "ECHO_BYTES"));
		if (res.echo_bytes_len != n || memcmp(res.echo_bytes_val, in, n))
			die("thread %u, call %llu: %u bytes came back different "
			    "(%u)", w->w_id, calls, n, res.echo_bytes_len);
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
		calls++;
		bytes += n;
		chunked += n > SOAK_INLINE;
	}
	free(in);
	pthread_mutex_lock(&total_lock);
	total_calls += calls;
	total_bytes += bytes;
	chunked_calls += chunked;
	pthread_mutex_unlock(&total_lock);
	return NULL;
}

static CLIENT *make_client(const char *addr, const char *port,
			   const struct rpcrdma_options *o)
{
	CLIENT *cl;
	int i;

	/* The listener is up, but the emulated bed may fail an attempt,
	 * the more so with dozens of connections being set up. */
	for (i = 0; !(cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, o)); i++) {
		if (i == 150)
			die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
		if (i % 10 == 0)
			printf("soak_client: connecting: %s (retrying)\n",
			       clnt_spcreateerror(addr));
		usleep(200 * 1000);
	}
	return cl;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	unsigned conns = 8, threads = 4, i, j;
	unsigned long long replies = 0, calls = 0;
	struct rpcrdma_options o;
	pthread_attr_t attr;
	struct worker *w;
	double secs = 5, t0;
	CLIENT **cls;
	int c, shutdown_only = 0, warm_up = 0;

	tu_name = "soak_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:c:t:D:M:SW")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 'c': conns = (unsigned)atoi(optarg); break;
		case 't': threads = (unsigned)atoi(optarg); break;
		case 'D': secs = atof(optarg); break;
		case 'M': max_size = (unsigned)atoi(optarg); break;
		case 'S': shutdown_only = 1; break;
		case 'W': warm_up = 1; break;
		default: return 2;
		}
	}
	if (!addr || !port || !conns || !threads || max_size < 2 * SOAK_INLINE)
		die("usage: soak_client -a ADDR [-b SRC] -p PORT [-c CONNS] "
		    "[-t THREADS] [-D SECS] [-M MAXSIZE] [-S]");
	if (shutdown_only || warm_up) {
		CLIENT *cl = make_client(addr, port, &o);
		char *in = calloc(1, 65536);
		echo_bytes arg2 = { 65536, in }, res = { 0, NULL };

		if (!in)
			die("out of memory");
		if (warm_up && (echo_bytes_1(&arg2, &res, cl) != RPC_SUCCESS ||
				res.echo_bytes_len != 65536 ||
				memcmp(res.echo_bytes_val, in, 65536)))
			die("warm-up echo: %s", clnt_sperror(cl, "ECHO_BYTES"));
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
		free(in);
		if (shutdown_only &&
		    echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
			die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
		clnt_destroy(cl);
		return 0;
	}
	alarm((unsigned)secs + 400);
	/* Calls in flight per connection = threads; Replies up to -M. */
	o.ro_max_requests = threads;
	o.ro_max_reply = max_size + 8192;
	cls = calloc(conns, sizeof(*cls));
	w = calloc((size_t)conns * threads, sizeof(*w));
	if (!cls || !w)
		die("out of memory");
	for (i = 0; i < conns; i++) {
		/* Nothing may be lost, however long the queue: on the emulated
		 * bed thousands of calls in flight wait far longer than
		 * clnt_call's 25 s, so a timeout here means a call lost. */
		struct timeval tmo = { (long)secs + 180, 0 };

		cls[i] = make_client(addr, port, &o);
		if (!clnt_control(cls[i], CLSET_TIMEOUT, (char *)&tmo))
			die("CLSET_TIMEOUT refused");
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	t0 = now();
	stop_at = t0 + secs;
	for (i = 0; i < conns; i++)
		for (j = 0; j < threads; j++) {
			struct worker *x = &w[i * threads + j];

			*x = (struct worker){ 0, cls[i], i * threads + j };
			if (pthread_create(&x->w_t, &attr, work, x))
				die("pthread_create");
		}
	for (i = 0; i < conns * threads; i++)
		pthread_join(w[i].w_t, NULL);
	t0 = now() - t0;
	for (i = 0; i < conns; i++) {
		struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

		if (!clnt_control(cls[i], RPCRDMA_CLGET_STATS, (char *)&s))
			die("RPCRDMA_CLGET_STATS");
		/* A Call refused with ERR_CHUNK for want of a Reply chunk
		 * goes again once (learning, see ro_reply_chunks): its
		 * RDMA_ERROR is the only stray answer allowed. */
		if (s.rs_timeouts || s.rs_retransmits ||
		    s.rs_bad_replies != s.rs_reply_chunk_retries ||
		    s.rs_reconnects || s.rs_bad_chunks ||
		    s.rs_chunk_regs != s.rs_chunk_deregs)
			die("connection %u: timeouts %llu bad replies %llu "
			    "retransmits %llu reconnects %llu bad chunks %llu "
			    "regs %llu/%llu", i,
			    (unsigned long long)s.rs_timeouts,
			    (unsigned long long)s.rs_bad_replies,
			    (unsigned long long)s.rs_retransmits,
			    (unsigned long long)s.rs_reconnects,
			    (unsigned long long)s.rs_bad_chunks,
			    (unsigned long long)s.rs_chunk_regs,
			    (unsigned long long)s.rs_chunk_deregs);
		/* Calls on the wire: rs_calls counts each call once, and an
		 * ERR_CHUNK retry sent it a second time. */
		calls += s.rs_calls + s.rs_reply_chunk_retries;
		replies += s.rs_replies;
		clnt_destroy(cls[i]);
	}
	printf("soak_client: %u connections x %u in flight, %.1f s: %llu calls "
	       "verified (%llu through chunks), %llu bytes each way, %.0f calls/s\n",
	       conns, threads, t0, total_calls, chunked_calls, total_bytes,
	       (double)total_calls / t0);
	printf("soak_client: transport: calls sent %llu, replies received %llu\n",
	       calls, replies);
	/* The ERR_CHUNK retries of learning Reply chunks send a Call twice. */
	if (replies != total_calls)
		die("%llu calls verified but %llu Replies received", total_calls,
		    replies);
	printf("soak_client: ok\n");
	free(w);
	free(cls);
	return 0;
}
