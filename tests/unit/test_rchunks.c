/*
 * Unit test: the Responder's chunk planning.  Read lists are laid out
 * around the inline bytes with their roundup restored, and a Call rebuilt
 * from the plan equals the original; hostile lists are refused before
 * anything is allocated; the limits (segments per chunk, chunks per list,
 * chunk bytes) accept exactly the limit and refuse one over; lengths and
 * addresses at the edges of 32 and 64 bits neither wrap nor pass;
 * Write/Reply chunks are filled in order.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rchunks.h"

static void rd(struct rpcrdma_hdr *h, uint32_t pos, uint32_t len, uint64_t raddr)
{
	struct rpcrdma_read_segment *r = &h->hd_reads[h->hd_nreads++];

	r->rd_position = pos;
	r->rd_seg.se_handle = 0x1234;
	r->rd_seg.se_length = len;
	r->rd_seg.se_offset = raddr;
}

/* Limits: only the reassembly buffer's, or the given ones. */
static const struct rpcrdma_chunk_limits *limits(uint32_t bytes, uint32_t segs,
						 uint32_t chunks, uint32_t call)
{
	static struct rpcrdma_chunk_limits lim;

	lim = (struct rpcrdma_chunk_limits){ bytes, segs, chunks, call, 0 };
	return &lim;
}

static const struct rpcrdma_chunk_limits *call_only(uint32_t max_call)
{
	return limits(UINT32_MAX, RPCRDMA_MAX_CHUNK_SEGS, RPCRDMA_MAX_READ_SEGS,
		      max_call);
}

static void hdr(struct rpcrdma_hdr *h, uint32_t proc)
{
	memset(h, 0, sizeof(*h));
	h->hd_vers = 1;
	h->hd_proc = proc;
}

/*
 * Rebuild a Call from a plan as the server will: copies from the inline
 * bytes, "RDMA Reads" from a fake remote memory (raddr is an offset into
 * remote[]), zeros for the roundup.
 */
static void rebuild(const struct rpcrdma_call_map *m, const uint8_t *inl,
		    const uint8_t *remote, uint8_t *out)
{
	unsigned int i;

	memset(out, 0xee, m->cm_len);
	for (i = 0; i < m->cm_ncopies; i++)
		memcpy(out + m->cm_copies[i].cy_dst, inl + m->cm_copies[i].cy_src,
		       m->cm_copies[i].cy_len);
	for (i = 0; i < m->cm_npulls; i++)
		memcpy(out + m->cm_pulls[i].pl_dst,
		       remote + m->cm_pulls[i].pl_seg.se_offset,
		       m->cm_pulls[i].pl_seg.se_length);
	for (i = 0; i < m->cm_nzeros; i++)
		memset(out + m->cm_zeros[i].zr_dst, 0, m->cm_zeros[i].zr_len);
}

START_TEST(nomsg_concatenates)
{
	uint8_t remote[64], out[64];
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;
	int i;

	for (i = 0; i < 64; i++)
		remote[i] = (uint8_t)i;
	hdr(&h, RPCRDMA_NOMSG);
	rd(&h, 0, 10, 0);
	rd(&h, 0, 20, 10);
	rd(&h, 0, 6, 30);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), 0);
	ck_assert_uint_eq(m.cm_len, 36);
	ck_assert_uint_eq(m.cm_npulls, 3);
	ck_assert_uint_eq(m.cm_ncopies, 0);
	ck_assert_uint_eq(m.cm_pulls[2].pl_dst, 30);
	rebuild(&m, NULL, remote, out);
	ck_assert_mem_eq(out, remote, 36);
	/* Inline bytes beside a position-zero chunk, or another position. */
	ck_assert_int_eq(rpcrdma_map_call(&h, 4, call_only(1000), &m), -EBADMSG);
	h.hd_reads[1].rd_position = 8;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), -EBADMSG);
}
END_TEST

/*
 * An XDR Call: 40 bytes, an opaque of n bytes (length word inline, data
 * as a Read chunk at position 44), then a 16-byte tail.  Built whole
 * first, then split the way a Requester does: data and roundup out.
 */
static void one_chunk(uint32_t n)
{
	static uint8_t full[8192], inl[8192], out[8192], remote[8192];
	uint32_t pad = (4 - (n & 3)) & 3, flen = 44 + n + pad + 16, i;
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;

	for (i = 0; i < flen; i++)
		full[i] = (uint8_t)(i * 7 + 1);
	memset(full + 44 + n, 0, pad);
	memcpy(remote + 100, full + 44, n);
	memcpy(inl, full, 44);
	memcpy(inl + 44, full + 44 + n + pad, 16);
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 44, n, 100);
	ck_assert_int_eq(rpcrdma_map_call(&h, 60, call_only(8192), &m), 0);
	ck_assert_uint_eq(m.cm_len, flen);
	ck_assert_uint_eq(m.cm_chunk_bytes, n);
	ck_assert_uint_eq(m.cm_nzeros, pad ? 1 : 0);
	rebuild(&m, inl, remote, out);
	ck_assert_mem_eq(out, full, flen);
}

