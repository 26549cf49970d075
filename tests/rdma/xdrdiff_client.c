/*
 * The differential test: calls of every procedure of xdrdiff.x, at random
 * sizes from 0 past every threshold (seeded, the seed printed), each made
 * over libtirpc TCP and over RDMA under several Send strategies and chunk
 * modes against one server; results compared with what was expected
 * value by value (their XDR encodings), TCP and RDMA alike.  Where a
 * limit of the configuration applies the RDMA call must fail with the
 * limit's clnt_stat; every call made must be counted in rs_calls.
 *
 * The auth axis, -A FLAVOUR[,FLAVOUR...] (none, sys, krb5, krb5i, krb5p;
 * -s SERVICE@HOST for the krb5 ones): the configurations take the
 * flavours in turn, and each flavour has a TCP client of its own, so
 * every call is compared with the same call over TCP at the same service
 * level.  Default: none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <rpc/rpc.h>
#include <rpc/auth_gss.h>
#include <rpcrdma/rpcrdma.h>
#include "xdrdiff_common.h"
#include "lib_defaults.h"

#define KiB 1024u
#define MiB (1024u * 1024u)
/* The server's default max_chunk_bytes: no Call or Reply moves more. */
#define SVC_CHUNK_LIMIT (4 * MiB + 64 * KiB)
/* Near a limit, either outcome is right: headers are not counted here. */
#define SLACK (8 * KiB)
/*
 * libtirpc's RPCSEC_GSS wrap of a body (integrity, privacy) moves back
 * within its XDR stream to fill in the length and reads the body back in
 * place: over TCP that works only while the whole body is still in the
 * record buffer (256 KiB at most, either side: __rpc_get_t_size), so past it libtirpc's TCP
 * cannot carry the call and only the RDMA result is checked.
 */
#define TCP_GSS_MAX (256 * KiB)
static unsigned int tcp_cannot;

struct config {
	const char *name;
	uint32_t strategy, call_chunks, reply_chunks, max_reply;
};

static const struct config configs[] = {
	{ "auto", RPCRDMA_SEND_AUTO, RPCRDMA_CALL_CHUNKS_AUTO,
	  RPCRDMA_REPLY_CHUNK_AUTO, 0 /* default: 1 MiB + 4 KiB */ },
	{ "inline/read/always", RPCRDMA_SEND_INLINE, RPCRDMA_CALL_CHUNKS_READ,
	  RPCRDMA_REPLY_CHUNK_ALWAYS, 8 * MiB },
	{ "pullup/long/auto", RPCRDMA_SEND_PULLUP, RPCRDMA_CALL_CHUNKS_LONG,
	  RPCRDMA_REPLY_CHUNK_AUTO, 8 * MiB },
	{ "mapped/read/auto", RPCRDMA_SEND_MAPPED, RPCRDMA_CALL_CHUNKS_READ,
	  RPCRDMA_REPLY_CHUNK_AUTO, 8 * MiB },
	{ "auto/auto/never", RPCRDMA_SEND_AUTO, RPCRDMA_CALL_CHUNKS_AUTO,
	  RPCRDMA_REPLY_CHUNK_NEVER, 0 },
};
#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

static const char *const proc_names[] = {
	"NULL", "ALL", "STR", "OPQ", "INTS", "PTS", "UN", "SCALARS", "GEN", "SINK"
};

