/*
 * The asynchronous calls' private state, shared by their three files:
 * clnt_async.c starts calls and owns the descriptors, clnt_async_drive.c
 * runs the progress, clnt_async_step.c moves each call along.
 */
#ifndef RPCRDMA_CLNT_ASYNC_H
#define RPCRDMA_CLNT_ASYNC_H

#include "clnt_rdma.h"

enum ca_state {
	CA_WAIT_SLOT,	/* waiting for a credit, a slot or the connection */
	CA_SENT,	/* posted: its slot leaving RQ_SENT puts it on ac_ready */
	CA_WAIT_RESEND,	/* lost with its connection: waiting to go again */
	CA_DONE,	/* over, cc_st set: its callback is due */
};

struct cr_async {
	struct cr_call a_c;
	enum ca_state a_state;
	xdrproc_t a_xargs;
	void *a_args;
	void (*a_done)(CLIENT *cl, enum clnt_stat st, void *arg);
	CLIENT *a_cl;
	void *a_arg;
	uint64_t a_deadline_ns;
	bool a_waited;			/* counted in rs_credit_waits */
	struct cr_async *a_next, *a_prev;	/* ac_all */
	struct cr_async *a_link;	/* the wait list, a batch, or ac_free */
};

/* A batch the driver works through unlocked, in order. */
struct batch {
	struct cr_async *b_head, **b_tail;
};

static inline void batch_init(struct batch *b)
{
	b->b_head = NULL;
	b->b_tail = &b->b_head;
}

static inline void batch_add(struct batch *b, struct cr_async *a)
{
	a->a_link = NULL;
	*b->b_tail = a;
	b->b_tail = &a->a_link;
}

/* Behind the calls already waiting.  Lock held. */
static inline void wait_append(struct cr_async_ctl *ac, struct cr_async *a)
{
	a->a_link = NULL;
	*ac->ac_wait_tail = a;
	ac->ac_wait_tail = &a->a_link;
	__atomic_store_n(&ac->ac_waiting, ac->ac_waiting + 1, __ATOMIC_RELAXED);
}

/* clnt_async_drive.c (the driver role, the timerfd, arming for the fd) */
bool ca_driving_here(const struct clnt_rdma *cr);
bool ca_drive_begin(struct clnt_rdma *cr, struct clnt_rdma **prev);
void ca_drive_end(struct clnt_rdma *cr, struct clnt_rdma *prev);
void ca_set_timer(struct cr_async_ctl *ac);
bool ca_arm_for_fd(struct clnt_rdma *cr);

/* clnt_async_step.c (the driver only, lock not held) */
bool ca_try_waiting(struct clnt_rdma *cr, struct cr_async *a,
		    struct batch *done);
void ca_run_waiting(struct clnt_rdma *cr, bool all, struct batch *done);
void ca_run_ready(struct clnt_rdma *cr, struct batch *done);
bool ca_run_deadlines(struct clnt_rdma *cr, uint64_t now,
		      struct batch *done);
int ca_run_callbacks(struct clnt_rdma *cr, struct batch *done);

#endif /* RPCRDMA_CLNT_ASYNC_H */
