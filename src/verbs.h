/*
 * The thin verbs layer: every libibverbs/librdmacm call of the library
 * lives in verbs.c (the endpoint), verbs_post.c (posting and polling),
 * verbs_cm.c (the listener and CM events), or, for memory (PDs,
 * registrations, windows), in verbs_mem.c (tools/callgraph shows who
 * calls them).  Above it, the transports see plain data: buffers,
 * completions recovered to their typed contexts (completion.h dispatches
 * them), and negative errnos; of librdmacm's types they read only a CM
 * event's fields.
 */
#ifndef RPCRDMA_VERBS_H
#define RPCRDMA_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>
#include "driver.h"

#define rpcrdma_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* What a completion's wr_id points at; recovered with container_of. */
enum rpcrdma_cqe_kind {
	RPCRDMA_CQE_SEND,	/* a struct rpcrdma_sendctx */
	RPCRDMA_CQE_RECV,	/* a struct rpcrdma_rep */
	RPCRDMA_CQE_RW,		/* a struct rpcrdma_rw_ctx (rdma_rw.h), a chain's last WR */
	RPCRDMA_CQE_RW_MEMBER,	/* the same, any earlier WR of its chain */
	RPCRDMA_CQE_BIND,	/* a struct rpcrdma_mw, its bind */
	RPCRDMA_CQE_INV,	/* a struct rpcrdma_mw, its invalidation */
	RPCRDMA_CQE_RW_AHEAD,	/* a struct rpcrdma_rw_ahead (rdma_rw.h): the last
				 * WR of Writes posted ahead of their Send */
};

struct rpcrdma_cqe {
	enum rpcrdma_cqe_kind cq_kind;
};

/* One registered receive buffer and the message it holds. */
struct rpcrdma_rep {
	struct rpcrdma_cqe rr_cqe;
	uint8_t *rr_buf;
	uint32_t rr_len;	/* bytes received */
	uint32_t rr_index;
	uint32_t rr_lkey;	/* its MR's (a ring's, or a shared queue's) */
	/* The Send that filled it invalidated rr_inv_rkey here (Send With
	 * Invalidate, RFC 8797): the device reported that rkey dead. */
	int rr_with_inv;
	uint32_t rr_inv_rkey;
};

/* One registered send buffer (pull-up target) and its ring slot. */
struct rpcrdma_sendctx {
	struct rpcrdma_cqe sc_cqe;
	uint8_t *sc_buf;
	uint32_t sc_lkey;	/* sc_buf's, once its chunk is registered */
	uint32_t sc_index;
	uint64_t sc_seq;	/* posting order of the Send it carries */
	/* The Send as decided, until it is posted (transport_send.c): */
	const struct rpcrdma_sge *sc_sg; /* its sender's; NULL: sc_len bytes of sc_buf */
	const struct rpcrdma_send_pre *sc_pre;
	int *sc_rcp;		/* where its sender waits for the post's result */
	uint32_t sc_len;
	uint16_t sc_nsge;
	uint8_t sc_inline;
	uint8_t sc_signaled;
	uint8_t sc_ready;	/* sc_buf registered: sc_lkey valid */
};

/* Sends rpcrdma_post_send_run() posts in one call. */
#define RPCRDMA_POST_RUN 16

/* One gather entry of a Send, as the logic above the verbs sees it. */
struct rpcrdma_sge {
	uint64_t sg_addr;
	uint32_t sg_len;
	uint32_t sg_lkey;
};

/*
 * A type 2 memory window over one buffer: remote access is granted by
 * binding it (a work request, no system call) for one RPC and revoked by
 * invalidating it; the buffer's own MR grants no remote access at all.
 */
struct rpcrdma_mw {
	struct rpcrdma_cqe mw_bind_cqe;
	struct rpcrdma_cqe mw_inv_cqe;
	struct ibv_mw *mw_ibv;
	struct ibv_mr *mw_base;		/* LOCAL_WRITE | MW_BIND */
	uint32_t mw_rkey;		/* of the current (or last) binding */
	int mw_bound;			/* bound, not yet invalidated */
};

/* A connected (or connecting) endpoint: id, QP, one CQ, buffers. */
struct rpcrdma_ep_attr {
	uint32_t ea_nrecv, ea_recv_size;
	uint32_t ea_recv_first;		/* receives registered at setup (0:
					 * all); rpcrdma_ep_recv_grow adds */
	uint32_t ea_nsend, ea_send_size;
	uint32_t ea_max_inline;		/* asked; the grant may be less */
	uint32_t ea_max_sge;		/* asked; bounded by the device */
	uint32_t ea_nrw;		/* send queue room for RDMA Read/Write */
	uint32_t ea_extra_wr;		/* send queue room beyond the Sends */
	/* Receives from a shared queue (ea_nrecv 0): the QP takes them
	 * from ea_srq, its CQ holds ea_srq_recv of their completions. */
	struct ibv_srq *ea_srq;
	uint32_t ea_srq_recv;
};

