/*
 * rpcrdma_bench's raw-verbs baseline, server side: a listener thread, and
 * one thread per connection answering each request with one Send, busy-
 * polling or sleeping on its completion channel as the client asked.
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

/* One accepted connection, served by its own thread. */
struct raw_conn {
	struct rdma_cm_id *id;
	struct rdma_event_channel *ch;	/* its own: the id migrates here */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *rmr, *hmr, *amr;
	uint8_t *rbuf, *hdrs, *region;
	size_t stride;
	unsigned depth, nslots, max_size;
	struct raw_req { uint32_t idx, len; } *queue;	/* to answer */
	unsigned q_head, q_n, sending;
	int event_mode, armed;
	uint8_t peer_ini, peer_resp;	/* client's initiator depth, resources */
};

static struct {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	pthread_t thread;
	int running;
	atomic_int stopping;	/* connection threads watch it too */
	unsigned max_size, max_depth;
} raw_srv;

static void raw_conn_free(struct raw_conn *c)
{
	if (c->id) {
		rdma_disconnect(c->id);	/* flushes; harmless if never up */
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	raw_release(&c->rbuf, &c->rmr);
	raw_release(&c->hdrs, &c->hmr);
	raw_release(&c->region, &c->amr);
	free(c->queue);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c);
}

static int raw_conn_post_recv(struct raw_conn *c, uint32_t i)
{
	return raw_post_recv(c->id->qp, c->rbuf + i * c->stride, c->stride,
			     c->rmr->lkey, i);
}

/*
 * A receive is reposted once the Send of its reply completed (an echo is
 * sent from it), and the client sends its next request as soon as it has
 * the reply, possibly before this thread saw that Send complete: on siw
 * the completion can even come after the client's next request.  An empty
 * receive queue costs an RNR stall on rxe and kills the connection on
 * iWARP, so: 2 x depth receives, and never more than depth replies in
 * flight (requests wait in c->queue); then at most depth requests
 * unanswered (the client keeps no more) plus depth answered but not
 * completed hold receives.  Non-echo replies gather a per-slot header and
 * the pattern (two SGEs) rather than keep a full-size buffer per slot.
 */
static int raw_conn_setup(struct raw_conn *c, struct rdma_conn_param *p,
			  struct raw_welcome *w)
{
	struct ibv_context *ctx = c->id->verbs;
	struct ibv_device_attr da;
	struct ibv_qp_init_attr qa;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_WRITE;
	uint32_t i;
	int rc;

	c->nslots = 2 * c->depth;
	c->stride = (RAW_HDR + c->max_size + 63) & ~(size_t)63;
	if (ibv_query_device(ctx, &da))
		return -errno;
	if (c->nslots > (unsigned)da.max_qp_wr ||
	    2 * c->nslots > (unsigned)da.max_cqe || da.max_sge < 2)
		return -EINVAL;
	c->pd = ibv_alloc_pd(ctx);
	c->cc = ibv_create_comp_channel(ctx);
	if (!c->pd || !c->cc)
		return -ENOMEM;
	rc = raw_nonblock(c->cc->fd);
	if (rc)
		return rc;
	c->cq = ibv_create_cq(ctx, (int)(2 * c->nslots), c, c->cc, 0);
	if (!c->cq)
		return -errno;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = c->nslots;
	qa.cap.max_recv_wr = c->nslots;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -errno;
	rc = raw_alloc(c->pd, c->nslots * c->stride, IBV_ACCESS_LOCAL_WRITE,
		       &c->rbuf, &c->rmr);
	if (!rc)
		rc = raw_alloc(c->pd, (size_t)c->nslots * RAW_HDR,
			       IBV_ACCESS_LOCAL_WRITE, &c->hdrs, &c->hmr);
	if (!rc)
		rc = raw_alloc(c->pd, 2 * (size_t)c->max_size, acc, &c->region,
			       &c->amr);
	if (rc)
		return rc;
	c->queue = calloc(c->nslots, sizeof(*c->queue));
	if (!c->queue)
		return -ENOMEM;
	raw_fill(c->region, c->max_size, 0);
	for (i = 0; i < c->nslots; i++) {
		rc = raw_conn_post_recv(c, i);
		if (rc)
			return rc;
	}

	memset(p, 0, sizeof(*p));
	/* Take as many of the client's Reads as it may issue, and vice versa. */
	p->responder_resources = (uint8_t)raw_min(raw_min(c->peer_ini, RAW_MAX_RD),
						  (unsigned)da.max_qp_rd_atom);
	p->initiator_depth = (uint8_t)raw_min(raw_min(c->peer_resp, RAW_MAX_RD),
					      (unsigned)da.max_qp_init_rd_atom);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	w->rw_addr = htobe64((uintptr_t)c->region);
	w->rw_rkey = htobe32(c->amr->rkey);
	w->rw_len = htobe32(2 * c->max_size);
	w->rw_max_size = htobe32(c->max_size);
	w->rw_depth = htobe32(c->depth);
	w->rw_rd = htobe32(p->responder_resources);
	return 0;
}

