/*
 * Picking a Send strategy per message and planning its gather list, after
 * the kernel's rpc_rdma.c: small can-we helpers, one decision function,
 * one planner.  Nothing here touches verbs; the caller turns the plan
 * into ibv_sge (lkeys) and posts it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "chooser.h"

const char *rpcrdma_chunktype_name(enum rpcrdma_chunktype t)
{
	switch (t) {
	case RPCRDMA_NOCH_INLINE:	return "inline";
	case RPCRDMA_NOCH_PULLUP:	return "pullup";
	case RPCRDMA_NOCH_MAPPED:	return "mapped";
	case RPCRDMA_READCH:		return "readch";
	case RPCRDMA_AREADCH:		return "areadch";
	case RPCRDMA_WRITECH:		return "writech";
	case RPCRDMA_REPLYCH:		return "replych";
	}
	return "unknown";
}

const char *rpcrdma_strategy_name(enum rpcrdma_strategy s)
{
	switch (s) {
	case RPCRDMA_STRAT_AUTO:	return "auto";
	case RPCRDMA_STRAT_INLINE:	return "inline";
	case RPCRDMA_STRAT_PULLUP:	return "pullup";
	case RPCRDMA_STRAT_MAPPED:	return "mapped";
	}
	return "unknown";
}

const char *rpcrdma_fallback_name(enum rpcrdma_fallback f)
{
	switch (f) {
	case RPCRDMA_FB_NONE:			return "none";
	case RPCRDMA_FB_TOO_MANY_SGES:		return "too_many_sges";
	case RPCRDMA_FB_TOO_BIG_FOR_INLINE:	return "too_big_for_inline";
	case RPCRDMA_FB_TOO_BIG_FOR_SENDBUF:	return "too_big_for_sendbuf";
	case RPCRDMA_FB_NOT_MAPPABLE:		return "not_mappable";
	case RPCRDMA_FB_TOO_BIG_FOR_PEER:	return "too_big_for_peer";
	}
	return "unknown";
}

int rpcrdma_strategy_from_name(const char *name)
{
	int s;

	if (!name)
		return -EINVAL;
	for (s = RPCRDMA_STRAT_AUTO; s <= RPCRDMA_STRAT_MAPPED; s++)
		if (!strcmp(name, rpcrdma_strategy_name((enum rpcrdma_strategy)s)))
			return s;
	return -EINVAL;
}

/*
 * Count non-empty segments ourselves rather than trusting that only the
 * last one can be empty: the planner skips every empty one, and the SGE
 * count the chooser checks must be the count the planner produces.
 */
void rpcrdma_msg_shape_of(const struct rpcrdma_xdr_buf *xb, uint32_t hdrlen,
			  bool mappable, struct rpcrdma_msg_shape *ms)
{
	unsigned int i;

	memset(ms, 0, sizeof(*ms));
	ms->ms_hdrlen = hdrlen;
	ms->ms_msglen = (uint32_t)rpcrdma_xdrbuf_len(xb);
	ms->ms_mappable = mappable;
	for (i = 0; i < xb->xb_nsegs; i++) {
		const struct rpcrdma_xdr_seg *seg = &xb->xb_segs[i];

		if (!seg->xs_len)
			continue;
		ms->ms_nsegs++;
		if (seg->xs_ref) {
			ms->ms_nrefs++;
			ms->ms_refbytes += seg->xs_len;
		}
	}
}

/* 64-bit so a 4 GiB message plus its header cannot wrap past a limit. */
static uint64_t rpcrdma_send_len(const struct rpcrdma_msg_shape *ms)
{
	return (uint64_t)ms->ms_hdrlen + ms->ms_msglen;
}

/* Inline and mapped gather the header and every segment as they are. */
static unsigned int rpcrdma_gather_nsge(const struct rpcrdma_msg_shape *ms)
{
	return 1 + ms->ms_nsegs;
}

/*
 * The can-we helpers answer with RPCRDMA_FB_NONE for yes, else the first
 * reason for no, so the chooser can report it without asking twice.
 * Inline: the provider copies the gather list into the WQE, so the Send
 * must fit the *granted* max_inline_data; the SGE count is still checked
 * against max_send_sge by providers (rxe, mlx5), so it must fit too.
 */
