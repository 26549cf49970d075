/*
 * librpcrdma public API: ONC RPC over RDMA (RFC 8166) for libtirpc.
 * Everything a program needs to create RDMA CLIENT and SVCXPRT handles,
 * tune them, and read their counters.
 */
#ifndef RPCRDMA_RPCRDMA_H
#define RPCRDMA_RPCRDMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rpc/rpc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RPCRDMA_EXPORT __attribute__((visibility("default")))

/*
 * ABI: every struct a program passes in or reads out begins with a
 * uint32_t size member, the size of the struct as the program's header
 * knows it: rpcrdma_options_init() sets ro_size, RPCRDMA_STATS_INIT and
 * the program the others (sizeof the struct).  The library reads or fills
 * only that many bytes, so a program built against an older, shorter
 * header keeps working with a newer library: options past its size count
 * as unset, counters past its size are not written.  A size below the
 * first release's (RPCRDMA_*_SIZE_0_1) is refused with EINVAL.  The
 * structs only grow, at their end; see rpcrdma(7), ABI.
 */

/* Version of the library actually loaded, "MAJOR.MINOR.PATCH". */
RPCRDMA_EXPORT const char *rpcrdma_version(void);

/* How a message's Send is built; see rpcrdma_options_init(3). */
enum rpcrdma_send_strategy {
	RPCRDMA_SEND_AUTO = 0,		/* chosen per message */
	RPCRDMA_SEND_INLINE = 1,	/* IBV_SEND_INLINE, no copy, no lkey */
	RPCRDMA_SEND_PULLUP = 2,	/* one copy into a registered buffer */
	RPCRDMA_SEND_MAPPED = 3,	/* one SGE per segment from registered memory */
};

/* How a Call over the inline threshold travels; see rpcrdma_options_init(3). */
enum rpcrdma_call_chunks {
	RPCRDMA_CALL_CHUNKS_AUTO = 0,	/* inline, else Read chunks, else long Call */
	RPCRDMA_CALL_CHUNKS_READ = 1,	/* large opaques always as Read chunks */
	RPCRDMA_CALL_CHUNKS_LONG = 2,	/* every Call as a position-zero Read chunk */
};

/* When a client offers a Reply chunk. */
enum rpcrdma_reply_chunks {
	RPCRDMA_REPLY_CHUNK_AUTO = 0,	/* when the Reply may not fit inline */
	RPCRDMA_REPLY_CHUNK_ALWAYS = 1,
	RPCRDMA_REPLY_CHUNK_NEVER = 2,
};

/*
 * Every tunable of a transport.  rpcrdma_options_init() sets ro_size and
 * marks each field unset (RPCRDMA_OPT_UNSET, ro_source NULL); a field the
 * program sets wins over the environment and rpcrdma.conf(5), an unset one
 * takes their value or the built-in default.  See rpcrdma_options_init(3).
 * Fields appended later are integers whose unset value is all ones: the
 * library fills bytes it does not know with 0xff and refuses (EINVAL) a
 * struct that sets one of them.
 */
#define RPCRDMA_OPT_UNSET	UINT32_MAX

