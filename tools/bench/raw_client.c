/*
 * rpcrdma_bench's raw-verbs baseline, client side: the connection, and one
 * cell as a pipelined Send/Receive ping-pong or one-sided RDMA Write/Read,
 * every payload verified.  It is the floor librpcrdma is measured against,
 * so it does the least a correct, verified exchange needs.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "raw_int.h"

enum { RAW_WAIT_SEND = 1, RAW_WAIT_REPLY = 2, RAW_WAIT_DONE = 4 };

struct raw_slot {
	double s_t0;		/* posted at */
	uint32_t s_seq;
	uint8_t s_wait;		/* RAW_WAIT_* still to come */
	uint8_t s_measured;
};

struct bench_raw_client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *smr, *rmr, *wmr;
	uint8_t *sbuf, *rbuf;	/* depth x stride: requests, replies */
	uint8_t *wsrc;		/* what RDMA Writes write */
	uint8_t *pattern;	/* what the server's pattern must be */
	size_t stride;
	unsigned depth, max_size, rd;
	int event_mode, armed, broken;
	uint64_t raddr;		/* server region: pattern, then write area */
	uint32_t rkey, seq, cell;
	struct raw_slot *slots;
	unsigned *free_slots, nfree;
	const char *stage;	/* where a connect attempt failed */
};

static int raw_repost(struct bench_raw_client *rc, uint32_t i)
{
	return raw_post_recv(rc->id->qp, rc->rbuf + i * rc->stride, rc->stride,
			     rc->rmr->lkey, i);
}

/* Wait for `want`; copies private data of it (or of a reject) out. */
static int raw_cm_wait(struct rdma_event_channel *ch,
		       enum rdma_cm_event_type want, int timeout_ms,
		       void *pdata, size_t pdlen)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;
	int status, n;

	while (rdma_get_cm_event(ch, &ev)) {
		if (errno != EAGAIN)
			return -errno;
		n = poll(&pfd, 1, timeout_ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
	}
	got = ev->event;
	status = ev->status;
	if (pdata && (got == want || got == RDMA_CM_EVENT_REJECTED)) {
		memset(pdata, 0, pdlen);
		if (ev->param.conn.private_data)
			memcpy(pdata, ev->param.conn.private_data,
			       raw_min(pdlen, ev->param.conn.private_data_len));
	}
	rdma_ack_cm_event(ev);
	if (got == want)
		return 0;
	switch (got) {
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return status < 0 ? status : -ECONNABORTED;
	default:
		return -EPROTO;
	}
}

/*
 * Buffers, once per client (kept across connect attempts).  The request
 * buffers double as RDMA Read sinks; iWARP places Read responses like
 * Writes, hence REMOTE_WRITE on them.  Each slot's payload is distinct,
 * so an echo of the wrong request cannot pass.
 */
static int raw_client_buffers(struct bench_raw_client *rc)
{
	size_t all = rc->depth * rc->stride;
	unsigned i;
	int err;

	rc->pd = ibv_alloc_pd(rc->id->verbs);
	rc->cc = ibv_create_comp_channel(rc->id->verbs);
	rc->slots = calloc(rc->depth, sizeof(*rc->slots));
	rc->free_slots = calloc(rc->depth, sizeof(*rc->free_slots));
	rc->pattern = malloc(rc->max_size ? rc->max_size : 1);
	if (!rc->pd || !rc->cc || !rc->slots || !rc->free_slots || !rc->pattern)
		return -ENOMEM;
	err = raw_nonblock(rc->cc->fd);
	if (!err)
		err = raw_alloc(rc->pd, all, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE, &rc->sbuf, &rc->smr);
	if (!err)
		err = raw_alloc(rc->pd, all, IBV_ACCESS_LOCAL_WRITE, &rc->rbuf,
				&rc->rmr);
	if (!err)
		err = raw_alloc(rc->pd, rc->max_size, IBV_ACCESS_LOCAL_WRITE,
				&rc->wsrc, &rc->wmr);
	if (err)
		return err;
	raw_fill(rc->pattern, rc->max_size, 0);
	for (i = 0; i < rc->depth; i++)
		raw_fill(rc->sbuf + i * rc->stride + RAW_HDR, rc->max_size, i + 1);
	return 0;
}

