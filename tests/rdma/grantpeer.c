/*
 * Raw-verbs peers against a server's shared receive queues and credits
 * granted by need (rpcrdma(7), SHARED RECEIVES AND CREDITS).  A watcher
 * connection reads the listener's counters (ECHO_SRQ) throughout.
 *   -n N  N connections held at once, one NULL call on each, round robin,
 *         R rounds (-r): every call answered; churn of connections that
 *         leave with Calls in flight meanwhile; the counters show the
 *         grants never outran the posted receives, and the shares and
 *         connections come back once they all left.
 *   -x    a client over its grant (it asks for one credit, keeps the
 *         server busy and sends three more Calls) loses its connection
 *         alone, counted; the watcher is served throughout.
 *   -l    a burst holding nearly every buffer of a server with
 *         recv_buffers 32: the device's SRQ limit event, counted.
 *   -R    the server has recv_buffers 0: rings of their own, fixed grants.
 *   -F    the same, because the server takes its device as having no
 *         shared receive queues (RPCRDMA_DEBUG_NO_SRQ): each connection
 *         counted in rs_srq_fallbacks.
 * -S shuts the server down at the end.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"

enum {
	GP_NRECV = 2,		/* receives, sends a connection posts: a */
	GP_NSEND = 8,		/* Call at a time (-l: a burst, GP_BURST) */
	GP_BURST = 32,
	GP_WAIT_MS = 20000,
	GP_MAX = 4096,
};

#define ECHO_PROG	0x20049001u
#define ECHO_NULL	0u
#define ECHO_SHUTDOWN	4u
#define ECHO_SLEEP	5u
#define ECHO_SRQ	8u

struct conn {
	struct rdma_cm_id *id;
	uint8_t *rbuf, *sbuf;
	struct ibv_mr *rmr, *smr;
	uint32_t credits;	/* the grant of the last Reply */
};

/* ECHO_SRQ's words, in echo.x's order. */
struct srq {
	uint32_t posted, in_use, pinned_kb, committed, gmin, gmax, gsum;
	uint32_t raises, cuts, exceeded, overcommits, fallbacks, downgrades;
	uint32_t ring_kb, vmpin_kb, threads, limit_events;
	uint32_t recv_posted, refills;
};
#define SRQ_WORDS 19

static const char *gp_addr, *gp_port, *gp_src;
static uint32_t gp_xid;
static int gp_failed, gp_checks;
static int gp_rings;	/* -R: the server runs with recv_buffers 0 */
static int gp_forced;	/* -F: ... or its device has no SRQ (forced) */
static int gp_wait_ms = GP_WAIT_MS;	/* one Reply */
static uint32_t gp_nrecv = GP_NRECV, gp_nsend = GP_NSEND;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	gp_checks++;
	if (!ok)
		gp_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Connect with the smallest queues that carry one Call at a time: 0, or
 * -1 refused by the server (anything else failing is fatal). */
static int conn_open(struct conn *c)
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
	pdata[6] = pdata[7] = RAWPEER_BUF / 1024 - 1;	/* 4 KiB, as Linux */
	res = rawpeer_resolve(gp_addr, gp_port, gp_src);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = gp_nsend;
	attr.cap.max_recv_wr = gp_nrecv;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&c->id, res, NULL, &attr))
		die("rdma_create_ep (our side): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	c->rbuf = calloc(gp_nrecv, RAWPEER_BUF);
	c->sbuf = calloc(gp_nsend, RAWPEER_BUF);
	if (!c->rbuf || !c->sbuf)
		die("out of memory");
	c->rmr = rdma_reg_msgs(c->id, c->rbuf, (size_t)gp_nrecv * RAWPEER_BUF);
	c->smr = rdma_reg_msgs(c->id, c->sbuf, (size_t)gp_nsend * RAWPEER_BUF);
	if (!c->rmr || !c->smr)
		die("memory registration: %s", strerror(errno));
	for (i = 0; i < gp_nrecv; i++)
		if (rdma_post_recv(c->id, (void *)(uintptr_t)i,
				   c->rbuf + i * RAWPEER_BUF, RAWPEER_BUF, c->rmr))
			die("rdma_post_recv: %s", strerror(errno));
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	c->credits = 1;
	if (!rdma_connect(c->id, &param))
		return 0;
	if (errno != ECONNREFUSED)
		die("rdma_connect: %s (not a refusal)", strerror(errno));
	rdma_dereg_mr(c->rmr);
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
	rdma_dereg_mr(c->rmr);
	rdma_dereg_mr(c->smr);
	rdma_destroy_ep(c->id);
	free(c->rbuf);
	free(c->sbuf);
	c->id = NULL;
}