static enum rpcrdma_fallback
rpcrdma_can_inline(const struct rpcrdma_msg_shape *ms,
		   const struct rpcrdma_send_limits *sl)
{
	if (rpcrdma_send_len(ms) > sl->sl_max_inline)
		return RPCRDMA_FB_TOO_BIG_FOR_INLINE;
	if (rpcrdma_gather_nsge(ms) > sl->sl_max_sge)
		return RPCRDMA_FB_TOO_MANY_SGES;
	return RPCRDMA_FB_NONE;
}

/* Pull-up: one SGE, always fits max_send_sge; only the copy must fit. */
static enum rpcrdma_fallback
rpcrdma_can_pullup(const struct rpcrdma_msg_shape *ms,
		   const struct rpcrdma_send_limits *sl)
{
	if (rpcrdma_send_len(ms) > sl->sl_sendbuf)
		return RPCRDMA_FB_TOO_BIG_FOR_SENDBUF;
	return RPCRDMA_FB_NONE;
}

/*
 * Mapped: an SGE per segment plus the header's, and lkeys for every
 * reference.  The header and the copied segments are gathered from the
 * send buffer (copied there: the scratch they were encoded in is reused
 * at once), which must therefore hold them; send buffers may be smaller
 * than the largest Send (send_buffer).
 */
static enum rpcrdma_fallback
rpcrdma_can_map(const struct rpcrdma_msg_shape *ms,
		const struct rpcrdma_send_limits *sl)
{
	if (rpcrdma_gather_nsge(ms) > sl->sl_max_sge)
		return RPCRDMA_FB_TOO_MANY_SGES;
	if (ms->ms_nrefs && !ms->ms_mappable)
		return RPCRDMA_FB_NOT_MAPPABLE;
	if (rpcrdma_send_len(ms) - ms->ms_refbytes > sl->sl_sendbuf)
		return RPCRDMA_FB_TOO_BIG_FOR_SENDBUF;
	return RPCRDMA_FB_NONE;
}

static enum rpcrdma_fallback
rpcrdma_can_carry(enum rpcrdma_chunktype t, const struct rpcrdma_msg_shape *ms,
		  const struct rpcrdma_send_limits *sl)
{
	switch (t) {
	case RPCRDMA_NOCH_INLINE:
		return rpcrdma_can_inline(ms, sl);
	case RPCRDMA_NOCH_PULLUP:
		return rpcrdma_can_pullup(ms, sl);
	default:
		return rpcrdma_can_map(ms, sl);
	}
}

/*
 * AUTO's preference, from the tunables only (the device limits decide
 * later what can actually carry it): inline for a Send within the cutoff
 * (never above the grant), since it needs neither a copy nor an lkey;
 * mapped when enough caller bytes are referenced that copying them
 * would cost more than registering/gathering them; pull-up otherwise,
 * as small copies are cheaper than extra SGEs.
 */
static enum rpcrdma_chunktype
rpcrdma_auto_prefer(const struct rpcrdma_msg_shape *ms,
		    const struct rpcrdma_send_limits *sl)
{
	uint32_t cutoff = sl->sl_inline_cutoff < sl->sl_max_inline ?
			  sl->sl_inline_cutoff : sl->sl_max_inline;

	if (cutoff && rpcrdma_send_len(ms) <= cutoff)
		return RPCRDMA_NOCH_INLINE;
	if (sl->sl_mapped_min && ms->ms_refbytes >= sl->sl_mapped_min)
		return RPCRDMA_NOCH_MAPPED;
	return RPCRDMA_NOCH_PULLUP;
}

/*
 * Fallbacks go cheapest-to-post first: inline (no copy into a buffer,
 * no lkey), then pull-up (one copy, one SGE, no MR), then mapped (an SGE
 * per segment and registered memory).  So forced inline -> pull-up ->
 * mapped, forced pull-up -> inline -> mapped, forced mapped -> inline ->
 * pull-up.
 */
static const enum rpcrdma_chunktype rpcrdma_fallback_order[] = {
	RPCRDMA_NOCH_INLINE, RPCRDMA_NOCH_PULLUP, RPCRDMA_NOCH_MAPPED,
};
#define RPCRDMA_NFALLBACK \
	(sizeof(rpcrdma_fallback_order) / sizeof(rpcrdma_fallback_order[0]))