/* Undo one connect attempt: the QP, CQ and id, not the buffers. */
static void raw_attempt_undo(struct bench_raw_client *rc)
{
	if (rc->id && rc->id->qp)
		rdma_destroy_qp(rc->id);
	if (rc->cq)
		ibv_destroy_cq(rc->cq);
	rc->cq = NULL;
	if (rc->id)
		rdma_destroy_id(rc->id);
	rc->id = NULL;
	rc->armed = 0;
}

/* One attempt; *fatal set when retrying cannot help. */
static int raw_attempt(struct bench_raw_client *rc,
		       const struct rdma_addrinfo *ai, double deadline,
		       int *fatal)
{
	struct raw_hello h = {
		.rh_magic = htobe32(RAW_MAGIC), .rh_version = RAW_VERSION,
		.rh_event = (uint8_t)rc->event_mode,
		.rh_max_size = htobe32(rc->max_size),
		.rh_depth = htobe32(rc->depth),
	};
	struct raw_welcome w;
	struct rdma_conn_param p;
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr da;
	struct ibv_qp_attr qattr;
	double left;
	unsigned i;
	int err;

	rc->stage = "resolve";
	if (rdma_create_id(rc->ch, &rc->id, rc, RDMA_PS_TCP))
		return -errno;
	if (rdma_resolve_addr(rc->id, ai->ai_src_addr, ai->ai_dst_addr, 2000))
		return -errno;
	err = raw_cm_wait(rc->ch, RDMA_CM_EVENT_ADDR_RESOLVED, 2500, NULL, 0);
	if (!err && rdma_resolve_route(rc->id, 2000))
		err = -errno;
	if (!err)
		err = raw_cm_wait(rc->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 2500,
				  NULL, 0);
	if (err)
		return err;

	rc->stage = "setup";
	*fatal = 1;
	if (rc->pd && rc->pd->context != rc->id->verbs)
		return -ENODEV;	/* another device than the first attempt's */
	if (!rc->pd && (err = raw_client_buffers(rc)))
		return err;
	if (ibv_query_device(rc->id->verbs, &da))
		return -errno;
	rc->cq = ibv_create_cq(rc->id->verbs, (int)(2 * rc->depth + 1), rc,
			       rc->cc, 0);
	if (!rc->cq)
		return -errno;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = rc->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = rc->depth + 1;	/* + the write cell's check */
	qa.cap.max_recv_wr = rc->depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(rc->id, rc->pd, &qa))
		return -errno;
	for (i = 0; i < rc->depth; i++)
		if ((err = raw_repost(rc, i)))
			return err;

	rc->stage = "connect";
	*fatal = 0;
	memset(&p, 0, sizeof(p));
	p.private_data = &h;
	p.private_data_len = sizeof(h);
	/* RDMA Read needs both: initiator on our side, resources on theirs. */
	p.responder_resources = (uint8_t)raw_min(RAW_MAX_RD,
						 (unsigned)da.max_qp_rd_atom);
	p.initiator_depth = (uint8_t)raw_min(RAW_MAX_RD,
					     (unsigned)da.max_qp_init_rd_atom);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(rc->id, &p))
		return -errno;
	left = deadline - bench_now();
	err = raw_cm_wait(rc->ch, RDMA_CM_EVENT_ESTABLISHED,
			  left > 5 ? (int)(left * 1000) : 5000, &w, sizeof(w));
	if (err == -ECONNREFUSED && be32toh(w.rw_magic) == RAW_MAGIC &&
	    w.rw_status) {
		rc->stage = "server refused";
		*fatal = 1;
		return -(int)be32toh((uint32_t)w.rw_status);
	}
	if (err)
		return err;

	rc->stage = "server's accept";
	*fatal = 1;
	if (be32toh(w.rw_magic) != RAW_MAGIC ||
	    be32toh(w.rw_max_size) < rc->max_size ||
	    be32toh(w.rw_depth) < rc->depth ||
	    be32toh(w.rw_len) < 2 * rc->max_size)
		return -EPROTO;
	rc->raddr = be64toh(w.rw_addr);
	rc->rkey = be32toh(w.rw_rkey);
	rc->rd = raw_min(p.initiator_depth, be32toh(w.rw_rd));
	memset(&qattr, 0, sizeof(qattr));
	if (!ibv_query_qp(rc->id->qp, &qattr, IBV_QP_MAX_QP_RD_ATOMIC, &qa) &&
	    qattr.max_rd_atomic)
		rc->rd = raw_min(rc->rd, qattr.max_rd_atomic);
	return 0;
}