struct rpcrdma_ep {
	struct rdma_event_channel *re_cm_ch;	/* owned unless re_cm_shared */
	int re_cm_shared;
	struct rdma_cm_id *re_id;
	struct ibv_pd *re_pd;			/* set before setup: shared, not ours */
	int re_pd_shared;
	struct ibv_comp_channel *re_comp_ch;
	struct ibv_cq *re_cq;
	uint32_t re_inline_granted;
	const char *re_failed_step;	/* the verb rpcrdma_ep_setup failed in */
	uint32_t re_max_send_sge;

	uint32_t re_nrecv, re_recv_size;
	uint8_t *re_recv_mem;
	struct ibv_mr **re_recv_mrs;	/* one per growth (rpcrdma_ep_recv_grow) */
	uint32_t re_recv_nmr;
	uint32_t re_recv_ready;		/* re_reps[0 .. this) registered */
	struct rpcrdma_rep *re_reps;

	uint32_t re_nsend, re_send_size;
	uint8_t *re_send_mem;
	struct ibv_mr **re_send_mrs;	/* one per RPCRDMA_SEND_CHUNK contexts,
					 * NULL until one is first used */
	uint64_t re_send_pinned;	/* bytes of them registered */
	struct rpcrdma_sendctx *re_sendctxs;

	uint32_t re_rw_slots;		/* send queue room for RDMA Read/Write */
	uint32_t re_rd_depth;		/* RDMA Reads we may have outstanding:
					 * the peer's responder resources */
	uint32_t re_rd_resp;		/* RDMA Reads we accept (server: the
					 * peer's initiator depth) */
	struct rpcrdma_ep_attr re_attr;	/* as set up: a new QP gets the same */
	unsigned int re_wc_inv_flags;	/* wc_flags that mean With Invalidate */
};

/* A peer's memory, as an RDMA Read or Write addresses it. */
struct rpcrdma_remote {
	uint64_t rm_addr;
	uint32_t rm_rkey;
};

/* A completion, as plain data for the logic above. */
struct rpcrdma_wc {
	struct rpcrdma_cqe *wc_ctx;
	int wc_ok;		/* IBV_WC_SUCCESS */
	int wc_flushed;		/* flushed: the QP is going down */
	const char *wc_status;	/* for messages */
	uint32_t wc_byte_len;
	int wc_with_inv;	/* a Receive of a Send With Invalidate */
	uint32_t wc_inv_rkey;	/* the rkey it invalidated */
};

/*
 * What a Send may carry with it in the same ibv_post_send: RDMA Writes
 * posted in front of it (RC ordering places their data before the Send
 * arrives; each has sp_member as its context, signaled (verbs_post.c
 * says why), their completions mattering only when they fail), and Send
 * With Invalidate of one of the peer's rkeys.
 */
#define RPCRDMA_SEND_PRE_MAX 16
struct rpcrdma_send_pre {
	const struct rpcrdma_sge *sp_local;
	const struct rpcrdma_remote *sp_remote;
	unsigned int sp_nwrites;	/* <= RPCRDMA_SEND_PRE_MAX */
	struct rpcrdma_cqe *sp_member;
	int sp_inv;			/* IBV_WR_SEND_WITH_INV */
	uint32_t sp_inv_rkey;
	/* Why these two: a server's svc_sendreply() returns before its
	 * Reply's Send completes, and the program then frees the results,
	 * so the Send may not gather them.  sp_copy: the message's caller
	 * memory is copied (inline or pull-up), never mapped.  sp_body: the
	 * message is this registered copy the sender owns until the Send
	 * completes (header from the send buffer, then it: two SGEs). */
	int sp_copy;
	const struct rpcrdma_sge *sp_body;
};

int rpcrdma_ep_resolve(struct rpcrdma_ep *ep, const char *host,
		       const char *port, const char *source, int timeout_ms);
/* The RDMA device the endpoint resolved to ("rxe0"), or NULL before. */
const char *rpcrdma_ep_device_name(const struct rpcrdma_ep *ep);
/* Bytes registered for the endpoint's receive and send buffers now. */
uint64_t rpcrdma_ep_ring_bytes(const struct rpcrdma_ep *ep);
/*
 * Send buffers are registered RPCRDMA_SEND_CHUNK contexts at a time, the
 * first chunk at setup, the others when the ring first hands out one of
 * their contexts (an empty ring starts again at 0: sendctx.c), so a
 * connection with few Sends unreleased at once registers few buffers.
 * rpcrdma_ep_send_buf: 0 once @sc's buffer is registered, or -errno.
 */
