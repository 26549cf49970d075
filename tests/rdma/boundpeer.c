/*
 * A raw-verbs peer that checks the server stays bounded: connections
 * abandoned right after connect, a Send larger than the server's receive
 * buffers, more Calls than the credits granted, max_connections and
 * idle_timeout_ms.  A
 * first connection watches the server (ECHO_STATUS: descriptors, pinned
 * memory, connections held, counters) and must be served throughout; the
 * server must come back to what it held before, within a bounded wait.
 * With -S it ends with ECHO_SHUTDOWN; exits 0 only if every check passed.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"
#include "lib_defaults.h"

enum {
	BP_NRECV = 8,		/* receives kept posted per connection */
	BP_NSEND = 80,		/* send queue: room for a flood of Calls */
	BP_BIG = 2 * TEST_SVC_INLINE_RECV_DEFAULT, /* the oversized Send: twice
				 * the server's receive buffer (its default
				 * inline_recv), even were it not fitted to
				 * our offer of RAWPEER_BUF */
	BP_WAIT_MS = 10000,	/* one answer */
	BP_SETTLE_MS = 30000,	/* the server frees what a peer held */
	BP_SRV_CREDITS = 32,	/* echo_server's grant (its default) */
};

#define ECHO_PROG	0x20049001u
#define ECHO_VERS	1u
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
	uint32_t ring_kb;
};

extern char **environ;
static const char *bp_addr, *bp_port, *bp_src;
static uint32_t bp_xid = 0x62700000;	/* "bp" */
static int bp_failed, bp_checks;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	bp_checks++;
	if (!ok)
		bp_failed++;
	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- connections --------------------------------------------------------- */