struct rpcrdma_options {
	uint32_t ro_size;		/* sizeof(struct rpcrdma_options) the program knows */
	uint32_t ro_max_requests;	/* credits asked (client) / granted (server) */
	uint32_t ro_inline_send;	/* largest Send we offer to post (RFC 8797) */
	uint32_t ro_inline_recv;	/* largest Send we can receive (RFC 8797) */
	uint32_t ro_signal_every;	/* signal one unsignaled Send in N */
	uint32_t ro_page_threshold;	/* opaques this long are referenced, not copied */
	uint32_t ro_connect_timeout_ms;	/* address/route resolution and connect */
	uint32_t ro_max_inline_data;	/* IBV_SEND_INLINE size asked at QP creation */
	uint32_t ro_send_strategy;	/* enum rpcrdma_send_strategy */
	uint32_t ro_inline_cutoff;	/* auto: inline when the Send is this small */
	uint32_t ro_mapped_min;		/* auto: map when this many bytes are referenced */
	uint32_t ro_mr_cache;		/* hot-path registrations kept; 0: none */
	const char *ro_source;		/* client: local address to connect from */
	uint32_t ro_busy_poll_us;	/* spin on the CQ at most this long before sleeping */
	uint32_t ro_svc_threads;	/* server: service threads; 0: svc_run() serves */
	uint32_t ro_max_reply;		/* client: Reply chunk size when nothing is known */
	uint32_t ro_call_chunks;	/* client: enum rpcrdma_call_chunks */
	uint32_t ro_reply_chunks;	/* client: enum rpcrdma_reply_chunks */
	uint32_t ro_call_timeout_ms;	/* client: every call's timeout; 0: clnt_call's */
	uint32_t ro_log_level;		/* 0 off, 1 error, 2 warning, 3 debug */
	uint32_t ro_reconnect_tries;	/* client: attempts after a loss; 0: off */
	uint32_t ro_reconnect_timeout_ms; /* client: give up this long after a loss; 0: never */
	uint32_t ro_pool_size;		/* server: registered chunk pool per device */
	uint32_t ro_max_chunk_bytes;	/* server: chunk bytes one Call reads, one Reply writes */
	uint32_t ro_max_chunk_segs;	/* server: segments in one chunk */
	uint32_t ro_max_chunks;		/* server: chunks in a read list or a write list */
	uint32_t ro_max_connections;	/* server: connections per listener; 0: no limit */
	uint32_t ro_idle_timeout_ms;	/* server: close connections idle this long; 0: never */
	uint32_t ro_max_conn_memory;	/* server: bytes one connection may hold; 0: no limit */
	uint32_t ro_svc_stall_ms;	/* server: longest one connection may block a serving thread */
	uint32_t ro_drc_size;		/* server: duplicate request cache entries; 0: off */
	uint32_t ro_port;		/* the port when the program passes none (client: rpcbind first) */
	uint32_t ro_rpcbind_timeout_ms;	/* client: bound on asking rpcbind for the port */
	uint32_t ro_busy_poll_alone_us;	/* client: busy_poll_us while a call is alone in flight, if more */
	uint32_t ro_send_buffer;	/* each registered send buffer (at most ro_inline_send) */
	uint32_t ro_reply_windows;	/* client: call slots whose Reply chunks go through a memory window */
	uint32_t ro_recv_buffers;	/* server: receive buffers per shared queue; 0: rings per connection */
	/* Append new fields here, never anywhere else (rpcrdma(7), ABI). */
};
/* The smallest ro_size accepted: the end of release 0.1's last field. */
#define RPCRDMA_OPTIONS_SIZE_0_1 \
	(offsetof(struct rpcrdma_options, ro_rpcbind_timeout_ms) + sizeof(uint32_t))

/* Mark size bytes of opts unset and set ro_size; 0, or -1 with EINVAL. */
RPCRDMA_EXPORT int rpcrdma_options_init_size(struct rpcrdma_options *opts,
					     size_t size);
#define rpcrdma_options_init(opts) \
	rpcrdma_options_init_size((opts), sizeof(*(opts)))

/*
 * Transport counters, named after the kernel's mountstats where one
 * exists.  Set rs_size before asking (struct rpcrdma_stats st =
 * RPCRDMA_STATS_INIT); the library writes rs_size bytes at most, zeroes
 * the counters it does not know, and says in rs_lib_size how many bytes
 * of counters it does know.
 */
