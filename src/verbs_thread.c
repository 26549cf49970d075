/*
 * The verbs thread and rpcrdma_thread_own_creds(3): the kernel takes a
 * uverbs or rdma_cm write() only from a task with the credentials its
 * descriptor was opened with, so a thread that switches its own makes its
 * verbs and CM calls here, on a thread that never switches.
 */
#define _GNU_SOURCE	/* pthread_setname_np */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <rpcrdma/rpcrdma.h>
#include "verbs_thread.h"

__thread int rpcrdma_vt_marked;

/* One call at a time: vt_call_lock queues callers, vt_lock guards a call. */
static pthread_mutex_t vt_call_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t vt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t vt_cond = PTHREAD_COND_INITIALIZER;
static int vt_running;			/* vt_lock */
static void (*vt_fn)(void *);		/* the call, or NULL when done */
static void *vt_arg;
static int vt_errno;
static int vt_atfork;

static void *vt_main(void *unused)
{
	void (*fn)(void *);

	(void)unused;
	pthread_mutex_lock(&vt_lock);
	for (;;) {
		while (!vt_fn)
			pthread_cond_wait(&vt_cond, &vt_lock);
		fn = vt_fn;
		pthread_mutex_unlock(&vt_lock);
		errno = 0;
		fn(vt_arg);
		pthread_mutex_lock(&vt_lock);
		vt_errno = errno;
		vt_fn = NULL;
		pthread_cond_broadcast(&vt_cond);
	}
	return NULL;
}

/* A child of fork() has no verbs thread: the first routed call starts one. */
static void vt_child(void)
{
	pthread_mutex_init(&vt_call_lock, NULL);
	pthread_mutex_init(&vt_lock, NULL);
	pthread_cond_init(&vt_cond, NULL);
	vt_running = 0;
	vt_fn = NULL;
}

int rpcrdma_vt_start(void)
{
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;
	int rc = 0;

	pthread_mutex_lock(&vt_lock);
	if (vt_running)
		goto out;
	if (!vt_atfork && !(rc = -pthread_atfork(NULL, NULL, vt_child)))
		vt_atfork = 1;
	if (rc)
		goto out;
	/* The program's signals are never delivered on it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	rc = -pthread_create(&t, &a, vt_main, NULL);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc) {
		pthread_setname_np(t, "rpcrdma-verbs");
		vt_running = 1;
	}
out:
	pthread_mutex_unlock(&vt_lock);
	return rc;
}

void rpcrdma_vt_run(void (*fn)(void *), void *arg)
{
	int rc;

	/* Only after a fork() (vt_child), in the child. */
	rc = rpcrdma_vt_start();
	if (rc) {
		errno = -rc;
		fn(arg);
		return;
	}
	pthread_mutex_lock(&vt_call_lock);
	pthread_mutex_lock(&vt_lock);
	vt_fn = fn;
	vt_arg = arg;
	pthread_cond_broadcast(&vt_cond);
	while (vt_fn)
		pthread_cond_wait(&vt_cond, &vt_lock);
	rc = vt_errno;
	pthread_mutex_unlock(&vt_lock);
	pthread_mutex_unlock(&vt_call_lock);
	errno = rc;
}

static int vt_refused;

void rpcrdma_vt_refused(void)
{
	if (__atomic_exchange_n(&vt_refused, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "rpcrdma: error: the kernel refuses this process's "
		"verbs and CM calls (EACCES): it changed credentials (seteuid, "
		"setegid, setgroups...) after opening its RDMA descriptors; its "
		"RDMA connections and listeners stop. Switch credentials per "
		"thread after rpcrdma_thread_own_creds(), see "
		"rpcrdma_thread_own_creds(3)\n");
}

int rpcrdma_vt_creds_refused(void)
{
	return __atomic_load_n(&vt_refused, __ATOMIC_RELAXED);
}

/* ---- the public call ------------------------------------------------------ */

int rpcrdma_thread_own_creds(void)
{
	int rc = rpcrdma_vt_start();

	if (rc) {
		errno = -rc;
		return -1;
	}
	rpcrdma_vt_marked = 1;
	return 0;
}
