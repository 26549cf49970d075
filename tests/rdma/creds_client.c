/*
 * The client of creds_server: ECHO_STRING calls over two connections (a
 * reconnection between), each Reply checked: the string back, the euid
 * the server's dispatch ran with, and, with -q, what the server's socket
 * queries on xp_fd said (SOCK_STREAM, and this client's address).  -f:
 * the server is expected to fail: a NULL Call answered, then one more Call
 * whose outcome is only reported.  -s: this client switches its own
 * thread's credentials too, after rpcrdma_thread_own_creds(), before it
 * creates either connection.  -g FILE: this client switches the whole
 * process (seteuid) after a NULL Call, writes FILE, and measures its own
 * CPU time while the server goes away (the disconnect comes on a CM
 * channel the kernel now refuses).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "test_util.h"

/* utime + stime of the process, in clock ticks. */
static long cpu_ticks(void)
{
	unsigned long ut = 0, st = 0;
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		die("/proc/self/stat");
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		die("/proc/self/stat fields");
	return (long)(ut + st);
}

static CLIENT *connect_to(const char *addr, const char *port, int secs)
{
	struct timeval tv = { secs, 0 };
	double give_up = now() + 30;
	CLIENT *cl;

	while (!(cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, NULL))) {
		clnt_pcreateerror("clnt_rdma_create");
		if (now() > give_up)
			die("cannot create the client");
		usleep(200 * 1000);
	}
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
	return cl;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *me = NULL, *gfile = NULL;
	int n = 20, uid = 65534, query = 0, expect_fail = 0, own = 0, i, conn;
	gid_t gid = 65534, ogid = getegid(), groups[64];
	uid_t ouid = geteuid();
	int ngroups = getgroups(64, groups);
	struct timeval tv = { 20, 0 };
	char want[256], arg[64];
	CLIENT *cl;
	int c;

	tu_name = "creds_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "a:b:p:n:u:qfsg:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': me = optarg; break;
		case 'p': port = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'u': uid = atoi(optarg); break;
		case 'q': query = 1; break;
		case 'f': expect_fail = 1; break;
		case 's': own = 1; break;
		case 'g': gfile = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || !me)
		die("usage: creds_client -a SRV -b CLI -p PORT [-n CALLS] [-u UID] [-q] [-f]");
	if (gfile) {
		long t0, t1;
		FILE *f;

		cl = connect_to(addr, port, 3);
		if (clnt_call(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			      (xdrproc_t)(void (*)(void))xdr_void, NULL, tv) != RPC_SUCCESS)
			die("NULL: %s", clnt_sperror(cl, "call"));
		/* Opened while root: the work directory is root's. */
		f = fopen(gfile, "w");
		if (!f)
			die("%s: %s", gfile, strerror(errno));
		if (setgroups(1, &gid) || setegid(gid) || seteuid(65534))
			die("switching the process: %s", strerror(errno));
		/* No call now: a failed one would have the progress thread
		 * reconnect, on a CM channel opened with the new credentials;
		 * the one the server's disconnect must reach is the first. */
		if (fclose(f))
			die("%s: %s", gfile, strerror(errno));
		/* The server goes now: its disconnect reaches a refused channel. */
		t0 = cpu_ticks();
		sleep(3);
		t1 = cpu_ticks();
		printf("client: idle cpu %ld ticks of %ld per second over 3 s\n",
		       t1 - t0, sysconf(_SC_CLK_TCK));
		fflush(stdout);
		_exit(t1 - t0 >= sysconf(_SC_CLK_TCK) ? 1 : 0);
	}
	if (expect_fail) {
		echo_str s = "first", r = NULL;
		enum clnt_stat st;

		cl = connect_to(addr, port, 3);
		if (clnt_call(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			      (xdrproc_t)(void (*)(void))xdr_void, NULL, tv) != RPC_SUCCESS)
			die("NULL: %s", clnt_sperror(cl, "call"));
		tv.tv_sec = 3;
		st = clnt_call(cl, ECHO_STRING, (xdrproc_t)xdr_echo_str,
			       (caddr_t)&s, (xdrproc_t)xdr_echo_str, (caddr_t)&r, tv);
		/* rxe may still carry a Send whose doorbell the kernel refused
		 * (the requester runs on later kernel work): either way the
		 * server must log, stop and account; creds-cases.sh checks it. */
		printf("client: NULL answered; then %s\n", st == RPC_SUCCESS ?
		       r : clnt_sperrno(st));
		if (st == RPC_SUCCESS)
			xdr_free((xdrproc_t)xdr_echo_str, (char *)&r);
		clnt_destroy(cl);
		return 0;
	}
	/* Per thread, as the server: the connections below are made (and
	 * the progress thread created) with this thread switched. */
	if (own && (rpcrdma_thread_own_creds() ||
		    syscall(SYS_setgroups, 1, &gid) ||
		    syscall(SYS_setresgid, -1, gid, -1) ||
		    syscall(SYS_setresuid, -1, 65534, -1) || geteuid() != 65534))
		die("switching this thread's credentials: %s", strerror(errno));
	for (conn = 0; conn < 2; conn++) {
		cl = connect_to(addr, port, 20);
		for (i = 0; i < n / 2; i++) {
			echo_str s = arg, r = NULL;
			enum clnt_stat st;

			snprintf(arg, sizeof(arg), "conn%d-call%d", conn, i);
			st = clnt_call(cl, ECHO_STRING, (xdrproc_t)xdr_echo_str,
				       (caddr_t)&s, (xdrproc_t)xdr_echo_str,
				       (caddr_t)&r, tv);
			if (st != RPC_SUCCESS)
				die("call %s: %s", arg, clnt_sperrno(st));
			if (query)
				snprintf(want, sizeof(want), "%s euid=%d type=%d peer=%s",
					 arg, uid, SOCK_STREAM, me);
			else
				snprintf(want, sizeof(want), "%s euid=%d type=-1 peer=none",
					 arg, uid);
			if (strcmp(r, want))
				die("call %s: the Reply is '%s', not '%s'", arg, r, want);
			if (i == 0)
				printf("client: %s\n", r);
			xdr_free((xdrproc_t)xdr_echo_str, (char *)&r);
		}
		if (conn == 1 &&
		    clnt_call(cl, ECHO_SHUTDOWN, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			      (xdrproc_t)(void (*)(void))xdr_void, NULL, tv) != RPC_SUCCESS)
			die("SHUTDOWN: %s", clnt_sperror(cl, "call"));
		clnt_destroy(cl);
	}
	printf("client: %d Replies verified over 2 connections%s\n", n / 2 * 2,
	       own ? ", this thread switched to uid 65534" : "");
	/* Back, as a server after a request: a thread whose credentials
	 * differ from the rest of the process cannot be ptraced, so
	 * LeakSanitizer could not read its thread-specific data at exit. */
	if (own && (syscall(SYS_setresuid, -1, ouid, -1) ||
		    syscall(SYS_setresgid, -1, ogid, -1) ||
		    (ngroups >= 0 && syscall(SYS_setgroups, ngroups, groups))))
		die("switching this thread's credentials back: %s", strerror(errno));
	return 0;
}