START_TEST(msg_residues)
{
	one_chunk(4000 + (uint32_t)_i);
}
END_TEST

/* Two chunks, the second split over two segments, positions in the whole
 * Call (earlier chunk data and roundup counted). */
START_TEST(msg_two_chunks)
{
	static uint8_t full[512], inl[512], out[512], remote[512];
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;
	uint32_t i;

	/* full: [0,8) inline, [8,13) chunk A + 3 pad, [16,28) inline,
	 * [28,38) chunk B (6 + 4 bytes) + 2 pad, [40,48) inline. */
	for (i = 0; i < 48; i++)
		full[i] = (uint8_t)(i + 1);
	memset(full + 13, 0, 3);
	memset(full + 38, 0, 2);
	memcpy(remote + 0, full + 8, 5);
	memcpy(remote + 200, full + 28, 6);
	memcpy(remote + 300, full + 34, 4);
	memcpy(inl, full, 8);
	memcpy(inl + 8, full + 16, 12);
	memcpy(inl + 20, full + 40, 8);
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 5, 0);
	rd(&h, 28, 6, 200);
	rd(&h, 28, 4, 300);
	ck_assert_int_eq(rpcrdma_map_call(&h, 28, call_only(512), &m), 0);
	ck_assert_uint_eq(m.cm_len, 48);
	ck_assert_uint_eq(m.cm_npulls, 3);
	ck_assert_uint_eq(m.cm_ncopies, 3);
	rebuild(&m, inl, remote, out);
	ck_assert_mem_eq(out, full, 48);
}
END_TEST

START_TEST(msg_refused)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;

	hdr(&h, RPCRDMA_MSG);			/* position 0 is NOMSG's */
	rd(&h, 0, 8, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_MSG);			/* past the inline bytes */
	rd(&h, 24, 8, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_MSG);			/* descending */
	rd(&h, 16, 8, 0);
	rd(&h, 12, 8, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_MSG);			/* overlapping the previous chunk */
	rd(&h, 8, 8, 0);
	rd(&h, 12, 4, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_MSG);			/* remote range wraps */
	rd(&h, 8, 8, UINT64_MAX - 3);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_MSG);			/* no read list at all */
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
	hdr(&h, RPCRDMA_ERROR);
	rd(&h, 8, 8, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1000), &m), -EBADMSG);
}
END_TEST

/* Lengths near 2^32 summed in 64 bits: too big, never wrapped to small. */
START_TEST(too_large)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;
	int i;

	hdr(&h, RPCRDMA_NOMSG);
	for (i = 0; i < RPCRDMA_MAX_READ_SEGS; i++)
		rd(&h, 0, UINT32_MAX, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(UINT32_MAX), &m), -EMSGSIZE);
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 1001, 0);			/* 8 + 1001 + 3 + 12 = 1024 */
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1024), &m), 0);
	ck_assert_uint_eq(m.cm_len, 1024);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(1023), &m), -EMSGSIZE);
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 0x80000000u, 0);
	rd(&h, 8, 0x80000000u, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(UINT32_MAX), &m), -EMSGSIZE);
}
END_TEST

START_TEST(fill)
{
	struct rpcrdma_chunk ch = { 3, { { 1, 100, 0 }, { 2, 100, 1000 },
					 { 3, 100, 5000 } } }, w;

	ck_assert_int_eq(rpcrdma_chunk_capacity(&ch), 300);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, 150, &w), 0);
	ck_assert_uint_eq(w.rc_nsegs, 3);
	ck_assert_uint_eq(w.rc_segs[0].se_length, 100);
	ck_assert_uint_eq(w.rc_segs[1].se_length, 50);
	ck_assert_uint_eq(w.rc_segs[2].se_length, 0);
	ck_assert_uint_eq(w.rc_segs[1].se_handle, 2);
	ck_assert_uint_eq(w.rc_segs[2].se_offset, 5000);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, 300, &w), 0);
	ck_assert_uint_eq(w.rc_segs[2].se_length, 100);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, 0, &w), 0);
	ck_assert_uint_eq(w.rc_segs[0].se_length, 0);
	/* One byte too many: refused, the Reply goes as ERR_CHUNK. */
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, 301, &w), -EMSGSIZE);
	ch.rc_segs[1].se_offset = UINT64_MAX - 10;
	ck_assert_int_eq(rpcrdma_chunk_capacity(&ch), -EBADMSG);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, 1, &w), -EMSGSIZE);
}
END_TEST