void bench_raw_close(struct bench_raw_client *rc)
{
	if (!rc)
		return;
	if (rc->id)
		rdma_disconnect(rc->id);
	raw_attempt_undo(rc);
	raw_release(&rc->sbuf, &rc->smr);
	raw_release(&rc->rbuf, &rc->rmr);
	raw_release(&rc->wsrc, &rc->wmr);
	if (rc->cc)
		ibv_destroy_comp_channel(rc->cc);
	if (rc->pd)
		ibv_dealloc_pd(rc->pd);
	if (rc->ch)
		rdma_destroy_event_channel(rc->ch);
	free(rc->pattern);
	free(rc->slots);
	free(rc->free_slots);
	free(rc);
}

struct bench_raw_client *bench_raw_connect(const char *addr, const char *source,
					   unsigned port, int event_mode,
					   unsigned max_size, unsigned max_depth,
					   char *err, size_t errlen)
{
	struct rdma_addrinfo hints, *res = NULL, *src = NULL;
	struct bench_raw_client *rc;
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	char service[16];
	double deadline = bench_now() + RAW_CONNECT_SECS;
	int e, fatal;

	rc = calloc(1, sizeof(*rc));
	if (!rc) {
		raw_msg(err, errlen, "raw connect: out of memory");
		return NULL;
	}
	rc->event_mode = !!event_mode;
	rc->max_size = max_size;
	rc->depth = max_depth ? max_depth : 1;
	rc->stride = (RAW_HDR + max_size + 63) & ~(size_t)63;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (source) {
		/* The source address picks the device (and test host). */
		hints.ai_flags = RAI_PASSIVE;
		if (rdma_getaddrinfo(source, NULL, &hints, &src)) {
			raw_msg(err, errlen, "raw connect: source %s: %s", source,
				strerror(errno ? errno : EADDRNOTAVAIL));
			goto out_free;
		}
		hints.ai_flags = 0;
		hints.ai_src_addr = src->ai_src_addr;
		hints.ai_src_len = src->ai_src_len;
	}
	snprintf(service, sizeof(service), "%u", port);
	if (rdma_getaddrinfo(addr, service, &hints, &res)) {
		raw_msg(err, errlen, "raw connect: %s:%u: %s", addr, port,
			strerror(errno ? errno : EHOSTUNREACH));
		goto out_free;
	}
	rc->ch = rdma_create_event_channel();
	if (!rc->ch || raw_nonblock(rc->ch->fd)) {
		raw_msg(err, errlen, "raw connect: event channel: %s",
			strerror(errno));
		goto out_free;
	}
	/* Refused, unreachable or timed out: the listener may not be up yet. */
	for (;;) {
		fatal = 0;
		e = raw_attempt(rc, res, deadline, &fatal);
		if (!e)
			break;
		raw_attempt_undo(rc);
		if (fatal || bench_now() >= deadline) {
			raw_msg(err, errlen, "raw connect %s:%u: %s: %s", addr,
				port, rc->stage, strerror(-e));
			goto out_free;
		}
		nanosleep(&nap, NULL);
	}
	rdma_freeaddrinfo(res);
	if (src)
		rdma_freeaddrinfo(src);
	return rc;

out_free:
	if (res)
		rdma_freeaddrinfo(res);
	if (src)
		rdma_freeaddrinfo(src);
	bench_raw_close(rc);
	return NULL;
}