/* Post one Call of proc asking for ask credits, with one argument word
 * (ECHO_SLEEP's ms) when arg, from send slot k. */
static int send_call(struct conn *c, uint32_t proc, uint32_t ask,
		     const uint32_t *arg, int k, uint32_t *xidp)
{
	uint32_t xid = ++gp_xid;
	uint32_t w[] = { xid, 1, ask, RPCRDMA_MSG, 0, 0, 0,
			 xid, 0, 2, ECHO_PROG, 1, proc, 0, 0, 0, 0 };
	struct msg m = { .m_len = 0 };
	uint8_t *buf = c->sbuf + (size_t)k * RAWPEER_BUF;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		put32(&m, w[i]);
	if (arg)
		put32(&m, *arg);
	memcpy(buf, m.m_buf, m.m_len);
	if (xidp)
		*xidp = xid;
	return rdma_post_send(c->id, NULL, buf, m.m_len, c->smr, 0) ? -1 : 0;
}

/* The Reply to xid, up to nres result words: 0 if answered SUCCESS. */
static int wait_reply(struct conn *c, uint32_t xid, uint32_t *res, int nres)
{
	struct msg m = { .m_len = 0 };
	struct ibv_wc wc;
	size_t i;

	for (;;) {
		if (!poll_cq(c->id->recv_cq, &wc, gp_wait_ms) || wc.status)
			return -1;
		m.m_len = wc.byte_len;
		memcpy(m.m_buf, c->rbuf + wc.wr_id * RAWPEER_BUF, wc.byte_len);
		if (rdma_post_recv(c->id, (void *)(uintptr_t)wc.wr_id,
				   c->rbuf + wc.wr_id * RAWPEER_BUF, RAWPEER_BUF,
				   c->rmr))
			return -1;
		if (m.m_len >= 12)
			c->credits = get32(m.m_buf + 8);
		if (m.m_len >= 4 && get32(m.m_buf) == xid)
			break;
	}
	if (m.m_len != (size_t)(13 + nres) * 4 || get32(m.m_buf + 48) != 0)
		return -1;
	for (i = 0; i < (size_t)nres; i++)
		res[i] = get32(m.m_buf + 52 + 4 * i);
	return 0;
}

static int call(struct conn *c, uint32_t proc, uint32_t *res, int nres)
{
	struct ibv_wc wc;
	uint32_t xid;

	if (send_call(c, proc, 32, NULL, 0, &xid) ||
	    !poll_cq(c->id->send_cq, &wc, GP_WAIT_MS) || wc.status)
		return -1;
	return wait_reply(c, xid, res, nres);
}

static void get_srq(struct conn *w, struct srq *s)
{
	uint32_t v[SRQ_WORDS];

	if (call(w, ECHO_SRQ, v, SRQ_WORDS))
		die("ECHO_SRQ not answered: the server stopped serving");
	memcpy(s, v, sizeof(v));
	printf("# srq: posted %u in_use %u pinned %u kB committed %u grants "
	       "%u..%u sum %u raises %u cuts %u exceeded %u overcommits %u "
	       "fallbacks %u downgrades %u rings %u kB vmpin %u kB threads %u "
	       "limit_events %u recv_posted %u refills %u\n",
	       s->posted, s->in_use, s->pinned_kb, s->committed, s->gmin,
	       s->gmax, s->gsum, s->raises, s->cuts, s->exceeded,
	       s->overcommits, s->fallbacks, s->downgrades, s->ring_kb,
	       s->vmpin_kb, s->threads, s->limit_events, s->recv_posted,
	       s->refills);
}

