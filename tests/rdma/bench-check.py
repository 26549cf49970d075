#!/usr/bin/env python3
"""Checks a short real rpcrdma_bench run (JSON and SVG): every strategy and
baseline ran, the librpcrdma counters show each forced strategy carried its
messages (or counted a fallback), sizes over the inline threshold ran
(through chunks) and were verified like the others, and the plot has a
series per strategy; every OK cell has TRIALS trials, its figures are
their medians inside the 95 % intervals, and the winner and tie marks
follow the intervals (a winner's interval clears the other fixed ones').

    bench-check.py RUN.json RUN.svg INLINE_MAX TRIALS
"""
import json
import sys
import xml.etree.ElementTree as ET

RPC = ["inline", "pullup", "mapped", "auto"]
ALL = RPC + ["raw-poll", "raw-event", "raw-write", "raw-read", "tcp", "async"]
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


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def check_trials(c, want):
    where = "%s %s B x%d %s" % (c["workload"], c["size"], c["inflight"],
                                c["strategy"])
    t = c["trials"]
    if len(t["calls_per_s"]) != want or len(t["p50"]) != want:
        fail("%s: %d/%d trials, want %d" % (where, len(t["calls_per_s"]),
                                            len(t["p50"]), want))
        return
    for key, got, ci in (("calls_per_s", c["calls_per_s"], c["calls_per_s_ci"]),
                         ("p50", c["lat_us"]["p50"], c["p50_ci"])):
        if any(x <= 0 for x in t[key]):
            fail("%s: a trial without %s" % (where, key))
        if abs(median(t[key]) - got) > 1e-9 * got:
            fail("%s: %s %g is not the median of %s" % (where, key, got, t[key]))
        if ci is None or not ci[0] <= got <= ci[1]:
            fail("%s: %s interval %s does not hold %g" % (where, key, ci, got))


def check_marks(cells):
    groups = {}
    for c in cells:
        groups.setdefault((c["workload"], c["size"], c["inflight"]), []).append(c)
    for key, g in groups.items():
        fixed = [c for c in g if c["status"] == "ok" and
                 c["strategy"] in SEND_KEY]
        if not fixed:
            continue
        lead = max(fixed, key=lambda c: c["calls_per_s"])
        reach = {c["strategy"] for c in fixed if c is lead or
                 c["calls_per_s_ci"][1] >= lead["calls_per_s_ci"][0] or
                 c["calls_per_s"] == lead["calls_per_s"]}
        win = {c["strategy"] for c in g if c["winner"]}
        tied = {c["strategy"] for c in g if c["tied"]}
        if len(reach) == 1:
            if win != {lead["strategy"]} or tied:
                fail("%s: winner %s tied %s, want %s" % (key, win, tied,
                                                         lead["strategy"]))
        elif win or tied != reach:
            fail("%s: winner %s tied %s, want a tie of %s" % (key, win, tied,
                                                              reach))


def main():
    cells = json.load(open(sys.argv[1]))
    inline_max = int(sys.argv[3])
    ntrials = int(sys.argv[4])
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
        check_trials(c, ntrials)
        if st in RPC or st == "async":
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
    check_marks(cells)
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
