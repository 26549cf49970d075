/*
 * A misbehaving RPC-over-RDMA server: raw librdmacm/verbs, no librpcrdma.
 * It accepts one connection (answering with RFC 8797 private data) and
 * answers each Call by a script keyed on the Call's procedure number, so
 * badreply_client can prove the library's CLIENT survives bad Replies:
 *
 *   proc 1  (a) a version-2 transport header for the Call's xid,
 *           (b) 10 bytes of garbage, (c) a good Reply for another xid,
 *           (d) an RDMA_MSG header for the xid whose body is 4 bytes,
 *           then the good Reply.
 *   proc 5  (a), (b), (c), then the good Reply.
 *   proc 2  nothing: the client must time out.
 *   proc 3  RDMA_ERROR / ERR_CHUNK for the xid.
 *   proc 4  the good Reply; exit 0 once its Send has completed.
 *
 * Every Reply grants 32 credits (what the client asks).  Good headers come
 * from the library's codec (src/rpc_rdma.c, compiled in).
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

enum {
	BS_NRECV = 8,		/* receives kept posted */
	BS_BUF = RAWPEER_BUF,	/* each; offered both ways in the private data */
	BS_CREDITS = 32,	/* what the client asks, and what we grant */
	BS_WAIT_MS = 30000,	/* bounded wait for every completion */
};

static struct rdma_cm_id *bs_id;
static uint8_t *bs_rbuf, *bs_sbuf;
static struct ibv_mr *bs_rmr, *bs_smr;

/* ---- verbs: bounded waits --------------------------------------------- */