static void post_recv(struct conn *c, uint64_t slot)
{
	if (rdma_post_recv(c->id, (void *)(uintptr_t)slot,
			   c->rbuf + slot * RAWPEER_BUF, RAWPEER_BUF, c->rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

/*
 * Connect with an RFC 8797 offer of 4 KiB each way.  0 when connected;
 * -1 when the server refused (errno kept) and refused_ok; else fatal.
 */
static int conn_open(struct conn *c, int refused_ok)
{
	int64_t deadline = now_ms() + BP_WAIT_MS;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	uint32_t magic = htonl(RPCRDMA_CM_MAGIC);
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	uint64_t i;

	memcpy(pdata, &magic, 4);
	pdata[4] = RPCRDMA_CM_VERSION;
	pdata[5] = 0;
	pdata[6] = pdata[7] = RAWPEER_BUF / 1024 - 1;
	for (;;) {
		memset(c, 0, sizeof(*c));
		res = rawpeer_resolve(bp_addr, bp_port, bp_src);
		memset(&attr, 0, sizeof(attr));
		attr.cap.max_send_wr = BP_NSEND;
		attr.cap.max_recv_wr = BP_NRECV;
		attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		attr.sq_sig_all = 1;
		if (rdma_create_ep(&c->id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		c->rbuf = calloc(BP_NRECV, RAWPEER_BUF);
		c->sbuf = calloc(1, BP_BIG);
		if (!c->rbuf || !c->sbuf)
			die("out of memory");
		c->rmr = rdma_reg_msgs(c->id, c->rbuf, (size_t)BP_NRECV * RAWPEER_BUF);
		c->smr = rdma_reg_msgs(c->id, c->sbuf, BP_BIG);
		if (!c->rmr || !c->smr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < BP_NRECV; i++)
			post_recv(c, i);
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!rdma_connect(c->id, &param))
			return 0;
		int err = errno;
		rdma_dereg_mr(c->rmr);
		rdma_dereg_mr(c->smr);
		free(c->rbuf);
		free(c->sbuf);
		rdma_destroy_ep(c->id);
		c->id = NULL;
		if (refused_ok && err == ECONNREFUSED) {
			errno = err;
			return -1;
		}
		if (now_ms() >= deadline)
			die("could not connect to %s:%s: %s", bp_addr, bp_port,
			    strerror(err));
		usleep(100 * 1000);
	}
}

static void conn_close(struct conn *c)
{
	rdma_disconnect(c->id);
	rdma_dereg_mr(c->rmr);
	rdma_dereg_mr(c->smr);
	rdma_destroy_ep(c->id);
	free(c->rbuf);
	free(c->sbuf);
	c->id = NULL;
}

/* Post len bytes of sbuf: 0, or -1 with errno (the QP went to error). */
static int conn_post(struct conn *c, size_t len)
{
	return rdma_post_send(c->id, NULL, c->sbuf, len, c->smr, 0) ? -1 : 0;
}

/* Post len bytes of sbuf; 0 once sent, else the completion's status. */
static int conn_send(struct conn *c, size_t len, int wait)
{
	struct ibv_wc wc;

	if (conn_post(c, len))
		die("rdma_post_send: %s", strerror(errno));
	if (!wait)
		return 0;
	if (!poll_cq(c->id->send_cq, &wc, BP_WAIT_MS))
		die("no send completion within %d ms", BP_WAIT_MS);
	return wc.status;
}

/* Next message into *m: 1; 0 nothing in time; -1 the connection failed. */
static int conn_recv(struct conn *c, struct msg *m, int ms)
{
	struct ibv_wc wc;

	if (!poll_cq(c->id->recv_cq, &wc, ms))
		return 0;
	if (wc.status != IBV_WC_SUCCESS)
		return -1;
	if (wc.wr_id >= BP_NRECV || wc.byte_len > RAWPEER_BUF)
		die("receive: slot %llu, %u bytes",
		    (unsigned long long)wc.wr_id, wc.byte_len);
	m->m_len = wc.byte_len;
	memcpy(m->m_buf, c->rbuf + wc.wr_id * RAWPEER_BUF, wc.byte_len);
	post_recv(c, wc.wr_id);
	return 1;
}

/*
 * 1 once the connection is gone: a receive flushed (iWARP, or our QP in
 * error after a NAK) or, as on InfiniBand/RoCE where the server's
 * disconnect leaves our QP alone, a CM event other than ESTABLISHED.
 */
static int conn_lost(struct conn *c, int ms)
{
	struct pollfd pfd = { .fd = c->id->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct msg m;
	int gone = 0;

	if (conn_recv(c, &m, ms) < 0)
		return 1;
	if (fcntl(pfd.fd, F_SETFL, fcntl(pfd.fd, F_GETFL) | O_NONBLOCK))
		die("fcntl: %s", strerror(errno));
	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	while (!rdma_get_cm_event(c->id->channel, &ev)) {
		printf("# CM event: %s\n", rdma_event_str(ev->event));
		if (ev->event != RDMA_CM_EVENT_ESTABLISHED)
			gone = 1;
		rdma_ack_cm_event(ev);
	}
	return gone;
}

/* ---- calls --------------------------------------------------------------- */

static size_t put_call(struct conn *c, uint32_t xid, uint32_t proc)
{
	struct msg m = { .m_len = 0 };
	uint32_t w[] = { xid, 1, 4, RPCRDMA_MSG, 0, 0, 0,
			 xid, 0 /* CALL */, 2, ECHO_PROG, ECHO_VERS, proc,
			 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		put32(&m, w[i]);
	memcpy(c->sbuf, m.m_buf, m.m_len);
	return m.m_len;
}

/*
 * One Call of proc and its Reply, with up to nres result words into res.
 * 0 if it was answered MSG_ACCEPTED / SUCCESS with that many words.
 */
static int call(struct conn *c, uint32_t proc, uint32_t *res, int nres)
{
	uint32_t xid = ++bp_xid;
	struct msg m;
	int i, rc;

	if (conn_send(c, put_call(c, xid, proc), 1))
		return -1;
	for (;;) {
		rc = conn_recv(c, &m, BP_WAIT_MS);
		if (rc <= 0)
			return -1;
		if (m.m_len >= 4 && get32(m.m_buf) == xid)
			break;
	}
	/* 7 words of RDMA_MSG header, 6 of accepted Reply, the results. */
	if (m.m_len != (size_t)(13 + nres) * 4 || get32(m.m_buf + 12) != RPCRDMA_MSG ||
	    get32(m.m_buf + 28) != xid || get32(m.m_buf + 36) != 0 ||
	    get32(m.m_buf + 48) != 0) {
		hexdump("unexpected Reply", &m);
		return -1;
	}
	for (i = 0; i < nres; i++)
		res[i] = get32(m.m_buf + 52 + 4 * i);
	return 0;
}

static void get_status(struct conn *c, struct status *s)
{
	uint32_t w[9];

	if (call(c, ECHO_STATUS, w, 9))
		die("ECHO_STATUS not answered: the server stopped serving");
	s->fds = w[0];
	s->vmpin_kb = w[1];
	s->conns = w[2];
	s->accepted = w[3];
	s->refused = w[4];
	s->lost = w[5];
	s->freed = w[6];
	s->idle = w[7];
	s->ring_kb = w[8];
}

static void print_status(const char *when, const struct status *s)
{
	printf("# %s: fds %u vmpin %u kB conns %u accepted %u refused %u "
	       "lost %u freed %u idle_closed %u ring %u kB\n", when, s->fds,
	       s->vmpin_kb, s->conns, s->accepted, s->refused, s->lost,
	       s->freed, s->idle, s->ring_kb);
}

/*
 * Wait (bounded) until the server holds no more than base did: only the
 * watching connection, no more descriptors or pinned memory.
 */
static void settle(struct conn *w, const struct status *base, const char *after,
		   struct status *now)
{
	int64_t deadline = now_ms() + BP_SETTLE_MS;

	for (;;) {
		get_status(w, now);
		if (now->conns <= base->conns && now->fds <= base->fds &&
		    now->vmpin_kb <= base->vmpin_kb &&
		    now->ring_kb <= base->ring_kb)
			break;
		if (now_ms() >= deadline)
			break;
		usleep(100 * 1000);
	}
	print_status(after, now);
	result(now->conns <= base->conns,
	       "after %s: the server holds %u connections (before: %u)", after,
	       now->conns, base->conns);
	result(now->fds <= base->fds,
	       "after %s: %u descriptors (before: %u)", after, now->fds, base->fds);
	result(now->vmpin_kb <= base->vmpin_kb,
	       "after %s: %u kB pinned (before: %u)", after, now->vmpin_kb,
	       base->vmpin_kb);
	/* The listener's count of ring memory agrees (unknown: a baseline
	 * given on the command line has none). */
	if (base->ring_kb != UINT32_MAX)
		result(now->ring_kb <= base->ring_kb,
		       "after %s: rings of %u kB counted (before: %u)", after,
		       now->ring_kb, base->ring_kb);
}

/* ---- the cases ----------------------------------------------------------- */

/* n connections dropped at once: half closed, half their process gone. */
static void abandon(struct conn *w, int n)
{
	struct status base, now;
	struct conn c;
	int i;

	get_status(w, &base);
	print_status("before", &base);
	for (i = 0; i < n; i++) {
		if (i % 2) {
			/* A fresh process (spawned: no fork of our verbs
			 * state) that connects and exits without a word. */
			char *args[] = { "boundpeer", "-a", (char *)bp_addr,
					 "-p", (char *)bp_port, "-b",
					 (char *)(bp_src ? bp_src : bp_addr),
					 "-m", "once", NULL };
			pid_t pid;
			int st;

			if (!bp_src)
				args[5] = NULL;
			if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args,
					environ))
				die("posix_spawn: %s", strerror(errno));
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st))
				die("child %d failed", i);
		} else {
			conn_open(&c, 0);
			conn_close(&c);
		}
	}
	settle(w, &base, "abandoned connections", &now);
	result(now.freed >= base.freed + (uint32_t)n,
	       "%d more connections freed (%u)", n, now.freed - base.freed);
}

/* A Send twice the server's receive buffer: that connection goes. */
static void oversize(struct conn *w)
{
	struct status base, now;
	struct conn c;
	int64_t deadline;
	int rc = 0;

	get_status(w, &base);
	conn_open(&c, 0);
	result(call(&c, ECHO_NULL, NULL, 0) == 0, "oversize peer served first");
	memset(c.sbuf + put_call(&c, ++bp_xid, ECHO_NULL), 0, BP_BIG - 68);
	conn_send(&c, BP_BIG, 0);
	/* Its receives flush once the server tears it down. */
	deadline = now_ms() + BP_SETTLE_MS;
	while (now_ms() < deadline && !(rc = conn_lost(&c, 1000)))
		;
	result(rc, "the oversize Send cost its own connection");
	result(call(w, ECHO_NULL, NULL, 0) == 0, "another connection still served");
	conn_close(&c);
	settle(w, &base, "an oversize Send", &now);
}

/*
 * Four times the credits granted, posted at once: the server may serve
 * them late (RNR retry) or drop the peer, never stop serving others.
 */
static void overcredit(struct conn *w)
{
	struct status base, now;
	int i, n = 4 * BP_SRV_CREDITS / 2, answered = 0, rc;
	struct conn c;
	struct msg m;

	get_status(w, &base);
	conn_open(&c, 0);
	/* The send queue holds BP_NSEND: 64 Calls, each its own buffer slice
	 * would be needed for different xids, so they share one xid. */
	put_call(&c, ++bp_xid, ECHO_NULL);
	/* siw may drop us while we are still posting: the QP is then in
	 * error and further posts fail, which is the server's answer too. */
	for (i = 0; i < n; i++)
		if (conn_post(&c, 68)) {
			printf("# over credits: post %d of %d failed (%s): "
			       "the server dropped us\n", i + 1, n, strerror(errno));
			break;
		}
	while ((rc = conn_recv(&c, &m, 2000)) > 0)
		answered++;
	printf("# over credits: %d of %d Calls answered, connection %s\n",
	       answered, n, rc < 0 ? "lost" : "up");
	result(call(w, ECHO_NULL, NULL, 0) == 0,
	       "another connection served after %d Calls over %d credits", n,
	       BP_SRV_CREDITS);
	conn_close(&c);
	settle(w, &base, "Calls over the credits", &now);
}

/*
 * idle_timeout_ms MS on the server: a connection served once and then
 * silent is closed by the server (its receives flush), counted, while
 * the watcher, calling all along, stays.
 */
static void idle(struct conn *w, int ms)
{
	int64_t deadline = now_ms() + 4 * (int64_t)ms + BP_SETTLE_MS;
	struct status base, now;
	struct conn c;
	int rc = 0;

	get_status(w, &base);
	conn_open(&c, 0);
	result(call(&c, ECHO_NULL, NULL, 0) == 0, "the idle peer served first");
	/* Until the server counts it closed (our side may not hear of it on
	 * rxe, where its disconnect leaves our QP alone) or we see it go. */
	do {
		rc = conn_lost(&c, 100);
		get_status(w, &now);	/* the watcher is never idle */
	} while (now_ms() < deadline && !rc && now.idle == base.idle);
	printf("# idle peer: %s\n", rc ? "saw its connection go" :
	       "heard nothing (rxe)");
	print_status("after idle", &now);
	result(now.idle == base.idle + 1, "closed as idle, counted (%u)",
	       now.idle - base.idle);
	result(call(w, ECHO_NULL, NULL, 0) == 0, "the busy connection stayed");
	conn_close(&c);
	settle(w, &base, "an idle connection", &now);
}

/* A killed peer's connection: settle back to a baseline taken earlier. */
static void settle_to(struct conn *w, const char *spec)
{
	struct status base, now;

	memset(&base, 0, sizeof(base));
	if (sscanf(spec, "%u:%u", &base.fds, &base.vmpin_kb) != 2)
		die("bad baseline %s (FDS:VMPIN_KB)", spec);
	base.conns = 1;
	base.ring_kb = UINT32_MAX;
	settle(w, &base, "the killed client", &now);
	printf("settled %u %u %u %u %u\n", now.accepted, now.refused,
	       now.lost, now.freed, now.conns);
}

/* max_connections N: the watcher and N-1 more get in, the next is refused. */
static void limit(struct conn *w, int max)
{
	struct status base, now;
	struct conn c[64], extra;
	int i;

	if (max < 1 || max > 64)
		die("bad limit %d", max);
	get_status(w, &base);
	for (i = 1; i < max; i++) {
		conn_open(&c[i], 0);
		result(call(&c[i], ECHO_NULL, NULL, 0) == 0,
		       "connection %d of %d served", i + 1, max);
	}
	result(conn_open(&extra, 1) < 0, "connection %d refused", max + 1);
	get_status(w, &now);
	print_status("at the limit", &now);
	result(now.refused == base.refused + 1, "refused counted (%u)",
	       now.refused - base.refused);
	for (i = 1; i < max; i++)
		conn_close(&c[i]);
	settle(w, &base, "the limit", &now);
	/* Room again: a new connection is served. */
	if (max > 1) {
		conn_open(&extra, 0);
		result(call(&extra, ECHO_NULL, NULL, 0) == 0,
		       "a connection after the others left is served");
		conn_close(&extra);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: boundpeer -a SERVER -b SOURCE -p PORT "
		"-m abandon|oversize|overcredit|limit|idle|status|settle [-n N] [-B F:V] [-S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *spec = NULL;
	int n = 30, shutdown = 0, c;
	struct status s;
	struct conn w;

	bp_xid = rawpeer_xid_seed();
	while ((c = getopt(argc, argv, "a:b:p:m:n:SB:")) != -1) {
		switch (c) {
		case 'a': bp_addr = optarg; break;
		case 'b': bp_src = optarg; break;
		case 'p': bp_port = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'S': shutdown = 1; break;
		case 'B': spec = optarg; break;
		default: usage();
		}
	}
	if (!bp_addr || !bp_port || !mode)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "boundpeer";
	alarm(240);
	conn_open(&w, 0);
	if (!strcmp(mode, "once"))
		_exit(0);	/* abandoned: no disconnect, nothing freed */
	if (!strcmp(mode, "abandon"))
		abandon(&w, n);
	else if (!strcmp(mode, "oversize"))
		oversize(&w);
	else if (!strcmp(mode, "overcredit"))
		overcredit(&w);
	else if (!strcmp(mode, "idle"))
		idle(&w, n);
	else if (!strcmp(mode, "settle") && spec)
		settle_to(&w, spec);
	else if (!strcmp(mode, "limit"))
		limit(&w, n);
	else if (!strcmp(mode, "status")) {
		get_status(&w, &s);
		print_status("status", &s);
		printf("status %u %u %u %u %u %u %u\n", s.fds, s.vmpin_kb,
		       s.conns, s.accepted, s.refused, s.lost, s.freed);
	} else
		usage();
	if (shutdown)
		result(call(&w, ECHO_SHUTDOWN, NULL, 0) == 0, "SHUTDOWN answered");
	conn_close(&w);
	printf("%s: %d of %d checks failed\n", bp_failed ? "FAILED" : "passed",
	       bp_failed, bp_checks);
	return bp_failed ? 1 : 0;
}
