/*
 * Unit test: the RPC-over-RDMA transport header codec and RFC 8797
 * private data.  Round trips, exact wire bytes, and every malformed or
 * truncated header we can think of must fail cleanly with the right code.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_rdma.h"

/* ---- helpers ------------------------------------------------------------ */

static struct rpcrdma_segment seg(uint32_t handle, uint32_t length,
				  uint64_t offset)
{
	struct rpcrdma_segment s = { handle, length, offset };

	return s;
}

static void hdr_init(struct rpcrdma_hdr *h, uint32_t xid, uint32_t proc)
{
	memset(h, 0, sizeof(*h));
	h->hd_xid = xid;
	h->hd_vers = RPCRDMA_VERSION;
	h->hd_credits = 128;
	h->hd_proc = proc;
}

static void add_read(struct rpcrdma_hdr *h, uint32_t pos,
		     struct rpcrdma_segment s)
{
	h->hd_reads[h->hd_nreads].rd_position = pos;
	h->hd_reads[h->hd_nreads].rd_seg = s;
	h->hd_nreads++;
}

static void fill_chunk(struct rpcrdma_chunk *ch, uint32_t nsegs, uint32_t tag)
{
	uint32_t i;

	ch->rc_nsegs = nsegs;
	for (i = 0; i < nsegs; i++)
		ch->rc_segs[i] = seg(tag + i, 4096 * (i + 1),
				     0xfedcba9800000000ull + tag * 0x10000ull + i);
}

static void seg_eq(const struct rpcrdma_segment *a,
		   const struct rpcrdma_segment *b)
{
	ck_assert_uint_eq(a->se_handle, b->se_handle);
	ck_assert_uint_eq(a->se_length, b->se_length);
	ck_assert_uint_eq(a->se_offset, b->se_offset);
}

static void chunk_eq(const struct rpcrdma_chunk *a,
		     const struct rpcrdma_chunk *b)
{
	uint32_t i;

	ck_assert_uint_eq(a->rc_nsegs, b->rc_nsegs);
	for (i = 0; i < a->rc_nsegs; i++)
		seg_eq(&a->rc_segs[i], &b->rc_segs[i]);
}

static void hdr_eq(const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b)
{
	uint32_t i;

	ck_assert_uint_eq(a->hd_xid, b->hd_xid);
	ck_assert_uint_eq(a->hd_vers, b->hd_vers);
	ck_assert_uint_eq(a->hd_credits, b->hd_credits);
	ck_assert_uint_eq(a->hd_proc, b->hd_proc);
	ck_assert_uint_eq(a->hd_nreads, b->hd_nreads);
	for (i = 0; i < a->hd_nreads; i++) {
		ck_assert_uint_eq(a->hd_reads[i].rd_position,
				  b->hd_reads[i].rd_position);
		seg_eq(&a->hd_reads[i].rd_seg, &b->hd_reads[i].rd_seg);
	}
	ck_assert_uint_eq(a->hd_nwrites, b->hd_nwrites);
	for (i = 0; i < a->hd_nwrites; i++)
		chunk_eq(&a->hd_writes[i], &b->hd_writes[i]);
	ck_assert_int_eq(a->hd_has_reply, b->hd_has_reply);
	if (a->hd_has_reply)
		chunk_eq(&a->hd_reply, &b->hd_reply);
}

/*
 * Encode h, decode it back from an exact-size heap copy (so a sanitizer
 * sees any read past the end), and compare.  Returns the encoded length.
 */
static size_t round_trip(const struct rpcrdma_hdr *h)
{
	static uint8_t buf[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_hdr out;
	ssize_t n;
	uint8_t *copy;

	n = rpcrdma_hdr_encode(buf, sizeof(buf), h);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(n, rpcrdma_hdr_size(h));
	copy = malloc((size_t)n);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, buf, (size_t)n);
	ck_assert_int_eq(rpcrdma_hdr_decode(copy, (size_t)n, &out), 0);
	free(copy);
	ck_assert_uint_eq(out.hd_hdrlen, (size_t)n);
	hdr_eq(h, &out);
	return (size_t)n;
}

/* Decode len bytes from an exact-size heap copy of p. */
static int decode_exact(const void *p, size_t len, struct rpcrdma_hdr *h)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, p, len);
	rc = rpcrdma_hdr_decode(copy, len, h);
	free(copy);
	return rc;
}

/* Big-endian word writer for hand-built malformed headers. */
static size_t put32(uint8_t *buf, size_t off, uint32_t v)
{
	buf[off] = (uint8_t)(v >> 24);
	buf[off + 1] = (uint8_t)(v >> 16);
	buf[off + 2] = (uint8_t)(v >> 8);
	buf[off + 3] = (uint8_t)v;
	return off + 4;
}

static size_t put_prefix(uint8_t *buf, uint32_t xid, uint32_t vers,
			 uint32_t proc)
{
	size_t off = put32(buf, 0, xid);

	off = put32(buf, off, vers);
	off = put32(buf, off, 32);
	return put32(buf, off, proc);
}

static size_t put_seg(uint8_t *buf, size_t off)
{
	off = put32(buf, off, 0x1111);
	off = put32(buf, off, 512);
	off = put32(buf, off, 0);
	return put32(buf, off, 0x2000);
}

/* The "everything at once" header used by several tests. */
static void complex_hdr(struct rpcrdma_hdr *h)
{
	hdr_init(h, 0xcafef00d, RPCRDMA_MSG);
	add_read(h, 120, seg(0x10, 8192, 0x7f0000001000ull));
	add_read(h, 120, seg(0x11, 4096, 0x7f0000003000ull));
	add_read(h, 256, seg(0x12, 100, 0x7f0000009000ull));
	h->hd_nwrites = 3;
	fill_chunk(&h->hd_writes[0], 1, 0x100);
	fill_chunk(&h->hd_writes[1], 3, 0x200);
	fill_chunk(&h->hd_writes[2], 2, 0x300);
	h->hd_has_reply = true;
	fill_chunk(&h->hd_reply, 2, 0x400);
}

