/*
 * The CLIENT when calls outlive their callers or the server leaves,
 * against leavepeer.
 *
 * -P: destroy after timeouts.  VmPin (/proc/self/status) before the
 * CLIENT exists is the baseline.  Three calls the peer never answers time
 * out: 1 MiB of opaque bytes (Read chunk over the caller's memory), 750
 * words copied into the slot's scratch (3000 bytes, over the peer's 1 KiB
 * inline: a Read chunk over the scratch), 262144 words (spilled: a Long
 * Call over the spill buffer), each offering a 1 MiB Reply chunk (a
 * per-RPC MR where the device has no windows: siw).  Those registrations
 * must still pin memory while the calls are abandoned (else the test
 * proves nothing) and none after clnt_destroy(): VmPin back to the
 * baseline, and the library must not warn that the PD could not be
 * deallocated (stderr captured around clnt_destroy).  rs_ring_pinned is
 * checked against what connecting pinned.
 *
 * -L N: a Reply just before a disconnect.  N times: a new CLIENT (no
 * reconnection), one call the peer answers and then disconnects at once.
 * The Reply must reach the call: RPC_SUCCESS every time.  To make the
 * race go the bad way if it can, the calling thread (the CQ's poller)
 * runs SCHED_IDLE while two threads spin, so the progress thread sees
 * the CM event before the poller gets the CPU to reap the Reply.
 */
#define _GNU_SOURCE
#include "config.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "test_util.h"

#define LV_PROG 0x20049003u
#define LV_VERS 1u
#define MIB (1024u * 1024u)

static CLIENT *connect_to(const char *addr, const char *port,
			  const struct rpcrdma_options *o)
{
	CLIENT *cl;
	unsigned i;

	for (i = 0; !(cl = clnt_rdma_create(addr, port, LV_PROG, LV_VERS, o)); i++) {
		if (i == 20)
			die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
		usleep(200 * 1000);
	}
	return cl;
}

