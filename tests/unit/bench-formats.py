#!/usr/bin/env python3
"""bench-formats.py DIR: the bench's JSON, CSV and SVG outputs in DIR (written
by bench_fixture) parse back and agree: every cell with every key and the right
types, the same rows in the CSV, and one SVG series per strategy and panel.
Standard library only; exit 0 if all hold, 1 with the reasons otherwise."""

import csv
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

STRATEGIES = ["inline", "pullup", "mapped", "auto", "raw-poll", "raw-event",
              "raw-write", "raw-read", "tcp", "async"]
FIXED = {"inline", "pullup", "mapped"}
RPC = FIXED | {"auto"}
COUNTED = RPC | {"async"}  # cells with librpcrdma's counters
STATUSES = {"ok", "needs-chunks", "failed"}
COUNTERS = ["calls", "inline_sends", "pullup_sends", "pullup_bytes",
            "mapped_sends", "registrations", "sendctx_waits", "credit_waits",
            "too_large", "fallbacks", "wakeups", "busy_poll_hits"]
COST = ["syscalls", "vol_csw", "invol_csw", "channel_sleeps",
        "busy_poll_hits", "allocs", "instructions"]
LAT = ["mean", "p50", "p99", "p999", "min", "max"]
SCALE = ["pin_kb", "pin_kb_before", "threads", "threads_before", "fds",
         "fds_before"]
SCALE_SERVER = SCALE + ["recv_bytes", "ring_bytes"]
SWEPT = {"auto", "tcp"}  # strategies the connections sweep measures
SVG = "{http://www.w3.org/2000/svg}"

errors = []


def fail(msg):
    errors.append(msg)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v)


def is_opt_num(v):
    return v is None or is_num(v)


def is_opt_interval(v):
    return v is None or (isinstance(v, list) and len(v) == 2 and
                         all(is_num(x) for x in v) and v[0] <= v[1])


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def reject_constant(name):
    raise ValueError("JSON has %s, which is not JSON" % name)


# ---- JSON -------------------------------------------------------------------

def is_scale(v, keys):
    return v is None or (isinstance(v, dict) and sorted(v) == sorted(keys)
                         and all(is_int(v[k]) and v[k] >= 0 for k in keys))


def is_sweep(v):
    return v is None or (
        isinstance(v, dict)
        and sorted(v) == ["client", "connect_s", "connections", "served",
                          "server"]
        and is_int(v["connections"]) and v["connections"] >= 1
        and is_int(v["served"]) and 0 <= v["served"] <= v["connections"]
        and is_num(v["connect_s"]) and is_scale(v["client"], SCALE)
        and is_scale(v["server"], SCALE_SERVER))