/* ---- one cell ------------------------------------------------------------ */

struct raw_cell {
	enum bench_strategy kind;
	uint32_t size, req_len, reply_len;
	int echo;
	unsigned inflight, outstanding;
	int posting, failed;
	double t_meas, t_stop, last_done;
	unsigned long want, posted, done;	/* measured operations */
	struct bench_samples *lat;
	char *note;
	size_t notelen;
};

/*
 * Next completions, busy-polling or sleeping as the connection's mode
 * says: arm, poll once more (a completion may have come before the arm
 * took), only then sleep.  -ETIMEDOUT when nothing came for RAW_STALL_SECS.
 */
static int raw_poll(struct bench_raw_client *rc, struct ibv_wc *wc, int max)
{
	struct pollfd pfd = { .fd = rc->cc->fd, .events = POLLIN };
	double since = bench_now(), left;
	unsigned spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(rc->cq, max, wc);
		if (n)
			return n < 0 ? -EIO : n;
		if (!rc->event_mode) {
			if (++spins % RAW_SPIN_CHECK == 0 &&
			    bench_now() - since > RAW_STALL_SECS)
				return -ETIMEDOUT;
			continue;
		}
		if (!rc->armed) {
			if (ibv_req_notify_cq(rc->cq, 0))
				return -EIO;
			rc->armed = 1;
			continue;
		}
		left = since + RAW_STALL_SECS - bench_now();
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left < 1 ? (int)(left * 1000) + 1 : 1000) < 0 &&
		    errno != EINTR)
			return -errno;
		raw_cq_events(rc->cc, rc->cq, &rc->armed);
	}
}

static int raw_post(struct bench_raw_client *rc, struct raw_cell *c, unsigned s)
{
	uint8_t *buf = rc->sbuf + s * rc->stride;
	struct raw_slot *sl = &rc->slots[s];
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct raw_hdr h;

	if (c->kind == BS_RAW_POLL || c->kind == BS_RAW_EVENT) {
		sl->s_seq = ++rc->seq;
		h.h_seq = htobe32(sl->s_seq);
		h.h_slot = htobe32(s);
		h.h_len = htobe32(c->req_len);
		h.h_reply = htobe32(c->reply_len);
		memcpy(buf, &h, sizeof(h));
		sge = (struct ibv_sge){ (uintptr_t)buf, RAW_HDR + c->req_len,
					rc->smr->lkey };
		wr.wr_id = RAW_WRID(RAW_WR_SEND, s);
		wr.opcode = IBV_WR_SEND;
		sl->s_wait = RAW_WAIT_SEND | RAW_WAIT_REPLY;
	} else if (c->kind == BS_RAW_WRITE) {
		sge = (struct ibv_sge){ (uintptr_t)rc->wsrc, c->size,
					rc->wmr->lkey };
		wr.wr_id = RAW_WRID(RAW_WR_ONESIDED, s);
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = rc->raddr + rc->max_size;
		wr.wr.rdma.rkey = rc->rkey;
		sl->s_wait = RAW_WAIT_DONE;
	} else {
		raw_scrub(buf + RAW_HDR, c->size, rc->pattern);
		sge = (struct ibv_sge){ (uintptr_t)(buf + RAW_HDR), c->size,
					rc->smr->lkey };
		wr.wr_id = RAW_WRID(RAW_WR_ONESIDED, s);
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = rc->raddr;
		wr.wr.rdma.rkey = rc->rkey;
		sl->s_wait = RAW_WAIT_DONE;
	}
	sl->s_t0 = bench_now();
	return -ibv_post_send(rc->id->qp, &wr, &bad);
}

/* A call or one-sided operation is done: count it, time it. */
static void raw_done(struct raw_cell *c, struct raw_slot *sl, double now)
{
	if (!sl->s_measured || c->failed)
		return;
	c->done++;
	c->last_done = now;
	if (c->lat && c->lat->bs_n < c->lat->bs_cap)
		c->lat->bs_us[c->lat->bs_n++] = (float)((now - sl->s_t0) * 1e6);
}


