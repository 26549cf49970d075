/*
 * A peer that takes no Replies: raw librdmacm/verbs, no librpcrdma.  It
 * connects to echo_server like a real client (RFC 8797 private data),
 * sends a burst of valid ECHO_NULL Calls and never posts a single receive,
 * so the server's Replies cannot be delivered: on InfiniBand/RoCE (rxe)
 * they sit in RNR retry forever and their Sends never complete; on iWARP
 * (siw), which has no RNR, the first one terminates the connection.  Then
 * it stays connected, idle, until told to stop, reporting whether and when
 * the server tore the connection down.
 *
 * -c sets the credits its Calls ask for; -S makes Call 0 an ECHO_SLEEP, so
 * a single-threaded server receives the rest while it sleeps: with -c 1 the
 * burst is past the grant of the first Reply whatever the timing (on
 * shared receive queues the server must close it for that).
 *
 * -R BYTES: its last Call (after -S's sleep, else its only one) is an
 * ECHO_BYTES whose BYTES of data the server must RDMA Read from our
 * memory; once the Calls are sent the peer moves its QP to the error
 * state without a word to the connection manager (no disconnect), so the
 * server's Reads get no answer at all (on rxe and siw alike the
 * connection is then gone within milliseconds).
 *
 * It only has to do its part: exit 0 when it connected and its Calls went
 * out.  Whether the server kept serving everybody else is checked by the
 * test case (cases.sh, "stall") through other clients.
 *
 * Good headers come from the library's codec (src/rpc_rdma.c, compiled in).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "rpc_rdma.h"
#include "rawpeer.h"

enum {
	NR_MAX_CALLS = 256,	/* largest burst -n accepts */
	NR_SLOT = 128,		/* send buffer per Call: header + RPC Call */
	NR_CREDITS = 32,	/* what our Calls ask for, by default */
	NR_WAIT_MS = 10000,	/* bounded wait for the Calls' completions */
};

#define ECHO_PROG	0x20049001u
#define ECHO_VERS	1u
#define ECHO_NULL	0u
#define ECHO_SLEEP	5u

static uint32_t nr_credits = NR_CREDITS;	/* -c */
static uint32_t nr_sleep_ms;			/* -S: Call 0 is ECHO_SLEEP */
static uint32_t nr_read_bytes;			/* -R: a Read chunk of so many */
static uint8_t *nr_chunk;
static struct ibv_mr *nr_cmr;

static struct rdma_cm_id *nr_id;
static uint8_t *nr_sbuf;
static struct ibv_mr *nr_smr;

/* One RDMA_MSG Call of ECHO_NULL (or ECHO_SLEEP of sleep_ms, or with
 * read, -R's ECHO_BYTES), AUTH_NONE (RFC 5531). */
static void build_call(struct msg *m, uint32_t xid, uint32_t sleep_ms,
		       int read)
{
	struct rpcrdma_hdr h;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.hd_xid = xid;
	h.hd_credits = nr_credits;
	h.hd_proc = RPCRDMA_MSG;
	if (read) {
		/* ECHO_BYTES: the opaque's data at XDR offset 44, read. */
		h.hd_nreads = 1;
		h.hd_reads[0].rd_position = 44;
		h.hd_reads[0].rd_seg.se_handle = nr_cmr->rkey;
		h.hd_reads[0].rd_seg.se_length = nr_read_bytes;
		h.hd_reads[0].rd_seg.se_offset = (uintptr_t)nr_chunk;
	}
	n = rpcrdma_hdr_encode(m->m_buf, sizeof(m->m_buf), &h);
	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	m->m_len = (size_t)n;
	put32(m, xid);
	put32(m, 0u);		/* CALL */
	put32(m, 2u);		/* RPC version */
	put32(m, ECHO_PROG);
	put32(m, ECHO_VERS);
	put32(m, read ? 1u /* ECHO_BYTES */ : sleep_ms ? ECHO_SLEEP : ECHO_NULL);
	put32(m, 0u);		/* cred AUTH_NONE */
	put32(m, 0u);
	put32(m, 0u);		/* verf AUTH_NONE */
	put32(m, 0u);
	if (read)
		put32(m, nr_read_bytes);	/* the opaque's length */
	else if (sleep_ms)
		put32(m, sleep_ms);
	if (m->m_len > NR_SLOT)
		die("a Call of %zu bytes does not fit its slot", m->m_len);
}

