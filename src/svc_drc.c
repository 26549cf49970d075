/*
 * drc_size: the listener's duplicate request cache in the server's paths.
 * A Call is looked up as it is received (a retransmission gets the kept
 * Reply, or is dropped while its first copy runs), each Reply is kept as
 * it is encoded, a Call never answered is forgotten.  Counted per
 * connection (rs_drc_*).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "poller.h"
#include "svc_drc.h"
#include "svc_int.h"

struct svc_rdma_drc {
	pthread_mutex_t sdc_lock;
	struct rpcrdma_drc sdc_dc;
};

int svc_rdma_drc_start(struct svc_rdma_listener *l)
{
	struct svc_rdma_drc *d;

	if (!l->ln_opts.ro_drc_size)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (rpcrdma_drc_init(&d->sdc_dc, l->ln_opts.ro_drc_size,
			     RPCRDMA_DRC_MAX_BYTES)) {
		free(d);
		return -ENOMEM;
	}
	pthread_mutex_init(&d->sdc_lock, NULL);
	l->ln_drc = d;
	return 0;
}

void svc_rdma_drc_stop(struct svc_rdma_listener *l)
{
	struct svc_rdma_drc *d = l->ln_drc;

	if (!d)
		return;
	rpcrdma_drc_fini(&d->sdc_dc);
	pthread_mutex_destroy(&d->sdc_lock);
	free(d);
	l->ln_drc = NULL;
}

static uint64_t now_ms(void)
{
	return rpcrdma_poll_now_ns(NULL) / 1000000u;
}

/* The cache's counters moved while we held its lock: the connection's. */
static void count(struct svc_rdma_conn *c, const struct rpcrdma_drc_stats *a,
		  const struct rpcrdma_drc_stats *b)
{
	struct rpcrdma_stats *st = &c->cn_x.rx_stats;

	pthread_mutex_lock(&c->cn_x.rx_lock);
	st->rs_drc_hits += b->ds_hits - a->ds_hits;
	st->rs_drc_misses += b->ds_misses - a->ds_misses;
	st->rs_drc_inprog_drops += b->ds_inprog_drops - a->ds_inprog_drops;
	st->rs_drc_evictions += b->ds_evictions - a->ds_evictions;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/*
 * Whether Calls of this credential's flavour are cached: AUTH_NONE and
 * AUTH_SYS only.  An RPCSEC_GSS retransmission carries a new sequence
 * number (RFC 2203 section 5.3.3.1) and, at authentication alone, the
 * same arguments: a kept Reply would answer it with a verifier over the
 * old number, which the client must refuse, and before the server had
 * checked the Call's own credential at all.  Such Calls are
 * authenticated and run every time.
 */
static bool drc_flavour(const struct opaque_auth *cr)
{
	return cr->oa_flavor == AUTH_NONE || cr->oa_flavor == AUTH_SYS;
}

/*
 * The key: no source port, for a retransmission comes on a new
 * connection; the credential in the checksum (drc_flavour's only).
 */
static int make_key(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		    const struct rpc_msg *msg, const char *m, uint32_t len,
		    struct rpcrdma_drc_key *k)
{
	const struct opaque_auth *cr = &msg->rm_call.cb_cred;
	uint32_t pos = XDR_GETPOS(&ct->ct_args);

	memset(k, 0, sizeof(*k));
	if (pos > len ||
	    rpcrdma_drc_key_addr(k, (const struct sockaddr *)&c->cn_raddr.sa_ss))
		return -1;
	k->dk_xid = msg->rm_xid;
	k->dk_prog = (uint32_t)msg->rm_call.cb_prog;
	k->dk_vers = (uint32_t)msg->rm_call.cb_vers;
	k->dk_proc = (uint32_t)msg->rm_call.cb_proc;
	k->dk_arglen = len - pos;
	k->dk_csum = rpcrdma_drc_csum(cr->oa_base, cr->oa_length,
				      (uint32_t)cr->oa_flavor, m + pos, len - pos);
	return 0;
}

enum svc_rdma_drc_do svc_rdma_drc_check(struct svc_rdma_conn *c,
				       struct svc_rdma_call *ct,
				       const struct rpc_msg *msg, const char *m,
				       uint32_t len, struct rpcrdma_drc_reply *kept)
{
	struct svc_rdma_drc *d = c->cn_lst->ln_drc;
	struct rpcrdma_drc_stats before, after;
	struct rpcrdma_drc_entry *e;
	struct rpcrdma_drc_key k;
	enum rpcrdma_drc_verdict v;

	ct->ct_drc = NULL;
	/* Procedure 0 does nothing by convention (RFC 5531 section 12.1):
	 * pings would only push real Replies out. */
	if (!d || !msg->rm_call.cb_proc || !drc_flavour(&msg->rm_call.cb_cred) ||
	    make_key(c, ct, msg, m, len, &k))
		return SVC_RDMA_DRC_SERVE;
	pthread_mutex_lock(&d->sdc_lock);
	before = d->sdc_dc.dc_stats;
	v = rpcrdma_drc_lookup(&d->sdc_dc, &k, now_ms(), &e, kept);
	after = d->sdc_dc.dc_stats;
	pthread_mutex_unlock(&d->sdc_lock);
	count(c, &before, &after);
	switch (v) {
	case RPCRDMA_DRC_HIT:
		RPCRDMA_DBG("conn %p: xid %#x answered from the cache",
			    (void *)c, k.dk_xid);
		return SVC_RDMA_DRC_RESEND;
	case RPCRDMA_DRC_INPROG:
		RPCRDMA_DBG("conn %p: xid %#x still in progress: dropped",
			    (void *)c, k.dk_xid);
		return SVC_RDMA_DRC_DROP;
	default:
		ct->ct_drc = e;
		return SVC_RDMA_DRC_SERVE;
	}
}

void svc_rdma_drc_keep(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       const struct rpcrdma_xdr_buf *xb)
{
	struct svc_rdma_drc *d = c->cn_lst->ln_drc;
	struct rpcrdma_drc_stats before, after;
	struct rpcrdma_drc_reply r;
	size_t len = rpcrdma_xdrbuf_len(xb);
	unsigned int i;

	if (!d || !ct->ct_drc)
		return;
	memset(&r, 0, sizeof(r));
	/* Too large: not copied at all (drc_complete refuses it). */
	if (len <= RPCRDMA_DRC_MAX_REPLY && xb->xb_nsegs <= RPCRDMA_DRC_MAX_SEGS) {
		r.dr_bytes = malloc(len ? len : 1);
		if (r.dr_bytes &&
		    rpcrdma_xdrbuf_copy_out(xb, r.dr_bytes, len) != (ssize_t)len) {
			free(r.dr_bytes);
			r.dr_bytes = NULL;
		}
		for (i = 0; i < xb->xb_nsegs; i++) {
			r.dr_seglen[i] = xb->xb_segs[i].xs_len;
			r.dr_segref[i] = xb->xb_segs[i].xs_ref;
		}
		r.dr_nsegs = xb->xb_nsegs;
	}
	r.dr_len = (uint32_t)len;
	if (!r.dr_bytes)	/* not kept: drc_complete drops the entry */
		r.dr_len = UINT32_MAX;
	pthread_mutex_lock(&d->sdc_lock);
	before = d->sdc_dc.dc_stats;
	rpcrdma_drc_complete(&d->sdc_dc, ct->ct_drc, &r, now_ms());
	after = d->sdc_dc.dc_stats;
	pthread_mutex_unlock(&d->sdc_lock);
	ct->ct_drc = NULL;
	free(r.dr_bytes);
	count(c, &before, &after);
}

void svc_rdma_drc_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct)
{
	struct svc_rdma_drc *d = c->cn_lst ? c->cn_lst->ln_drc : NULL;

	if (!d || !ct->ct_drc)
		return;
	pthread_mutex_lock(&d->sdc_lock);
	rpcrdma_drc_abandon(&d->sdc_dc, ct->ct_drc);
	pthread_mutex_unlock(&d->sdc_lock);
	ct->ct_drc = NULL;
}