/* ---- round trips -------------------------------------------------------- */

START_TEST(rt_msg_empty_lists)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, 0x01020304, RPCRDMA_MSG);
	ck_assert_uint_eq(round_trip(&h), RPCRDMA_HDRLEN_MIN);
}
END_TEST

START_TEST(rt_msg_with_body)
{
	struct rpcrdma_hdr h, out;
	uint8_t buf[RPCRDMA_HDRLEN_MIN + 40];
	ssize_t n;

	hdr_init(&h, 7, RPCRDMA_MSG);
	n = rpcrdma_hdr_encode(buf, sizeof(buf), &h);
	ck_assert_int_eq(n, RPCRDMA_HDRLEN_MIN);
	memset(buf + n, 0x5a, sizeof(buf) - (size_t)n);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf, sizeof(buf), &out), 0);
	ck_assert_uint_eq(out.hd_hdrlen, RPCRDMA_HDRLEN_MIN);
}
END_TEST

START_TEST(rt_read_list_positions)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, 0xdeadbeef, RPCRDMA_MSG);
	add_read(&h, 64, seg(1, 1024, 0x1000));
	add_read(&h, 64, seg(2, 2048, 0x2000));
	add_read(&h, 1028, seg(3, 4, 0xffffffffffffff00ull));
	ck_assert_uint_eq(round_trip(&h), 28 + 3 * 24);
}
END_TEST

/* Every field at its 32- and 64-bit extreme comes back exactly: the codec
 * passes lengths and offsets through; judging them is the planners'. */
START_TEST(rt_extreme_values)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, UINT32_MAX, RPCRDMA_MSG);
	add_read(&h, UINT32_MAX, seg(UINT32_MAX, UINT32_MAX, UINT64_MAX));
	add_read(&h, UINT32_MAX, seg(0, 0, 0));
	h.hd_nwrites = 1;
	h.hd_writes[0].rc_nsegs = 2;
	h.hd_writes[0].rc_segs[0] = seg(UINT32_MAX, UINT32_MAX, UINT64_MAX);
	h.hd_writes[0].rc_segs[1] = seg(1, UINT32_MAX, UINT64_MAX - UINT32_MAX);
	h.hd_has_reply = true;
	h.hd_reply.rc_nsegs = 1;
	h.hd_reply.rc_segs[0] = seg(UINT32_MAX, UINT32_MAX, 1ull << 63);
	ck_assert_uint_eq(round_trip(&h), 28 + 2 * 24 + 8 + 2 * 16 + 4 + 16);
}
END_TEST

START_TEST(rt_nomsg_position_zero)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, 42, RPCRDMA_NOMSG);
	add_read(&h, 0, seg(9, 65536, 0x10000));
	add_read(&h, 0, seg(10, 30000, 0x90000));
	round_trip(&h);
}
END_TEST

START_TEST(rt_several_write_chunks)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, 43, RPCRDMA_MSG);
	h.hd_nwrites = 3;
	fill_chunk(&h.hd_writes[0], 1, 0x10);
	fill_chunk(&h.hd_writes[1], RPCRDMA_MAX_CHUNK_SEGS, 0x20);
	fill_chunk(&h.hd_writes[2], 5, 0x40);
	ck_assert_uint_eq(round_trip(&h),
			  28 + 3 * 8 + (1 + 16 + 5) * RPCRDMA_SEGMENT_SIZE);
}
END_TEST

START_TEST(rt_reply_chunk)
{
	struct rpcrdma_hdr h;

	hdr_init(&h, 44, RPCRDMA_NOMSG);
	h.hd_has_reply = true;
	fill_chunk(&h.hd_reply, 4, 0x77);
	ck_assert_uint_eq(round_trip(&h), 28 + 4 + 4 * 16);
	h.hd_proc = RPCRDMA_MSG;
	round_trip(&h);
}
END_TEST

START_TEST(rt_all_together)
{
	struct rpcrdma_hdr h;

	complex_hdr(&h);
	round_trip(&h);
	h.hd_proc = RPCRDMA_NOMSG;
	round_trip(&h);
}
END_TEST

START_TEST(rt_every_bound_full)
{
	struct rpcrdma_hdr h;
	uint32_t i;

	hdr_init(&h, 0xffffffff, RPCRDMA_MSG);
	h.hd_credits = 0xffffffff;
	for (i = 0; i < RPCRDMA_MAX_READ_SEGS; i++)
		add_read(&h, i * 4, seg(i, i, (uint64_t)i << 40));
	h.hd_nwrites = RPCRDMA_MAX_WRITE_CHUNKS;
	for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		fill_chunk(&h.hd_writes[i], RPCRDMA_MAX_CHUNK_SEGS, i << 8);
	h.hd_has_reply = true;
	fill_chunk(&h.hd_reply, RPCRDMA_MAX_CHUNK_SEGS, 0xabc);
	ck_assert_uint_eq(round_trip(&h), RPCRDMA_HDRLEN_MAX);
}
END_TEST

START_TEST(rt_error_vers)
{
	uint8_t buf[RPCRDMA_HDRLEN_ERR_VERS];
	struct rpcrdma_hdr h;

	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 0x99, 5,
					      RPCRDMA_ERR_VERS),
			 RPCRDMA_HDRLEN_ERR_VERS);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), 0);
	ck_assert_uint_eq(h.hd_xid, 0x99);
	ck_assert_uint_eq(h.hd_credits, 5);
	ck_assert_uint_eq(h.hd_proc, RPCRDMA_ERROR);
	ck_assert_uint_eq(h.hd_err, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(h.hd_vers_low, 1);
	ck_assert_uint_eq(h.hd_vers_high, 1);
	ck_assert_uint_eq(h.hd_hdrlen, RPCRDMA_HDRLEN_ERR_VERS);
}
END_TEST

