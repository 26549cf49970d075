/*
 * The server's chunks (RFC 8166 section 3.5): a Call that came with a
 * read list is reassembled by RDMA Read into registered memory from the
 * chunk pool, without waiting (pull_prepare/pull_step); a
 * Reply too large to Send is RDMA Written into the Reply chunk the Call
 * offered.  Deciding is rchunks.c's; moving is rdma_rw.c's,
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
 * inline pieces copied, their roundup zeroed, and the Read chunks' pieces
 * listed in ct->ct_pull, to be pulled straight into place.  0, or -ENOMEM
 * (answer ERR_CHUNK, nothing was read).
 */
static int pull_prepare(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			const struct rpcrdma_call_map *m, const uint8_t *inl)
{
	struct svc_rdma_pull *pu = &ct->ct_pull;
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
		pu->pu_local[i].sg_addr = (uintptr_t)(b->sb_mem +
						      m->cm_pulls[i].pl_dst);
		pu->pu_local[i].sg_len = m->cm_pulls[i].pl_seg.se_length;
		pu->pu_local[i].sg_lkey = b->sb_lkey;
		pu->pu_remote[i].rm_addr = m->cm_pulls[i].pl_seg.se_offset;
		pu->pu_remote[i].rm_rkey = m->cm_pulls[i].pl_seg.se_handle;
	}
	pu->pu_n = m->cm_npulls;
	pu->pu_done = 0;
	pu->pu_posted = 0;
	pu->pu_len = m->cm_len;
	pu->pu_bytes = m->cm_chunk_bytes;
	return 0;
}

/* Pulled whole: counted (under the client's names), the Call at *msgp. */
static void pull_done(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		      char **msgp, uint32_t *lenp)
{
	struct svc_rdma_pull *pu = &ct->ct_pull;

	pthread_mutex_lock(&c->cn_x.rx_lock);
	if (ct->ct_hdr.hd_proc == RPCRDMA_NOMSG) {
		c->cn_x.rx_stats.rs_long_calls++;
		c->cn_x.rx_stats.rs_long_call_bytes += pu->pu_bytes;
	} else {
		c->cn_x.rx_stats.rs_read_chunk_calls++;
		c->cn_x.rx_stats.rs_read_chunk_bytes += pu->pu_bytes;
	}
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	*msgp = ct->ct_callbuf.sb_mem;
	*lenp = pu->pu_len;
}

int svc_rdma_pull_prepare(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			  const struct rpcrdma_call_map *m, const uint8_t *inl,
			  struct rpcrdma_rep *rep, struct rpcrdma_rw_ctx *rw)
{
	int rc = pull_prepare(c, ct, m, inl);

	if (rc)
		return rc;
	ct->ct_pull.pu_rep = rep;
	ct->ct_pull.pu_rw = rw;
	return 0;
}

/*
 * Why no wait: under svc_run() one thread serves every connection, and
 * service threads are few; a chain of Reads lasts as long as the peer's
 * adapter takes to answer (seconds of retries for one that went without
 * a word).  Its completion comes on the connection's CQ, which svc_run
 * (or the threads' leader) polls: the Call goes on from here when it does.
 */
int svc_rdma_pull_step(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       char **msgp, uint32_t *lenp)
{
	struct svc_rdma_pull *pu = &ct->ct_pull;
	struct rpcrdma_rw_ctx *rw = pu->pu_rw;
	struct rpcrdma_xprt *x = &c->cn_x;
	int rc, st;

	if (pu->pu_posted) {
		st = rpcrdma_rw_state(rw);
		if (!st) {
			rc = __atomic_load_n(&x->rx_dead, __ATOMIC_ACQUIRE);
			if (!rc)
				return -EINPROGRESS;
			/* Its chain may still land: the buffer stays until
			 * the QP goes, and so does the room. */
			goto failed;
		}
		rpcrdma_rw_end(x, 0, pu->pu_posted);
		pu->pu_done += pu->pu_posted;
		pu->pu_posted = 0;
		if (st < 0) {
			rc = -EIO;
			goto failed;
		}
	}
	if (pu->pu_done < pu->pu_n) {
		rc = rpcrdma_rw_start(x, rw, 0, pu->pu_local + pu->pu_done,
				      pu->pu_remote + pu->pu_done,
				      pu->pu_n - pu->pu_done);
		/* No room now: a chain of this connection holds it, and its
		 * completion brings svc_run (or a service thread) back here. */
		if (rc == -EAGAIN)
			return -EINPROGRESS;
		if (rc < 0)
			goto failed;
		pu->pu_posted = (unsigned int)rc;
		return -EINPROGRESS;
	}
	pu->pu_rep = NULL;
	pull_done(c, ct, msgp, lenp);
	return 0;

failed:
	pu->pu_rep = NULL;
	pu->pu_posted = 0;
	svc_rdma_buf_hold(c, &ct->ct_callbuf);
	return rc;
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
