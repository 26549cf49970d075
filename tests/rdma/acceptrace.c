/*
 * The passive side's accept race, cycle after cycle in one process each: the
 * client connects and Sends at once, the server (which posted its receives
 * before accepting) waits for that first Send.  A Send that has not arrived
 * after -w ms is looked for in the server host's TCP receive queues
 * (/proc/net/tcp of the server's namespace); one still missing after a
 * second grace period counts as stuck: the server then asks the client for
 * another Send and checks that the first one arrives ahead of it (the bytes
 * were in the socket, and new data woke the receiver up).
 *
 * Upstream siw (still in 6.18) sends the MPA Reply before it puts the
 * socket under the QP's receive callbacks: an early first Send
 * arrives while the connection manager's callback, which ignores data in
 * RDMA mode, is still installed, and then waits until more data comes.
 * tools/rdma-vm builds siw.ko with the order fixed (SIW_PATCH there): on
 * the test bed nothing should be stuck.
 *
 *   acceptrace server -a ADDR -p PORT -r READYFILE -n CYCLES [-w MS] [-s]
 *   acceptrace client -a SERVER -b SOURCE -p PORT -n CYCLES [-d SECS]
 *
 * With -d the client stops after SECS seconds (or CYCLES cycles) and says so
 * in one more connection.  The server prints one summary line, "cycles N
 * prompt P late L stuck S", and exits 0 only if nothing was stuck or lost
 * (3 if some first Send was stuck); -s prints `ss -tnoi` for the first
 * stuck connections.
 */
#include <errno.h>
#include <poll.h>
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
	AR_FIRST = 1,	/* client -> server: the Send right after connecting */
	AR_POKE = 2,	/* client -> server: the Send the server asked for */
	AR_ACK = 3,	/* server -> client: done with this cycle */
	AR_NAK = 4,	/* server -> client: the first Send is missing, poke */
	AR_DONE = 5,	/* client -> server: the client's time is up (-d) */
	AR_SLOTS = 2,	/* receives posted per side */
	AR_INLINE = 64,
};

struct ar_msg {
	uint32_t am_kind;
	uint32_t am_cycle;
	uint8_t am_pad[24];
};

static const char *ar_role = "acceptrace";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "acceptrace %s: ", ar_role);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void ar_init_qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = AR_SLOTS;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = AR_INLINE;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

static long ar_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * Next completion of cq within ms milliseconds: 1 with *wc filled, 0 on
 * timeout.  The CQ's channel is the one rdma_create_qp made for it.
 */
static int ar_wait_cq(struct ibv_cq *cq, struct ibv_comp_channel *ch,
		      struct ibv_wc *wc, int ms)
{
	long deadline = ar_now_ms() + ms;
	struct ibv_cq *ecq;
	void *ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		if (n)
			return 1;
		if (ibv_req_notify_cq(cq, 0))
			die("ibv_req_notify_cq failed");
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		if (n)
			return 1;
		long left = deadline - ar_now_ms();
		if (left <= 0)
			return 0;
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (n <= 0)
			continue;
		if (ibv_get_cq_event(ch, &ecq, &ctx))
			die("ibv_get_cq_event failed");
		ibv_ack_cq_events(ecq, 1);
	}
}

/* The next received message; 0 on timeout (ms), dies on a failed one. */
static int ar_recv(struct rdma_cm_id *id, struct ar_msg *slots,
		   struct ar_msg *out, int ms)
{
	struct ibv_wc wc;

	if (!ar_wait_cq(id->recv_cq, id->recv_cq_channel, &wc, ms))
		return 0;
	if (wc.status != IBV_WC_SUCCESS)
		die("receive completion: %s", ibv_wc_status_str(wc.status));
	if (wc.byte_len != sizeof(*out))
		die("received %u bytes, expected %zu", wc.byte_len, sizeof(*out));
	*out = slots[wc.wr_id];
	return 1;
}

static void ar_send(struct rdma_cm_id *id, uint32_t kind, uint32_t cycle)
{
	struct ar_msg m;
	struct ibv_wc wc;

	memset(&m, 0, sizeof(m));
	m.am_kind = kind;
	m.am_cycle = cycle;
	if (rdma_post_send(id, NULL, &m, sizeof(m), NULL, IBV_SEND_INLINE))
		die("rdma_post_send: %s", strerror(errno));
	if (!ar_wait_cq(id->send_cq, id->send_cq_channel, &wc, 30000))
		die("send completion timed out");
	if (wc.status != IBV_WC_SUCCESS)
		die("send completion: %s", ibv_wc_status_str(wc.status));
}

