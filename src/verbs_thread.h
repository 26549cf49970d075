/*
 * The verbs thread: a library-owned thread whose credentials never change,
 * making the verbs and CM system calls for threads that switch their own
 * (rpcrdma_thread_own_creds(3); src/event-loop.md, "The verbs thread").
 * verbs.c, verbs_post.c, verbs_cm.c and verbs_mem.c route each of their
 * calls through it with the RPCRDMA_VT_* wrappers below; an unmarked
 * thread pays one TLS test.
 */
#ifndef RPCRDMA_VERBS_THREAD_H
#define RPCRDMA_VERBS_THREAD_H

#include <errno.h>

/* Set for a thread that called rpcrdma_thread_own_creds(). */
extern __thread int rpcrdma_vt_marked;
#define RPCRDMA_VT_MARKED() __builtin_expect(rpcrdma_vt_marked, 0)

/* Start the verbs thread, sharing the caller's credentials: 0 or -errno. */
int rpcrdma_vt_start(void);
/* Run fn(arg) on the verbs thread and wait for it; errno comes back. */
void rpcrdma_vt_run(void (*fn)(void *), void *arg);

/*
 * The kernel refused a verbs or CM write (EACCES): the process changed
 * credentials since it opened the descriptor.  Logged once, at error
 * level; rpcrdma_vt_creds_refused() says it happened.
 */
void rpcrdma_vt_refused(void);
int rpcrdma_vt_creds_refused(void);

/*
 * A verb's result as a negative errno.  Providers return a positive errno,
 * or -1 with errno set (siw; errno cleared before the call), or a negative
 * errno; a refusal is reported.
 */
static inline int rpcrdma_vt_rc(int rc)
{
	if (rc > 0)
		rc = -rc;
	else if (rc == -1)
		rc = errno > 0 ? -errno : -EIO;
	if (rc == -EACCES)
		rpcrdma_vt_refused();
	return rc;
}

/*
 * Define the public NAME (ret NAME(T1 a1, ...)) over the static NAME_here
 * holding its body: NAME_here runs in place, or, for a marked thread, on
 * the verbs thread.  _R: with a result; _V: void.
 */
#define RPCRDMA_VT_R1(ret, name, T1) \
struct name##_vta { T1 a1; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1); } \
ret name(T1 a1) \
{ \
	struct name##_vta v = { a1, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R2(ret, name, T1, T2) \
struct name##_vta { T1 a1; T2 a2; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2); } \
ret name(T1 a1, T2 a2) \
{ \
	struct name##_vta v = { a1, a2, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R3(ret, name, T1, T2, T3) \
struct name##_vta { T1 a1; T2 a2; T3 a3; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2, v->a3); } \
ret name(T1 a1, T2 a2, T3 a3) \
{ \
	struct name##_vta v = { a1, a2, a3, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2, a3); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R4(ret, name, T1, T2, T3, T4) \
struct name##_vta { T1 a1; T2 a2; T3 a3; T4 a4; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2, v->a3, v->a4); } \
ret name(T1 a1, T2 a2, T3 a3, T4 a4) \
{ \
	struct name##_vta v = { a1, a2, a3, a4, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2, a3, a4); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R5(ret, name, T1, T2, T3, T4, T5) \
struct name##_vta { T1 a1; T2 a2; T3 a3; T4 a4; T5 a5; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2, v->a3, v->a4, v->a5); } \
ret name(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5) \
{ \
	struct name##_vta v = { a1, a2, a3, a4, a5, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2, a3, a4, a5); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R6(ret, name, T1, T2, T3, T4, T5, T6) \
struct name##_vta { T1 a1; T2 a2; T3 a3; T4 a4; T5 a5; T6 a6; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2, v->a3, v->a4, v->a5, v->a6); } \
ret name(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6) \
{ \
	struct name##_vta v = { a1, a2, a3, a4, a5, a6, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2, a3, a4, a5, a6); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_R7(ret, name, T1, T2, T3, T4, T5, T6, T7) \
struct name##_vta { T1 a1; T2 a2; T3 a3; T4 a4; T5 a5; T6 a6; T7 a7; ret r; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; v->r = name##_here(v->a1, v->a2, v->a3, v->a4, v->a5, v->a6, v->a7); } \
ret name(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7) \
{ \
	struct name##_vta v = { a1, a2, a3, a4, a5, a6, a7, 0 }; \
	if (!RPCRDMA_VT_MARKED()) \
		return name##_here(a1, a2, a3, a4, a5, a6, a7); \
	rpcrdma_vt_run(name##_vtf, &v); \
	return v.r; \
}

#define RPCRDMA_VT_V1(name, T1) \
struct name##_vta { T1 a1; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; name##_here(v->a1); } \
void name(T1 a1) \
{ \
	struct name##_vta v = { a1 }; \
	if (!RPCRDMA_VT_MARKED()) { \
		name##_here(a1); \
		return; \
	} \
	rpcrdma_vt_run(name##_vtf, &v); \
}

#define RPCRDMA_VT_V2(name, T1, T2) \
struct name##_vta { T1 a1; T2 a2; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; name##_here(v->a1, v->a2); } \
void name(T1 a1, T2 a2) \
{ \
	struct name##_vta v = { a1, a2 }; \
	if (!RPCRDMA_VT_MARKED()) { \
		name##_here(a1, a2); \
		return; \
	} \
	rpcrdma_vt_run(name##_vtf, &v); \
}

#define RPCRDMA_VT_V3(name, T1, T2, T3) \
struct name##_vta { T1 a1; T2 a2; T3 a3; }; \
static void name##_vtf(void *p_) \
{ struct name##_vta *v = p_; name##_here(v->a1, v->a2, v->a3); } \
void name(T1 a1, T2 a2, T3 a3) \
{ \
	struct name##_vta v = { a1, a2, a3 }; \
	if (!RPCRDMA_VT_MARKED()) { \
		name##_here(a1, a2, a3); \
		return; \
	} \
	rpcrdma_vt_run(name##_vtf, &v); \
}

#endif /* RPCRDMA_VERBS_THREAD_H */