def check_types(i, o):
    where = "json[%d] (%s %s %s)" % (i, o.get("workload"), o.get("size"),
                                     o.get("strategy"))
    want = {
        "testbed": lambda v: v is None or isinstance(v, str),
        "workload": lambda v: isinstance(v, str) and v,
        "size": lambda v: is_int(v) and v >= 0,
        "strategy": lambda v: v in STRATEGIES,
        "inflight": lambda v: is_int(v) and v >= 1,
        "threads": is_int,
        "connections": is_int,
        "status": lambda v: v in STATUSES,
        "note": lambda v: isinstance(v, str),
        "calls": lambda v: is_int(v) and v >= 0,
        "seconds": is_num,
        "calls_per_s": is_num,
        "mb_per_s": is_num,
        "lat_us": lambda v: isinstance(v, dict) and sorted(v) == sorted(LAT)
        and all(is_num(v[k]) for k in LAT),
        "cpu_us_per_call": lambda v: isinstance(v, dict)
        and sorted(v) == ["client", "server"]
        and all(is_opt_num(v[k]) for k in v),
        "counters": lambda v: v is None or (
            isinstance(v, dict) and sorted(v) == ["client", "server"]
            and all(isinstance(v[s], dict) and sorted(v[s]) == sorted(COUNTERS)
                    and all(is_int(v[s][k]) and v[s][k] >= 0 for k in COUNTERS)
                    for s in v)),
        "vs_raw": lambda v: v is None or (is_num(v) and v > 0),
        "vs_tcp": lambda v: v is None or (is_num(v) and v > 0),
        "winner": lambda v: isinstance(v, bool),
        "tied": lambda v: isinstance(v, bool),
        "cost_per_call": lambda v: v is None or (
            isinstance(v, dict) and sorted(v) == ["client", "server"]
            and all(isinstance(v[s], dict) and sorted(v[s]) == sorted(COST)
                    and all(is_opt_num(v[s][k]) for k in COST) for s in v)),
        "calls_per_s_ci": is_opt_interval,
        "p50_ci": is_opt_interval,
        "sweep": is_sweep,
        "trials": lambda v: isinstance(v, dict)
        and sorted(v) == ["calls_per_s", "p50"]
        and all(isinstance(v[k], list) and all(is_num(x) for x in v[k])
                for k in v) and len(v["calls_per_s"]) == len(v["p50"]),
    }
    if sorted(o) != sorted(want):
        fail("%s: keys %s, want %s" % (where, sorted(o), sorted(want)))
        return
    for k, ok in want.items():
        if not ok(o[k]):
            fail("%s: bad %s: %r" % (where, k, o[k]))
    if o["sweep"] is not None and (o["strategy"] not in SWEPT or
                                   o["workload"] != "null" or
                                   o["connections"] != o["sweep"]["connections"]):
        fail("%s: a sweep cell is NULL calls of librpcrdma or TCP over its "
             "own connection count" % where)
    if (o["counters"] is None) != (o["strategy"] not in COUNTED):
        fail("%s: counters must be null exactly for baselines" % where)
    t = o["trials"]
    if o["status"] != "ok":
        if o["calls_per_s_ci"] is not None or o["p50_ci"] is not None:
            fail("%s: intervals on a cell that is not ok" % where)
        return
    # the cell's figures are the medians of its trials, inside their intervals
    for key, got, ci in (("calls_per_s", o["calls_per_s"], o["calls_per_s_ci"]),
                         ("p50", o["lat_us"]["p50"], o["p50_ci"])):
        if not t[key]:
            fail("%s: an ok cell without trials" % where)
            return
        if not math.isclose(median(t[key]), got, rel_tol=1e-12):
            fail("%s: %s %r is not the median of its trials %r" %
                 (where, key, got, t[key]))
        if ci is None or not (ci[0] <= got <= ci[1]) or \
           ci[0] < min(t[key]) or ci[1] > max(t[key]):
            fail("%s: %s interval %r does not hold the median %r within "
                 "the trials" % (where, key, ci, got))


def sweep_of(o):
    return o["sweep"]["connections"] if o["sweep"] else 0


def group_key(o):
    return (o["workload"], o["size"], o["inflight"], sweep_of(o))


def check_derived(cells):
    """Winner and ratios agree with the cells they are derived from."""
    groups = {}
    for o in cells:
        groups.setdefault(group_key(o), []).append(o)
    for key, g in groups.items():
        ok = [o for o in g if o["status"] == "ok"]
        fixed = [o for o in ok if o["strategy"] in FIXED]
        winners = [o for o in g if o["winner"]]
        tied = sorted(o["strategy"] for o in g if o["tied"])
        if fixed:
            # the tie rule: the leader wins when its interval clears
            # every other fixed strategy's, else all that reach it tie
            lead = max(fixed, key=lambda o: o["calls_per_s"])
            reach = sorted(o["strategy"] for o in fixed if o is lead or
                           o["calls_per_s_ci"][1] >= lead["calls_per_s_ci"][0]
                           or o["calls_per_s"] == lead["calls_per_s"])
            if len(reach) == 1:
                if len(winners) != 1 or winners[0] is not lead or tied:
                    fail("%s: winners %s tied %s, want %s alone" %
                         (key, [w["strategy"] for w in winners], tied,
                          lead["strategy"]))
            elif winners or tied != reach:
                fail("%s: winners %s tied %s, want a tie of %s" %
                     (key, [w["strategy"] for w in winners], tied, reach))
        elif winners or tied:
            fail("%s: a winner or tie without an OK fixed strategy" % (key,))
        for base, field in (("raw-poll", "vs_raw"), ("tcp", "vs_tcp")):
            ref = [o for o in ok if o["strategy"] == base]
            for o in g:
                if o["status"] != "ok" or not ref:
                    if o[field] is not None:
                        fail("%s %s: %s %r, want null" %
                             (key, o["strategy"], field, o[field]))
                    continue
                want = o["lat_us"]["p50"] / ref[0]["lat_us"]["p50"]
                if o[field] is None or abs(o[field] - want) > 1e-9 * want:
                    fail("%s %s: %s %r, want %g" %
                         (key, o["strategy"], field, o[field], want))


