/*
 * A raw-verbs peer against the server's RDMA Read/Write engine (issue 16,
 * findings 1 and 4): chains whose first work request fails, a client that
 * dies or disconnects while a chain of Reads is in flight, and the Read
 * depth the server honours.  No librpcrdma: headers come from its codec
 * (src/rpc_rdma.c, compiled in), everything else is librdmacm/verbs.
 *
 *   -m reply2   ECHO_BYTES whose Reply goes into a two-segment Reply
 *               chunk, the first segment with a bogus rkey
 *   -m write2   ECHO_BYTES whose result goes into a two-segment Write
 *               chunk, the first segment with a bogus rkey (the server
 *               chains both Writes in front of its Reply's Send)
 *   -m badinv   connects saying it takes Send With Invalidate (RFC 8797),
 *               then sends a NULL Call offering a Reply chunk with a
 *               bogus rkey: the server's Reply invalidates that rkey, which
 *               our device refuses (the connection goes)
 *   -m writemany  ECHO_PAIR of 8 KiB: two Write chunks of 16 segments of
 *               512 bytes each, 32 Writes, more than go in front of one
 *               Send (the server posts the first ahead of it); both
 *               opaques must arrive whole, as the Reply says
 *   -m writemany-bad  the same, the first segment with a bogus rkey: the
 *               first Write ahead fails (torn down or silent)
 *   -m read2    RDMA_NOMSG Call in two position-zero Read segments, the
 *               first with a bogus rkey (connect with -I/-R >= 2)
 *   -m kill     -n times: a child connects, sends a 1 MiB Long Call (16
 *               Read segments), and SIGKILLs itself after 0..-n ms
 *   -m disconnect  the same, the child disconnecting instead
 *   -m depth    ECHO_BYTES whose data is an 8-segment Read chunk; the
 *               echo must come back whole (-R/-I set the CM's depths)
 *   -m nodepth  the same, expecting ERR_CHUNK and then still served
 *
 * -R/-I: the responder_resources / initiator_depth we connect with; -S:
 * end with ECHO_SHUTDOWN (the server's counters are then ours alone).
 * Prints "chainpeer: torn down" when the server ended our connection,
 * "chainpeer: served" / "chainpeer: err_chunk" for an answer.  Exit 0 if
 * the mode's expectation held (reply2/write2/writemany-bad/badinv/read2:
 * torn down or silent, never
 * answered as if the chunk had worked; depth: served and verified; nodepth:
 * ERR_CHUNK then a NULL Call served; kill/disconnect: every child did
 * what it was told).  Test code.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"

enum {
	CP_NRECV = 4,
	CP_BUF = RAWPEER_BUF,
	CP_CREDITS = 4,
	CP_WAIT_MS = 15000,
	/*
	 * reply2/read2: a Call the server wrongly serves is answered within
	 * a second even under TCG with sanitizers; silence this long is
	 * siw's teardown without notice (15 s there cost CI 40 s a run).
	 */
	CP_SILENT_MS = 6000,
	CP_SEG = 64 * 1024,		/* kill/disconnect: each Read segment */
	CP_NSEG = 16,
	CP_RD = CP_SEG * CP_NSEG,	/* what the server reads from us */
	CP_WR = 16384,			/* what it writes into */
};

#define ECHO_PROG	0x20049001u
#define ECHO_VERS	1u
#define ECHO_NULL	0u
#define ECHO_BYTES	1u
#define ECHO_PAIR	9u

static struct rdma_cm_id *id;
static uint8_t *rbuf, *sbuf, *rd, *wr;
static struct ibv_mr *rmr, *smr, *rdmr, *wrmr;
static uint32_t xid = 0x63680000;	/* "ch" */

static void put_words(struct msg *m, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	while (n--)
		put32(m, va_arg(ap, uint32_t));
	va_end(ap);
}

static void put_call(struct msg *m, uint32_t x, uint32_t proc)
{
	put_words(m, 10, x, 0u, 2u, ECHO_PROG, ECHO_VERS, proc, 0u, 0u, 0u, 0u);
}

static void put_hdr(struct msg *m, const struct rpcrdma_hdr *h)
{
	ssize_t n = rpcrdma_hdr_encode(m->m_buf + m->m_len,
				       sizeof(m->m_buf) - m->m_len, h);

	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	m->m_len += (size_t)n;
}

