/*
 * librpcrdma-preload: credential switches made per thread.  Under the
 * preload, a program's reversible switch of its effective ids or groups
 * (seteuid, setegid, setgroups, initgroups; setres[ug]id and setre[ug]id
 * leaving the real id alone) changes only the calling thread, after
 * rpcrdma_thread_own_creds(3), so RDMA transports keep serving it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <rpcrdma/rpcrdma.h>
#include "preload.h"

/*
 * The calling thread's verbs and CM calls go through the verbs thread from
 * now on: true when that holds.  Else the switch stays process-wide (the
 * kernel then refuses the RDMA descriptors; the library logs it once).
 */
static bool own_creds(const char *call)
{
	static int warned;

	if (!rpcrdma_thread_own_creds())
		return true;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		preload_log(PRELOAD_LOG_ERROR, "%s: no verbs thread (%m): the "
			    "switch is made for the whole process", call);
	return false;
}

/* A raw system call's result, as the libc call would give it. */
static int sys_result(long rc)
{
	return rc ? -1 : 0;
}

#define NEXT_OR_FAIL(fp, name)						\
	do {								\
		PRELOAD_NEXT(fp, name, NULL);				\
		if (!(fp)) {						\
			errno = ENOSYS;					\
			return -1;					\
		}							\
	} while (0)

PRELOAD_EXPORT int seteuid(uid_t euid)
{
	static int (*next)(uid_t);

	if (euid == (uid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	if (own_creds("seteuid"))
		return sys_result(syscall(SYS_setresuid, -1, euid, -1));
	NEXT_OR_FAIL(next, "seteuid");
	return next(euid);
}

PRELOAD_EXPORT int setegid(gid_t egid)
{
	static int (*next)(gid_t);

	if (egid == (gid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	if (own_creds("setegid"))
		return sys_result(syscall(SYS_setresgid, -1, egid, -1));
	NEXT_OR_FAIL(next, "setegid");
	return next(egid);
}

PRELOAD_EXPORT int setgroups(size_t n, const gid_t *list)
{
	static int (*next)(size_t, const gid_t *);

	if (own_creds("setgroups"))
		return sys_result(syscall(SYS_setgroups, n, list));
	NEXT_OR_FAIL(next, "setgroups");
	return next(n, list);
}

/* glibc's initgroups calls its own setgroups, out of the preload's reach. */
PRELOAD_EXPORT int initgroups(const char *user, gid_t group)
{
	static int (*next)(const char *, gid_t);
	long max = sysconf(_SC_NGROUPS_MAX);
	int n, rc;
	gid_t *g;

	if (!own_creds("initgroups")) {
		NEXT_OR_FAIL(next, "initgroups");
		return next(user, group);
	}
	n = max > 0 && max < 65536 ? (int)max : 65536;
	g = malloc((size_t)n * sizeof(*g));
	if (!g) {
		errno = ENOMEM;
		return -1;
	}
	if (getgrouplist(user, group, g, &n) < 0) {
		free(g);
		errno = EINVAL;
		return -1;
	}
	rc = sys_result(syscall(SYS_setgroups, (size_t)n, g));
	free(g);
	return rc;
}

/*
 * The real (and so the saved) id left alone: a reversible switch, made
 * per thread.  A change of the real id is a permanent drop: process-wide,
 * so no other thread of the program keeps the privilege.
 */
PRELOAD_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	static int (*next)(uid_t, uid_t, uid_t);

	if (r == (uid_t)-1 && s == (uid_t)-1 && own_creds("setresuid"))
		return sys_result(syscall(SYS_setresuid, r, e, s));
	NEXT_OR_FAIL(next, "setresuid");
	return next(r, e, s);
}

PRELOAD_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	static int (*next)(gid_t, gid_t, gid_t);

	if (r == (gid_t)-1 && s == (gid_t)-1 && own_creds("setresgid"))
		return sys_result(syscall(SYS_setresgid, r, e, s));
	NEXT_OR_FAIL(next, "setresgid");
	return next(r, e, s);
}

PRELOAD_EXPORT int setreuid(uid_t r, uid_t e)
{
	static int (*next)(uid_t, uid_t);

	if (r == (uid_t)-1 && own_creds("setreuid"))
		return sys_result(syscall(SYS_setresuid, -1, e, -1));
	NEXT_OR_FAIL(next, "setreuid");
	return next(r, e);
}

PRELOAD_EXPORT int setregid(gid_t r, gid_t e)
{
	static int (*next)(gid_t, gid_t);

	if (r == (gid_t)-1 && own_creds("setregid"))
		return sys_result(syscall(SYS_setresgid, -1, e, -1));
	NEXT_OR_FAIL(next, "setregid");
	return next(r, e);
}

/*
 * setuid and setgid: as root (CAP_SETUID) they set the real, effective and
 * saved ids, a permanent drop that stays process-wide; otherwise they set
 * only the effective id, a reversible switch, made per thread.
 */
PRELOAD_EXPORT int setuid(uid_t u)
{
	static int (*next)(uid_t);

	if (geteuid() != 0 && u != (uid_t)-1 && own_creds("setuid"))
		return sys_result(syscall(SYS_setresuid, -1, u, -1));
	NEXT_OR_FAIL(next, "setuid");
	return next(u);
}

PRELOAD_EXPORT int setgid(gid_t g)
{
	static int (*next)(gid_t);

	if (geteuid() != 0 && g != (gid_t)-1 && own_creds("setgid"))
		return sys_result(syscall(SYS_setresgid, -1, g, -1));
	NEXT_OR_FAIL(next, "setgid");
	return next(g);
}
