/*
 * The client's reconnection on real verbs, against echo_server.
 * -Y FLAG: the harness kills the server once FLAG exists and starts it
 * again on the same port; the call in flight must complete on the new
 * connection (retransmitted, same xid: the harness checks the trace),
 * later calls too, on the same CLIENT.  -Z: calls the server drops hold
 * every credit once their callers timed out; the next call recovers by
 * reconnecting, counted.  -W FLAG: the harness takes the link down for a
 * few seconds once FLAG exists; every call in flight returns within its
 * timeout (done, retransmitted after reconnecting, or failed), and the
 * same CLIENT carries calls once the link is back.  -T with -W: the cut
 * outlasts the calls' timeout, so every call in flight must fail with
 * RPC_TIMEDOUT within it; the CLIENT works once the link is back, with
 * the late Replies of those calls arriving on it.
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

#define ECHO_DROP 0xffffffffu	/* ECHO_SLEEP of this: no Reply, ever */

static void print_stats(const char *what, const struct rpcrdma_stats *s);

static void echo_ok(CLIENT *cl, unsigned n, const char *when)
{
	char in[512];
	echo_bytes arg = { n, in }, res = { 0, NULL };
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	unsigned i;
	double t0 = now();

	for (i = 0; i < n; i++)
		in[i] = (char)(i * 7 + n);
	if (echo_bytes_1(&arg, &res, cl) != RPC_SUCCESS) {
		/* What the CLIENT saw, so that a rare failure can be told
		 * apart: no Reply at all, a dropped one, another loss. */
		s = stats(cl);
		print_stats(when, &s);
		printf("fault_client: calls %llu replies %llu bad replies %llu "
		       "receives posted %llu wakeups %llu; failed after %.2f s\n",
		       (unsigned long long)s.rs_calls,
		       (unsigned long long)s.rs_replies,
		       (unsigned long long)s.rs_bad_replies,
		       (unsigned long long)s.rs_recv_posted,
		       (unsigned long long)s.rs_wakeups, now() - t0);
		die("%s: echo of %u bytes: %s", when, n,
		    clnt_sperror(cl, "ECHO_BYTES"));
	}
	if (res.echo_bytes_len != n || memcmp(res.echo_bytes_val, in, n))
		die("%s: echo of %u bytes came back different", when, n);
	xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
}

static void print_stats(const char *what, const struct rpcrdma_stats *s)
{
	printf("fault_client: %s: reconnects %llu failed attempts %llu "
	       "retransmits %llu credit recoveries %llu timeouts %llu\n", what,
	       (unsigned long long)s->rs_reconnects,
	       (unsigned long long)s->rs_reconnect_failures,
	       (unsigned long long)s->rs_retransmits,
	       (unsigned long long)s->rs_credit_recoveries,
	       (unsigned long long)s->rs_timeouts);
}

static void restarted(CLIENT *cl, const char *flag)
{
	struct timeval tmo = { 30, 0 };
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	/* The harness kills the server 0.5 s after FLAG: 2.5 s to spare
	 * for a loaded host (at 1.5 s a CI host busy compiling beside the
	 * VM once saw the Reply come before the kill). */
	u_int ms = 3000;
	double t0, dt;
	unsigned i;
	FILE *f;

	if (!clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo))
		die("CLSET_TIMEOUT refused");
	f = fopen(flag, "w");
	if (!f || fclose(f))
		die("cannot create %s", flag);
	t0 = now();
	if (echo_sleep_1(&ms, NULL, cl) != RPC_SUCCESS)
		die("the call in flight when the server restarted: %s",
		    clnt_sperror(cl, "ECHO_SLEEP"));
	dt = now() - t0;
	s = stats(cl);
	print_stats("after the restart", &s);
	printf("fault_client: the call in flight completed after %.2f s\n", dt);
	if (s.rs_reconnects < 1 || s.rs_retransmits < 1)
		die("expected a reconnection and a retransmission%s",
		    s.rs_reconnects ? "" : " (none: the Reply came before "
		    "the harness killed the server)");
	for (i = 0; i < 20; i++)
		echo_ok(cl, 1 + i * 20, "after the restart");
	printf("fault_client: 20 calls after the restart on the same CLIENT\n");
}

#define CUT_CALLS 4
#define CUT_TIMEOUT 8

struct cut_call {
	pthread_t cc_t;
	CLIENT *cc_cl;
	enum clnt_stat cc_st;
	double cc_secs;
};