/*
 * A reply in receive buffer b: match it to its call, time and verify it,
 * repost b.  *freed is the slot it finished, if its Send is done too.
 */
static int raw_reply(struct bench_raw_client *rc, struct raw_cell *c,
		     uint32_t b, uint32_t byte_len, double now, int *freed)
{
	uint8_t *buf = rc->rbuf + b * rc->stride;
	const uint8_t *want;
	struct raw_slot *sl;
	struct raw_hdr h;
	uint32_t s, len;
	size_t at;
	int err = 0;

	memcpy(&h, buf, sizeof(h));
	s = be32toh(h.h_slot);
	if (byte_len < RAW_HDR || s >= rc->depth ||
	    !(rc->slots[s].s_wait & RAW_WAIT_REPLY) ||
	    rc->slots[s].s_seq != be32toh(h.h_seq)) {
		/* Which call this answers cannot be told: no drain possible. */
		raw_msg(c->note, c->notelen, "raw: a %u-byte reply matches no "
			"call in flight (seq %u, slot %u)", byte_len,
			be32toh(h.h_seq), s);
		rc->broken = 1;
		return -EIO;
	}
	sl = &rc->slots[s];
	sl->s_wait &= (uint8_t)~RAW_WAIT_REPLY;
	if (!sl->s_wait)
		*freed = (int)s;
	raw_done(c, sl, now);
	len = byte_len - RAW_HDR;
	if (!c->failed) {
		want = c->echo ? rc->sbuf + s * rc->stride + RAW_HDR : rc->pattern;
		if (len != c->reply_len || be32toh(h.h_len) != len) {
			raw_msg(c->note, c->notelen, "raw: reply seq %u carries %u "
				"bytes (header: %u), expected %u", sl->s_seq, len,
				be32toh(h.h_len), c->reply_len);
			err = -EIO;
		} else if ((at = raw_diff(buf + RAW_HDR, want, len)) < len) {
			raw_msg(c->note, c->notelen, "raw: reply seq %u byte %zu "
				"is 0x%02x, expected 0x%02x (%s)", sl->s_seq, at,
				buf[RAW_HDR + at], want[at],
				c->echo ? "echo" : "pattern");
			err = -EIO;
		}
	}
	raw_scrub(buf, byte_len, NULL);
	if (raw_repost(rc, b)) {
		raw_msg(c->note, c->notelen, "raw: repost receive failed");
		rc->broken = 1;
		return -EIO;
	}
	return err;
}

/* One completion; *freed is the slot it finished, else -1. */
static int raw_complete(struct bench_raw_client *rc, struct raw_cell *c,
			const struct ibv_wc *wc, double now, int *freed)
{
	static const char *const what[] = { "unknown", "Send", "Receive",
					    "RDMA", "check Read" };
	unsigned type = RAW_WR_TYPE(wc->wr_id), idx = RAW_WR_IDX(wc->wr_id);
	struct raw_slot *sl;
	size_t at;

	*freed = -1;
	if (wc->status != IBV_WC_SUCCESS || type < RAW_WR_SEND ||
	    type > RAW_WR_ONESIDED || idx >= rc->depth) {
		raw_msg(c->note, c->notelen, "raw: %s completion: %s",
			what[type <= RAW_WR_CHECK ? type : 0],
			ibv_wc_status_str(wc->status));
		rc->broken = 1;
		return wc->status == IBV_WC_WR_FLUSH_ERR ? -ECONNRESET : -EIO;
	}
	if (type == RAW_WR_RECV)
		return raw_reply(rc, c, idx, wc->byte_len, now, freed);
	sl = &rc->slots[idx];
	if (type == RAW_WR_SEND) {
		sl->s_wait &= (uint8_t)~RAW_WAIT_SEND;
		if (!sl->s_wait)
			*freed = (int)idx;
		return 0;
	}
	sl->s_wait = 0;
	*freed = (int)idx;
	raw_done(c, sl, now);
	if (c->kind != BS_RAW_READ || c->failed)
		return 0;
	at = raw_diff(rc->sbuf + idx * rc->stride + RAW_HDR, rc->pattern, c->size);
	if (at == c->size)
		return 0;
	raw_msg(c->note, c->notelen, "raw: RDMA Read byte %zu is 0x%02x, "
		"expected 0x%02x", at, rc->sbuf[idx * rc->stride + RAW_HDR + at],
		rc->pattern[at]);
	return -EIO;
}

