/*
 * What the transport counters must show after messages were sent with a
 * forced Send strategy: every message went by that strategy or by a
 * counted fallback.  Shared by the echo client and server.
 */
#ifndef STRATEGY_CHECK_H
#define STRATEGY_CHECK_H

#include <stdio.h>
#include <string.h>
#include <rpcrdma/rpcrdma.h>

static inline int strategy_parse(const char *name)
{
	static const char *const names[] = { "auto", "inline", "pullup", "mapped" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static inline void strategy_print(const char *who, const struct rpcrdma_stats *s)
{
	printf("%s: sends inline %llu pullup %llu mapped %llu (sges %llu) | "
	       "fallbacks sge %llu inline %llu sendbuf %llu unmapped %llu | "
	       "hardway %llu reply_waits_for_send %llu pullup_bytes %llu "
	       "inline_granted %llu\n", who,
	       (unsigned long long)s->rs_inline_sends,
	       (unsigned long long)s->rs_pullup_sends,
	       (unsigned long long)s->rs_mapped_sends,
	       (unsigned long long)s->rs_mapped_sges,
	       (unsigned long long)s->rs_fallback_too_many_sges,
	       (unsigned long long)s->rs_fallback_too_big_for_inline,
	       (unsigned long long)s->rs_fallback_too_big_for_sendbuf,
	       (unsigned long long)s->rs_fallback_not_mappable,
	       (unsigned long long)s->rs_hardway_register_count,
	       (unsigned long long)s->rs_reply_waits_for_send,
	       (unsigned long long)s->rs_pullup_bytes,
	       (unsigned long long)s->rs_inline_granted);
}

/* NULL if the counters agree with strategy st over `sent` Sends. */
static inline const char *strategy_verify(int st, const struct rpcrdma_stats *s,
					  unsigned long long sent)
{
	unsigned long long by[4], fb;

	by[1] = s->rs_inline_sends;
	by[2] = s->rs_pullup_sends;
	by[3] = s->rs_mapped_sends;
	by[0] = by[1] + by[2] + by[3];
	fb = s->rs_fallback_too_many_sges + s->rs_fallback_too_big_for_inline +
	     s->rs_fallback_too_big_for_sendbuf + s->rs_fallback_not_mappable;
	if (by[1] + by[2] + by[3] != sent)
		return "Sends by strategy do not add up to the messages sent";
	if (st == 0)
		return NULL;
	if (by[st] == 0)
		return "the forced strategy carried nothing";
	if (by[st] + fb != sent)
		return "messages not carried by the forced strategy were not counted as fallbacks";
	return NULL;
}

#endif
