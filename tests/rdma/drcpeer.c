/*
 * A raw-verbs client that retransmits as a client does after a lost
 * connection: the same Call (xid, arguments) again on a new connection,
 * from a new source port, with chunks of its own.  Against echo_server's
 * counter program (drc_prog.h) it reports how many times the procedure
 * ran and checks the Replies:
 *   -m once      a Call, its Reply, disconnect, the same Call again on a
 *                new connection: -e 1 expects the first Reply again (the
 *                duplicate request cache), -e 2 a second execution (none);
 *   -m inprog    the same Call on a second connection while the first
 *                copy still runs (ms 3000): no Reply to the copy, the
 *                first copy's Reply, then the copy once more: the kept one;
 *   -m gss       the Call with an RPCSEC_GSS credential (RFC 2203: DATA,
 *                a context handle the server never made, a made-up MIC),
 *                then again on a new connection with the next sequence
 *                number, as a client retransmits: each must be refused
 *                (AUTH_ERROR, RPCSEC_GSS_CREDPROBLEM) and run nothing, the
 *                second never answered from the cache (the case checks
 *                its hits); then an RPCSEC_GSS_INIT whose token is
 *                garbage: refused (AUTH_ERROR), the server standing.
 * -k inline|reply|write: the Reply inline (small), in a Reply chunk, or
 * its data placed in a Write chunk (-n bytes of results).  -S shuts the
 * server down at the end.  Exits 0 only if every check passed.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"
#define DRC_PEER
#include "drc_prog.h"

enum {
	DP_NRECV = 8,
	DP_CHUNK = 128 << 10,	/* the Reply or Write chunk offered */
	DP_WAIT_MS = 20000,
};

#define ECHO_PROG	0x20049001u
#define ECHO_SHUTDOWN	4u

/* A Reply's RPC message: in the receive (copied) or in the chunk. */
struct rpcmsg {
	const uint8_t *p;
	size_t len;
	uint8_t inl[RAWPEER_BUF];
};

struct conn {
	struct rdma_cm_id *id;
	uint8_t *rbuf, *sbuf, *chunk;
	struct ibv_mr *rmr, *smr, *cmr;
};

