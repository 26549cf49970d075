/*
 * Drives the client's chunks against chunkpeer through the echo program's
 * rpcgen stubs: every size from the inline threshold to 4 MiB (all
 * residues mod 4) from several threads, byte-exact, with a chunk kind
 * forced or chosen (-K, -X) and optionally zero-copy results (-z); the
 * counters must show the chunks used.  -H: Replies that lie about their
 * chunks fail their call and leave the connection working.  -R last: an
 * RDMA Write with a finished RPC's rkey (chunkpeer's verdict).  -L: how
 * automatic Reply chunks learn, per procedure, on every device.
 * -w: arguments that are copied, not referenced (arrays of words), too
 * many for the slot's scratch: spilled, counted, echoed word-exact.
 * -A last:
 * a Call with a Read chunk times out, then the peer reads with its rkey
 * (chunkpeer's verdict: the caller's memory must be out of reach).
 * -M BYTES alone, against echo_server under max_chunk_bytes BYTES: a Reply
 * of exactly BYTES comes back, one 4 bytes longer and a Call 4 bytes over
 * fail with ERR_CHUNK (counted in rs_err_chunk), and the next call works.
 * -m alone, against echo_server -m 196608: Calls and Replies over the
 * connection's max_conn_memory fail with ERR_CHUNK, the others work.
 * -g: the connection must be refused (its rings exceed max_conn_memory).
 * -V 31|30: the peer answers a Reply-chunk call With Invalidate of its
 * rkey (31), or of another rkey (30, hostile); the call succeeds, counted
 * in rs_remote_invs only for 31, every registration revoked either way;
 * then the stale-rkey check as -R (the rkey must be dead).
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "test_util.h"
#include "lib_defaults.h"

static const unsigned sizes[] = {
	4061, 4062, 4063, 4064, 4093, 4094, 4095, 4096, 4097, 8191, 65535,
	65537, 262147, 1048573, 1048576, 4194301, 4194304,
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ 4194304u

static int zero_copy;

static void fill(char *p, unsigned n, unsigned seed)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = (char)(i * 31 + seed * 7 + (i >> 8));
}

/* One echo of @n bytes; @zc: the result into @out as a Write chunk. */
static enum clnt_stat echo(CLIENT *cl, char *in, char *out, unsigned n,
			   unsigned seed, int zc, int check)
{
	struct rpcrdma_result_buf rb = {
		.rb_size = sizeof(rb), .rb_addr = out, .rb_len = MAXSZ };
	echo_bytes arg = { n, in }, res = { 0, NULL };
	enum clnt_stat st;

	fill(in, n, seed);
	if (zc) {
		memset(out, 0, n);
		res.echo_bytes_val = out;
		if (clnt_rdma_set_result_buf(cl, &rb))
			die("clnt_rdma_set_result_buf");
	}
	st = echo_bytes_1(&arg, &res, cl);
	if (st != RPC_SUCCESS || !check)
		goto out;
	if (res.echo_bytes_len != n || memcmp(res.echo_bytes_val, in, n))
		die("echo of %u bytes came back different (%u bytes)", n,
		    res.echo_bytes_len);
	if (zc && (res.echo_bytes_val != out || rb.rb_written != n))
		die("zero-copy echo of %u: placed %u bytes, %s", n, rb.rb_written,
		    res.echo_bytes_val == out ? "in our buffer" : "elsewhere");
out:
	if (!zc)
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
	return st;
}

struct worker {
	pthread_t w_t;
	CLIENT *w_cl;
	unsigned w_id;
};

static int until_killed;	/* -F */
static unsigned flood_size;	/* -S: -F calls of this size only */

