# rpcrdma_bench's cost pass and calibration, short real runs (sourced by
# cases.sh, or alone through run-cases.sh).  Bounds are counts, never times.

# --cost: every OK librpcrdma cell carries per-call figures on both sides;
# each call needs at least one completion on the client (a sleep on the
# channel or a busy-poll hit); figures that cannot be counted in this
# guest are null and the table says why.  bench-cost-check.py checks.
# In the VM (TCG) without perf events: opening and closing them patches
# the guest kernel's scheduler code, which crashed the guest once
# (rpcrdma_bench(1), RPCRDMA_BENCH_PERF).
bench_cost_case() {
	out=$work/bench-cost
	[ "${RPCRDMA_IN_VM:-0}" = 1 ] && export RPCRDMA_BENCH_PERF=off
	timeout 300 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20500 -W null,echo -S 64 -q 1,4 -x rpc,raw-poll,tcp -D 0.2 \
		-w 0.05 --trials 1 --cost -Q -o "$out.txt" --json "$out.json" \
		>"$work/bench-cost.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && python3 "$(dirname "$0")/bench-cost-check.py" \
		"$out.json" "$out.txt" >>"$work/bench-cost.client" 2>&1; then
		tap "ok - $kind: bench-cost"
	else
		tap "not ok - $kind: bench-cost (exit $crc)"
		awk '{ print "# bench-cost: " $0 }' "$work/bench-cost.client" "$out.txt"
		failed=1
	fi
}

# auto follows a [device NAME] section in a conf.d file, the way
# --calibrate writes one: with inline_cutoff 0 and mapped_min 512 for both
# hosts' devices, auto maps a 1 KiB echo on both sides and never goes
# inline.  Then --calibrate itself writes a parseable section.
bench_calib_case() {
	conf=$work/bench-calib.conf
	rm -rf "$conf" "$conf.d"
	: >"$conf"
	mkdir -p "$conf.d"
	for d in "$RPCRDMA_CLIENT_DEV" "$RPCRDMA_SERVER_DEV"; do
		printf '[device %s]\ninline_cutoff = 0\nmapped_min = 512\npage_threshold = 512\n' \
			"$d" >>"$conf.d/50-calibrate.conf"
	done
	out=$work/bench-calib
	RPCRDMA_CONF=$conf timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" \
		--pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20520 -W echo -S 1K -q 1 -x auto -D 0.2 -w 0.05 --trials 1 -Q \
		-f json -o "$out.json" >"$work/bench-calib.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && python3 - "$out.json" >>"$work/bench-calib.client" 2>&1 <<'PY'
import json, sys
c = [x for x in json.load(open(sys.argv[1])) if x["strategy"] == "auto"][0]
k = c["counters"]
ok = c["status"] == "ok" and all(
    k[s]["mapped_sends"] >= c["calls"] and k[s]["inline_sends"] == 0
    for s in ("client", "server"))
print("auto under the section: client %s, server %s" % (k["client"], k["server"]))
sys.exit(0 if ok else 1)
PY
	then
		tap "ok - $kind: bench-auto-follows-device-section"
	else
		tap "not ok - $kind: bench-auto-follows-device-section (exit $crc)"
		awk '{ print "# bench-calib: " $0 }' "$work/bench-calib.client"
		failed=1
	fi
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20540 -S 64,8K -D 0.2 -w 0.02 --trials 2 -Q -o "$out.txt" \
		--calibrate "$conf.d/60-measured.conf" \
		--calibrate-for "$RPCRDMA_CLIENT_DEV,$RPCRDMA_SERVER_DEV" \
		>"$work/bench-calib2.client" 2>&1
	crc=$?
	# The library must take the written file: a bad key or value would
	# fail every handle creation (rpcrdma.conf(5)), so a run under it
	# proves it parses.
	if [ $crc -eq 0 ] && grep -q "^\[device $RPCRDMA_CLIENT_DEV\]" \
		"$conf.d/60-measured.conf" && RPCRDMA_CONF=$conf timeout 120 \
		$RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20560 -W echo -S 64 -q 1 -x auto -D 0.1 -w 0 --trials 1 -Q \
		-o "$out-after.txt" >>"$work/bench-calib2.client" 2>&1; then
		tap "ok - $kind: bench-calibrate-writes-section"
	else
		tap "not ok - $kind: bench-calibrate-writes-section (exit $crc)"
		awk '{ print "# bench-calib: " $0 }' "$work/bench-calib2.client" \
			"$conf.d/60-measured.conf"
		failed=1
	fi
}

bench_cost_case
bench_calib_case