static void *cut_one(void *arg)
{
	struct cut_call *cc = arg;
	struct timeval tmo = { CUT_TIMEOUT, 0 };
	u_int ms = 1000;
	double t0 = now();

	cc->cc_st = clnt_call(cc->cc_cl, ECHO_SLEEP, (xdrproc_t)xdr_u_int,
			      (char *)&ms, (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo);
	cc->cc_secs = now() - t0;
	return NULL;
}

static void link_cut(CLIENT *cl, const char *flag, int outlasts)
{
	struct cut_call cc[CUT_CALLS];
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	double t0, give_up;
	unsigned i, ok = 0;
	FILE *f;

	for (i = 0; i < CUT_CALLS; i++) {
		cc[i] = (struct cut_call){ 0, cl, RPC_SUCCESS, 0 };
		if (pthread_create(&cc[i].cc_t, NULL, cut_one, &cc[i]))
			die("pthread_create");
	}
	f = fopen(flag, "w");
	if (!f || fclose(f))
		die("cannot create %s", flag);
	for (i = 0; i < CUT_CALLS; i++) {
		pthread_join(cc[i].cc_t, NULL);
		printf("fault_client: call %u in flight at the cut: %s after "
		       "%.2f s\n", i, clnt_sperrno(cc[i].cc_st), cc[i].cc_secs);
		if (cc[i].cc_secs > CUT_TIMEOUT + 1.5)
			die("call %u outlived its %d s timeout", i, CUT_TIMEOUT);
		if (outlasts && (cc[i].cc_st != RPC_TIMEDOUT ||
				 cc[i].cc_secs < CUT_TIMEOUT - 0.5))
			die("call %u was to time out after %d s, in the cut",
			    i, CUT_TIMEOUT);
		ok += cc[i].cc_st == RPC_SUCCESS;
	}
	/* The link comes back: the same CLIENT recovers. */
	t0 = now();
	give_up = t0 + 60;
	for (;;) {
		struct timeval tmo = { 5, 0 };
		enum clnt_stat st;

		st = clnt_call(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			       (xdrproc_t)(void (*)(void))xdr_void, NULL, tmo);
		if (st == RPC_SUCCESS)
			break;
		if (now() > give_up)
			die("no call succeeded within 60 s of the cut: %s",
			    clnt_sperrno(st));
		usleep(100 * 1000);
	}
	printf("fault_client: a call succeeded %.2f s after the calls in "
	       "flight ended\n", now() - t0);
	for (i = 0; i < 10; i++)
		echo_ok(cl, 100 + i, "after the link came back");
	s = stats(cl);
	print_stats("after the cut", &s);
	printf("fault_client: %u of %d calls in flight completed, none hung\n",
	       ok, CUT_CALLS);
}

static void starved(CLIENT *cl)
{
	struct timeval tmo = { 0, 300 * 1000 };
	struct rpcrdma_stats s0, s;
	u_int drop = ECHO_DROP;
	unsigned i, credits;

	/* A first Reply grants the credits (ro_max_requests 2 caps them). */
	echo_ok(cl, 10, "before");
	s0 = stats(cl);
	credits = (unsigned)s0.rs_credits_granted;
	if (!clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo))
		die("CLSET_TIMEOUT refused");
	for (i = 0; i < credits; i++)
		if (echo_sleep_1(&drop, NULL, cl) != RPC_TIMEDOUT)
			die("a dropped call did not time out");
	tmo.tv_sec = 20;
	tmo.tv_usec = 0;
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tmo);
	/* Every credit is held by an abandoned call: this one recovers. */
	echo_ok(cl, 100, "with every credit held by abandoned calls");
	s = stats(cl);
	print_stats("after the starvation", &s);
	if (s.rs_credit_recoveries != s0.rs_credit_recoveries + 1 ||
	    s.rs_reconnects != s0.rs_reconnects + 1 ||
	    s.rs_timeouts != s0.rs_timeouts + credits)
		die("expected %u timeouts, one credit recovery and one "
		    "reconnection", credits);
	for (i = 0; i < 10; i++)
		echo_ok(cl, 50 + i, "after the recovery");
	printf("fault_client: %u credits held by dropped calls, recovered\n",
	       credits);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *flag = NULL, *cut = NULL;
	struct rpcrdma_options o;
	int c, starve = 0, outlasts = 0;
	CLIENT *cl;

	tu_name = "fault_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:Y:ZW:T")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 'Y': flag = optarg; break;
		case 'Z': starve = 1; o.ro_max_requests = 2; break;
		case 'W': cut = optarg; break;
		case 'T': outlasts = 1; break;
		default: return 2;
		}
	}
	if (!addr || !port || (!flag && !starve && !cut))
		die("usage: fault_client -a ADDR [-b SRC] -p PORT -Y FLAG | -Z | -W FLAG [-T]");
	alarm(110);
	cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, &o);
	if (!cl)
		die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
	echo_ok(cl, 10, "first");
	if (flag)
		restarted(cl, flag);
	else if (cut)
		link_cut(cl, cut, outlasts);
	else
		starved(cl);
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	clnt_destroy(cl);
	printf("fault_client: ok\n");
	return 0;
}
