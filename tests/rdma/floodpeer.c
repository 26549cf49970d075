/*
 * A raw-verbs connection flood against a server with its default bounds:
 * a watcher connects first, then connections are opened and held, silent,
 * until the server refuses them; the server must stay up (the watcher is
 * served throughout), count every refusal, and then be open again: with
 * -i MS (its idle timeout) by closing the held connections itself, counted
 * idle, else once the flood leaves.  A bystander connecting after must be
 * served within BYSTANDER_MS.  -L N: the server must have held exactly N
 * connections (the watcher's included) when it refused.  -S shuts it down.
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

enum {
	FP_NRECV = 4,
	FP_WAIT_MS = 10000,
	FP_MAX = 1100,		/* connections tried at most */
	FP_MORE = 3,		/* tried again once refused */
	BYSTANDER_MS = 30000,	/* connect and one Call, after the flood */
};

#define ECHO_PROG	0x20049001u
#define ECHO_NULL	0u
#define ECHO_SHUTDOWN	4u
#define ECHO_STATUS	7u

struct conn {
	struct rdma_cm_id *id;
	uint8_t *rbuf, *sbuf;
	struct ibv_mr *rmr, *smr;
};

struct status {
	uint32_t fds, vmpin_kb, conns, accepted, refused, lost, freed, idle;
	uint32_t ring_kb;	/* the listener's rs_ring_pinned */
};

static const char *fp_addr, *fp_port, *fp_src;
static uint32_t fp_xid = 0x66700000;	/* "fp" */
static int fp_failed, fp_checks;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	fp_checks++;
	if (!ok)
		fp_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * Connect; a flood connection (msgs 0) has the smallest queues and no
 * buffers: it never says a word.  0 connected, -1 refused by the server;
 * anything failing on our side is fatal (no proof of anything).
 */
static int conn_open(struct conn *c, int msgs)
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
	res = rawpeer_resolve(fp_addr, fp_port, fp_src);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = msgs ? 4 : 1;
	attr.cap.max_recv_wr = msgs ? FP_NRECV : 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&c->id, res, NULL, &attr))
		die("rdma_create_ep (our side): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (msgs) {
		c->rbuf = calloc(FP_NRECV, RAWPEER_BUF);
		c->sbuf = calloc(1, RAWPEER_BUF);
		if (!c->rbuf || !c->sbuf)
			die("out of memory");
		c->rmr = rdma_reg_msgs(c->id, c->rbuf, (size_t)FP_NRECV * RAWPEER_BUF);
		c->smr = rdma_reg_msgs(c->id, c->sbuf, RAWPEER_BUF);
		if (!c->rmr || !c->smr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < FP_NRECV; i++)
			if (rdma_post_recv(c->id, (void *)(uintptr_t)i,
					   c->rbuf + i * RAWPEER_BUF, RAWPEER_BUF,
					   c->rmr))
				die("rdma_post_recv: %s", strerror(errno));
	}
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (!rdma_connect(c->id, &param))
		return 0;
	if (errno != ECONNREFUSED)
		die("rdma_connect: %s (not a refusal)", strerror(errno));
	if (c->rmr)
		rdma_dereg_mr(c->rmr);
	if (c->smr)
		rdma_dereg_mr(c->smr);
	rdma_destroy_ep(c->id);
	free(c->rbuf);
	free(c->sbuf);
	c->id = NULL;
	return -1;
}

static void conn_close(struct conn *c)
{
	if (!c->id)
		return;
	rdma_disconnect(c->id);
	if (c->rmr)
		rdma_dereg_mr(c->rmr);
	if (c->smr)
		rdma_dereg_mr(c->smr);
	rdma_destroy_ep(c->id);
	free(c->rbuf);
	free(c->sbuf);
	c->id = NULL;
}