static struct ibv_mr *ar_post_slots(struct rdma_cm_id *id, struct ar_msg *slots)
{
	struct ibv_mr *mr = rdma_reg_msgs(id, slots, AR_SLOTS * sizeof(*slots));

	if (!mr)
		die("rdma_reg_msgs: %s", strerror(errno));
	for (uintptr_t i = 0; i < AR_SLOTS; i++)
		if (rdma_post_recv(id, (void *)i, &slots[i], sizeof(*slots), mr))
			die("rdma_post_recv: %s", strerror(errno));
	return mr;
}

static struct rdma_addrinfo *ar_resolve(const char *node, const char *port,
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

/*
 * Unread bytes in the receive queue of the established TCP connection from
 * local port lport to the peer's port rport (/proc/net/tcp of this
 * namespace: siw's kernel sockets are listed there too); -1 if not found.
 */
static long ar_recv_q(unsigned lport, unsigned rport)
{
	char line[512];
	unsigned lp, rp, st;
	unsigned long txq, rxq;
	long found = -1;
	FILE *f = fopen("/proc/net/tcp", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*d: %*x:%x %*x:%x %x %lx:%lx",
			   &lp, &rp, &st, &txq, &rxq) != 5)
			continue;
		if (lp == lport && rp == rport && st == 1)
			found = (long)rxq;
	}
	fclose(f);
	return found;
}

