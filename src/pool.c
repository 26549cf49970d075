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
	return (int)((p->pl_map[i / 64] >> (i % 64)) & 1);
}

static void set_run(struct rpcrdma_pool *p, uint32_t i, uint32_t n, int on)
{
	for (; n; i++, n--) {
		if (on)
			p->pl_map[i / 64] |= 1ull << (i % 64);
		else
			p->pl_map[i / 64] &= ~(1ull << (i % 64));
	}
}

int rpcrdma_pool_init(struct rpcrdma_pool *p, size_t len, uint32_t unit)
{
	size_t n = unit ? len / unit : 0;

	p->pl_map = NULL;
	p->pl_nunits = p->pl_used = p->pl_hint = 0;
	p->pl_unit = unit;
	if (!unit || n > UINT32_MAX)
		return -EINVAL;
	if (n) {
		p->pl_map = calloc((n + 63) / 64, sizeof(*p->pl_map));
		if (!p->pl_map)
			return -ENOMEM;
	}
	p->pl_nunits = (uint32_t)n;
	return 0;
}

void rpcrdma_pool_fini(struct rpcrdma_pool *p)
{
	free(p->pl_map);
	p->pl_map = NULL;
	p->pl_nunits = p->pl_used = 0;
}

/* Units needed for len bytes; 0 for 0. */
static uint32_t rpcrdma_pool_units(const struct rpcrdma_pool *p, size_t len)
{
	size_t n = (len + p->pl_unit - 1) / p->pl_unit;

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int rpcrdma_pool_take(struct rpcrdma_pool *p, size_t len, size_t *offp)
{
	uint32_t want = rpcrdma_pool_units(p, len), i, run = 0;

	if (!want || want > p->pl_nunits - p->pl_used)
		return -ENOSPC;
	for (i = p->pl_hint; i < p->pl_nunits; i++) {
		if (bit(p, i)) {
			run = 0;
			continue;
		}
		if (++run < want)
			continue;
		i -= want - 1;
		set_run(p, i, want, 1);
		p->pl_used += want;
		if (i == p->pl_hint)
			p->pl_hint = i + want;
		*offp = (size_t)i * p->pl_unit;
		return 0;
	}
	return -ENOSPC;
}

void rpcrdma_pool_give(struct rpcrdma_pool *p, size_t off, size_t len)
{
	uint32_t i = (uint32_t)(off / p->pl_unit), n = rpcrdma_pool_units(p, len);

	set_run(p, i, n, 0);
	p->pl_used -= n;
	if (i < p->pl_hint)
		p->pl_hint = i;
}

void rpcrdma_pool_trim(struct rpcrdma_pool *p, size_t off, size_t len,
		       size_t keep)
{
	uint32_t have = rpcrdma_pool_units(p, len), k = rpcrdma_pool_units(p, keep);

	if (k < have)
		rpcrdma_pool_give(p, off + (size_t)k * p->pl_unit,
				  (size_t)(have - k) * p->pl_unit);
}
