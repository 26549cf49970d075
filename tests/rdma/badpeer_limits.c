/*
 * badpeer -L: a server started under lowered chunk limits (max_chunk_bytes,
 * max_chunk_segs, max_chunks).  Exactly at every limit a Call is served
 * and checked byte for byte; one over any of them draws ERR_CHUNK, and
 * the connection keeps serving.  Prints how many Calls went over, for the
 * caller to match against the server's rs_chunk_limit.  Each Call "over"
 * is otherwise one the server serves: -C sends them all to a server with
 * the default limits, and each must be answered.
 */
#include "config.h"
#include <string.h>
#include "badpeer.h"

static int over_sent, control;

/* Segment i of total bytes cut into n: equal parts, the rest in the last. */
static uint32_t part(uint32_t total, uint32_t n, uint32_t i)
{
	return total / n + (i == n - 1 ? total % n : 0);
}

static void put_seg(struct msg *m, uint32_t rkey, uint32_t len, const uint8_t *at)
{
	put_words(m, 4, rkey, len, (uint32_t)((uintptr_t)at >> 32),
		  (uint32_t)(uintptr_t)at);
}

/* A read list entry at pos: bytes from bad_chunk + off. */
static void put_read(struct msg *m, uint32_t pos, uint32_t len, uint32_t off)
{
	put_words(m, 2, 1u, pos);
	put_seg(m, bad_cmr->rkey, len, bad_chunk + off);
}

/* A chunk of nsegs segments of len bytes each, into bad_wchunk. */
static void put_wchunk(struct msg *m, uint32_t nsegs, uint32_t len)
{
	uint32_t i;

	put32(m, nsegs);
	for (i = 0; i < nsegs; i++)
		put_seg(m, bad_wmr->rkey, len, bad_wchunk + (size_t)i * len);
}

static void fixed(struct msg *m, uint32_t x, uint32_t proc)
{
	m->m_len = 0;
	put_words(m, 4, x, 1u, (uint32_t)BAD_CREDITS, proc);
}

/* ECHO_BYTES whose n bytes of data are a read chunk at position 44. */
static void put_echo(struct msg *m, uint32_t x, uint32_t n)
{
	put_call(m, x, ECHO_BYTES);
	put32(m, n);
}

/* One over a limit: ERR_CHUNK (-C: served), then a NULL Call served. */
static void over(const char *name, const struct msg *m, uint32_t x)
{
	over_sent++;
	if (!control) {
		bad(name, m, x, RPCRDMA_ERR_CHUNK);
		return;
	}
	send_msg(m);
	expect_served(name, x);
	still_serving(name);
}

/*
 * At every limit at once: ECHO_BYTES of max_chunk_bytes in one Read chunk
 * of max_chunk_segs segments, with one Write chunk of as many segments
 * for the result.  The Reply is RDMA_MSG; the Write chunk's lengths say
 * what the server wrote, the data is in our memory and the rest inline.
 */
static void at_limits(const struct bad_limits *lim)
{
	uint32_t b = lim->bl_bytes, s = lim->bl_segs, x = ++bad_xid, i, off = 0;
	struct msg m, want;
	char what[128];
	int ok = 1;

	for (i = 0; i < b; i++)
		bad_chunk[i] = (uint8_t)(i * 29 + 3);
	memset(bad_wchunk, 0xee, BAD_CHUNK);
	fixed(&m, x, RPCRDMA_MSG);
	for (i = 0; i < s; off += part(b, s, i), i++)
		put_read(&m, 44, part(b, s, i), off);
	put_words(&m, 2, 0u /* end of read list */, 1u /* a write chunk */);
	put32(&m, s);
	for (i = 0, off = 0; i < s; off += part(b, s, i), i++)
		put_seg(&m, bad_wmr->rkey, part(b, s, i), bad_wchunk + off);
	put_words(&m, 2, 0u /* end of write list */, 0u /* no reply chunk */);
	put_echo(&m, x, b);
	send_msg(&m);

	want.m_len = 0;
	put_words(&want, 7, x, 1u, (uint32_t)BAD_SRV_CREDITS, (uint32_t)RPCRDMA_MSG,
		  0u, 1u, s);
	for (i = 0, off = 0; i < s; off += part(b, s, i), i++)
		put_seg(&want, bad_wmr->rkey, part(b, s, i), bad_wchunk + off);
	put_words(&want, 2, 0u, 0u);
	put_words(&want, 6, x, 1u /* REPLY */, 0u, 0u, 0u, 0u /* SUCCESS */);
	put32(&want, b);		/* the opaque's length; its data was written */
	snprintf(what, sizeof(what), "ECHO_BYTES %u in a Read chunk of %u segments, "
		 "result in a Write chunk of %u: RDMA_MSG", b, s, s);
	expect(what, &want);
	for (i = 0; i < b && ok; i++)
		ok = bad_wchunk[i] == (uint8_t)(i * 29 + 3);
	ok &= bad_wchunk[b] == 0xee;
	result(ok, "the Write chunk holds the %u bytes, nothing past them", b);
	still_serving(what);
}