struct rpcrdma_stats {
	uint32_t rs_size;		/* in: sizeof(struct rpcrdma_stats) the program knows */
	uint32_t rs_lib_size;		/* out: sizeof(struct rpcrdma_stats) in the library */
	uint64_t rs_calls;		/* client: calls made, once each (sent, or refused before); server: Calls received */
	uint64_t rs_replies;		/* client: Replies matched; server: Replies sent */
	uint64_t rs_bad_replies;	/* client: Replies dropped (unparseable, unmatched) and RDMA_ERRORs */
	uint64_t rs_bad_calls;		/* server: Calls answered with RDMA_ERROR */
	uint64_t rs_timeouts;		/* client: calls that timed out */
	uint64_t rs_pullup_sends;	/* Sends posted from the pull-up buffer */
	uint64_t rs_pullup_bytes;	/* bytes copied into pull-up buffers */
	uint64_t rs_empty_sendctx_q;	/* times a sender waited for a send context */
	uint64_t rs_credits_granted;	/* client: the last grant; server: what we grant */
	uint64_t rs_credit_waits;	/* client: times a call waited for a credit */
	uint64_t rs_signaled_sends;	/* Sends posted IBV_SEND_SIGNALED */
	uint64_t rs_recv_posted;	/* Receives posted */
	uint64_t rs_too_large;		/* messages refused: larger than the inline threshold */
	uint64_t rs_inline_sends;	/* Sends posted IBV_SEND_INLINE */
	uint64_t rs_inline_bytes;	/* RPC bytes they carried */
	uint64_t rs_mapped_sends;	/* Sends gathered from registered memory */
	uint64_t rs_mapped_sges;	/* SGEs those Sends used */
	uint64_t rs_hardway_register_count; /* registrations made while sending */
	uint64_t rs_fallback_too_many_sges;	/* strategy refused: SGE limit */
	uint64_t rs_fallback_too_big_for_inline; /* ... max_inline_data */
	uint64_t rs_fallback_too_big_for_sendbuf; /* ... send buffer size */
	uint64_t rs_fallback_not_mappable;	/* ... memory not registered */
	uint64_t rs_reply_waits_for_send;	/* Reply came before the Send completed */
	uint64_t rs_inline_granted;	/* max_inline_data the QP really granted */
	uint64_t rs_wakeups;		/* sleeps on the completion channel */
	uint64_t rs_busy_poll_hits;	/* spins that found a completion */
	uint64_t rs_busy_poll_misses;	/* spins that ran out and went to sleep */
	uint64_t rs_empty_polls;	/* CQ polls that found nothing */
	uint64_t rs_stalled_conns;	/* server: connections torn down because their Sends stalled */
	/* Chunks (appended: programs built against an older header read a prefix). */
	uint64_t rs_read_chunk_calls;	/* Calls with a read list (RDMA_MSG) */
	uint64_t rs_read_chunk_bytes;	/* bytes those Read chunks offered */
	uint64_t rs_long_calls;		/* Calls sent whole as a position-zero Read chunk */
	uint64_t rs_long_call_bytes;	/* their bytes */
	uint64_t rs_reply_chunks;	/* Reply chunks offered */
	uint64_t rs_reply_chunk_replies; /* Replies that came in a Reply chunk (RDMA_NOMSG) */
	uint64_t rs_reply_chunk_bytes;	/* bytes written into Reply chunks */
	uint64_t rs_write_chunks;	/* Write chunks offered (zero-copy results) */
	uint64_t rs_write_chunk_bytes;	/* bytes the peer wrote into them */
	uint64_t rs_write_chunks_unused; /* offered but returned empty (data came inline) */
	uint64_t rs_chunk_regs;		/* per-RPC remote registrations made */
	uint64_t rs_chunk_deregs;	/* ... and revoked */
	uint64_t rs_err_chunk;		/* client: RDMA_ERROR/ERR_CHUNK answers */
	uint64_t rs_bad_chunks;		/* client: Replies whose chunks were not what we offered */
	uint64_t rs_reply_chunk_retries; /* client: Calls sent again with a Reply chunk after ERR_CHUNK */
	uint64_t rs_spilled_calls;	/* client: Calls encoded whole, copied, past the slot's scratch */
	uint64_t rs_reconnects;		/* client: connections made again after a loss */
	uint64_t rs_reconnect_failures;	/* client: attempts that failed */
	uint64_t rs_retransmits;	/* client: Calls sent again, same xid, on a new connection */
	uint64_t rs_credit_recoveries;	/* client: reconnections because abandoned calls held every credit */
	/* The server's chunk pool (appended). */
	uint64_t rs_pool_bufs;		/* chunk buffers taken from the library's pool */
	uint64_t rs_pool_user_bufs;	/* ... from regions given by svc_rdma_pool_add */
	uint64_t rs_pool_fallbacks;	/* ... registered for one Call: no pool had room */
	uint64_t rs_pool_failures;	/* no memory at all: the Call got ERR_CHUNK */
	uint64_t rs_pool_pinned;	/* bytes registered for chunks now (pool + fallbacks) */
	uint64_t rs_pool_pinned_peak;	/* the most rs_pool_pinned has been */
	uint64_t rs_chunk_limit;	/* server: Calls answered ERR_CHUNK for going over a chunk limit */
	uint64_t rs_conns_accepted;	/* server: connections accepted */
	uint64_t rs_conns_refused;	/* server: connection requests rejected (max_connections, setup) */
	uint64_t rs_conns_lost;		/* server: connections the peer closed or the fabric lost */
	uint64_t rs_conns_freed;	/* server: connections torn down, everything they held freed */
	uint64_t rs_idle_closed;	/* server: connections closed after idle_timeout_ms without a Call */
	uint64_t rs_conn_mem_limit;	/* server: Calls answered ERR_CHUNK, connections refused, for max_conn_memory */
	/* The RDMA Read/Write engine (appended). */
	uint64_t rs_cqe_unknown;	/* completions with no context or of an unknown kind: refused, the connection failed */
	uint64_t rs_reads_peak;		/* server: the most RDMA Reads outstanding at once on a connection (listener: on any) */
	/* Fair service and stall budgets (appended). */
	uint64_t rs_turns_yielded;	/* server: turns a connection ended with Calls left, its budget spent */
	uint64_t rs_forced_leads;	/* server, threaded: polls of the CM channel and every CQ made
					 * before serving more Calls of busy connections */
	uint64_t rs_stall_refused;	/* server: connection requests refused: their peer address stalled
					 * a serving thread within the last 30 x svc_stall_ms */
	/* The duplicate request cache (drc_size, appended). */
	uint64_t rs_drc_hits;		/* server: retransmitted Calls answered with the kept Reply */
	uint64_t rs_drc_misses;		/* server: Calls looked up and executed */
	uint64_t rs_drc_inprog_drops;	/* server: retransmissions dropped, the first copy still running */
	uint64_t rs_drc_evictions;	/* server: kept Replies dropped for room, stale or too large */
	/* Calls at the limits (appended). */
	uint64_t rs_calls_refused;	/* client: calls failed before any Send (also in rs_calls) */
	uint64_t rs_reply_too_large;	/* client: ERR_CHUNK taken as a Reply larger than offered */
	/* Send With Invalidate, RFC 8797 (appended). */
	uint64_t rs_remote_inv_sends;	/* server: Replies sent With Invalidate of the Call's one rkey */
	uint64_t rs_remote_invs;	/* client: Replies whose Send invalidated one of the call's
					 * rkeys (a window's own invalidation skipped) */
	/* Memory a connection keeps registered (appended). */
	uint64_t rs_ring_pinned;	/* bytes registered for the send and receive buffers now: the
					 * connection's (a listener: every connection it holds) */
	uint64_t rs_window_pinned;	/* client: bytes of Reply-chunk buffers registered under
					 * memory windows now, one per call slot that offered one */
	uint64_t rs_window_fallbacks;	/* client: Reply chunks registered per RPC where windows work,
					 * the call's slot past reply_windows */
	/* Shared receive queues and credits granted by need (appended). */
	uint64_t rs_srq_posted;		/* server: shared receives posted now (a listener: all its queues) */
	uint64_t rs_srq_in_use;		/* server: shared receive buffers not posted now: holding a Call */
	uint64_t rs_srq_pinned;		/* server: bytes registered for shared receive buffers */
	uint64_t rs_srq_committed;	/* server: Calls the clients may still send into them */
	uint64_t rs_grant_min;		/* server: least grant of a live connection (a connection: its own) */
	uint64_t rs_grant_max;		/* server: largest grant of a live connection */
	uint64_t rs_grant_sum;		/* server: grants of the live connections, summed */
	uint64_t rs_credit_raises;	/* server: Replies that granted more than the last */
	uint64_t rs_credit_cuts;	/* server: Replies that granted less than the last */
	uint64_t rs_grant_exceeded;	/* server: connections closed for sending Calls past their grant */
	uint64_t rs_grant_overcommits;	/* server: times more Calls were allowed than receives posted
					 * (never, unless the library is wrong or peers past their
					 * grants outran the reserve) */
	uint64_t rs_srq_fallbacks;	/* server: connections on receive rings of their own because the
					 * device has no shared receive queues */
	uint64_t rs_recv_downgrades;	/* server: connections told a smaller receive size than their
					 * client offered, its class's queue being full */
	uint64_t rs_srq_limit_events;	/* server: times a shared receive queue's posted receives fell
					 * below an eighth of its buffers (the device's SRQ limit event) */
	uint64_t rs_reply_copies;	/* server: svc_sendreply() Replies whose referenced results were
					 * copied (pulled up, or into a chunk-pool buffer sent from there)
					 * so that no thread waits for their Send to complete */
	uint64_t rs_replies_parked;	/* server: Replies that found every send context or all the
					 * send-queue room for RDMA Writes of their connection held,
					 * and were queued, owned, to be posted as its Sends complete */
	uint64_t rs_reads_deferred;	/* server, svc_run: Calls whose RDMA Reads were still under way
					 * when the thread went on to other connections (dispatched
					 * when they complete) */
	uint64_t rs_srq_refills;	/* server: posts that gave served Calls' buffers back to a shared
					 * receive queue, each a batch (rs_recv_posted / rs_srq_refills:
					 * buffers per post) */
	uint64_t rs_reads_queued;	/* server, service threads: Calls with Read chunks that waited at
					 * the head of their connection's queue, more of them pulling at
					 * once than the listener has service threads */
	uint64_t rs_writes_ahead;	/* server: chains of RDMA Writes posted ahead of their Reply's
					 * Send, more Writes than one chain in front of it holds (a Reply
					 * with several Write chunks); nobody waits for them */
	/* Append new counters here, never anywhere else (rpcrdma(7), ABI). */
};
#define RPCRDMA_STATS_SIZE_0_1 \
	(offsetof(struct rpcrdma_stats, rs_remote_invs) + sizeof(uint64_t))