/* Sizes at and around every threshold, then random ones. */
static const uint32_t edges[] = {
	0, 1, 3, 4, 5, 1023, 1024, 1025, 3999, 4000, 4095, 4096, 4097,
	TEST_INLINE_RECV_DEFAULT - 1, TEST_INLINE_RECV_DEFAULT, 65535, 65536, 65537,
	TEST_INLINE_SEND_DEFAULT - 1, TEST_INLINE_SEND_DEFAULT, 300000, MiB - 1, MiB, MiB + 1,
	MiB + 4 * KiB, MiB + 64 * KiB, 4 * MiB, 4 * MiB + 200 * KiB,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("client: FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	failures++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

union any {
	xd_all all;
	xd_str str;
	xd_opq opq;
	xd_ints ints;
	xd_pts pts;
	xd_un un;
	xd_scalars sc;
	xd_gen gen;
	u_quad_t digest;
};

struct call {
	unsigned int proc;
	uint32_t size;
	uint64_t seed;
	xdrproc_t xargs, xres;
	union any arg, expect;
};

#define X(f) ((xdrproc_t)(void (*)(void))(f))

/* Build the call's argument and the result it must bring back. */
static void build(struct call *c)
{
	uint64_t rng = c->seed;
	unsigned int shape = (unsigned int)(xd_rand(&rng) % XD_SHAPES);

	memset(&c->arg, 0, sizeof(c->arg));
	memset(&c->expect, 0, sizeof(c->expect));
	switch (c->proc) {
	case XD_ALL: case XD_SINK:
		xd_gen_all(&rng, c->size, shape, &c->arg.all);
		c->xargs = X(xdr_xd_all);
		break;
	case XD_STR:
		xd_gen_str(&rng, c->size, &c->arg.str);
		c->xargs = X(xdr_xd_str);
		break;
	case XD_OPQ:
		xd_gen_opq(&rng, c->size, &c->arg.opq);
		c->xargs = X(xdr_xd_opq);
		break;
	case XD_INTS:
		xd_gen_ints(&rng, c->size, &c->arg.ints);
		c->xargs = X(xdr_xd_ints);
		break;
	case XD_PTS:
		xd_gen_pts(&rng, c->size, &c->arg.pts);
		c->xargs = X(xdr_xd_pts);
		break;
	case XD_UN:
		xd_gen_un(&rng, c->size, &c->arg.un);
		c->xargs = X(xdr_xd_un);
		break;
	case XD_SCALARS:
		xd_gen_scalars(&rng, &c->arg.sc);
		c->xargs = X(xdr_xd_scalars);
		break;
	case XD_GEN:
		c->arg.gen.seed = (u_int)xd_rand(&rng);
		c->arg.gen.size = c->size;
		c->arg.gen.shape = shape;
		c->xargs = X(xdr_xd_gen);
		break;
	}
	c->xres = c->xargs;
	if (c->proc == XD_GEN) {
		uint64_t r = c->arg.gen.seed | 1;

		xd_gen_all(&r, c->size, shape, &c->expect.all);
		c->xres = X(xdr_xd_all);
	} else if (c->proc == XD_SINK) {
		c->expect.digest = xd_digest(c->xargs, &c->arg.all);
		c->xres = X(xdr_u_quad_t);
	}
}

static void *expected(struct call *c)
{
	return c->proc == XD_GEN || c->proc == XD_SINK ? &c->expect : &c->arg;
}

/* Same value: same XDR encoding.  Names the first byte that differs. */
static int same(struct call *c, void *res, char *why, size_t whylen)
{
	size_t la, lb, i;
	char *a = xd_encode(c->xres, expected(c), &la);
	char *b = xd_encode(c->xres, res, &lb);
	int ok = a && b && la == lb && !memcmp(a, b, la);

	if (!ok) {
		for (i = 0; a && b && i < la && i < lb && a[i] == b[i]; i++)
			;
		snprintf(why, whylen, "encodings of %zu and %zu bytes differ at byte %zu",
			 a ? la : 0, b ? lb : 0, i);
	}
	free(a);
	free(b);
	return ok;
}

static uint64_t calls_of(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		return 0;
	return s.rs_calls;
}

static uint64_t too_large(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		return 0;
	return s.rs_reply_too_large;
}

/*
 * Whether the configuration lets RDMA carry the call: 1 yes, 0 no (a
 * limit applies), -1 too close to a limit to say.
 */
static int allowed(const struct config *cf, size_t call_len, size_t reply_len)
{
	size_t reply_max = cf->max_reply ? cf->max_reply : MiB + 4 * KiB;

	if (cf->reply_chunks == RPCRDMA_REPLY_CHUNK_NEVER)
		reply_max = TEST_INLINE_RECV_DEFAULT;	/* no Reply chunk */
	if (reply_max > SVC_CHUNK_LIMIT)
		reply_max = SVC_CHUNK_LIMIT;
	if (call_len + SLACK < SVC_CHUNK_LIMIT && reply_len + SLACK < reply_max)
		return 1;
	if (call_len > SVC_CHUNK_LIMIT + SLACK || reply_len > reply_max + SLACK)
		return 0;
	return -1;
}

static const struct timeval tmo = { 60, 0 };

static bool wraps(const char *auth)
{
	return !strcmp(auth, "krb5i") || !strcmp(auth, "krb5p");
}

static void one(CLIENT *tcp, CLIENT *rdma, const struct config *cf,
		const char *auth, struct call *c)
{
	union any rt, rr;
	enum clnt_stat st, sr;
	uint64_t before = calls_of(rdma), big_before = too_large(rdma);
	size_t call_len = xdr_sizeof(c->xargs, &c->arg) + 40;
	size_t reply_len = xdr_sizeof(c->xres, expected(c)) + 24;
	int may = allowed(cf, call_len, reply_len);
	char why[128], tag[160];

	snprintf(tag, sizeof(tag), "%s %s size %u (call %zu, reply %zu bytes) seed %#llx",
		 cf->name, proc_names[c->proc], c->size, call_len, reply_len,
		 (unsigned long long)c->seed);
	memset(&rt, 0, sizeof(rt));
	memset(&rr, 0, sizeof(rr));
	/* Not even tried: its server would be left writing a record its
	 * client stopped reading, and serve nothing else meanwhile. */
	if (wraps(auth) && (call_len + SLACK > TCP_GSS_MAX ||
			    reply_len + SLACK > TCP_GSS_MAX)) {
		tcp_cannot++;
		st = RPC_SYSTEMERROR;
	} else {
		st = clnt_call(tcp, c->proc, c->xargs, (char *)&c->arg,
			       c->xres, (char *)&rt, tmo);
		if (st != RPC_SUCCESS)
			fail("%s %s: TCP: %s", tag, auth, clnt_sperror(tcp, ""));
		else if (!same(c, &rt, why, sizeof(why)))
			fail("%s %s: TCP: %s", tag, auth, why);
	}
	sr = clnt_call(rdma, c->proc, c->xargs, (char *)&c->arg, c->xres, (char *)&rr, tmo);
	if (calls_of(rdma) != before + 1)
		fail("%s: RDMA: rs_calls went from %llu to %llu", tag,
		     (unsigned long long)before, (unsigned long long)calls_of(rdma));
	if (sr == RPC_SUCCESS) {
		if (may == 0)
			fail("%s: RDMA: carried past the configuration's limit", tag);
		else if (!same(c, &rr, why, sizeof(why)))
			fail("%s: RDMA: %s", tag, why);
		else if (st == RPC_SUCCESS && !same(c, &rt, why, sizeof(why)))
			fail("%s: RDMA and TCP differ", tag);
	} else if (may == 1) {
		fail("%s: RDMA: %s", tag, clnt_sperror(rdma, ""));
	} else {
		struct rpc_err e;

		enum clnt_stat want = call_len > SVC_CHUNK_LIMIT ? RPC_CANTSEND :
				      RPC_CANTRECV;

		clnt_geterr(rdma, &e);
		/* Over a limit: the limit's error, nothing else; a Call too
		 * large cannot be sent, a Reply too large not received. */
		if (sr != want || e.re_errno != EMSGSIZE)
			fail("%s: RDMA: over a limit, but %s", tag, clnt_sperror(rdma, ""));
		else if (want == RPC_CANTRECV && too_large(rdma) != big_before + 1)
			fail("%s: RDMA: a Reply too large not counted in rs_reply_too_large", tag);
		else
			printf("client: %s: refused as expected:%s\n", tag,
			       clnt_sperror(rdma, ""));
	}
	xdr_free(c->xres, (char *)&rt);
	xdr_free(c->xres, (char *)&rr);
}

static uint32_t pick_size(uint64_t *rng)
{
	uint64_t r = xd_rand(rng);

	switch (r % 8) {
	case 0: case 1: case 2:
		return edges[(r >> 8) % NEDGES];
	case 3: case 4:
		return (uint32_t)((r >> 8) % 8192);
	case 5: case 6:
		return (uint32_t)((r >> 8) % (128 * KiB));
	default:
		return (uint32_t)((r >> 8) % (2 * MiB));
	}
}

static CLIENT *tcp_client(const char *addr, const char *port)
{
	struct sockaddr_in sin;
	int fd = RPC_ANYSOCK;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)(atoi(port) + 5000));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return NULL;
	/* The most libtirpc takes: see TCP_GSS_MAX. */
	return clnttcp_create(&sin, XDRDIFF_PROG, XDRDIFF_VERS, &fd, 256 * KiB,
			      256 * KiB);
}

