/*
 * The library defaults the test programs size their calls against
 * (rpcrdma.conf(5)), in one place: a default that moves moves every
 * test that crosses it.
 */
#ifndef RPCRDMA_TEST_LIB_DEFAULTS_H
#define RPCRDMA_TEST_LIB_DEFAULTS_H

/* inline_send and inline_recv, each way (RFC 8797 offer). */
#define TEST_INLINE_DEFAULT 17408u

/* An ECHO_BYTES Call's bytes besides its opaque: the transport header
 * with three empty lists (28), the call header with AUTH_NONE (40) and
 * the opaque's length word. */
#define TEST_ECHO_CALL_OVERHEAD (28u + 40u + 4u)

#endif
