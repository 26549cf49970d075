/*
 * rpcrdma_bench's raw-verbs baseline, the helpers both ends use: the
 * payload pattern and its checks, registered buffers, receives, and the
 * completion-channel events a connection's CQ has pending.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "raw_int.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((format(printf, 3, 4)))
void raw_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Every byte depends on its offset, pages included, and on the seed. */
uint8_t raw_pat(unsigned seed, size_t i)
{
	return (uint8_t)(i * 131u + (i >> 8) * 7u + (i >> 16) * 3u +
			 seed * 29u + 1u);
}

void raw_fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = raw_pat(seed, i);
}

/*
 * Make a buffer certainly differ from what the next operation must place
 * there (one byte per 4 KiB and the last), so an operation that reports
 * success without placing its data fails verification instead of passing
 * on the previous one's bytes.  n / 4096 stores: cheap enough per call.
 */
void raw_scrub(uint8_t *p, size_t n, const uint8_t *expect)
{
	for (size_t k = 0; k < n; k += 4096)
		p[k] = (uint8_t)~(expect ? expect[k] : p[k]);
	if (n && (n - 1) % 4096)
		p[n - 1] = (uint8_t)~(expect ? expect[n - 1] : p[n - 1]);
}

/* Offset of the first differing byte, or n. */
size_t raw_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;

	if (!memcmp(a, b, n))
		return n;
	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

int raw_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

unsigned raw_min(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* Page-aligned, zeroed, registered; never zero-length (ibv_reg_mr). */
int raw_alloc(struct ibv_pd *pd, size_t len, int access,
	      uint8_t **mem, struct ibv_mr **mr)
{
	if (len < 64)
		len = 64;
	if (posix_memalign((void **)mem, 4096, len))
		return -ENOMEM;
	memset(*mem, 0, len);
	*mr = ibv_reg_mr(pd, *mem, len, access);
	if (!*mr) {
		free(*mem);
		*mem = NULL;
		return errno ? -errno : -ENOMEM;
	}
	return 0;
}

void raw_release(uint8_t **mem, struct ibv_mr **mr)
{
	if (*mr)
		ibv_dereg_mr(*mr);
	free(*mem);
	*mr = NULL;
	*mem = NULL;
}

/* Consume the channel's events (acked in one call, acking locks): the
 * CQ is disarmed then.  Returns how many there were. */
unsigned raw_cq_events(struct ibv_comp_channel *cc, struct ibv_cq *mine,
		       int *armed)
{
	struct ibv_cq *cq;
	void *ctx;
	unsigned n = 0;

	while (!ibv_get_cq_event(cc, &cq, &ctx))
		n++;
	if (n) {
		ibv_ack_cq_events(mine, n);
		*armed = 0;
	}
	return n;
}

int raw_post_recv(struct ibv_qp *qp, uint8_t *buf, size_t len,
		  uint32_t lkey, uint32_t i)
{
	struct ibv_sge sge = { (uintptr_t)buf, (uint32_t)len, lkey };
	struct ibv_recv_wr wr = {
		.wr_id = RAW_WRID(RAW_WR_RECV, i), .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return -ibv_post_recv(qp, &wr, &bad);
}
