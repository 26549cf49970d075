/*
 * rpcrdma_bench's cost counters of one process, for --cost: system calls
 * (the raw_syscalls:sys_enter tracepoint) and user-space instructions
 * from perf_event_open on every thread, context switches from getrusage,
 * heap allocations from malloc interposed in the bench binary.  A figure
 * the process cannot count is reported as unavailable, with the reason.
 */
#include "config.h"

#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "bench.h"

/* ---- heap allocations ---------------------------------------------------- */

/*
 * The executable's malloc family wins over libc's for every shared
 * object (ELF interposition), so librpcrdma's, libtirpc's and the verbs
 * providers' allocations are counted too.  Sanitizer builds bring their
 * own malloc: no count there.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNT_ALLOCS 0
#else
#define COUNT_ALLOCS 1
#endif

static atomic_ulong allocs;

#if COUNT_ALLOCS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
	atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	return __libc_memalign(align, n);
}
#endif

/* ---- perf counters on every thread --------------------------------------- */

#define MAX_THREADS 512

struct tcount {
	pid_t tid;
	int fd[2];		/* syscalls, instructions; -1: none */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcount threads[MAX_THREADS];
static unsigned nthreads;
static uint64_t retired[2];	/* counts of threads gone */
static int cost_on;
static struct perf_event_attr attr[2];
static int have[2];
static char why[2][96];

static long perf_open(struct perf_event_attr *a, pid_t tid)
{
	return syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The number in the file at path, or -1. */
static long read_id(const char *path)
{
	FILE *f = fopen(path, "r");
	long id = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* The tracepoint's id from tracefs, or -1 with why set. */
static long syscall_tracepoint(char *reason, size_t len)
{
	/* "ip netns exec" mounts its own /sys: look through init's root too,
	 * and first where RPCRDMA_TRACEFS says tracefs is (the test bed
	 * mounts it outside /sys for that reason). */
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
		"/proc/1/root/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/proc/1/root/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	const char *tfs = getenv("RPCRDMA_TRACEFS");
	char own[256];
	long id = -1;

	if (tfs && *tfs) {
		snprintf(own, sizeof(own), "%s/events/raw_syscalls/sys_enter/id", tfs);
		id = read_id(own);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && id < 0; i++)
		id = read_id(paths[i]);
	if (id < 0)
		snprintf(reason, len, "no raw_syscalls tracepoint (tracefs not mounted?)");
	return id;
}

static uint64_t read_fd(int fd)
{
	uint64_t v = 0;

	if (fd >= 0 && read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

/* Counters on thread tid, if it has none yet (lock held). */
static void watch(pid_t tid)
{
	struct tcount *t;
	unsigned i;

	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return;
	if (nthreads == MAX_THREADS)
		return;
	t = &threads[nthreads++];
	t->tid = tid;
	for (i = 0; i < 2; i++)
		t->fd[i] = have[i] ? (int)perf_open(&attr[i], tid) : -1;
}

/* Whether /proc/self/task/tid is still there. */
static int alive(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

/* Threads gone: their final counts into retired[], slots freed. */
static void reap(void)
{
	unsigned i = 0, k;

	while (i < nthreads) {
		if (alive(threads[i].tid)) {
			i++;
			continue;
		}
		for (k = 0; k < 2; k++) {
			retired[k] += read_fd(threads[i].fd[k]);
			if (threads[i].fd[k] >= 0)
				close(threads[i].fd[k]);
		}
		threads[i] = threads[--nthreads];
	}
}

static void scan_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			watch((pid_t)atoi(e->d_name));
	closedir(d);
}

void bench_cost_init(void)
{
	long id;
	int fd;

	memset(attr, 0, sizeof(attr));
	/*
	 * RPCRDMA_BENCH_PERF=off: no perf events at all.  Each per-thread
	 * event flips the kernel's static keys (patched code in the
	 * scheduler) when the first opens and the last closes; under QEMU
	 * TCG that patching once crashed the test bed's guest (int3 in
	 * __schedule), so its batch counts without them.
	 */
	const char *perf = getenv("RPCRDMA_BENCH_PERF");

	if (perf && !strcmp(perf, "off")) {
		for (int i = 0; i < 2; i++)
			snprintf(why[i], sizeof(why[i]),
				 "perf_event_open not used (RPCRDMA_BENCH_PERF=off)");
		goto scan;
	}
	id = syscall_tracepoint(why[0], sizeof(why[0]));
	attr[0].type = PERF_TYPE_TRACEPOINT;
	attr[0].size = sizeof(attr[0]);
	attr[0].config = (uint64_t)id;
	attr[1].type = PERF_TYPE_HARDWARE;
	attr[1].size = sizeof(attr[1]);
	attr[1].config = PERF_COUNT_HW_INSTRUCTIONS;
	attr[1].exclude_kernel = 1;
	attr[1].exclude_hv = 1;
	for (int i = 0; i < 2; i++) {
		if (i == 0 && id < 0)
			continue;
		fd = (int)perf_open(&attr[i], 0);
		if (fd < 0) {
			snprintf(why[i], sizeof(why[i]), "perf_event_open: %s",
				 strerror(errno));
			continue;
		}
		close(fd);
		have[i] = 1;
	}
scan:
	cost_on = 1;
	pthread_mutex_lock(&lock);
	scan_tasks();
	pthread_mutex_unlock(&lock);
}

/*
 * A short-lived thread (a caller of one cell) counts itself from its
 * start: a scan at the cell's end would find it gone and never counted.
 */
void bench_cost_thread_start(void)
{
	if (!cost_on)
		return;
	pthread_mutex_lock(&lock);
	watch((pid_t)syscall(SYS_gettid));
	pthread_mutex_unlock(&lock);
}

int bench_cost_snapshot(struct bench_cost *k)
{
	struct rusage ru;
	unsigned i;

	memset(k, 0, sizeof(*k));
	if (!cost_on)
		return -1;
	pthread_mutex_lock(&lock);
	scan_tasks();
	reap();
	k->ck_syscalls = retired[0];
	k->ck_instructions = retired[1];
	for (i = 0; i < nthreads; i++) {
		k->ck_syscalls += read_fd(threads[i].fd[0]);
		k->ck_instructions += read_fd(threads[i].fd[1]);
	}
	pthread_mutex_unlock(&lock);
	getrusage(RUSAGE_SELF, &ru);
	k->ck_vcsw = (uint64_t)ru.ru_nvcsw;
	k->ck_ivcsw = (uint64_t)ru.ru_nivcsw;
	k->ck_allocs = atomic_load_explicit(&allocs, memory_order_relaxed);
	k->ck_have = BENCH_COST_CSW | (have[0] ? BENCH_COST_SYSCALLS : 0) |
		     (have[1] ? BENCH_COST_INSTR : 0) |
		     (COUNT_ALLOCS ? BENCH_COST_ALLOCS : 0);
	return 0;
}

const char *bench_cost_why(unsigned which)
{
	switch (which) {
	case BENCH_COST_SYSCALLS:
		return why[0][0] ? why[0] : "not counted";
	case BENCH_COST_INSTR:
		return why[1][0] ? why[1] : "not counted";
	case BENCH_COST_ALLOCS:
		return COUNT_ALLOCS ? "" : "sanitizer build (its own malloc)";
	}
	return "";
}

/* ---- instructions under callgrind ---------------------------------------- */

/*
 * No PMU (e.g. under TCG): run the client under valgrind --tool=callgrind
 * and each measured run becomes a dump of its own, named after the cell
 * and the calls it made.  tools/bench/callgrind-cost pairs two such runs
 * of different counts per cell, so set-up cancels, and splits the
 * instructions by object (librpcrdma, verbs, libtirpc, libc).  Outside
 * valgrind the client requests are a few no-op instructions.
 */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND_H 1
#endif
#endif

int bench_callgrind_active(void)
{
#ifdef HAVE_CALLGRIND_H
	return RUNNING_ON_VALGRIND != 0;
#else
	return 0;
#endif
}

void bench_callgrind_begin(void)
{
#ifdef HAVE_CALLGRIND_H
	if (RUNNING_ON_VALGRIND)
		CALLGRIND_ZERO_STATS;
#endif
}

void bench_callgrind_label(char *buf, size_t len, const struct bench_cell *c,
			   uint64_t calls)
{
	snprintf(buf, len, "cell %s %u %u %s calls %llu",
		 bench_workload_name(c->bc_workload), c->bc_size,
		 c->bc_inflight, bench_strategy_name(c->bc_strategy),
		 (unsigned long long)calls);
}

void bench_callgrind_dump(const char *label)
{
#ifdef HAVE_CALLGRIND_H
	char buf[200];

	if (!RUNNING_ON_VALGRIND)
		return;
	snprintf(buf, sizeof(buf), "rpcrdma_bench server %s", label);
	CALLGRIND_DUMP_STATS_AT(buf);
#else
	(void)label;
#endif
}

void bench_callgrind_end(const struct bench_cell *c, uint64_t calls)
{
#ifdef HAVE_CALLGRIND_H
	char label[160], buf[200];

	if (!RUNNING_ON_VALGRIND)
		return;
	bench_callgrind_label(label, sizeof(label), c, calls);
	snprintf(buf, sizeof(buf), "rpcrdma_bench %s", label);
	CALLGRIND_DUMP_STATS_AT(buf);
#else
	(void)c;
	(void)calls;
#endif
}