int rpcrdma_choose(const struct rpcrdma_msg_shape *ms,
		   const struct rpcrdma_send_limits *sl,
		   enum rpcrdma_strategy forced, struct rpcrdma_choice *out)
{
	enum rpcrdma_chunktype pref, t;
	enum rpcrdma_fallback why;
	unsigned int i;

	switch (forced) {
	case RPCRDMA_STRAT_AUTO:
		pref = rpcrdma_auto_prefer(ms, sl);
		break;
	case RPCRDMA_STRAT_INLINE:
		pref = RPCRDMA_NOCH_INLINE;
		break;
	case RPCRDMA_STRAT_PULLUP:
		pref = RPCRDMA_NOCH_PULLUP;
		break;
	case RPCRDMA_STRAT_MAPPED:
		pref = RPCRDMA_NOCH_MAPPED;
		break;
	default:
		return -EINVAL;
	}
	if (!sl->sl_max_sge)
		return -EINVAL;

	out->ch_type = pref;
	out->ch_nsge = 0;
	/* The peer's receive buffers are this big: no Send gets around it. */
	if (rpcrdma_send_len(ms) > sl->sl_peer_inline) {
		out->ch_fallback = RPCRDMA_FB_TOO_BIG_FOR_PEER;
		return -EMSGSIZE;
	}
	why = rpcrdma_can_carry(pref, ms, sl);
	out->ch_fallback = why;
	t = pref;
	for (i = 0; why != RPCRDMA_FB_NONE && i < RPCRDMA_NFALLBACK; i++) {
		t = rpcrdma_fallback_order[i];
		if (t != pref)
			why = rpcrdma_can_carry(t, ms, sl);
	}
	if (why != RPCRDMA_FB_NONE)
		return -EMSGSIZE;	/* no single Send carries it: chunks */
	out->ch_type = t;
	out->ch_nsge = t == RPCRDMA_NOCH_PULLUP ? 1 : rpcrdma_gather_nsge(ms);
	return 0;
}

uint32_t rpcrdma_send_plan_max(const struct rpcrdma_msg_shape *ms,
			       const struct rpcrdma_send_limits *sl)
{
	if (sl->sl_peer_inline <= sl->sl_sendbuf ||
	    rpcrdma_can_map(ms, sl) == RPCRDMA_FB_NONE)
		return sl->sl_peer_inline;
	return sl->sl_sendbuf;
}

int rpcrdma_plan_sges(enum rpcrdma_chunktype type, const void *hdr,
		      uint32_t hdrlen, const struct rpcrdma_xdr_buf *xb,
		      struct rpcrdma_sge_plan *plan)
{
	struct rpcrdma_plan_sge *ps;
	unsigned int i;

	if (!hdr || !hdrlen || xb->xb_nsegs > RPCRDMA_XDRBUF_MAX_SEGS)
		return -EINVAL;
	switch (type) {
	case RPCRDMA_NOCH_INLINE:
	case RPCRDMA_NOCH_MAPPED:
		break;
	case RPCRDMA_NOCH_PULLUP:
		if ((uint64_t)hdrlen + xb->xb_len > UINT32_MAX)
			return -EMSGSIZE;
		plan->sp_nsge = 1;
		plan->sp_sge[0].pg_addr = NULL;
		plan->sp_sge[0].pg_len = hdrlen + xb->xb_len;
		plan->sp_sge[0].pg_src = RPCRDMA_PS_HDR;
		return 0;
	case RPCRDMA_READCH:
	case RPCRDMA_AREADCH:
	case RPCRDMA_WRITECH:
	case RPCRDMA_REPLYCH:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}

	plan->sp_nsge = 1;
	plan->sp_sge[0].pg_addr = hdr;
	plan->sp_sge[0].pg_len = hdrlen;
	plan->sp_sge[0].pg_src = RPCRDMA_PS_HDR;
	for (i = 0; i < xb->xb_nsegs; i++) {
		const struct rpcrdma_xdr_seg *seg = &xb->xb_segs[i];

		/* A zero-length SGE is legal but wastes a max_send_sge slot. */
		if (!seg->xs_len)
			continue;
		ps = &plan->sp_sge[plan->sp_nsge++];
		ps->pg_addr = seg->xs_base;
		ps->pg_len = seg->xs_len;
		ps->pg_src = seg->xs_ref ? RPCRDMA_PS_CALLER : RPCRDMA_PS_SCRATCH;
	}
	return 0;
}
