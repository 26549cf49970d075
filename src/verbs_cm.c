/*
 * Verbs plumbing, the listener and CM events: listen on an address, read,
 * ack and name a channel's events, and reject, disconnect or destroy the
 * ids they bring (the endpoint: verbs.c).
 */
#include "config.h"
#include <errno.h>
#include <arpa/inet.h>
#include <string.h>
#include "verbs.h"
#include "verbs_int.h"
#include "verbs_thread.h"

static int rpcrdma_listen_here(struct rdma_event_channel **chp, struct rdma_cm_id **idp,
		   const char *host, const char *port, int backlog)
{
	struct rdma_addrinfo hints, *res;
	int rc = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(host, port, &hints, &res))
		return errno ? -errno : -EADDRNOTAVAIL;
	*chp = rdma_create_event_channel();
	if (!*chp) {
		rc = -errno;
		goto out_free_ai;
	}
	rc = set_nonblock((*chp)->fd);
	if (rc)
		goto out_destroy_ch;
	if (rdma_create_id(*chp, idp, NULL, RDMA_PS_TCP)) {
		rc = -errno;
		goto out_destroy_ch;
	}
	if (rdma_bind_addr(*idp, res->ai_src_addr) || rdma_listen(*idp, backlog)) {
		rc = -errno;
		goto out_destroy_id;
	}
	rdma_freeaddrinfo(res);
	return 0;

out_destroy_id:
	rdma_destroy_id(*idp);
	*idp = NULL;
out_destroy_ch:
	rdma_destroy_event_channel(*chp);
	*chp = NULL;
out_free_ai:
	rdma_freeaddrinfo(res);
	return rc;
}

static void rpcrdma_listen_close_here(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
}

uint16_t rpcrdma_id_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

struct sockaddr *rpcrdma_id_local_addr(struct rdma_cm_id *id)
{
	return rdma_get_local_addr(id);
}

struct sockaddr *rpcrdma_id_peer_addr(struct rdma_cm_id *id)
{
	return rdma_get_peer_addr(id);
}

static int rpcrdma_cm_next_here(struct rdma_event_channel *ch, struct rdma_cm_event **evp)
{
	errno = 0;
	if (!rdma_get_cm_event(ch, evp))
		return 0;
	return errno == EAGAIN || !errno ? -EAGAIN : rpcrdma_vt_rc(-errno);
}

void rpcrdma_cm_ack(struct rdma_cm_event *ev)
{
	rdma_ack_cm_event(ev);
}

const char *rpcrdma_cm_event_name(const struct rdma_cm_event *ev)
{
	return rdma_event_str(ev->event);
}

static void rpcrdma_cm_reject_here(struct rdma_cm_id *id)
{
	rdma_reject(id, NULL, 0);
}

static void rpcrdma_cm_disconnect_here(struct rdma_cm_id *id)
{
	rdma_disconnect(id);
}

static void rpcrdma_cm_destroy_qp_here(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
}

/* 0, or why the id lives on (-EACCES: the kernel refused). */
static int rpcrdma_cm_destroy_id_here(struct rdma_cm_id *id)
{
	errno = 0;
	return rpcrdma_vt_rc(rdma_destroy_id(id));
}

/* ---- the public names: here, or on the verbs thread (verbs_thread.h) ---- */

RPCRDMA_VT_R5(int, rpcrdma_listen, struct rdma_event_channel **, struct rdma_cm_id **, const char *, const char *, int)
RPCRDMA_VT_V2(rpcrdma_listen_close, struct rdma_event_channel *, struct rdma_cm_id *)
RPCRDMA_VT_R2(int, rpcrdma_cm_next, struct rdma_event_channel *, struct rdma_cm_event **)
RPCRDMA_VT_V1(rpcrdma_cm_reject, struct rdma_cm_id *)
RPCRDMA_VT_V1(rpcrdma_cm_disconnect, struct rdma_cm_id *)
RPCRDMA_VT_V1(rpcrdma_cm_destroy_qp, struct rdma_cm_id *)
RPCRDMA_VT_R1(int, rpcrdma_cm_destroy_id, struct rdma_cm_id *)
