/*
 * Universal addresses (RFC 5665) and rpcbind's answers, pure: the port of
 * an "rdma"/"rdma6" uaddr, and which registration in an RPCBPROC_DUMP
 * list a client connects to.  Anything malformed is refused, not guessed.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "netid.h"

/* A decimal 0..255 without sign, spaces or leading zeros past one digit. */
static int octet(const char *s, size_t n)
{
	unsigned int v = 0;
	size_t i;

	if (n == 0 || n > 3 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	return v > 255 ? -1 : (int)v;
}

/* The last '.' in s[0, n), or NULL. */
static const char *last_dot(const char *s, size_t n)
{
	while (n--)
		if (s[n] == '.')
			return s + n;
	return NULL;
}

int rpcrdma_uaddr_port(const char *uaddr, int family)
{
	char host[INET6_ADDRSTRLEN + 1];
	unsigned char bin[16];
	const char *lo, *hi;
	size_t len;
	int p1, p2;

	if (!uaddr || (family != RPCRDMA_NETID_INET &&
		       family != RPCRDMA_NETID_INET6))
		return -EINVAL;
	len = strnlen(uaddr, RPCRDMA_UADDR_MAX + 1);
	if (len > RPCRDMA_UADDR_MAX)
		return -EINVAL;
	lo = last_dot(uaddr, len);
	if (!lo || lo == uaddr)
		return -EINVAL;
	hi = last_dot(uaddr, (size_t)(lo - uaddr));
	if (!hi || hi == uaddr)
		return -EINVAL;
	p1 = octet(hi + 1, (size_t)(lo - hi - 1));
	p2 = octet(lo + 1, len - (size_t)(lo - uaddr) - 1);
	if (p1 < 0 || p2 < 0 || (p1 == 0 && p2 == 0))
		return -EINVAL;
	if ((size_t)(hi - uaddr) >= sizeof(host))
		return -EINVAL;
	memcpy(host, uaddr, (size_t)(hi - uaddr));
	host[hi - uaddr] = '\0';
	if (inet_pton(family == RPCRDMA_NETID_INET6 ? AF_INET6 : AF_INET, host,
		      bin) != 1)
		return -EINVAL;
	return p1 * 256 + p2;
}

int rpcrdma_rpcb_pick(const rpcblist *list, rpcprog_t prog, rpcvers_t vers,
		      const char *netid)
{
	int fam = rpcrdma_netid_family(netid);
	int rc = -ENOENT, port;
	unsigned int n = 0;

	if (fam < 0)
		return fam;
	/* A hostile or broken rpcbind may send a very long list. */
	for (; list && n < RPCRDMA_RPCB_MAX_ENTRIES; list = list->rpcb_next, n++) {
		const RPCB *m = &list->rpcb_map;

		if (m->r_prog != prog || m->r_vers != vers || !m->r_netid ||
		    strcmp(m->r_netid, netid))
			continue;
		port = rpcrdma_uaddr_port(m->r_addr, fam);
		if (port > 0)
			return port;
		rc = -EINVAL;	/* registered, but its address is garbage */
	}
	return rc;
}
