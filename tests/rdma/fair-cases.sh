# Fair service and per-peer stall budgets (issue 16, findings 2 and 3),
# sourced by cases.sh (or run alone by run-cases.sh).  Uses lib.sh's bed.
#
# A bystander is one echo_client: connect, a NULL call, five echoes (0..4
# bytes) and one more call of its threaded phase, timed from start to
# exit.  Bound asserted for it while a flood or a stalling peer runs:
# FAIR_BOUND_S (default 10 s, on TCG-emulated rxe and siw; the servers
# under test serve it in about 1-3 s alone), or 5 times what it took
# before, alone, if more: a loaded host slows the bystander alone too,
# and without fair service it is not served at all (times out).  FAIR_MEASURE=1 only records the
# figures (before, during, after) without asserting: for builds without
# these fixes, to measure them.  Figures go to $work/fair.figures.
fair_bound=${FAIR_BOUND_S:-10}
fair_measure=${FAIR_MEASURE:-0}

# fair_limit: the bound in ms, from the bystander's time alone (by_ms).
fair_limit() {
	lim=$((fair_bound * 1000))
	[ $((by_ms * 5)) -le $lim ] || lim=$((by_ms * 5))
}

# bystander NAME TAG [-N]: time one bystander; sets by_ms and by_rc.
bystander() {
	t0=$(date +%s%N)
	timeout 30 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" $3 -a "$srv" \
		-b "$cli" -p $port -m 4 -t 1 -n 1 >>"$work/$1.client" 2>&1
	by_rc=$?
	by_ms=$((($(date +%s%N) - t0) / 1000000))
	echo "$kind $1 $2: ${by_ms} ms (exit $by_rc)" >>"$work/fair.figures"
	echo "# $kind $1 $2: bystander ${by_ms} ms (exit $by_rc)"
}

fair_verdict() {
	if [ -z "$why" ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name ($why)"
		for f in server flood peer client; do
			[ -e "$work/$name.$f" ] &&
				awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}

# flood NAME "SERVER ARGS": one client keeps 32 chunked 64 KiB echo Calls
# in flight (Read chunks in, Reply chunks out); a bystander is timed
# before, during and after.  During: within the bound, the flood still
# running; and the server must show it took turns (under svc_run
# rs_turns_yielded, or rs_reads_deferred: a Call whose Reads were under
# way ended the turn; with service threads rs_forced_leads, or
# rs_reads_deferred: its Calls' Reads held no thread).
flood() {
	name=$1 sargs=$2; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	rm -f "$work/$name".*
	timeout 200 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" $sargs -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	bystander $name before -N
	[ $by_rc -eq 0 ] || why="the bystander failed before the flood (exit $by_rc)"
	fair_limit
	timeout 150 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/chunk_client" -K read \
		-S 65536 -t 32 -F "$flag" -a "$srv" -b "$cli" -p $port \
		>"$work/$name.flood" 2>&1 &
	fpid=$!
	wait_for "$flag" $fpid
	[ -e "$flag" ] || why=${why:-"the flood never started"}
	sleep 3		# the flood's window fills
	if [ -z "$why" ]; then
		bystander $name during -N
		[ $by_rc -eq 0 ] || why="the bystander failed during the flood (exit $by_rc)"
		kill -0 $fpid 2>/dev/null || why=${why:-"the flood stopped before the bystander was served"}
		[ -n "$why" ] || [ $by_ms -le $lim ] ||
			why="the bystander took $by_ms ms during the flood (bound $lim ms)"
	fi
	kill -TERM $fpid 2>/dev/null
	wait $fpid
	sleep 1
	bystander $name after
	[ -n "$why" ] || [ $by_rc -eq 0 ] || why="the bystander failed after the flood (exit $by_rc)"
	[ $by_rc -eq 0 ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	grep -q "echoed\|echo of" "$work/$name.flood" &&
		grep -q "came back different" "$work/$name.flood" &&
		why=${why:-"the flood's echoes came back different"}
	# The flood was killed mid-chain: lost, not a stall (which would
	# have refused its address, and the bystander's, for 30 budgets).
	stalled=$(sed -n 's/^server: calls .* stalled_conns \([0-9]*\) .*/\1/p' "$work/$name.server")
	[ -n "$why" ] || [ "${stalled:-x}" = 0 ] ||
		why="stalled_conns '$stalled': the killed flood was judged a stall"
	yielded=$(sed -n 's/^server: fair turns_yielded \([0-9]*\) forced_leads \([0-9]*\) .*/\1 \2/p' \
		"$work/$name.server")
	deferred=$(sed -n 's/^server: reads_deferred \([0-9]*\) .*/\1/p' "$work/$name.server")
	echo "# $kind $name: turns_yielded forced_leads: $yielded reads_deferred: $deferred"
	if [ "$fair_measure" = 0 ] && [ -z "$why" ]; then
		set -- $yielded
		# svc_run: a turn ends when its Calls run out, or when a Call's
		# Reads are still under way (the thread goes on to the others).
		# Threads: a lead forced past a busy connection, or Calls
		# whose Reads went on while the threads served the others.
		case "$sargs" in
		*-j*) [ "${2:-0}" -gt 0 ] || [ "${deferred:-0}" -gt 0 ] ||
			why="no forced lead during the flood ($yielded, reads_deferred $deferred)" ;;
		*) [ "${1:-0}" -gt 0 ] || [ "${deferred:-0}" -gt 0 ] ||
			why="no turn yielded during the flood ($yielded, reads_deferred $deferred)" ;;
		esac
	fi
	fair_verdict
}