#define RPCRDMA_SEND_CHUNK 8
int rpcrdma_ep_send_buf(struct rpcrdma_ep *ep, struct rpcrdma_sendctx *sc);
/*
 * Receive buffers registered up to at least the first @n (in runs of
 * RPCRDMA_RECV_CHUNK, at most all), each rep's rr_lkey set: 0, or -errno
 * with none added.  The caller posts those new; a client grows them as
 * its calls in flight grow (clnt_call.c), a ring of a server's has all.
 */
#define RPCRDMA_RECV_CHUNK 8
int rpcrdma_ep_recv_grow(struct rpcrdma_ep *ep, uint32_t n);
/* Its driver, for the built-in defaults that differ (driver.h). */
enum rpcrdma_driver rpcrdma_ep_driver(struct rpcrdma_ep *ep);
int rpcrdma_ep_setup(struct rpcrdma_ep *ep, const struct rpcrdma_ep_attr *a);
int rpcrdma_ep_connect(struct rpcrdma_ep *ep, const void *pdata,
		       uint8_t pdata_len, int timeout_ms,
		       uint8_t *peer_pdata, uint8_t *peer_len);
int rpcrdma_ep_accept(struct rpcrdma_ep *ep, const void *pdata,
		      uint8_t pdata_len);
void rpcrdma_ep_disconnect(struct rpcrdma_ep *ep);
/*
 * A client's reconnection keeps what the connection does not own (PD, CQ,
 * buffers and their registrations, so the caller's registrations stay
 * valid): drop_conn destroys the QP, the id and the CM channel and
 * empties the CQ of the old QP's completions; after rpcrdma_ep_resolve,
 * renew_qp creates a QP like the last one (-ENODEV: the route now leads
 * to another device).
 */
void rpcrdma_ep_drop_conn(struct rpcrdma_ep *ep);
int rpcrdma_ep_renew_qp(struct rpcrdma_ep *ep);
void rpcrdma_ep_destroy_qp(struct rpcrdma_ep *ep);
int rpcrdma_ep_destroy(struct rpcrdma_ep *ep);

int rpcrdma_post_recv(struct rpcrdma_ep *ep, struct rpcrdma_rep *rep);
/*
 * Post n decided Sends, each from its context's buffer (sc_sg and sc_pre
 * NULL: no Writes in front, no memory but its own), as one chain, in order:
 * 0, or why not, with *posted saying how many went (a chain may be
 * posted in part).  n at most RPCRDMA_POST_RUN.
 */
int rpcrdma_post_send_run(struct rpcrdma_ep *ep,
			  struct rpcrdma_sendctx *const *scs, unsigned int n,
			  unsigned int *posted);
/* pre: NULL, or what goes with the Send (struct rpcrdma_send_pre). */
int rpcrdma_post_send_sges(struct rpcrdma_ep *ep, struct rpcrdma_sendctx *sc,
			   const struct rpcrdma_sge *sges, unsigned int n,
			   int inline_data, int signaled,
			   const struct rpcrdma_send_pre *pre);
/*
 * Post n RDMA Reads (write 0: remote into local) or Writes (local into
 * remote) as one chain; only the last is signaled, with last as its
 * context, and its completion implies the others'.  Every earlier one
 * carries member: unsignaled, it completes only when it fails or is
 * flushed, and that completion must still find a context.
 */
int rpcrdma_post_rw(struct rpcrdma_ep *ep, int write,
		    const struct rpcrdma_sge *local,
		    const struct rpcrdma_remote *remote, unsigned int n,
		    struct rpcrdma_cqe *last, struct rpcrdma_cqe *member);
/* The device's RDMA Read limits: as initiator (max_qp_init_rd_atom) and
 * as responder (max_qp_rd_atom); 0 when it cannot be asked. */
void rpcrdma_dev_rd_limits(struct rpcrdma_ep *ep, uint32_t *init_max,
			   uint32_t *resp_max);
struct ibv_mr *rpcrdma_reg_mem(struct rpcrdma_ep *ep, void *addr, size_t len);
/* A protection domain several endpoints of one device share (svc_mem.c). */
struct ibv_pd *rpcrdma_pd_alloc(struct ibv_context *verbs);
int rpcrdma_pd_free(struct ibv_pd *pd);
/* Local write access only, as rpcrdma_reg_mem, on a given PD. */
struct ibv_mr *rpcrdma_pd_reg(struct ibv_pd *pd, void *addr, size_t len);
/* What a registration covers, and on which PD. */
struct ibv_pd *rpcrdma_mr_pd(const struct ibv_mr *mr);
void *rpcrdma_mr_addr(const struct ibv_mr *mr);
size_t rpcrdma_mr_len(const struct ibv_mr *mr);
/* The device a CM id is bound to; NULL for a wildcard listener. */
struct ibv_context *rpcrdma_id_verbs(const struct rdma_cm_id *id);
void rpcrdma_dereg_mem(struct ibv_mr *mr);
uint32_t rpcrdma_mr_lkey(const struct ibv_mr *mr);
/* Remote access to [addr, addr+len): RDMA Read only, or Write only. */
struct ibv_mr *rpcrdma_reg_remote(struct rpcrdma_ep *ep, void *addr,
				  size_t len, int remote_write);
