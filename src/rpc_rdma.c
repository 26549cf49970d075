/*
 * RPC-over-RDMA Version 1 transport header codec and RFC 8797 private
 * data.  Decoding trusts nothing from the wire: every count is checked
 * against the bytes actually received, in 64-bit arithmetic, before use.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "rpc_rdma.h"

/*
 * A read cursor over the received bytes.  Reads go through memcpy so the
 * buffer may sit at any alignment, and each read checks what is left,
 * so a short buffer becomes -EBADMSG rather than an overrun.
 */
struct rd {
	const uint8_t *base;
	size_t len;
	size_t off;			/* always <= len */
};

static size_t rd_left(const struct rd *r)
{
	return r->len - r->off;
}

static int rd_u32(struct rd *r, uint32_t *v)
{
	const uint8_t *p;

	if (rd_left(r) < 4)
		return -EBADMSG;
	p = r->base + r->off;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	     (uint32_t)p[2] << 8 | (uint32_t)p[3];
	r->off += 4;
	return 0;
}

static int rd_u64(struct rd *r, uint64_t *v)
{
	uint32_t hi = 0, lo = 0;
	int rc;

	if (rd_left(r) < 8)
		return -EBADMSG;
	rc = rd_u32(r, &hi);
	if (!rc)
		rc = rd_u32(r, &lo);
	*v = (uint64_t)hi << 32 | lo;
	return rc;
}

/*
 * XDR optional-data / list discriminators are booleans; anything but 0
 * or 1 is an XDR error, not "present" (RFC 4506 section 4.4).
 */
static int rd_bool(struct rd *r, bool *present)
{
	uint32_t v;
	int rc = rd_u32(r, &v);

	if (rc)
		return rc;
	if (v > 1)
		return -EBADMSG;
	*present = v == 1;
	return 0;
}

static int rd_segment(struct rd *r, struct rpcrdma_segment *seg)
{
	int rc;

	rc = rd_u32(r, &seg->se_handle);
	if (!rc)
		rc = rd_u32(r, &seg->se_length);
	if (!rc)
		rc = rd_u64(r, &seg->se_offset);
	return rc;
}

/*
 * A write or reply chunk is a counted array.  The count is checked
 * against our bound and against the bytes remaining before any segment
 * is read; count * 16 is done in 64 bits, so 0xffffffff cannot wrap
 * into a small number that passes.
 */
static int rd_chunk(struct rd *r, struct rpcrdma_chunk *ch)
{
	uint32_t n, i;
	int rc;

	rc = rd_u32(r, &n);
	if (rc)
		return rc;
	if (n == 0 || n > RPCRDMA_MAX_CHUNK_SEGS)
		return -EBADMSG;
	if ((uint64_t)n * RPCRDMA_SEGMENT_SIZE > (uint64_t)rd_left(r))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		rc = rd_segment(r, &ch->rc_segs[i]);
		if (rc)
			return rc;
	}
	ch->rc_nsegs = n;
	return 0;
}

static int rd_read_list(struct rd *r, struct rpcrdma_hdr *h)
{
	struct rpcrdma_read_segment *rs;
	bool more;
	int rc;

	for (;;) {
		rc = rd_bool(r, &more);
		if (rc || !more)
			return rc;
		if (h->hd_nreads == RPCRDMA_MAX_READ_SEGS)
			return -EBADMSG;
		rs = &h->hd_reads[h->hd_nreads];
		rc = rd_u32(r, &rs->rd_position);
		if (!rc)
			rc = rd_segment(r, &rs->rd_seg);
		if (rc)
			return rc;
		h->hd_nreads++;
	}
}

static int rd_write_list(struct rd *r, struct rpcrdma_hdr *h)
{
	bool more;
	int rc;

	for (;;) {
		rc = rd_bool(r, &more);
		if (rc || !more)
			return rc;
		if (h->hd_nwrites == RPCRDMA_MAX_WRITE_CHUNKS)
			return -EBADMSG;
		rc = rd_chunk(r, &h->hd_writes[h->hd_nwrites]);
		if (rc)
			return rc;
		h->hd_nwrites++;
	}
}

static int rd_reply_chunk(struct rd *r, struct rpcrdma_hdr *h)
{
	bool present;
	int rc;

	rc = rd_bool(r, &present);
	if (rc || !present)
		return rc;
	rc = rd_chunk(r, &h->hd_reply);
	if (!rc)
		h->hd_has_reply = true;
	return rc;
}

