/*
 * The library defaults the test programs size their calls against
 * (rpcrdma.conf(5)), in one place: a default that moves moves every
 * test that crosses it.
 */
#ifndef RPCRDMA_TEST_LIB_DEFAULTS_H
#define RPCRDMA_TEST_LIB_DEFAULTS_H

/* inline_send (either role) and a client's inline_recv: what a client
 * offers (RFC 8797) and what it receives inline. */
#define TEST_INLINE_SEND_DEFAULT 66560u
#define TEST_INLINE_RECV_DEFAULT 17408u
/* A server's inline_recv (its role's own default), before the fit to its
 * client's offer. */
#define TEST_SVC_INLINE_RECV_DEFAULT 66560u

/* An ECHO_BYTES Call's bytes besides its opaque: the transport header
 * with three empty lists (28), the call header with AUTH_NONE (40) and
 * the opaque's length word. */
#define TEST_ECHO_CALL_OVERHEAD (28u + 40u + 4u)

#endif