static void hdr_init(struct rpcrdma_hdr *h, uint32_t x, uint32_t proc)
{
	memset(h, 0, sizeof(*h));
	h->hd_xid = x;
	h->hd_vers = 1;
	h->hd_credits = CP_CREDITS;
	h->hd_proc = proc;
}

static int cp_swi;			/* -m badinv: we take Send With Invalidate */

/* A steering tag none of our registrations has. */
static uint32_t bogus_rkey(void)
{
	return rdmr->rkey ^ 0x5a5a5a00u;
}

static void post_recv(uint64_t slot)
{
	if (rdma_post_recv(id, (void *)(uintptr_t)slot, rbuf + slot * CP_BUF,
			   CP_BUF, rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

static void send_msg(const struct msg *m)
{
	struct ibv_wc wc;

	memcpy(sbuf, m->m_buf, m->m_len);
	if (rdma_post_send(id, NULL, sbuf, m->m_len, smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	if (!poll_cq(id->send_cq, &wc, CP_WAIT_MS))
		die("no send completion within %d ms", CP_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		die("send completion: %s", ibv_wc_status_str(wc.status));
}

/* 1: a message in *m; 0: the connection went down; -1: nothing in time. */
static int recv_msg(struct msg *m, int ms)
{
	struct ibv_wc wc;

	if (!poll_cq(id->recv_cq, &wc, ms))
		return -1;
	if (wc.status != IBV_WC_SUCCESS) {
		printf("# receive completion: %s\n", ibv_wc_status_str(wc.status));
		return 0;
	}
	if (wc.wr_id >= CP_NRECV || wc.byte_len > CP_BUF)
		die("receive completion: slot %llu, %u bytes",
		    (unsigned long long)wc.wr_id, wc.byte_len);
	m->m_len = wc.byte_len;
	memcpy(m->m_buf, rbuf + wc.wr_id * CP_BUF, wc.byte_len);
	post_recv(wc.wr_id);
	return 1;
}

static void connect_server(const char *addr, const char *port, const char *src,
			   int resp, int init, int timeout)
{
	int64_t deadline = now_ms() + (int64_t)timeout * 1000;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	uint32_t magic = htonl(RPCRDMA_CM_MAGIC);
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	uint64_t i;

	memcpy(pdata, &magic, 4);
	pdata[4] = RPCRDMA_CM_VERSION;
	pdata[5] = cp_swi ? RPCRDMA_CM_F_REMOTE_INV : 0;
	pdata[6] = CP_BUF / 1024 - 1;
	pdata[7] = CP_BUF / 1024 - 1;
	for (;;) {
		res = rawpeer_resolve(addr, port, src);
		memset(&attr, 0, sizeof(attr));
		attr.cap.max_send_wr = 4;
		attr.cap.max_recv_wr = CP_NRECV;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		attr.sq_sig_all = 1;
		if (rdma_create_ep(&id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		rmr = rdma_reg_msgs(id, rbuf, (size_t)CP_NRECV * CP_BUF);
		smr = rdma_reg_msgs(id, sbuf, CP_BUF);
		rdmr = rdma_reg_read(id, rd, CP_RD);
		wrmr = rdma_reg_write(id, wr, CP_WR);
		if (!rmr || !smr || !rdmr || !wrmr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < CP_NRECV; i++)
			post_recv(i);
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = (uint8_t)resp;
		param.initiator_depth = (uint8_t)init;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!rdma_connect(id, &param))
			break;
		printf("# connect: %s, retrying\n", strerror(errno));
		rdma_dereg_mr(rmr);
		rdma_dereg_mr(smr);
		rdma_dereg_mr(rdmr);
		rdma_dereg_mr(wrmr);
		rdma_destroy_ep(id);
		if (now_ms() >= deadline)
			die("could not connect in %d s", timeout);
		usleep(100 * 1000);
	}
	if (id->event)
		printf("# connected: the server accepted with responder_resources %u "
		       "initiator_depth %u\n", id->event->param.conn.responder_resources,
		       id->event->param.conn.initiator_depth);
}

/* What came back for x: "torn down", "err_chunk", "served", "silent". */
static const char *outcome_within(uint32_t x, struct msg *got, int wait_ms)
{
	for (;;) {
		int rc = recv_msg(got, wait_ms);

		if (rc < 0)
			return "silent";
		if (rc == 0)
			return "torn down";
		if (got->m_len < 16 || get32(got->m_buf) != x) {
			printf("# a message for another xid\n");
			continue;
		}
		if (get32(got->m_buf + 12) == RPCRDMA_ERROR)
			return got->m_len >= 20 && get32(got->m_buf + 16) ==
			       RPCRDMA_ERR_CHUNK ? "err_chunk" : "rdma_error";
		return "served";
	}
}

static const char *outcome(uint32_t x, struct msg *got)
{
	return outcome_within(x, got, CP_WAIT_MS);
}

/* A NULL Call answered: the connection still serves. */
static int null_served(void)
{
	struct rpcrdma_hdr h;
	struct msg m;
	uint32_t x = ++xid;

	hdr_init(&h, x, RPCRDMA_MSG);
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_NULL);
	send_msg(&m);
	return !strcmp(outcome(x, &m), "served");
}

/* (a) ECHO_BYTES of 6000 (one good Read segment at position 44); its
 * 6028-byte Reply must go into a Reply chunk of two 4 KiB segments, the
 * first of which has a bogus rkey. */
static const char *run_reply2(void)
{
	struct rpcrdma_hdr h;
	struct msg m, got;
	uint32_t x = ++xid, n = 6000;

	memset(rd, 0x42, n);
	hdr_init(&h, x, RPCRDMA_MSG);
	h.hd_nreads = 1;
	h.hd_reads[0].rd_position = 44;
	h.hd_reads[0].rd_seg.se_handle = rdmr->rkey;
	h.hd_reads[0].rd_seg.se_length = n;
	h.hd_reads[0].rd_seg.se_offset = (uintptr_t)rd;
	h.hd_has_reply = true;
	h.hd_reply.rc_nsegs = 2;
	h.hd_reply.rc_segs[0].se_handle = bogus_rkey();
	h.hd_reply.rc_segs[0].se_length = 4096;
	h.hd_reply.rc_segs[0].se_offset = (uintptr_t)wr;
	h.hd_reply.rc_segs[1].se_handle = wrmr->rkey;
	h.hd_reply.rc_segs[1].se_length = 4096;
	h.hd_reply.rc_segs[1].se_offset = (uintptr_t)wr + 4096;
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_BYTES);
	put32(&m, n);
	send_msg(&m);
	return outcome_within(x, &got, CP_SILENT_MS);
}

/* (a'') A NULL Call whose one rkey, a Reply chunk's, is bogus, on a
 * connection that said it takes Send With Invalidate. */
static const char *run_badinv(void)
{
	struct rpcrdma_hdr h;
	struct msg m, got;
	uint32_t x = ++xid;

	hdr_init(&h, x, RPCRDMA_MSG);
	h.hd_has_reply = true;
	h.hd_reply.rc_nsegs = 1;
	h.hd_reply.rc_segs[0].se_handle = bogus_rkey();
	h.hd_reply.rc_segs[0].se_length = 4096;
	h.hd_reply.rc_segs[0].se_offset = (uintptr_t)wr;
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_NULL);
	send_msg(&m);
	return outcome_within(x, &got, CP_SILENT_MS);
}

/* (a') The same echo with its 6000-byte result offered a Write chunk of
 * two 4 KiB segments, the first with a bogus rkey: the server places the
 * result there (direct placement), its Writes chained before its Send. */
static const char *run_write2(void)
{
	struct rpcrdma_hdr h;
	struct msg m, got;
	uint32_t x = ++xid, n = 6000;

	memset(rd, 0x42, n);
	hdr_init(&h, x, RPCRDMA_MSG);
	h.hd_nreads = 1;
	h.hd_reads[0].rd_position = 44;
	h.hd_reads[0].rd_seg.se_handle = rdmr->rkey;
	h.hd_reads[0].rd_seg.se_length = n;
	h.hd_reads[0].rd_seg.se_offset = (uintptr_t)rd;
	h.hd_nwrites = 1;
	h.hd_writes[0].rc_nsegs = 2;
	h.hd_writes[0].rc_segs[0].se_handle = bogus_rkey();
	h.hd_writes[0].rc_segs[0].se_length = 4096;
	h.hd_writes[0].rc_segs[0].se_offset = (uintptr_t)wr;
	h.hd_writes[0].rc_segs[1].se_handle = wrmr->rkey;
	h.hd_writes[0].rc_segs[1].se_length = 4096;
	h.hd_writes[0].rc_segs[1].se_offset = (uintptr_t)wr + 4096;
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_BYTES);
	put32(&m, n);
	send_msg(&m);
	return outcome_within(x, &got, CP_SILENT_MS);
}

/*
 * (a''') ECHO_PAIR of CP_PAIR bytes, its two results offered two Write
 * chunks of CP_PAIR_SEGS segments each (bogus: the first with a bogus
 * rkey).  *verified: the Reply said both went whole, and they did.
 */
enum { CP_PAIR = CP_WR / 2, CP_PAIR_SEGS = 16 };

static const char *run_writemany(int bogus, int *verified)
{
	struct rpcrdma_hdr h, rh;
	struct msg m, got;
	uint32_t x = ++xid, c, k, seg = CP_PAIR / CP_PAIR_SEGS;
	const char *o;

	memset(wr, 0, CP_WR);
	hdr_init(&h, x, RPCRDMA_MSG);
	h.hd_nwrites = 2;
	for (c = 0; c < 2; c++) {
		h.hd_writes[c].rc_nsegs = CP_PAIR_SEGS;
		for (k = 0; k < CP_PAIR_SEGS; k++) {
			struct rpcrdma_segment *s = &h.hd_writes[c].rc_segs[k];

			s->se_handle = wrmr->rkey;
			s->se_length = seg;
			s->se_offset = (uintptr_t)wr + c * CP_PAIR + k * seg;
		}
	}
	if (bogus)
		h.hd_writes[0].rc_segs[0].se_handle = bogus_rkey();
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_PAIR);
	put32(&m, CP_PAIR);
	send_msg(&m);
	o = outcome_within(x, &got, bogus ? CP_SILENT_MS : CP_WAIT_MS);
	*verified = 0;
	if (strcmp(o, "served") ||
	    rpcrdma_hdr_decode(got.m_buf, (uint32_t)got.m_len, &rh) ||
	    rh.hd_proc != RPCRDMA_MSG || rh.hd_nwrites != 2 ||
	    got.m_len < rh.hd_hdrlen + 32)
		return o;
	/* The RPC Reply: 24 bytes, then each opaque's length, its data
	 * placed (RFC 8166 3.4.6: neither it nor its roundup inline). */
	*verified = get32(got.m_buf + rh.hd_hdrlen + 24) == CP_PAIR &&
		    get32(got.m_buf + rh.hd_hdrlen + 28) == CP_PAIR;
	for (c = 0; c < 2 && *verified; c++) {
		uint32_t sum = 0;

		for (k = 0; k < rh.hd_writes[c].rc_nsegs; k++)
			sum += rh.hd_writes[c].rc_segs[k].se_length;
		*verified = sum == CP_PAIR;
	}
	for (k = 0; k < CP_PAIR && *verified; k++)
		*verified = wr[k] == (uint8_t)(k * 7 + 1) &&
			    wr[CP_PAIR + k] == (uint8_t)(k * 13 + 2);
	return o;
}

/* (b) RDMA_NOMSG: a NULL Call in two position-zero Read segments, the
 * first (its first 20 bytes) with a bogus rkey. */
static const char *run_read2(void)
{
	struct rpcrdma_hdr h;
	struct msg m, body, got;
	uint32_t x = ++xid;

	body.m_len = 0;
	put_call(&body, x, ECHO_NULL);
	memcpy(rd, body.m_buf, body.m_len);
	hdr_init(&h, x, RPCRDMA_NOMSG);
	h.hd_nreads = 2;
	h.hd_reads[0].rd_seg.se_handle = bogus_rkey();
	h.hd_reads[0].rd_seg.se_length = 20;
	h.hd_reads[0].rd_seg.se_offset = (uintptr_t)rd;
	h.hd_reads[1].rd_seg.se_handle = rdmr->rkey;
	h.hd_reads[1].rd_seg.se_length = (uint32_t)body.m_len - 20;
	h.hd_reads[1].rd_seg.se_offset = (uintptr_t)rd + 20;
	m.m_len = 0;
	put_hdr(&m, &h);
	send_msg(&m);
	return outcome_within(x, &got, CP_SILENT_MS);
}

/*
 * ECHO_BYTES whose 2048 bytes of data are one Read chunk of 8 segments
 * of 256 at position 44: served whole (want_served), or ERR_CHUNK.
 */
static const char *run_depth(int *verified)
{
	struct rpcrdma_hdr h;
	struct msg m, got;
	uint32_t x = ++xid, k, n = 2048;
	const char *o;

	for (k = 0; k < n; k++)
		rd[k] = (uint8_t)(k * 7 + 3);
	hdr_init(&h, x, RPCRDMA_MSG);
	h.hd_nreads = 8;
	for (k = 0; k < 8; k++) {
		h.hd_reads[k].rd_position = 44;
		h.hd_reads[k].rd_seg.se_handle = rdmr->rkey;
		h.hd_reads[k].rd_seg.se_length = n / 8;
		h.hd_reads[k].rd_seg.se_offset = (uintptr_t)rd + k * (n / 8);
	}
	m.m_len = 0;
	put_hdr(&m, &h);
	put_call(&m, x, ECHO_BYTES);
	put32(&m, n);
	send_msg(&m);
	o = outcome(x, &got);
	*verified = 0;
	if (!strcmp(o, "served")) {
		struct rpcrdma_hdr rh;
		const uint8_t *p;

		/* RDMA_MSG, no chunks; the RPC Reply: 24 bytes, length, data. */
		if (rpcrdma_hdr_decode(got.m_buf, (uint32_t)got.m_len, &rh) ||
		    got.m_len < rh.hd_hdrlen + 28 + n)
			return o;
		p = got.m_buf + rh.hd_hdrlen;
		*verified = get32(p + 24) == n;
		for (k = 0; k < n && *verified; k++)
			*verified = p[28 + k] == (uint8_t)(k * 7 + 3);
	}
	return o;
}

/* One child: a 1 MiB Long Call in 16 Read segments, then gone after ms. */
static void dying_child(const char *addr, const char *port, const char *src,
			int ms, int killself)
{
	struct rpcrdma_hdr h;
	struct msg m, body;
	uint32_t x, k, n = CP_RD - 44;

	xid = rawpeer_xid_seed();	/* each child its own: not a retransmission */
	x = ++xid;
	alarm(30);	/* a server that hangs cannot hold the child */
	connect_server(addr, port, src, 8, 8, 5);
	body.m_len = 0;
	put_call(&body, x, ECHO_BYTES);
	put32(&body, n);
	memcpy(rd, body.m_buf, body.m_len);
	for (k = 44; k < CP_RD; k++)
		rd[k] = (uint8_t)k;
	hdr_init(&h, x, RPCRDMA_NOMSG);
	h.hd_nreads = CP_NSEG;
	for (k = 0; k < CP_NSEG; k++) {
		h.hd_reads[k].rd_seg.se_handle = rdmr->rkey;
		h.hd_reads[k].rd_seg.se_length = CP_SEG;
		h.hd_reads[k].rd_seg.se_offset = (uintptr_t)rd + (uint64_t)k * CP_SEG;
	}
	m.m_len = 0;
	put_hdr(&m, &h);
	send_msg(&m);
	if (ms)
		usleep((useconds_t)ms * 1000);
	if (killself)
		kill(getpid(), SIGKILL);
	/* Disconnect and go, while the Reads may still be under way. */
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	rdma_dereg_mr(rdmr);
	rdma_destroy_id(id);
	_exit(0);
}

static void usage(void)
{
	fprintf(stderr, "usage: chainpeer -m MODE -a SERVER -b SOURCE -p PORT "
		"[-R RESP] [-I INIT] [-n N] [-t SECS] [-S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *port = NULL, *mode = NULL;
	int resp = 1, init = 1, n = 8, timeout = 60, c, ok = 0, shutdown = 0;
	const char *o;

	xid = rawpeer_xid_seed();
	while ((c = getopt(argc, argv, "m:a:b:p:R:I:n:t:S")) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'a': addr = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = optarg; break;
		case 'R': resp = atoi(optarg); break;
		case 'I': init = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'S': shutdown = 1; break;
		default: usage();
		}
	}
	if (!mode || !addr || !port)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "chainpeer";
	alarm((unsigned)timeout + 60);
	rbuf = calloc(CP_NRECV, CP_BUF);
	sbuf = calloc(1, CP_BUF);
	rd = calloc(1, CP_RD);
	wr = calloc(1, CP_WR);
	if (!rbuf || !sbuf || !rd || !wr)
		die("out of memory");

	if (!strcmp(mode, "kill") || !strcmp(mode, "disconnect")) {
		int i, killself = !strcmp(mode, "kill");

		/* verbs only in the children: nothing to share across fork. */
		ok = 1;
		for (i = 0; i < n; i++) {
			int st, ms = i * 3;	/* 0, 3, 6 ... ms after the Call */
			pid_t pid = fork();

			if (pid < 0)
				die("fork: %s", strerror(errno));
			if (!pid)
				dying_child(addr, port, src, ms, killself);
			if (waitpid(pid, &st, 0) < 0)
				die("waitpid: %s", strerror(errno));
			if (killself ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) :
			    !(WIFEXITED(st) && !WEXITSTATUS(st))) {
				printf("chainpeer: child %d did not %s (status %#x)\n",
				       i, mode, st);
				ok = 0;
			}
		}
		printf("chainpeer: %d children %s mid-chain\n", n,
		       killself ? "killed" : "disconnected");
		return ok ? 0 : 1;
	}

	cp_swi = !strcmp(mode, "badinv");
	connect_server(addr, port, src, resp, init, timeout);
	if (!null_served())
		die("a NULL Call was not served after connecting");
	if (!strcmp(mode, "reply2")) {
		o = run_reply2();
		ok = !strcmp(o, "torn down") || !strcmp(o, "silent");
	} else if (!strcmp(mode, "badinv")) {
		o = run_badinv();
		ok = !strcmp(o, "torn down") || !strcmp(o, "silent");
	} else if (!strcmp(mode, "write2")) {
		o = run_write2();
		ok = !strcmp(o, "torn down") || !strcmp(o, "silent");
	} else if (!strcmp(mode, "writemany")) {
		int verified;

		o = run_writemany(0, &verified);
		ok = !strcmp(o, "served") && verified;
		printf("chainpeer: pair %s\n", verified ? "verified" : "WRONG");
	} else if (!strcmp(mode, "writemany-bad")) {
		int verified;

		o = run_writemany(1, &verified);
		ok = !strcmp(o, "torn down") || !strcmp(o, "silent");
	} else if (!strcmp(mode, "read2")) {
		o = run_read2();
		ok = !strcmp(o, "torn down") || !strcmp(o, "silent");
	} else if (!strcmp(mode, "depth")) {
		int verified;

		o = run_depth(&verified);
		ok = !strcmp(o, "served") && verified;
		printf("chainpeer: echo %s\n", verified ? "verified" : "WRONG");
	} else if (!strcmp(mode, "nodepth")) {
		int verified;

		o = run_depth(&verified);
		ok = !strcmp(o, "err_chunk") && null_served();
		printf("chainpeer: %s after ERR_CHUNK\n",
		       ok ? "still served" : "NOT served");
	} else {
		usage();
	}
	printf("chainpeer: %s\n", o);
	if (shutdown) {
		struct rpcrdma_hdr h;
		struct msg m;
		uint32_t x = ++xid;

		hdr_init(&h, x, RPCRDMA_MSG);
		m.m_len = 0;
		put_hdr(&m, &h);
		put_call(&m, x, 4u /* ECHO_SHUTDOWN */);
		send_msg(&m);
		if (strcmp(outcome(x, &m), "served")) {
			printf("chainpeer: ECHO_SHUTDOWN not served\n");
			ok = 0;
		}
	}
	rdma_disconnect(id);
	rdma_dereg_mr(rmr);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(rdmr);
	rdma_dereg_mr(wrmr);
	rdma_destroy_ep(id);
	return ok ? 0 : 1;
}