static int rd_error_body(struct rd *r, struct rpcrdma_hdr *h)
{
	int rc;

	rc = rd_u32(r, &h->hd_err);
	if (rc)
		return rc;
	switch (h->hd_err) {
	case RPCRDMA_ERR_VERS:
		rc = rd_u32(r, &h->hd_vers_low);
		if (!rc)
			rc = rd_u32(r, &h->hd_vers_high);
		return rc;
	case RPCRDMA_ERR_CHUNK:
		return 0;
	default:
		return -EBADMSG;
	}
}

/* Why not memset (rpc_rdma.h): 1.6 KiB for every message, mostly
 * segments that nothing reads past their count. */
void rpcrdma_hdr_clear(struct rpcrdma_hdr *h)
{
	unsigned int i;

	h->hd_xid = h->hd_vers = h->hd_credits = h->hd_proc = 0;
	h->hd_nreads = h->hd_nwrites = 0;
	for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		h->hd_writes[i].rc_nsegs = 0;
	h->hd_has_reply = false;
	h->hd_reply.rc_nsegs = 0;
	h->hd_err = h->hd_vers_low = h->hd_vers_high = 0;
	h->hd_hdrlen = 0;
}

int rpcrdma_hdr_decode(const void *buf, size_t len, struct rpcrdma_hdr *h)
{
	struct rd r = { .base = buf, .len = len, .off = 0 };
	int rc;

	if (!h)
		return -EINVAL;
	rpcrdma_hdr_clear(h);
	if (!buf)
		return -EINVAL;

	if (len < RPCRDMA_HDRLEN_FIXED) {
		/* Keep the xid for a log line, but it cannot be answered. */
		if (len >= 4)
			(void)rd_u32(&r, &h->hd_xid);
		return -ENODATA;
	}
	/* len >= 16, so none of these four reads can fail. */
	(void)rd_u32(&r, &h->hd_xid);
	(void)rd_u32(&r, &h->hd_vers);
	(void)rd_u32(&r, &h->hd_credits);
	(void)rd_u32(&r, &h->hd_proc);

	/* Only the shared prefix may be interpreted before the version. */
	if (h->hd_vers != RPCRDMA_VERSION)
		return -EPROTONOSUPPORT;

	switch (h->hd_proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		rc = rd_read_list(&r, h);
		if (!rc)
			rc = rd_write_list(&r, h);
		if (!rc)
			rc = rd_reply_chunk(&r, h);
		/* RFC 8166 4.5.3: an RDMA_NOMSG with no chunk is an XDR error. */
		if (!rc && h->hd_proc == RPCRDMA_NOMSG && !h->hd_nreads &&
		    !h->hd_nwrites && !h->hd_has_reply)
			rc = -EBADMSG;
		break;
	case RPCRDMA_ERROR:
		rc = rd_error_body(&r, h);
		break;
	default:
		/* RDMA_MSGP, RDMA_DONE and anything unknown. */
		rc = -EBADMSG;
		break;
	}
	if (rc) {
		/* Don't hand back half-filled lists that look usable. */
		h->hd_nreads = 0;
		h->hd_nwrites = 0;
		h->hd_has_reply = false;
		return rc;
	}
	h->hd_hdrlen = r.off;
	return 0;
}

/* ---- encoding ----------------------------------------------------------- */

static uint8_t *wr_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static uint8_t *wr_segment(uint8_t *p, const struct rpcrdma_segment *seg)
{
	p = wr_u32(p, seg->se_handle);
	p = wr_u32(p, seg->se_length);
	p = wr_u32(p, (uint32_t)(seg->se_offset >> 32));
	return wr_u32(p, (uint32_t)seg->se_offset);
}

static uint8_t *wr_chunk(uint8_t *p, const struct rpcrdma_chunk *ch)
{
	uint32_t i;

	p = wr_u32(p, ch->rc_nsegs);
	for (i = 0; i < ch->rc_nsegs; i++)
		p = wr_segment(p, &ch->rc_segs[i]);
	return p;
}

static bool chunk_ok(const struct rpcrdma_chunk *ch)
{
	return ch->rc_nsegs >= 1 && ch->rc_nsegs <= RPCRDMA_MAX_CHUNK_SEGS;
}

