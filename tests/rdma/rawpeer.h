/*
 * Helpers shared by the raw-verbs test peers (badpeer, badserver,
 * norecv_peer): a message built of big-endian words, a hex dump for
 * diagnostics, a fatal exit, address resolution, and a CQ poll bounded by
 * a deadline.  Header-only, test code.
 */
#ifndef RAWPEER_H
#define RAWPEER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/random.h>
#include <unistd.h>

#define RAWPEER_BUF 4096	/* one message, as offered in the private data */

/*
 * A peer's first xid, at random.  Why: a server's duplicate request cache
 * (drc_size) takes a Call with the xid, procedure and arguments of one it
 * answered, on a new connection from the same address, for a
 * retransmission, and answers it from the cache: peers that all started
 * at one fixed xid got the Reply of an earlier run (a stale STATUS).
 */
static inline uint32_t rawpeer_xid_seed(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	return (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL);
}

/* Set by each program: prefixes its fatal messages. */
static const char *rawpeer_name;

struct msg {
	uint8_t m_buf[RAWPEER_BUF];
	size_t m_len;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s%sFATAL: ", rawpeer_name ? rawpeer_name : "",
	       rawpeer_name ? ": " : "");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static inline void put32(struct msg *m, uint32_t v)
{
	uint32_t be = htonl(v);

	if (m->m_len + 4 > sizeof(m->m_buf))
		die("message overflow");
	memcpy(m->m_buf + m->m_len, &be, 4);
	m->m_len += 4;
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t be;

	memcpy(&be, p, 4);
	return ntohl(be);
}

static inline void hexdump(const char *label, const struct msg *m)
{
	size_t i;

	printf("#   %s (%zu bytes):", label, m->m_len);
	for (i = 0; i < m->m_len && i < 48; i++)
		printf("%s%02x", i % 4 ? "" : " ", m->m_buf[i]);
	printf("%s\n", m->m_len > 48 ? " ..." : "");
}

static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1: a completion in *wc; 0: none before the deadline. */
static inline int poll_cq(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int64_t deadline = now_ms() + ms;
	struct timespec nap = { 0, 1000000 };

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (n == 1)
			return 1;
		if (now_ms() >= deadline)
			return 0;
		nanosleep(&nap, NULL);
	}
}

/* rdma_getaddrinfo for a TCP-port-space connect from src (NULL: any). */
static inline struct rdma_addrinfo *rawpeer_resolve(const char *node,
						    const char *port,
						    const char *src)
{
	struct rdma_addrinfo hints, *res;
	struct sockaddr_in sin;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (src) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		if (inet_pton(AF_INET, src, &sin.sin_addr) != 1)
			die("bad source address %s", src);
		hints.ai_src_addr = (struct sockaddr *)&sin;
		hints.ai_src_len = sizeof(sin);
	}
	if (rdma_getaddrinfo(node, port, &hints, &res))
		die("rdma_getaddrinfo %s:%s: %s", node, port, strerror(errno));
	return res;
}

/*
 * siw's provider fails any queue whose mmap key lands on page 144 of the
 * process's device context (src/verbs.c, rpcrdma_siw_key_guard, says
 * why), with a stale errno: a peer holding many connections takes the
 * same guard the library does, a large CQ made first on every device and
 * kept.  Call before the first connection.
 */
static inline void rawpeer_siw_guard(void)
{
	/* Kept for the life of the process (reachable: no leak reported). */
	static struct ibv_cq *guards[8];
	struct ibv_context **ctx;
	int i, n = 0;

	ctx = rdma_get_devices(&n);
	for (i = 0; ctx && i < n && i < 8; i++)
		if (!strncmp(ibv_get_device_name(ctx[i]->device), "siw", 3))
			guards[i] = ibv_create_cq(ctx[i], 32768, NULL, NULL, 0);
	if (ctx)
		rdma_free_devices(ctx);
	(void)guards;
}

#endif /* RAWPEER_H */