/* The auth axis (-A). */
#define MAX_AUTHS 5
static const char *auth_names[MAX_AUTHS];
static unsigned int nauths;
static const char *gss_service;

/* cl's cl_auth as flavour name says (RPCSEC_GSS: a context made now, by
 * Calls on cl).  0, or -1 said. */
static int set_auth(CLIENT *cl, const char *name)
{
	struct rpc_gss_sec sec;
	AUTH *a;

	if (!strcmp(name, "none"))
		return 0;
	if (!strcmp(name, "sys")) {
		a = authunix_create_default();
	} else {
		memset(&sec, 0, sizeof(sec));
		sec.mech = (gss_OID)gss_mech_krb5;
		sec.qop = GSS_C_QOP_DEFAULT;
		sec.svc = !strcmp(name, "krb5") ? RPCSEC_GSS_SVC_NONE :
			  !strcmp(name, "krb5i") ? RPCSEC_GSS_SVC_INTEGRITY :
			  !strcmp(name, "krb5p") ? RPCSEC_GSS_SVC_PRIVACY :
			  (rpc_gss_svc_t)0;
		if (!sec.svc || !gss_service) {
			printf("client: auth %s: unknown, or no -s\n", name);
			return -1;
		}
		sec.cred = GSS_C_NO_CREDENTIAL;
		a = authgss_create_default(cl, (char *)gss_service, &sec);
	}
	if (!a) {
		printf("client: auth %s: %s\n", name,
		       clnt_spcreateerror("no context"));
		return -1;
	}
	auth_destroy(cl->cl_auth);
	cl->cl_auth = a;
	return 0;
}