/*
 * Refuse to encode anything our own decoder would answer with ERR_CHUNK,
 * so a bug on our side shows up here instead of as a peer's error.
 */
ssize_t rpcrdma_hdr_size(const struct rpcrdma_hdr *h)
{
	size_t n = RPCRDMA_HDRLEN_MIN;
	uint32_t i;

	if (!h || (h->hd_proc != RPCRDMA_MSG && h->hd_proc != RPCRDMA_NOMSG))
		return -EINVAL;
	if (h->hd_nreads > RPCRDMA_MAX_READ_SEGS ||
	    h->hd_nwrites > RPCRDMA_MAX_WRITE_CHUNKS)
		return -EINVAL;
	if (h->hd_proc == RPCRDMA_NOMSG && !h->hd_nreads && !h->hd_nwrites &&
	    !h->hd_has_reply)
		return -EINVAL;

	n += (size_t)h->hd_nreads * (4 + RPCRDMA_READ_SEGMENT_SIZE);
	for (i = 0; i < h->hd_nwrites; i++) {
		if (!chunk_ok(&h->hd_writes[i]))
			return -EINVAL;
		n += 4 + 4 + (size_t)h->hd_writes[i].rc_nsegs *
			RPCRDMA_SEGMENT_SIZE;
	}
	if (h->hd_has_reply) {
		if (!chunk_ok(&h->hd_reply))
			return -EINVAL;
		n += 4 + (size_t)h->hd_reply.rc_nsegs * RPCRDMA_SEGMENT_SIZE;
	}
	return (ssize_t)n;
}

ssize_t rpcrdma_hdr_encode(void *buf, size_t len, const struct rpcrdma_hdr *h)
{
	ssize_t need = rpcrdma_hdr_size(h);
	uint8_t *p = buf;
	uint32_t i;

	if (need < 0)
		return need;
	if (!buf)
		return -EINVAL;
	if (len < (size_t)need)
		return -EMSGSIZE;

	p = wr_u32(p, h->hd_xid);
	p = wr_u32(p, RPCRDMA_VERSION);
	p = wr_u32(p, h->hd_credits);
	p = wr_u32(p, h->hd_proc);

	for (i = 0; i < h->hd_nreads; i++) {
		p = wr_u32(p, 1);
		p = wr_u32(p, h->hd_reads[i].rd_position);
		p = wr_segment(p, &h->hd_reads[i].rd_seg);
	}
	p = wr_u32(p, 0);

	for (i = 0; i < h->hd_nwrites; i++) {
		p = wr_u32(p, 1);
		p = wr_chunk(p, &h->hd_writes[i]);
	}
	p = wr_u32(p, 0);

	if (h->hd_has_reply) {
		p = wr_u32(p, 1);
		p = wr_chunk(p, &h->hd_reply);
	} else {
		p = wr_u32(p, 0);
	}
	return p - (uint8_t *)buf;
}

ssize_t rpcrdma_encode_error(void *buf, size_t len, uint32_t xid,
			     uint32_t credits, uint32_t err)
{
	size_t need;
	uint8_t *p = buf;

	switch (err) {
	case RPCRDMA_ERR_VERS:
		need = RPCRDMA_HDRLEN_ERR_VERS;
		break;
	case RPCRDMA_ERR_CHUNK:
		need = RPCRDMA_HDRLEN_ERR_CHUNK;
		break;
	default:
		return -EINVAL;
	}
	if (!buf)
		return -EINVAL;
	if (len < need)
		return -EMSGSIZE;

	p = wr_u32(p, xid);
	p = wr_u32(p, RPCRDMA_VERSION);
	p = wr_u32(p, credits);
	p = wr_u32(p, RPCRDMA_ERROR);
	p = wr_u32(p, err);
	if (err == RPCRDMA_ERR_VERS) {
		p = wr_u32(p, RPCRDMA_VERSION);	/* lowest we support */
		p = wr_u32(p, RPCRDMA_VERSION);	/* highest we support */
	}
	return p - (uint8_t *)buf;
}

/* ---- RFC 8797 private data --------------------------------------------- */

/*
 * One octet holds size/1024 - 1.  Clamp first so out-of-range sizes
 * saturate instead of wrapping (e.g. 512 KiB must not become 255 + 256).
 */