uint32_t rpcrdma_mr_rkey(const struct ibv_mr *mr);
/* -EOPNOTSUPP where the device has no type 2 windows (siw). */
int rpcrdma_mw_init(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw, void *buf,
		    size_t len);
void rpcrdma_mw_fini(struct rpcrdma_mw *mw);
/* Post a signaled bind of [addr, addr+len), remote write only. */
int rpcrdma_mw_bind(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw, void *addr,
		    uint32_t len);
/* Post a signaled local invalidation of the current binding. */
int rpcrdma_mw_invalidate(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw);
int rpcrdma_cq_arm(struct rpcrdma_ep *ep);
int rpcrdma_cq_poll(struct rpcrdma_ep *ep, struct rpcrdma_wc *wcs, int n);
int rpcrdma_cq_drain_events(struct rpcrdma_ep *ep);
int rpcrdma_cq_sleep(struct rpcrdma_ep *ep, int timeout_ms);
int rpcrdma_cq_sleep_or(struct rpcrdma_ep *ep, int fd, int timeout_ms,
			bool *fd_ready);

/*
 * Shared receive queues (verbs_srq.c): a device's limits (max_srq 0: it
 * has none), one made on a PD, and n receives of size bytes each (every
 * rep's rr_buf and rr_lkey) posted to it as chains; *posted says how many
 * went, on failure too.
 */
int rpcrdma_dev_srq_limits(struct ibv_context *verbs, uint32_t *max_srq,
			   uint32_t *max_wr);
struct ibv_srq *rpcrdma_srq_create(struct ibv_pd *pd, uint32_t max_wr);
int rpcrdma_srq_destroy(struct ibv_srq *srq);
int rpcrdma_srq_post(struct ibv_srq *srq, struct rpcrdma_rep *const *reps,
		     unsigned int n, uint32_t size, unsigned int *posted);
/*
 * Arm an SRQ's limit: the device raises one asynchronous event when fewer
 * than @limit receives are posted, then is disarmed.  0, or -errno (a
 * device refuses a limit above what is posted now: -EINVAL).
 */
int rpcrdma_srq_arm(struct ibv_srq *srq, uint32_t limit);
/*
 * The device's next asynchronous event, without blocking (its descriptor
 * is made non-blocking): 1 when one was read and acknowledged, *kind its
 * name and *srq the SRQ whose limit it reports (NULL for another kind);
 * 0 when none is pending; or -errno.
 */
int rpcrdma_dev_async_next(struct ibv_context *verbs, struct ibv_srq **srq,
			   const char **kind);

int rpcrdma_listen(struct rdma_event_channel **chp, struct rdma_cm_id **idp,
		   const char *host, const char *port, int backlog);
/* Destroy a listening id and its channel (either may be NULL). */
void rpcrdma_listen_close(struct rdma_event_channel *ch, struct rdma_cm_id *id);
/* The port and address a CM id is bound to. */
uint16_t rpcrdma_id_port(struct rdma_cm_id *id);
struct sockaddr *rpcrdma_id_local_addr(struct rdma_cm_id *id);
struct sockaddr *rpcrdma_id_peer_addr(struct rdma_cm_id *id);

/*
 * Connection-manager events.  The transports read an event's fields (its
 * id, kind, status) but take, ack and answer it only here.
 */
/* 0 with the next pending event at *evp, or -EAGAIN (none) / -errno. */
int rpcrdma_cm_next(struct rdma_event_channel *ch, struct rdma_cm_event **evp);
void rpcrdma_cm_ack(struct rdma_cm_event *ev);
const char *rpcrdma_cm_event_name(const struct rdma_cm_event *ev);
/* Refuse a connection request; disconnect, or destroy, an id. */
void rpcrdma_cm_reject(struct rdma_cm_id *id);
void rpcrdma_cm_disconnect(struct rdma_cm_id *id);
void rpcrdma_cm_destroy_qp(struct rdma_cm_id *id);
/* 0, or why the id lives on (-EACCES: the kernel refused the process). */
int rpcrdma_cm_destroy_id(struct rdma_cm_id *id);

#endif /* RPCRDMA_VERBS_H */