START_TEST(rt_error_chunk)
{
	uint8_t buf[RPCRDMA_HDRLEN_ERR_CHUNK];
	struct rpcrdma_hdr h;

	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 0x98, 0,
					      RPCRDMA_ERR_CHUNK),
			 RPCRDMA_HDRLEN_ERR_CHUNK);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), 0);
	ck_assert_uint_eq(h.hd_xid, 0x98);
	ck_assert_uint_eq(h.hd_proc, RPCRDMA_ERROR);
	ck_assert_uint_eq(h.hd_err, RPCRDMA_ERR_CHUNK);
	ck_assert_uint_eq(h.hd_hdrlen, RPCRDMA_HDRLEN_ERR_CHUNK);
}
END_TEST

START_TEST(rt_unaligned_buffer)
{
	struct rpcrdma_hdr h, out;
	uint8_t buf[RPCRDMA_HDRLEN_MAX + 8];
	ssize_t n;

	complex_hdr(&h);
	n = rpcrdma_hdr_encode(buf + 1, sizeof(buf) - 1, &h);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf + 1, (size_t)n, &out), 0);
	hdr_eq(&h, &out);
}
END_TEST

/* ---- exact wire bytes --------------------------------------------------- */

START_TEST(wire_msg_header)
{
	static const uint8_t want[] = {
		0x12, 0x34, 0x56, 0x78,		/* xid */
		0x00, 0x00, 0x00, 0x01,		/* vers */
		0x00, 0x00, 0x00, 0x20,		/* credits 32 */
		0x00, 0x00, 0x00, 0x00,		/* RDMA_MSG */
		0x00, 0x00, 0x00, 0x01,		/* read list: one entry */
		0x00, 0x00, 0x00, 0x80,		/*   position 128 */
		0xa1, 0xb2, 0xc3, 0xd4,		/*   handle */
		0x00, 0x00, 0x10, 0x00,		/*   length 4096 */
		0x00, 0x00, 0x7f, 0xaa,		/*   offset hi */
		0x00, 0x01, 0x20, 0x00,		/*   offset lo */
		0x00, 0x00, 0x00, 0x00,		/* end of read list */
		0x00, 0x00, 0x00, 0x01,		/* write list: one chunk */
		0x00, 0x00, 0x00, 0x01,		/*   one segment */
		0x00, 0x00, 0x00, 0x05,		/*   handle */
		0x00, 0x00, 0x20, 0x00,		/*   length 8192 */
		0x01, 0x02, 0x03, 0x04,		/*   offset hi */
		0x05, 0x06, 0x07, 0x08,		/*   offset lo */
		0x00, 0x00, 0x00, 0x00,		/* end of write list */
		0x00, 0x00, 0x00, 0x01,		/* reply chunk present */
		0x00, 0x00, 0x00, 0x01,		/*   one segment */
		0xff, 0xff, 0xff, 0xff,		/*   handle */
		0x00, 0x00, 0x04, 0x00,		/*   length 1024 */
		0x00, 0x00, 0x00, 0x00,		/*   offset hi */
		0x00, 0x00, 0x00, 0x10,		/*   offset lo */
	};
	struct rpcrdma_hdr h, out;
	uint8_t buf[sizeof(want) + 16];

	hdr_init(&h, 0x12345678, RPCRDMA_MSG);
	h.hd_credits = 32;
	h.hd_vers = 77;		/* ignored: we always send version 1 */
	add_read(&h, 128, seg(0xa1b2c3d4, 4096, 0x00007faa00012000ull));
	h.hd_nwrites = 1;
	h.hd_writes[0].rc_nsegs = 1;
	h.hd_writes[0].rc_segs[0] = seg(5, 8192, 0x0102030405060708ull);
	h.hd_has_reply = true;
	h.hd_reply.rc_nsegs = 1;
	h.hd_reply.rc_segs[0] = seg(0xffffffff, 1024, 0x10);

	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h),
			 sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));

	ck_assert_int_eq(decode_exact(want, sizeof(want), &out), 0);
	h.hd_vers = 1;
	hdr_eq(&h, &out);
}
END_TEST

START_TEST(wire_error_headers)
{
	static const uint8_t vers[] = {
		0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 4,
		0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
	};
	static const uint8_t chunk[] = {
		0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 4,
		0, 0, 0, 2,
	};
	uint8_t buf[64];

	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 0xaabbccdd, 3,
					      RPCRDMA_ERR_VERS), sizeof(vers));
	ck_assert_mem_eq(buf, vers, sizeof(vers));
	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 0xaabbccdd, 3,
					      RPCRDMA_ERR_CHUNK), sizeof(chunk));
	ck_assert_mem_eq(buf, chunk, sizeof(chunk));
}
END_TEST

START_TEST(wire_nomsg_reply_chunk)
{
	static const uint8_t want[] = {
		0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 128, 0, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5,
	};
	struct rpcrdma_hdr h;
	uint8_t buf[sizeof(want)];

	hdr_init(&h, 9, RPCRDMA_NOMSG);
	h.hd_has_reply = true;
	h.hd_reply.rc_nsegs = 1;
	h.hd_reply.rc_segs[0] = seg(2, 3, 0x0000000400000005ull);
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h),
			 sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

/* ---- malformed input ---------------------------------------------------- */

START_TEST(bad_version)
{
	static const uint32_t versions[] = { 0, 2, 0x01000000, 0xffffffff };
	uint8_t buf[RPCRDMA_HDRLEN_MIN] = { 0 };
	struct rpcrdma_hdr h;
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		put_prefix(buf, 0x11223344, versions[i], RPCRDMA_MSG);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h),
				 -EPROTONOSUPPORT);
		ck_assert_uint_eq(h.hd_xid, 0x11223344);
		ck_assert_uint_eq(h.hd_vers, versions[i]);
		/* Even a bare prefix with a garbage proc gets ERR_VERS. */
		put_prefix(buf, 0x11223344, versions[i], 0xdead);
		ck_assert_int_eq(decode_exact(buf, RPCRDMA_HDRLEN_FIXED, &h),
				 -EPROTONOSUPPORT);
		ck_assert_uint_eq(h.hd_xid, 0x11223344);
	}
}
END_TEST