/*
 * Connect with our RFC 8797 offer (4 KiB each way); retry while the
 * listener is not up.  The receive queue exists (a QP needs one) but
 * nothing is ever posted to it.
 */
static void connect_server(const char *addr, const char *port,
			   const char *src, int ncalls, int timeout)
{
	int64_t deadline = now_ms() + (int64_t)timeout * 1000;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	uint32_t magic = htonl(RPCRDMA_CM_MAGIC);

	memcpy(pdata, &magic, 4);
	pdata[4] = RPCRDMA_CM_VERSION;
	pdata[5] = 0;
	pdata[6] = RAWPEER_BUF / 1024 - 1;
	pdata[7] = RAWPEER_BUF / 1024 - 1;
	for (;;) {
		res = rawpeer_resolve(addr, port, src);
		memset(&attr, 0, sizeof(attr));
		attr.cap.max_send_wr = (uint32_t)ncalls;
		attr.cap.max_recv_wr = 1;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		attr.sq_sig_all = 1;
		if (rdma_create_ep(&nr_id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		nr_smr = rdma_reg_msgs(nr_id, nr_sbuf, (size_t)ncalls * NR_SLOT);
		if (!nr_smr)
			die("memory registration: %s", strerror(errno));
		if (nr_read_bytes &&
		    !(nr_cmr = ibv_reg_mr(nr_id->pd, nr_chunk, nr_read_bytes,
					  IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_READ)))
			die("chunk registration: %s", strerror(errno));
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!rdma_connect(nr_id, &param))
			return;
		printf("# connect: %s, retrying\n", strerror(errno));
		if (nr_cmr)
			ibv_dereg_mr(nr_cmr);
		nr_cmr = NULL;
		rdma_dereg_mr(nr_smr);
		rdma_destroy_ep(nr_id);
		if (now_ms() >= deadline)
			die("could not connect to %s:%s in %d s", addr, port,
			    timeout);
		usleep(100 * 1000);
	}
}

/*
 * Post every Call at once, then collect their completions.  A Call the
 * server's receive queue could not take at once (we send more than its
 * credits) is retried by our QP until the server re-posts; on iWARP it
 * may instead fail, and the rest flush, when the connection terminates.
 */
static int send_calls(int ncalls, int *ok, int *failed)
{
	struct ibv_wc wc;
	struct msg m;
	int i;

	for (i = 0; i < ncalls; i++) {
		uint8_t *slot = nr_sbuf + (size_t)i * NR_SLOT;

		build_call(&m, 0x6e720000u + (uint32_t)i,	/* "nr" */
			   i ? 0 : nr_sleep_ms,
			   nr_read_bytes && i == ncalls - 1);
		memcpy(slot, m.m_buf, m.m_len);
		if (!rdma_post_send(nr_id, NULL, slot, m.m_len, nr_smr, 0))
			continue;
		/* On iWARP the server's first Reply may already have ended
		 * the connection (a Send to a QP with no receive is fatal
		 * there): the Calls posted so far are what went out. */
		if (!i)
			die("rdma_post_send of Call 0: %s", strerror(errno));
		printf("# the QP refused Call %d (%s): the connection is going "
		       "down\n", i, strerror(errno));
		break;
	}
	ncalls = i;
	*ok = *failed = 0;
	while (*ok + *failed < ncalls) {
		if (!poll_cq(nr_id->send_cq, &wc, NR_WAIT_MS)) {
			printf("# %d Call completions missing after %d ms\n",
			       ncalls - *ok - *failed, NR_WAIT_MS);
			return ncalls;
		}
		if (wc.status == IBV_WC_SUCCESS) {
			(*ok)++;
		} else {
			if (!*failed)
				printf("# first failed Call: %s\n",
				       ibv_wc_status_str(wc.status));
			(*failed)++;
		}
	}
	return ncalls;
}

/* 1 if the server disconnected us (a CM event other than ESTABLISHED). */
static int server_disconnected(int ms)
{
	struct pollfd pfd = { .fd = nr_id->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int gone = 0;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	while (!rdma_get_cm_event(nr_id->channel, &ev)) {
		printf("# CM event: %s\n", rdma_event_str(ev->event));
		if (ev->event != RDMA_CM_EVENT_ESTABLISHED)
			gone = 1;
		rdma_ack_cm_event(ev);
	}
	return gone;
}

static void usage(void)
{
	fprintf(stderr, "usage: norecv_peer -a SERVER -b SOURCE -p PORT [-n CALLS]\n"
		"       [-f SENTFILE] [-s STOPFILE] [-i IDLE_SECS] [-t SECS] [-q]\n"
		"       [-c CREDITS] [-S SLEEP_MS] [-R BYTES]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *port = NULL;
	const char *sentfile = NULL, *stopfile = NULL;
	int timeout = 60, idle = 60, ncalls = 64, sent, ok, failed, c;
	int quit = 0;	/* -q: leave as soon as the server disconnects us */
	int64_t t0, gone_at = -1, idle_end;
	FILE *f;

	while ((c = getopt(argc, argv, "a:b:p:n:f:s:i:t:qc:S:R:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = optarg; break;
		case 'n': ncalls = atoi(optarg); break;
		case 'f': sentfile = optarg; break;
		case 's': stopfile = optarg; break;
		case 'i': idle = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'q': quit = 1; break;
		case 'c': nr_credits = (uint32_t)atoi(optarg); break;
		case 'S': nr_sleep_ms = (uint32_t)atoi(optarg); break;
		case 'R': nr_read_bytes = (uint32_t)atoi(optarg); break;
		default: usage();
		}
	}
	if (!addr || !port || timeout <= 0 || idle < 0 || ncalls < 1 ||
	    ncalls > NR_MAX_CALLS || nr_credits < 1 || nr_sleep_ms > 60000)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	rawpeer_name = "norecv_peer";
	/* Nothing may hang: a blocked librdmacm call ends with SIGALRM. */
	alarm((unsigned)(timeout + idle + 30));
	if (nr_read_bytes) {
		/* The Read chunk's Call last, behind -S's sleep if any. */
		ncalls = nr_sleep_ms ? 2 : 1;
		nr_read_bytes = (nr_read_bytes + 3) & ~3u;
	}
	nr_sbuf = calloc((size_t)ncalls, NR_SLOT);
	nr_chunk = nr_read_bytes ? calloc(1, nr_read_bytes) : NULL;
	if (!nr_sbuf || (nr_read_bytes && !nr_chunk))
		die("out of memory");

	connect_server(addr, port, src, ncalls, timeout);
	/* Watch for the server's disconnect without blocking on it. */
	if (fcntl(nr_id->channel->fd, F_SETFL,
		  fcntl(nr_id->channel->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl: %s", strerror(errno));
	printf("# connected; sending %d ECHO_NULL Calls, no receive posted\n",
	       ncalls);
	t0 = now_ms();
	sent = send_calls(ncalls, &ok, &failed);
	printf("norecv_peer: %d Calls sent: %d completed, %d failed, in %lld ms\n",
	       sent, ok, failed, (long long)(now_ms() - t0));
	if (nr_read_bytes) {
		/* Its chunk unanswerable: the QP goes to the error state,
		 * the CM is told nothing. */
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

		if (ibv_modify_qp(nr_id->qp, &qa, IBV_QP_STATE))
			die("ibv_modify_qp to ERR: %s", strerror(errno));
		printf("# QP in error, still connected for the CM\n");
	}
	if (sentfile) {
		f = fopen(sentfile, "w");
		if (!f || fclose(f))
			die("cannot create %s", sentfile);
	}

	/* Stay connected and idle until told to stop (or for IDLE_SECS). */
	idle_end = now_ms() + (int64_t)idle * 1000;
	while (now_ms() < idle_end && !(stopfile && !access(stopfile, F_OK))) {
		if (gone_at >= 0 && quit)
			break;
		if (gone_at >= 0)
			usleep(100 * 1000);
		else if (server_disconnected(100))
			gone_at = now_ms();
	}
	if (gone_at >= 0)
		printf("norecv_peer: the server disconnected us %.1f s after "
		       "the Calls went out\n", (double)(gone_at - t0) / 1000);
	else
		printf("norecv_peer: still connected after %.1f s\n",
		       (double)(now_ms() - t0) / 1000);

	if (gone_at < 0)
		rdma_disconnect(nr_id);
	rdma_dereg_mr(nr_smr);
	if (nr_cmr)
		ibv_dereg_mr(nr_cmr);
	rdma_destroy_ep(nr_id);
	free(nr_sbuf);
	free(nr_chunk);
	return 0;
}