/* One Call of proc, up to nres result words: 0 if answered SUCCESS. */
static int call(struct conn *c, uint32_t proc, uint32_t *res, int nres)
{
	uint32_t xid = ++fp_xid;
	uint32_t w[] = { xid, 1, 4, RPCRDMA_MSG, 0, 0, 0,
			 xid, 0, 2, ECHO_PROG, 1, proc, 0, 0, 0, 0 };
	struct msg m = { .m_len = 0 };
	struct ibv_wc wc;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		put32(&m, w[i]);
	memcpy(c->sbuf, m.m_buf, m.m_len);
	if (rdma_post_send(c->id, NULL, c->sbuf, m.m_len, c->smr, 0) ||
	    !poll_cq(c->id->send_cq, &wc, FP_WAIT_MS) || wc.status)
		return -1;
	for (;;) {
		if (!poll_cq(c->id->recv_cq, &wc, FP_WAIT_MS) || wc.status)
			return -1;
		m.m_len = wc.byte_len;
		memcpy(m.m_buf, c->rbuf + wc.wr_id * RAWPEER_BUF, wc.byte_len);
		if (rdma_post_recv(c->id, (void *)(uintptr_t)wc.wr_id,
				   c->rbuf + wc.wr_id * RAWPEER_BUF, RAWPEER_BUF,
				   c->rmr))
			return -1;
		if (m.m_len >= 4 && get32(m.m_buf) == xid)
			break;
	}
	if (m.m_len != (size_t)(13 + nres) * 4 || get32(m.m_buf + 48) != 0)
		return -1;
	for (i = 0; i < (size_t)nres; i++)
		res[i] = get32(m.m_buf + 52 + 4 * i);
	return 0;
}

static void get_status(struct conn *w, struct status *s)
{
	uint32_t v[9];

	if (call(w, ECHO_STATUS, v, 9))
		die("ECHO_STATUS not answered: the server stopped serving");
	memcpy(s, v, sizeof(v));
	printf("# status: fds %u vmpin %u kB conns %u accepted %u refused %u "
	       "lost %u freed %u idle_closed %u ring %u kB\n", s->fds,
	       s->vmpin_kb, s->conns, s->accepted, s->refused, s->lost,
	       s->freed, s->idle, s->ring_kb);
}

/* A new connection and one Call: ms it took, or -1. */
static int64_t bystander(void)
{
	int64_t t0 = now_ms();
	struct conn c;
	int rc;

	if (conn_open(&c, 1))
		return -1;
	rc = call(&c, ECHO_NULL, NULL, 0);
	conn_close(&c);
	return rc ? -1 : now_ms() - t0;
}