static CLIENT *rdma_client(const char *addr, const char *port,
			   const struct config *cf)
{
	struct rpcrdma_options o;
	double give_up = now() + 30;
	CLIENT *cl;

	rpcrdma_options_init(&o);
	o.ro_send_strategy = cf->strategy;
	o.ro_call_chunks = cf->call_chunks;
	o.ro_reply_chunks = cf->reply_chunks;
	if (cf->max_reply)
		o.ro_max_reply = cf->max_reply;
	while (!(cl = clnt_rdma_create(addr, port, XDRDIFF_PROG, XDRDIFF_VERS, &o))) {
		clnt_pcreateerror("clnt_rdma_create");
		if (now() > give_up)
			return NULL;
		usleep(200 * 1000);
	}
	return cl;
}

/* One call to make: a procedure, a size, the configuration that makes it. */
struct plan {
	unsigned int proc, cfg;
	uint32_t size;
	uint64_t seed;
};

/*
 * Every procedure at every edge size once, plus @extra random (procedure,
 * size) pairs, in a seeded order, spread over the configurations in turn.
 */
static struct plan *make_plan(uint64_t *rng, unsigned int extra, unsigned int *np)
{
	unsigned int nprocs = XD_SINK - XD_ALL + 1;
	unsigned int n = nprocs * (unsigned int)NEDGES + extra, i, p, e;
	struct plan *pl = calloc(n, sizeof(*pl)), t;

	if (!pl)
		abort();
	for (i = 0, p = 0; p < nprocs; p++)
		for (e = 0; e < NEDGES; e++, i++) {
			pl[i].proc = XD_ALL + p;
			pl[i].size = edges[e];
		}
	for (; i < n; i++) {
		pl[i].proc = XD_ALL + (unsigned int)(xd_rand(rng) % nprocs);
		pl[i].size = pick_size(rng);
	}
	for (i = n - 1; i > 0; i--) {
		unsigned int j = (unsigned int)(xd_rand(rng) % (i + 1));

		t = pl[i]; pl[i] = pl[j]; pl[j] = t;
	}
	for (i = 0; i < n; i++) {
		pl[i].cfg = i % (unsigned int)NCONFIGS;
		pl[i].seed = xd_rand(rng) | 1;
	}
	*np = n;
	return pl;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	uint64_t seed = 0, rng;
	unsigned int extra = 60, i, k, n, made = 0, per[NCONFIGS] = { 0 };
	double budget = 60, t0;
	CLIENT *tcp[MAX_AUTHS], *rdma[NCONFIGS];
	uint64_t base[NCONFIGS];
	char *auths = NULL, *tok, *save = NULL;
	struct plan *pl;
	int c;

	unsigned int only_proc = 0;
	uint32_t only_size = 0;

