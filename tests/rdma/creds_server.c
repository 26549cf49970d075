/*
 * A server that switches credentials around every request as NFS servers
 * do (to an unprivileged uid/gid, back to root before the next), for the
 * credentials cases (creds-cases.sh).  -m thread: rpcrdma_thread_own_creds()
 * and per-thread switching (raw syscalls); -m glibc: seteuid/setegid/
 * setgroups, every thread of the process.  ECHO_STRING answers what the
 * dispatch saw: its euid and, asked of xp_fd, the socket type and peer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"

static SVCXPRT *listener;
static int per_thread;		/* -m thread */
static char query = 'n';	/* -q: l (rpcrdma_fd_sockinfo), s (socket calls), n */
static uid_t to_uid = 65534;
static gid_t to_gid = 65534;
static int switched;

static void die_errno(const char *what)
{
	fprintf(stderr, "creds_server: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Back to root, then to the request's user: uid last, root first. */
static void switch_creds(void)
{
	if (per_thread) {
		if (switched && (syscall(SYS_setresuid, -1, 0, -1) ||
				 syscall(SYS_setresgid, -1, 0, -1)))
			die_errno("back to root (per thread)");
		if (syscall(SYS_setgroups, 1, &to_gid) ||
		    syscall(SYS_setresgid, -1, to_gid, -1) ||
		    syscall(SYS_setresuid, -1, to_uid, -1))
			die_errno("to the user (per thread)");
	} else {
		if (switched && (seteuid(0) || setegid(0)))
			die_errno("back to root");
		if (setgroups(1, &to_gid) || setegid(to_gid) || seteuid(to_uid))
			die_errno("to the user");
	}
	switched = 1;
}

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr;

	if (!inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "none(%d)", (int)sa->sa_family);
}

/* "type=T peer=ADDR" as the chosen way of asking saw it. */
static void ask_fd(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	char a[64] = "none";
	int type = -1;

	if (query == 'l') {
		struct rpcrdma_sockinfo si = RPCRDMA_SOCKINFO_INIT;

		if (!rpcrdma_fd_sockinfo(fd, &si)) {
			type = si.si_type;
			addr_text((struct sockaddr *)&si.si_peer, a, sizeof(a));
		} else {
			snprintf(a, sizeof(a), "err-%d", errno);
		}
	} else if (query == 's') {
		socklen_t l = sizeof(type);

		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l))
			type = -errno;
		l = sizeof(ss);
		if (!getpeername(fd, (struct sockaddr *)&ss, &l))
			addr_text((struct sockaddr *)&ss, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "err-%d", errno);
	}
	snprintf(buf, len, "type=%d peer=%s", type, a);
}

static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	echo_str in = NULL, out;
	char buf[512], q[128];

	switch (rq->rq_proc) {
	case ECHO_NULL:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		return;
	case ECHO_SHUTDOWN:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		svc_exit();
		return;
	case ECHO_STRING:
		if (!svc_getargs(xprt, (xdrproc_t)xdr_echo_str, (caddr_t)&in)) {
			svcerr_decode(xprt);
			return;
		}
		switch_creds();
		ask_fd(xprt->xp_fd, q, sizeof(q));
		snprintf(buf, sizeof(buf), "%s euid=%d %s", in, (int)geteuid(), q);
		out = buf;
		if (!svc_sendreply(xprt, (xdrproc_t)xdr_echo_str, (caddr_t)&out))
			fprintf(stderr, "creds_server: reply not sent\n");
		svc_freeargs(xprt, (xdrproc_t)xdr_echo_str, (caddr_t)&in);
		return;
	default:
		svcerr_noproc(xprt);
	}
}

/*
 * SIGUSR1: the CPU time the process spends over the next idle interval,
 * and the listener's connection counters, then exit.  A loop spinning on
 * a refused descriptor burns a whole CPU; an idle one sleeps in poll(2).
 */
static long cpu_ticks(void)
{
	unsigned long ut = 0, st = 0;
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		die_errno("/proc/self/stat");
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		die_errno("/proc/self/stat fields");
	return (long)(ut + st);
}

static void *watch(void *arg)
{
	sigset_t *set = arg;
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;
	long t0, t1;
	int sig;

	sigwait(set, &sig);
	t0 = cpu_ticks();
	sleep(2);
	t1 = cpu_ticks();
	if (svc_rdma_get_stats(listener, &st))
		die_errno("svc_rdma_get_stats");
	printf("server: idle cpu %ld ticks of %ld per second over 2 s\n",
	       t1 - t0, sysconf(_SC_CLK_TCK));
	printf("server: accepted %llu lost %llu freed %llu\n",
	       (unsigned long long)st.rs_conns_accepted,
	       (unsigned long long)st.rs_conns_lost,
	       (unsigned long long)st.rs_conns_freed);
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL, *mode = "thread";
	static sigset_t set;
	pthread_t t;
	FILE *f;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "a:p:r:m:q:u:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 'm': mode = optarg; break;
		case 'q': query = optarg[0]; break;
		case 'u': to_uid = (uid_t)atoi(optarg); to_gid = (gid_t)to_uid; break;
		default: return 2;
		}
	}
	if (!addr || !port || !ready)
		return 2;
	per_thread = !strcmp(mode, "thread");
	/* Before any switch: the verbs thread shares these credentials. */
	if (per_thread && rpcrdma_thread_own_creds())
		die_errno("rpcrdma_thread_own_creds");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	listener = svc_rdma_create(addr, port, NULL);
	if (!listener) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
	}
	if (pthread_create(&t, NULL, watch, &set))
		return 1;
	if (!svc_reg(listener, ECHO_PROG, ECHO_VERS, dispatch, NULL))
		return 1;
	f = fopen(ready, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
		return 1;
	svc_run();
	printf("server: done\n");
	/* Back to root, as after a request: LeakSanitizer cannot ptrace a
	 * thread whose credentials differ from the process's at exit. */
	if (per_thread && switched && (syscall(SYS_setresuid, -1, 0, -1) ||
				       syscall(SYS_setresgid, -1, 0, -1)))
		die_errno("back to root (per thread)");
	return 0;
}
