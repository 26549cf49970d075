/*
 * The USDT probes (provider rpcrdma; every probe and its arguments in
 * rpcrdma(7), PROBES): each becomes a nop instruction and a note for
 * bpftrace or SystemTap, or nothing when configured without them.
 */
#ifndef RPCRDMA_PROBES_H
#define RPCRDMA_PROBES_H

#include "config.h"

/*
 * RPCRDMA_PROBEn(name, a1..an): the first argument is always the
 * transport (struct rpcrdma_xprt *: a client, or one server connection),
 * so a script can key per connection.  Arguments are evaluated even when
 * nothing traces: pass only what is already at hand (fields, constants,
 * string literals), never compute one for the probe.
 */
#ifdef RPCRDMA_USDT
#include <sys/sdt.h>
#define RPCRDMA_PROBE1(n, a) DTRACE_PROBE1(rpcrdma, n, a)
#define RPCRDMA_PROBE2(n, a, b) DTRACE_PROBE2(rpcrdma, n, a, b)
#define RPCRDMA_PROBE3(n, a, b, c) DTRACE_PROBE3(rpcrdma, n, a, b, c)
#define RPCRDMA_PROBE4(n, a, b, c, d) DTRACE_PROBE4(rpcrdma, n, a, b, c, d)
#define RPCRDMA_PROBE5(n, a, b, c, d, e) \
	DTRACE_PROBE5(rpcrdma, n, a, b, c, d, e)
#define RPCRDMA_PROBE6(n, a, b, c, d, e, f) \
	DTRACE_PROBE6(rpcrdma, n, a, b, c, d, e, f)
#else
#define RPCRDMA_PROBE1(n, a) do { (void)(a); } while (0)
#define RPCRDMA_PROBE2(n, a, b) do { (void)(a); (void)(b); } while (0)
#define RPCRDMA_PROBE3(n, a, b, c) \
	do { (void)(a); (void)(b); (void)(c); } while (0)
#define RPCRDMA_PROBE4(n, a, b, c, d) \
	do { (void)(a); (void)(b); (void)(c); (void)(d); } while (0)
#define RPCRDMA_PROBE5(n, a, b, c, d, e) \
	do { (void)(a); (void)(b); (void)(c); (void)(d); (void)(e); } while (0)
#define RPCRDMA_PROBE6(n, a, b, c, d, e, f) \
	do { (void)(a); (void)(b); (void)(c); (void)(d); (void)(e); \
	     (void)(f); } while (0)
#endif

#endif /* RPCRDMA_PROBES_H */