# stall_loop NAME "SERVER ARGS": a peer that posts no receives sends 33
# Calls, leaves (rxe: its Replies never complete; siw: its connection
# terminates), reconnects and does it again, from its own address.  Three
# bystanders in a row, each within the bound.  rxe: no thread waited for
# it (rs_stalled_conns 0, so its address was never refused either,
# rs_stall_refused 0): its 33rd Reply found every send context held and
# was parked (rs_replies_parked).  With rings of their own (recv_buffers
# 0): on shared receive queues its Calls past its one credit close it
# first (stalled-peer-srq in cases.sh).  A ring of 32 (max_requests): the
# peer's 33 Calls are one more than its Replies' send contexts (with the
# default 128 none would be parked).
stall_loop() {
	name=$1 sargs=$2; port=$((port + 1))
	ready=$work/$name.ready stop=$work/$name.stop sent=$work/$name.sent
	rm -f "$work/$name".*
	why=
	second_client_addr || why="no second client address"
	timeout 200 $RPCRDMA_SERVER_EXEC env RPCRDMA_SVC_STALL_MS=1s \
		RPCRDMA_RECV_BUFFERS=0 RPCRDMA_MAX_REQUESTS=32 \
		"$b/tests/rdma/echo_server" $sargs -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	bystander $name before -N
	[ $by_rc -eq 0 ] || why=${why:-"the bystander failed before the peer (exit $by_rc)"}
	fair_limit
	(
		while [ ! -e "$stop" ]; do
			timeout 30 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/norecv_peer" \
				-a "$srv" -b "$cli2" -p $port -n 33 -i 8 -q -t 5 \
				-f "$sent"
			echo "norecv_peer: exit $?"
			sleep 0.1
		done
	) >"$work/$name.peer" 2>&1 &
	lpid=$!
	# The first bystander while the peer's first Replies stall (rxe), the
	# next ones while it reconnects (refused: the server's fix) or stalls
	# again (without it).
	wait_for "$sent" $lpid
	worst=0
	for i in 1 2 3; do
		[ -n "$why" ] && break
		bystander $name during-$i -N
		[ $by_rc -eq 0 ] || why="bystander $i failed while the peer looped (exit $by_rc)"
		[ $by_ms -gt $worst ] && worst=$by_ms
		sleep 1
	done
	echo "$kind $name during-worst: $worst ms" >>"$work/fair.figures"
	[ -n "$why" ] || [ $worst -le $lim ] ||
		why="a bystander took $worst ms while the peer looped (bound $lim ms)"
	touch "$stop"
	wait $lpid
	rounds=$(grep -c "Calls sent" "$work/$name.peer")
	tries=$(grep -c "norecv_peer: exit" "$work/$name.peer")
	echo "# $kind $name: the peer connected $rounds times in $tries tries"
	bystander $name after
	[ -n "$why" ] || [ $by_rc -eq 0 ] || why="the bystander failed after the peer (exit $by_rc)"
	[ $by_rc -eq 0 ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	stalled=$(sed -n 's/^server: calls .* stalled_conns \([0-9]*\) .*/\1/p' "$work/$name.server")
	refused=$(sed -n 's/^server: fair .* stall_refused \([0-9]*\)$/\1/p' "$work/$name.server")
	parked=$(sed -n 's/^server: reply_copies .* replies_parked \([0-9]*\)$/\1/p' "$work/$name.server")
	echo "# $kind $name: stalled_conns $stalled stall_refused $refused replies_parked $parked"
	[ "$rounds" -ge 1 ] || why=${why:-"the peer never got its Calls out"}
	[ -n "$why" ] || [ "${stalled:-x}" = 0 ] ||
		why="stalled_conns '$stalled': a thread waited for the peer"
	[ -n "$why" ] || [ "${refused:-x}" = 0 ] ||
		why="stall_refused '$refused': the peer was refused"
	if [ "$fair_measure" = 0 ] && [ -z "$why" ] && [ "$kind" = rxe ]; then
		[ "${parked:-0}" -ge 1 ] ||
			why="replies_parked '$parked': the 33rd Reply was never parked"
	fi
	fair_verdict
}

flood fair-flood-svc_run ""
flood fair-flood-threads "-j 2"
stall_loop fair-stall-loop ""
stall_loop fair-stall-loop-threads "-j 2"