static void *work(void *arg)
{
	struct worker *w = arg;
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	unsigned i;

	if (!in || !out)
		die("out of memory");
	/* -F: the largest sizes, over and over, until the test kills us. */
	for (i = 0; i < NSIZES || until_killed; i++) {
		unsigned n = until_killed ? sizes[NSIZES - 1 - (i + w->w_id) % 2] :
			     sizes[(i + w->w_id) % NSIZES];

		if (flood_size)
			n = flood_size;

		if (echo(w->w_cl, in, out, n, w->w_id + i, zero_copy, 1) !=
		    RPC_SUCCESS)
			die("thread %u: echo of %u bytes: %s", w->w_id, n,
			    clnt_sperror(w->w_cl, "ECHO_BYTES"));
	}
	free(in);
	free(out);
	return NULL;
}

static void command(CLIENT *cl, unsigned n)
{
	if (echo_sleep_1(&n, NULL, cl) != RPC_SUCCESS)
		die("command %u: %s", n, clnt_sperror(cl, "ECHO_SLEEP"));
}

/* A Reply that lies about its chunks: the call fails, nothing else. */
static void hostile(CLIENT *cl, unsigned mode, int zc, enum clnt_stat want)
{
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	struct rpcrdma_stats s0 = stats(cl), s;
	enum clnt_stat st;

	if (!in || !out)
		die("out of memory");
	command(cl, mode);
	st = echo(cl, in, out, 5000, mode, zc, 0);
	s = stats(cl);
	printf("chunk_client: lying Reply %u: %s, bad_chunks +%llu\n", mode,
	       clnt_sperrno(st),
	       (unsigned long long)(s.rs_bad_chunks - s0.rs_bad_chunks));
	if (st != want)
		die("lying Reply %u: %s, expected %s", mode, clnt_sperrno(st),
		    clnt_sperrno(want));
	if (want == RPC_CANTRECV && s.rs_bad_chunks != s0.rs_bad_chunks + 1)
		die("lying Reply %u was not counted", mode);
	/* The connection still carries calls, chunks and all. */
	if (echo(cl, in, out, 70001, 3, zc, 1) != RPC_SUCCESS)
		die("after lying Reply %u: %s", mode, clnt_sperror(cl, "ECHO"));
	free(in);
	free(out);
}

/*
 * Automatic Reply chunks on a fresh CLIENT: echo small, small, large,
 * large, small.  The first small call probes (offer), the second offers
 * none, the first large one draws ERR_CHUNK and goes again with a chunk
 * (one retry, still byte-exact), later ones always offer.
 */
static void learn(const char *addr, const char *port,
		  const struct rpcrdma_options *o)
{
	static const unsigned seq[] = { 100, 100, 70001, 65537, 100 };
	static const int offer[] = { 1, 0, 1, 1, 1 };
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	struct rpcrdma_stats s0, s1;
	unsigned i;
	CLIENT *cl;

	if (!in || !out)
		die("out of memory");
	cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, o);
	if (!cl)
		die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		int want_offer = offer[i];
		int want_retry = i == 2;

		s0 = stats(cl);
		if (echo(cl, in, out, seq[i], i, 0, 1) != RPC_SUCCESS)
			die("learning echo %u of %u bytes: %s", i, seq[i],
			    clnt_sperror(cl, "ECHO"));
		s1 = stats(cl);
		printf("chunk_client: learn %u: %u bytes, reply chunks +%llu, "
		       "retries +%llu, err_chunk +%llu\n", i, seq[i],
		       (unsigned long long)(s1.rs_reply_chunks - s0.rs_reply_chunks),
		       (unsigned long long)(s1.rs_reply_chunk_retries -
					    s0.rs_reply_chunk_retries),
		       (unsigned long long)(s1.rs_err_chunk - s0.rs_err_chunk));
		if (s1.rs_reply_chunks - s0.rs_reply_chunks != (uint64_t)want_offer ||
		    s1.rs_reply_chunk_retries - s0.rs_reply_chunk_retries !=
		    (uint64_t)want_retry ||
		    s1.rs_err_chunk - s0.rs_err_chunk != (uint64_t)want_retry)
			die("learning echo %u: expected %d Reply chunk(s) offered, "
			    "%d retry", i, want_offer, want_retry);
	}
	s1 = stats(cl);
	if (s1.rs_chunk_regs != s1.rs_chunk_deregs || s1.rs_bad_chunks ||
	    s1.rs_timeouts)
		die("learning: registrations %llu / revoked %llu",
		    (unsigned long long)s1.rs_chunk_regs,
		    (unsigned long long)s1.rs_chunk_deregs);
	printf("chunk_client: automatic Reply chunks learned\n");
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	clnt_destroy(cl);
	free(in);
	free(out);
}