#ifdef __cplusplus	/* no brace form without -Wmissing-field-initializers */
static inline struct rpcrdma_stats rpcrdma_stats_init_(void)
{
	struct rpcrdma_stats s = {};

	s.rs_size = sizeof(s);
	return s;
}
#define RPCRDMA_STATS_INIT	rpcrdma_stats_init_()
#else
#define RPCRDMA_STATS_INIT	{ .rs_size = sizeof(struct rpcrdma_stats) }
#endif

/* clnt_control(3) requests understood by RDMA clients, beside libtirpc's. */
#define RPCRDMA_CLGET_STATS	0x52440001	/* struct rpcrdma_stats * */
#define RPCRDMA_CLSET_REPLY_HINT 0x52440002	/* struct rpcrdma_reply_hint * */

/* The largest Reply a procedure can draw (0: unknown, ro_max_reply). */
struct rpcrdma_reply_hint {
	uint32_t rh_size;		/* sizeof(struct rpcrdma_reply_hint) */
	uint32_t rh_proc;		/* procedure number, below RPCRDMA_MAX_HINTS */
	uint32_t rh_max_reply;		/* bytes of RPC Reply, not counting RDMA headers */
	/* Append new fields here; the library refuses one it does not know
	 * set to anything but 0. */
};
#define RPCRDMA_REPLY_HINT_SIZE_0_1 \
	(offsetof(struct rpcrdma_reply_hint, rh_max_reply) + sizeof(uint32_t))
