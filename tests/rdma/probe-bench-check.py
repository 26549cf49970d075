#!/usr/bin/env python3
"""The USDT probe test's second part (probe-cases.sh): the probes one
rpcrdma_bench client process fired (probe-count.bt, keyed by pid) against
the sums of its CLIENTs' counters that it wrote with --totals.  Each probe
must have fired as often as its counter moved, and every Send strategy and
the chunk paths must have been reached, or the equalities prove little.
Usage: probe-bench-check.py BPFTRACE_OUT TOTALS_FILE"""
import re
import sys

bt, tot = (open(p).read() for p in sys.argv[1:3])
t = {}
for line in tot.splitlines():
    w = line.split()
    if len(w) == 2 and w[1].isdigit():
        t[w[0]] = int(w[1])
need = ("pid clients rs_calls rs_calls_refused rs_replies rs_inline_sends rs_pullup_sends "
        "rs_mapped_sends rs_read_chunk_calls rs_long_calls rs_reply_chunks "
        "rs_write_chunks rs_chunk_regs rs_chunk_deregs rs_reply_chunk_retries "
        "rs_retransmits rs_err_chunk rs_reconnects rs_reconnect_failures "
        "rs_signaled_sends").split()
missing = [k for k in need if k not in t]
if missing:
    print("FAIL: the totals file lacks " + " ".join(missing))
    sys.exit(1)
pid = str(t["pid"])
print("rpcrdma_bench client pid %s, %d CLIENTs; %s" % (
    pid, t["clients"], ", ".join("%s %d" % (k, v) for k, v in t.items()
                                 if k.startswith("rs_"))))

n, s = {}, {}
for m in re.finditer(r"^@(\w+)\[(.*)\]: (-?\d+)$", bt, re.M):
    key = tuple(k.strip() for k in m.group(2).split(","))
    if m.group(1) not in ("n", "s"):
        continue
    if key[1] != pid:
        continue
    d = n if m.group(1) == "n" else s
    d[key[2:]] = d.get(key[2:], 0) + int(m.group(3))


def N(probe, arg=None, contains=None):
    return sum(v for k, v in n.items() if k[0] == probe and
               (arg is None or k[1] == arg) and
               (contains is None or contains in k[1]))


checks = [
    ("send_posted inline == rs_inline_sends",
     N("send_posted", "inline"), t["rs_inline_sends"]),
    ("send_posted pullup == rs_pullup_sends",
     N("send_posted", "pullup"), t["rs_pullup_sends"]),
    ("send_posted mapped == rs_mapped_sends",
     N("send_posted", "mapped"), t["rs_mapped_sends"]),
    ("send_posted == the three together",
     N("send_posted"),
     t["rs_inline_sends"] + t["rs_pullup_sends"] + t["rs_mapped_sends"]),
    # A call refused before any Send (rs_calls_refused) is in rs_calls
    # but was never marshalled.
    ("marshal == rs_calls - rs_calls_refused + rs_reply_chunk_retries"
     " + rs_retransmits", N("marshal"),
     t["rs_calls"] - t["rs_calls_refused"] + t["rs_reply_chunk_retries"] +
     t["rs_retransmits"]),
    ("marshal 'read list' == rs_read_chunk_calls",
     N("marshal", "read list"), t["rs_read_chunk_calls"]),
    ("marshal 'long call' == rs_long_calls",
     N("marshal", "long call"), t["rs_long_calls"]),
    ("marshal reply 'reply chunk' == rs_reply_chunks",
     N("marshal_reply", contains="reply chunk"), t["rs_reply_chunks"]),
    ("marshal reply 'write list' == rs_write_chunks",
     N("marshal_reply", contains="write list"), t["rs_write_chunks"]),
    ("chunk_reg sum == rs_chunk_regs",
     s.get(("chunk_reg",), 0), t["rs_chunk_regs"]),
    ("chunk_inval sum == rs_chunk_deregs",
     s.get(("chunk_inval",), 0), t["rs_chunk_deregs"]),
    ("reply == rs_replies", N("reply"), t["rs_replies"]),
    ("credits == rs_replies", N("credits"), t["rs_replies"]),
    ("err_recv ERR_CHUNK == rs_err_chunk",
     N("err_recv", "err_chunk"), t["rs_err_chunk"]),
    ("retransmit == rs_retransmits", N("retransmit"), t["rs_retransmits"]),
    ("reconnect ok == rs_reconnects", N("reconnect", "ok"), t["rs_reconnects"]),
    ("reconnect failed == rs_reconnect_failures",
     N("reconnect", "failed"), t["rs_reconnect_failures"]),
    ("no server probe in the client",
     sum(v for k, v in n.items() if k[0].startswith("svc_")), 0),
]
bounds = [
    ("connect ok >= CLIENTs", N("connect", "ok") >= t["clients"]),
    ("disconnect >= CLIENTs (each destroyed)",
     N("disconnect") >= t["clients"]),
    ("send_completed ok <= rs_signaled_sends",
     N("send_completed", "ok") <= t["rs_signaled_sends"]),
    ("send_completed ok >= 1", N("send_completed", "ok") >= 1),
]
reached = [
    ("four CLIENTs (one per strategy)", t["clients"] * (t["clients"] >= 4)),
    ("calls", t["rs_calls"]),
    ("inline Sends", t["rs_inline_sends"]),
    ("pulled-up Sends", t["rs_pullup_sends"]),
    ("mapped Sends", t["rs_mapped_sends"]),
    ("a Read chunk", t["rs_read_chunk_calls"] + t["rs_long_calls"]),
    ("a Reply or Write chunk", t["rs_reply_chunks"] + t["rs_write_chunks"]),
    ("a registration", t["rs_chunk_regs"]),
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
