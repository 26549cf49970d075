/*
 * The USDT probe test's client (probe-cases.sh): echoes that take every
 * path a short run can (inline, pulled up, mapped, Read and Reply chunks,
 * a Write chunk, a Call over the server's max_chunk_bytes answered
 * ERR_CHUNK), then prints its counters for the bpftrace counts to match.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"
#include "test_util.h"

#define MAXSZ 70000u

static CLIENT *connect_to(const char *addr, const char *port,
			  struct rpcrdma_options *o)
{
	CLIENT *cl;
	int i;

	for (i = 0; !(cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, o)); i++) {
		if (i == 20)
			die("clnt_rdma_create: %s", clnt_spcreateerror(addr));
		usleep(200 * 1000);
	}
	return cl;
}

/* One echo of n bytes, byte-exact; zc: the result as a Write chunk. */
static enum clnt_stat echo(CLIENT *cl, char *in, char *out, unsigned n, int zc)
{
	struct rpcrdma_result_buf rb = { .rb_size = sizeof(rb), .rb_addr = out,
					  .rb_len = MAXSZ };
	echo_bytes arg = { n, in }, res = { 0, NULL };
	enum clnt_stat st;
	unsigned i;

	for (i = 0; i < n; i++)
		in[i] = (char)(i * 7 + n);
	if (zc) {
		res.echo_bytes_val = out;
		if (clnt_rdma_set_result_buf(cl, &rb))
			die("clnt_rdma_set_result_buf");
	}
	st = echo_bytes_1(&arg, &res, cl);
	if (st == RPC_SUCCESS &&
	    (res.echo_bytes_len != n || memcmp(res.echo_bytes_val, in, n)))
		die("echo of %u bytes came back different", n);
	if (!zc)
		xdr_free((xdrproc_t)xdr_echo_bytes, (char *)&res);
	return st;
}

/* The counters the probes are checked against, one "name value" a line. */
static void dump(const char *who, CLIENT *cl)
{
	struct rpcrdma_stats s = stats(cl);
#define D(f) printf("%s %s %llu\n", who, #f, (unsigned long long)s.rs_##f)
	D(calls); D(replies); D(bad_replies); D(err_chunk); D(timeouts);
	D(inline_sends); D(pullup_sends); D(mapped_sends); D(signaled_sends);
	D(read_chunk_calls); D(long_calls); D(reply_chunks); D(write_chunks);
	D(chunk_regs); D(chunk_deregs); D(credits_granted); D(reconnects);
	D(reconnect_failures); D(retransmits); D(reply_chunk_retries);
#undef D
}

int main(int argc, char **argv)
{
	static const unsigned sizes[] = { 0, 100, 1500, 3500, 20000, 60000 };
	const char *addr = NULL, *port = NULL;
	struct rpcrdma_options o;
	struct echo_status es;
	char *in = malloc(MAXSZ), *out = malloc(MAXSZ);
	unsigned i;
	CLIENT *cl;
	int c;

	tu_name = "probe_client";
	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		default: die("usage: probe_client -a ADDR -p PORT [-b SRC]");
		}
	}
	if (!addr || !port || !in || !out)
		die("usage: probe_client -a ADDR -p PORT [-b SRC]");
	alarm(110);
	printf("probe_client: pid %d\n", (int)getpid());
	cl = connect_to(addr, port, &o);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (echo(cl, in, out, sizes[i], 0) != RPC_SUCCESS)
			die("echo of %u: %s", sizes[i], clnt_sperror(cl, "ECHO_BYTES"));
	if (echo(cl, in, out, 20000, 1) != RPC_SUCCESS)
		die("zero-copy echo: %s", clnt_sperror(cl, "ECHO_BYTES"));
	/* Over the server's max_chunk_bytes (64K): RDMA_ERROR / ERR_CHUNK. */
	if (echo(cl, in, out, MAXSZ, 0) == RPC_SUCCESS)
		die("a %u-byte Call passed a 64K max_chunk_bytes", MAXSZ);
	if (echo(cl, in, out, 100, 0) != RPC_SUCCESS)
		die("echo after ERR_CHUNK: %s", clnt_sperror(cl, "ECHO_BYTES"));
	dump("A", cl);
	clnt_destroy(cl);

	/* A second connection waits until the server tore the first down,
	 * then stops it. */
	cl = connect_to(addr, port, &o);
	for (i = 0; i < 200; i++) {
		memset(&es, 0, sizeof(es));
		if (echo_status_1(NULL, &es, cl) != RPC_SUCCESS)
			die("ECHO_STATUS: %s", clnt_sperror(cl, "ECHO_STATUS"));
		if (es.es_freed >= 1)
			break;
		usleep(100 * 1000);
	}
	if (es.es_freed < 1)
		die("the server never tore the first connection down");
	if (echo_shutdown_1(NULL, NULL, cl) != RPC_SUCCESS)
		die("ECHO_SHUTDOWN: %s", clnt_sperror(cl, "ECHO_SHUTDOWN"));
	dump("B", cl);
	clnt_destroy(cl);
	free(in);
	free(out);
	printf("probe_client: ok\n");
	return 0;
}
