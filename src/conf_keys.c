/*
 * The key table: every tunable of the transports, once.  A row gives the
 * key's name (also its RPCRDMA_<KEY> variable and its ro_<key> field), type,
 * range, default, where it may be set, and a one-line summary; the parser,
 * rpcrdma_options_init(), rpcrdma-conf and the man-page test all read it.
 */
#include <stddef.h>
#include <rpcrdma/rpcrdma.h>
#include "options.h"
#include "rchunks.h"

static const char *const strategies[] = { "auto", "inline", "pullup", "mapped", NULL };
static const char *const levels[] = { "off", "error", "warning", "debug", NULL };
static const char *const call_chunks[] = { "auto", "read", "long", NULL };
static const char *const reply_chunks[] = { "auto", "always", "never", NULL };

#define C RPCRDMA_CS_CLIENT
#define S RPCRDMA_CS_SERVER
#define D RPCRDMA_CS_DEVICE
#define L RPCRDMA_CS_LIVE
#define OFF(f) offsetof(struct rpcrdma_options, f)

const struct rpcrdma_conf_key rpcrdma_keys[] = {
	{ "max_requests", RPCRDMA_CT_UINT, 1, 1024, 128, 0, 0, NULL, C | S,
	  OFF(ro_max_requests), "credits asked (client) or granted (server)" },
	{ "inline_send", RPCRDMA_CT_SIZE, 1024, 262144, 66560, 1024, 0, NULL, C | S,
	  OFF(ro_inline_send), "largest Send offered (RFC 8797)" },
	{ "inline_recv", RPCRDMA_CT_SIZE, 1024, 262144, 17408, 1024, 0, NULL, C | S,
	  OFF(ro_inline_recv), "largest Send received (RFC 8797); receive buffer size; server: 66560" },
	{ "send_buffer", RPCRDMA_CT_SIZE, 1024, 262144, 17408, 1024, 0, NULL, C | S,
	  OFF(ro_send_buffer), "registered send buffer size, at most inline_send; larger Sends are mapped" },
	{ "max_inline_data", RPCRDMA_CT_SIZE, 0, 4096, 256, 0, 0, NULL, C | S | D,
	  OFF(ro_max_inline_data), "IBV_SEND_INLINE size asked at QP creation" },
	{ "send_strategy", RPCRDMA_CT_ENUM, 0, 3, RPCRDMA_SEND_AUTO, 0, 0, strategies,
	  C | S | D | L, OFF(ro_send_strategy), "how Sends are built: auto, inline, pullup, mapped" },
	{ "inline_cutoff", RPCRDMA_CT_SIZE, 0, 262144, 256, 0, 0, NULL, C | S | D | L,
	  OFF(ro_inline_cutoff), "auto: largest Send posted inline" },
	{ "mapped_min", RPCRDMA_CT_SIZE, 0, 1u << 30, 65536, 0, 0, NULL, C | S | D | L,
	  OFF(ro_mapped_min), "auto: referenced bytes from which a message is mapped" },
	{ "signal_every", RPCRDMA_CT_UINT, 1, 1024, 8, 0, 0, NULL, C | S | D,
	  OFF(ro_signal_every), "signal one unsignaled Send in this many" },
	{ "page_threshold", RPCRDMA_CT_SIZE, 0, 1u << 30, 1024, 0, 0, NULL, C | S | D | L,
	  OFF(ro_page_threshold), "opaques this long are referenced, not copied; 0: never" },
	{ "mr_cache", RPCRDMA_CT_UINT, 0, 65536, 0, 0, 0, NULL, C | S | D,
	  OFF(ro_mr_cache), "hot-path registrations kept for reuse; 0: none" },
	{ "busy_poll_us", RPCRDMA_CT_DURATION, 0, 1000000, 300, 0, 1, NULL, C | S | D | L,
	  OFF(ro_busy_poll_us), "spin on the CQ at most this long before sleeping; how long is learned" },
	{ "busy_poll_alone_us", RPCRDMA_CT_DURATION, 0, 1000000, 0, 0, 1, NULL, C | D | L,
	  OFF(ro_busy_poll_alone_us), "client: busy_poll_us while a call is alone in flight, if larger" },
	{ "svc_threads", RPCRDMA_CT_UINT, 0, 64, 0, 0, 0, NULL, S,
	  OFF(ro_svc_threads), "server: service threads; 0: svc_run() serves" },
	{ "pool_size", RPCRDMA_CT_SIZE, 0, 1u << 30, 16u << 20, 0, 0, NULL, S,
	  OFF(ro_pool_size), "server: registered chunk pool per device; 0: none" },
	/* The three bounds' defaults and their reasons: rpcrdma.conf(5). */
	{ "max_connections", RPCRDMA_CT_UINT, 0, 1000000, 1000, 0, 0, NULL, S,
	  OFF(ro_max_connections), "server: connections per listener; 0: no limit" },
	{ "recv_buffers", RPCRDMA_CT_UINT, 0, 1048576, 512, 0, 0, NULL, S,
	  OFF(ro_recv_buffers), "server: receive buffers one shared receive queue grows to (per device and size class); 0: rings per connection" },
	{ "max_conn_memory", RPCRDMA_CT_SIZE, 0, 4095u << 20, 64u << 20, 0, 0, NULL, S,
	  OFF(ro_max_conn_memory), "server: memory one connection may hold, rings and chunks; 0: no limit" },
	{ "idle_timeout_ms", RPCRDMA_CT_DURATION, 0, 86400000, 360000, 0, 1000, NULL, S,
	  OFF(ro_idle_timeout_ms), "server: close a connection without a Call this long; 0: never" },
	{ "svc_stall_ms", RPCRDMA_CT_DURATION, 10, 600000, 1000, 0, 1000, NULL, S,
	  OFF(ro_svc_stall_ms), "server: longest one connection may block a serving thread; its peer is then refused a while" },
	{ "drc_size", RPCRDMA_CT_UINT, 0, 1000000, 0, 0, 0, NULL, S,
	  OFF(ro_drc_size), "server: Replies kept for retransmitted Calls (duplicate request cache); 0: off" },
	{ "port", RPCRDMA_CT_UINT, 1, 65535, RPCRDMA_DEFAULT_PORT, 0, 0, NULL, C | S,
	  OFF(ro_port), "port when the program passes none (a client asks rpcbind first)" },
	{ "rpcbind_timeout_ms", RPCRDMA_CT_DURATION, 1, 600000, 2000, 0, 1000, NULL, C,
	  OFF(ro_rpcbind_timeout_ms), "client: bound on asking rpcbind for the port" },
	{ "connect_timeout_ms", RPCRDMA_CT_DURATION, 1, 600000, 5000, 0, 1000, NULL, C,
	  OFF(ro_connect_timeout_ms), "client: bound on resolution and connection" },
	{ "call_timeout_ms", RPCRDMA_CT_DURATION, 0, 86400000, 0, 0, 1000, NULL, C,
	  OFF(ro_call_timeout_ms), "client: timeout of every call; 0: clnt_call's" },
	{ "source", RPCRDMA_CT_STRING, 0, 0, 0, 0, 0, NULL, C,
	  OFF(ro_source), "client: local address to connect from" },
	{ "max_reply", RPCRDMA_CT_SIZE, 0, 64u << 20, (1u << 20) + 4096, 0, 0, NULL, C,
	  OFF(ro_max_reply), "client: Reply chunk offered when a Reply's size is unknown; 0: none" },
	{ "call_chunks", RPCRDMA_CT_ENUM, 0, 2, RPCRDMA_CALL_CHUNKS_AUTO, 0, 0, call_chunks,
	  C, OFF(ro_call_chunks), "client: Calls over the threshold: auto, read, long" },
	{ "reply_chunks", RPCRDMA_CT_ENUM, 0, 2, RPCRDMA_REPLY_CHUNK_AUTO, 0, 0, reply_chunks,
	  C, OFF(ro_reply_chunks), "client: when a Reply chunk is offered: auto, always, never" },
	{ "reply_windows", RPCRDMA_CT_UINT, 0, 1024, 4, 0, 0, NULL, C,
	  OFF(ro_reply_windows), "client: call slots whose Reply chunk goes through a memory window, max_reply kept registered each" },
	{ "reconnect_tries", RPCRDMA_CT_UINT, 0, 1000000, 10, 0, 0, NULL, C,
	  OFF(ro_reconnect_tries), "client: reconnection attempts after a loss; 0: off" },
	{ "reconnect_timeout_ms", RPCRDMA_CT_DURATION, 0, 86400000, 30000, 0, 1000, NULL, C,
	  OFF(ro_reconnect_timeout_ms), "client: stop reconnecting this long after a loss; 0: never" },
	{ "max_chunk_bytes", RPCRDMA_CT_SIZE, 1024, RPCRDMA_SVC_CHUNK_BYTES,
	  RPCRDMA_SVC_CHUNK_BYTES, 0, 0, NULL, S, OFF(ro_max_chunk_bytes),
	  "server: bytes one Call's Read chunks, or one Reply's chunks, may move" },
	{ "max_chunk_segs", RPCRDMA_CT_UINT, 1, RPCRDMA_MAX_CHUNK_SEGS,
	  RPCRDMA_MAX_CHUNK_SEGS, 0, 0, NULL, S, OFF(ro_max_chunk_segs),
	  "server: segments in one Read, Write or Reply chunk" },
	{ "max_chunks", RPCRDMA_CT_UINT, 1, RPCRDMA_MAX_READ_SEGS, RPCRDMA_MAX_READ_SEGS,
	  0, 0, NULL, S, OFF(ro_max_chunks),
	  "server: Read chunks in a read list, Write chunks in a write list" },
	{ "log_level", RPCRDMA_CT_ENUM, 0, 3, RPCRDMA_LOG_WARNING, 0, 0, levels, C | S,
	  OFF(ro_log_level), "messages to stderr: off, error, warning, debug" },
};

