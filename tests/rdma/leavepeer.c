/*
 * A raw-verbs RPC-over-RDMA server (no librpcrdma) for clnt_leave: it
 * answers some Calls, never answers others, and leaves right after a
 * Reply, so the CLIENT's teardown of abandoned calls and its handling of
 * a Reply that arrives just before a disconnect can be checked.  Each
 * connection is served in turn; by the Call's RPC procedure:
 *
 *   proc 4  a good Reply (void results), granting 32 credits;
 *   proc 2  never answered; so is every RDMA_NOMSG Call (a Long Call,
 *           whose RPC header is not inline);
 *   proc 7  a good Reply; once its Send completed, rdma_disconnect at
 *           once, and the next connection is accepted;
 *   proc 9  a good Reply; exit 0 once the client has left, or after 5 s
 *           (a raw peer on rxe may not see it leave: no flush).
 *
 * The private data offers a 1 KiB receive (-i BYTES to change), so a
 * Call of a few KiB copied into the client's scratch goes in Read chunks.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"

enum {
	LP_NRECV = 40,		/* over the 32 credits we grant */
	LP_BUF = RAWPEER_BUF,
	LP_CREDITS = 32,
	LP_WAIT_MS = 60000,
};

static struct rdma_cm_id *lp_id;
static uint8_t *lp_rbuf, *lp_sbuf;
static struct ibv_mr *lp_rmr, *lp_smr;
static uint32_t lp_inline = 1024;