def check_json(path):
    with open(path, encoding="utf-8") as f:
        cells = json.load(f, parse_constant=reject_constant)
    if not isinstance(cells, list) or not cells:
        fail("%s: not a non-empty array" % path)
        return []
    for i, o in enumerate(cells):
        if not isinstance(o, dict):
            fail("json[%d]: not an object" % i)
            return []
        check_types(i, o)
    if errors:
        return cells
    # what the fixture promises to contain
    if len({o["workload"] for o in cells}) != 4:
        fail("json: want cells of all four workloads")
    if {o["strategy"] for o in cells} != set(STRATEGIES):
        fail("json: want every strategy, got %s" %
             sorted({o["strategy"] for o in cells}))
    if {o["status"] for o in cells} != STATUSES:
        fail("json: want every status")
    if {o["inflight"] for o in cells} != {1, 32}:
        fail("json: want 1 and 32 in flight")
    failed = [o for o in cells if o["status"] == "failed"]
    if len(failed) != 1 or '"' not in failed[0]["note"] or \
       "," not in failed[0]["note"]:
        fail("json: want one failed cell with a quote and a comma in its note")
    if not any(o["cpu_us_per_call"]["server"] is None for o in cells):
        fail("json: want a cell with unknown server CPU (null)")
    if any(o["testbed"] != 'synthetic "fixture"' for o in cells):
        fail("json: testbed not carried through")
    if not any(o["tied"] for o in cells) or not any(o["winner"] for o in cells):
        fail("json: want both a tie and a clear winner among the cells")
    if {sweep_of(o) for o in cells} != {0, 1, 16, 128} or \
       {o["strategy"] for o in cells if o["sweep"]} != {"auto", "tcp"}:
        fail("json: want auto and tcp swept over 1, 16 and 128 connections")
    check_derived(cells)
    return cells


# ---- CSV --------------------------------------------------------------------

def check_csv(path, cells):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(cells):
        fail("csv: %d rows, json has %d cells" % (len(rows), len(cells)))
        return
    want = ["workload", "size", "strategy", "inflight", "threads",
            "connections", "status", "note", "calls", "seconds",
            "calls_per_s", "mb_per_s"]
    want += ["lat_%s_us" % k for k in LAT]
    want += ["cpu_client_us_per_call", "cpu_server_us_per_call"]
    want += ["%s_%s" % (s, k) for s in ("client", "server") for k in COUNTERS]
    want += ["vs_raw", "vs_tcp", "winner", "tied", "trials",
             "calls_per_s_lo", "calls_per_s_hi", "lat_p50_lo_us",
             "lat_p50_hi_us", "trial_calls_per_s", "trial_p50_us",
             "sweep_connections", "sweep_served", "sweep_connect_s"]
    want += ["%s_%s" % (s, k) for s in ("client", "server") for k in
             ("pin_kb", "pin_kb_before", "threads", "threads_before", "fds",
              "fds_before")]
    want += ["server_recv_bytes", "server_ring_bytes"]
    header = list(rows[0].keys()) if rows else []
    if header != want:
        fail("csv: header %s, want %s" % (header, want))
        return
    for i, (r, o) in enumerate(zip(rows, cells)):
        where = "csv row %d" % (i + 1)
        if None in r or any(v is None for v in r.values()):
            fail("%s: wrong number of fields" % where)
            continue
        for k in ("workload", "strategy", "status", "note"):
            if r[k] != o[k]:
                fail("%s: %s %r, json %r" % (where, k, r[k], o[k]))
        for k in ("size", "inflight", "calls"):
            if int(r[k]) != o[k]:
                fail("%s: %s %s, json %s" % (where, k, r[k], o[k]))
        if not math.isclose(float(r["calls_per_s"]), o["calls_per_s"],
                            rel_tol=1e-12):
            fail("%s: calls_per_s %s, json %s" %
                 (where, r["calls_per_s"], o["calls_per_s"]))
        if (r["vs_raw"] == "") != (o["vs_raw"] is None):
            fail("%s: vs_raw %r, json %r" % (where, r["vs_raw"], o["vs_raw"]))
        if (r["client_calls"] == "") != (o["counters"] is None):
            fail("%s: counters empty exactly for baselines" % where)
        if r["winner"] != ("1" if o["winner"] else "0"):
            fail("%s: winner %s, json %s" % (where, r["winner"], o["winner"]))
        if r["tied"] != ("1" if o["tied"] else "0"):
            fail("%s: tied %s, json %s" % (where, r["tied"], o["tied"]))
        sw = o["sweep"]
        if (r["sweep_connections"] == "") != (sw is None):
            fail("%s: sweep columns filled exactly for sweep cells" % where)
        elif sw is not None:
            for col, val in (("sweep_connections", sw["connections"]),
                             ("sweep_served", sw["served"]),
                             ("server_pin_kb", sw["server"]["pin_kb"]),
                             ("client_threads", sw["client"]["threads"]),
                             ("server_recv_bytes", sw["server"]["recv_bytes"])):
                if int(float(r[col])) != val:
                    fail("%s: %s %s, json %s" % (where, col, r[col], val))
        if int(r["trials"]) != len(o["trials"]["calls_per_s"]):
            fail("%s: trials %s, json has %d" %
                 (where, r["trials"], len(o["trials"]["calls_per_s"])))
        for col, key in (("trial_calls_per_s", "calls_per_s"),
                         ("trial_p50_us", "p50")):
            got = [float(x) for x in r[col].split(";")] if r[col] else []
            if len(got) != len(o["trials"][key]) or not all(
                    math.isclose(a, b, rel_tol=1e-12)
                    for a, b in zip(got, o["trials"][key])):
                fail("%s: %s %r, json %r" % (where, col, r[col],
                                             o["trials"][key]))
        for cols, key in ((("calls_per_s_lo", "calls_per_s_hi"), "calls_per_s_ci"),
                          (("lat_p50_lo_us", "lat_p50_hi_us"), "p50_ci")):
            if o[key] is None:
                if r[cols[0]] != "" or r[cols[1]] != "":
                    fail("%s: %s filled, json null" % (where, key))
            elif not all(math.isclose(float(r[c]), v, rel_tol=1e-12)
                         for c, v in zip(cols, o[key])):
                fail("%s: %s %s/%s, json %r" % (where, key, r[cols[0]],
                                               r[cols[1]], o[key]))


