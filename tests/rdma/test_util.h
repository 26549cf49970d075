/*
 * What the RDMA test programs share: failing loudly with the program's
 * name, a monotonic clock, a CLIENT's counters and its pinned memory.
 * Each program sets tu_name first.
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

/* VmPin of this process in kB: the kernel's count of pinned memory. */
static inline long tu_vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb < 0)
		die("no VmPin in /proc/self/status");
	return kb;
}

/*
 * What a CLIENT keeps registered, as it counts it: rings, and windows
 * of max_reply each (a whole number of them, at most reply_windows), all
 * of it pinned (VmPin, this process's only CLIENT).  deep: more calls
 * offering Reply chunks were in flight at once than there are windows,
 * so where windows work some of them were registered per RPC; where
 * they do not (siw), none is counted as such.
 */
static inline void tu_check_pinned(CLIENT *cl, int deep)
{
	struct rpcrdma_stats s = stats(cl);
	struct rpcrdma_options o;
	uint64_t cap, win;
	long pin = tu_vm_pin_kb();

	rpcrdma_options_init(&o);
	if (!clnt_control(cl, RPCRDMA_CLGET_OPTIONS, (char *)&o))
		die("RPCRDMA_CLGET_OPTIONS refused");
	cap = ((uint64_t)o.ro_max_reply + 4095) & ~(uint64_t)4095;
	win = s.rs_window_pinned;
	printf("%s: rings %llu bytes, windows %llu bytes (%llu of at most %u), "
	       "Reply chunks registered past them %llu, VmPin %ld kB\n",
	       tu_name, (unsigned long long)s.rs_ring_pinned,
	       (unsigned long long)win,
	       (unsigned long long)(cap ? win / cap : 0), o.ro_reply_windows,
	       (unsigned long long)s.rs_window_fallbacks, pin);
	if (!s.rs_ring_pinned)
		die("no ring memory counted");
	if (cap && (win % cap || win / cap > o.ro_reply_windows))
		die("%llu bytes of windows: not up to %u of %llu bytes",
		    (unsigned long long)win, o.ro_reply_windows,
		    (unsigned long long)cap);
	if ((s.rs_ring_pinned + win) / 1024 > (uint64_t)pin)
		die("%llu bytes counted registered, %ld kB pinned",
		    (unsigned long long)(s.rs_ring_pinned + win), pin);
	if (!win && s.rs_window_fallbacks)
		die("Reply chunks counted past windows where none works");
	if (deep && win && !s.rs_window_fallbacks)
		die("windows work and more Reply chunks were in flight than "
		    "reply_windows, but none was registered per RPC");
}

#endif /* RPCRDMA_TEST_UTIL_H */