static void post_recv(uint64_t slot)
{
	if (rdma_post_recv(bs_id, (void *)(uintptr_t)slot,
			   bs_rbuf + slot * BS_BUF, BS_BUF, bs_rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

static void send_msg(const char *what, const struct msg *m)
{
	struct ibv_wc wc;

	hexdump(what, m);
	memcpy(bs_sbuf, m->m_buf, m->m_len);
	if (rdma_post_send(bs_id, NULL, bs_sbuf, m->m_len, bs_smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	if (!poll_cq(bs_id->send_cq, &wc, BS_WAIT_MS))
		die("%s: no send completion within %d ms", what, BS_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		die("%s: send completion: %s", what, ibv_wc_status_str(wc.status));
}

/* The next Call into *m; 0 when the client disconnected. */
static int recv_msg(struct msg *m)
{
	struct ibv_wc wc;
	uint64_t slot;

	if (!poll_cq(bs_id->recv_cq, &wc, BS_WAIT_MS))
		die("no Call within %d ms", BS_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS) {
		printf("# receive completion: %s (the client is gone)\n",
		       ibv_wc_status_str(wc.status));
		return 0;
	}
	slot = wc.wr_id;
	if (slot >= BS_NRECV || wc.byte_len > BS_BUF)
		die("receive completion: slot %llu, %u bytes",
		    (unsigned long long)slot, wc.byte_len);
	m->m_len = wc.byte_len;
	memcpy(m->m_buf, bs_rbuf + slot * BS_BUF, wc.byte_len);
	post_recv(slot);
	return 1;
}

/* ---- messages ----------------------------------------------------------- */

static void good_hdr(struct msg *m, uint32_t xid)
{
	struct rpcrdma_hdr h;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.hd_xid = xid;
	h.hd_credits = BS_CREDITS;
	h.hd_proc = RPCRDMA_MSG;
	m->m_len = 0;
	n = rpcrdma_hdr_encode(m->m_buf, sizeof(m->m_buf), &h);
	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	m->m_len = (size_t)n;
}

/* RDMA_MSG + accepted, AUTH_NONE verifier, SUCCESS, void results. */
static void good_reply(struct msg *m, uint32_t xid)
{
	good_hdr(m, xid);
	put32(m, xid);
	put32(m, 1);		/* REPLY */
	put32(m, 0);		/* MSG_ACCEPTED */
	put32(m, 0);		/* verf AUTH_NONE */
	put32(m, 0);		/* verf length */
	put32(m, 0);		/* SUCCESS */
}

/* (a), (b), (c): nothing the client can hand to the waiting call. */
static void send_garbage(uint32_t xid)
{
	struct msg m;
	uint32_t be;
	static const uint8_t junk[10] = { 0xde, 0xad, 0xbe, 0xef, 0x01,
					  0x02, 0x03, 0x04, 0x05, 0x06 };

	/* (a) a good Reply for our xid, but rdma_vers 2: never delivered. */
	good_reply(&m, xid);
	be = htonl(2);
	memcpy(m.m_buf + 4, &be, 4);
	send_msg("(a) version-2 header, our xid", &m);

	/* (b) shorter than the fixed header. */
	memcpy(m.m_buf, junk, sizeof(junk));
	m.m_len = sizeof(junk);
	send_msg("(b) 10 bytes of garbage", &m);

	/* (c) a well-formed Reply nobody asked for. */
	good_reply(&m, xid ^ 0x5a5a0000u);
	send_msg("(c) good Reply, other xid", &m);
}

static int serve_call(const struct msg *c)
{
	struct rpcrdma_hdr h;
	const uint8_t *rpc;
	uint32_t xid, proc;
	struct msg m;
	ssize_t n;
	int rc;

	hexdump("Call", c);
	rc = rpcrdma_hdr_decode(c->m_buf, c->m_len, &h);
	if (rc || h.hd_proc != RPCRDMA_MSG)
		die("Call: transport header decode %d, proc %u", rc, h.hd_proc);
	if (c->m_len < h.hd_hdrlen + 24)
		die("Call: RPC header truncated (%zu bytes)", c->m_len);
	rpc = c->m_buf + h.hd_hdrlen;
	xid = h.hd_xid;
	if (get32(rpc) != xid || get32(rpc + 4) != 0 || get32(rpc + 8) != 2)
		die("Call: bad RPC header (xid %#x, msg type %u, rpcvers %u)",
		    get32(rpc), get32(rpc + 4), get32(rpc + 8));
	proc = get32(rpc + 20);
	printf("# Call xid %#x proc %u, credits asked %u\n", xid, proc,
	       h.hd_credits);

	switch (proc) {
	case 1:
		send_garbage(xid);
		/* (d) a good transport header, but 4 bytes of RPC message. */
		good_hdr(&m, xid);
		put32(&m, xid);
		send_msg("(d) RDMA_MSG with a 4-byte body, our xid", &m);
		good_reply(&m, xid);
		send_msg("good Reply", &m);
		return 1;
	case 5:
		send_garbage(xid);
		good_reply(&m, xid);
		send_msg("good Reply", &m);
		return 1;
	case 2:
		printf("# proc 2: no answer\n");
		return 1;
	case 3:
		n = rpcrdma_encode_error(m.m_buf, sizeof(m.m_buf), xid,
					 BS_CREDITS, RPCRDMA_ERR_CHUNK);
		if (n < 0)
			die("rpcrdma_encode_error: %zd", n);
		m.m_len = (size_t)n;
		send_msg("RDMA_ERROR ERR_CHUNK", &m);
		return 1;
	case 4:
		good_reply(&m, xid);
		send_msg("good Reply, last", &m);
		return 0;
	default:
		die("proc %u is not in the script", proc);
	}
	return 0;
}

/* ---- connection --------------------------------------------------------- */

static void init_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 8;
	attr->cap.max_recv_wr = BS_NRECV;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static void listen_on(const char *addr, const char *port, const char *ready,
		      struct rdma_cm_id **listen_idp)
{
	struct rdma_addrinfo hints, *res;
	struct rdma_cm_id *listen_id;
	FILE *f;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo %s:%s: %s", addr, port, strerror(errno));
	if (rdma_create_ep(&listen_id, res, NULL, NULL))
		die("rdma_create_ep (listen): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 1))
		die("rdma_listen: %s", strerror(errno));
	f = fopen(ready, "w");
	if (!f || fclose(f))
		die("cannot create %s", ready);
	printf("# listening on %s:%s\n", addr, port);
	*listen_idp = listen_id;
}

/* Accept the next connection; a refused accept waits for another. */
static void accept_next(struct rdma_cm_id *listen_id)
{
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	struct rpcrdma_cm_private peer;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	uint64_t i;

	if (rpcrdma_cm_private_encode(pdata, sizeof(pdata), BS_BUF, BS_BUF,
				      false) < 0)
		die("rpcrdma_cm_private_encode");

	/* A half-failed attempt under emulation: serve the next one. */
	for (;;) {
		if (rdma_get_request(listen_id, &bs_id))
			die("rdma_get_request: %s", strerror(errno));
		rpcrdma_cm_private_decode(bs_id->event->param.conn.private_data,
					  bs_id->event->param.conn.private_data_len,
					  &peer);
		printf("# client offers send %u recv %u\n", peer.pv_send_size,
		       peer.pv_recv_size);
		init_qp_attr(&attr);
		if (rdma_create_qp(bs_id, NULL, &attr))
			die("rdma_create_qp: %s", strerror(errno));
		bs_rmr = rdma_reg_msgs(bs_id, bs_rbuf, (size_t)BS_NRECV * BS_BUF);
		bs_smr = rdma_reg_msgs(bs_id, bs_sbuf, BS_BUF);
		if (!bs_rmr || !bs_smr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < BS_NRECV; i++)
			post_recv(i);
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.rnr_retry_count = 7;
		if (!rdma_accept(bs_id, &param))
			break;
		printf("# rdma_accept: %s; waiting for the next attempt\n",
		       strerror(errno));
		rdma_dereg_mr(bs_rmr);
		rdma_dereg_mr(bs_smr);
		rdma_destroy_ep(bs_id);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: badserver -a ADDR -p PORT -r READYFILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL;
	struct rdma_cm_id *listen_id;
	struct msg call;
	int c, more = 1, served = 0;

	rawpeer_name = "badserver";
	while ((c = getopt(argc, argv, "a:p:r:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		default: usage();
		}
	}
	if (!addr || !port || !ready)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Nothing may hang: a blocked librdmacm call ends with SIGALRM. */
	alarm(100);
	bs_rbuf = calloc(BS_NRECV, BS_BUF);
	bs_sbuf = calloc(1, BS_BUF);
	if (!bs_rbuf || !bs_sbuf)
		die("out of memory");

	listen_on(addr, port, ready, &listen_id);
	accept_next(listen_id);
	while (more) {
		if (!recv_msg(&call)) {
			if (served)
				die("the client left before proc 4");
			/* The attempt died before its first Call (the client
			 * retries): take the next connection. */
			rdma_dereg_mr(bs_rmr);
			rdma_dereg_mr(bs_smr);
			rdma_destroy_ep(bs_id);
			accept_next(listen_id);
			continue;
		}
		served = 1;
		more = serve_call(&call);
	}
	/* Let the client take proc 4's Reply before we go: siw completes a
	 * Send once TCP has it, and closing at once can lose it on the way
	 * (the client then saw a dead connection, not the Reply).  Until the
	 * client leaves (our receives flush), 5 s at most. */
	{
		struct ibv_wc wc;

		poll_cq(bs_id->recv_cq, &wc, 5000);
	}
	rdma_disconnect(bs_id);
	rdma_dereg_mr(bs_rmr);
	rdma_dereg_mr(bs_smr);
	rdma_destroy_ep(bs_id);
	rdma_destroy_ep(listen_id);
	free(bs_rbuf);
	free(bs_sbuf);
	printf("badserver: ok\n");
	return 0;
}