START_TEST(short_below_xid)
{
	uint8_t buf[4] = { 1, 2, 3, 4 };
	struct rpcrdma_hdr h;
	size_t len;

	for (len = 0; len < 4; len++) {
		ck_assert_int_eq(decode_exact(buf, len, &h), -ENODATA);
		ck_assert_uint_eq(h.hd_xid, 0);
	}
}
END_TEST

START_TEST(short_below_fixed)
{
	uint8_t buf[RPCRDMA_HDRLEN_FIXED];
	struct rpcrdma_hdr h;
	size_t len;

	put_prefix(buf, 0x0a0b0c0d, 1, RPCRDMA_MSG);
	for (len = 4; len < RPCRDMA_HDRLEN_FIXED; len++) {
		ck_assert_int_eq(decode_exact(buf, len, &h), -ENODATA);
		ck_assert_uint_eq(h.hd_xid, 0x0a0b0c0d);
	}
	/* A wrong version does not rescue a short prefix. */
	put_prefix(buf, 0x0a0b0c0d, 2, RPCRDMA_MSG);
	ck_assert_int_eq(decode_exact(buf, 12, &h), -ENODATA);
}
END_TEST

START_TEST(short_below_min)
{
	uint8_t buf[RPCRDMA_HDRLEN_MIN] = { 0 };
	struct rpcrdma_hdr h;
	size_t len;
	uint32_t proc;

	for (proc = RPCRDMA_MSG; proc <= RPCRDMA_NOMSG; proc++) {
		put_prefix(buf, 0x55, 1, proc);
		for (len = RPCRDMA_HDRLEN_FIXED; len < RPCRDMA_HDRLEN_MIN;
		     len++) {
			ck_assert_int_eq(decode_exact(buf, len, &h), -EBADMSG);
			ck_assert_uint_eq(h.hd_xid, 0x55);
			ck_assert_uint_eq(h.hd_nreads, 0);
		}
	}
	put_prefix(buf, 0x55, 1, RPCRDMA_MSG);
	ck_assert_int_eq(decode_exact(buf, RPCRDMA_HDRLEN_MIN, &h), 0);
}
END_TEST

START_TEST(bad_proc)
{
	static const uint32_t procs[] = {
		RPCRDMA_MSGP, RPCRDMA_DONE, 5, 0x100, 0x80000000, 0xffffffff,
	};
	uint8_t buf[64] = { 0 };
	struct rpcrdma_hdr h;
	size_t i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		put_prefix(buf, 0x77, 1, procs[i]);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
		ck_assert_uint_eq(h.hd_xid, 0x77);
		ck_assert_uint_eq(h.hd_proc, procs[i]);
	}
}
END_TEST

/* RDMA_MSGP as a v1 sender laid it out (align, threshold, three lists). */
START_TEST(bad_msgp_well_formed)
{
	uint8_t buf[64] = { 0 };
	struct rpcrdma_hdr h;
	size_t off;

	off = put_prefix(buf, 0x78, 1, RPCRDMA_MSGP);
	off = put32(buf, off, 4);	/* rdma_align */
	off = put32(buf, off, 1024);	/* rdma_thresh */
	ck_assert_int_eq(decode_exact(buf, off + 12, &h), -EBADMSG);
	ck_assert_uint_eq(h.hd_xid, 0x78);
}
END_TEST

START_TEST(bad_done)
{
	uint8_t buf[RPCRDMA_HDRLEN_FIXED];
	struct rpcrdma_hdr h;

	put_prefix(buf, 0x79, 1, RPCRDMA_DONE);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
	ck_assert_uint_eq(h.hd_xid, 0x79);
}
END_TEST

START_TEST(bad_discriminator)
{
	static const uint32_t bad[] = { 2, 0x100, 0x80000000, 0xffffffff };
	uint8_t buf[128] = { 0 };
	struct rpcrdma_hdr h;
	size_t i, off;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* read list */
		memset(buf, 0, sizeof(buf));
		off = put_prefix(buf, 1, 1, RPCRDMA_MSG);
		put32(buf, off, bad[i]);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
		/* second read list discriminator */
		off = put32(buf, off, 1);
		off = put32(buf, off, 0);
		off = put_seg(buf, off);
		put32(buf, off, bad[i]);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
		ck_assert_uint_eq(h.hd_nreads, 0);
		/* write list */
		memset(buf, 0, sizeof(buf));
		off = put_prefix(buf, 1, 1, RPCRDMA_MSG);
		off = put32(buf, off, 0);
		put32(buf, off, bad[i]);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
		/* reply chunk */
		memset(buf, 0, sizeof(buf));
		off = put_prefix(buf, 1, 1, RPCRDMA_MSG);
		off = put32(buf, off, 0);
		off = put32(buf, off, 0);
		put32(buf, off, bad[i]);
		ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
		ck_assert_uint_eq(h.hd_xid, 1);
	}
}
END_TEST

/*
 * Chunk counts that claim more segments than the receive holds.  The
 * 0x10000000 and 0x10000001 cases wrap to 0 and 16 in 32-bit n * 16.
 */
START_TEST(bad_count_overrun)
{
	static const uint32_t counts[] = {
		2, 16, 0x10000000, 0x10000001, 0x7fffffff, 0xffffffff,
	};
	uint8_t buf[128];
	struct rpcrdma_hdr h;
	size_t i, off, end;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		/* write chunk holding one real segment */
		memset(buf, 0, sizeof(buf));
		off = put_prefix(buf, 2, 1, RPCRDMA_MSG);
		off = put32(buf, off, 0);
		off = put32(buf, off, 1);
		off = put32(buf, off, counts[i]);
		off = put_seg(buf, off);
		end = put32(buf, off, 0);
		end = put32(buf, end, 0);
		ck_assert_int_eq(decode_exact(buf, end, &h), -EBADMSG);
		ck_assert_uint_eq(h.hd_xid, 2);
		ck_assert_uint_eq(h.hd_nwrites, 0);
		/* reply chunk at the very end of the receive */
		memset(buf, 0, sizeof(buf));
		off = put_prefix(buf, 3, 1, RPCRDMA_NOMSG);
		off = put32(buf, off, 0);
		off = put32(buf, off, 0);
		off = put32(buf, off, 1);
		off = put32(buf, off, counts[i]);
		end = put_seg(buf, off);
		ck_assert_int_eq(decode_exact(buf, end, &h), -EBADMSG);
		ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);
		ck_assert_uint_eq(h.hd_xid, 3);
	}
}
END_TEST