# ---- SVG --------------------------------------------------------------------

def panel_cells(panel, cells):
    """The JSON cells a panel shows, keyed by its data attributes."""
    w, x = panel.get("data-workload"), panel.get("data-x")
    if x == "conns":
        q = int(panel.get("data-inflight"))
        return [o for o in cells if o["workload"] == w and o["sweep"] and
                o["inflight"] == q], "conns"
    cells = [o for o in cells if not o["sweep"]]
    if x == "size":
        q = int(panel.get("data-inflight"))
        return [o for o in cells if o["workload"] == w and o["inflight"] == q], "size"
    s = int(panel.get("data-size"))
    return [o for o in cells if o["workload"] == w and o["size"] == s], "inflight"


def xval(o, xkey):
    return sweep_of(o) if xkey == "conns" else o[xkey]


def metric(o, name):
    if name == "server_pin_mib":
        return o["sweep"]["server"]["pin_kb"] / 1024.0
    return o["lat_us"]["p50"] if name == "p50" else o[name]


def interval(o, name):
    """The JSON interval of the plotted metric (MB/s scales calls/s)."""
    if name == "p50":
        return tuple(o["p50_ci"])
    if name == "server_pin_mib":
        return (metric(o, name), metric(o, name))
    lo, hi = o["calls_per_s_ci"]
    if name == "mb_per_s":
        k = o["mb_per_s"] / o["calls_per_s"]
        return (lo * k, hi * k)
    return (lo, hi)


def plottable(o, xkey, name):
    return o["status"] == "ok" and xval(o, xkey) > 0 and metric(o, name) > 0


def runs(seq, xkey, name):
    """Maximal runs of plottable cells, in x order: the lines drawn."""
    out, cur = [], 0
    for o in sorted(seq, key=lambda o: xval(o, xkey)):
        if plottable(o, xkey, name):
            cur += 1
        else:
            out.append(cur)
            cur = 0
    out.append(cur)
    return [k for k in out if k]


