/*
 * librpcrdma-preload's plumbing: the next definitions of interposed
 * symbols, the per-thread guard, the log at the library's log level,
 * RPCRDMA_PRELOAD parsed once, and the counters dumped at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "options.h"
#include "preload/preload.h"

extern char **environ;

static __thread int depth;

/*
 * Whether the libtirpc loaded is the one the preload was built for: its
 * creation calls of version TIRPC_0.3.0 (RPCRDMA_PRELOAD_TIRPC_VERSION
 * names another).  If not, one error, and every interposer passes the
 * call on to whatever definition there is: the program runs as without
 * the preload.
 */
static pthread_once_t tirpc_once = PTHREAD_ONCE_INIT;
static bool tirpc_ok;

static const char *tirpc_version(void)
{
	const char *v = getenv("RPCRDMA_PRELOAD_TIRPC_VERSION");

	return v && *v ? v : PRELOAD_TIRPC;
}

static void tirpc_check(void)
{
	static const char *const probe[] = {
		"clnt_create", "clnt_tli_create", "svc_create", "svc_reg",
		"svctcp_create", "getnetconfigent",
	};
	const char *v = tirpc_version();
	size_t i;

	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		if (!dlvsym(RTLD_NEXT, probe[i], v))
			break;
	tirpc_ok = i == sizeof(probe) / sizeof(probe[0]);
	if (!tirpc_ok) {
		preload_count(PC_MISSING_SYMBOL);
		preload_log(PRELOAD_LOG_ERROR, "the libtirpc loaded has no %s of "
			    "version %s, which the preload was built for: it "
			    "stands aside, every call goes to libtirpc untouched",
			    probe[i], v);
	}
}

bool preload_active(void)
{
	pthread_once(&tirpc_once, tirpc_check);
	return tirpc_ok;
}

bool preload_enter(void)
{
	return depth++ == 0 && preload_active();
}

void preload_leave(void)
{
	depth--;
}

/* ---- the log ---------------------------------------------------------- */
static pthread_once_t conf_once = PTHREAD_ONCE_INIT;
static int log_level = PRELOAD_LOG_WARNING;

/* RPCRDMA_PRELOAD=tcp[:prog=N,host=H,...]: up to this many of each. */
#define PRELOAD_MAX_FILTER 16
static bool tcp_mode;
static unsigned int nprogs, nhosts;
static rpcprog_t progs[PRELOAD_MAX_FILTER];
static char *hosts[PRELOAD_MAX_FILTER];

static void init_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void parse_preload(const char *v)
{
	char *copy, *p, *tok, *save = NULL;

	if (!v || !*v || !strcmp(v, "off") || !strcmp(v, "rdma"))
		return;
	copy = strdup(v);
	if (!copy)
		return;
	p = strchr(copy, ':');
	if (p)
		*p++ = '\0';
	if (strcmp(copy, "tcp")) {
		init_log(PRELOAD_LOG_ERROR, "RPCRDMA_PRELOAD=%s: expected "
			    "tcp[:prog=N,host=ADDR,...] or off; only netids rdma "
			    "and rdma6 go over RDMA", v);
		free(copy);
		return;
	}
	tcp_mode = true;
	for (tok = p ? strtok_r(p, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;

		if (!strncmp(tok, "prog=", 5) && nprogs < PRELOAD_MAX_FILTER) {
			unsigned long n = strtoul(tok + 5, &end, 0);

			if (*end || end == tok + 5) {
				init_log(PRELOAD_LOG_ERROR, "RPCRDMA_PRELOAD: bad "
					    "program number in '%s', ignored", tok);
				continue;
			}
			progs[nprogs++] = (rpcprog_t)n;
		} else if (!strncmp(tok, "host=", 5) && tok[5] &&
			   nhosts < PRELOAD_MAX_FILTER) {
			hosts[nhosts++] = strdup(tok + 5);
		} else {
			init_log(PRELOAD_LOG_ERROR, "RPCRDMA_PRELOAD: '%s' not "
				    "understood (prog=N or host=ADDR; at most %d "
				    "of each), ignored", tok, PRELOAD_MAX_FILTER);
		}
	}
	free(copy);
}

/* The library's own resolution of log_level (rpcrdma.conf, environment). */
static void conf_init(void)
{
	struct rpcrdma_optsrc src;
	struct rpcrdma_options in_force;
	const char *named = getenv("RPCRDMA_CONF");
	char err[256];

	if (rpcrdma_optsrc_init(&src, NULL, RPCRDMA_CS_CLIENT,
				named ? named : RPCRDMA_CONF_FILE, named != NULL,
				environ, err, sizeof(err)) == 0) {
		rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &in_force);
		log_level = (int)in_force.ro_log_level;
	}
	/* A bad file: the library says why at the first handle. */
	rpcrdma_optsrc_fini(&src);
	parse_preload(getenv("RPCRDMA_PRELOAD"));
}