START_TEST(bad_zero_segment_chunk)
{
	uint8_t buf[64] = { 0 };
	struct rpcrdma_hdr h;
	size_t off;

	off = put_prefix(buf, 4, 1, RPCRDMA_MSG);
	off = put32(buf, off, 0);
	off = put32(buf, off, 1);
	off = put32(buf, off, 0);	/* write chunk of no segments */
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);

	off = put_prefix(buf, 4, 1, RPCRDMA_MSG);
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	off = put32(buf, off, 1);
	off = put32(buf, off, 0);	/* reply chunk of no segments */
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);
}
END_TEST

START_TEST(bad_nomsg_without_chunks)
{
	uint8_t buf[RPCRDMA_HDRLEN_MIN] = { 0 };
	struct rpcrdma_hdr h;

	put_prefix(buf, 5, 1, RPCRDMA_NOMSG);
	ck_assert_int_eq(decode_exact(buf, sizeof(buf), &h), -EBADMSG);
	ck_assert_uint_eq(h.hd_xid, 5);
}
END_TEST

START_TEST(bad_too_many_reads)
{
	uint8_t buf[16 + (RPCRDMA_MAX_READ_SEGS + 1) * 24 + 12];
	struct rpcrdma_hdr h;
	size_t off;
	uint32_t i;

	off = put_prefix(buf, 6, 1, RPCRDMA_MSG);
	for (i = 0; i < RPCRDMA_MAX_READ_SEGS + 1; i++) {
		off = put32(buf, off, 1);
		off = put32(buf, off, 0);
		off = put_seg(buf, off);
	}
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	ck_assert_uint_eq(off, sizeof(buf));
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);
	ck_assert_uint_eq(h.hd_xid, 6);
	ck_assert_uint_eq(h.hd_nreads, 0);
}
END_TEST

START_TEST(bad_too_many_write_chunks)
{
	uint8_t buf[16 + 4 + (RPCRDMA_MAX_WRITE_CHUNKS + 1) * 24 + 8];
	struct rpcrdma_hdr h;
	size_t off;
	uint32_t i;

	off = put_prefix(buf, 7, 1, RPCRDMA_MSG);
	off = put32(buf, off, 0);
	for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS + 1; i++) {
		off = put32(buf, off, 1);
		off = put32(buf, off, 1);
		off = put_seg(buf, off);
	}
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	ck_assert_uint_eq(off, sizeof(buf));
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);
	ck_assert_uint_eq(h.hd_nwrites, 0);
}
END_TEST

START_TEST(bad_too_many_chunk_segs)
{
	uint8_t buf[16 + 12 + (RPCRDMA_MAX_CHUNK_SEGS + 1) * 16 + 8];
	struct rpcrdma_hdr h;
	size_t off, end;
	uint32_t i;

	/* in a write chunk */
	off = put_prefix(buf, 8, 1, RPCRDMA_MSG);
	off = put32(buf, off, 0);
	off = put32(buf, off, 1);
	off = put32(buf, off, RPCRDMA_MAX_CHUNK_SEGS + 1);
	for (i = 0; i < RPCRDMA_MAX_CHUNK_SEGS + 1; i++)
		off = put_seg(buf, off);
	end = put32(buf, off, 0);
	end = put32(buf, end, 0);
	ck_assert_uint_eq(end, sizeof(buf));
	ck_assert_int_eq(decode_exact(buf, end, &h), -EBADMSG);
	/* in the reply chunk */
	off = put_prefix(buf, 8, 1, RPCRDMA_NOMSG);
	off = put32(buf, off, 0);
	off = put32(buf, off, 0);
	off = put32(buf, off, 1);
	off = put32(buf, off, RPCRDMA_MAX_CHUNK_SEGS + 1);
	for (i = 0; i < RPCRDMA_MAX_CHUNK_SEGS + 1; i++)
		off = put_seg(buf, off);
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);
	ck_assert_int_eq(h.hd_has_reply, 0);
}
END_TEST

START_TEST(bad_error_bodies)
{
	uint8_t buf[32] = { 0 };
	struct rpcrdma_hdr h;
	size_t off;

	off = put_prefix(buf, 9, 1, RPCRDMA_ERROR);
	ck_assert_int_eq(decode_exact(buf, off, &h), -EBADMSG);	/* no err */
	put32(buf, off, 3);						/* unknown */
	ck_assert_int_eq(decode_exact(buf, off + 4, &h), -EBADMSG);
	put32(buf, off, 0);
	ck_assert_int_eq(decode_exact(buf, off + 4, &h), -EBADMSG);
	put32(buf, off, RPCRDMA_ERR_VERS);				/* truncated */
	ck_assert_int_eq(decode_exact(buf, off + 4, &h), -EBADMSG);
	ck_assert_int_eq(decode_exact(buf, off + 8, &h), -EBADMSG);
	ck_assert_int_eq(decode_exact(buf, off + 12, &h), 0);
	ck_assert_uint_eq(h.hd_xid, 9);
}
END_TEST