/* Answer one request (see the wire format above). */
static int raw_conn_reply(struct raw_conn *c, uint32_t i, uint32_t byte_len)
{
	uint8_t *buf = c->rbuf + i * c->stride;
	struct raw_hdr h;
	uint32_t len, reply;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = RAW_WRID(RAW_WR_SEND, i), .sg_list = sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (byte_len < RAW_HDR)
		return -EPROTO;
	memcpy(&h, buf, sizeof(h));
	len = byte_len - RAW_HDR;
	reply = be32toh(h.h_reply);
	if (be32toh(h.h_len) != len || reply > c->max_size)
		return -EPROTO;
	if (reply == len) {
		sge[0] = (struct ibv_sge){ (uintptr_t)buf, byte_len, c->rmr->lkey };
	} else {
		h.h_len = h.h_reply;
		memcpy(c->hdrs + i * RAW_HDR, &h, sizeof(h));
		sge[0] = (struct ibv_sge){ (uintptr_t)(c->hdrs + i * RAW_HDR),
					   RAW_HDR, c->hmr->lkey };
		sge[1] = (struct ibv_sge){ (uintptr_t)c->region, reply,
					   c->amr->lkey };
		wr.num_sge = reply ? 2 : 1;
	}
	return -ibv_post_send(c->id->qp, &wr, &bad);
}

/* 1 when the connection is over (anything but ESTABLISHED happened). */
static int raw_conn_cm(struct raw_conn *c)
{
	struct rdma_cm_event *ev;
	int over = 0;

	while (!rdma_get_cm_event(c->ch, &ev)) {
		over |= ev->event != RDMA_CM_EVENT_ESTABLISHED;
		rdma_ack_cm_event(ev);
	}
	return over;
}

/* 0 to go on, 1 when the connection ended (flush, protocol error). */
static int raw_conn_handle(struct raw_conn *c, const struct ibv_wc *wc)
{
	uint32_t i = RAW_WR_IDX(wc->wr_id);
	int rc = 0;

	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			fprintf(stderr, "rpcrdma_bench: raw server: completion %s\n",
				ibv_wc_status_str(wc->status));
		return 1;
	}
	if (RAW_WR_TYPE(wc->wr_id) == RAW_WR_RECV) {
		c->queue[(c->q_head + c->q_n++) % c->nslots] =
			(struct raw_req){ i, wc->byte_len };
	} else {
		c->sending--;
		rc = raw_conn_post_recv(c, i);
	}
	while (!rc && c->q_n && c->sending < c->depth) {
		struct raw_req *r = &c->queue[c->q_head];

		rc = raw_conn_reply(c, r->idx, r->len);
		c->q_head = (c->q_head + 1) % c->nslots;
		c->q_n--;
		c->sending++;
	}
	if (rc) {
		fprintf(stderr, "rpcrdma_bench: raw server: %s: %s\n",
			rc == -EPROTO ? "malformed request" : "post",
			strerror(-rc));
		return 1;
	}
	return 0;
}

/*
 * Serve until the client goes.  Busy-poll mode spins on the CQ, but after
 * RAW_SERVER_IDLE without work it sleeps like event mode: an idle
 * connection (the bench keeps one per mode) must not eat a CPU that the
 * cells on the other connections are measured with.
 */
static void raw_conn_serve(struct raw_conn *c)
{
	struct pollfd pfd[2] = {
		{ .fd = c->cc->fd, .events = POLLIN },
		{ .fd = c->ch->fd, .events = POLLIN },
	};
	struct ibv_wc wc[16];
	double last_work = bench_now();
	unsigned spins = 0;
	int n, i, worked = 0;

	for (;;) {
		n = ibv_poll_cq(c->cq, 16, wc);
		if (n < 0)
			return;
		if (n > 0) {
			for (i = 0; i < n; i++)
				if (raw_conn_handle(c, &wc[i]))
					return;
			worked = 1;
			continue;
		}
		if (!c->event_mode) {
			double now;

			if (++spins % RAW_SPIN_CHECK)
				continue;
			if (raw_conn_cm(c) || atomic_load(&raw_srv.stopping))
				return;
			now = bench_now();
			if (worked)
				last_work = now;
			worked = 0;
			if (now - last_work < RAW_SERVER_IDLE)
				continue;
		}
		/* Arm, poll again (a completion may have beaten the arm), sleep. */
		if (!c->armed) {
			if (ibv_req_notify_cq(c->cq, 0))
				return;
			c->armed = 1;
			continue;
		}
		n = poll(pfd, 2, 200);
		if (n < 0 && errno != EINTR)
			return;
		if ((n == 0 || pfd[1].revents) &&
		    (raw_conn_cm(c) || atomic_load(&raw_srv.stopping)))
			return;
		if (raw_cq_events(c->cc, c->cq, &c->armed))
			last_work = bench_now();
	}
}

static void raw_conn_reject(struct rdma_cm_id *id, int status)
{
	struct raw_welcome w = {
		.rw_magic = htobe32(RAW_MAGIC),
		.rw_status = (int32_t)htobe32((uint32_t)status),
	};

	rdma_reject(id, &w, sizeof(w));
}

