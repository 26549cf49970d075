/*
 * What the raw-verbs baseline's server (raw_server.c) and client
 * (raw_client.c) share: the wire formats, limits, wr_id encoding and small
 * helpers over buffers, registrations and completion channels.
 */
#ifndef RPCRDMA_BENCH_RAW_INT_H
#define RPCRDMA_BENCH_RAW_INT_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "bench.h"

/*
 * Wire formats, every field big-endian.
 *
 * Connect private data (struct raw_hello): magic, version, event mode, the
 * largest payload and the calls in flight the client will use.  Accept
 * private data (struct raw_welcome): what the server granted and its
 * region: the first max_size bytes hold the pattern (the client RDMA Reads
 * them), the next max_size bytes are the client's to RDMA Write.  A reject
 * carrying a raw_welcome with rw_status set says why; a reject without one
 * means nobody listens yet, and the client retries.
 *
 * Every Send starts with struct raw_hdr: h_seq and h_slot (opaque to the
 * server, echoed so the client can match the reply), h_len (payload bytes
 * after the header) and h_reply (payload bytes the reply must carry).  The
 * server answers each request with one Send: when h_reply == h_len, the
 * request verbatim (sent straight from its receive buffer), otherwise a
 * header {seq, slot, reply, reply} followed by h_reply bytes of pattern.
 */
#define RAW_MAGIC 0x52415742u	/* "RAWB" */
#define RAW_VERSION 1

struct raw_hello {
	uint32_t rh_magic;
	uint8_t rh_version, rh_event;
	uint16_t rh_pad;
	uint32_t rh_max_size, rh_depth;
};

struct raw_welcome {
	uint32_t rw_magic;
	int32_t rw_status;	/* a reject's positive errno, else 0 */
	uint64_t rw_addr;
	uint32_t rw_rkey, rw_len;
	uint32_t rw_max_size, rw_depth;
	uint32_t rw_rd;		/* RDMA Reads the server takes at once */
	uint32_t rw_pad;
};

struct raw_hdr {
	uint32_t h_seq, h_slot, h_len, h_reply;
};

#define RAW_HDR ((uint32_t)sizeof(struct raw_hdr))
#define RAW_CONNECT_SECS 20	/* the server may still be starting */
#define RAW_STALL_SECS 10	/* nothing completed for this long: give up */
#define RAW_MAX_RD 16		/* RDMA Reads in flight we ask for */
#define RAW_SPIN_CHECK 4096	/* empty polls between clock/CM checks */
#define RAW_SERVER_IDLE 0.05	/* s: a busy-polling server then sleeps */

/* wr_id: what completed (high half) and which slot or buffer (low half). */
enum { RAW_WR_SEND = 1, RAW_WR_RECV, RAW_WR_ONESIDED, RAW_WR_CHECK };
#define RAW_WRID(type, idx) (((uint64_t)(type) << 32) | (uint32_t)(idx))
#define RAW_WR_TYPE(id) ((unsigned)((id) >> 32))
#define RAW_WR_IDX(id) ((uint32_t)(id))

void raw_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint8_t raw_pat(unsigned seed, size_t i);
void raw_fill(uint8_t *p, size_t n, unsigned seed);
void raw_scrub(uint8_t *p, size_t n, const uint8_t *expect);
size_t raw_diff(const uint8_t *a, const uint8_t *b, size_t n);
int raw_nonblock(int fd);
unsigned raw_min(unsigned a, unsigned b);
int raw_alloc(struct ibv_pd *pd, size_t len, int access,
	      uint8_t **mem, struct ibv_mr **mr);
void raw_release(uint8_t **mem, struct ibv_mr **mr);
unsigned raw_cq_events(struct ibv_comp_channel *cc, struct ibv_cq *mine,
		       int *armed);
int raw_post_recv(struct ibv_qp *qp, uint8_t *buf, size_t len,
		  uint32_t lkey, uint32_t i);

#endif /* RPCRDMA_BENCH_RAW_INT_H */