START_TEST(truncated_everywhere)
{
	uint8_t buf[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_hdr h, out;
	ssize_t n;
	size_t len;

	complex_hdr(&h);
	n = rpcrdma_hdr_encode(buf, sizeof(buf), &h);
	ck_assert_int_gt(n, RPCRDMA_HDRLEN_MIN);
	for (len = 0; len < (size_t)n; len++) {
		int rc = decode_exact(buf, len, &out);

		if (len < RPCRDMA_HDRLEN_FIXED) {
			ck_assert_int_eq(rc, -ENODATA);
		} else {
			ck_assert_int_eq(rc, -EBADMSG);
			ck_assert_uint_eq(out.hd_xid, h.hd_xid);
		}
		ck_assert_uint_eq(out.hd_hdrlen, 0);
		ck_assert_uint_eq(out.hd_nreads, 0);
		ck_assert_uint_eq(out.hd_nwrites, 0);
	}
	ck_assert_int_eq(decode_exact(buf, (size_t)n, &out), 0);
}
END_TEST

/* Random garbage after a valid prefix: never crash, never claim too much. */
START_TEST(random_garbage)
{
	uint8_t buf[256];
	struct rpcrdma_hdr h;
	unsigned int seed = 12345;
	int iter;
	size_t i, len;

	for (iter = 0; iter < 20000; iter++) {
		for (i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245u + 12345u;
			/* bias towards small words so lists look plausible */
			buf[i] = (seed >> 16) % 4 ? 0 : (uint8_t)(seed >> 24);
		}
		len = (seed >> 8) % sizeof(buf);
		put_prefix(buf, 0xabc, 1, (seed >> 4) % 6);
		if (buf[19] > 1 && (seed & 1))
			buf[19] = 1;
		{
			int rc = decode_exact(buf, len, &h);

			ck_assert(rc == 0 || rc == -EBADMSG || rc == -ENODATA);
			if (rc == 0)
				ck_assert_uint_le(h.hd_hdrlen, len);
		}
	}
}
END_TEST

START_TEST(null_args)
{
	uint8_t buf[RPCRDMA_HDRLEN_MIN] = { 0 };
	struct rpcrdma_hdr h;

	ck_assert_int_eq(rpcrdma_hdr_decode(NULL, 28, &h), -EINVAL);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf, sizeof(buf), NULL), -EINVAL);
	hdr_init(&h, 1, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_hdr_encode(NULL, 100, &h), -EINVAL);
	ck_assert_int_eq(rpcrdma_encode_error(NULL, 100, 1, 1,
					      RPCRDMA_ERR_CHUNK), -EINVAL);
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), NULL), -EINVAL);
}
END_TEST

/* ---- encoder limits ----------------------------------------------------- */

START_TEST(enc_hdr_every_short_size)
{
	uint8_t buf[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_hdr h;
	ssize_t n;
	size_t len, i;

	complex_hdr(&h);
	n = rpcrdma_hdr_size(&h);
	ck_assert_int_gt(n, 0);
	for (len = 0; len < (size_t)n; len++) {
		memset(buf, 0xaa, sizeof(buf));
		ck_assert_int_eq(rpcrdma_hdr_encode(buf, len, &h), -EMSGSIZE);
		for (i = 0; i < sizeof(buf); i++)
			ck_assert_uint_eq(buf[i], 0xaa);
	}
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, (size_t)n, &h), n);
}
END_TEST

START_TEST(enc_error_every_short_size)
{
	uint8_t buf[RPCRDMA_HDRLEN_ERR_VERS];
	size_t len;

	for (len = 0; len < RPCRDMA_HDRLEN_ERR_VERS; len++)
		ck_assert_int_eq(rpcrdma_encode_error(buf, len, 1, 1,
						      RPCRDMA_ERR_VERS),
				 -EMSGSIZE);
	for (len = 0; len < RPCRDMA_HDRLEN_ERR_CHUNK; len++)
		ck_assert_int_eq(rpcrdma_encode_error(buf, len, 1, 1,
						      RPCRDMA_ERR_CHUNK),
				 -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 1, 1, 0),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_encode_error(buf, sizeof(buf), 1, 1, 3),
			 -EINVAL);
}
END_TEST

START_TEST(enc_refuses_bad_headers)
{
	uint8_t buf[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_hdr h;

	hdr_init(&h, 1, RPCRDMA_ERROR);
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.hd_proc = RPCRDMA_MSGP;
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.hd_proc = RPCRDMA_NOMSG;		/* no chunk to carry the call */
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	hdr_init(&h, 1, RPCRDMA_MSG);
	h.hd_nreads = RPCRDMA_MAX_READ_SEGS + 1;
	ck_assert_int_eq(rpcrdma_hdr_size(&h), -EINVAL);
	hdr_init(&h, 1, RPCRDMA_MSG);
	h.hd_nwrites = RPCRDMA_MAX_WRITE_CHUNKS + 1;
	ck_assert_int_eq(rpcrdma_hdr_size(&h), -EINVAL);
	hdr_init(&h, 1, RPCRDMA_MSG);
	h.hd_nwrites = 1;			/* chunk of zero segments */
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.hd_writes[0].rc_nsegs = RPCRDMA_MAX_CHUNK_SEGS + 1;
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	hdr_init(&h, 1, RPCRDMA_MSG);
	h.hd_has_reply = true;
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.hd_reply.rc_nsegs = 0xffffffff;
	ck_assert_int_eq(rpcrdma_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}
END_TEST

/* ---- RFC 8797 private data ---------------------------------------------- */

START_TEST(pd_wire_and_round_trip)
{
	static const uint8_t want[] = {
		0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x07,
	};
	uint8_t buf[RPCRDMA_CM_PRIVATE_LEN];
	struct rpcrdma_cm_private p;

	ck_assert_int_eq(rpcrdma_cm_private_encode(buf, sizeof(buf), 4096,
						   8192, true),
			 RPCRDMA_CM_PRIVATE_LEN);
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p), 0);
	ck_assert_uint_eq(p.pv_send_size, 4096);
	ck_assert_uint_eq(p.pv_recv_size, 8192);
	ck_assert(p.pv_remote_inv);

	ck_assert_int_eq(rpcrdma_cm_private_encode(buf, sizeof(buf), 1024,
						   262144, false),
			 RPCRDMA_CM_PRIVATE_LEN);
	ck_assert_uint_eq(buf[5], 0);
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p), 0);
	ck_assert_uint_eq(p.pv_send_size, 1024);
	ck_assert_uint_eq(p.pv_recv_size, 262144);
	ck_assert(!p.pv_remote_inv);
}
END_TEST