static void *raw_conn_main(void *arg)
{
	struct raw_conn *c = arg;
	struct rdma_conn_param p;
	struct raw_welcome w = { .rw_magic = htobe32(RAW_MAGIC) };
	int rc;

	rc = raw_conn_setup(c, &p, &w);
	if (rc) {
		fprintf(stderr, "rpcrdma_bench: raw server: connection setup: %s\n",
			strerror(-rc));
		raw_conn_reject(c->id, -rc);
	} else {
		p.private_data = &w;
		p.private_data_len = sizeof(w);
		if (!rdma_accept(c->id, &p))
			raw_conn_serve(c);
	}
	raw_conn_free(c);
	return NULL;
}

/*
 * A CONNECT_REQUEST: check the hello, move the new id to its own event
 * channel (so its thread alone sees its DISCONNECTED) and hand it to a
 * thread.  The event is acked before rdma_migrate_id, which waits for that.
 */
static void raw_srv_request(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct raw_conn *c = calloc(1, sizeof(*c));
	struct raw_hello h = { 0 };
	pthread_t t;
	int status = 0;

	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(h))
		memcpy(&h, ev->param.conn.private_data, sizeof(h));
	if (!c)
		status = ENOMEM;
	else if (be32toh(h.rh_magic) != RAW_MAGIC || h.rh_version != RAW_VERSION)
		status = EPROTO;
	else if (be32toh(h.rh_max_size) > raw_srv.max_size ||
		 !h.rh_depth || be32toh(h.rh_depth) > raw_srv.max_depth)
		status = EMSGSIZE;
	if (status) {
		raw_conn_reject(id, status);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
		free(c);
		return;
	}
	c->id = id;
	c->event_mode = h.rh_event;
	c->max_size = be32toh(h.rh_max_size);
	c->depth = be32toh(h.rh_depth);
	c->peer_ini = ev->param.conn.initiator_depth;
	c->peer_resp = ev->param.conn.responder_resources;
	rdma_ack_cm_event(ev);

	c->ch = rdma_create_event_channel();
	if (!c->ch || raw_nonblock(c->ch->fd) || rdma_migrate_id(id, c->ch))
		goto out_reject;
	id->context = c;
	if (!pthread_create(&t, NULL, raw_conn_main, c)) {
		pthread_detach(t);
		return;
	}
out_reject:
	raw_conn_reject(id, ENOMEM);
	raw_conn_free(c);
}

static void *raw_srv_main(void *arg)
{
	struct pollfd pfd = { .fd = raw_srv.ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	while (!atomic_load(&raw_srv.stopping)) {
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		while (!rdma_get_cm_event(raw_srv.ch, &ev)) {
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				raw_srv_request(ev);	/* acks it */
			else
				rdma_ack_cm_event(ev);
		}
	}
	return arg;
}

int bench_raw_server_start(const char *addr, unsigned port,
			   unsigned max_size, unsigned max_depth)
{
	struct rdma_addrinfo hints, *res = NULL;
	char service[16];
	int rc;

	if (raw_srv.running)
		return -EBUSY;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	snprintf(service, sizeof(service), "%u", port);
	if (rdma_getaddrinfo(addr, service, &hints, &res))
		return errno ? -errno : -EADDRNOTAVAIL;
	raw_srv.max_size = max_size;
	raw_srv.max_depth = max_depth ? max_depth : 1;
	atomic_store(&raw_srv.stopping, 0);
	raw_srv.ch = rdma_create_event_channel();
	if (!raw_srv.ch) {
		rc = -errno;
		goto out;
	}
	rc = raw_nonblock(raw_srv.ch->fd);
	if (!rc && rdma_create_id(raw_srv.ch, &raw_srv.id, NULL, RDMA_PS_TCP))
		rc = -errno;
	if (!rc && (rdma_bind_addr(raw_srv.id, res->ai_src_addr) ||
		    rdma_listen(raw_srv.id, 16)))
		rc = -errno;
	if (!rc)
		rc = -pthread_create(&raw_srv.thread, NULL, raw_srv_main, NULL);
	if (!rc)
		raw_srv.running = 1;
out:
	if (rc) {
		if (raw_srv.id)
			rdma_destroy_id(raw_srv.id);
		if (raw_srv.ch)
			rdma_destroy_event_channel(raw_srv.ch);
		raw_srv.id = NULL;
		raw_srv.ch = NULL;
	}
	rdma_freeaddrinfo(res);
	return rc;
}

/*
 * Best effort: the listener goes now; connection threads notice the flag
 * within RAW_SPIN_CHECK polls or 200 ms and clean up on their own.
 */
void bench_raw_server_stop(void)
{
	if (!raw_srv.running)
		return;
	atomic_store(&raw_srv.stopping, 1);
	pthread_join(raw_srv.thread, NULL);
	rdma_destroy_id(raw_srv.id);
	rdma_destroy_event_channel(raw_srv.ch);
	raw_srv.id = NULL;
	raw_srv.ch = NULL;
	raw_srv.running = 0;
}