static uint8_t cm_size_encode(uint32_t size)
{
	if (size < RPCRDMA_CM_MIN_INLINE)
		size = RPCRDMA_CM_MIN_INLINE;
	if (size > RPCRDMA_CM_MAX_INLINE)
		size = RPCRDMA_CM_MAX_INLINE;
	return (uint8_t)(size / 1024 - 1);
}

static uint32_t cm_size_decode(uint8_t v)
{
	return ((uint32_t)v + 1) * 1024;
}

ssize_t rpcrdma_cm_private_encode(void *buf, size_t len, uint32_t send_size,
				  uint32_t recv_size, bool remote_inv)
{
	uint8_t *p = buf;

	if (!buf)
		return -EINVAL;
	if (len < RPCRDMA_CM_PRIVATE_LEN)
		return -EMSGSIZE;
	p = wr_u32(p, RPCRDMA_CM_MAGIC);
	p[0] = RPCRDMA_CM_VERSION;
	p[1] = remote_inv ? RPCRDMA_CM_F_REMOTE_INV : 0;	/* rest reserved */
	p[2] = cm_size_encode(send_size);
	p[3] = cm_size_encode(recv_size);
	return RPCRDMA_CM_PRIVATE_LEN;
}

int rpcrdma_cm_private_decode(const void *buf, size_t len,
			      struct rpcrdma_cm_private *p)
{
	struct rd r = { .base = buf, .len = len, .off = 0 };
	const uint8_t *b = buf;
	uint32_t magic = 0;

	p->pv_send_size = RPCRDMA_DEFAULT_INLINE;
	p->pv_recv_size = RPCRDMA_DEFAULT_INLINE;
	p->pv_remote_inv = false;

	if (!buf || len < RPCRDMA_CM_PRIVATE_LEN)
		return -ENOMSG;
	if (rd_u32(&r, &magic) || magic != RPCRDMA_CM_MAGIC || b[4] != RPCRDMA_CM_VERSION)
		return -ENOMSG;
	/* Reserved flag bits are ignored on receipt. */
	p->pv_remote_inv = (b[5] & RPCRDMA_CM_F_REMOTE_INV) != 0;
	p->pv_send_size = cm_size_decode(b[6]);
	p->pv_recv_size = cm_size_decode(b[7]);
	return 0;
}

/* Why receive buffers only on an offer: a peer without one may be sloppy
 * about RFC 8166's 1 KiB, and the kernel's server fits only then too. */
void rpcrdma_cm_fit(const struct rpcrdma_cm_private *peer, bool offered,
		    uint32_t *send_size, uint32_t *recv_size)
{
	if (peer->pv_recv_size < *send_size)
		*send_size = peer->pv_recv_size;
	if (offered && peer->pv_send_size < *recv_size)
		*recv_size = peer->pv_send_size;
}

/* RFC 2203: flavor RPCSEC_GSS 6; rpc_gss_cred_vers_1_t body: version,
 * gss_proc (DATA 0), seq_num, service (none 1, integrity 2, privacy 3). */
#define RPC_FLAVOR_GSS		6u
#define RPC_GSS_PROC_DATA	0u
#define RPC_GSS_SVC_INTEGRITY	2u
#define RPC_GSS_SVC_PRIVACY	3u

static uint32_t call_word(const uint8_t *p, unsigned int i)
{
	p += 4 * i;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

bool rpcrdma_call_wraps_body(const void *call, size_t len)
{
	const uint8_t *p = call;
	uint32_t svc;

	/* xid, CALL, rpcvers, prog, vers, proc, flavor, length, then the
	 * credential's version, gss_proc, seq_num and service: 12 words. */
	if (!p || len < 12 * 4 || call_word(p, 1) != 0 /* CALL */ ||
	    call_word(p, 6) != RPC_FLAVOR_GSS || call_word(p, 7) < 4 * 4 ||
	    call_word(p, 9) != RPC_GSS_PROC_DATA)
		return false;
	svc = call_word(p, 11);
	return svc == RPC_GSS_SVC_INTEGRITY || svc == RPC_GSS_SVC_PRIVACY;
}

bool rpcrdma_call_is_gss(const void *call, size_t len)
{
	const uint8_t *p = call;

	/* xid, CALL, rpcvers, prog, vers, proc, then the flavour. */
	return p && len >= 7 * 4 && call_word(p, 1) == 0 /* CALL */ &&
	       call_word(p, 6) == RPC_FLAVOR_GSS;
}