START_TEST(pd_clamping)
{
	static const struct { uint32_t in, out; } cases[] = {
		{ 0, 1024 }, { 1, 1024 }, { 1023, 1024 }, { 1024, 1024 },
		{ 1500, 1024 }, { 2047, 1024 }, { 2048, 2048 },
		{ 262143, 261120 }, { 262144, 262144 }, { 262145, 262144 },
		{ 1u << 20, 262144 }, { 0xffffffff, 262144 },
	};
	uint8_t buf[RPCRDMA_CM_PRIVATE_LEN];
	struct rpcrdma_cm_private p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(rpcrdma_cm_private_encode(buf, sizeof(buf),
							   cases[i].in,
							   cases[i].in, false),
				 RPCRDMA_CM_PRIVATE_LEN);
		ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf),
							   &p), 0);
		ck_assert_uint_eq(p.pv_send_size, cases[i].out);
		ck_assert_uint_eq(p.pv_recv_size, cases[i].out);
	}
}
END_TEST

/* A server's sizes fitted to a client's offer: only ever shrunk. */
START_TEST(pd_fit_to_offer)
{
	static const struct {
		uint32_t peer_send, peer_recv, send, recv, want_send, want_recv;
	} cases[] = {
		/* the kernel's client: 4 KiB each way */
		{ 4096, 4096, 17408, 17408, 4096, 4096 },
		/* a larger offer grows nothing */
		{ 262144, 262144, 17408, 17408, 17408, 17408 },
		/* each way on its own: its Sends size our receives */
		{ 66560, 17408, 66560, 66560, 17408, 66560 },
		{ 1024, 262144, 17408, 66560, 17408, 1024 },
	};
	uint8_t buf[RPCRDMA_CM_PRIVATE_LEN];
	struct rpcrdma_cm_private p;
	uint32_t send, recv;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(rpcrdma_cm_private_encode(buf, sizeof(buf),
							   cases[i].peer_send,
							   cases[i].peer_recv, false),
				 RPCRDMA_CM_PRIVATE_LEN);
		ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p), 0);
		send = cases[i].send;
		recv = cases[i].recv;
		rpcrdma_cm_fit(&p, true, &send, &recv);
		ck_assert_uint_eq(send, cases[i].want_send);
		ck_assert_uint_eq(recv, cases[i].want_recv);
	}

	/* No offer: the peer receives RFC 8166's 1 KiB; our receive
	 * buffers stay as they are. */
	ck_assert_int_eq(rpcrdma_cm_private_decode(NULL, 0, &p), -ENOMSG);
	send = recv = 66560;
	rpcrdma_cm_fit(&p, false, &send, &recv);
	ck_assert_uint_eq(send, RPCRDMA_DEFAULT_INLINE);
	ck_assert_uint_eq(recv, 66560);
}
END_TEST

static void assert_defaults(const struct rpcrdma_cm_private *p)
{
	ck_assert_uint_eq(p->pv_send_size, RPCRDMA_DEFAULT_INLINE);
	ck_assert_uint_eq(p->pv_recv_size, RPCRDMA_DEFAULT_INLINE);
	ck_assert(!p->pv_remote_inv);
}

START_TEST(pd_unrecognised)
{
	uint8_t buf[56] = { 0 };
	struct rpcrdma_cm_private p;
	size_t len;

	/* RDMA-CM pads private data: a longer buffer is fine. */
	ck_assert_int_eq(rpcrdma_cm_private_encode(buf, sizeof(buf), 8192,
						   8192, true),
			 RPCRDMA_CM_PRIVATE_LEN);
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p), 0);
	ck_assert_uint_eq(p.pv_recv_size, 8192);

	/* reserved flag bits are ignored */
	buf[5] = 0xfe;
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p), 0);
	ck_assert(!p.pv_remote_inv);
	buf[5] = 0x01;

	for (len = 0; len < RPCRDMA_CM_PRIVATE_LEN; len++) {
		ck_assert_int_eq(rpcrdma_cm_private_decode(buf, len, &p),
				 -ENOMSG);
		assert_defaults(&p);
	}
	ck_assert_int_eq(rpcrdma_cm_private_decode(NULL, 0, &p), -ENOMSG);
	assert_defaults(&p);

	buf[4] = 2;					/* unknown version */
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p),
			 -ENOMSG);
	assert_defaults(&p);
	buf[4] = 0;
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p),
			 -ENOMSG);
	buf[4] = 1;

	buf[3] ^= 0x01;					/* wrong magic */
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p),
			 -ENOMSG);
	assert_defaults(&p);
	memset(buf, 0, sizeof(buf));			/* all zero */
	ck_assert_int_eq(rpcrdma_cm_private_decode(buf, sizeof(buf), &p),
			 -ENOMSG);
	assert_defaults(&p);
}
END_TEST

START_TEST(pd_encode_short_buffer)
{
	uint8_t buf[RPCRDMA_CM_PRIVATE_LEN];
	size_t len;

	for (len = 0; len < RPCRDMA_CM_PRIVATE_LEN; len++)
		ck_assert_int_eq(rpcrdma_cm_private_encode(buf, len, 1024,
							   1024, false),
				 -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_cm_private_encode(NULL, 8, 1024, 1024, false),
			 -EINVAL);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

/* A Call header of words w (n of them) in buf: its bytes. */
static size_t call_bytes(uint8_t *buf, const uint32_t *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		buf[4 * i] = (uint8_t)(w[i] >> 24);
		buf[4 * i + 1] = (uint8_t)(w[i] >> 16);
		buf[4 * i + 2] = (uint8_t)(w[i] >> 8);
		buf[4 * i + 3] = (uint8_t)w[i];
	}
	return 4 * n;
}

