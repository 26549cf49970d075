/*
 * badpeer's message building and checks, shared by its case files:
 * badpeer.c (malformed headers, chunks) and badpeer_limits.c (a server
 * started under lowered chunk limits).  Test code.
 */
#ifndef BADPEER_H
#define BADPEER_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include "rawpeer.h"
#include "rpc_rdma.h"

enum {
	BAD_NRECV = 8,		/* receives kept posted */
	BAD_BUF = RAWPEER_BUF,	/* each, as we offer in the private data */
	BAD_CREDITS = 4,	/* what our Calls ask for */
	BAD_WAIT_MS = 10000,	/* bounded wait for every completion */
	BAD_SRV_CREDITS = 32,	/* echo_server's most grant (max_requests) */
	BAD_CHUNK = 16384,	/* Read chunk source / Reply chunk target */
};

#define ECHO_PROG	0x20049001u
#define ECHO_VERS	1u
#define ECHO_NULL	0u
#define ECHO_BYTES	1u
#define ECHO_SHUTDOWN	4u

/* Our registered memory: bad_chunk the server reads, bad_wchunk it writes. */
extern uint8_t *bad_chunk, *bad_wchunk;
extern struct ibv_mr *bad_cmr, *bad_wmr;
extern uint32_t bad_xid;		/* the last xid used */

void put_words(struct msg *m, int n, ...);
void put_call(struct msg *m, uint32_t xid, uint32_t proc);
void put_good_hdr(struct msg *m, struct rpcrdma_hdr *h);
void send_msg(const struct msg *m);
void result(int ok, const char *fmt, ...);
void expect(const char *what, const struct msg *want);
void want_void_reply(struct msg *m, uint32_t xid);
void want_error(struct msg *m, uint32_t xid, uint32_t err);
void still_serving(const char *after);
void bad(const char *name, const struct msg *m, uint32_t xid, uint32_t err);
void good(const char *name, const struct msg *m, uint32_t xid,
	  const void *echo, uint32_t len);
void expect_served(const char *what, uint32_t xid);
void echo_big(uint32_t x, uint32_t n, uint32_t cap, uint32_t err);

/* The limits the server was started under (-L BYTES,SEGS,CHUNKS). */
struct bad_limits {
	uint32_t bl_bytes;		/* max_chunk_bytes */
	uint32_t bl_segs;		/* max_chunk_segs */
	uint32_t bl_chunks;		/* max_chunks */
	int bl_control;			/* -C: the server has default limits, so
					 * every Call "over" them is served */
};

void run_limit_cases(const struct bad_limits *lim);

#endif /* BADPEER_H */