#define RPCRDMA_MAX_HINTS	64

/*
 * Zero-copy results: the next clnt_call(3) this thread makes on @cl
 * offers [rb_addr, rb_addr+rb_len) as a Write chunk; the result opaque
 * the decoder decodes into rb_addr (set the result's data pointer to it
 * before the call) is placed there by the server with RDMA Write.  After
 * the call rb_written holds the bytes the server wrote (0: it sent the
 * data inline, copied into the buffer as usual).  Set rb_size to
 * sizeof(struct rpcrdma_result_buf).  See clnt_rdma_set_result_buf(3).
 */
struct rpcrdma_result_buf {
	uint32_t rb_size;		/* sizeof(struct rpcrdma_result_buf) */
	uint32_t rb_written;		/* out */
	void *rb_addr;
	size_t rb_len;
	/* Append new fields here; the library refuses one it does not know
	 * set to anything but 0. */
};
#define RPCRDMA_RESULT_BUF_SIZE_0_1 \
	(offsetof(struct rpcrdma_result_buf, rb_len) + sizeof(size_t))
#define RPCRDMA_CLGET_OPTIONS	0x52440003	/* struct rpcrdma_options *: in force */
#define RPCRDMA_CLSET_OPTIONS	0x52440004	/* struct rpcrdma_options *: live keys set */