/* Read at load, so that a bad RPCRDMA_PRELOAD is reported at once. */
__attribute__((constructor)) static void preload_init(void)
{
	pthread_once(&conf_once, conf_init);
}

int preload_log_level(void)
{
	pthread_once(&conf_once, conf_init);
	return log_level;
}

static void vlog(int level, const char *fmt, va_list ap)
{
	char line[512];

	if (level > log_level || vsnprintf(line, sizeof(line), fmt, ap) < 0)
		return;
	fprintf(stderr, "librpcrdma-preload: %s%s\n",
		level == PRELOAD_LOG_WARNING ? "warning: " : "", line);
}

void preload_log(int level, const char *fmt, ...)
{
	va_list ap;

	preload_log_level();	/* log_level read */
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/* conf_init's own, which must not wait for itself (pthread_once). */
static void init_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

bool preload_tcp_mode(void)
{
	pthread_once(&conf_once, conf_init);
	return tcp_mode;
}

bool preload_tcp_wanted(rpcprog_t prog, const char *host)
{
	unsigned int i;
	bool ok;

	if (!preload_tcp_mode())
		return false;
	for (ok = nprogs == 0, i = 0; i < nprogs && !ok; i++)
		ok = progs[i] == prog;
	if (!ok || !host)
		return ok;
	for (ok = nhosts == 0, i = 0; i < nhosts && !ok; i++)
		ok = !strcasecmp(hosts[i], host);
	return ok;
}

/* ---- symbols ---------------------------------------------------------- */
void *preload_next(const char *name, const char *version)
{
	void *fp;

	/* libtirpc's own version, or its default definition when the
	 * preload stands aside (preload_active). */
	if (version && !strcmp(version, PRELOAD_TIRPC))
		version = preload_active() ? tirpc_version() : NULL;
	fp = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
	if (!fp) {
		/* Once per symbol: each interposer resolves into a static
		 * and asks again only while it is NULL; a few repeats under
		 * racing threads are harmless. */
		preload_count(PC_MISSING_SYMBOL);
		preload_log(PRELOAD_LOG_ERROR, "%s%s%s not found after the "
			    "preload (this libtirpc lacks it): the call fails as "
			    "without it", name, version ? "@" : "",
			    version ? version : "");
	}
	return fp;
}

/* ---- counters --------------------------------------------------------- */
static uint64_t counters[PC_NCOUNTERS];
static const char *const counter_names[PC_NCOUNTERS] = {
	[PC_CLNT_RDMA] = "clnt_rdma",
	[PC_CLNT_TCP_FALLBACK] = "clnt_tcp_fallback",
	[PC_CLNT_RDMA_FAILED] = "clnt_rdma_failed",
	[PC_SVC_LISTENERS] = "svc_listeners",
	[PC_SVC_LISTEN_FAILED] = "svc_listen_failed",
	[PC_SVC_REG] = "svc_reg",
	[PC_SVC_MIRRORED] = "svc_mirrored",
	[PC_RPCB_UNSET] = "rpcb_unset",
	[PC_MISSING_SYMBOL] = "missing_symbol",
};

void preload_count(enum preload_counter c)
{
	__atomic_add_fetch(&counters[c], 1, __ATOMIC_RELAXED);
}

/*
 * RPCRDMA_PRELOAD_STATS: "1" (or "stderr"): the counters on stderr at
 * exit; a path: appended to that file ("%p" in it becomes the pid).  One
 * "NAME VALUE" line each, after a "pid N" line.
 */
__attribute__((destructor)) static void preload_fini(void)
{
	const char *where = getenv("RPCRDMA_PRELOAD_STATS");
	char path[4096];
	FILE *f;
	size_t i;

	if (!where || !*where || !strcmp(where, "0"))
		return;
	if (!strcmp(where, "1") || !strcmp(where, "stderr")) {
		f = stderr;
	} else {
		const char *p = strstr(where, "%p");

		if (p)
			snprintf(path, sizeof(path), "%.*s%ld%s", (int)(p - where),
				 where, (long)getpid(), p + 2);
		else
			snprintf(path, sizeof(path), "%s", where);
		f = fopen(path, "a");
		if (!f) {
			preload_log(PRELOAD_LOG_ERROR, "RPCRDMA_PRELOAD_STATS: %s: %s",
				    path, strerror(errno));
			return;
		}
	}
	depth++;	/* from here on every interposed call passes through */
	fprintf(f, "pid %ld\n", (long)getpid());
	for (i = 0; i < PC_NCOUNTERS; i++)
		fprintf(f, "preload.%s %llu\n", counter_names[i],
			(unsigned long long)__atomic_load_n(&counters[i],
							    __ATOMIC_RELAXED));
	preload_stats_dump(f);
	if (f != stderr)
		fclose(f);
	else
		fflush(f);
}