/* Segments per chunk: a run of one position; RDMA_NOMSG's list is one. */
START_TEST(limit_segs)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;

	hdr(&h, RPCRDMA_NOMSG);
	rd(&h, 0, 10, 0);
	rd(&h, 0, 10, 100);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1000, 2, 1, 1000), &m), 0);
	rd(&h, 0, 10, 200);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1000, 2, 1, 1000), &m),
			 -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1000, 3, 1, 1000), &m), 0);
	/* Two chunks of two segments each: the limit is per chunk. */
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 4, 0);
	rd(&h, 8, 4, 0);
	rd(&h, 16, 2, 0);
	rd(&h, 16, 2, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 2, 2, 1000), &m), 0);
	ck_assert_uint_eq(m.cm_npulls, 4);
	rd(&h, 16, 2, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 2, 2, 1000), &m),
			 -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 3, 2, 1000), &m), 0);
}
END_TEST

/* Chunks per read list: distinct positions. */
START_TEST(limit_chunks)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;
	int i;

	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 4, 0);
	rd(&h, 16, 4, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 1, 2, 1000), &m), 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 1, 1, 1000), &m),
			 -EMSGSIZE);
	/* Sixteen segments at one position are one chunk. */
	hdr(&h, RPCRDMA_NOMSG);
	for (i = 0; i < RPCRDMA_MAX_READ_SEGS; i++)
		rd(&h, 0, 4, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1000, 16, 1, 1000), &m), 0);
	/* A list that cannot describe a Call is that first, whatever the
	 * limits: descending positions count as three chunks, but are bad. */
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 4, 0);
	rd(&h, 16, 4, 0);
	rd(&h, 8, 4, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1000, 1, 1, 1000), &m),
			 -EBADMSG);
}
END_TEST

/* Chunk bytes: the data the Reads move, not the inline part or roundup. */
START_TEST(limit_bytes)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;

	hdr(&h, RPCRDMA_NOMSG);
	rd(&h, 0, 600, 0);
	rd(&h, 0, 424, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1024, 2, 1, 4096), &m), 0);
	ck_assert_uint_eq(m.cm_chunk_bytes, 1024);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(1023, 2, 1, 4096), &m),
			 -EMSGSIZE);
	/* 8 inline + 1021 data + 3 roundup + 12 inline: 1021 counted. */
	hdr(&h, RPCRDMA_MSG);
	rd(&h, 8, 1021, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1021, 1, 1, 4096), &m), 0);
	ck_assert_uint_eq(m.cm_len, 1044);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, limits(1020, 1, 1, 4096), &m),
			 -EMSGSIZE);
	/* UINT32_MAX bytes, allowed as chunk bytes, still need a buffer. */
	hdr(&h, RPCRDMA_NOMSG);
	rd(&h, 0, UINT32_MAX, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(UINT32_MAX, 1, 1, UINT32_MAX),
					  &m), 0);
	ck_assert_uint_eq(m.cm_chunk_bytes, UINT32_MAX);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(UINT32_MAX, 1, 1,
							UINT32_MAX - 1), &m),
			 -EMSGSIZE);
	rd(&h, 0, 1, 0);			/* 2^32 in all: no wrap to 0 */
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, limits(UINT32_MAX, 2, 1, UINT32_MAX),
					  &m), -EMSGSIZE);
	/* An RDMA_MSG position at UINT32_MAX with nothing inline before it. */
	hdr(&h, RPCRDMA_MSG);
	rd(&h, UINT32_MAX, 4, 0);
	ck_assert_int_eq(rpcrdma_map_call(&h, 20, call_only(UINT32_MAX), &m),
			 -EBADMSG);
}
END_TEST

