/*
 * RDMA echo server for the transport tests: rpcgen's own dispatcher
 * (echo_prog_1) served by svc_run() over an svc_rdma_create() listener.
 * Writes READYFILE once listening; exits 0 after ECHO_SHUTDOWN.  With -l
 * it serves from its own loop (svc_rdma_serve) instead of svc_run().
 * With -j N the library's N service threads serve (ro_svc_threads); the
 * most ECHO_SLEEPs seen running at once is printed at exit.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "strategy_check.h"

void echo_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static SVCXPRT *listener;
static volatile int stopping;
static int sleeping, max_sleeping;	/* concurrent ECHO_SLEEPs (atomic) */

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

bool_t echo_shutdown_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp; (void)result; (void)rq;
	return TRUE;
}

bool_t echo_sleep_1_svc(u_int *ms, void *result, struct svc_req *rq)
{
	int now, max;

	(void)result; (void)rq;
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

/* Wraps rpcgen's dispatcher to stop svc_run() after ECHO_SHUTDOWN. */
static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	echo_prog_1(rq, xprt);
	if (rq->rq_proc == ECHO_SHUTDOWN) {
		stopping = 1;
		svc_exit();
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL;
	int own_loop = 0, strategy = -1, live = -1;
	struct rpcrdma_options o;
	struct rpcrdma_stats st;
	FILE *f;
	int c;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:p:r:ls:T:j:e:L:")) != -1) {
		switch (c) {
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
			o.ro_svc_threads = (uint32_t)atoi(optarg);
			break;
		case 'T':
			o.ro_inline_send = o.ro_inline_recv = (uint32_t)atoi(optarg);
			break;
		case 's':
			strategy = strategy_parse(optarg);
			if (strategy < 0)
				return 2;
			o.ro_send_strategy = (uint32_t)strategy;
			break;
		case 'l': own_loop = 1; break;
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
	listener = svc_rdma_create(addr, port, &o);
	if (!listener) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
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
	if (!svc_reg(listener, ECHO_PROG, ECHO_VERS, dispatch, NULL)) {
		fprintf(stderr, "svc_reg failed\n");
		return 1;
	}
	f = fopen(ready, "w");
	if (!f || fclose(f))
		return 1;
	if (own_loop) {
		/* The program's own loop, as an event-driven server would. */
		while (!stopping)
			if (svc_rdma_serve(listener, 1000) < 0) {
				perror("svc_rdma_serve");
				return 1;
			}
	} else {
		svc_run();
	}
	if (svc_rdma_get_stats(listener, &st) == 0)
		printf("server: calls %llu replies %llu bad_calls %llu pullup_sends %llu "
		       "stalled_conns %llu\n",
		       (unsigned long long)st.rs_calls,
		       (unsigned long long)st.rs_replies,
		       (unsigned long long)st.rs_bad_calls,
		       (unsigned long long)st.rs_pullup_sends,
		       (unsigned long long)st.rs_stalled_conns);
	printf("server: max concurrent %d\n",
	       __atomic_load_n(&max_sleeping, __ATOMIC_SEQ_CST));
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
