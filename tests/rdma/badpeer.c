/*
 * A hostile RPC-over-RDMA client: raw librdmacm/verbs, no librpcrdma.  It
 * connects to echo_server like a real client (RFC 8797 private data), then
 * sends one malformed transport header after another and checks, byte for
 * byte, the RDMA_ERROR RFC 8166 section 4.5 calls for, or the server's
 * silence.  After each one a well-formed RPC NULL Call must still be
 * answered, so the connection is proven to keep serving.  Chunks too:
 * Read chunks the server pulls from our memory (a Long Call, data items
 * with and without roundup), a Reply RDMA Written into our Reply chunk
 * and checked there, chunk lists no Call can have (ERR_CHUNK), and an RPC
 * Call of another rpcvers (MSG_DENIED / RPC_MISMATCH).  With -L, the
 * server's chunk limits instead (badpeer_limits.c; -C: the same Calls
 * against default limits, all served).  Ends with an ECHO_SHUTDOWN Call;
 * exits 0 only if every check passed.
 *
 * Good headers come from the library's codec (src/rpc_rdma.c, compiled in);
 * bad ones and every expected answer are written here as big-endian words.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"
#include "badpeer.h"
#include "lib_defaults.h"

static struct rdma_cm_id *bad_id;
static uint8_t *bad_rbuf, *bad_sbuf;
static struct ibv_mr *bad_rmr, *bad_smr;
uint8_t *bad_chunk, *bad_wchunk;
struct ibv_mr *bad_cmr, *bad_wmr;
uint32_t bad_xid = 0x62640000;	/* "bd" */
static int bad_failed, bad_checks;
static const char *bad_wrong;		/* BADPEER_WRONG: test of the test */

/* ---- building messages: big-endian words -------------------------------- */

void put_words(struct msg *m, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	while (n--)
		put32(m, va_arg(ap, uint32_t));
	va_end(ap);
}

/* An RPC Call of program ECHO, AUTH_NONE, no arguments (RFC 5531). */
void put_call(struct msg *m, uint32_t xid, uint32_t proc)
{
	put_words(m, 10, xid, 0u /* CALL */, 2u, ECHO_PROG, ECHO_VERS, proc,
	     0u, 0u /* cred AUTH_NONE */, 0u, 0u /* verf AUTH_NONE */);
}

/* A good RDMA_MSG header from the codec under test, at the start of m. */
void put_good_hdr(struct msg *m, struct rpcrdma_hdr *h)
{
	ssize_t n = rpcrdma_hdr_encode(m->m_buf + m->m_len,
				       sizeof(m->m_buf) - m->m_len, h);

	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	m->m_len += (size_t)n;
}

static void good_call(struct msg *m, uint32_t xid, uint32_t proc)
{
	struct rpcrdma_hdr h;

	memset(&h, 0, sizeof(h));
	h.hd_xid = xid;
	h.hd_credits = BAD_CREDITS;
	h.hd_proc = RPCRDMA_MSG;
	m->m_len = 0;
	put_good_hdr(m, &h);
	put_call(m, xid, proc);
}

/* ---- verbs: bounded waits --------------------------------------------- */

