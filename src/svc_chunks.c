/*
 * The server's chunks (RFC 8166 section 3.5): a Call that came with a
 * read list is reassembled by RDMA Read into registered memory from the
 * chunk pool; a Reply too large to Send is RDMA Written into the Reply
 * chunk the Call offered.  Deciding is rchunks.c's; moving is rdma_rw.c's,
 * the memory svc_mem.c's.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rchunks.h"
#include "svc_int.h"

/* The connection's limits, as resolved when it was accepted. */
void svc_rdma_chunk_limits(const struct svc_rdma_conn *c,
			   struct rpcrdma_chunk_limits *lim)
{
	const struct rpcrdma_options *o = &c->cn_x.rx_opts;

	lim->lm_max_bytes = o->ro_max_chunk_bytes;
	lim->lm_max_segs = o->ro_max_chunk_segs;
	lim->lm_max_chunks = o->ro_max_chunks;
	lim->lm_max_call = SVC_RDMA_MAX_CALL;
	lim->lm_no_reads = !c->cn_x.rx_ep.re_rd_depth;
}

/* One more Call or Reply refused (ERR_CHUNK) for going over a limit. */
void svc_rdma_count_chunk_limit(struct svc_rdma_conn *c)
{
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_chunk_limit++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/*
 * Rebuild the Call whose inline part is inl by the map the receive
 * verdict planned (svc_recv.c, within the connection's limits): the
 * inline pieces copied, the Read chunks pulled straight into place, their
 * roundup zeroed.  Returns 0 with the Call at *msgp, in ct->ct_callbuf
 * until the Call is answered; -ENOMEM (answer ERR_CHUNK, nothing was
 * read); or the connection's failure (-ETIMEDOUT: its Reads stalled, the
 * caller tears it down).
 */
int svc_rdma_pull_call(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       const struct rpcrdma_call_map *m, const uint8_t *inl,
		       char **msgp, uint32_t *lenp)
{
	struct rpcrdma_sge local[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_remote rem[RPCRDMA_MAX_READ_SEGS];
	struct timespec deadline;
	struct svc_rdma_buf *b = &ct->ct_callbuf;
	unsigned int i;
	int rc;

	/* Only the bytes this Call needs (the last Call gave its back). */
	rc = svc_rdma_buf_get(c, m->cm_len, b);
	if (rc)
		return rc;
	for (i = 0; i < m->cm_ncopies; i++)
		memcpy(b->sb_mem + m->cm_copies[i].cy_dst,
		       inl + m->cm_copies[i].cy_src, m->cm_copies[i].cy_len);
	for (i = 0; i < m->cm_nzeros; i++)
		memset(b->sb_mem + m->cm_zeros[i].zr_dst, 0, m->cm_zeros[i].zr_len);
	for (i = 0; i < m->cm_npulls; i++) {
		local[i].sg_addr = (uintptr_t)(b->sb_mem + m->cm_pulls[i].pl_dst);
		local[i].sg_len = m->cm_pulls[i].pl_seg.se_length;
		local[i].sg_lkey = b->sb_lkey;
		rem[i].rm_addr = m->cm_pulls[i].pl_seg.se_offset;
		rem[i].rm_rkey = m->cm_pulls[i].pl_seg.se_handle;
	}
	svc_rdma_stall_deadline(c, m->cm_chunk_bytes, &deadline);
	rc = rpcrdma_rw_move(&c->cn_x, &c->cn_rw[ct->ct_slot], 0, local, rem,
			     m->cm_npulls, &deadline);
	if (rc) {
		svc_rdma_buf_hold(c, b);
		return rc;
	}
	/* The server counts what it pulled, under the client's names. */
	pthread_mutex_lock(&c->cn_x.rx_lock);
	if (ct->ct_hdr.hd_proc == RPCRDMA_NOMSG) {
		c->cn_x.rx_stats.rs_long_calls++;
		c->cn_x.rx_stats.rs_long_call_bytes += m->cm_chunk_bytes;
	} else {
		c->cn_x.rx_stats.rs_read_chunk_calls++;
		c->cn_x.rx_stats.rs_read_chunk_bytes += m->cm_chunk_bytes;
	}
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	*msgp = b->sb_mem;
	*lenp = m->cm_len;
	return 0;
}

/*
 * The RDMA Writes that put the bytes of b from off on into the segments
 * of written (lengths as filled by rpcrdma_fill_chunk), in order, at
 * local/remote from index *n on (at most max in all): 0, or -E2BIG (they
 * do not fit; *n and *bytes unchanged).  *bytes grows by what they move.
 */
int svc_rdma_chunk_writes(const struct svc_rdma_buf *b, uint64_t off,
			  const struct rpcrdma_chunk *written,
			  struct rpcrdma_sge *local, struct rpcrdma_remote *rem,
			  unsigned int *n, unsigned int max, uint64_t *bytes)
{
	unsigned int i, k = *n;
	uint64_t moved = 0;

	for (i = 0; i < written->rc_nsegs; i++) {
		const struct rpcrdma_segment *s = &written->rc_segs[i];

		if (!s->se_length)
			continue;
		if (k == max)
			return -E2BIG;
		local[k].sg_addr = (uintptr_t)(b->sb_mem + off);
		local[k].sg_len = s->se_length;
		local[k].sg_lkey = b->sb_lkey;
		rem[k].rm_addr = s->se_offset;
		rem[k].rm_rkey = s->se_handle;
		off += s->se_length;
		moved += s->se_length;
		k++;
	}
	*n = k;
	*bytes += moved;
	return 0;
}

/*
 * RDMA Write the bytes of b from off on into the segments of written, and
 * wait for them (a Reply whose Writes do not fit in front of its Send).
 * 0 or the connection's failure.
 */
int svc_rdma_push_chunk(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			const struct svc_rdma_buf *b, uint64_t off,
			const struct rpcrdma_chunk *written)
{
	struct rpcrdma_sge local[RPCRDMA_MAX_CHUNK_SEGS];
	struct rpcrdma_remote rem[RPCRDMA_MAX_CHUNK_SEGS];
	struct timespec deadline;
	unsigned int n = 0;
	uint64_t bytes = 0;

	if (svc_rdma_chunk_writes(b, off, written, local, rem, &n,
				  RPCRDMA_MAX_CHUNK_SEGS, &bytes))
		return -EINVAL;
	if (!n)
		return 0;
	svc_rdma_stall_deadline(c, bytes, &deadline);
	return rpcrdma_rw_move(&c->cn_x, &c->cn_rw[ct->ct_slot], 1, local, rem,
			       n, &deadline);
}