	while ((c = getopt(argc, argv, "a:p:S:n:B:A:s:O:")) != -1) {
		switch (c) {
		case 'O':	/* -O PROC:SIZE: only those calls (a replay) */
			if (sscanf(optarg, "%u:%u", &only_proc, &only_size) != 2)
				return 2;
			break;
		case 'A': auths = optarg; break;
		case 's': gss_service = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'n': extra = (unsigned int)atoi(optarg); break;
		case 'B': budget = atof(optarg); break;
		default: return 2;
		}
	}
	if (!addr || !port) {
		fprintf(stderr, "usage: xdrdiff_client -a ADDR -p PORT [-S SEED] "
			"[-n RANDOM_CALLS] [-B SECS] [-A FLAVOUR,...] "
			"[-s SERVICE@HOST] [-O PROC:SIZE]\n");
		return 2;
	}
	for (tok = auths ? strtok_r(auths, ",", &save) : NULL;
	     tok && nauths < MAX_AUTHS; tok = strtok_r(NULL, ",", &save))
		auth_names[nauths++] = tok;
	if (!nauths)
		auth_names[nauths++] = "none";
	setvbuf(stdout, NULL, _IOLBF, 0);	/* a run timed out shows its end */
	if (!seed)
		seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	printf("client: seed %#llx (replay with -S %#llx -n %u)\n",
	       (unsigned long long)seed, (unsigned long long)seed, extra);
	fflush(stdout);
	for (k = 0; k < nauths; k++) {
		tcp[k] = tcp_client(addr, port);
		if (!tcp[k]) {
			clnt_pcreateerror("clnttcp_create");
			return 1;
		}
		if (set_auth(tcp[k], auth_names[k]))
			return 1;
	}
	for (k = 0; k < NCONFIGS; k++) {
		rdma[k] = rdma_client(addr, port, &configs[k]);
		if (!rdma[k]) {
			printf("client: %s: no RDMA client\n", configs[k].name);
			return 1;
		}
		if (set_auth(rdma[k], auth_names[k % nauths]))
			return 1;
		/* Context creation's Calls are not the test's. */
		base[k] = calls_of(rdma[k]);
		if (nauths > 1 || strcmp(auth_names[0], "none"))
			printf("client: %s: auth %s\n", configs[k].name,
			       auth_names[k % nauths]);
	}
	rng = seed;
	pl = make_plan(&rng, extra, &n);
	t0 = now();
	for (i = 0; i < n; i++) {
		struct call call;

		/* Bounded: a slow bed runs fewer of the random calls. */
		if (now() - t0 > budget) {
			printf("client: time is up after %u of %u calls\n", i, n);
			break;
		}
		if (only_proc && (pl[i].proc != only_proc ||
				  pl[i].size != only_size))
			continue;
		call.proc = pl[i].proc;
		call.size = pl[i].size;
		call.seed = pl[i].seed;
		build(&call);
		one(tcp[pl[i].cfg % nauths], rdma[pl[i].cfg], &configs[pl[i].cfg],
		    auth_names[pl[i].cfg % nauths], &call);
		made++;
		per[pl[i].cfg]++;
		xdr_free(call.xargs, (char *)&call.arg);
		if (call.proc == XD_GEN || call.proc == XD_SINK)
			xdr_free(call.xres, (char *)&call.expect);
	}
	for (k = 0; k < NCONFIGS; k++) {
		uint64_t counted = calls_of(rdma[k]) - base[k];

		printf("client: %s: %u calls, rs_calls %llu\n", configs[k].name,
		       per[k], (unsigned long long)counted);
		if (counted != per[k])
			fail("%s: %u calls made, rs_calls %llu", configs[k].name,
			     per[k], (unsigned long long)counted);
		/* The auth, then the handle, as with libtirpc's: an RPCSEC_GSS
		 * one tells the server (RPCSEC_GSS_DESTROY) on the handle. */
		auth_destroy(rdma[k]->cl_auth);
		clnt_destroy(rdma[k]);
	}
	/* Its contexts go first (RPCSEC_GSS_DESTROY), while it serves;
	 * libtirpc's clnt_destroy() leaves cl_auth to its owner. */
	for (k = 0; k < nauths; k++) {
		auth_destroy(tcp[k]->cl_auth);
		tcp[k]->cl_auth = authnone_create();
		if (k)
			clnt_destroy(tcp[k]);
	}
	if (clnt_call(tcp[0], XD_SHUTDOWN, X(xdr_void), NULL, X(xdr_void), NULL, tmo) != RPC_SUCCESS)
		fail("XD_SHUTDOWN: %s", clnt_sperror(tcp[0], ""));
	clnt_destroy(tcp[0]);
	if (tcp_cannot)
		printf("client: %u calls too large for libtirpc's TCP at their "
		       "flavour, checked over RDMA alone\n", tcp_cannot);
	printf("client: %u calls in %.1f s, %d failed (seed %#llx)\n", made, now() - t0,
	       failures, (unsigned long long)seed);
	free(pl);
	return failures ? 1 : 0;
}
