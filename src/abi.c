/*
 * The size-prefixed public structs: initializing the program's options,
 * reading its options and hints no further than its size says, and
 * filling its options and counters no further.  No verbs: unit-tested.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "options.h"

bool rpcrdma_abi_tail_set(const void *p, size_t known, size_t size,
			  unsigned char unset)
{
	const unsigned char *b = p;
	size_t i;

	for (i = known; i < size; i++)
		if (b[i] != unset)
			return true;
	return false;
}

int rpcrdma_abi_in(void *dst, size_t known, const void *prog, size_t size,
		   size_t min, unsigned char unset)
{
	if (size < min || rpcrdma_abi_tail_set(prog, known, size, unset))
		return -EINVAL;
	memcpy(dst, prog, size < known ? size : known);
	return 0;
}

int rpcrdma_abi_out(void *prog, size_t size, const void *src, size_t known,
		    size_t min, unsigned char unset)
{
	size_t n = size < known ? size : known;

	if (size < min)
		return -EINVAL;
	memcpy(prog, src, n);
	memset((char *)prog + n, unset, size - n);
	return 0;
}

/* All ones everywhere (the unset integer, and what fields appended later
 * take as unset), then the string fields NULL. */
int rpcrdma_options_init_size(struct rpcrdma_options *o, size_t size)
{
	size_t k;

	if (!o || size < RPCRDMA_OPTIONS_SIZE_0_1 || size > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(o, 0xff, size);
	for (k = 0; k < rpcrdma_nkeys; k++)
		if (rpcrdma_keys[k].ck_type == RPCRDMA_CT_STRING &&
		    rpcrdma_keys[k].ck_offset < size)
			memset((char *)o + rpcrdma_keys[k].ck_offset, 0,
			       sizeof(const char *));
	o->ro_size = (uint32_t)size;
	return 0;
}

int rpcrdma_options_import(struct rpcrdma_options *dst,
			   const struct rpcrdma_options *prog,
			   char *err, size_t errlen)
{
	rpcrdma_options_init(dst);
	if (!prog)
		return 0;
	if (prog->ro_size < RPCRDMA_OPTIONS_SIZE_0_1) {
		snprintf(err, errlen, "ro_size = %u, below %zu: options not made "
			 "by rpcrdma_options_init()", prog->ro_size,
			 (size_t)RPCRDMA_OPTIONS_SIZE_0_1);
		return -EINVAL;
	}
	if (rpcrdma_abi_in(dst, RPCRDMA_OPTIONS_KNOWN, prog, prog->ro_size,
			   RPCRDMA_OPTIONS_SIZE_0_1, 0xff)) {
		snprintf(err, errlen, "ro_size = %u: a field past the %zu bytes "
			 "this librpcrdma knows is set (a newer header's)",
			 prog->ro_size, (size_t)RPCRDMA_OPTIONS_KNOWN);
		return -EINVAL;
	}
	dst->ro_size = sizeof(*dst);
	return 0;
}

int rpcrdma_options_export(struct rpcrdma_options *prog,
			   const struct rpcrdma_options *src)
{
	uint32_t size = prog->ro_size;

	if (rpcrdma_abi_out(prog, size, src, RPCRDMA_OPTIONS_KNOWN,
			    RPCRDMA_OPTIONS_SIZE_0_1, 0xff))
		return -EINVAL;
	prog->ro_size = size;
	return 0;
}

int rpcrdma_stats_export(struct rpcrdma_stats *prog,
			 const struct rpcrdma_stats *src)
{
	uint32_t size = prog->rs_size;

	if (rpcrdma_abi_out(prog, size, src, RPCRDMA_STATS_KNOWN,
			    RPCRDMA_STATS_SIZE_0_1, 0))
		return -EINVAL;
	prog->rs_size = size;
	prog->rs_lib_size = RPCRDMA_STATS_KNOWN;
	return 0;
}

int rpcrdma_reply_hint_check(const struct rpcrdma_reply_hint *rh)
{
	if (rh->rh_size < RPCRDMA_REPLY_HINT_SIZE_0_1 ||
	    rpcrdma_abi_tail_set(rh, sizeof(*rh), rh->rh_size, 0))
		return -EINVAL;
	return 0;
}

int rpcrdma_result_buf_check(const struct rpcrdma_result_buf *rb)
{
	if (rb->rb_size < RPCRDMA_RESULT_BUF_SIZE_0_1 ||
	    rpcrdma_abi_tail_set(rb, sizeof(*rb), rb->rb_size, 0))
		return -EINVAL;
	return 0;
}