/*
 * Keep c->inflight operations posted until the cell is over, then drain.
 * An operation is measured when posted after the warm-up; posting stops
 * after br_duration (or br_count measured operations).  After a payload
 * mismatch the cell stops posting and drains, so the connection stays
 * usable; after a transport error the connection is marked broken.
 */
static int raw_loop(struct bench_raw_client *rc, struct raw_cell *c)
{
	struct ibv_wc wc[16];
	double now = bench_now();
	int n, i, e, freed, err = 0;
	unsigned s;

	for (;;) {
		while (c->posting && !c->failed && rc->nfree &&
		       c->outstanding < c->inflight) {
			int measured = now >= c->t_meas;

			if (measured && (c->want ? c->posted >= c->want :
					 now >= c->t_stop)) {
				c->posting = 0;
				break;
			}
			s = rc->free_slots[--rc->nfree];
			rc->slots[s].s_measured = (uint8_t)measured;
			e = raw_post(rc, c, s);
			if (e) {
				raw_msg(c->note, c->notelen, "raw: post: %s",
					strerror(-e));
				rc->broken = 1;
				return e;
			}
			c->outstanding++;
			c->posted += (unsigned long)measured;
		}
		if (!c->outstanding)
			return err;
		n = raw_poll(rc, wc, 16);
		if (n < 0) {
			raw_msg(c->note, c->notelen, "raw: %s, %u operations "
				"outstanding", n == -ETIMEDOUT ? "nothing completed "
				"for 10 s" : "polling the CQ failed", c->outstanding);
			rc->broken = 1;
			return n;
		}
		now = bench_now();
		for (i = 0; i < n; i++) {
			e = raw_complete(rc, c, &wc[i], now, &freed);
			if (rc->broken)
				return err ? err : e;
			if (e && !err) {
				err = e;
				c->failed = 1;
			}
			if (freed >= 0) {
				rc->free_slots[rc->nfree++] = (unsigned)freed;
				c->outstanding--;
			}
		}
	}
}

