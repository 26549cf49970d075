/*
 * The chunk pool's allocator (pool.h): a bitmap of fixed units, first
 * fit.  A Call takes one contiguous run for its bytes and gives it back
 * when answered, so runs are short-lived and fragmentation stays low.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "pool.h"

static int bit(const struct rpcrdma_pool *p, uint32_t i)
{
	return (int)((p->bm_map[i / 64] >> (i % 64)) & 1);
}

static void set_run(struct rpcrdma_pool *p, uint32_t i, uint32_t n, int on)
{
	for (; n; i++, n--) {
		if (on)
			p->bm_map[i / 64] |= 1ull << (i % 64);
		else
			p->bm_map[i / 64] &= ~(1ull << (i % 64));
	}
}

int rpcrdma_pool_init(struct rpcrdma_pool *p, size_t len, uint32_t unit)
{
	size_t n = unit ? len / unit : 0;

	p->bm_map = NULL;
	p->bm_nunits = p->bm_used = p->bm_hint = 0;
	p->bm_unit = unit;
	if (!unit || n > UINT32_MAX)
		return -EINVAL;
	if (n) {
		p->bm_map = calloc((n + 63) / 64, sizeof(*p->bm_map));
		if (!p->bm_map)
			return -ENOMEM;
	}
	p->bm_nunits = (uint32_t)n;
	return 0;
}

void rpcrdma_pool_fini(struct rpcrdma_pool *p)
{
	free(p->bm_map);
	p->bm_map = NULL;
	p->bm_nunits = p->bm_used = 0;
}

/* Units needed for len bytes; 0 for 0. */
static uint32_t rpcrdma_pool_units(const struct rpcrdma_pool *p, size_t len)
{
	size_t n = (len + p->bm_unit - 1) / p->bm_unit;

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int rpcrdma_pool_take(struct rpcrdma_pool *p, size_t len, size_t *offp)
{
	uint32_t want = rpcrdma_pool_units(p, len), i, run = 0;

	if (!want || want > p->bm_nunits - p->bm_used)
		return -ENOSPC;
	for (i = p->bm_hint; i < p->bm_nunits; i++) {
		if (bit(p, i)) {
			run = 0;
			continue;
		}
		if (++run < want)
			continue;
		i -= want - 1;
		set_run(p, i, want, 1);
		p->bm_used += want;
		if (i == p->bm_hint)
			p->bm_hint = i + want;
		*offp = (size_t)i * p->bm_unit;
		return 0;
	}
	return -ENOSPC;
}

void rpcrdma_pool_give(struct rpcrdma_pool *p, size_t off, size_t len)
{
	uint32_t i = (uint32_t)(off / p->bm_unit), n = rpcrdma_pool_units(p, len);

	set_run(p, i, n, 0);
	p->bm_used -= n;
	if (i < p->bm_hint)
		p->bm_hint = i;
}

void rpcrdma_pool_trim(struct rpcrdma_pool *p, size_t off, size_t len,
		       size_t keep)
{
	uint32_t have = rpcrdma_pool_units(p, len), k = rpcrdma_pool_units(p, keep);

	if (k < have)
		rpcrdma_pool_give(p, off + (size_t)k * p->bm_unit,
				  (size_t)(have - k) * p->bm_unit);
}