/* Remote ranges: offset + length up to 2^64 - 1, never past it. */
START_TEST(address_edges)
{
	struct rpcrdma_call_map m;
	struct rpcrdma_hdr h;

	hdr(&h, RPCRDMA_NOMSG);
	rd(&h, 0, 16, UINT64_MAX - 16);
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), 0);
	ck_assert_uint_eq(m.cm_pulls[0].pl_seg.se_offset, UINT64_MAX - 16);
	h.hd_reads[0].rd_seg.se_offset = UINT64_MAX - 15;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), -EBADMSG);
	h.hd_reads[0].rd_seg.se_offset = UINT64_MAX;
	h.hd_reads[0].rd_seg.se_length = 0;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), 0);
	h.hd_reads[0].rd_seg.se_length = 1;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(1000), &m), -EBADMSG);
	h.hd_reads[0].rd_seg.se_offset = UINT64_MAX - UINT32_MAX;
	h.hd_reads[0].rd_seg.se_length = UINT32_MAX;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(UINT32_MAX), &m), 0);
	h.hd_reads[0].rd_seg.se_offset++;
	ck_assert_int_eq(rpcrdma_map_call(&h, 0, call_only(UINT32_MAX), &m),
			 -EBADMSG);
}
END_TEST

static void wchunk(struct rpcrdma_chunk *ch, uint32_t nsegs, uint32_t len,
		   uint64_t raddr)
{
	uint32_t i;

	memset(ch, 0, sizeof(*ch));
	ch->rc_nsegs = nsegs;
	for (i = 0; i < nsegs; i++)
		ch->rc_segs[i] = (struct rpcrdma_segment){ 0x99, len,
							   raddr + (uint64_t)i * len };
}

/* Write lists and Reply chunks: at the limits accepted, over refused. */
START_TEST(limit_write_reply)
{
	const struct rpcrdma_chunk_limits *lim = limits(8192, 2, 1, 8192);
	struct rpcrdma_hdr h;

	hdr(&h, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), 0);
	h.hd_nwrites = 1;
	wchunk(&h.hd_writes[0], 2, 1u << 20, 0x1000);	/* offers may be big */
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), 0);
	h.hd_nwrites = 2;
	wchunk(&h.hd_writes[1], 1, 64, 0x1000);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, limits(8192, 2, 2, 8192)), 0);
	h.hd_nwrites = 1;
	wchunk(&h.hd_writes[0], 3, 64, 0x1000);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), -EMSGSIZE);
	wchunk(&h.hd_writes[0], 2, 64, UINT64_MAX - 100);	/* 2nd wraps */
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), -EBADMSG);
	h.hd_nwrites = 0;
	h.hd_has_reply = true;
	wchunk(&h.hd_reply, 2, UINT32_MAX, 0);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), 0);
	wchunk(&h.hd_reply, 3, 64, 0);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), -EMSGSIZE);
	wchunk(&h.hd_reply, 1, 64, UINT64_MAX - 63);
	ck_assert_int_eq(rpcrdma_check_chunks(&h, lim), -EBADMSG);
	/* What one Reply may write. */
	ck_assert(rpcrdma_reply_fits(lim, 8192));
	ck_assert(!rpcrdma_reply_fits(lim, 8193));
	ck_assert(!rpcrdma_reply_fits(lim, (uint64_t)1 << 32));
}
END_TEST

/* Sixteen segments of UINT32_MAX: capacity and fill in 64 bits. */
START_TEST(capacity_64)
{
	struct rpcrdma_chunk ch, w;

	wchunk(&ch, RPCRDMA_MAX_CHUNK_SEGS, UINT32_MAX, 0);
	ck_assert_int_eq(rpcrdma_chunk_capacity(&ch),
			 (int64_t)RPCRDMA_MAX_CHUNK_SEGS * UINT32_MAX);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, ((uint64_t)1 << 32) + 5, &w), 0);
	ck_assert_uint_eq(w.rc_segs[0].se_length, UINT32_MAX);
	ck_assert_uint_eq(w.rc_segs[1].se_length, 6);
	ck_assert_uint_eq(w.rc_segs[2].se_length, 0);
	ck_assert_int_eq(rpcrdma_fill_chunk(&ch, (uint64_t)RPCRDMA_MAX_CHUNK_SEGS *
					    UINT32_MAX + 1, &w), -EMSGSIZE);
	/* More segments than the codec represents: refused, not read. */
	ch.rc_nsegs = RPCRDMA_MAX_CHUNK_SEGS + 1;
	ck_assert_int_eq(rpcrdma_chunk_capacity(&ch), -EBADMSG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rchunks");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, nomsg_concatenates);
	tcase_add_loop_test(tc, msg_residues, 0, 4);
	tcase_add_test(tc, msg_two_chunks);
	tcase_add_test(tc, msg_refused);
	tcase_add_test(tc, too_large);
	tcase_add_test(tc, fill);
	tcase_add_test(tc, limit_segs);
	tcase_add_test(tc, limit_chunks);
	tcase_add_test(tc, limit_bytes);
	tcase_add_test(tc, address_edges);
	tcase_add_test(tc, limit_write_reply);
	tcase_add_test(tc, capacity_64);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