static const char *dp_addr, *dp_port, *dp_src;
static int dp_failed, dp_checks;
static char dp_kind = 'i';	/* inline, reply, write */

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	dp_checks++;
	if (!ok)
		dp_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void post_recv(struct conn *c, uint64_t slot)
{
	if (rdma_post_recv(c->id, (void *)(uintptr_t)slot,
			   c->rbuf + slot * RAWPEER_BUF, RAWPEER_BUF, c->rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

/* Connect with an RFC 8797 offer of 4 KiB each way; a chunk buffer the
 * server may write (a new rkey on every connection). */
static void conn_open(struct conn *c)
{
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	uint32_t magic = htonl(RPCRDMA_CM_MAGIC);
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	uint64_t i;

	memset(c, 0, sizeof(*c));
	memcpy(pdata, &magic, 4);
	pdata[4] = RPCRDMA_CM_VERSION;
	pdata[5] = 0;
	pdata[6] = pdata[7] = RAWPEER_BUF / 1024 - 1;
	res = rawpeer_resolve(dp_addr, dp_port, dp_src);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = 16;
	attr.cap.max_recv_wr = DP_NRECV;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&c->id, res, NULL, &attr))
		die("rdma_create_ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	c->rbuf = calloc(DP_NRECV, RAWPEER_BUF);
	c->sbuf = calloc(1, RAWPEER_BUF);
	c->chunk = calloc(1, DP_CHUNK);
	if (!c->rbuf || !c->sbuf || !c->chunk)
		die("out of memory");
	c->rmr = rdma_reg_msgs(c->id, c->rbuf, (size_t)DP_NRECV * RAWPEER_BUF);
	c->smr = rdma_reg_msgs(c->id, c->sbuf, RAWPEER_BUF);
	c->cmr = ibv_reg_mr(c->id->pd, c->chunk, DP_CHUNK,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->rmr || !c->smr || !c->cmr)
		die("memory registration: %s", strerror(errno));
	for (i = 0; i < DP_NRECV; i++)
		post_recv(c, i);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(c->id, &param))
		die("could not connect to %s:%s: %s", dp_addr, dp_port,
		    strerror(errno));
}

static void conn_close(struct conn *c)
{
	rdma_disconnect(c->id);
	rdma_dereg_mr(c->rmr);
	rdma_dereg_mr(c->smr);
	ibv_dereg_mr(c->cmr);
	rdma_destroy_ep(c->id);
	free(c->rbuf);
	free(c->sbuf);
	free(c->chunk);
	c->id = NULL;
}

/* A transport header for an RDMA_MSG of xid: no chunks yet. */
static void msg_hdr(struct rpcrdma_hdr *h, uint32_t xid)
{
	memset(h, 0, sizeof(*h));
	h->hd_xid = xid;
	h->hd_vers = RPCRDMA_VERSION;
	h->hd_credits = 8;
	h->hd_proc = RPCRDMA_MSG;
}

/* Send h, then the RPC words w (nw) and args (nargs words); wait for the
 * Send to complete. */
static void post_call(struct conn *c, const struct rpcrdma_hdr *h,
		      const uint32_t *w, size_t nw, const uint32_t *args,
		      int nargs)
{
	struct msg m = { .m_len = 0 };
	struct ibv_wc wc;
	ssize_t n;
	size_t i;

	n = rpcrdma_hdr_encode(m.m_buf, sizeof(m.m_buf), h);
	if (n < 0)
		die("header encode: %zd", n);
	m.m_len = (size_t)n;
	for (i = 0; i < nw; i++)
		put32(&m, w[i]);
	for (i = 0; i < (size_t)nargs; i++)
		put32(&m, args[i]);
	memcpy(c->sbuf, m.m_buf, m.m_len);
	if (rdma_post_send(c->id, NULL, c->sbuf, m.m_len, c->smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	if (!poll_cq(c->id->send_cq, &wc, DP_WAIT_MS) || wc.status)
		die("Send of xid %#x failed", h->hd_xid);
}

/*
 * Send a Call of prog/proc with args (nargs words) and xid, offering the
 * chunk -k says for its Reply.  The server's credits are not tracked:
 * we never have more than two Calls out.
 */
static void send_call(struct conn *c, uint32_t xid, uint32_t prog,
		      uint32_t proc, const uint32_t *args, int nargs, int chunk)
{
	uint32_t w[] = { xid, 0 /* CALL */, 2, prog, 1, proc, 0, 0, 0, 0 };
	struct rpcrdma_hdr h;

	msg_hdr(&h, xid);
	memset(c->chunk, 0, DP_CHUNK);
	if (chunk && dp_kind == 'r') {
		h.hd_has_reply = true;
		h.hd_reply.rc_nsegs = 1;
		h.hd_reply.rc_segs[0] = (struct rpcrdma_segment){
			c->cmr->rkey, DP_CHUNK, (uintptr_t)c->chunk };
	} else if (chunk && dp_kind == 'w') {
		h.hd_nwrites = 1;
		h.hd_writes[0].rc_nsegs = 1;
		h.hd_writes[0].rc_segs[0] = (struct rpcrdma_segment){
			c->cmr->rkey, DP_CHUNK, (uintptr_t)c->chunk };
	}
	post_call(c, &h, w, sizeof(w) / sizeof(w[0]), args, nargs);
}

/*
 * A Call of prog/proc whose credential is RPCSEC_GSS (RFC 2203 5.3.1):
 * procedure gproc, sequence seq, service none, a 4-byte context handle
 * and a 16-byte verifier no context made; for INIT (gproc 1) no handle
 * and an AUTH_NONE verifier.  args (nargs words) follow.  Inline.
 */
static void send_gss_call(struct conn *c, uint32_t xid, uint32_t prog,
			  uint32_t proc, uint32_t gproc, uint32_t seq,
			  const uint32_t *args, int nargs)
{
	int init = gproc == 1;
	uint32_t w[] = {
		xid, 0 /* CALL */, 2, prog, 1, proc,
		6 /* RPCSEC_GSS */, init ? 20 : 24,
		1 /* version */, gproc, seq, 1 /* none */, init ? 0 : 4,
		/* DATA: the handle, then the verifier; INIT: AUTH_NONE's */
		init ? 0 : 0x5eedc0de, init ? 0 : 6, init ? 0 : 16,
		0x11111111, 0x22222222, 0x33333333, 0x44444444,
	};
	struct rpcrdma_hdr h;

	msg_hdr(&h, xid);
	post_call(c, &h, w, init ? 15 : sizeof(w) / sizeof(w[0]), args, nargs);
}

/*
 * The Reply to xid within ms, its RPC message copied into *rpc (from
 * the Reply chunk for RDMA_NOMSG); *written the Write chunk's length.
 * 1 on a Reply, 0 none in time.
 */
static int get_reply(struct conn *c, uint32_t xid, int ms,
		     struct rpcmsg *rpc, uint32_t *written)
{
	struct rpcrdma_hdr h;
	struct ibv_wc wc;
	struct msg m;
	uint32_t i, len = 0;

	*written = 0;
	for (;;) {
		if (!poll_cq(c->id->recv_cq, &wc, ms))
			return 0;
		if (wc.status != IBV_WC_SUCCESS)
			die("receive failed: %s", ibv_wc_status_str(wc.status));
		m.m_len = wc.byte_len;
		memcpy(m.m_buf, c->rbuf + wc.wr_id * RAWPEER_BUF, wc.byte_len);
		post_recv(c, wc.wr_id);
		if (rpcrdma_hdr_decode(m.m_buf, m.m_len, &h))
			die("undecodable Reply header");
		if (h.hd_xid == xid)
			break;
		printf("# a Reply to xid %#x while waiting for %#x\n", h.hd_xid, xid);
	}
	if (h.hd_proc == RPCRDMA_NOMSG) {
		for (i = 0; i < h.hd_reply.rc_nsegs; i++)
			len += h.hd_reply.rc_segs[i].se_length;
		if (!h.hd_has_reply || len > DP_CHUNK)
			die("RDMA_NOMSG without a usable Reply chunk (%u bytes)", len);
		rpc->p = c->chunk;
		rpc->len = len;
	} else if (h.hd_proc == RPCRDMA_MSG) {
		rpc->len = m.m_len - h.hd_hdrlen;
		memcpy(rpc->inl, m.m_buf + h.hd_hdrlen, rpc->len);
		rpc->p = rpc->inl;
		if (h.hd_nwrites)
			*written = h.hd_writes[0].rc_segs[0].se_length;
	} else {
		hexdump("not a Reply", &m);
		die("RDMA proc %u for xid %#x", h.hd_proc, xid);
	}
	printf("# xid %#x: %s, %zu bytes of RPC Reply%s\n", xid,
	       h.hd_proc == RPCRDMA_NOMSG ? "Reply chunk" : "inline",
	       rpc->len, *written ? ", data by Write chunk" : "");
	return 1;
}

/* An accepted Reply's first result word at *res; its body past it at *body. */
static int accepted(const struct rpcmsg *rpc, uint32_t xid, uint32_t *res,
		    size_t *body)
{
	if (rpc->len < 24 || get32(rpc->p) != xid ||
	    get32(rpc->p + 4) != 1 || get32(rpc->p + 8) != 0 ||
	    get32(rpc->p + 16) != 0 || get32(rpc->p + 20) != 0) {
		printf("# unexpected Reply to xid %#x, %zu bytes\n", xid, rpc->len);
		return -1;
	}
	*res = rpc->len >= 28 ? get32(rpc->p + 24) : 0;
	*body = 28;
	return 0;
}

static uint32_t get_count(struct conn *c, uint32_t xid)
{
	struct rpcmsg rpc;
	uint32_t n, written;
	size_t at;

	send_call(c, xid, DRC_PROG, DRC_PROC_GET, NULL, 0, 0);
	if (!get_reply(c, xid, DP_WAIT_MS, &rpc, &written) ||
	    accepted(&rpc, xid, &n, &at))
		die("COUNT_GET not answered");
	return n;
}

/* A COUNT_ADD Reply: its count, its data checked against the pattern of
 * that count (from the Reply, or from the Write chunk). */
static int add_reply(struct conn *c, uint32_t xid, int ms, uint32_t bytes,
		     uint32_t *count)
{
	struct rpcmsg rpc;
	uint32_t written, len, i;
	const uint8_t *data;
	size_t at;

	if (!get_reply(c, xid, ms, &rpc, &written))
		return 0;
	if (accepted(&rpc, xid, count, &at) || rpc.len < at + 4)
		die("COUNT_ADD Reply unusable");
	len = get32(rpc.p + at);
	data = written ? c->chunk : rpc.p + at + 4;
	if (len != bytes || (written && written != bytes) ||
	    (!written && rpc.len < at + 4 + bytes))
		die("COUNT_ADD Reply: %u bytes of data (written %u), %u expected",
		    len, written, bytes);
	for (i = 0; i < bytes; i++)
		if (data[i] != DRC_PATTERN(*count, i))
			die("COUNT_ADD Reply: byte %u is %#x, count %u's is %#x", i,
			    data[i], *count, DRC_PATTERN(*count, i));
	if (dp_kind == 'r' && bytes > 1024)
		result(rpc.p == c->chunk, "the Reply came in the Reply chunk");
	if (dp_kind == 'w' && bytes > 1024)
		result(written == bytes, "the data came in the Write chunk");
	return 1;
}

static void once(uint32_t bytes, int expect)
{
	uint32_t xid = 0x64720000u + (uint32_t)(getpid() & 0xffff) * 16;
	uint32_t args[2] = { 0, bytes }, base, first, again, end;
	struct conn a, b;

	conn_open(&a);
	base = get_count(&a, xid + 1);
	send_call(&a, xid, DRC_PROG, DRC_PROC_ADD, args, 2, 1);
	if (!add_reply(&a, xid, DP_WAIT_MS, bytes, &first))
		die("no Reply to the first copy");
	/* The connection is lost; the client connects again and sends the
	 * same Call (same xid, same arguments). */
	conn_close(&a);
	conn_open(&b);
	send_call(&b, xid, DRC_PROG, DRC_PROC_ADD, args, 2, 1);
	if (!add_reply(&b, xid, DP_WAIT_MS, bytes, &again))
		die("no Reply to the retransmission");
	end = get_count(&b, xid + 2);
	printf("drcpeer: executions %u; first Reply count %u, retransmission's %u\n",
	       end - base, first, again);
	result(end - base == (uint32_t)expect, "the procedure ran %u time(s), "
	       "expected %d", end - base, expect);
	if (expect == 1)
		result(again == first, "the retransmission got the first Reply "
		       "(count %u)", again);
	else
		result(again == first + 1, "the retransmission ran again "
		       "(count %u after %u)", again, first);
	conn_close(&b);
}

/* The copy arrives while the first still runs (a threaded server). */
static void inprog(uint32_t bytes)
{
	uint32_t xid = 0x64730000u + (uint32_t)(getpid() & 0xffff) * 16;
	uint32_t args[2] = { 3000, bytes }, base, first, again, end;
	struct conn a, b;
	int got;

	(void)again;
	conn_open(&a);
	conn_open(&b);
	base = get_count(&a, xid + 1);
	send_call(&a, xid, DRC_PROG, DRC_PROC_ADD, args, 2, 1);
	usleep(500 * 1000);	/* it reached the server: it sleeps 3 s */
	send_call(&b, xid, DRC_PROG, DRC_PROC_ADD, args, 2, 1);
	got = add_reply(&b, xid, 1500, bytes, &again);
	result(!got, "no Reply to the copy while the first runs");
	if (!add_reply(&a, xid, DP_WAIT_MS, bytes, &first))
		die("no Reply to the first copy");
	/* Nothing more comes for the copy on b: it was dropped. */
	got = add_reply(&b, xid, 1000, bytes, &again);
	result(!got, "the dropped copy stays unanswered");
	/* Sent again once the first is done: the kept Reply. */
	args[0] = 3000;
	send_call(&b, xid, DRC_PROG, DRC_PROC_ADD, args, 2, 1);
	if (!add_reply(&b, xid, DP_WAIT_MS, bytes, &again))
		die("no Reply to the third copy");
	end = get_count(&b, xid + 2);
	printf("drcpeer: executions %u; first Reply count %u, third copy's %u\n",
	       end - base, first, again);
	result(end - base == 1, "the procedure ran %u time(s), expected 1",
	       end - base);
	result(again == first, "the third copy got the first Reply (count %u)",
	       again);
	conn_close(&a);
	conn_close(&b);
}

/* An RPC Reply denied for AUTH_ERROR: its reason, else -1. */
static int auth_error(const struct rpcmsg *rpc, uint32_t xid)
{
	if (rpc->len < 20 || get32(rpc->p) != xid || get32(rpc->p + 4) != 1 ||
	    get32(rpc->p + 8) != 1 /* MSG_DENIED */ ||
	    get32(rpc->p + 12) != 1 /* AUTH_ERROR */)
		return -1;
	return (int)get32(rpc->p + 16);
}

/* RPCSEC_GSS Calls no context was made for: refused, never run, never
 * answered from the duplicate request cache (svc_drc.c). */
static void gss(uint32_t bytes)
{
	uint32_t xid = 0x64750000u + (uint32_t)(getpid() & 0xffff) * 16;
	uint32_t args[2] = { 0, bytes }, base, end, written;
	uint32_t token[1 + 16] = { 64 };
	struct rpcmsg rpc;
	struct conn a, b;
	int why, i;

	conn_open(&a);
	base = get_count(&a, xid + 1);
	send_gss_call(&a, xid, DRC_PROG, DRC_PROC_ADD, 0 /* DATA */, 1, args, 2);
	why = get_reply(&a, xid, DP_WAIT_MS, &rpc, &written) ?
	      auth_error(&rpc, xid) : -2;
	result(why == 13, "an unknown context is refused: AUTH_ERROR, "
	       "RPCSEC_GSS_CREDPROBLEM (why %d)", why);
	/* The client lost the connection and sends it again: the same xid
	 * and arguments, the next sequence number (RFC 2203 5.3.3.1). */
	conn_close(&a);
	conn_open(&b);
	send_gss_call(&b, xid, DRC_PROG, DRC_PROC_ADD, 0, 2, args, 2);
	why = get_reply(&b, xid, DP_WAIT_MS, &rpc, &written) ?
	      auth_error(&rpc, xid) : -2;
	result(why == 13, "its retransmission is refused afresh (why %d)", why);
	/* A context creation whose token is 64 bytes of garbage. */
	for (i = 1; i <= 16; i++)
		token[i] = 0xdeadbeefu ^ (uint32_t)i * 0x01010101u;
	send_gss_call(&b, xid + 3, DRC_PROG, 0, 1 /* INIT */, 0, token, 17);
	why = get_reply(&b, xid + 3, DP_WAIT_MS, &rpc, &written) ?
	      auth_error(&rpc, xid + 3) : -2;
	result(why > 0, "a mangled INIT token is refused: AUTH_ERROR (why %d)",
	       why);
	end = get_count(&b, xid + 2);
	printf("drcpeer: executions %u of refused RPCSEC_GSS Calls\n",
	       end - base);
	result(end == base, "no refused Call ran (%u executions)", end - base);
	conn_close(&b);
}

static void shutdown_server(void)
{
	struct conn c;
	struct rpcmsg rpc;
	uint32_t written, res;
	size_t at;

	conn_open(&c);
	send_call(&c, 0x64740001u, ECHO_PROG, ECHO_SHUTDOWN, NULL, 0, 0);
	result(get_reply(&c, 0x64740001u, DP_WAIT_MS, &rpc, &written) == 1 &&
	       !accepted(&rpc, 0x64740001u, &res, &at), "SHUTDOWN answered");
	conn_close(&c);
}

int main(int argc, char **argv)
{
	const char *mode = "once";
	uint32_t bytes = 100;
	int expect = 1, shutdown = 0, c;

	while ((c = getopt(argc, argv, "a:b:p:m:k:n:e:S")) != -1) {
		switch (c) {
		case 'a': dp_addr = optarg; break;
		case 'b': dp_src = optarg; break;
		case 'p': dp_port = optarg; break;
		case 'm': mode = optarg; break;
		case 'k': dp_kind = optarg[0]; break;
		case 'n': bytes = (uint32_t)atoi(optarg); break;
		case 'e': expect = atoi(optarg); break;
		case 'S': shutdown = 1; break;
		default:
			fprintf(stderr, "usage: drcpeer -a SERVER -b SOURCE -p PORT "
				"[-m once|inprog|gss] [-k inline|reply|write] [-n BYTES] "
				"[-e EXECUTIONS] [-S]\n");
			return 2;
		}
	}
	if (!dp_addr || !dp_port || bytes > DRC_PROG_MAX_BYTES)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "drcpeer";
	alarm(200);
	if (!strcmp(mode, "once"))
		once(bytes, expect);
	else if (!strcmp(mode, "inprog"))
		inprog(bytes);
	else if (!strcmp(mode, "gss"))
		gss(bytes);
	else
		die("unknown mode %s", mode);
	if (shutdown)
		shutdown_server();
	printf("%s: %d of %d checks failed\n", dp_failed ? "FAILED" : "passed",
	       dp_failed, dp_checks);
	return dp_failed ? 1 : 0;
}
