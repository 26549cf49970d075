#!/usr/bin/env python3
"""Checks a short rpcrdma_bench --cost run: every OK cell has per-call cost
figures on both sides (null only where the guest cannot count them, and
then the table says why), librpcrdma cells counted the completions they
waited for on both sides (channel sleeps or busy-poll hits; one wait can
reap several completions, so not one a call), and context switches are
counted everywhere.

    bench-cost-check.py RUN.json RUN.txt
"""
import json
import sys

errors = []
cells = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
KEYS = ["syscalls", "vol_csw", "invol_csw", "channel_sleeps",
        "busy_poll_hits", "allocs", "instructions"]
for c in cells:
    where = "%s %s B x%d %s" % (c["workload"], c["size"], c["inflight"],
                                c["strategy"])
    if c["status"] != "ok":
        errors.append("%s: %s" % (where, c["status"]))
        continue
    k = c["cost_per_call"]
    if k is None:
        errors.append("%s: no cost figures" % where)
        continue
    for side in ("client", "server"):
        if sorted(k[side]) != sorted(KEYS):
            errors.append("%s %s: keys %s" % (where, side, sorted(k[side])))
            continue
        for key in ("vol_csw", "invol_csw"):
            if k[side][key] is None or k[side][key] < 0:
                errors.append("%s %s: %s not counted" % (where, side, key))
        rpc = c["strategy"] in ("inline", "pullup", "mapped", "auto")
        lib = [k[side]["channel_sleeps"], k[side]["busy_poll_hits"]]
        if rpc != (None not in lib):
            errors.append("%s %s: library counters %s" % (where, side, lib))
        if rpc and not sum(lib) > 0:
            errors.append("%s %s: no channel sleep or busy-poll hit counted"
                          % (where, side))
        for key, why in (("syscalls", "system calls here:"),
                         ("instructions", "instructions here:"),
                         ("allocs", "allocations here:")):
            if k[side][key] is None and why not in text:
                errors.append("%s %s: %s null and the table says not why" %
                              (where, side, key))
if "Cost per call" not in text:
    errors.append("the text report has no cost table")
for e in errors:
    print("bench-cost-check: " + e)
print("bench-cost-check: %d cells, %s" % (len(cells), "ok" if not errors
                                          else "%d problems" % len(errors)))
sys.exit(1 if errors else 0)
