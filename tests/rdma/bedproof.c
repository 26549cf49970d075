/*
 * Test-bed proof: a librdmacm server and client that connect across the two
 * test hosts, exchange Sends both ways (one posted IBV_SEND_INLINE), perform
 * an RDMA Write, and check every byte.  Exits 0 only if all of it worked.
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

enum {
	BP_C2S_SEND = 1000,	/* client -> server Send, by reference */
	BP_S2C_SEND = 3001,	/* server -> client Send, by reference */
	BP_WRITE_LEN = 4096,	/* client RDMA Writes this much into the server */
	BP_BUF = 8192,
	BP_INLINE_ASK = 64,	/* below siw's 80-byte ceiling */
};

/* Where the client may RDMA Write: sent by the server inline. */
struct bp_target {
	uint64_t bt_addr;
	uint32_t bt_rkey;
	uint32_t bt_len;
};

static int bp_verbose;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bedproof: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	if (!bp_verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A pattern where every byte depends on its offset and on the message. */
static uint8_t bp_byte(unsigned seed, size_t i)
{
	return (uint8_t)(i * 131u + seed * 7u + (i >> 8) + 1u);
}

static void bp_fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = bp_byte(seed, i);
	/* The test of the test: a deliberately wrong byte must fail the run. */
	if (len && getenv("BEDPROOF_CORRUPT"))
		p[len / 2] ^= 0x5a;
}

static void bp_check(const char *what, const uint8_t *p, size_t len,
		     size_t got, unsigned seed)
{
	if (got != len)
		die("%s: received %zu bytes, expected %zu", what, got, len);
	for (size_t i = 0; i < len; i++)
		if (p[i] != bp_byte(seed, i))
			die("%s: byte %zu is 0x%02x, expected 0x%02x", what,
			    i, p[i], bp_byte(seed, i));
	note("%s: %zu bytes verified", what, len);
}

/* librdmacm writes the CQs it creates into the attr: start fresh each time. */
static void bp_init_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 8;
	attr->cap.max_recv_wr = 8;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = BP_INLINE_ASK;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static uint32_t bp_granted_inline(struct rdma_cm_id *id)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;

	if (ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &qia))
		die("ibv_query_qp: %s", strerror(errno));
	return qa.cap.max_inline_data;
}