def check_svg(path, cells):
    root = ET.parse(path).getroot()
    if root.tag != SVG + "svg":
        fail("svg: root is %s, want svg in the SVG namespace" % root.tag)
        return
    panels = [g for g in root.iter(SVG + "g") if g.get("class") == "panel"]
    # a row against size per workload with several sizes but NULL; NULL's
    # row is against calls in flight
    swept = [o for o in cells if o["sweep"]]
    cells = [o for o in cells if not o["sweep"]]
    multi = {o["workload"] for o in cells if o["workload"] != "null"}
    multi = {w for w in multi
             if len({o["size"] for o in cells if o["workload"] == w}) > 1}
    got = sorted((p.get("data-workload"), p.get("data-x"), p.get("data-metric"))
                 for p in panels)
    want = sorted([(w, "size", "p50") for w in multi] +
                  [(w, "size", "mb_per_s") for w in multi] +
                  [("null", "inflight", "p50"), ("null", "inflight", "calls_per_s")] +
                  ([("null", "conns", "calls_per_s"),
                    ("null", "conns", "server_pin_mib")] if swept else []))
    if got != want:
        fail("svg: panels %s, want %s" % (got, want))
    drawn = set()
    for p in panels:
        name = p.get("data-metric")
        if p.get("data-x") == "size":
            qs = [o["inflight"] for o in cells
                  if o["workload"] == p.get("data-workload")]
            q = min(qs) if name == "p50" else max(qs)
            if int(p.get("data-inflight")) != q:
                fail("svg panel %s %s: at %s in flight, want %d" %
                     (p.get("data-workload"), name, p.get("data-inflight"), q))
        if p.get("data-x") == "conns" and \
           int(p.get("data-inflight")) != max(o["inflight"] for o in swept):
            fail("svg panel conns %s: at %s in flight, want the largest" %
                 (name, p.get("data-inflight")))
        sel, xkey = panel_cells(p, cells + swept)
        where = "svg panel %s %s" % (p.get("data-workload"), name)
        series = [g for g in p.iter(SVG + "g") if g.get("class") == "series"]
        names = [g.get("data-strategy") for g in series]
        if len(names) != len(set(names)):
            fail("%s: a strategy has more than one series: %s" % (where, names))
        want = {o["strategy"] for o in sel if plottable(o, xkey, name)}
        if set(names) != want:
            fail("%s: series %s, want %s" % (where, sorted(names), sorted(want)))
        for g in series:
            s = g.get("data-strategy")
            drawn.add(s)
            mine = [o for o in sel if o["strategy"] == s]
            marks = len(list(g.iter(SVG + "circle")))
            npts = sum(1 for o in mine if plottable(o, xkey, name))
            if marks != npts:
                fail("%s %s: %d markers, want %d" % (where, s, marks, npts))
            # an interval mark per point, carrying the JSON's interval
            bars = sorted((float(b.get("data-lo")), float(b.get("data-hi")))
                          for b in g.iter(SVG + "path")
                          if b.get("class") == "ci")
            want_bars = sorted(interval(o, name) for o in mine
                               if plottable(o, xkey, name))
            if len(bars) != len(want_bars) or not all(
                    math.isclose(a[0], b[0], rel_tol=1e-5) and
                    math.isclose(a[1], b[1], rel_tol=1e-5)
                    for a, b in zip(bars, want_bars)):
                fail("%s %s: interval marks %s, want %s" %
                     (where, s, bars[:4], want_bars[:4]))
            if name != "server_pin_mib" and any(a[0] >= a[1] for a in bars):
                fail("%s %s: an interval mark of no height (the fixture's "
                     "trials differ)" % (where, s))
            lines = [len(pl.get("points").split())
                     for pl in g.iter(SVG + "polyline")]
            want_lines = [k for k in runs(mine, xkey, name) if k > 1]
            if lines != want_lines:
                fail("%s %s: polylines of %s points, want %s (broken at "
                     "cells not OK)" % (where, s, lines, want_lines))
    ok = {o["strategy"] for o in cells + swept if o["status"] == "ok"}
    if not ok <= drawn:
        fail("svg: strategies with OK cells but no series: %s" %
             sorted(ok - drawn))
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    if len(legend) != 1:
        fail("svg: %d legends, want one" % len(legend))
    else:
        labels = {t.text for t in legend[0].iter(SVG + "text")}
        if labels != drawn:
            fail("svg: legend %s, series %s" % (sorted(labels), sorted(drawn)))
    title = root.find(SVG + "title")
    if title is None or title.text != "rpcrdma_bench <fixture> & synthetic cells":
        fail("svg: title not carried through escaped")


def main():
    if len(sys.argv) != 2:
        print("usage: bench-formats.py DIR", file=sys.stderr)
        return 2
    d = sys.argv[1]
    try:
        cells = check_json(os.path.join(d, "out.json"))
        if not errors:
            check_csv(os.path.join(d, "out.csv"), cells)
            check_svg(os.path.join(d, "out.svg"), cells)
    except (OSError, ValueError, ET.ParseError, KeyError, TypeError) as e:
        fail("%s: %s" % (type(e).__name__, e))
    for e in errors[:40]:
        print("bench-formats: " + e)
    if errors:
        print("bench-formats: %d problem(s)" % len(errors))
        return 1
    print("bench-formats: %d cells; JSON, CSV and SVG agree" % len(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