static void post_recv(uint64_t slot)
{
	if (rdma_post_recv(lp_id, (void *)(uintptr_t)slot,
			   lp_rbuf + slot * LP_BUF, LP_BUF, lp_rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

static void send_reply(uint32_t xid)
{
	struct rpcrdma_hdr h;
	struct msg m;
	struct ibv_wc wc;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.hd_xid = xid;
	h.hd_credits = LP_CREDITS;
	h.hd_proc = RPCRDMA_MSG;
	m.m_len = 0;
	n = rpcrdma_hdr_encode(m.m_buf, sizeof(m.m_buf), &h);
	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	m.m_len = (size_t)n;
	put32(&m, xid);
	put32(&m, 1);		/* REPLY */
	put32(&m, 0);		/* MSG_ACCEPTED */
	put32(&m, 0);		/* verf AUTH_NONE */
	put32(&m, 0);
	put32(&m, 0);		/* SUCCESS */
	memcpy(lp_sbuf, m.m_buf, m.m_len);
	if (rdma_post_send(lp_id, NULL, lp_sbuf, m.m_len, lp_smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	if (!poll_cq(lp_id->send_cq, &wc, LP_WAIT_MS))
		die("no send completion within %d ms", LP_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		die("send completion: %s", ibv_wc_status_str(wc.status));
}

static void init_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 8;
	attr->cap.max_recv_wr = LP_NRECV;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static void accept_next(struct rdma_cm_id *listen_id)
{
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	uint64_t i;

	if (rpcrdma_cm_private_encode(pdata, sizeof(pdata), LP_BUF, lp_inline,
				      false) < 0)
		die("rpcrdma_cm_private_encode");
	for (;;) {
		if (rdma_get_request(listen_id, &lp_id))
			die("rdma_get_request: %s", strerror(errno));
		init_qp_attr(&attr);
		if (rdma_create_qp(lp_id, NULL, &attr))
			die("rdma_create_qp: %s", strerror(errno));
		lp_rmr = rdma_reg_msgs(lp_id, lp_rbuf, (size_t)LP_NRECV * LP_BUF);
		lp_smr = rdma_reg_msgs(lp_id, lp_sbuf, LP_BUF);
		if (!lp_rmr || !lp_smr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < LP_NRECV; i++)
			post_recv(i);
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.rnr_retry_count = 7;
		if (!rdma_accept(lp_id, &param))
			return;
		printf("# rdma_accept: %s; waiting for the next attempt\n",
		       strerror(errno));
		rdma_dereg_mr(lp_rmr);
		rdma_dereg_mr(lp_smr);
		rdma_destroy_ep(lp_id);
	}
}

static void drop_conn(void)
{
	rdma_disconnect(lp_id);
	rdma_dereg_mr(lp_rmr);
	rdma_dereg_mr(lp_smr);
	rdma_destroy_ep(lp_id);
	lp_id = NULL;
}

/* The next Call's xid and procedure; 0 when the client left. */
static int next_call(uint32_t *xid, uint32_t *proc, int *nomsg)
{
	struct rpcrdma_hdr h;
	struct ibv_wc wc;
	const uint8_t *p;
	int rc;

	if (!poll_cq(lp_id->recv_cq, &wc, LP_WAIT_MS))
		die("no Call within %d ms", LP_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		return 0;
	if (wc.wr_id >= LP_NRECV || wc.byte_len > LP_BUF)
		die("receive completion: slot %llu, %u bytes",
		    (unsigned long long)wc.wr_id, wc.byte_len);
	p = lp_rbuf + wc.wr_id * LP_BUF;
	rc = rpcrdma_hdr_decode(p, wc.byte_len, &h);
	if (rc)
		die("Call: transport header decode %d", rc);
	*xid = h.hd_xid;
	*nomsg = h.hd_proc == RPCRDMA_NOMSG;
	*proc = 0;
	if (!*nomsg) {
		if (wc.byte_len < h.hd_hdrlen + 24)
			die("Call: RPC header truncated (%u bytes)", wc.byte_len);
		*proc = get32(p + h.hd_hdrlen + 20);
	}
	post_recv(wc.wr_id);
	return 1;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL;
	struct rdma_addrinfo hints, *res;
	struct rdma_cm_id *listen_id;
	unsigned conns = 1, dropped = 0, left = 0;
	uint32_t xid, proc;
	int c, nomsg;
	FILE *f;

	rawpeer_name = "leavepeer";
	while ((c = getopt(argc, argv, "a:p:r:i:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 'i': lp_inline = (uint32_t)atoi(optarg); break;
		default: die("usage: leavepeer -a ADDR -p PORT -r READY [-i BYTES]");
		}
	}
	if (!addr || !port || !ready)
		die("usage: leavepeer -a ADDR -p PORT -r READY [-i BYTES]");
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(110);
	lp_rbuf = calloc(LP_NRECV, LP_BUF);
	lp_sbuf = calloc(1, LP_BUF);
	if (!lp_rbuf || !lp_sbuf)
		die("out of memory");
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo %s:%s: %s", addr, port, strerror(errno));
	if (rdma_create_ep(&listen_id, res, NULL, NULL))
		die("rdma_create_ep (listen): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 4))
		die("rdma_listen: %s", strerror(errno));
	f = fopen(ready, "w");
	if (!f || fclose(f))
		die("cannot create %s", ready);
	accept_next(listen_id);
	for (;;) {
		if (!next_call(&xid, &proc, &nomsg)) {
			/* The client left (its calls abandoned or not). */
			drop_conn();
			accept_next(listen_id);
			conns++;
			continue;
		}
		if (nomsg || proc == 2) {
			dropped++;
			printf("# Call xid %#x (%s) not answered\n", xid,
			       nomsg ? "RDMA_NOMSG" : "proc 2");
			continue;
		}
		switch (proc) {
		case 4:
			send_reply(xid);
			break;
		case 7:
			send_reply(xid);
			drop_conn();
			left++;
			accept_next(listen_id);
			conns++;
			break;
		case 9:
			send_reply(xid);
			{
				struct ibv_wc wc;

				/* Until the client leaves, 5 s at most. */
				poll_cq(lp_id->recv_cq, &wc, 5000);
			}
			drop_conn();
			rdma_destroy_ep(listen_id);
			printf("leavepeer: %u connections, %u Calls not answered, "
			       "left %u times right after a Reply\n", conns,
			       dropped, left);
			printf("leavepeer: ok\n");
			return 0;
		default:
			die("proc %u is not in the script", proc);
		}
	}
}