static enum clnt_stat call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs,
			   void *args, int secs)
{
	struct timeval tmo = { secs, 0 };

	return clnt_call(cl, proc, xargs, args,
			 (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo);
}

#define CALL_VOID(cl, proc, secs) \
	call(cl, proc, (xdrproc_t)(void (*)(void))xdr_void, NULL, secs)

struct words { u_int n; u_int *w; };

static bool_t xdr_words(XDR *x, struct words *w)
{
	return xdr_array(x, (char **)&w->w, &w->n, ~0u, sizeof(u_int),
			 (xdrproc_t)xdr_u_int);
}

struct bytes { u_int n; char *b; };

static bool_t xdr_opaque_bytes(XDR *x, struct bytes *b)
{
	return xdr_bytes(x, &b->b, &b->n, ~0u);
}

static void finish(const char *addr, const char *port,
		   const struct rpcrdma_options *o)
{
	CLIENT *cl = connect_to(addr, port, o);

	if (CALL_VOID(cl, 9, 20) != RPC_SUCCESS)
		die("the last call: %s", clnt_sperror(cl, "proc 9"));
	clnt_destroy(cl);
}

/*
 * clnt_destroy(), with what the library prints meanwhile captured: it
 * warns when the PD could not be deallocated (registrations left).
 */
static void destroy_checked(CLIENT *cl)
{
	char said[4096];
	FILE *t = tmpfile();
	int saved = dup(2);
	size_t n;

	if (!t || saved < 0 || dup2(fileno(t), 2) < 0)
		die("cannot capture stderr");
	clnt_destroy(cl);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(t);
	n = fread(said, 1, sizeof(said) - 1, t);
	said[n] = 0;
	fclose(t);
	fputs(said, stderr);
	if (strstr(said, "protection domain"))
		die("clnt_destroy could not deallocate the PD");
}

static int pin_run(const char *addr, const char *port, struct rpcrdma_options *o)
{
	struct bytes b = { MIB, NULL };
	struct words small = { 750, NULL }, big = { 262144, NULL };
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	long base, conn, held, after;
	uint64_t ring;
	CLIENT *cl;

	b.b = calloc(1, MIB);
	small.w = calloc(small.n, sizeof(u_int));
	big.w = calloc(big.n, sizeof(u_int));
	if (!b.b || !small.w || !big.w)
		die("out of memory");
	o->ro_max_reply = MIB;
	o->ro_reply_chunks = RPCRDMA_REPLY_CHUNK_ALWAYS;
	base = tu_vm_pin_kb();
	cl = connect_to(addr, port, o);
	if (CALL_VOID(cl, 4, 20) != RPC_SUCCESS)
		die("the first call: %s", clnt_sperror(cl, "proc 4"));
	/* What the connection keeps registered, as the CLIENT counts it
	 * (its rings; where windows work, the first call's Reply chunk
	 * window), is pinned: the kernel's count grew by at least that. */
	conn = tu_vm_pin_kb();
	s = stats(cl);
	ring = s.rs_ring_pinned + s.rs_window_pinned;
	printf("clnt_leave: rings %llu and windows %llu bytes counted, VmPin "
	       "grew %ld kB on connecting\n",
	       (unsigned long long)s.rs_ring_pinned,
	       (unsigned long long)s.rs_window_pinned, conn - base);
	if (!s.rs_ring_pinned || ring > (uint64_t)(conn - base) * 1024)
		die("%llu bytes counted registered against %ld kB pinned by "
		    "connecting", (unsigned long long)ring, conn - base);
	if (call(cl, 2, (xdrproc_t)xdr_opaque_bytes, &b, 2) != RPC_TIMEDOUT)
		die("1 MiB of bytes: did not time out");
	if (call(cl, 2, (xdrproc_t)xdr_words, &small, 2) != RPC_TIMEDOUT)
		die("750 words: did not time out");
	if (call(cl, 2, (xdrproc_t)xdr_words, &big, 2) != RPC_TIMEDOUT)
		die("262144 words: did not time out");
	/* The peer's last call now, on this CLIENT: a raw peer on rxe does
	 * not see a client leave (no flush without a CM event handled), so
	 * it could not take a new connection after our destroy. */
	if (CALL_VOID(cl, 9, 20) != RPC_SUCCESS)
		die("the last call: %s", clnt_sperror(cl, "proc 9"));
	s = stats(cl);
	held = tu_vm_pin_kb();
	printf("clnt_leave: timeouts %llu, read chunk calls %llu, long calls %llu, "
	       "spilled %llu, reply chunks %llu, regs %llu, deregs %llu\n",
	       (unsigned long long)s.rs_timeouts,
	       (unsigned long long)s.rs_read_chunk_calls,
	       (unsigned long long)s.rs_long_calls,
	       (unsigned long long)s.rs_spilled_calls,
	       (unsigned long long)s.rs_reply_chunks,
	       (unsigned long long)s.rs_chunk_regs,
	       (unsigned long long)s.rs_chunk_deregs);
	destroy_checked(cl);
	after = tu_vm_pin_kb();
	printf("clnt_leave: VmPin %ld kB before, %ld kB with 3 abandoned calls, "
	       "%ld kB after clnt_destroy\n", base, held, after);
	/* Reply chunks: the first and last calls' too (always offered). */
	if (s.rs_timeouts != 3 || s.rs_read_chunk_calls + s.rs_long_calls != 3 ||
	    s.rs_spilled_calls != 1 || s.rs_reply_chunks != 5)
		die("the abandoned calls were not the ones intended");
	/* The 1 MiB spill buffer at least is still registered. */
	if (held < base + 1024)
		die("the abandoned calls pinned nothing: the test proves nothing");
	if (after != base)
		die("clnt_destroy left %ld kB pinned", after - base);
	free(b.b);
	free(small.w);
	free(big.w);
	return 0;
}

static volatile int hog_stop;

static void *hog(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&hog_stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

static int leave_run(const char *addr, const char *port,
		     struct rpcrdma_options *o, unsigned rounds)
{
	struct sched_param idle = { 0 }, other = { 0 };
	unsigned i, lost = 0;
	pthread_t h[2];
	enum clnt_stat st;

	o->ro_reconnect_tries = 0;
	o->ro_busy_poll_us = 0;
	for (i = 0; i < rounds; i++) {
		CLIENT *cl = connect_to(addr, port, o);
		struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

		hog_stop = 0;
		if (pthread_create(&h[0], NULL, hog, NULL) ||
		    pthread_create(&h[1], NULL, hog, NULL))
			die("pthread_create");
		/* Only this thread: the progress thread keeps its policy. */
		if (sched_setscheduler(0, SCHED_IDLE, &idle))
			printf("# SCHED_IDLE refused; the race is left to chance\n");
		st = CALL_VOID(cl, 7, 20);
		sched_setscheduler(0, SCHED_OTHER, &other);
		__atomic_store_n(&hog_stop, 1, __ATOMIC_RELAXED);
		pthread_join(h[0], NULL);
		pthread_join(h[1], NULL);
		s = stats(cl);
		printf("# round %u: %s, bad replies %llu\n", i, clnt_sperrno(st),
		       (unsigned long long)s.rs_bad_replies);
		lost += st != RPC_SUCCESS;
		clnt_destroy(cl);
	}
	printf("clnt_leave: %u of %u Replies sent just before a disconnect lost\n",
	       lost, rounds);
	finish(addr, port, o);
	if (lost)
		die("%u Replies lost", lost);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	struct rpcrdma_options o;
	unsigned rounds = 0;
	int c, pin = 0;

	tu_name = "clnt_leave";
	setvbuf(stdout, NULL, _IOLBF, 0);
	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:PL:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 'P': pin = 1; break;
		case 'L': rounds = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (!addr || !port || (!pin && !rounds))
		die("usage: clnt_leave -a ADDR [-b SRC] -p PORT -P | -L ROUNDS");
	alarm(110);
	if (pin)
		return pin_run(addr, port, &o);
	return leave_run(addr, port, &o, rounds);
}
