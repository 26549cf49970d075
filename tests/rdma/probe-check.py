#!/usr/bin/env python3
"""The USDT probe test's verdict (probe-cases.sh): the counts bpftrace
printed (probe-count.bt) against the counters probe_client and echo_server
printed.  Each probe must have fired as often as its counter moved, and
the paths the run must reach (chunks, RDMA_ERROR) must have been reached.
Usage: probe-check.py BPFTRACE_OUT CLIENT_OUT SERVER_OUT"""
import re
import sys

bt, cli, srv = (open(p).read() for p in sys.argv[1:4])
n, s, last = {}, {}, {}
for m in re.finditer(r"^@(\w+)\[(.*)\]: (-?\d+)$", bt, re.M):
    key = tuple(k.strip() for k in m.group(2).split(","))
    role = ("client" if "probe_client" in key[0] else
            "server" if "echo_server" in key[0] else "other")
    d = {"n": n, "s": s, "last": last}[m.group(1)]
    k = (role,) + key[2:]                   # key[1]: the pid
    d[k] = d.get(k, 0) + int(m.group(3))


def N(role, probe, arg=None, contains=None):
    return sum(v for k, v in n.items() if k[0] == role and k[1] == probe and
               (arg is None or k[2] == arg) and
               (contains is None or contains in k[2]))


c = {}
for m in re.finditer(r"^([AB]) (\w+) (\d+)$", cli, re.M):
    if m.group(2) == "credits_granted":
        c[m.group(2)] = int(m.group(3))    # B's: the last grant
    else:
        c[m.group(2)] = c.get(m.group(2), 0) + int(m.group(3))
sv = {}
for line in srv.splitlines():
    if line.startswith("server: calls "):
        w = line.split()[1:]
        sv = {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}
if not c or not sv:
    print("FAIL: no counters from the client or the server")
    sys.exit(1)

checks = [
    # (what, probe side, counter side)
    ("client send_posted inline == rs_inline_sends",
     N("client", "send_posted", "inline"), c["inline_sends"]),
    ("client send_posted pullup == rs_pullup_sends",
     N("client", "send_posted", "pullup"), c["pullup_sends"]),
    ("client send_posted mapped == rs_mapped_sends",
     N("client", "send_posted", "mapped"), c["mapped_sends"]),
    ("marshal == rs_calls + rs_reply_chunk_retries + rs_retransmits",
     N("client", "marshal"),
     c["calls"] + c["reply_chunk_retries"] + c["retransmits"]),
    ("marshal 'read list' == rs_read_chunk_calls",
     N("client", "marshal", "read list"), c["read_chunk_calls"]),
    ("marshal 'long call' == rs_long_calls",
     N("client", "marshal", "long call"), c["long_calls"]),
    ("marshal reply 'reply chunk' == rs_reply_chunks",
     N("client", "marshal_reply", contains="reply chunk"), c["reply_chunks"]),
    ("marshal reply 'write list' == rs_write_chunks",
     N("client", "marshal_reply", contains="write list"), c["write_chunks"]),
    ("chunk_reg sum == rs_chunk_regs",
     s.get(("client", "chunk_reg"), 0), c["chunk_regs"]),
    ("chunk_inval sum == rs_chunk_deregs",
     s.get(("client", "chunk_inval"), 0), c["chunk_deregs"]),
    ("reply == rs_replies", N("client", "reply"), c["replies"]),
    ("err_recv ERR_CHUNK == rs_err_chunk",
     N("client", "err_recv", "err_chunk"), c["err_chunk"]),
    ("client credits == rs_replies", N("client", "credits"), c["replies"]),
    ("client last credits == rs_credits_granted",
     last.get(("client", "credits"), -1), c["credits_granted"]),
    ("connect ok == 2 handles", N("client", "connect", "ok"), 2),
    ("reconnect ok == rs_reconnects",
     N("client", "reconnect", "ok"), c["reconnects"]),
    ("reconnect failed == rs_reconnect_failures",
     N("client", "reconnect", "failed"), c["reconnect_failures"]),
    ("retransmit == rs_retransmits",
     N("client", "retransmit"), c["retransmits"]),
    ("svc_accept == rs_conns_accepted",
     N("server", "svc_accept"), sv["conns_accepted"]),
    ("svc_teardown == rs_conns_accepted (all torn down by svc_destroy)",
     N("server", "svc_teardown"), sv["conns_accepted"]),
    ("svc_recv inline + read chunks == rs_calls",
     N("server", "svc_recv", "inline") + N("server", "svc_recv", "read chunks"),
     sv["calls"]),
    ("svc_err_send == rs_bad_calls",
     N("server", "svc_err_send"), sv["bad_calls"]),
    ("svc_reply == rs_replies", N("server", "svc_reply"), sv["replies"]),
    ("server send_posted pullup == rs_pullup_sends",
     N("server", "send_posted", "pullup"), sv["pullup_sends"]),
]
# Bounds where a counter is read before the program's last events.
bounds = [
    ("client send_completed ok <= rs_signaled_sends",
     N("client", "send_completed", "ok") <= c["signaled_sends"]),
    ("client send_completed ok >= 1", N("client", "send_completed", "ok") >= 1),
    ("svc_teardown >= rs_conns_freed at the server's print",
     N("server", "svc_teardown") >= sv["freed"] >= 1),
    ("disconnect >= 2 (each handle destroyed)",
     N("client", "disconnect") >= 2),
    ("server credits >= rs_replies", N("server", "credits") >= sv["replies"]),
]
# The paths this run must have reached, or the equalities prove little.
reached = [
    ("a Read chunk", c["read_chunk_calls"] + c["long_calls"]),
    ("a Reply chunk", c["reply_chunks"]),
    ("a Write chunk", c["write_chunks"]),
    ("a registration", c["chunk_regs"]),
    ("RDMA_ERROR received", c["err_chunk"]),
    ("RDMA_ERROR sent", sv["bad_calls"]),
    ("server replies in a chunk or write list",
     N("server", "svc_reply", "reply chunk") +
     N("server", "svc_reply", "write list")),
]
bad = 0
for what, probe, counter in checks:
    ok = probe == counter
    bad += not ok
    print("%s %s: probe %d, counter %d" % ("ok  " if ok else "FAIL", what,
                                           probe, counter))
for what, ok in bounds:
    bad += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))
for what, count in reached:
    bad += not count
    print("%s reached %s: %d" % ("ok  " if count else "FAIL", what, count))
sys.exit(1 if bad else 0)