static void flood(int idle_ms, int limit)
{
	static struct conn fl[FP_MAX];
	struct status base, full, now;
	int n = 0, refused = 0, i;
	int64_t t, deadline;
	struct conn w;

	conn_open(&w, 1);
	get_status(&w, &base);
	t = now_ms();
	while (n < FP_MAX && !conn_open(&fl[n], 0)) {
		/* The watcher is never idle, and sees the server serve. */
		if (++n % 16 == 0 && call(&w, ECHO_NULL, NULL, 0))
			die("the watcher was not served during the flood");
	}
	if (n == FP_MAX)
		die("%d connections and no refusal", FP_MAX);
	refused = 1;
	for (i = 0; i < FP_MORE; i++) {
		struct conn x;

		if (conn_open(&x, 0))
			refused++;
		else
			conn_close(&x);
	}
	printf("floodpeer: %d connections held, %d refused, in %lld ms\n", n,
	       refused, (long long)(now_ms() - t));
	get_status(&w, &full);
	result(refused == 1 + FP_MORE, "every connection past the first "
	       "refusal refused too (%d of %d)", refused - 1, FP_MORE);
	result(full.refused - base.refused == (uint32_t)refused,
	       "the server counted %u refusals (we saw %d)",
	       full.refused - base.refused, refused);
	result(full.conns == (uint32_t)n + 1, "the server holds %u connections "
	       "(the flood's %d and the watcher)", full.conns, n);
	if (limit)
		result(full.conns == (uint32_t)limit,
		       "refused at max_connections %d", limit);
	/* Each connection held pins its rings, alike, and the listener
	 * counts them (rs_ring_pinned): the kernel's count of pinned pages
	 * grew by at least that much. */
	result(full.ring_kb > base.ring_kb &&
	       (full.ring_kb - base.ring_kb) % (uint32_t)n == 0,
	       "the listener counts rings of %u kB for the flood's %d "
	       "connections (%u kB each)", full.ring_kb - base.ring_kb, n,
	       (full.ring_kb - base.ring_kb) / (uint32_t)n);
	result(full.vmpin_kb - base.vmpin_kb >= full.ring_kb - base.ring_kb,
	       "VmPin grew %u kB, at least the rings' %u kB",
	       full.vmpin_kb - base.vmpin_kb, full.ring_kb - base.ring_kb);
	if (idle_ms) {
		/* Hold them, silent, until the server closes them as idle. */
		deadline = now_ms() + 2 * (int64_t)idle_ms + 30000;
		do {
			usleep(500 * 1000);
			get_status(&w, &now);
		} while (now_ms() < deadline &&
			 (now.idle - base.idle < (uint32_t)n || now.conns > 1 ||
			  now.ring_kb > base.ring_kb));
		result(now.idle - base.idle == (uint32_t)n, "the server closed "
		       "%u idle connections (%d held)", now.idle - base.idle, n);
		result(now.conns == 1, "the watcher stayed (conns %u)", now.conns);
		result(now.ring_kb == base.ring_kb, "the listener counts the "
		       "watcher's rings alone again (%u kB)", now.ring_kb);
	} else {
		for (i = 0; i < n; i++)
			conn_close(&fl[i]);
		deadline = now_ms() + 30000;
		do {
			usleep(200 * 1000);
			get_status(&w, &now);
		} while (now_ms() < deadline &&
			 (now.conns > 1 || now.ring_kb > base.ring_kb));
		result(now.conns == 1, "the flood's connections freed once it "
		       "left (conns %u)", now.conns);
		result(now.ring_kb == base.ring_kb, "the listener counts the "
		       "watcher's rings alone again (%u kB)", now.ring_kb);
	}
	t = bystander();
	printf("floodpeer: bystander connected and served in %lld ms\n",
	       (long long)t);
	result(t >= 0 && t <= BYSTANDER_MS, "a bystander after the flood was "
	       "served within %d ms (%lld)", BYSTANDER_MS, (long long)t);
	result(call(&w, ECHO_NULL, NULL, 0) == 0, "the watcher still served");
	if (idle_ms)
		for (i = 0; i < n; i++)
			conn_close(&fl[i]);
	conn_close(&w);
}

int main(int argc, char **argv)
{
	int idle_ms = 0, limit = 0, shutdown = 0, c;
	struct conn w;

	fp_xid = rawpeer_xid_seed();
	while ((c = getopt(argc, argv, "a:b:p:i:L:S")) != -1) {
		switch (c) {
		case 'a': fp_addr = optarg; break;
		case 'b': fp_src = optarg; break;
		case 'p': fp_port = optarg; break;
		case 'i': idle_ms = atoi(optarg); break;
		case 'L': limit = atoi(optarg); break;
		case 'S': shutdown = 1; break;
		default:
			fprintf(stderr, "usage: floodpeer -a SERVER -b SOURCE -p PORT "
				"[-i IDLE_MS] [-L LIMIT] [-S]\n");
			return 2;
		}
	}
	if (!fp_addr || !fp_port)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "floodpeer";
	alarm(280);
	rawpeer_siw_guard();
	flood(idle_ms, limit);
	if (shutdown) {
		conn_open(&w, 1);
		result(call(&w, ECHO_SHUTDOWN, NULL, 0) == 0, "SHUTDOWN answered");
		conn_close(&w);
	}
	printf("%s: %d of %d checks failed\n", fp_failed ? "FAILED" : "passed",
	       fp_failed, fp_checks);
	return fp_failed ? 1 : 0;
}