const size_t rpcrdma_nkeys = sizeof(rpcrdma_keys) / sizeof(rpcrdma_keys[0]);

/*
 * Built-in defaults that differ by driver (rpcrdma.conf(5), "DRIVER
 * DEFAULTS"); only keys a [device] section may set, as they apply once
 * the device is known.
 */
const struct rpcrdma_driver_default rpcrdma_driver_defaults[] = {
	/* Why: on siw, round trips of 4-16 KiB took 14-43% less time with
	 * every Send signaled than with one in 8 (siw treats unsignaled WRs
	 * apart: verbs_post.c, WRITE_FLAGS); at depth a completion per Send
	 * cost nothing measurable. */
	{ RPCRDMA_DRV_SIW, "signal_every", 1 },
	/* Why: siw's round trips of 4-16 KiB take 0.2-1.5 ms under
	 * emulation, longer than the 300 us spin, so each one slept and paid
	 * a wake-up; a learned spin of up to 2 ms lets them be spun for, and
	 * costs little where completions come later still (spinning then
	 * stops: spin.c).  Not on rxe: there it cost 20-30% at 32 in flight
	 * (the spinner takes CPU time rxe's kernel work needs). */
	{ RPCRDMA_DRV_SIW, "busy_poll_us", 2000 },
	/* Why: with one call in flight on rxe, a client that spins up to 3 ms
	 * instead of 300 us took 9-49% less time per 4 or 16 KiB call (3
	 * rounds in one boot, 1 of 18 cells 12% slower; the server keeps
	 * 300); at depth the bound stays 300, as a longer one cost 20-30%. */
	{ RPCRDMA_DRV_RXE, "busy_poll_alone_us", 3000 },
};

const size_t rpcrdma_ndriver_defaults =
	sizeof(rpcrdma_driver_defaults) / sizeof(rpcrdma_driver_defaults[0]);

/*
 * Built-in defaults that differ by role (rpcrdma.conf(5), the keys'
 * entries).  Why a server receives 65 KiB: a Call carrying 64 KiB of
 * data then comes in one Send, not as a Read chunk the server must
 * fetch by RDMA Read, a round trip that cost siw more than the Send
 * itself; its rings are sized to each client's offer (transport.c), so
 * only clients that offer large Sends cost the larger buffers.  A
 * client keeps 17 KiB: its Replies' large data comes by RDMA Write.
 */
const struct rpcrdma_role_default rpcrdma_role_defaults[] = {
	{ RPCRDMA_CS_SERVER, "inline_recv", 66560 },
};

const size_t rpcrdma_nrole_defaults =
	sizeof(rpcrdma_role_defaults) / sizeof(rpcrdma_role_defaults[0]);