/*
 * Connections that leave with Calls in flight, while others come: each
 * of k opens, sends its one Call, and half of them close before the
 * Reply can have come.  The grants' invariant must hold throughout.
 */
static void churn(int k)
{
	struct conn c;
	struct ibv_wc wc;
	uint32_t xid;
	int i;

	for (i = 0; i < k; i++) {
		if (conn_open(&c))
			continue;
		if (!send_call(&c, ECHO_NULL, 32, NULL, 0, &xid) && (i & 1) &&
		    poll_cq(c.id->send_cq, &wc, GP_WAIT_MS))
			wait_reply(&c, xid, NULL, 0);
		conn_close(&c);
	}
}

static void many(int n, int rounds)
{
	static struct conn cs[GP_MAX];
	struct srq base, full, after;
	int i, r, held = 0, failed = 0;
	int64_t t, deadline;
	struct conn w;

	if (conn_open(&w))
		die("the watcher was refused");
	get_srq(&w, &base);
	t = now_ms();
	for (i = 0; i < n; i++) {
		if (conn_open(&cs[i]))
			break;
		held++;
		/* A little churn every 100: it must cost nobody else. */
		if (held % 100 == 0) {
			churn(4);
			if (call(&w, ECHO_NULL, NULL, 0))
				die("the watcher was not served while connecting");
		}
	}
	printf("grantpeer: %d connections held in %lld ms\n", held,
	       (long long)(now_ms() - t));
	result(held == n, "the server took all %d connections (%d)", n, held);
	t = now_ms();
	for (r = 0; r < rounds; r++)
		for (i = 0; i < held; i++)
			if (call(&cs[i], ECHO_NULL, NULL, 0))
				failed++;
	printf("grantpeer: %d rounds of NULL over %d connections in %lld ms, "
	       "%d failed\n", rounds, held, (long long)(now_ms() - t), failed);
	result(failed == 0, "every connection served, round robin (%d failed)",
	       failed);
	get_srq(&w, &full);
	/* One Call at a time each: a connection's Replies cycle through
	 * the first 8 send buffers of its ring (of the 4 KiB we receive),
	 * registered when it was set up; the rest are never registered
	 * (verbs.h, RPCRDMA_SEND_CHUNK).  With recv_buffers 0 its ring of
	 * receives is counted too. */
	if (!gp_rings && held)
		result((full.ring_kb - base.ring_kb) % (uint32_t)held == 0 &&
		       (full.ring_kb - base.ring_kb) / (uint32_t)held ==
		       8 * RAWPEER_BUF / 1024,
		       "each connection registered 8 send buffers, %u kB "
		       "(%u kB for %d)", (full.ring_kb - base.ring_kb) /
		       (uint32_t)held, full.ring_kb - base.ring_kb, held);
	result(full.overcommits == 0, "the grants never outran the posted "
	       "receives (overcommits %u)", full.overcommits);
	result(full.committed <= full.posted, "committed %u <= posted %u",
	       full.committed, full.posted);
	result(full.exceeded == base.exceeded, "no connection past its grant "
	       "(exceeded %u)", full.exceeded - base.exceeded);
	result(full.gmin >= 1 && full.gsum >= (uint32_t)held + 1,
	       "every connection holds a grant (min %u, sum %u)", full.gmin,
	       full.gsum);
	if (gp_rings)
		result(full.pinned_kb == 0 && full.gmin == full.gmax,
		       "rings of their own (%s): no shared "
		       "receives (%u kB), a fixed grant (%u..%u)",
		       gp_forced ? "no SRQ, forced" : "recv_buffers 0",
		       full.pinned_kb, full.gmin, full.gmax);
	if (gp_rings)
		result(gp_forced ? full.fallbacks - base.fallbacks ==
				   (uint32_t)held && base.fallbacks >= 1 :
				   full.fallbacks == 0,
		       "fallbacks to rings counted: %u for %d connections "
		       "(%u before)", full.fallbacks - base.fallbacks, held,
		       base.fallbacks);
	else
		result(full.pinned_kb > 0 && full.fallbacks == base.fallbacks,
		       "shared receives: %u kB for %d connections (%u B "
		       "each), no fallback (%u)", full.pinned_kb, held + 1,
		       (unsigned)((uint64_t)full.pinned_kb * 1024 / (held + 1)),
		       full.fallbacks - base.fallbacks);
	for (i = 0; i < held; i++)
		conn_close(&cs[i]);
	/* Once they are all freed, only the watcher holds a share: what
	 * the Reply before this status call granted it, less this call. */
	deadline = now_ms() + 60000;
	do {
		uint32_t before = w.credits;

		usleep(200 * 1000);
		get_srq(&w, &after);
		after.gmin = before;	/* reused: the watcher's grant */
	} while (now_ms() < deadline && (after.ring_kb > base.ring_kb ||
					 after.committed >= after.gmin));
	result(after.ring_kb <= base.ring_kb, "their rings freed once they "
	       "left (%u kB, %u before)", after.ring_kb, base.ring_kb);
	result(after.committed < after.gmin, "their shares came back: %u "
	       "committed, the watcher's alone", after.committed);
	result(after.overcommits == 0 && after.committed <= after.posted,
	       "the invariant held through their leaving (committed %u, "
	       "posted %u)", after.committed, after.posted);
	result(call(&w, ECHO_NULL, NULL, 0) == 0, "the watcher still served");
	conn_close(&w);
}