void run_limit_cases(const struct bad_limits *lim)
{
	uint32_t b = lim->bl_bytes, s = lim->bl_segs, c = lim->bl_chunks, x, i, off;
	struct msg m, call;

	/* Room for one over each in our buffers and in the codec's arrays;
	 * Replies of about b bytes that need a Reply chunk. */
	control = lim->bl_control;
	if (s < 1 || s >= RPCRDMA_MAX_CHUNK_SEGS || c < 1 ||
	    c >= RPCRDMA_MAX_WRITE_CHUNKS || b + 4 > BAD_CHUNK ||
	    b < BAD_BUF + 64 || b % 4)
		die("-L %u,%u,%u: cannot test these limits here", b, s, c);

	at_limits(lim);

	/* A Read chunk of one segment too many, 4 bytes each: the Reply
	 * fits inline. */
	x = ++bad_xid;
	fixed(&m, x, RPCRDMA_MSG);
	for (i = 0; i <= s; i++)
		put_read(&m, 44, 4, 4 * i);
	put_words(&m, 3, 0u, 0u, 0u);
	put_echo(&m, x, 4 * (s + 1));
	over("a Read chunk of max_chunk_segs + 1 segments", &m, x);

	/* One XDR word over max_chunk_bytes of Read chunk: a Long Call of
	 * b + 4 bytes in max_chunk_segs segments, its Reply (b - 12 bytes)
	 * into a Reply chunk. */
	x = ++bad_xid;
	call.m_len = 0;
	put_echo(&call, x, b - 40);
	if (call.m_len != 44)
		die("ECHO_BYTES Call header of %zu bytes", call.m_len);
	memcpy(bad_chunk, call.m_buf, call.m_len);
	fixed(&m, x, RPCRDMA_NOMSG);
	for (i = 0, off = 0; i < s; off += part(b + 4, s, i), i++)
		put_read(&m, 0, part(b + 4, s, i), off);
	put_words(&m, 3, 0u, 0u, 1u);
	put_wchunk(&m, 1, BAD_CHUNK);
	over("max_chunk_bytes + 4 in Read chunks", &m, x);

	/* max_chunks + 1 Read chunks of 4 bytes each. */
	x = ++bad_xid;
	fixed(&m, x, RPCRDMA_MSG);
	for (i = 0; i <= c; i++)
		put_read(&m, 44 + 4 * i, 4, 4 * i);
	put_words(&m, 3, 0u, 0u, 0u);
	put_echo(&m, x, 4);
	over("max_chunks + 1 Read chunks", &m, x);

	/* max_chunks + 1 Write chunks beside an inline NULL Call. */
	x = ++bad_xid;
	fixed(&m, x, RPCRDMA_MSG);
	put32(&m, 0u);
	for (i = 0; i <= c; i++) {
		put32(&m, 1u);
		put_wchunk(&m, 1, 64);
	}
	put_words(&m, 2, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	over("max_chunks + 1 Write chunks", &m, x);

	/* A Write chunk, then a Reply chunk, of max_chunk_segs + 1 segments. */
	x = ++bad_xid;
	fixed(&m, x, RPCRDMA_MSG);
	put_words(&m, 2, 0u, 1u);
	put_wchunk(&m, s + 1, 64);
	put_words(&m, 2, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	over("a Write chunk of max_chunk_segs + 1 segments", &m, x);
	x = ++bad_xid;
	fixed(&m, x, RPCRDMA_MSG);
	put_words(&m, 3, 0u, 0u, 1u);
	put_wchunk(&m, s + 1, 64);
	put_call(&m, x, ECHO_NULL);
	over("a Reply chunk of max_chunk_segs + 1 segments", &m, x);

	/* What one Reply writes: exactly max_chunk_bytes into the Reply
	 * chunk (24 bytes of RPC header, 4 of length, the data), then 4
	 * bytes more. */
	echo_big(++bad_xid, b - 28, BAD_CHUNK, 0);
	over_sent++;
	echo_big(++bad_xid, b - 24, BAD_CHUNK, control ? 0 : RPCRDMA_ERR_CHUNK);

	printf("badpeer: %d Calls over the limits\n", over_sent);
}