RPCRDMA_EXPORT CLIENT *clnt_rdma_create(const char *host, const char *port,
					rpcprog_t prog, rpcvers_t vers,
					const struct rpcrdma_options *opts);

/* Register caller memory once, for mapped Sends of many calls. */
struct rpcrdma_mr;
RPCRDMA_EXPORT struct rpcrdma_mr *clnt_rdma_reg_mem(CLIENT *cl, void *addr,
						   size_t len);
RPCRDMA_EXPORT int clnt_rdma_dereg_mem(CLIENT *cl, struct rpcrdma_mr *mr);
RPCRDMA_EXPORT int clnt_rdma_set_result_buf(CLIENT *cl,
					    struct rpcrdma_result_buf *rb);

/*
 * Asynchronous calls: start a call and be told when it ends, from the
 * program's loop (poll clnt_rdma_progress_fd(), call clnt_rdma_progress())
 * or the library's progress thread (clnt_rdma_progress_thread()).  args
 * and res belong to the call until done runs, exactly once.  See
 * clnt_rdma_call_async(3).
 */
RPCRDMA_EXPORT int clnt_rdma_call_async(CLIENT *cl, rpcproc_t proc,
					xdrproc_t xargs, void *args,
					xdrproc_t xres, void *res,
					struct timeval timeout,
					void (*done)(CLIENT *cl,
						     enum clnt_stat st,
						     void *arg),
					void *arg);
RPCRDMA_EXPORT int clnt_rdma_progress(CLIENT *cl, int timeout_ms);
RPCRDMA_EXPORT int clnt_rdma_progress_fd(CLIENT *cl);
RPCRDMA_EXPORT int clnt_rdma_progress_thread(CLIENT *cl);

RPCRDMA_EXPORT SVCXPRT *svc_rdma_create(const char *host, const char *port,
					const struct rpcrdma_options *opts);
RPCRDMA_EXPORT int svc_rdma_get_stats(SVCXPRT *xprt,
				      struct rpcrdma_stats *stats);
/* svc_sendreply() that never waits for the Reply's Send: done frees res. */
RPCRDMA_EXPORT bool_t svc_rdma_sendreply_async(SVCXPRT *xprt, xdrproc_t xres,
					       void *res,
					       void (*done)(void *arg, int status),
					       void *arg);
/* The options in force on a listener or one of its connections. */
RPCRDMA_EXPORT int svc_rdma_get_options(SVCXPRT *xprt,
					struct rpcrdma_options *opts);
/* Change live keys on a connection, or a listener and all its connections. */
RPCRDMA_EXPORT int svc_rdma_set_options(SVCXPRT *xprt,
					const struct rpcrdma_options *opts);

/*
 * The server's chunk pool: the PD a listener's connections on a device
 * use (verbs NULL: the device the listener is bound to), and a region the
 * program registered on it, used before the library's own pool.  See
 * svc_rdma_pool_add(3).
 */