/*
 * Rebuild the Reply as it was encoded: copied segments into buf,
 * referenced ones pointing into r's bytes (which the caller keeps until
 * the Send is done), so direct data placement cuts it the same way.
 * threshold 0: everything copied, as for a Reply chunk.
 */
int svc_rdma_drc_replay(const struct rpcrdma_drc_reply *r,
			struct rpcrdma_xdr_buf *xb, char *buf, uint32_t len,
			uint32_t threshold)
{
	const uint8_t *p = r->dr_bytes;
	struct rpcrdma_xdr_seg *s;
	uint32_t i;

	rpcrdma_xdrbuf_init(xb, buf, len, threshold);
	if (!threshold) {
		if (r->dr_len > len)
			return -EMSGSIZE;
		memcpy(buf, p, r->dr_len);
		if (r->dr_len) {
			xb->xb_segs[0] = (struct rpcrdma_xdr_seg){ buf, r->dr_len, false };
			xb->xb_nsegs = 1;
		}
		xb->xb_scratch_used = xb->xb_len = r->dr_len;
		return 0;
	}
	for (i = 0; i < r->dr_nsegs; i++) {
		s = &xb->xb_segs[xb->xb_nsegs++];
		s->xs_len = r->dr_seglen[i];
		s->xs_ref = r->dr_segref[i];
		if (s->xs_ref) {
			s->xs_base = (const char *)p;
		} else {
			if (s->xs_len > len - xb->xb_scratch_used)
				return -EMSGSIZE;
			memcpy(buf + xb->xb_scratch_used, p, s->xs_len);
			s->xs_base = buf + xb->xb_scratch_used;
			xb->xb_scratch_used += s->xs_len;
		}
		p += s->xs_len;
		xb->xb_len += s->xs_len;
	}
	return 0;
}