/* ECHO_WORDS of every size from just past the scratch to 1 MiB. */
static void words(CLIENT *cl)
{
	static const unsigned counts[] = { 1000, 1025, 4096, 16385, 262144 };
	unsigned i, j, n = sizeof(counts) / sizeof(counts[0]);
	unsigned *in = malloc(262144 * sizeof(*in));
	struct rpcrdma_stats s0 = stats(cl), s1;

	if (!in)
		die("out of memory");
	for (i = 0; i < n; i++) {
		echo_words arg = { counts[i], in }, res = { 0, NULL };

		for (j = 0; j < counts[i]; j++)
			in[j] = j * 2654435761u + i;
		if (echo_words_1(&arg, &res, cl) != RPC_SUCCESS)
			die("ECHO_WORDS of %u words: %s", counts[i],
			    clnt_sperror(cl, "ECHO_WORDS"));
		if (res.echo_words_len != counts[i] ||
		    memcmp(res.echo_words_val, in, counts[i] * sizeof(*in)))
			die("ECHO_WORDS of %u words came back different (%u)",
			    counts[i], res.echo_words_len);
		xdr_free((xdrproc_t)xdr_echo_words, (char *)&res);
	}
	s1 = stats(cl);
	printf("chunk_client: %u word arrays (%u..%u words) echoed word-exact, "
	       "spilled +%llu\n", n, counts[0], counts[n - 1],
	       (unsigned long long)(s1.rs_spilled_calls - s0.rs_spilled_calls));
	/* 1000 words fit the 4 KiB scratch; the others do not. */
	if (s1.rs_spilled_calls - s0.rs_spilled_calls != n - 1)
		die("%u spilled Calls expected", n - 1);
	free(in);
}

/* The run is over: SHUTDOWN, then the handle and the buffers go; 0. */
static int finish(CLIENT *cl, char *in, char *out)
{
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	clnt_destroy(cl);
	free(in);
	free(out);
	printf("chunk_client: ok\n");
	return 0;
}

/*
 * rounds times an echo of ok bytes served, then each of the two in over
 * refused with ERR_CHUNK (counted once in rs_err_chunk); ok served again
 * after, so the refusals left the connection working and held nothing.
 */
static int refusal_run(CLIENT *cl, unsigned ok, const unsigned over[2],
		       unsigned rounds, const char *what)
{
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	struct rpcrdma_stats s0, s;
	enum clnt_stat st;
	unsigned i, round;

	if (!in || !out)
		die("out of memory");
	for (round = 0; round < rounds; round++) {
		if (echo(cl, in, out, ok, 1 + round, 0, 1) != RPC_SUCCESS)
			die("an echo of %u bytes, within %s: %s", ok, what,
			    clnt_sperror(cl, "ECHO"));
		for (i = 0; i < 2; i++) {
			s0 = stats(cl);
			st = echo(cl, in, out, over[i], 2, 0, 0);
			s = stats(cl);
			printf("chunk_client: echo of %u bytes: %s, err_chunk +%llu\n",
			       over[i], clnt_sperrno(st),
			       (unsigned long long)(s.rs_err_chunk - s0.rs_err_chunk));
			if (st == RPC_SUCCESS || s.rs_err_chunk != s0.rs_err_chunk + 1)
				die("echo of %u bytes, over %s, was not refused "
				    "with ERR_CHUNK", over[i], what);
		}
	}
	if (echo(cl, in, out, ok, 1 + rounds, 0, 1) != RPC_SUCCESS)
		die("after the refusals: %s", clnt_sperror(cl, "ECHO"));
	printf("chunk_client: %u Calls over the limits\n", 2 * rounds);
	return finish(cl, in, out);
}

