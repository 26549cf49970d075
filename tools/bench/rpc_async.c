/*
 * rpcrdma_bench's async strategy: one thread keeps a cell's calls in
 * flight with clnt_rdma_call_async(3) and drives them with
 * clnt_rdma_progress(3); every result verified as rpc.c's callers do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "bench.h"
#include "rpc_int.h"

struct async_run;

/* One call slot of the cell, started again when its call ends. */
struct aslot {
	struct async_run *as_ar;
	unsigned as_seed;
	char *as_buf;			/* results decode here */
	struct bench_bytes as_arg, as_res;
	struct bench_read_args as_ra;
	uint64_t as_sum, as_expect;
	double as_t0;
};

struct async_run {
	CLIENT *ar_cl;
	const struct bench_run *ar_run;
	struct bench_samples *ar_lat;
	double ar_end;			/* duration mode: start no call after */
	unsigned long ar_left;		/* count mode: calls still to start */
	unsigned ar_inflight;
	uint64_t ar_calls;
	double ar_done;			/* when the last call ended */
	int ar_rc;
	char *ar_note;
	size_t ar_notelen;
};

static void done(CLIENT *cl, enum clnt_stat st, void *arg);

static int start(struct aslot *s)
{
	const struct bench_run *r = s->as_ar->ar_run;
	struct timeval tmo = { CALL_TIMEOUT_S, 0 };
	CLIENT *cl = s->as_ar->ar_cl;

	s->as_res.bb_len = 0;
	s->as_sum = 0;
	s->as_t0 = bench_now();
	switch (r->br_workload) {
	case BW_NULL:
		return clnt_rdma_call_async(cl, BP_NULL, XDR_VOID, NULL,
					    XDR_VOID, NULL, tmo, done, s);
	case BW_WRITE:
		return clnt_rdma_call_async(cl, BP_WRITE,
					    (xdrproc_t)xdr_bench_bytes, &s->as_arg,
					    (xdrproc_t)xdr_u_hyper, &s->as_sum,
					    tmo, done, s);
	case BW_READ:
		return clnt_rdma_call_async(cl, BP_READ,
					    (xdrproc_t)xdr_bench_read_args,
					    &s->as_ra, (xdrproc_t)xdr_bench_bytes,
					    &s->as_res, tmo, done, s);
	default:
		return clnt_rdma_call_async(cl, BP_ECHO,
					    (xdrproc_t)xdr_bench_bytes, &s->as_arg,
					    (xdrproc_t)xdr_bench_bytes, &s->as_res,
					    tmo, done, s);
	}
}

static int fail(struct async_run *ar, int rc, const char *fmt, const char *what,
		unsigned size)
{
	if (!ar->ar_rc) {
		ar->ar_rc = rc;
		snprintf(ar->ar_note, ar->ar_notelen, fmt, what, size);
	}
	return rc;
}

/* A call ended: verify, record, and start the slot's next call. */
static void done(CLIENT *cl, enum clnt_stat st, void *arg)
{
	struct aslot *s = arg;
	struct async_run *ar = s->as_ar;
	const struct bench_run *r = ar->ar_run;
	double t1 = bench_now();
	const char *src = (const char *)s->as_arg.bb_val;

	(void)cl;
	ar->ar_inflight--;
	if (st != RPC_SUCCESS) {
		fail(ar, st == RPC_TIMEDOUT ? -ETIMEDOUT : -EIO, "%s (%u)",
		     clnt_sperrno(st), r->br_size);
		return;
	}
	if (r->br_workload == BW_WRITE && s->as_sum != s->as_expect) {
		fail(ar, -EILSEQ, "%s of %u bytes: the server's checksum differs",
		     "write", r->br_size);
		return;
	}
	if ((r->br_workload == BW_READ || r->br_workload == BW_ECHO) &&
	    (s->as_res.bb_len != r->br_size ||
	     memcmp(s->as_res.bb_val, src, r->br_size))) {
		fail(ar, -EILSEQ, "%s of %u bytes: the result differs",
		     bench_workload_name(r->br_workload), r->br_size);
		return;
	}
	if (ar->ar_lat->bs_n < ar->ar_lat->bs_cap)
		ar->ar_lat->bs_us[ar->ar_lat->bs_n++] =
			(float)((t1 - s->as_t0) * 1e6);
	ar->ar_calls++;
	ar->ar_done = t1;
	if (ar->ar_rc || (r->br_duration ? t1 >= ar->ar_end : !ar->ar_left))
		return;
	if (!r->br_duration)
		ar->ar_left--;
	if (start(s))
		fail(ar, -errno, "clnt_rdma_call_async: %s (%u)",
		     strerror(errno), r->br_size);
	else
		ar->ar_inflight++;
}

int bench_async_run(CLIENT *cl, const struct bench_run *run,
		    struct bench_samples *lat, uint64_t *calls, double *secs,
		    char *note, size_t notelen)
{
	struct async_run ar = {
		.ar_cl = cl, .ar_run = run, .ar_lat = lat, .ar_note = note,
		.ar_notelen = notelen, .ar_left = run->br_count,
	};
	unsigned n = run->br_inflight, i;
	struct aslot *s;
	double t0;
	int ret = 0;

	*calls = 0;
	*secs = 0;
	lat->bs_n = 0;
	if (!n)
		return -EINVAL;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s[i].as_ar = &ar;
		s[i].as_seed = i * 37u + 11u;
		s[i].as_buf = malloc(run->br_size + 1);
		if (!s[i].as_buf) {
			ret = -ENOMEM;
			goto out_free;
		}
		s[i].as_arg.bb_len = run->br_size;
		s[i].as_arg.bb_val = (char *)pattern + s[i].as_seed % PAT_SPAN;
		s[i].as_arg.bb_max = run->br_size;
		s[i].as_res.bb_val = s[i].as_buf;
		s[i].as_res.bb_max = run->br_size;
		s[i].as_ra.ra_len = run->br_size;
		s[i].as_ra.ra_seed = s[i].as_seed;
		s[i].as_expect = checksum(s[i].as_arg.bb_val, run->br_size);
	}
	t0 = bench_now();
	ar.ar_end = t0 + run->br_duration;
	for (i = 0; i < n && (run->br_duration || ar.ar_left); i++) {
		if (!run->br_duration)
			ar.ar_left--;
		if (start(&s[i])) {
			ret = -errno;
			snprintf(note, notelen, "clnt_rdma_call_async: %s",
				 strerror(errno));
			break;
		}
		ar.ar_inflight++;
	}
	while (ar.ar_inflight)
		if (clnt_rdma_progress(cl, -1) < 0) {
			ret = -errno;
			snprintf(note, notelen, "clnt_rdma_progress: %s",
				 strerror(errno));
			break;
		}
	if (!ret)
		ret = ar.ar_rc;
	*calls = ar.ar_calls;
	*secs = ar.ar_done > t0 ? ar.ar_done - t0 : 0;
out_free:
	for (i = 0; i < n; i++)
		free(s[i].as_buf);
	free(s);
	return ret;
}