/*
 * Why: Sends to a connection the server closed complete only when the
 * device's retries run out (rxe: about 20 s), so waiting for them is not
 * how to learn it went.  The connection manager says so at once: 1 when
 * an event is pending on c's channel within ms.  Once connected, the one
 * event it can have is DISCONNECTED; it is left there, for
 * rdma_disconnect() of a synchronous id, which waits for it, to read.
 */
static int cm_gone(struct conn *c, int ms)
{
	struct pollfd p;

	if (!c->id->channel)
		return 0;
	p.fd = c->id->channel->fd;
	p.events = POLLIN;
	p.revents = 0;
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/*
 * A client over its grant, whatever the timing: it asks for one credit
 * (so no Reply grants it more), holds the server in ECHO_SLEEP with its
 * first Call and sends three more meanwhile.  However the server reaps
 * them, the third Call is past the horizon (one Call, then one per Reply
 * read): its connection goes, alone, counted once.
 */
static void exceed(void)
{
	uint32_t ms = 500, xid;
	struct srq base, after;
	struct conn w, x;
	struct ibv_wc wc;
	int64_t end;
	int i, dead;

	if (conn_open(&w) || conn_open(&x))
		die("refused");
	get_srq(&w, &base);
	if (send_call(&x, ECHO_SLEEP, 1, &ms, 0, &xid))
		die("post_send");
	for (i = 1; i < 4; i++)
		if (send_call(&x, ECHO_NULL, 1, NULL, i, NULL))
			die("post_send");
	/* Its connection goes: the CM says so (the server closed it), or,
	 * failing a word from it, a Call on it is never answered (the
	 * SLEEP's Reply may come first, none after). */
	dead = 0;
	end = now_ms() + GP_WAIT_MS;
	for (i = 0; i < 4 && !dead && now_ms() < end;) {
		if (poll_cq(x.id->send_cq, &wc, 50))
			i++;
		else
			dead = cm_gone(&x, 0);
	}
	if (!dead)
		dead = cm_gone(&x, 3000);
	gp_wait_ms = 3000;
	if (!dead)
		dead = call(&x, ECHO_NULL, NULL, 0) != 0;
	gp_wait_ms = GP_WAIT_MS;
	result(dead, "the client over its grant lost its connection");
	get_srq(&w, &after);
	result(after.exceeded == base.exceeded + 1, "counted once "
	       "(rs_grant_exceeded %u -> %u)", base.exceeded, after.exceeded);
	result(after.overcommits == 0, "no overcommit (%u)", after.overcommits);
	result(call(&w, ECHO_NULL, NULL, 0) == 0, "the watcher served throughout");
	conn_close(&x);
	conn_close(&w);
}

/*
 * The device's SRQ limit event, against a server with recv_buffers 32
 * (one chunk; its limit is 11: the reserve of 8 and an eighth of the 24
 * others).  One connection takes what its first Reply grants (it asks
 * 32; room allows about 24), holds the server in ECHO_SLEEP with the
 * first Call of a burst of all its credits and sends the rest meanwhile:
 * they hold 22 or more buffers, the posted receives fall under the
 * limit, and the listener counts the event.  Every Call is answered,
 * nothing is overcommitted; a watcher connected after reads the counters.
 */
static void limit(void)
{
	uint32_t ms = 300, xids[GP_BURST], burst;
	struct ibv_wc wc;
	struct conn w, x;
	struct srq after;
	int i, answered = 0;

	gp_nrecv = gp_nsend = GP_BURST;
	if (conn_open(&x))
		die("refused");
	gp_nrecv = GP_NRECV;
	gp_nsend = GP_NSEND;
	if (call(&x, ECHO_NULL, NULL, 0))
		die("the first Call was not answered");
	burst = x.credits < GP_BURST ? x.credits : GP_BURST;
	result(burst >= 22, "its first Reply granted %u credits (22 or more "
	       "hold seven eighths of the 24 the grants can hand out)", burst);
	if (send_call(&x, ECHO_SLEEP, 32, &ms, 0, &xids[0]))
		die("post_send");
	for (i = 1; i < (int)burst; i++)
		if (send_call(&x, ECHO_NULL, 32, NULL, i, &xids[i]))
			die("post_send");
	for (i = 0; i < (int)burst; i++)
		if (!poll_cq(x.id->send_cq, &wc, GP_WAIT_MS) || wc.status)
			die("Call %d of the burst did not go", i);
	/* One thread serves them, in order. */
	for (i = 0; i < (int)burst; i++)
		if (!wait_reply(&x, xids[i], NULL, 0))
			answered++;
	result(answered == (int)burst, "%d of the burst's %u Calls answered",
	       answered, burst);
	if (conn_open(&w))
		die("the watcher was refused");
	get_srq(&w, &after);
	result(after.limit_events >= 1, "the listener counted the device's "
	       "SRQ limit event (rs_srq_limit_events %u)", after.limit_events);
	result(after.overcommits == 0 && after.exceeded == 0,
	       "no overcommit (%u), nobody past its grant (%u)",
	       after.overcommits, after.exceeded);
	conn_close(&w);
	conn_close(&x);
}

int main(int argc, char **argv)
{
	int n = 0, rounds = 1, over = 0, lim = 0, shutdown = 0, c;
	struct conn w;

	gp_xid = rawpeer_xid_seed();
	while ((c = getopt(argc, argv, "a:b:p:n:r:xlRFS")) != -1) {
		switch (c) {
		case 'a': gp_addr = optarg; break;
		case 'b': gp_src = optarg; break;
		case 'p': gp_port = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'x': over = 1; break;
		case 'l': lim = 1; break;
		case 'R': gp_rings = 1; break;
		case 'F': gp_rings = gp_forced = 1; break;
		case 'S': shutdown = 1; break;
		default:
			fprintf(stderr, "usage: grantpeer -a SERVER -b SOURCE -p PORT "
				"[-n CONNS [-r ROUNDS]] [-x] [-l] [-R|-F] [-S]\n");
			return 2;
		}
	}
	if (!gp_addr || !gp_port || n < 0 || n > GP_MAX)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "grantpeer";
	alarm(600);
	rawpeer_siw_guard();
	if (n)
		many(n, rounds);
	if (over)
		exceed();
	if (lim)
		limit();
	if (shutdown) {
		if (conn_open(&w))
			die("refused at the end");
		result(call(&w, ECHO_SHUTDOWN, NULL, 0) == 0, "SHUTDOWN answered");
		conn_close(&w);
	}
	printf("%s: %d of %d checks failed\n", gp_failed ? "FAILED" : "passed",
	       gp_failed, gp_checks);
	return gp_failed ? 1 : 0;
}
