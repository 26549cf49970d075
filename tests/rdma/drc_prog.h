/*
 * The counter program of the duplicate request cache tests (drc_prog.c,
 * served by echo_server; driven by drcpeer).
 */
#ifndef DRC_PROG_H
#define DRC_PROG_H

#define DRC_PROG	0x20049002u
#define DRC_VERS	1u
#define DRC_PROC_ADD	1u	/* (ms, bytes) -> (count, opaque<bytes>) */
#define DRC_PROC_GET	2u	/* void -> count */
#define DRC_PROG_MAX_BYTES (64u << 10)
/* The result bytes of the execution that made count. */
#define DRC_PATTERN(count, i)	((unsigned char)((count) * 7u + (i)))

#ifndef DRC_PEER
#include <rpc/rpc.h>
int drc_prog_register(SVCXPRT *listener);
#endif

#endif /* DRC_PROG_H */
