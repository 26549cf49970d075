/*
 * Responder chunk planning (rchunks.h): validate a read list and lay the
 * Call out around it; check Write lists and Reply chunks against the
 * limits; fill Write and Reply chunks segment by segment.  Every length is
 * summed in 64 bits, so no peer value can wrap a sum.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "rchunks.h"

static uint32_t xdr_roundup(uint64_t n)
{
	return (uint32_t)((4 - (n & 3)) & 3);
}

/* offset + length past 2^64 - 1: no such remote range. */
static int seg_wraps(const struct rpcrdma_segment *s)
{
	return s->se_offset + s->se_length < s->se_offset;
}

static void add_copy(struct rpcrdma_call_map *m, uint32_t src, uint32_t dst,
		     uint32_t len)
{
	if (!len)
		return;
	m->cm_copies[m->cm_ncopies++] = (struct rpcrdma_copy){ src, dst, len };
}

/*
 * A well-formed read list against the limits: segments per chunk (a run
 * of one position; RDMA_NOMSG's list is one chunk), chunks, and the
 * bytes they move.
 */
static int reads_within(const struct rpcrdma_hdr *h, uint64_t bytes,
			const struct rpcrdma_chunk_limits *lim)
{
	const struct rpcrdma_read_segment *r = h->hd_reads;
	uint32_t i, nchunks = 0, nsegs = 0;

	for (i = 0; i < h->hd_nreads; i++) {
		if (!i || r[i].rd_position != r[i - 1].rd_position) {
			nchunks++;
			nsegs = 0;
		}
		if (++nsegs > lim->lm_max_segs || nchunks > lim->lm_max_chunks)
			return -EMSGSIZE;
	}
	return bytes > lim->lm_max_bytes ? -EMSGSIZE : 0;
}

static int map_nomsg(const struct rpcrdma_hdr *h, uint32_t inline_len,
		     uint32_t max_call, struct rpcrdma_call_map *m)
{
	uint64_t off = 0;
	uint32_t i;

	/* The whole Call is in the chunk: anything inline is a lie. */
	if (inline_len)
		return -EBADMSG;
	for (i = 0; i < h->hd_nreads; i++) {
		const struct rpcrdma_read_segment *r = &h->hd_reads[i];

		if (r->rd_position != 0 || seg_wraps(&r->rd_seg))
			return -EBADMSG;
		if (off + r->rd_seg.se_length > max_call)
			return -EMSGSIZE;
		m->cm_pulls[m->cm_npulls++] =
			(struct rpcrdma_pull){ (uint32_t)off, r->rd_seg };
		off += r->rd_seg.se_length;
	}
	m->cm_len = (uint32_t)off;
	m->cm_chunk_bytes = off;
	return 0;
}

static int map_msg(const struct rpcrdma_hdr *h, uint32_t inline_len,
		   uint32_t max_call, struct rpcrdma_call_map *m)
{
	uint64_t dst = 0;		/* bytes of the Call laid out so far */
	uint32_t src = 0;		/* inline bytes consumed so far: <= inline_len */
	uint32_t i = 0;

	while (i < h->hd_nreads) {
		uint32_t pos = h->hd_reads[i].rd_position;
		uint64_t before, clen = 0;

		/* Chunks ascend and start within the inline bytes left. */
		if (pos == 0 || pos < dst)
			return -EBADMSG;
		before = pos - dst;
		if (before > inline_len - src)
			return -EBADMSG;
		add_copy(m, src, (uint32_t)dst, (uint32_t)before);
		src += (uint32_t)before;
		dst = pos;
		for (; i < h->hd_nreads && h->hd_reads[i].rd_position == pos; i++) {
			const struct rpcrdma_segment *s = &h->hd_reads[i].rd_seg;

			if (seg_wraps(s))
				return -EBADMSG;
			if (dst + clen + s->se_length > max_call)
				return -EMSGSIZE;
			m->cm_pulls[m->cm_npulls++] =
				(struct rpcrdma_pull){ (uint32_t)(dst + clen), *s };
			clen += s->se_length;
		}
		m->cm_chunk_bytes += clen;
		dst += clen;
		/* The roundup is left out of the chunk and of the inline part. */
		if (xdr_roundup(clen)) {
			if (dst + xdr_roundup(clen) > max_call)
				return -EMSGSIZE;
			m->cm_zeros[m->cm_nzeros++] = (struct rpcrdma_zero){
				(uint32_t)dst, xdr_roundup(clen) };
			dst += xdr_roundup(clen);
		}
	}
	if (dst + (inline_len - src) > max_call)
		return -EMSGSIZE;
	add_copy(m, src, (uint32_t)dst, inline_len - src);
	m->cm_len = (uint32_t)(dst + (inline_len - src));
	return 0;
}

int rpcrdma_map_call(const struct rpcrdma_hdr *h, uint32_t inline_len,
		     const struct rpcrdma_chunk_limits *lim,
		     struct rpcrdma_call_map *m)
{
	int rc;

	memset(m, 0, sizeof(*m));
	if (!h->hd_nreads || h->hd_nreads > RPCRDMA_MAX_READ_SEGS)
		return -EBADMSG;
	/* Malformed first (-EBADMSG), then over a limit (-EMSGSIZE). */
	switch (h->hd_proc) {
	case RPCRDMA_NOMSG:
		rc = map_nomsg(h, inline_len, lim->lm_max_call, m);
		break;
	case RPCRDMA_MSG:
		rc = map_msg(h, inline_len, lim->lm_max_call, m);
		break;
	default:
		return -EBADMSG;
	}
	return rc ? rc : reads_within(h, m->cm_chunk_bytes, lim);
}

int rpcrdma_check_chunks(const struct rpcrdma_hdr *h,
			 const struct rpcrdma_chunk_limits *lim)
{
	uint32_t i;

	if (h->hd_nwrites > lim->lm_max_chunks)
		return -EMSGSIZE;
	for (i = 0; i < h->hd_nwrites; i++) {
		if (rpcrdma_chunk_capacity(&h->hd_writes[i]) < 0)
			return -EBADMSG;
		if (h->hd_writes[i].rc_nsegs > lim->lm_max_segs)
			return -EMSGSIZE;
	}
	if (!h->hd_has_reply)
		return 0;
	if (rpcrdma_chunk_capacity(&h->hd_reply) < 0)
		return -EBADMSG;
	return h->hd_reply.rc_nsegs > lim->lm_max_segs ? -EMSGSIZE : 0;
}

int64_t rpcrdma_chunk_capacity(const struct rpcrdma_chunk *ch)
{
	uint64_t total = 0;
	uint32_t i;

	if (ch->rc_nsegs > RPCRDMA_MAX_CHUNK_SEGS)
		return -EBADMSG;
	for (i = 0; i < ch->rc_nsegs; i++) {
		if (seg_wraps(&ch->rc_segs[i]))
			return -EBADMSG;
		total += ch->rc_segs[i].se_length;
	}
	return (int64_t)total;
}

int rpcrdma_fill_chunk(const struct rpcrdma_chunk *ch, uint64_t len,
		       struct rpcrdma_chunk *written)
{
	int64_t cap = rpcrdma_chunk_capacity(ch);
	uint32_t i;

	if (cap < 0 || (uint64_t)cap < len)
		return -EMSGSIZE;
	*written = *ch;
	for (i = 0; i < ch->rc_nsegs; i++) {
		uint32_t n = len < ch->rc_segs[i].se_length ?
			     (uint32_t)len : ch->rc_segs[i].se_length;

		written->rc_segs[i].se_length = n;
		len -= n;
	}
	return 0;
}