/* The server's max_chunk_bytes is limit: at it served, over it refused. */
static int limit_run(CLIENT *cl, unsigned limit)
{
	/* The Reply: 24 bytes of RPC header, 4 of length, the data. */
	const unsigned over[] = { limit - 24, limit + 4 };

	if (limit < 8192 || limit % 4 || limit + 4 > MAXSZ)
		die("-M %u: cannot test this limit", limit);
	return refusal_run(cl, limit - 28, over, 1, "max_chunk_bytes");
}

static int parse(const char *v, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	die("unknown value %s", v);
	return 0;
}

/*
 * The server's max_conn_memory leaves three 64 KiB units beyond the
 * rings (echo_server -m 196608): an echo of 32 KiB (a unit for the Call,
 * one for the Reply) is served; one whose Call takes two units leaves too
 * little for its Reply, one whose Call needs four is refused before it is
 * read: each ERR_CHUNK.  Twice, then served again: nothing stayed held.
 */
static int conn_memory_run(CLIENT *cl)
{
	const unsigned over[] = { 2 * 65536 - 4096, 200000 };

	return refusal_run(cl, 32768, over, 2, "max_conn_memory");
}

/*
 * -D: the default inline sizes on both ends: a client Sends up to 65 KiB
 * and receives 17 KiB inline, a server the other way round.  A 16 KiB
 * echo crosses in one Send each way, copied (no registration for the
 * Send); so does the largest whose Reply fits (17 KiB less the overhead),
 * its Call mapped once a Reply chunk's header takes it past the 17 KiB
 * send buffer.  The largest Call that fits 65 KiB beside a Reply chunk
 * goes in one Send too (no Read chunk), its Reply in the Reply chunk; a
 * 65 KiB opaque goes in a Read chunk.  (A Reply chunk may still be
 * offered, as for any result without a bound: chunk_regs.)
 */
static int default_inline_run(CLIENT *cl)
{
	enum {
		RECV_FITS = TEST_INLINE_RECV_DEFAULT - TEST_ECHO_CALL_OVERHEAD,
		/* beside a Reply chunk of one segment (20 bytes of header) */
		SEND_FITS = TEST_INLINE_SEND_DEFAULT - TEST_ECHO_CALL_OVERHEAD - 20,
	};
	static const unsigned n[] = { 16384, RECV_FITS, SEND_FITS,
				      TEST_INLINE_SEND_DEFAULT, 16384 };
	static const int chunked[] = { 0, 0, 0, 1, 0 };
	static const int replied_inline[] = { 1, 1, 0, 0, 1 };
	/* Past send_buffer (17 KiB) with a Reply chunk's header, the Call is
	 * mapped: registered for the Send (hardway_registers). */
	static const int copied[] = { 1, 0, 0, 0, 1 };
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	struct rpcrdma_stats s0, s;
	unsigned i;

	if (!in || !out)
		die("out of memory");
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		s0 = stats(cl);
		if (echo(cl, in, out, n[i], i, 0, 1) != RPC_SUCCESS)
			die("echo of %u bytes: %s", n[i], clnt_sperror(cl, "ECHO_BYTES"));
		s = stats(cl);
		printf("chunk_client: echo %u: read_chunk_calls +%llu "
		       "reply_chunk_replies +%llu chunk_regs +%llu "
		       "hardway_registers +%llu\n", n[i],
		       (unsigned long long)(s.rs_read_chunk_calls - s0.rs_read_chunk_calls),
		       (unsigned long long)(s.rs_reply_chunk_replies - s0.rs_reply_chunk_replies),
		       (unsigned long long)(s.rs_chunk_regs - s0.rs_chunk_regs),
		       (unsigned long long)(s.rs_hardway_register_count -
					    s0.rs_hardway_register_count));
		/* A Reply chunk not offered (siw learns to offer none for a
		 * procedure whose Replies came inline) costs an ERR_CHUNK and
		 * one retry with it: the Call goes twice. */
		if (chunked[i] ? s.rs_read_chunk_calls == s0.rs_read_chunk_calls :
				 s.rs_read_chunk_calls != s0.rs_read_chunk_calls)
			die("echo of %u bytes: %s expected", n[i], chunked[i] ?
			    "a Read chunk" : "the Call in one Send");
		if (replied_inline[i] &&
		    s.rs_reply_chunk_replies != s0.rs_reply_chunk_replies)
			die("echo of %u bytes: its Reply inline expected", n[i]);
		if (copied[i] &&
		    s.rs_hardway_register_count != s0.rs_hardway_register_count)
			die("echo of %u bytes: nothing registered to send "
			    "expected", n[i]);
		if (!replied_inline[i] &&
		    s.rs_reply_chunk_replies - s0.rs_reply_chunk_replies != 1)
			die("echo of %u bytes: its Reply in a Reply chunk expected", n[i]);
	}
	printf("chunk_client: default inline sizes: 16384 and %u inline each "
	       "way, a %u-byte Call inline, a %u-byte one in a Read chunk\n",
	       n[1], n[2], n[3]);
	return finish(cl, in, out);
}

