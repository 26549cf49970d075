#!/usr/bin/env python3
"""Checks a short real connections sweep of rpcrdma_bench (--conns): every
count ran for auto and tcp at every depth, each of its connections answered
its NULL call, and what each side held moved with the connections: the
server's descriptors by at least one per connection, auto's listener has
shared receive buffers and its client's registered memory grew, TCP's did
not register anything.

    bench-sweep-check.py RUN.json COUNT,COUNT,...
"""
import json
import sys

errors = []


def fail(msg):
    errors.append(msg)


def main():
    cells = json.load(open(sys.argv[1]))
    counts = [int(x) for x in sys.argv[2].split(",")]
    swept = [c for c in cells if c["sweep"]]
    depths = {c["inflight"] for c in cells}
    for s in ("auto", "tcp"):
        for n in counts:
            for q in depths:
                got = [c for c in swept if c["strategy"] == s and
                       c["sweep"]["connections"] == n and c["inflight"] == q]
                where = "%s over %d connections x%d" % (s, n, q)
                if len(got) != 1:
                    fail("%s: %d cells, want 1" % (where, len(got)))
                    continue
                c = got[0]
                sw = c["sweep"]
                if c["status"] != "ok" or c["calls"] < 1:
                    fail("%s: %s %s" % (where, c["status"], c["note"]))
                    continue
                if sw["served"] != n:
                    fail("%s: %d connections answered" % (where, sw["served"]))
                sv, cl = sw["server"], sw["client"]
                if sv is None or cl is None:
                    fail("%s: no holdings" % where)
                    continue
                if sv["fds"] - sv["fds_before"] < n:
                    fail("%s: the server's descriptors went %d -> %d" %
                         (where, sv["fds_before"], sv["fds"]))
                if s == "auto":
                    if sv["recv_bytes"] <= 0 or sv["pin_kb"] <= 0:
                        fail("%s: the server shows no shared receives "
                             "(%d bytes) or VmPin (%d kB)" %
                             (where, sv["recv_bytes"], sv["pin_kb"]))
                    if cl["pin_kb"] <= cl["pin_kb_before"]:
                        fail("%s: the client's VmPin did not grow (%d -> %d kB)"
                             % (where, cl["pin_kb_before"], cl["pin_kb"]))
                elif sv["recv_bytes"] or cl["pin_kb"] > cl["pin_kb_before"]:
                    fail("%s: TCP registered memory" % where)
    for e in errors:
        print("bench-sweep-check: " + e)
    if not errors:
        print("bench-sweep-check: %d sweep cells, every connection served" %
              len(swept))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
