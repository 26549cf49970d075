# The server's RDMA Read/Write engine against hostile and dying peers
# (issue 16, findings 1 and 4); sourced by cases.sh after lib.sh.
#
# chain_case NAME "SERVER ARGS" "PEER ARGS" [WANT]: echo_server (svc_run,
# or with service threads) meets chainpeer; the server must stay up, a
# bystander echo_client connected after it must be served (within 60 s),
# a last echo_client shuts it down, and it must exit 0 (a crash is exit
# 139 or an ASan/UBSan report).  WANT: a line chainpeer must print.
# With ALONE set, no bystander: the peer shuts the server down itself (-S),
# so the server's counters are of its connection alone.  The peer comes
# from the client host's second address: the stall budget is per peer
# address (svc_stall_ms), and the bystanders must not share its penalty.
# chain_env: environment for the server (e.g. its stall budget).
second_client_addr || echo "# chain-cases: no second client address" >&2
cli2=${cli2:-$cli}
chain_env= chain_nostall= chain_ahead=
chain_case() {
	name=$1 sargs=$2 pargs=$3 want=$4 alone=$5; port=$((port + 1))
	ready=$work/$name.ready
	timeout 200 $RPCRDMA_SERVER_EXEC env $chain_env "$b/tests/rdma/echo_server" \
		$sargs -a "$srv" -p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	[ -e "$ready" ] || why="server never became ready"
	# The peer's own verdict is kept apart: the server must be checked
	# (alive, serving a bystander) whatever the peer saw.
	pwhy=
	if [ -z "$why" ]; then
		timeout 150 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/chainpeer" $pargs \
			-a "$srv" -b "$cli2" -p $port >"$work/$name.peer" 2>&1 ||
			pwhy="the peer failed (exit $?)"
	fi
	[ -n "$why" ] || [ -z "$want" ] || grep -qx "chainpeer: \($want\)" "$work/$name.peer" ||
		pwhy="${pwhy:+$pwhy, }the peer never saw '$want'"
	# The server is still up, and serves a bystander.
	if [ -z "$why" ] && [ -z "$alone" ] && ! kill -0 $spid 2>/dev/null; then
		wait $spid
		why="the server died (exit $?)"
	fi
	if [ -z "$why" ] && [ -z "$alone" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" -N \
			-a "$srv" -b "$cli" -p $port -m 700 -t 2 -n 20 \
			>"$work/$name.client" 2>&1 ||
			why="the bystander was not served (exit $?)"
	fi
	if [ -z "$why" ] && [ -z "$alone" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" \
			-a "$srv" -b "$cli" -p $port -m 100 -t 1 -n 5 \
			>>"$work/$name.client" 2>&1 ||
			why="the last client was not served (exit $?)"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	[ -n "$why" ] || why=$pwhy
	if [ -z "$why" ] && grep -q "runtime error\|AddressSanitizer" "$work/$name.server"; then
		why="sanitizer report"
	fi
	# chain_ahead: the server posted Writes ahead of a Send.
	if [ -z "$why" ] && [ -n "$chain_ahead" ]; then
		ah=$(sed -n 's/^server: writes_ahead \([0-9]*\)$/\1/p' "$work/$name.server")
		[ "${ah:-0}" -ge 1 ] ||
			why="writes_ahead '${ah:-}': no Write went ahead of its Send"
	fi
	# chain_nostall N: the N peers that went are lost, never stalls
	# (whose teardown refuses their address for 30 budgets).
	if [ -z "$why" ] && [ -n "$chain_nostall" ]; then
		st=$(sed -n 's/^server: calls .* stalled_conns \([0-9]*\) .* lost \([0-9]*\) .*/\1 \2/p' \
			"$work/$name.server")
		echo "# $kind $name: stalled_conns lost: $st"
		set -- $st
		[ "${1:-x}" = 0 ] ||
			why="stalled_conns '${1:-}': a peer that went was judged a stall"
		[ -n "$why" ] || [ "${2:-0}" -ge "$chain_nostall" ] ||
			why="lost '${2:-}': expected the $chain_nostall peers that went"
	fi
	if [ -z "$why" ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name ($why)"
		for f in server peer client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}

# Finding 1: the first WR of a chain fails (a Reply chunk's first
# segment, a Long Call's first Read segment: bogus rkeys), or the client
# goes while a chain of 8 Reads is in flight.  Only that connection goes.
for mode in "" "-j 4"; do
	t=${mode:+-threaded}
	# The Call must never be served; the server tears the connection
	# down (rxe), or, siw, may leave the peer unanswered (the peer's
	# TERMINATE): either way the server stays up and serves others.
	chain_case chain-reply2$t "$mode" "-m reply2" "torn down\\|silent"
	# The same for a Write chunk (direct placement): the failing Write
	# is the first of a chain posted with the Reply's Send (one post).
	chain_case chain-write2$t "$mode" "-m write2" "torn down\\|silent"
	# A Reply with 32 Writes (two Write chunks of 16 segments), more
	# than go in front of one Send: 16 go ahead of it, no thread waits
	# for them (svc_run: the rest waits, parked, for their room); both
	# opaques arrive whole.  With a bogus first rkey, the first Write
	# ahead fails and only that connection goes.
	chain_ahead=1
	chain_case chain-writemany$t "$mode" "-m writemany" "served"
	chain_case chain-writemany-bad$t "$mode" "-m writemany-bad" "torn down\\|silent"
	chain_ahead=
	# A peer that says it takes Send With Invalidate and offers one bogus
	# rkey: the Reply invalidates it, the peer's device refuses, only
	# that connection goes.
	chain_case chain-badinv$t "$mode" "-m badinv" "torn down\\|silent"
	chain_case chain-read2$t "$mode" "-m read2 -R 4 -I 4" "torn down\\|silent"
	# Dying clients: their chains must end (the path that crashed), by
	# completion or, where none comes (rxe retries Reads to a QP that is
	# gone for seconds), by the CM's word that the peer went; never by
	# the stall budget, whose teardown would refuse the next child's
	# address for 30 budgets.  The budget is 2 s, shorter than rxe's
	# retries, so a server that waits for them is caught.
	chain_env=RPCRDMA_SVC_STALL_MS=2s
	chain_nostall=5
	chain_case chain-killed$t "$mode" "-m kill -n 5" "5 children killed mid-chain"
	chain_case chain-disconnect$t "$mode" "-m disconnect -n 5" \
		"5 children disconnected mid-chain"
	chain_env= chain_nostall= chain_ahead=
done

# Finding 4: the Read depth is the peer's responder resources (the CM's
# initiator_depth on the passive side), never its initiator depth.
# reads_peak is the server's own count of Reads posted and not yet
# complete on a connection (taken where it decides to post them), the
# peer's connection the only one the server had.
depth_case() {
	name=$1 sargs=$2 pargs=$3 want=$4 peak=$5
	chain_case $name "$sargs" "$pargs -S" "$want" alone
	got=$(sed -n 's/^server: reads_peak \([0-9]*\) .*/\1/p' "$work/$name.server")
	if [ "$got" = "$peak" ]; then
		tap "ok - $kind: $name-reads-peak # most Reads outstanding $got"
	else
		tap "not ok - $kind: $name-reads-peak (reads_peak '$got', expected $peak)"
		failed=1
	fi
}
# responder_resources 1, initiator_depth 8, 8 Read segments: one at a time.
depth_case read-depth-1 "" "-m depth -R 1 -I 8" "served" 1
depth_case read-depth-1-threaded "-j 4" "-m depth -R 1 -I 8" "served" 1
# As the Linux client connects (initiator_depth 0, responder resources
# plenty): all 8 at once, never a depth of 0.
depth_case read-depth-linux "" "-m depth -R 16 -I 0" "served" 8
# A peer serving no Reads that sends Read chunks: ERR_CHUNK, still served.
depth_case read-depth-0 "" "-m nodepth -R 0 -I 4" "still served after ERR_CHUNK" 0