static void run_server(const char *addr, const char *port, const char *ready,
		       unsigned cycles, int wait_ms, int show_ss)
{
	struct rdma_addrinfo *res = ar_resolve(addr, port, NULL, 1);
	unsigned prompt = 0, late = 0, stuck = 0, shown = 0;
	struct ar_msg *slots = calloc(AR_SLOTS, sizeof(*slots));
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen_id, *id;
	struct ar_msg m;
	struct ibv_mr *mr;
	unsigned c;
	FILE *f;

	if (!slots)
		die("out of memory");
	if (rdma_create_ep(&listen_id, res, NULL, NULL))
		die("rdma_create_ep (listen): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 4))
		die("rdma_listen: %s", strerror(errno));
	f = fopen(ready, "w");
	if (!f || fclose(f))
		die("cannot create %s", ready);

	for (c = 0; c < cycles; c++) {
		int done = 0;

		if (rdma_get_request(listen_id, &id))
			die("rdma_get_request: %s", strerror(errno));
		ar_init_qp_attr(&attr);
		if (rdma_create_qp(id, NULL, &attr))
			die("rdma_create_qp: %s", strerror(errno));
		mr = ar_post_slots(id, slots);
		memset(&param, 0, sizeof(param));
		param.responder_resources = 1;
		param.initiator_depth = 1;
		if (rdma_accept(id, &param))
			die("cycle %u: rdma_accept: %s", c, strerror(errno));

		if (ar_recv(id, slots, &m, wait_ms)) {
			prompt++;
		} else {
			unsigned lport = ntohs(rdma_get_src_port(id));
			unsigned rport = ntohs(rdma_get_dst_port(id));
			long q = ar_recv_q(lport, rport);

			if (show_ss && shown < 3) {
				shown++;
				fflush(stdout);
				if (system("ss -tnoi state established"))
					fprintf(stderr, "ss failed\n");
			}
			if (ar_recv(id, slots, &m, 3 * wait_ms)) {
				late++;
				printf("cycle %u: first Send late (after %d ms; "
				       "Recv-Q then %ld)\n", c, wait_ms, q);
			} else {
				long q2 = ar_recv_q(lport, rport);

				stuck++;
				ar_send(id, AR_NAK, c);
				if (!ar_recv(id, slots, &m, 30000))
					die("cycle %u: nothing even after the poke "
					    "(Recv-Q %ld)", c, q2);
				printf("cycle %u: first Send stuck %d ms "
				       "(Recv-Q %ld, then %ld bytes); after the "
				       "poke came kind %u", c, 4 * wait_ms, q,
				       q2, m.am_kind);
				if (m.am_kind != AR_FIRST && m.am_kind != AR_DONE)
					die("cycle %u: the first Send was lost", c);
				done = m.am_kind == AR_DONE;
				if (!ar_recv(id, slots, &m, 30000) ||
				    m.am_kind != AR_POKE)
					die("cycle %u: no poke", c);
				printf(", then kind %u\n", m.am_kind);
			}
		}
		if (m.am_kind != AR_FIRST && m.am_kind != AR_POKE &&
		    m.am_kind != AR_DONE)
			die("cycle %u: unexpected message kind %u", c, m.am_kind);
		if (m.am_cycle != c)
			die("cycle %u: message of cycle %u", c, m.am_cycle);
		ar_send(id, AR_ACK, c);
		rdma_disconnect(id);
		rdma_dereg_mr(mr);
		rdma_destroy_ep(id);
		if (done || m.am_kind == AR_DONE)
			break;	/* this last connection counted too */
		if ((c + 1) % 100 == 0) {
			printf("after %u cycles: prompt %u late %u stuck %u\n",
			       c + 1, prompt, late, stuck);
			fflush(stdout);
		}
	}
	rdma_destroy_ep(listen_id);
	free(slots);
	printf("cycles %u prompt %u late %u stuck %u\n", c < cycles ? c + 1 : c,
	       prompt, late, stuck);
	exit(stuck ? 3 : 0);
}

/* A refused connect (listener not up yet) is retried for a while. */
static struct rdma_cm_id *ar_connect(const char *addr, const char *port,
				     const char *src, struct ar_msg *slots,
				     struct ibv_mr **mrp)
{
	long deadline = ar_now_ms() + 20000;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;

	for (;;) {
		res = ar_resolve(addr, port, src, 0);
		ar_init_qp_attr(&attr);
		if (rdma_create_ep(&id, res, NULL, &attr))
			die("rdma_create_ep: %s", strerror(errno));
		rdma_freeaddrinfo(res);
		*mrp = ar_post_slots(id, slots);
		memset(&param, 0, sizeof(param));
		param.responder_resources = 1;
		param.initiator_depth = 1;
		if (!rdma_connect(id, &param))
			return id;
		fprintf(stderr, "acceptrace client: connect: %s, retrying\n",
			strerror(errno));
		rdma_dereg_mr(*mrp);
		rdma_destroy_ep(id);
		if (ar_now_ms() > deadline)
			die("could not connect to %s:%s", addr, port);
		usleep(100 * 1000);
	}
}

static void run_client(const char *addr, const char *port, const char *src,
		       unsigned cycles, int secs)
{
	long deadline = secs ? ar_now_ms() + secs * 1000L : 0;
	struct ar_msg *slots = calloc(AR_SLOTS, sizeof(*slots));
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ar_msg m;

	if (!slots)
		die("out of memory");
	for (unsigned c = 0; c < cycles; c++) {
		id = ar_connect(addr, port, src, slots, &mr);
		/* No pause at all between ESTABLISHED and the first Send. */
		int last = deadline && (ar_now_ms() > deadline || c + 1 == cycles);
		ar_send(id, last ? AR_DONE : AR_FIRST, c);
		if (!ar_recv(id, slots, &m, 60000))
			die("cycle %u: no answer from the server", c);
		if (m.am_kind == AR_NAK) {
			ar_send(id, AR_POKE, c);
			if (!ar_recv(id, slots, &m, 60000))
				die("cycle %u: no answer after the poke", c);
		}
		if (m.am_kind != AR_ACK || m.am_cycle != c)
			die("cycle %u: unexpected kind %u of cycle %u", c,
			    m.am_kind, m.am_cycle);
		rdma_disconnect(id);
		rdma_dereg_mr(mr);
		rdma_destroy_ep(id);
		if (last)
			break;
	}
	free(slots);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: acceptrace server -a ADDR -p PORT -r READYFILE -n CYCLES [-w MS] [-s]\n"
		"       acceptrace client -a SERVER -b SOURCE -p PORT -n CYCLES [-d SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *port = NULL, *ready = NULL;
	int wait_ms = 1000, show_ss = 0, secs = 0, c;
	unsigned cycles = 100;

	if (argc < 2)
		usage();
	ar_role = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "a:b:p:r:n:w:d:s")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'b': src = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 'n': cycles = (unsigned)atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 's': show_ss = 1; break;
		case 'd': secs = atoi(optarg); break;
		default: usage();
		}
	}
	if (!addr || !port || !cycles || wait_ms <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "server") && ready)
		run_server(addr, port, ready, cycles, wait_ms, show_ss);
	else if (!strcmp(argv[1], "client"))
		run_client(addr, port, src, cycles, secs);
	else
		usage();
	return 0;
}
