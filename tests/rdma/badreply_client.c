/*
 * The library's CLIENT against a misbehaving server (badserver): Replies
 * it cannot use are dropped and counted in rs_bad_replies, the waiting
 * call still completes or times out cleanly, and an RDMA_ERROR fails the
 * call at once.  What must happen, from src/clnt_rdma.c handle_reply():
 *
 *   (a) version-2 header, our xid   -EPROTONOSUPPORT: dropped, counted
 *   (b) 10 bytes                     -ENODATA: dropped, counted
 *   (c) good Reply, another xid      no such call: dropped, counted
 *   (d) good RDMA_MSG header, our xid, 4-byte body: the transport header
 *       is valid, so it IS the Reply of that call; xdr_replymsg fails on
 *       it and the call returns RPC_CANTDECODERES.  The good Reply that
 *       follows has no call waiting any more: dropped, counted.
 *   RDMA_ERROR for our xid           the call fails, RPC_CANTRECV/EMSGSIZE;
 *                                    counted too.
 *
 * The RC QP and the single progress thread deliver messages in the order
 * the server sent them, so each count below is exact.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>

#define BR_PROG		0x20049002u
#define BR_VERS		1u

static int br_failed, br_checks;
static int br_wrong;		/* BADREPLY_WRONG: the test of the test */

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	br_checks++;
	if (!ok)
		br_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static struct rpcrdma_stats stats(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s)) {
		printf("FATAL: RPCRDMA_CLGET_STATS refused\n");
		exit(1);
	}
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One void call; its status, errno and duration. */
static enum clnt_stat call(CLIENT *cl, rpcproc_t proc, int *err, double *dt)
{
	struct timeval tmo = { 10, 0 };
	struct rpc_err e;
	enum clnt_stat st;
	double t0 = now();

	st = clnt_call(cl, proc, (xdrproc_t)(void (*)(void))xdr_void, NULL,
		       (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo);
	*dt = now() - t0;
	clnt_geterr(cl, &e);
	*err = e.re_errno;
	printf("# proc %u: %s (errno %d) in %.3f s\n", (unsigned)proc,
	       clnt_sperrno(st), *err, *dt);
	return st;
}

static void usage(void)
{
	fprintf(stderr, "usage: badreply_client -a SERVER -b SOURCE -p PORT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	struct rpcrdma_options o;
	struct rpcrdma_stats s0, s;
	struct timeval tmo;
	enum clnt_stat st;
	CLIENT *cl;
	double dt;
	int c, err, tries = 0;
	uint64_t bad;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		default: usage();
		}
	}
	if (!addr || !port)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	br_wrong = getenv("BADREPLY_WRONG") != NULL;
	/* Nothing may hang: a wedged call ends the run with SIGALRM. */
	alarm(90);

	/* Under emulation a connection attempt sometimes fails half-way. */
	while (!(cl = clnt_rdma_create(addr, port, BR_PROG, BR_VERS, &o))) {
		clnt_pcreateerror("clnt_rdma_create");
		if (++tries == 20) {
			printf("FATAL: cannot connect to %s:%s\n", addr, port);
			return 1;
		}
		usleep(200 * 1000);
	}
	s0 = stats(cl);

	/* proc 5: (a) (b) (c), then the good Reply. */
	st = call(cl, 5, &err, &dt);
	s = stats(cl);
	bad = s.rs_bad_replies - s0.rs_bad_replies;
	check(st == RPC_SUCCESS && bad == (br_wrong ? 4u : 3u) &&
	      s.rs_replies - s0.rs_replies == 1,
	      "proc 5: 3 bad Replies dropped, then success (%s, bad +%llu)",
	      clnt_sperrno(st), (unsigned long long)bad);
	check(s.rs_credits_granted == 32, "credits granted %llu",
	      (unsigned long long)s.rs_credits_granted);

	/* proc 1: (a) (b) (c) dropped; (d) is this call's Reply and fails. */
	s0 = s;
	st = call(cl, 1, &err, &dt);
	s = stats(cl);
	bad = s.rs_bad_replies - s0.rs_bad_replies;
	/* The trailing good Reply may or may not have been dropped yet. */
	check(st == RPC_CANTDECODERES && (bad == 3 || bad == 4) &&
	      s.rs_replies - s0.rs_replies == 1,
	      "proc 1: (a)-(c) dropped, (d) fails the call (%s, bad +%llu)",
	      clnt_sperrno(st), (unsigned long long)bad);

	/* proc 2: no answer; the call times out on the client's timeout. */
	tmo.tv_sec = 3;
	tmo.tv_usec = 0;
	if (!clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo)) {
		printf("FATAL: CLSET_TIMEOUT refused\n");
		return 1;
	}
	st = call(cl, 2, &err, &dt);
	s = stats(cl);
	/* By now proc 1's late good Reply was surely dropped (3 s passed). */
	bad = s.rs_bad_replies - s0.rs_bad_replies;
	check(st == RPC_TIMEDOUT && dt >= 2.5 && dt <= 4.5 &&
	      s.rs_timeouts - s0.rs_timeouts == 1 && bad == 4,
	      "proc 2: %s after %.3f s, proc 1's late good Reply dropped (bad +%llu)",
	      clnt_sperrno(st), dt, (unsigned long long)bad);

	/* proc 3: RDMA_ERROR / ERR_CHUNK fails the call at once; to an
	 * inline Call it can only mean the Reply did not fit (counted). */
	s0 = s;
	st = call(cl, 3, &err, &dt);
	s = stats(cl);
	bad = s.rs_bad_replies - s0.rs_bad_replies;
	check(st == RPC_CANTRECV && err == EMSGSIZE && dt < 2.0 && bad == 1 &&
	      s.rs_reply_too_large - s0.rs_reply_too_large == 1,
	      "proc 3: RDMA_ERROR gives %s (%s) in %.3f s (bad +%llu, too large +%llu)",
	      clnt_sperrno(st), strerror(err), dt, (unsigned long long)bad,
	      (unsigned long long)(s.rs_reply_too_large - s0.rs_reply_too_large));

	/* proc 4: still a working connection. */
	s0 = s;
	st = call(cl, 4, &err, &dt);
	s = stats(cl);
	check(st == RPC_SUCCESS && s.rs_bad_replies == s0.rs_bad_replies &&
	      s.rs_replies - s0.rs_replies == 1,
	      "proc 4: %s, nothing more dropped", clnt_sperrno(st));
	clnt_destroy(cl);

	printf("%s: %d of %d checks failed\n", br_failed ? "FAILED" : "passed",
	       br_failed, br_checks);
	return br_failed ? 1 : 0;
}
