# The USDT probes (rpcrdma(7), PROBES), sourced by cases.sh or alone
# through run-cases.sh: bpftrace counts every rpcrdma probe while
# probe_client drives echo_server through inline, pulled-up, mapped and
# chunked calls and one ERR_CHUNK; probe-check.py then requires each probe
# to have fired as often as its counter moved.  Then, under the same
# bpftrace, a short rpcrdma_bench run (usdt-probes-bench): its client's
# probes, by pid, against the counter sums it wrote (--totals), checked by
# probe-bench-check.py.  A build without USDT skips;
# with RPCRDMA_REQUIRE_RDMA=1 (CI) a missing probe or bpftrace fails.
usdt_case() {
	name=usdt-probes; port=$((port + 1))
	lib=$(readlink -f "$b/.libs/librpcrdma.so")
	why=
	if ! grep -q '^#define RPCRDMA_USDT 1' "$b/config.h"; then
		why="built without USDT (configure --enable-usdt)"
	elif ! command -v bpftrace >/dev/null 2>&1; then
		why="bpftrace is not installed (tools/install-deps)"
	fi
	: >"$work/$name.check"
	if [ -n "$why" ]; then
		if [ "${RPCRDMA_REQUIRE_RDMA:-0}" = 1 ]; then
			tap "not ok - $kind: $name ($why; RPCRDMA_REQUIRE_RDMA=1)"
			failed=1
		else
			tap "ok - $kind: $name # SKIP $why"
		fi
		return
	fi
	# configure said yes: the probes must be in the library.
	if ! readelf -n "$lib" 2>/dev/null | grep -q "Provider: rpcrdma"; then
		tap "not ok - $kind: $name (no rpcrdma USDT notes in $lib)"
		failed=1
		return
	fi
	# uprobes need tracefs; the bed's init may not have mounted it.
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/debug/tracing ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	# The counting program, and beside it the installed one
	# (tools/trace/rpcrdma.bt, rpcrdma-trace(1)): it must run too.
	sed "s|LIB|$lib|" "$(dirname "$0")/probe-count.bt" >"$work/$name.bt"
	sed "s|LIB|$lib|g" "$(dirname "$0")/../../tools/trace/rpcrdma.bt" \
		>"$work/$name.user.bt"
	rm -f "$work/$name.ready"
	timeout 300 bpftrace "$work/$name.bt" >"$work/$name.trace" 2>&1 &
	bpid=$!
	timeout 300 bpftrace "$work/$name.user.bt" >"$work/$name.user" 2>&1 &
	upid=$!
	i=0
	while { ! grep -q "^probes attached" "$work/$name.trace" ||
		! grep -q "^Tracing librpcrdma" "$work/$name.user"; } &&
		kill -0 $bpid 2>/dev/null && kill -0 $upid 2>/dev/null &&
		[ $i -lt 1800 ]; do
		sleep 0.1; i=$((i + 1))
	done
	attach=$((i / 10))
	if ! grep -q "^probes attached" "$work/$name.trace" ||
		! grep -q "^Tracing librpcrdma" "$work/$name.user"; then
		kill -INT $bpid $upid 2>/dev/null; wait $bpid; wait $upid
		tap "not ok - $kind: $name (bpftrace did not attach in ${attach} s)"
		awk '{ print "# bpftrace: " $0 }' "$work/$name.trace" \
			"$work/$name.user" | tail -30
		failed=1
		return
	fi
	timeout 120 $RPCRDMA_SERVER_EXEC env RPCRDMA_MAX_CHUNK_BYTES=64K \
		"$b/tests/rdma/echo_server" -a "$srv" -p $port \
		-r "$work/$name.ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$work/$name.ready" $spid
	timeout 120 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/probe_client" -a "$srv" \
		-b "$cli" -p $port >"$work/$name.client" 2>&1
	crc=$?
	[ $crc -eq 0 ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	# The second part, under the same bpftrace: a short rpcrdma_bench run
	# over every Send strategy, sizes that reach inline, pulled-up and
	# mapped Sends, Read and Reply chunks (null: siw's inline limit is
	# below a 64-byte echo); its client writes its pid and its CLIENTs'
	# counter sums (--totals) for probe-bench-check.py.
	rm -f "$work/$name.totals"
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" \
		-b "$cli" ${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20600 -W null,echo -S 64,8K,128K -x inline,pullup,mapped,auto -q 1,4 \
		-D 0.2 -w 0.05 --trials 1 -Q -o "$work/$name.table" \
		--totals "$work/$name.totals" >"$work/$name.bench" 2>&1
	brc=$?
	# SIGINT: bpftrace prints its maps and exits.
	kill -INT $bpid $upid 2>/dev/null
	wait $bpid
	wait $upid
	# rpcrdma.bt: the connection's events and the latency histograms.
	user=ok
	for want in ": connect ok" ": accepted, " "@latency_us_by_strategy\[" \
		"@latency_us_by_call_chunks\[read list\]" \
		"@latency_us_by_reply_chunks\[reply chunk\]" "RDMA_ERROR ERR_CHUNK"; do
		grep -q "$want" "$work/$name.user" && continue
		echo "rpcrdma.bt printed no '$want'" >>"$work/$name.check"
		user=
	done
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ -n "$user" ] &&
		python3 "$(dirname "$0")/probe-check.py" "$work/$name.trace" \
		"$work/$name.client" "$work/$name.server" >>"$work/$name.check" 2>&1; then
		tap "ok - $kind: $name # bpftrace attached in ${attach} s"
	else
		tap "not ok - $kind: $name (client exit $crc, server exit $src)"
		for f in check client server trace user; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
	# The bench client's probes (its pid only) against its totals.
	if [ $brc -eq 0 ] && python3 "$(dirname "$0")/probe-bench-check.py" \
		"$work/$name.trace" "$work/$name.totals" \
		>"$work/$name.bench.check" 2>&1; then
		tap "ok - $kind: $name-bench"
	else
		# The checks that failed go on the TAP line itself: CI's log
		# keeps the first lines of a failure and may cut the rest.
		why=$(grep '^FAIL' "$work/$name.bench.check" 2>/dev/null |
			head -5 | tr '\n' ';')
		tap "not ok - $kind: $name-bench (rpcrdma_bench exit $brc; $why)"
		for f in bench.check bench totals table trace; do
			[ -e "$work/$name.$f" ] &&
				awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}
usdt_case
