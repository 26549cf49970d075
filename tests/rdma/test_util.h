/*
 * What the RDMA test programs share: failing loudly with the program's
 * name, a monotonic clock, and a CLIENT's counters.  Each program sets
 * tu_name first.
 */
#ifndef RPCRDMA_TEST_UTIL_H
#define RPCRDMA_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rpcrdma/rpcrdma.h>

static const char *tu_name = "test";

static inline void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: FAIL: ", tu_name);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline struct rpcrdma_stats stats(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		die("RPCRDMA_CLGET_STATS refused");
	return s;
}

#endif /* RPCRDMA_TEST_UTIL_H */