/* The server refuses every connection (rings over max_conn_memory). */
static int refused_run(const char *addr, const char *port,
		       struct rpcrdma_options *o)
{
	CLIENT *cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, o);

	if (cl)
		die("connected, though the server's rings exceed max_conn_memory");
	printf("chunk_client: refused: %s\n", clnt_spcreateerror(addr));
	printf("chunk_client: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const callk[] = { "auto", "read", "long" };
	static const char *const replyk[] = { "auto", "always", "never" };
	const char *addr = NULL, *port = NULL, *flag = NULL;
	struct rpcrdma_options o;
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	struct worker *w;
	unsigned threads = 4, i, calls;
	int c, hostile_test = 0, stale = 0, swi = 0, learning = 0, words_test = 0;
	int abandon = 0, conn_memory = 0, refused = 0, default_inline = 0;
	unsigned limit = 0;
	uint64_t bytes = 0;
	CLIENT *cl;

	tu_name = "chunk_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	rpcrdma_options_init(&o);
	o.ro_max_reply = MAXSZ + 4096;
	while ((c = getopt(argc, argv, "a:b:p:t:K:X:zHRV:LwAM:F:mgS:D")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 't': threads = (unsigned)atoi(optarg); break;
		case 'K': o.ro_call_chunks = (uint32_t)parse(optarg, callk, 3); break;
		case 'X': o.ro_reply_chunks = (uint32_t)parse(optarg, replyk, 3); break;
		case 'z': zero_copy = 1; break;
		case 'H': hostile_test = 1; break;
		case 'R': stale = 1; break;
		case 'V': swi = atoi(optarg); stale = 1; break;
		case 'L': learning = 1; break;
		case 'w': words_test = 1; break;
		case 'A': abandon = 1; break;
		case 'M': limit = (unsigned)atoi(optarg); break;
		case 'F': flag = optarg; until_killed = 1; break;
		case 'S': flood_size = (unsigned)atoi(optarg); break;
		case 'm': conn_memory = 1; break;
		case 'g': refused = 1; break;
		case 'D': default_inline = 1; break;
		default: return 2;
		}
	}
	if (!addr || !port)
		die("usage: chunk_client -a ADDR [-b SRC] -p PORT [-t N] "
		    "[-K auto|read|long] [-X auto|always|never] [-z] [-H] [-R] "
		    "[-L] [-w] [-A] [-M BYTES] [-F FLAG: run until killed] "
		    "[-m: max_conn_memory] [-g: expect refusal] [-D: default inline sizes]");
	alarm(110);
	/* The sizes straddle a 4 KiB threshold, the one the Linux kernel
	 * offers; -D crosses the default ones (17 and 65 KiB). */
	if (!default_inline)
		o.ro_inline_send = o.ro_inline_recv = 4096;
	if (refused)
		return refused_run(addr, port, &o);
	if (learning) {
		learn(addr, port, &o);
		return 0;
	}
	for (i = 0; !(cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, &o)); i++) {
		if (i == 20)
			die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
		usleep(200 * 1000);
	}
	if (default_inline)
		return default_inline_run(cl);
	if (limit)
		return limit_run(cl, limit);
	if (conn_memory)
		return conn_memory_run(cl);

	/* -F: tell the test the calls start now; it kills us mid-way. */
	if (flag) {
		FILE *f = fopen(flag, "w");

		if (!f || fclose(f))
			die("cannot create %s", flag);
	}
	w = calloc(threads, sizeof(*w));
	if (!w)
		die("out of memory");
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ 0, cl, i };
		if (pthread_create(&w[i].w_t, NULL, work, &w[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(w[i].w_t, NULL);
	for (i = 0; i < NSIZES; i++)
		bytes += sizes[i];
	calls = threads * (unsigned)NSIZES;
	s = stats(cl);
	printf("chunk_client: %u threads x %zu sizes (%u..%u bytes) echoed "
	       "byte-exact\n", threads, NSIZES, sizes[0], sizes[NSIZES - 1]);
	printf("chunk_client: read_chunk_calls %llu read_chunk_bytes %llu "
	       "long_calls %llu long_call_bytes %llu reply_chunks %llu "
	       "reply_chunk_replies %llu reply_chunk_bytes %llu write_chunks %llu "
	       "write_chunk_bytes %llu unused %llu regs %llu deregs %llu "
	       "remote_invs %llu\n",
	       (unsigned long long)s.rs_read_chunk_calls,
	       (unsigned long long)s.rs_read_chunk_bytes,
	       (unsigned long long)s.rs_long_calls,
	       (unsigned long long)s.rs_long_call_bytes,
	       (unsigned long long)s.rs_reply_chunks,
	       (unsigned long long)s.rs_reply_chunk_replies,
	       (unsigned long long)s.rs_reply_chunk_bytes,
	       (unsigned long long)s.rs_write_chunks,
	       (unsigned long long)s.rs_write_chunk_bytes,
	       (unsigned long long)s.rs_write_chunks_unused,
	       (unsigned long long)s.rs_chunk_regs,
	       (unsigned long long)s.rs_chunk_deregs,
	       (unsigned long long)s.rs_remote_invs);
	/* Every size is over the inline threshold: each Call used chunks. */
	switch (o.ro_call_chunks) {
	case RPCRDMA_CALL_CHUNKS_LONG:
		if (s.rs_long_calls != calls || s.rs_read_chunk_calls)
			die("%u long Calls expected", calls);
		break;
	default:
		if (s.rs_read_chunk_calls != calls || s.rs_long_calls ||
		    s.rs_read_chunk_bytes != threads * bytes)
			die("%u Calls with Read chunks of %llu bytes expected",
			    calls, (unsigned long long)(threads * bytes));
		break;
	}
	/* With the data placed in a Write chunk, what is left of a Reply may
	 * come inline (our server) or in the Reply chunk (chunkpeer). */
	if (o.ro_reply_chunks != RPCRDMA_REPLY_CHUNK_NEVER && !zero_copy &&
	    (s.rs_reply_chunks != calls || s.rs_reply_chunk_replies != calls))
		die("%u Replies in Reply chunks expected", calls);
	/* Zero-copy: always offered only where forced; under auto the
	 * client stops once Replies came inline. */
	if (o.ro_reply_chunks != RPCRDMA_REPLY_CHUNK_NEVER && zero_copy &&
	    (s.rs_reply_chunks < 1 || s.rs_reply_chunks > calls ||
	     s.rs_reply_chunk_replies > s.rs_reply_chunks ||
	     (o.ro_reply_chunks == RPCRDMA_REPLY_CHUNK_ALWAYS &&
	      s.rs_reply_chunks != calls)))
		die("zero-copy: %llu Reply chunks offered, %llu used, for %u calls",
		    (unsigned long long)s.rs_reply_chunks,
		    (unsigned long long)s.rs_reply_chunk_replies, calls);
	if (zero_copy && (s.rs_write_chunks != calls ||
			  s.rs_write_chunk_bytes != threads * bytes))
		die("%u Write chunks carrying %llu bytes expected", calls,
		    (unsigned long long)(threads * bytes));
	if (s.rs_chunk_regs != s.rs_chunk_deregs || s.rs_bad_chunks ||
	    s.rs_timeouts || s.rs_bad_replies)
		die("registrations %llu / revoked %llu, bad chunks %llu, "
		    "timeouts %llu, bad replies %llu",
		    (unsigned long long)s.rs_chunk_regs,
		    (unsigned long long)s.rs_chunk_deregs,
		    (unsigned long long)s.rs_bad_chunks,
		    (unsigned long long)s.rs_timeouts,
		    (unsigned long long)s.rs_bad_replies);

	/* A hint that the Reply fits inline: no Reply chunk; forgotten: one. */
	if (o.ro_reply_chunks == RPCRDMA_REPLY_CHUNK_AUTO) {
		struct rpcrdma_reply_hint rh = {
			.rh_size = sizeof(rh), .rh_proc = ECHO_BYTES, .rh_max_reply = 200 };
		char in[100], out[100];
		struct rpcrdma_stats s0 = stats(cl), s1;

		if (!clnt_control(cl, RPCRDMA_CLSET_REPLY_HINT, (char *)&rh))
			die("RPCRDMA_CLSET_REPLY_HINT refused");
		if (echo(cl, in, out, 100, 9, 0, 1) != RPC_SUCCESS)
			die("hinted echo: %s", clnt_sperror(cl, "ECHO"));
		s1 = stats(cl);
		if (s1.rs_reply_chunks != s0.rs_reply_chunks)
			die("a Reply hinted to fit inline still got a Reply chunk");
		rh.rh_max_reply = 0;
		clnt_control(cl, RPCRDMA_CLSET_REPLY_HINT, (char *)&rh);
		if (echo(cl, in, out, 100, 9, 0, 1) != RPC_SUCCESS)
			die("unhinted echo: %s", clnt_sperror(cl, "ECHO"));
		s = stats(cl);
		if (s.rs_reply_chunks != s1.rs_reply_chunks + 1)
			die("a Reply of unknown size got no Reply chunk");
		rh.rh_proc = RPCRDMA_MAX_HINTS;
		if (clnt_control(cl, RPCRDMA_CLSET_REPLY_HINT, (char *)&rh))
			die("a hint for procedure %u was taken", RPCRDMA_MAX_HINTS);
		printf("chunk_client: per-procedure Reply hints honoured\n");
	}
	/* A small zero-copy result the peer sends inline: the chunk comes
	 * back unused and the data still lands in our buffer. */
	if (zero_copy) {
		char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
		struct rpcrdma_result_buf rb;
		echo_bytes arg, res;
		struct rpcrdma_stats s0 = stats(cl);

		if (!in || !out)
			die("out of memory");
		fill(in, 100, 5);
		memset(out, 0, 100);
		rb = (struct rpcrdma_result_buf){ .rb_size = sizeof(rb), .rb_written = 12345,
						  .rb_addr = out, .rb_len = MAXSZ };
		arg = (echo_bytes){ 100, in };
		res = (echo_bytes){ 0, out };
		if (clnt_rdma_set_result_buf(cl, &rb) ||
		    echo_bytes_1(&arg, &res, cl) != RPC_SUCCESS)
			die("small zero-copy echo: %s", clnt_sperror(cl, "ECHO"));
		s = stats(cl);
		if (rb.rb_written || res.echo_bytes_val != out ||
		    res.echo_bytes_len != 100 || memcmp(out, in, 100) ||
		    s.rs_write_chunks_unused != s0.rs_write_chunks_unused + 1)
			die("small zero-copy echo: written %u, unused +%llu",
			    rb.rb_written, (unsigned long long)
			    (s.rs_write_chunks_unused - s0.rs_write_chunks_unused));
		printf("chunk_client: unused Write chunk: data inline, in our buffer\n");
		free(in);
		free(out);
	}
	if (words_test)
		words(cl);
	if (hostile_test) {
		hostile(cl, 10, 0, RPC_CANTRECV);
		hostile(cl, 11, 0, RPC_CANTRECV);
		hostile(cl, 12, 1, RPC_CANTDECODERES);
		hostile(cl, 13, 1, RPC_CANTRECV);
	}
	if (abandon) {
		char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
		struct timeval two = { 2, 0 };
		struct rpcrdma_stats s0;

		if (!in || !out)
			die("out of memory");
		command(cl, 20);
		clnt_control(cl, CLSET_TIMEOUT, (char *)&two);
		s0 = stats(cl);
		if (echo(cl, in, out, 8000, 2, 0, 0) != RPC_TIMEDOUT)
			die("the unanswered Call did not time out");
		s = stats(cl);
		if (s.rs_read_chunk_calls != s0.rs_read_chunk_calls + 1)
			die("the abandoned Call carried no Read chunk");
		/* clnt_call() returned: its memory must be out of reach. */
		if (echo_sleep_1(&(unsigned){ 21 }, NULL, cl) == RPC_SUCCESS)
			die("the abandoned-rkey command was answered");
		printf("chunk_client: the peer tried the abandoned Call's rkey\n");
		free(in);
		free(out);
	} else if (stale) {
		char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
		struct rpcrdma_stats s0 = stats(cl);

		if (swi)
			command(cl, (unsigned)swi);
		/* This RPC's Reply chunk is written (so its rkey worked) ... */
		if (!in || !out || echo(cl, in, out, 100, 1, 0, 1) != RPC_SUCCESS)
			die("the last echo failed");
		s = stats(cl);
		if (s.rs_reply_chunk_replies != s0.rs_reply_chunk_replies + 1)
			die("the last echo did not use its Reply chunk");
		/* Send With Invalidate: its own rkey counted, another not;
		 * either way each registration of the call is revoked. */
		printf("chunk_client: remote_invs +%llu regs %llu deregs %llu\n",
		       (unsigned long long)(s.rs_remote_invs - s0.rs_remote_invs),
		       (unsigned long long)s.rs_chunk_regs,
		       (unsigned long long)s.rs_chunk_deregs);
		if (swi && s.rs_remote_invs - s0.rs_remote_invs != (swi == 31))
			die("Send With Invalidate %d: remote_invs +%llu", swi,
			    (unsigned long long)(s.rs_remote_invs - s0.rs_remote_invs));
		if (s.rs_chunk_regs != s.rs_chunk_deregs)
			die("registrations %llu, revoked %llu",
			    (unsigned long long)s.rs_chunk_regs,
			    (unsigned long long)s.rs_chunk_deregs);
		/* ... and once it is over, a write with that rkey must fail:
		 * the peer reports, and the connection dies with it. */
		if (echo_sleep_1(&(unsigned){ 1 }, NULL, cl) == RPC_SUCCESS)
			die("the stale-rkey command was answered");
		printf("chunk_client: the peer tried the finished RPC's rkey\n");
		free(in);
		free(out);
	} else if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS) {
		die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	}
	clnt_destroy(cl);
	free(w);
	printf("chunk_client: ok\n");
	return 0;
}