/* 0 when the next Send completion is a success, -1 otherwise. */
static int bp_try_wait_send(struct rdma_cm_id *id)
{
	struct ibv_wc wc;

	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* 0 with the length when the next receive succeeds, -1 otherwise. */
static int bp_try_wait_recv(struct rdma_cm_id *id, uint32_t *len)
{
	struct ibv_wc wc;

	if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
		return -1;
	*len = wc.byte_len;
	return 0;
}

static void bp_wait_send(struct rdma_cm_id *id, const char *what)
{
	struct ibv_wc wc;

	if (rdma_get_send_comp(id, &wc) <= 0)
		die("%s: rdma_get_send_comp: %s", what, strerror(errno));
	if (wc.status != IBV_WC_SUCCESS)
		die("%s: completion status %s", what,
		    ibv_wc_status_str(wc.status));
}

static uint32_t bp_wait_recv(struct rdma_cm_id *id, const char *what)
{
	struct ibv_wc wc;

	if (rdma_get_recv_comp(id, &wc) <= 0)
		die("%s: rdma_get_recv_comp: %s", what, strerror(errno));
	if (wc.status != IBV_WC_SUCCESS)
		die("%s: completion status %s", what,
		    ibv_wc_status_str(wc.status));
	return wc.byte_len;
}

static struct rdma_addrinfo *bp_resolve(const char *node, const char *port,
					const char *src, int passive)
{
	struct rdma_addrinfo hints, *res;
	struct sockaddr_in sin;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
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

static void run_server(const char *addr, const char *port, const char *ready)
{
	struct rdma_addrinfo *res = bp_resolve(addr, port, NULL, 1);
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id, *id;
	struct bp_target tgt;
	struct ibv_mr *rmr, *smr, *wmr;
	uint8_t *rbuf, *sbuf, *wbuf;
	uint32_t len;
	FILE *f;

	if (rdma_create_ep(&listen_id, res, NULL, NULL))
		die("rdma_create_ep (listen): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 1))
		die("rdma_listen: %s", strerror(errno));
	/* The driver starts the client only once this file exists. */
	f = fopen(ready, "w");
	if (!f || fclose(f))
		die("cannot create %s", ready);
	note("server: listening on %s:%s", addr, port);

	rbuf = calloc(1, BP_BUF);
	sbuf = calloc(1, BP_BUF);
	wbuf = calloc(1, BP_BUF);
	if (!rbuf || !sbuf || !wbuf)
		die("out of memory");
	/*
	 * Under emulation a connection attempt sometimes fails half-way (the
	 * client sees EINVAL and retries); serve the next attempt instead of
	 * failing the test on the test bed's hiccup.
	 */
	for (;;) {
		if (rdma_get_request(listen_id, &id))
			die("rdma_get_request: %s", strerror(errno));
		bp_init_qp_attr(&attr);
		if (rdma_create_qp(id, NULL, &attr))
			die("rdma_create_qp: %s", strerror(errno));
		note("server: inline granted %u", bp_granted_inline(id));
		rmr = rdma_reg_msgs(id, rbuf, BP_BUF);
		smr = rdma_reg_msgs(id, sbuf, BP_BUF);
		wmr = rdma_reg_write(id, wbuf, BP_BUF);
		if (!rmr || !smr || !wmr)
			die("memory registration: %s", strerror(errno));
		if (rdma_post_recv(id, NULL, rbuf, BP_BUF, rmr))
			die("rdma_post_recv: %s", strerror(errno));
		memset(&param, 0, sizeof(param));
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.rnr_retry_count = 7;
		if (!rdma_accept(id, &param)) {
			/* Tell the client where to write, in an inline Send. */
			tgt.bt_addr = (uintptr_t)wbuf;
			tgt.bt_rkey = wmr->rkey;
			tgt.bt_len = BP_WRITE_LEN;
			if (rdma_post_send(id, NULL, &tgt, sizeof(tgt), NULL,
					   IBV_SEND_INLINE))
				die("inline rdma_post_send: %s", strerror(errno));
			/* The client Writes, then Sends: RC order makes the
			 * Write visible first.  A flushed receive here means
			 * this attempt died on the client's side. */
			if (!bp_try_wait_send(id) && !bp_try_wait_recv(id, &len))
				break;
		}
		note("server: a connection attempt failed; waiting for the next");
		rdma_dereg_mr(rmr);
		rdma_dereg_mr(smr);
		rdma_dereg_mr(wmr);
		rdma_destroy_ep(id);
	}

	bp_check("client->server send", rbuf, BP_C2S_SEND, len, 1);
	bp_check("client->server rdma write", wbuf, BP_WRITE_LEN, BP_WRITE_LEN, 2);

	bp_fill(sbuf, BP_S2C_SEND, 3);
	if (rdma_post_send(id, NULL, sbuf, BP_S2C_SEND, smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	bp_wait_send(id, "server send");

	rdma_disconnect(id);
	rdma_dereg_mr(rmr);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(wmr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	free(rbuf);
	free(sbuf);
	free(wbuf);
	printf("server: ok\n");
}

/* A listener that is not up yet refuses us: retry until the deadline. */
static struct rdma_cm_id *bp_connect(const char *addr, const char *port,
				     const char *src, int timeout,
				     uint8_t *rbuf, struct ibv_mr **rmrp)
{
	time_t deadline = time(NULL) + timeout;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;

	for (;;) {
		res = bp_resolve(addr, port, src, 0);
		bp_init_qp_attr(&attr);
		if (rdma_create_ep(&id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		/* The server Sends first: a receive must be posted already. */
		*rmrp = rdma_reg_msgs(id, rbuf, BP_BUF);
		if (!*rmrp)
			die("memory registration: %s", strerror(errno));
		if (rdma_post_recv(id, NULL, rbuf, BP_BUF, *rmrp))
			die("rdma_post_recv: %s", strerror(errno));
		memset(&param, 0, sizeof(param));
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!rdma_connect(id, &param))
			return id;
		note("client: connect: %s, retrying", strerror(errno));
		rdma_dereg_mr(*rmrp);
		rdma_destroy_ep(id);
		if (time(NULL) >= deadline)
			die("could not connect to %s:%s before the deadline",
			    addr, port);
		usleep(100 * 1000);
	}
}

static void run_client(const char *addr, const char *port, const char *src,
		       int timeout)
{
	struct rdma_cm_id *id;
	struct ibv_mr *rmr, *smr, *wmr;
	struct bp_target tgt;
	uint8_t *rbuf, *sbuf, *wsrc;
	uint32_t len;

	rbuf = calloc(1, BP_BUF);
	sbuf = calloc(1, BP_BUF);
	wsrc = calloc(1, BP_BUF);
	if (!rbuf || !sbuf || !wsrc)
		die("out of memory");
	id = bp_connect(addr, port, src, timeout, rbuf, &rmr);
	note("client: connected, inline granted %u", bp_granted_inline(id));
	smr = rdma_reg_msgs(id, sbuf, BP_BUF);
	wmr = rdma_reg_msgs(id, wsrc, BP_BUF);
	if (!rmr || !smr || !wmr)
		die("memory registration: %s", strerror(errno));

	len = bp_wait_recv(id, "client recv target");
	if (len != sizeof(tgt))
		die("target message: %u bytes, expected %zu", len, sizeof(tgt));
	memcpy(&tgt, rbuf, sizeof(tgt));
	if (tgt.bt_len != BP_WRITE_LEN)
		die("target length %u", tgt.bt_len);

	if (rdma_post_recv(id, NULL, rbuf, BP_BUF, rmr))
		die("rdma_post_recv: %s", strerror(errno));
	bp_fill(wsrc, BP_WRITE_LEN, 2);
	if (rdma_post_write(id, NULL, wsrc, BP_WRITE_LEN, wmr, 0,
			    tgt.bt_addr, tgt.bt_rkey))
		die("rdma_post_write: %s", strerror(errno));
	bp_wait_send(id, "client rdma write");
	bp_fill(sbuf, BP_C2S_SEND, 1);
	if (rdma_post_send(id, NULL, sbuf, BP_C2S_SEND, smr, 0))
		die("rdma_post_send: %s", strerror(errno));
	bp_wait_send(id, "client send");

	len = bp_wait_recv(id, "client recv");
	bp_check("server->client send", rbuf, BP_S2C_SEND, len, 3);

	rdma_disconnect(id);
	rdma_dereg_mr(rmr);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(wmr);
	rdma_destroy_ep(id);
	free(rbuf);
	free(sbuf);
	free(wsrc);
	printf("client: ok\n");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bedproof server -a ADDR -p PORT -r READYFILE [-t SECS] [-v]\n"
		"       bedproof client -a SERVER -b SOURCE -p PORT [-t SECS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *port = NULL, *ready = NULL;
	int timeout = 60, c;

	if (argc < 2)
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "a:b:p:r:t:v")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 't': timeout = atoi(optarg); break;
		case 'v': bp_verbose = 1; break;
		default: usage();
		}
	}
	if (!addr || !port || timeout <= 0)
		usage();
	/* Nothing may hang: a blocked verbs call ends with SIGALRM. */
	alarm((unsigned)timeout + 5);
	if (!strcmp(argv[1], "server") && ready)
		run_server(addr, port, ready);
	else if (!strcmp(argv[1], "client"))
		run_client(addr, port, src, timeout);
	else
		usage();
	return 0;
}