/* The write cell's end: read the write area back, compare with wsrc. */
static int raw_check_write(struct bench_raw_client *rc, struct raw_cell *c)
{
	uint8_t *dst = rc->sbuf + RAW_HDR;
	struct ibv_sge sge = { (uintptr_t)dst, c->size, rc->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = RAW_WRID(RAW_WR_CHECK, 0), .sg_list = &sge,
		.num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	size_t at;
	int n;

	raw_scrub(dst, c->size, rc->wsrc);
	wr.wr.rdma.remote_addr = rc->raddr + rc->max_size;
	wr.wr.rdma.rkey = rc->rkey;
	n = -ibv_post_send(rc->id->qp, &wr, &bad);
	if (!n)
		n = raw_poll(rc, &wc, 1);
	if (n < 0 || wc.status != IBV_WC_SUCCESS ||
	    RAW_WR_TYPE(wc.wr_id) != RAW_WR_CHECK) {
		raw_msg(c->note, c->notelen, "raw: reading the written region "
			"back: %s", n < 0 ? strerror(-n) :
			ibv_wc_status_str(wc.status));
		rc->broken = 1;
		return n < 0 ? n : -EIO;
	}
	at = raw_diff(dst, rc->wsrc, c->size);
	if (at == c->size)
		return 0;
	raw_msg(c->note, c->notelen, "raw: RDMA Write region byte %zu reads "
		"back 0x%02x, wrote 0x%02x", at, dst[at], rc->wsrc[at]);
	return -EIO;
}

int bench_raw_run(struct bench_raw_client *rc, enum bench_strategy kind,
		  const struct bench_run *run, struct bench_samples *lat,
		  uint64_t *calls, double *secs, char *note, size_t notelen)
{
	struct raw_cell c = {
		.kind = kind, .size = run->br_size, .inflight = run->br_inflight,
		.posting = 1, .want = run->br_duration > 0 ? 0 : run->br_count,
		.lat = lat, .note = note, .notelen = notelen,
	};
	unsigned i;
	int err;

	*calls = 0;
	*secs = 0;
	raw_msg(note, notelen, "%s", "");
	if (!rc)
		return -EINVAL;
	if (rc->broken) {
		raw_msg(note, notelen, "raw: connection unusable after an "
			"earlier error");
		return -ENOTCONN;
	}
	if (kind != BS_RAW_POLL && kind != BS_RAW_EVENT &&
	    kind != BS_RAW_WRITE && kind != BS_RAW_READ) {
		raw_msg(note, notelen, "raw: %s is no raw-verbs kind",
			bench_strategy_name(kind));
		return -EINVAL;
	}
	if ((kind == BS_RAW_POLL && rc->event_mode) ||
	    (kind == BS_RAW_EVENT && !rc->event_mode)) {
		raw_msg(note, notelen, "raw: %s needs a connection made with "
			"event mode %d", bench_strategy_name(kind), !rc->event_mode);
		return -EINVAL;
	}
	if (run->br_workload >= BW_NR || !c.inflight || c.inflight > rc->depth ||
	    (run->br_duration <= 0 && !run->br_count)) {
		raw_msg(note, notelen, "raw: %u in flight (connection depth %u), "
			"%.3g s or %lu calls: invalid", c.inflight, rc->depth,
			run->br_duration, run->br_count);
		return -EINVAL;
	}
	if (c.size > rc->max_size && (run->br_workload != BW_NULL ||
				      kind == BS_RAW_WRITE || kind == BS_RAW_READ)) {
		raw_msg(note, notelen, "raw: %u bytes over the connection's "
			"largest, %u", c.size, rc->max_size);
		return -EMSGSIZE;
	}
	switch (kind) {
	case BS_RAW_WRITE:
	case BS_RAW_READ:
		if (!c.size) {
			raw_msg(note, notelen, "raw: zero-byte RDMA");
			return -EINVAL;
		}
		if (kind == BS_RAW_WRITE) {
			raw_fill(rc->wsrc, c.size, 1000 + ++rc->cell);
			break;
		}
		if (!rc->rd) {
			raw_msg(note, notelen, "raw: no RDMA Read credits granted");
			return -EOPNOTSUPP;
		}
		/* More Reads than the negotiated initiator depth would stall. */
		if (c.inflight > rc->rd) {
			c.inflight = rc->rd;
			raw_msg(note, notelen, "raw: Reads capped at %u in flight "
				"(initiator depth)", rc->rd);
		}
		break;
	default:
		c.req_len = run->br_workload == BW_WRITE ||
			    run->br_workload == BW_ECHO ? c.size : 0;
		c.reply_len = run->br_workload == BW_READ ||
			      run->br_workload == BW_ECHO ? c.size : 0;
		c.echo = c.req_len == c.reply_len;
		break;
	}
	rc->nfree = rc->depth;
	for (i = 0; i < rc->depth; i++) {
		rc->free_slots[i] = rc->depth - 1 - i;
		rc->slots[i].s_wait = 0;
	}
	c.t_meas = bench_now() + (run->br_warmup > 0 ? run->br_warmup : 0);
	c.t_stop = c.t_meas + run->br_duration;
	err = raw_loop(rc, &c);
	if (!err && kind == BS_RAW_WRITE)
		err = raw_check_write(rc, &c);
	*calls = c.done;
	*secs = c.done ? c.last_done - c.t_meas : 0;
	return err;
}