struct ibv_context;
struct ibv_pd;
struct ibv_mr;
RPCRDMA_EXPORT struct ibv_pd *svc_rdma_get_pd(SVCXPRT *listener,
					      struct ibv_context *verbs);
RPCRDMA_EXPORT int svc_rdma_pool_add(SVCXPRT *listener, struct ibv_mr *mr);

struct pollfd;
/* For programs with their own thread or event loop instead of svc_run(). */
RPCRDMA_EXPORT int svc_rdma_pollfds(SVCXPRT *listener, struct pollfd *fds,
				    int max);
RPCRDMA_EXPORT int svc_rdma_serve(SVCXPRT *listener, int timeout_ms);

/*
 * The netids "rdma" and "rdma6" (RFC 8166), absent from /etc/netconfig:
 * a struct netconfig to pass to svc_reg(3) (which then registers the
 * listener with rpcbind) and the like; free it with freenetconfigent(3).
 * NULL with errno ENOENT for any other netid.  With a NULL port,
 * clnt_rdma_create() asks rpcbind for the port, svc_rdma_create() uses
 * the "port" key (default RPCRDMA_DEFAULT_PORT).
 */
#define RPCRDMA_DEFAULT_PORT	20049
struct netconfig;
RPCRDMA_EXPORT struct netconfig *rpcrdma_getnetconfigent(const char *netid);

/*
 * Credentials (rpcrdma_thread_own_creds(3)): the calling thread will change
 * its own credentials (setfsuid, syscall(SYS_setresuid...)); the library
 * makes its verbs and CM calls for it on a thread that never changes them.
 */
RPCRDMA_EXPORT int rpcrdma_thread_own_creds(void);

/*
 * What a socket query would learn from a transport's descriptor (xp_fd,
 * CLGET_FD): rpcrdma_fd_sockinfo(3).  Set si_size before asking (struct
 * rpcrdma_sockinfo si = RPCRDMA_SOCKINFO_INIT).
 */
#define RPCRDMA_SI_LISTENER	0x1	/* a listener's xp_fd */
#define RPCRDMA_SI_CONNECTION	0x2	/* a server connection's xp_fd */
#define RPCRDMA_SI_CLIENT	0x4	/* a client's CLGET_FD */
struct rpcrdma_sockinfo {
	uint32_t si_size;		/* in: sizeof(struct rpcrdma_sockinfo) the program knows */
	uint32_t si_lib_size;		/* out: sizeof(struct rpcrdma_sockinfo) in the library */
	uint32_t si_flags;		/* RPCRDMA_SI_*: what the descriptor is */
	int32_t si_type;		/* SOCK_STREAM, as SO_TYPE answers */
	int32_t si_family;		/* AF_INET or AF_INET6, as SO_DOMAIN */
	int32_t si_protocol;		/* IPPROTO_TCP, as SO_PROTOCOL */
	struct sockaddr_storage si_local;	/* as getsockname(2) */
	struct sockaddr_storage si_peer;	/* as getpeername(2); AF_UNSPEC for a listener */
	/* Append new fields here, never anywhere else (rpcrdma(7), ABI). */
};
#define RPCRDMA_SOCKINFO_SIZE_0_1 \
	(offsetof(struct rpcrdma_sockinfo, si_peer) + sizeof(struct sockaddr_storage))
#ifdef __cplusplus
#define RPCRDMA_SOCKINFO_INIT	rpcrdma_sockinfo_init_()
static inline struct rpcrdma_sockinfo rpcrdma_sockinfo_init_(void)
{
	struct rpcrdma_sockinfo s = {};

	s.si_size = sizeof(s);
	return s;
}
#else
#define RPCRDMA_SOCKINFO_INIT	{ .si_size = sizeof(struct rpcrdma_sockinfo) }
#endif
/* 0 for a transport descriptor; -1 with errno ENOTSOCK for any other. */
RPCRDMA_EXPORT int rpcrdma_fd_sockinfo(int fd, struct rpcrdma_sockinfo *si);

#ifdef __cplusplus
}
#endif
#endif /* RPCRDMA_RPCRDMA_H */