static void post_recv(uint64_t slot)
{
	if (rdma_post_recv(bad_id, (void *)(uintptr_t)slot,
			   bad_rbuf + slot * BAD_BUF, BAD_BUF, bad_rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

void send_msg(const struct msg *m)
{
	struct ibv_wc wc;

	memcpy(bad_sbuf, m->m_buf, m->m_len);
	if (rdma_post_send(bad_id, NULL, bad_sbuf, m->m_len, bad_smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	if (!poll_cq(bad_id->send_cq, &wc, BAD_WAIT_MS))
		die("no send completion within %d ms", BAD_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		die("send completion: %s", ibv_wc_status_str(wc.status));
}

/* The next received message into *m; 0 if nothing came in time. */
static int recv_msg(struct msg *m)
{
	struct ibv_wc wc;
	uint64_t slot;

	if (!poll_cq(bad_id->recv_cq, &wc, BAD_WAIT_MS))
		return 0;
	if (wc.status != IBV_WC_SUCCESS)
		die("receive completion: %s (the connection is gone)",
		    ibv_wc_status_str(wc.status));
	slot = wc.wr_id;
	if (slot >= BAD_NRECV || wc.byte_len > BAD_BUF)
		die("receive completion: slot %llu, %u bytes",
		    (unsigned long long)slot, wc.byte_len);
	m->m_len = wc.byte_len;
	memcpy(m->m_buf, bad_rbuf + slot * BAD_BUF, wc.byte_len);
	post_recv(slot);
	return 1;
}

/* ---- checks ------------------------------------------------------------ */

void result(int ok, const char *fmt, ...)
{
	va_list ap;

	bad_checks++;
	if (!ok)
		bad_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static uint32_t xid_of(const struct msg *m)
{
	uint32_t be = 0;

	if (m->m_len >= 4)
		memcpy(&be, m->m_buf, 4);
	return ntohl(be);
}

/*
 * Receive one message and compare it with want, every byte.  A message
 * with another xid (an answer to something that should have been dropped)
 * fails the check and is skipped, so later checks stay in step.  Nothing
 * at all within the wait ends the run: the server has stopped serving.
 */
void expect(const char *what, const struct msg *want)
{
	struct msg got;
	int ok, extra;

	for (extra = 0;; extra++) {
		if (!recv_msg(&got)) {
			result(0, "%s: nothing received within %d ms", what,
			       BAD_WAIT_MS);
			hexdump("expected", want);
			die("the server stopped answering");
		}
		if (xid_of(&got) == xid_of(want) || extra == 2)
			break;
		result(0, "%s: first an unexpected message", what);
		hexdump("expected", want);
		hexdump("received", &got);
	}
	/* The grant is by need (rpcrdma(7)): any from 1 to max_requests,
	 * never more; the rest must match byte for byte. */
	if (got.m_len >= 12 && want->m_len >= 12 &&
	    get32(got.m_buf + 8) >= 1 &&
	    get32(got.m_buf + 8) <= BAD_SRV_CREDITS)
		memcpy(got.m_buf + 8, want->m_buf + 8, 4);
	ok = got.m_len == want->m_len &&
	     !memcmp(got.m_buf, want->m_buf, want->m_len);
	result(ok, "%s", what);
	if (!ok) {
		hexdump("expected", want);
		hexdump("received", &got);
	}
}

/* Any Reply to xid, not RDMA_ERROR: served (the control runs of -L). */
void expect_served(const char *what, uint32_t xid)
{
	struct msg got;

	if (!recv_msg(&got)) {
		result(0, "%s: nothing received within %d ms", what, BAD_WAIT_MS);
		die("the server stopped answering");
	}
	result(xid_of(&got) == xid && got.m_len >= RPCRDMA_HDRLEN_FIXED &&
	       get32(got.m_buf + 12) != RPCRDMA_ERROR, "%s: served", what);
	if (xid_of(&got) != xid || get32(got.m_buf + 12) == RPCRDMA_ERROR)
		hexdump("received", &got);
}

/* The RDMA_MSG Reply to a NULL-like Call: no results, MSG_ACCEPTED/SUCCESS. */
void want_void_reply(struct msg *m, uint32_t xid)
{
	m->m_len = 0;
	put_words(m, 7, xid, 1u, (uint32_t)BAD_SRV_CREDITS, (uint32_t)RPCRDMA_MSG,
	     0u, 0u, 0u);
	put_words(m, 6, xid, 1u /* REPLY */, 0u /* MSG_ACCEPTED */,
	     0u, 0u /* verf AUTH_NONE */, 0u /* SUCCESS */);
}

void want_error(struct msg *m, uint32_t xid, uint32_t err)
{
	m->m_len = 0;
	put_words(m, 5, xid, 1u, (uint32_t)BAD_SRV_CREDITS, (uint32_t)RPCRDMA_ERROR,
	     err);
	if (err == RPCRDMA_ERR_VERS)
		put_words(m, 2, 1u, 1u);
	if (bad_wrong && !strcmp(bad_wrong, "vers") && err == RPCRDMA_ERR_VERS)
		m->m_buf[m->m_len - 1] = 2;	/* claim high version 2 */
}

/* A good NULL Call must still be served after what came before. */
void still_serving(const char *after)
{
	struct msg call, want;
	uint32_t xid = ++bad_xid;
	char what[160];

	good_call(&call, xid, ECHO_NULL);
	send_msg(&call);
	want_void_reply(&want, xid);
	snprintf(what, sizeof(what), "NULL call answered after %s", after);
	expect(what, &want);
}

/*
 * Send one bad message.  err 0: it must be dropped silently, so the next
 * message received must be the Reply to the NULL Call that follows it.
 */
void bad(const char *name, const struct msg *m, uint32_t xid,
		uint32_t err)
{
	struct msg want;
	char what[160];

	if (bad_wrong && !strcmp(bad_wrong, "silence") &&
	    err == RPCRDMA_ERR_VERS)
		err = 0;	/* pretend it should be dropped */
	send_msg(m);
	if (err) {
		want_error(&want, xid, err);
		snprintf(what, sizeof(what), "%s: %s", name,
			 err == RPCRDMA_ERR_VERS ? "ERR_VERS 1..1" : "ERR_CHUNK");
		expect(what, &want);
	} else {
		printf("# %s: sent, must be dropped without an answer\n", name);
	}
	still_serving(name);
}

/*
 * Send a well-formed Call the server must serve: its Reply is RDMA_MSG,
 * MSG_ACCEPTED/SUCCESS, then (for ECHO_BYTES) the opaque echoed inline.
 */
void good(const char *name, const struct msg *m, uint32_t xid,
		 const void *echo, uint32_t len)
{
	struct msg want;

	send_msg(m);
	want_void_reply(&want, xid);
	if (echo) {
		uint32_t padded = (len + 3) & ~3u;

		put32(&want, len);
		memset(want.m_buf + want.m_len, 0, padded);	/* roundup */
		memcpy(want.m_buf + want.m_len, echo, len);
		want.m_len += padded;
	}
	expect(name, &want);
	still_serving(name);
}

/*
 * ECHO_BYTES of n bytes as a Read chunk, offering a Reply chunk of cap
 * bytes in our writable region.  err 0: the Reply must come as RDMA_NOMSG
 * with the Reply chunk's length set to what was written, and the region
 * must hold the whole RPC Reply; else the answer is RDMA_ERROR err.
 */
void echo_big(uint32_t x, uint32_t n, uint32_t cap, uint32_t err)
{
	uint32_t rlen = 24 + 4 + ((n + 3) & ~3u), k, be;
	struct msg m, want;
	char what[96];
	int ok;

	for (k = 0; k < n; k++)
		bad_chunk[k] = (uint8_t)(k * 13 + 5);
	memset(bad_wchunk, 0xee, BAD_CHUNK);
	m.m_len = 0;
	put_words(&m, 4, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG);
	put_words(&m, 6, 1u, 44u, bad_cmr->rkey, n,
		  (uint32_t)((uintptr_t)bad_chunk >> 32),
		  (uint32_t)(uintptr_t)bad_chunk);
	put_words(&m, 2, 0u /* end of read list */, 0u /* no write list */);
	put_words(&m, 3, 1u /* a reply chunk */, 1u, bad_wmr->rkey);
	put_words(&m, 3, cap, (uint32_t)((uintptr_t)bad_wchunk >> 32),
		  (uint32_t)(uintptr_t)bad_wchunk);
	put_call(&m, x, 1u /* ECHO_BYTES */);
	put32(&m, n);
	send_msg(&m);
	if (err) {
		want_error(&want, x, err);
		snprintf(what, sizeof(what), "ECHO_BYTES %u, Reply chunk of %u: ERR_CHUNK",
			 n, cap);
		expect(what, &want);
		still_serving(what);
		return;
	}
	want.m_len = 0;
	put_words(&want, 8, x, 1u, (uint32_t)BAD_SRV_CREDITS, (uint32_t)RPCRDMA_NOMSG,
		  0u, 0u, 1u, 1u);
	put_words(&want, 4, bad_wmr->rkey, rlen,
		  (uint32_t)((uintptr_t)bad_wchunk >> 32),
		  (uint32_t)(uintptr_t)bad_wchunk);
	snprintf(what, sizeof(what), "ECHO_BYTES %u: RDMA_NOMSG, Reply chunk of %u bytes",
		 n, rlen);
	expect(what, &want);
	/* The Reply itself, RDMA Written into our region, nothing past it. */
	ok = 1;
	memcpy(&be, bad_wchunk, 4);
	ok &= ntohl(be) == x;
	memcpy(&be, bad_wchunk + 24, 4);
	ok &= ntohl(be) == n;
	for (k = 0; k < n && ok; k++)
		ok &= bad_wchunk[28 + k] == (uint8_t)(k * 13 + 5);
	ok &= bad_wchunk[rlen] == 0xee;
	result(ok, "ECHO_BYTES %u: the Reply chunk holds the whole Reply", n);
	still_serving(what);
}

/* ---- the malformed forms ------------------------------------------------ */

static void run_cases(void)
{
	struct rpcrdma_hdr h;
	struct msg m;
	uint32_t x;

	/* 1. rdma_vers 2 (section 4.5.1), carrying an otherwise fine Call. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 2u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG, 0u, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	bad("rdma_vers 2", &m, x, RPCRDMA_ERR_VERS);

	/* 1b. rdma_vers 0, and a huge one: still ERR_VERS, not ERR_CHUNK. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 0u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG, 0u, 0u, 0u);
	bad("rdma_vers 0", &m, x, RPCRDMA_ERR_VERS);
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 4, x, 0xffffffffu, (uint32_t)BAD_CREDITS, 0xffffffffu);
	bad("rdma_vers 0xffffffff, 16-byte header", &m, x, RPCRDMA_ERR_VERS);

	/* 2. Unknown rdma_proc (section 4.5.2). */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 1u, (uint32_t)BAD_CREDITS, 7u, 0u, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	bad("rdma_proc 7", &m, x, RPCRDMA_ERR_CHUNK);

	/* 3. The deprecated RDMA_MSGP (with align/thresh) and RDMA_DONE. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 9, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSGP,
	     0u, 0u, 0u, 8u /* rdma_align */, 1024u /* rdma_thresh */);
	put_call(&m, x, ECHO_NULL);
	bad("RDMA_MSGP", &m, x, RPCRDMA_ERR_CHUNK);
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 4, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_DONE);
	bad("RDMA_DONE", &m, x, RPCRDMA_ERR_CHUNK);

	/* 4. A read-list discriminator that is neither 0 nor 1. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG, 5u, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	bad("read list discriminator 5", &m, x, RPCRDMA_ERR_CHUNK);

	/* 5. A write chunk claiming 0xffffffff segments, carrying one. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 6, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG,
	     0u /* no reads */, 1u /* a write chunk */);
	put_words(&m, 5, 0xffffffffu, 0x1234u, 64u, 0u, 0x1000u);
	put_words(&m, 2, 0u /* end of write list */, 0u /* no reply chunk */);
	put_call(&m, x, ECHO_NULL);
	bad("write chunk of 0xffffffff segments", &m, x, RPCRDMA_ERR_CHUNK);

	/* 5b. A reply chunk of zero segments. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 8, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG,
	     0u, 0u, 1u /* reply chunk */, 0u /* of no segments */);
	put_call(&m, x, ECHO_NULL);
	bad("reply chunk of 0 segments", &m, x, RPCRDMA_ERR_CHUNK);

	/*
	 * 6. Read chunks the server pulls with RDMA Read from our memory:
	 * a position-zero chunk is RDMA_NOMSG's alone (ERR_CHUNK under
	 * RDMA_MSG); a Long Call (the whole NULL Call at position zero) and
	 * a data-item chunk at position 44 are served.
	 */
	{
		struct msg body;

		x = ++bad_xid;
		body.m_len = 0;
		put_call(&body, x, ECHO_NULL);
		memcpy(bad_chunk, body.m_buf, body.m_len);
		memset(&h, 0, sizeof(h));
		h.hd_xid = x;
		h.hd_credits = BAD_CREDITS;
		h.hd_proc = RPCRDMA_MSG;
		h.hd_nreads = 1;
		h.hd_reads[0].rd_position = 0;
		h.hd_reads[0].rd_seg.se_handle = bad_cmr->rkey;
		h.hd_reads[0].rd_seg.se_length = (uint32_t)body.m_len;
		h.hd_reads[0].rd_seg.se_offset = (uintptr_t)bad_chunk;
		m.m_len = 0;
		put_good_hdr(&m, &h);
		put_call(&m, x, ECHO_NULL);
		bad("RDMA_MSG with a position-zero read chunk", &m, x,
		    RPCRDMA_ERR_CHUNK);

		x = ++bad_xid;
		body.m_len = 0;
		put_call(&body, x, ECHO_NULL);
		memcpy(bad_chunk, body.m_buf, body.m_len);
		h.hd_xid = x;
		h.hd_proc = RPCRDMA_NOMSG;
		m.m_len = 0;
		put_good_hdr(&m, &h);
		good("RDMA_NOMSG Long Call (NULL at position zero)", &m, x, NULL, 0);

		/* ECHO_BYTES of 8 bytes: the opaque's data at XDR offset 44. */
		x = ++bad_xid;
		memcpy(bad_chunk, "8 bytes!", 8);
		h.hd_xid = x;
		h.hd_proc = RPCRDMA_MSG;
		h.hd_reads[0].rd_position = 44;
		h.hd_reads[0].rd_seg.se_length = 8;
		m.m_len = 0;
		put_good_hdr(&m, &h);
		put_call(&m, x, 1u /* ECHO_BYTES */);
		put32(&m, 8u);	/* the opaque's length; its data is read */
		good("RDMA_MSG with a read chunk at position 44", &m, x,
		     "8 bytes!", 8);

		/* 6 bytes: the Responder puts back the 2 bytes of roundup. */
		x = ++bad_xid;
		memcpy(bad_chunk, "6 byte", 6);
		h.hd_xid = x;
		h.hd_reads[0].rd_seg.se_length = 6;
		m.m_len = 0;
		put_good_hdr(&m, &h);
		put_call(&m, x, 1u);
		put32(&m, 6u);
		good("a 6-byte read chunk, roundup left out", &m, x, "6 byte", 6);

		/* 6000 bytes in, 6028 bytes of Reply: into our Reply chunk. */
		x = ++bad_xid;
		echo_big(x, 6000, BAD_CHUNK, 0);
		/* ... a Reply chunk 100 bytes short of it: ERR_CHUNK. */
		x = ++bad_xid;
		echo_big(x, 6000, 6028 - 100, RPCRDMA_ERR_CHUNK);
	}

	/* 6b. Read lists that cannot describe a Call: ERR_CHUNK, served on. */
	x = ++bad_xid;
	memset(&h, 0, sizeof(h));
	h.hd_xid = x;
	h.hd_credits = BAD_CREDITS;
	h.hd_proc = RPCRDMA_MSG;
	h.hd_nreads = 1;
	h.hd_reads[0].rd_position = 200;	/* past the 48 inline bytes */
	h.hd_reads[0].rd_seg.se_handle = bad_cmr->rkey;
	h.hd_reads[0].rd_seg.se_length = 8;
	h.hd_reads[0].rd_seg.se_offset = (uintptr_t)bad_chunk;
	m.m_len = 0;
	put_good_hdr(&m, &h);
	put_call(&m, x, 1u);
	put32(&m, 8u);
	bad("a read chunk past the message", &m, x, RPCRDMA_ERR_CHUNK);

	x = ++bad_xid;
	h.hd_xid = x;
	h.hd_proc = RPCRDMA_NOMSG;
	h.hd_reads[0].rd_position = 0;
	h.hd_reads[0].rd_seg.se_length = 0xfffffff0u;
	m.m_len = 0;
	put_good_hdr(&m, &h);
	bad("a 4 GiB read chunk", &m, x, RPCRDMA_ERR_CHUNK);

	x = ++bad_xid;
	h.hd_xid = x;
	h.hd_reads[0].rd_seg.se_length = 0x200;
	h.hd_reads[0].rd_seg.se_offset = 0xffffffffffffff00ull;
	m.m_len = 0;
	put_good_hdr(&m, &h);
	bad("a read segment whose address wraps", &m, x, RPCRDMA_ERR_CHUNK);

	x = ++bad_xid;
	h.hd_xid = x;
	h.hd_proc = RPCRDMA_MSG;
	h.hd_nreads = 2;
	h.hd_reads[0].rd_position = 44;
	h.hd_reads[0].rd_seg.se_length = 4;
	h.hd_reads[0].rd_seg.se_offset = (uintptr_t)bad_chunk;
	h.hd_reads[1] = h.hd_reads[0];
	h.hd_reads[1].rd_position = 40;		/* before the first */
	m.m_len = 0;
	put_good_hdr(&m, &h);
	put_call(&m, x, 1u);
	put32(&m, 4u);
	bad("read chunks in descending positions", &m, x, RPCRDMA_ERR_CHUNK);

	/* 17 read segments: one more than the server represents. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 4, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_NOMSG);
	for (int k = 0; k < 17; k++)
		put_words(&m, 6, 1u, 0u, bad_cmr->rkey, 4u, 0u, (uint32_t)k * 4);
	put_words(&m, 3, 0u, 0u, 0u);
	bad("17 read segments", &m, x, RPCRDMA_ERR_CHUNK);

	/* A Write chunk whose address wraps, beside a fine inline Call. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 6, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG,
	     0u /* no reads */, 1u /* a write chunk */);
	put_words(&m, 5, 1u, bad_wmr->rkey, 64u, 0xffffffffu, 0xfffffff0u);
	put_words(&m, 2, 0u, 0u);
	put_call(&m, x, ECHO_NULL);
	bad("a write segment whose address wraps", &m, x, RPCRDMA_ERR_CHUNK);

	/* 7. Shorter than the fixed header: cannot be attributed, dropped. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 3, x, 1u, (uint32_t)BAD_CREDITS);
	bad("12-byte message", &m, x, 0);

	/* 8. A good header over a body that is not an RPC Call: dropped. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG, 0u, 0u, 0u);
	put_words(&m, 6, x, 0xdeadbeefu, 0x0badf00du, 0xffffffffu, 0x12345678u, 3u);
	bad("RDMA_MSG over a garbage body", &m, x, 0);

	/* 8a. An RPC Call of rpcvers 3: MSG_DENIED / RPC_MISMATCH 2..2
	 * (RFC 5531 section 9), and the connection serves on. */
	{
		struct msg want;

		x = ++bad_xid;
		m.m_len = 0;
		put_words(&m, 7, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG,
			  0u, 0u, 0u);
		put_words(&m, 10, x, 0u /* CALL */, 3u /* rpcvers */, ECHO_PROG,
			  ECHO_VERS, ECHO_NULL, 0u, 0u, 0u, 0u);
		send_msg(&m);
		want.m_len = 0;
		put_words(&want, 7, x, 1u, (uint32_t)BAD_SRV_CREDITS,
			  (uint32_t)RPCRDMA_MSG, 0u, 0u, 0u);
		put_words(&want, 6, x, 1u /* REPLY */, 1u /* MSG_DENIED */,
			  0u /* RPC_MISMATCH */, 2u, 2u);
		expect("rpcvers 3: MSG_DENIED RPC_MISMATCH 2..2", &want);
		still_serving("rpcvers 3");
	}

	/* 8b. ... over no body at all, and over an RPC Reply. */
	x = ++bad_xid;
	m.m_len = 0;
	put_words(&m, 7, x, 1u, (uint32_t)BAD_CREDITS, (uint32_t)RPCRDMA_MSG, 0u, 0u, 0u);
	bad("RDMA_MSG with an empty body", &m, x, 0);
	x = ++bad_xid;
	want_void_reply(&m, x);
	bad("RDMA_MSG carrying an RPC Reply", &m, x, 0);
}

/* ---- connection ---------------------------------------------------------- */

static void init_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = BAD_NRECV;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static void register_buffers(void)
{
	uint64_t i;

	bad_rmr = rdma_reg_msgs(bad_id, bad_rbuf, (size_t)BAD_NRECV * BAD_BUF);
	bad_smr = rdma_reg_msgs(bad_id, bad_sbuf, BAD_BUF);
	bad_cmr = rdma_reg_read(bad_id, bad_chunk, BAD_CHUNK);
	bad_wmr = rdma_reg_write(bad_id, bad_wchunk, BAD_CHUNK);
	if (!bad_rmr || !bad_smr || !bad_cmr || !bad_wmr)
		die("memory registration: %s", strerror(errno));
	for (i = 0; i < BAD_NRECV; i++)
		post_recv(i);
}

static void release_buffers(void)
{
	rdma_dereg_mr(bad_rmr);
	rdma_dereg_mr(bad_smr);
	rdma_dereg_mr(bad_cmr);
	rdma_dereg_mr(bad_wmr);
}

/* Connect with our RFC 8797 offer; retry while the listener is not up. */
static void connect_server(const char *addr, const char *port,
			   const char *src, int timeout)
{
	int64_t deadline = now_ms() + (int64_t)timeout * 1000;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;

	/* magic, version 1, flags 0, send and receive size (4096/1024 - 1). */
	uint32_t magic = htonl(RPCRDMA_CM_MAGIC);
	memcpy(pdata, &magic, 4);
	pdata[4] = RPCRDMA_CM_VERSION;
	pdata[5] = 0;
	pdata[6] = BAD_BUF / 1024 - 1;
	pdata[7] = BAD_BUF / 1024 - 1;
	for (;;) {
		res = rawpeer_resolve(addr, port, src);
		init_qp_attr(&attr);
		if (rdma_create_ep(&bad_id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		register_buffers();	/* receives posted before connecting */
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!rdma_connect(bad_id, &param))
			return;
		printf("# connect: %s, retrying\n", strerror(errno));
		release_buffers();
		rdma_destroy_ep(bad_id);
		if (now_ms() >= deadline)
			die("could not connect to %s:%s in %d s", addr, port,
			    timeout);
		usleep(100 * 1000);
	}
}

/* The server's RFC 8797 answer: its magic, version 1, and its inline
 * sizes (the defaults, 65 KiB each way) fitted to our offer of BAD_BUF
 * (4 KiB) each way: its receive buffers no larger than our largest Send,
 * its Sends no larger than our receive buffers. */
static void check_server_private(void)
{
	struct rpcrdma_cm_private p;
	const uint8_t *pd = NULL;
	unsigned len = 0;

	if (bad_id->event) {
		pd = bad_id->event->param.conn.private_data;
		len = bad_id->event->param.conn.private_data_len;
	}
	if (len < RPCRDMA_CM_PRIVATE_LEN || !pd) {
		result(0, "server private data: %u bytes", len);
		return;
	}
	result(rpcrdma_cm_private_decode(pd, len, &p) == 0 &&
	       p.pv_send_size == BAD_BUF && BAD_BUF < TEST_INLINE_RECV_DEFAULT &&
	       p.pv_recv_size == BAD_BUF &&
	       pd[5] == 0,
	       "server private data %02x%02x%02x%02x %02x %02x %02x %02x",
	       pd[0], pd[1], pd[2], pd[3], pd[4], pd[5], pd[6], pd[7]);
}

static void usage(void)
{
	fprintf(stderr, "usage: badpeer -a SERVER -b SOURCE -p PORT [-t SECS] "
		"[-L BYTES,SEGS,CHUNKS [-C]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *port = NULL;
	int timeout = 60, c, limits = 0;
	struct bad_limits lim = { 0, 0, 0, 0 };
	struct msg call, want;
	uint32_t x;

	while ((c = getopt(argc, argv, "a:b:p:t:L:C")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = optarg; break;
		case 't': timeout = atoi(optarg); break;
		case 'L':
			limits = sscanf(optarg, "%u,%u,%u", &lim.bl_bytes,
					&lim.bl_segs, &lim.bl_chunks) == 3;
			if (!limits)
				usage();
			break;
		case 'C': lim.bl_control = 1; break;
		default: usage();
		}
	}
	if (!addr || !port || timeout <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	bad_wrong = getenv("BADPEER_WRONG");
	/* Nothing may hang: a blocked librdmacm call ends with SIGALRM. */
	alarm((unsigned)timeout + 30);
	bad_rbuf = calloc(BAD_NRECV, BAD_BUF);
	bad_sbuf = calloc(1, BAD_BUF);
	bad_chunk = calloc(1, BAD_CHUNK);
	bad_wchunk = calloc(1, BAD_CHUNK);
	if (!bad_rbuf || !bad_sbuf || !bad_chunk || !bad_wchunk)
		die("out of memory");

	connect_server(addr, port, src, timeout);
	check_server_private();
	still_serving("connecting");
	if (limits)
		run_limit_cases(&lim);
	else
		run_cases();

	/* Stop the server: its exit status is the other half of the test. */
	x = ++bad_xid;
	good_call(&call, x, ECHO_SHUTDOWN);
	send_msg(&call);
	want_void_reply(&want, x);
	expect("SHUTDOWN call answered", &want);

	rdma_disconnect(bad_id);
	release_buffers();
	rdma_destroy_ep(bad_id);
	free(bad_rbuf);
	free(bad_sbuf);
	free(bad_chunk);
	free(bad_wchunk);
	printf("%s: %d of %d checks failed\n", bad_failed ? "FAILED" : "passed",
	       bad_failed, bad_checks);
	return bad_failed ? 1 : 0;
}
