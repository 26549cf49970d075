/*
 * A chunk-speaking RPC-over-RDMA responder for the echo program, in raw
 * librdmacm/verbs (no librpcrdma), so the client's chunks are proven on
 * every test bed, siw included, where the kernel's nfsd is not available:
 * it pulls Read chunks (and position-zero long Calls) with RDMA Read,
 * places ECHO_BYTES results in the client's Write chunk or the whole
 * Reply in its Reply chunk with RDMA Write, as the kernel's nfsd does.
 *
 * ECHO_SLEEP(n) is a command instead of a sleep:
 *   n = 10..13  the next ECHO_BYTES Reply lies about its chunks: 10 a
 *               Reply chunk length beyond the offer, 11 a handle not
 *               offered, 12 a Write chunk length one byte short of the
 *               data, 13 a Write chunk length beyond the offer;
 *   n = 1       the stale-rkey check: an RDMA Write with the rkey of the
 *               Reply chunk of the previous (finished) RPC, which must
 *               fail; exit 0 if it did, 1 if the write went through.
 *   n = 20      the next ECHO_BYTES is pulled but never answered (the
 *               client times out and abandons it);
 *   n = 21      an RDMA Read with that abandoned Call's Read chunk rkey,
 *               which must fail: exit 0 if it did, 1 if not.
 *   n = 30, 31  the next ECHO_BYTES Reply in a Reply chunk goes as Send
 *               With Invalidate (RFC 8797): 31 of its Reply chunk's rkey,
 *               30 of that rkey with another key byte (a hostile rkey:
 *               siw invalidates by the STag's index alone and reports the
 *               rkey named, not the client's).
 * An ECHO_BYTES result under 1 KiB is sent inline even when a Write
 * chunk is offered, which goes back unused (length 0), as RFC 8166
 * allows.  ECHO_SHUTDOWN answers and exits 0.  Headers come from the library's
 * codec (src/rpc_rdma.c, compiled in).
 */
#include "config.h"
#include <errno.h>
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
	CP_CREDITS = 16,
	CP_NRECV = CP_CREDITS + 1,
	CP_BUF = RAWPEER_BUF,
	CP_WORK = 4 * 1024 * 1024 + 65536,	/* largest Call or Reply */
	CP_WAIT_MS = 30000,
};

static struct rdma_cm_id *cp_id;
static uint8_t *cp_rbuf, *cp_sbuf, *cp_call, *cp_reply;
static struct ibv_mr *cp_rmr, *cp_smr, *cp_callmr, *cp_replymr;
static int cp_mode;			/* set by ECHO_SLEEP 10..13 */
static struct rpcrdma_segment cp_prev_reply;	/* last RPC's Reply chunk */
static int cp_have_prev;
static struct rpcrdma_segment cp_abandoned;	/* its Read chunk (n = 20) */
static int cp_have_abandoned;

static void post_recv(uint64_t slot)
{
	if (rdma_post_recv(cp_id, (void *)(uintptr_t)slot,
			   cp_rbuf + slot * CP_BUF, CP_BUF, cp_rmr))
		die("rdma_post_recv: %s", strerror(errno));
}

/* Wait for the one outstanding send-queue completion; its status. */
static enum ibv_wc_status sq_wait(const char *what)
{
	struct ibv_wc wc;

	if (!poll_cq(cp_id->send_cq, &wc, CP_WAIT_MS))
		die("%s: no completion within %d ms", what, CP_WAIT_MS);
	return wc.status;
}

static void rdma_read_into(uint8_t *dst, const struct rpcrdma_segment *s)
{
	enum ibv_wc_status st;

	if (rdma_post_read(cp_id, NULL, dst, s->se_length, cp_callmr, 0,
			   s->se_offset, s->se_handle))
		die("rdma_post_read: %s", strerror(errno));
	st = sq_wait("RDMA Read");
	if (st != IBV_WC_SUCCESS)
		die("RDMA Read of %u bytes: %s", s->se_length,
		    ibv_wc_status_str(st));
}

static void rdma_write_from(const uint8_t *src, uint32_t len,
			    struct ibv_mr *mr, const struct rpcrdma_segment *s)
{
	enum ibv_wc_status st;

