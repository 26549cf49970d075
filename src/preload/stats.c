/*
 * The transports' counters for the dump at exit: every RDMA CLIENT the
 * preload made is read (RPCRDMA_CLGET_STATS) when it is destroyed or at
 * exit, and summed; every listener's sum (svc_rdma_get_stats) at exit.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "preload/preload.h"

/* The counters' names, in the header's order (generated from it). */
static const char *const names[] = {
#include "preload/stats_names.h"
};
#define NNAMES (sizeof(names) / sizeof(names[0]))
#define FIRST offsetof(struct rpcrdma_stats, rs_calls)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t clnt_sum[NNAMES];
static unsigned int nclients;

/* A tracked CLIENT: its own ops, with cl_destroy read the counters first. */
struct tracked {
	struct clnt_ops t_ops;
	const struct clnt_ops *t_orig;
	CLIENT *t_cl;
	struct tracked *t_next;
};
static struct tracked *clients;

#define MAX_LISTENERS 8
static SVCXPRT *listeners[MAX_LISTENERS];
static unsigned int nlisteners;

static void add(uint64_t *sum, const struct rpcrdma_stats *st)
{
	const uint64_t *v = (const void *)((const char *)st + FIRST);
	size_t i;

	for (i = 0; i < NNAMES; i++)
		sum[i] += v[i];
}

/* Called with lock held. */
static void harvest(struct tracked *t)
{
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;

	if (t->t_orig->cl_control(t->t_cl, RPCRDMA_CLGET_STATS, (void *)&st))
		add(clnt_sum, &st);
	nclients++;
}

static void tracked_destroy(CLIENT *cl)
{
	struct tracked **pp, *t = NULL;
	const struct clnt_ops *orig = NULL;

	pthread_mutex_lock(&lock);
	for (pp = &clients; *pp; pp = &(*pp)->t_next)
		if ((*pp)->t_cl == cl) {
			t = *pp;
			*pp = t->t_next;
			break;
		}
	if (t) {
		harvest(t);
		orig = t->t_orig;
	}
	pthread_mutex_unlock(&lock);
	if (!t)		/* cannot happen: only tracked handles get these ops */
		return;
	cl->cl_ops = (struct clnt_ops *)orig;
	free(t);
	orig->cl_destroy(cl);
}

void preload_clnt_track(CLIENT *cl)
{
	struct tracked *t = calloc(1, sizeof(*t));

	if (!t)
		return;		/* its counters are left out of the dump */
	t->t_orig = cl->cl_ops;
	t->t_ops = *cl->cl_ops;
	t->t_ops.cl_destroy = tracked_destroy;
	t->t_cl = cl;
	pthread_mutex_lock(&lock);
	t->t_next = clients;
	clients = t;
	pthread_mutex_unlock(&lock);
	cl->cl_ops = &t->t_ops;
}

void preload_svc_track(SVCXPRT *l)
{
	pthread_mutex_lock(&lock);
	if (nlisteners < MAX_LISTENERS)
		listeners[nlisteners++] = l;
	pthread_mutex_unlock(&lock);
}

void preload_stats_dump(FILE *f)
{
	uint64_t sum[NNAMES];
	struct tracked *t;
	unsigned int i, n;
	size_t k;

	pthread_mutex_lock(&lock);
	memcpy(sum, clnt_sum, sizeof(sum));
	n = nclients;
	for (t = clients; t; t = t->t_next, n++) {
		struct rpcrdma_stats st = RPCRDMA_STATS_INIT;

		if (t->t_orig->cl_control(t->t_cl, RPCRDMA_CLGET_STATS, (void *)&st))
			add(sum, &st);
	}
	fprintf(f, "clnt.handles %u\n", n);
	for (k = 0; k < NNAMES; k++)
		fprintf(f, "clnt.%s %llu\n", names[k], (unsigned long long)sum[k]);
	memset(sum, 0, sizeof(sum));
	for (i = 0; i < nlisteners; i++) {
		struct rpcrdma_stats st = RPCRDMA_STATS_INIT;

		if (svc_rdma_get_stats(listeners[i], &st) == 0)
			add(sum, &st);
	}
	fprintf(f, "svc.listeners %u\n", nlisteners);
	for (k = 0; k < NNAMES; k++)
		fprintf(f, "svc.%s %llu\n", names[k], (unsigned long long)sum[k]);
	pthread_mutex_unlock(&lock);
}

_Static_assert(FIRST + NNAMES * sizeof(uint64_t) == sizeof(struct rpcrdma_stats),
	       "stats_names.h does not follow struct rpcrdma_stats");
