#!/usr/bin/env python3
"""Checks a short real rpcrdma_bench run (JSON and SVG): every strategy and
baseline ran, the librpcrdma counters show each forced strategy carried its
messages (or counted a fallback), sizes over the inline threshold ran
(through chunks) and were verified like the others, and the plot has a
series per strategy.

    bench-check.py RUN.json RUN.svg INLINE_MAX
"""
import json
import sys
import xml.etree.ElementTree as ET

RPC = ["inline", "pullup", "mapped", "auto"]
ALL = RPC + ["raw-poll", "raw-event", "raw-write", "raw-read", "tcp"]
SEND_KEY = {"inline": "inline_sends", "pullup": "pullup_sends",
            "mapped": "mapped_sends"}

errors = []


def fail(msg):
    errors.append(msg)


def sends(k):
    return k["inline_sends"] + k["pullup_sends"] + k["mapped_sends"]


def check_counters(c):
    where = "%s %s B x%d %s" % (c["workload"], c["size"], c["inflight"],
                                c["strategy"])
    for side in ("client", "server"):
        k = c["counters"][side]
        # One Send per Call (client) or per Reply (server), by some strategy.
        if sends(k) != k["calls"]:
            fail("%s: %s Sends %d != calls %d" % (where, side, sends(k),
                                                  k["calls"]))
        if k["calls"] < c["calls"]:
            fail("%s: %s counted %d calls, the cell made %d" %
                 (where, side, k["calls"], c["calls"]))
        st = c["strategy"]
        if st in SEND_KEY and k[SEND_KEY[st]] + k["fallbacks"] != sends(k):
            fail("%s: %s messages not carried by %s and not counted as "
                 "fallbacks" % (where, side, st))


def main():
    cells = json.load(open(sys.argv[1]))
    inline_max = int(sys.argv[3])
    ok = {s: 0 for s in ALL}
    carried = {s: 0 for s in SEND_KEY}
    chunked = {"write": 0, "read": 0, "echo": 0}
    for c in cells:
        st = c["strategy"]
        if c["status"] == "failed":
            fail("%s %s B x%d %s failed: %s" % (c["workload"], c["size"],
                 c["inflight"], st, c["note"]))
            continue
        big = c["size"] > inline_max and c["workload"] != "null"
        if st in RPC and big:
            chunked[c["workload"]] += 1
        if c["status"] != "ok":
            fail("%s %s B %s: status %s" % (c["workload"], c["size"], st,
                                            c["status"]))
            continue
        if c["calls"] <= 0 or c["calls_per_s"] <= 0 or c["lat_us"]["p50"] <= 0:
            fail("%s %s B %s: no calls measured" % (c["workload"], c["size"],
                                                    st))
            continue
        ok[st] += 1
        if st in RPC:
            if c["counters"] is None:
                fail("%s: librpcrdma cell without counters" % st)
                continue
            check_counters(c)
            if st in carried:
                carried[st] += c["counters"]["client"][SEND_KEY[st]]
            if c["cpu_us_per_call"]["server"] is None:
                fail("%s: no server CPU figure" % st)
    for st in ALL:
        if not ok[st]:
            fail("strategy %s has no measured cell" % st)
    for st, n in carried.items():
        if not n:
            fail("forced %s never carried a Send" % st)
    # Sizes over the inline threshold went through chunks, each workload.
    for w, n in chunked.items():
        if not n:
            fail("no %s cell over the inline threshold (%d B)" % (w, inline_max))

    root = ET.parse(sys.argv[2]).getroot()
    if not root.tag.endswith("svg"):
        fail("the plot's root is %s, not svg" % root.tag)
    series = {g.get("data-strategy") for g in root.iter()
              if g.get("class") == "series"}
    for st in ALL:
        if ok[st] and st not in series:
            fail("the plot has no series for %s" % st)

    for e in errors:
        print("bench-check: " + e)
    print("bench-check: %d cells, %s" % (len(cells),
          "ok" if not errors else "%d problems" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