/* RFC 2203: only DATA with integrity or privacy wraps the body. */
START_TEST(gss_wrapped_bodies)
{
	/* xid CALL rpcvers prog vers proc | flavor len | v proc seq svc
	 * | ctx handle length, 4 bytes of it */
	uint32_t w[] = { 1, 0, 2, 100003, 3, 1, 6, 24, 1, 0, 5, 2, 4, 0xabcd };
	uint8_t buf[64];
	size_t n = call_bytes(buf, w, 14);
	unsigned int svc;

	for (svc = 0; svc <= 4; svc++) {
		w[11] = svc;
		n = call_bytes(buf, w, 14);
		ck_assert_int_eq(rpcrdma_call_wraps_body(buf, n),
				 svc == 2 || svc == 3);
	}
	w[11] = 3;
	n = call_bytes(buf, w, 14);
	/* short: everything up to the service word is needed */
	ck_assert(!rpcrdma_call_wraps_body(buf, 47));
	ck_assert(rpcrdma_call_wraps_body(buf, 48));
	ck_assert(!rpcrdma_call_wraps_body(NULL, n));
	/* context creation (INIT 1, CONTINUE_INIT 2) and DESTROY 3 carry
	 * no wrapped body */
	w[9] = 1;
	ck_assert(!rpcrdma_call_wraps_body(buf, call_bytes(buf, w, 14)));
	w[9] = 3;
	ck_assert(!rpcrdma_call_wraps_body(buf, call_bytes(buf, w, 14)));
	w[9] = 0;
	/* another flavour (AUTH_SYS 1) with the same words */
	w[6] = 1;
	ck_assert(!rpcrdma_call_wraps_body(buf, call_bytes(buf, w, 14)));
	w[6] = 6;
	/* a Reply (msg type 1), and a credential too short for the words */
	w[1] = 1;
	ck_assert(!rpcrdma_call_wraps_body(buf, call_bytes(buf, w, 14)));
	w[1] = 0;
	w[7] = 12;
	ck_assert(!rpcrdma_call_wraps_body(buf, call_bytes(buf, w, 14)));
}
END_TEST

/* Every RPCSEC_GSS Call, whatever its procedure, is one a threaded server
 * serializes per connection; nothing else is. */
START_TEST(gss_calls_serialized)
{
	uint32_t w[] = { 1, 0, 2, 100003, 3, 1, 6, 24, 1, 0, 5, 2, 4, 0xabcd };
	uint8_t buf[64];
	unsigned int gproc;

	for (gproc = 0; gproc <= 3; gproc++) {
		w[9] = gproc;
		ck_assert(rpcrdma_call_is_gss(buf, call_bytes(buf, w, 14)));
	}
	/* the flavour word is all it needs */
	ck_assert(rpcrdma_call_is_gss(buf, 28));
	ck_assert(!rpcrdma_call_is_gss(buf, 27));
	ck_assert(!rpcrdma_call_is_gss(NULL, 56));
	/* AUTH_NONE, AUTH_SYS, and a Reply */
	w[6] = 0;
	ck_assert(!rpcrdma_call_is_gss(buf, call_bytes(buf, w, 14)));
	w[6] = 1;
	ck_assert(!rpcrdma_call_is_gss(buf, call_bytes(buf, w, 14)));
	w[6] = 6;
	w[1] = 1;
	ck_assert(!rpcrdma_call_is_gss(buf, call_bytes(buf, w, 14)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rpc_rdma");
	TCase *rt = tcase_create("round_trip");
	TCase *wire = tcase_create("wire_bytes");
	TCase *bad = tcase_create("malformed");
	TCase *enc = tcase_create("encoder_limits");
	TCase *pd = tcase_create("private_data");
	SRunner *sr;
	int failed;

	tcase_add_test(rt, rt_msg_empty_lists);
	tcase_add_test(rt, rt_msg_with_body);
	tcase_add_test(rt, rt_read_list_positions);
	tcase_add_test(rt, rt_extreme_values);
	tcase_add_test(rt, rt_nomsg_position_zero);
	tcase_add_test(rt, rt_several_write_chunks);
	tcase_add_test(rt, rt_reply_chunk);
	tcase_add_test(rt, rt_all_together);
	tcase_add_test(rt, rt_every_bound_full);
	tcase_add_test(rt, rt_error_vers);
	tcase_add_test(rt, rt_error_chunk);
	tcase_add_test(rt, rt_unaligned_buffer);
	suite_add_tcase(s, rt);

	tcase_add_test(wire, wire_msg_header);
	tcase_add_test(wire, wire_error_headers);
	tcase_add_test(wire, wire_nomsg_reply_chunk);
	suite_add_tcase(s, wire);

	tcase_add_test(bad, bad_version);
	tcase_add_test(bad, short_below_xid);
	tcase_add_test(bad, short_below_fixed);
	tcase_add_test(bad, short_below_min);
	tcase_add_test(bad, bad_proc);
	tcase_add_test(bad, bad_msgp_well_formed);
	tcase_add_test(bad, bad_done);
	tcase_add_test(bad, bad_discriminator);
	tcase_add_test(bad, bad_count_overrun);
	tcase_add_test(bad, bad_zero_segment_chunk);
	tcase_add_test(bad, bad_nomsg_without_chunks);
	tcase_add_test(bad, bad_too_many_reads);
	tcase_add_test(bad, bad_too_many_write_chunks);
	tcase_add_test(bad, bad_too_many_chunk_segs);
	tcase_add_test(bad, bad_error_bodies);
	tcase_add_test(bad, truncated_everywhere);
	tcase_add_test(bad, random_garbage);
	tcase_add_test(bad, null_args);
	suite_add_tcase(s, bad);

	tcase_add_test(enc, enc_hdr_every_short_size);
	tcase_add_test(enc, enc_error_every_short_size);
	tcase_add_test(enc, enc_refuses_bad_headers);
	suite_add_tcase(s, enc);

	tcase_add_test(pd, pd_wire_and_round_trip);
	tcase_add_test(pd, pd_clamping);
	tcase_add_test(pd, pd_fit_to_offer);
	tcase_add_test(pd, pd_unrecognised);
	tcase_add_test(pd, pd_encode_short_buffer);
	tcase_add_test(pd, gss_wrapped_bodies);
	tcase_add_test(pd, gss_calls_serialized);
	suite_add_tcase(s, pd);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