	if (len > s->se_length)
		die("writing %u bytes into a %u-byte segment", len, s->se_length);
	if (rdma_post_write(cp_id, NULL, (void *)src, len, mr, 0,
			    s->se_offset, s->se_handle))
		die("rdma_post_write: %s", strerror(errno));
	st = sq_wait("RDMA Write");
	if (st != IBV_WC_SUCCESS)
		die("RDMA Write of %u bytes: %s", len, ibv_wc_status_str(st));
}

static int cp_inv;			/* the next Send invalidates cp_inv_rkey */
static uint32_t cp_inv_rkey;

static void send_raw(const uint8_t *buf, size_t len)
{
	enum ibv_wc_status st;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;

	memcpy(cp_sbuf, buf, len);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)cp_sbuf;
	sge.length = (uint32_t)len;
	sge.lkey = cp_smr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = cp_inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	wr.invalidate_rkey = cp_inv_rkey;
	wr.wr.rdma.rkey = cp_inv_rkey;	/* where siw's provider reads it */
	wr.send_flags = IBV_SEND_SIGNALED;
	if (cp_inv)
		printf("# Send With Invalidate of rkey %#x\n", cp_inv_rkey);
	cp_inv = 0;
	errno = 0;
	if (ibv_post_send(cp_id->qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
	st = sq_wait("Send");
	if (st != IBV_WC_SUCCESS)
		die("Send: %s", ibv_wc_status_str(st));
}

/*
 * Rebuild the Call into cp_call (RFC 8166 3.5.3): long Call from the
 * position-zero chunk; else the inline part with each Read chunk
 * inserted at its position and its XDR roundup restored.
 */
static uint32_t rebuild_call(const struct rpcrdma_hdr *h, const uint8_t *in,
			     uint32_t inlen, unsigned *nread)
{
	uint32_t op = 0, ip = 0, i;

	*nread = h->hd_nreads;
	for (i = 0; i < h->hd_nreads; i++) {
		const struct rpcrdma_read_segment *r = &h->hd_reads[i];
		uint32_t gap;

		if (r->rd_position & 3)
			die("Read chunk position %u is not XDR-aligned",
			    r->rd_position);
		if (h->hd_proc == RPCRDMA_NOMSG) {
			if (r->rd_position)
				die("long Call chunk at position %u", r->rd_position);
		} else {
			if (r->rd_position < op)
				die("Read chunk positions go backwards");
			gap = r->rd_position - op;
			if (gap > inlen - ip)
				die("Read chunk position %u past the message",
				    r->rd_position);
			memcpy(cp_call + op, in + ip, gap);
			ip += gap;
			op += gap;
		}
		if ((uint64_t)op + r->rd_seg.se_length + 3 > CP_WORK)
			die("Call too large");
		rdma_read_into(cp_call + op, &r->rd_seg);
		op += r->rd_seg.se_length;
		if (h->hd_proc != RPCRDMA_NOMSG)
			while (op & 3)
				cp_call[op++] = 0;
	}
	memcpy(cp_call + op, in + ip, inlen - ip);
	return op + inlen - ip;
}

/*
 * An RDMA Write completes locally before the remote has checked the rkey
 * on iWARP (siw): the refusal comes back as the client terminating the
 * connection, which flushes our receives.  A Call arriving instead would
 * mean the client took the write.  Returns the flush status.
 */
static enum ibv_wc_status stale_write_outcome(void)
{
	struct ibv_wc wc;

	printf("# the write completed locally; waiting for the client's verdict\n");
	if (!poll_cq(cp_id->recv_cq, &wc, CP_WAIT_MS)) {
		printf("chunkpeer: FAIL: the stale write drew no reaction\n");
		exit(1);
	}
	if (wc.status == IBV_WC_SUCCESS) {
		printf("chunkpeer: FAIL: the stale rkey still works "
		       "(the client went on)\n");
		exit(1);
	}
	printf("# the client ended the connection\n");
	return wc.status;
}

static void wr32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

/* Skip an opaque_auth at *off; 0 if it does not fit. */
static int skip_auth(const uint8_t *m, uint32_t len, uint32_t *off)
{
	uint32_t blen;

	if (*off + 8 > len)
		return 0;
	blen = get32(m + *off + 4);
	if (blen > 400 || *off + 8 + ((blen + 3) & ~3u) > len)
		return 0;
	*off += 8 + ((blen + 3) & ~3u);
	return 1;
}

/*
 * Answer one Call: the Reply message is built in cp_reply; ECHO_BYTES'
 * data goes to the Write chunk when one is offered (removed from the
 * message with its roundup), then the message goes into the Reply chunk
 * when one is offered, else inline.  Returns 0 to stop serving.
 */
static int serve(const struct rpcrdma_hdr *h, uint32_t clen)
{
	struct rpcrdma_hdr rh;
	uint8_t hdr[RPCRDMA_HDRLEN_MAX];
	uint32_t xid = h->hd_xid, proc, off = 24, rlen = 24, dlen = 0;
	const uint8_t *data = NULL;
	int placed = 0, stop = 0;
	ssize_t n;

	if (clen < 24 || get32(cp_call) != xid || get32(cp_call + 4) != 0)
		die("bad RPC Call (%u bytes)", clen);
	proc = get32(cp_call + 20);
	if (!skip_auth(cp_call, clen, &off) || !skip_auth(cp_call, clen, &off))
		die("bad credentials");
	wr32(cp_reply, xid);
	wr32(cp_reply + 4, 1);		/* REPLY */
	wr32(cp_reply + 8, 0);		/* MSG_ACCEPTED */
	wr32(cp_reply + 12, 0);		/* verifier AUTH_NONE */
	wr32(cp_reply + 16, 0);
	wr32(cp_reply + 20, 0);		/* SUCCESS */
	switch (proc) {
	case 1:				/* ECHO_BYTES */
		if (off + 4 > clen)
			die("ECHO_BYTES: no length");
		dlen = get32(cp_call + off);
		if (off + 4 + (uint64_t)dlen > clen)
			die("ECHO_BYTES: %u bytes announced, %u in the Call",
			    dlen, clen - off - 4);
		data = cp_call + off + 4;
		wr32(cp_reply + rlen, dlen);
		rlen += 4;
		if (h->hd_nwrites && dlen >= 1024) {
			rdma_write_from(data, dlen, cp_callmr,
					&h->hd_writes[0].rc_segs[0]);
			placed = 1;
		} else {
			memcpy(cp_reply + rlen, data, dlen);
			rlen += dlen;
			while (rlen & 3)
				cp_reply[rlen++] = 0;
		}
		break;
	case 5:				/* ECHO_SLEEP: a command */
		if (off + 4 > clen)
			die("ECHO_SLEEP: no argument");
		cp_mode = (int)get32(cp_call + off);
		printf("# command %d\n", cp_mode);
		if (cp_mode == 21) {
			enum ibv_wc_status st;

			if (!cp_have_abandoned)
				die("no abandoned Call to read from");
			printf("# RDMA Read with the abandoned Call's rkey %#x\n",
			       cp_abandoned.se_handle);
			if (rdma_post_read(cp_id, NULL, cp_call, 8, cp_callmr, 0,
					   cp_abandoned.se_offset,
					   cp_abandoned.se_handle))
				die("rdma_post_read: %s", strerror(errno));
			st = sq_wait("abandoned-rkey RDMA Read");
			if (st == IBV_WC_SUCCESS) {
				printf("chunkpeer: FAIL: the abandoned Call's memory "
				       "is still readable\n");
				exit(1);
			}
			printf("chunkpeer: abandoned Call's rkey refused: %s\n",
			       ibv_wc_status_str(st));
			printf("chunkpeer: ok\n");
			exit(0);
		}
		if (cp_mode == 1) {
			enum ibv_wc_status st;

			if (!cp_have_prev)
				die("stale-rkey check without an earlier Reply chunk");
			printf("# RDMA Write with the finished RPC's rkey %#x at %#llx\n",
			       cp_prev_reply.se_handle,
			       (unsigned long long)cp_prev_reply.se_offset);
			if (rdma_post_write(cp_id, NULL, cp_reply, 8, cp_replymr, 0,
					    cp_prev_reply.se_offset,
					    cp_prev_reply.se_handle))
				die("rdma_post_write: %s", strerror(errno));
			st = sq_wait("stale RDMA Write");
			if (st == IBV_WC_SUCCESS)
				st = stale_write_outcome();
			printf("chunkpeer: stale rkey refused: %s\n",
			       ibv_wc_status_str(st));
			printf("chunkpeer: ok\n");
			exit(0);
		}
		break;
	case 4:				/* ECHO_SHUTDOWN */
		stop = 1;
		break;
	case 0:
		break;
	default:
		die("proc %u is not served here", proc);
	}

	if (proc == 1 && cp_mode == 20) {
		if (!h->hd_nreads)
			die("the Call to abandon has no Read chunk");
		cp_abandoned = h->hd_reads[0].rd_seg;
		cp_have_abandoned = 1;
		cp_mode = 0;
		printf("# ECHO_BYTES xid %#x left unanswered\n", xid);
		return 1;
	}
	memset(&rh, 0, sizeof(rh));
	rh.hd_xid = xid;
	rh.hd_credits = CP_CREDITS;
	rh.hd_proc = RPCRDMA_MSG;
	if (h->hd_nwrites && !placed) {	/* unused: every length 0 */
		uint32_t k;

		rh.hd_nwrites = 1;
		rh.hd_writes[0] = h->hd_writes[0];
		for (k = 0; k < rh.hd_writes[0].rc_nsegs; k++)
			rh.hd_writes[0].rc_segs[k].se_length = 0;
	}
	if (placed) {
		rh.hd_nwrites = 1;
		rh.hd_writes[0] = h->hd_writes[0];
		rh.hd_writes[0].rc_segs[0].se_length = dlen;
		if (proc == 1 && cp_mode == 12)
			rh.hd_writes[0].rc_segs[0].se_length = dlen - 1;
		if (proc == 1 && cp_mode == 13)
			rh.hd_writes[0].rc_segs[0].se_length =
				h->hd_writes[0].rc_segs[0].se_length + 4;
	}
	if (h->hd_has_reply) {
		rdma_write_from(cp_reply, rlen, cp_replymr, &h->hd_reply.rc_segs[0]);
		rh.hd_proc = RPCRDMA_NOMSG;
		rh.hd_has_reply = true;
		rh.hd_reply = h->hd_reply;
		rh.hd_reply.rc_segs[0].se_length = rlen;
		if (proc == 1 && cp_mode == 10)
			rh.hd_reply.rc_segs[0].se_length =
				h->hd_reply.rc_segs[0].se_length + 4;
		if (proc == 1 && cp_mode == 11)
			rh.hd_reply.rc_segs[0].se_handle ^= 0x80;
		cp_prev_reply = h->hd_reply.rc_segs[0];
		cp_have_prev = 1;
		if (proc == 1 && (cp_mode == 30 || cp_mode == 31)) {
			cp_inv = 1;
			cp_inv_rkey = h->hd_reply.rc_segs[0].se_handle ^
				      (cp_mode == 30 ? 0x80u : 0);
		}
	}
	if (proc == 1)
		cp_mode = 0;
	n = rpcrdma_hdr_encode(hdr, sizeof(hdr), &rh);
	if (n < 0)
		die("rpcrdma_hdr_encode: %zd", n);
	if (rh.hd_proc == RPCRDMA_NOMSG) {
		send_raw(hdr, (size_t)n);
	} else if ((size_t)n + rlen <= CP_BUF) {
		memmove(cp_reply + n, cp_reply, rlen);
		memcpy(cp_reply, hdr, (size_t)n);
		send_raw(cp_reply, (size_t)n + rlen);
	} else {
		n = rpcrdma_encode_error(hdr, sizeof(hdr), xid, CP_CREDITS,
					 RPCRDMA_ERR_CHUNK);
		send_raw(hdr, (size_t)n);
	}
	return !stop;
}

static void setup(const char *addr, const char *port, const char *ready,
		  struct rdma_cm_id **listen_idp)
{
	struct rdma_addrinfo hints, *res;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	FILE *f;
	uint64_t i;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo %s:%s: %s", addr, port, strerror(errno));
	if (rdma_create_ep(listen_idp, res, NULL, NULL))
		die("rdma_create_ep (listen): %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(*listen_idp, 1))
		die("rdma_listen: %s", strerror(errno));
	f = fopen(ready, "w");
	if (!f || fclose(f))
		die("cannot create %s", ready);
	rpcrdma_cm_private_encode(pdata, sizeof(pdata), CP_BUF, CP_BUF, false);
	for (;;) {
		if (rdma_get_request(*listen_idp, &cp_id))
			die("rdma_get_request: %s", strerror(errno));
		memset(&attr, 0, sizeof(attr));
		attr.cap.max_send_wr = 8;
		attr.cap.max_recv_wr = CP_NRECV;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		attr.sq_sig_all = 1;
		if (rdma_create_qp(cp_id, NULL, &attr))
			die("rdma_create_qp: %s", strerror(errno));
		cp_rmr = rdma_reg_msgs(cp_id, cp_rbuf, (size_t)CP_NRECV * CP_BUF);
		cp_smr = rdma_reg_msgs(cp_id, cp_sbuf, CP_BUF);
		cp_callmr = rdma_reg_read(cp_id, cp_call, CP_WORK);
		cp_replymr = rdma_reg_msgs(cp_id, cp_reply, CP_WORK);
		if (!cp_rmr || !cp_smr || !cp_callmr || !cp_replymr)
			die("memory registration: %s", strerror(errno));
		for (i = 0; i < CP_NRECV; i++)
			post_recv(i);
		memset(&param, 0, sizeof(param));
		param.private_data = pdata;
		param.private_data_len = sizeof(pdata);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.rnr_retry_count = 7;
		if (!rdma_accept(cp_id, &param))
			return;
		printf("# rdma_accept: %s; waiting for the next attempt\n",
		       strerror(errno));
		rdma_dereg_mr(cp_rmr);
		rdma_dereg_mr(cp_smr);
		rdma_dereg_mr(cp_callmr);
		rdma_dereg_mr(cp_replymr);
		rdma_destroy_ep(cp_id);
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL;
	struct rdma_cm_id *listen_id;
	unsigned long calls = 0, reads = 0;
	int c, more = 1;

	rawpeer_name = "chunkpeer";
	while ((c = getopt(argc, argv, "a:p:r:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || !ready) {
		fprintf(stderr, "usage: chunkpeer -a ADDR -p PORT -r READYFILE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(110);
	cp_rbuf = calloc(CP_NRECV, CP_BUF);
	cp_sbuf = calloc(1, CP_BUF);
	cp_call = malloc(CP_WORK);
	cp_reply = malloc(CP_WORK);
	if (!cp_rbuf || !cp_sbuf || !cp_call || !cp_reply)
		die("out of memory");
	setup(addr, port, ready, &listen_id);
	while (more) {
		struct rpcrdma_hdr h;
		struct ibv_wc wc;
		unsigned nread;
		uint32_t clen;
		uint64_t slot;
		int rc;

		if (!poll_cq(cp_id->recv_cq, &wc, CP_WAIT_MS))
			die("no Call within %d ms", CP_WAIT_MS);
		if (wc.status != IBV_WC_SUCCESS)
			die("receive: %s (the client left)", ibv_wc_status_str(wc.status));
		slot = wc.wr_id;
		rc = rpcrdma_hdr_decode(cp_rbuf + slot * CP_BUF, wc.byte_len, &h);
		if (rc || (h.hd_proc != RPCRDMA_MSG && h.hd_proc != RPCRDMA_NOMSG))
			die("Call header: decode %d proc %u", rc, h.hd_proc);
		clen = rebuild_call(&h, cp_rbuf + slot * CP_BUF + h.hd_hdrlen,
				    wc.byte_len - (uint32_t)h.hd_hdrlen, &nread);
		post_recv(slot);
		calls++;
		reads += nread;
		more = serve(&h, clen);
	}
	printf("chunkpeer: %lu Calls, %lu Read segments pulled\n", calls, reads);
	rdma_disconnect(cp_id);
	printf("chunkpeer: ok\n");
	return 0;
}
