# Shared by cases.sh and run-cases.sh: the bed's variables and the helpers
# every case uses (wait_for, pair).  Sourced, never run.
kind=${RPCRDMA_TESTBED:?}
b=${RPCRDMA_TEST_BUILDDIR:?}
srv=${RPCRDMA_SERVER_ADDR:?}
cli=${RPCRDMA_CLIENT_ADDR:?}
work=$b/tests/rdma/work/$kind
failed=0
port=${port:-20100}
scope=${RPCRDMA_TEST_SCOPE:-full}
# CI's normal build on the bed its sanitizer build also runs
# (RPCRDMA_TEST_SAN_BED, set by tools/run-tests --sanitizers): "rest".
[ "$scope" = full ] && [ "${RPCRDMA_TEST_SAN_BED:-}" = "$kind" ] && scope=rest
# Servers on the bed get a 5 s stall budget, not the default 1 s: under
# TCG the guest runs ~100 times slower than hardware, and a loaded host
# stretches its wall time further, so a healthy peer could look stalled
# (torn down, its address refused).  The stall cases set 1 s themselves.
RPCRDMA_SVC_STALL_MS=${RPCRDMA_SVC_STALL_MS:-5s}
export RPCRDMA_SVC_STALL_MS

# want KIND: whether this run's scope (RPCRDMA_TEST_SCOPE) takes cases of
# KIND.  full (the default build) takes all; san (the sanitizer build)
# leaves out "timing" cases, whose point is when things happen, not what
# memory they touch, and "slow" ones, whose memory paths a faster case of
# the san scope walks too (and runs fewer calls where a case says so: CI
# has to fit in 45 minutes); smoke (distcheck) takes only "smoke" cases:
# there the batch proves the tarball carries what the tests need.  rest
# takes what san leaves out, and no "common" case (one san runs, at its
# own size): in CI each case runs once per bed, in the sanitizer build on
# the bed that build runs, else in the normal one.
want() {
	case $scope in
	full) return 0 ;;
	san) [ "$1" != timing ] && [ "$1" != slow ] ;;
	rest) [ "$1" != common ] ;;
	smoke) [ "$1" = smoke ] ;;
	*) return 0 ;;
	esac
}

# Calls per thread (cases.sh, and the case files run-cases.sh runs alone):
# the sanitizer build walks the same paths with fewer.
if want slow; then many=100 some=50; else many=20 some=10; fi

# tap LINE: print a case's TAP line, then tap_time.  tap_time: a comment
# with the seconds since the last one, so a batch log shows where CI time
# goes; read from /proc/uptime, because an exec costs 50-100 ms under TCG.
tap_uptime() {
	read tap_up _ </proc/uptime 2>/dev/null || tap_up=0.00
	tap_up=${tap_up%.*}${tap_up#*.}
}
tap_uptime; tap_last=$tap_up
tap_time() {
	tap_uptime
	tap_d=$((tap_up - tap_last)); tap_last=$tap_up
	echo "# time $((tap_d / 100)).$((tap_d / 10 % 10)) s"
}
tap() {
	echo "$1"
	tap_time
}

# wait_for FILE PID: until FILE exists, PID is gone, or 30 s passed.
wait_for() {
	i=0
	while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# pair NAME "SERVER ARGS" "CLIENT ARGS": the server gets -r READYFILE -p PORT,
# the client -p PORT; each runs under a timeout on its own host.
pair() {
	name=$1; port=$((port + 1))
	ready=$work/$name.ready
	rm -f "$ready"
	timeout 120 $RPCRDMA_SERVER_EXEC $2 -p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	if [ -e "$ready" ]; then
		timeout 120 $RPCRDMA_CLIENT_EXEC $3 -p $port >"$work/$name.client" 2>&1
		crc=$?
		# A failed client may never tell the server to stop.
		[ $crc -eq 0 ] || kill -TERM $spid 2>/dev/null
	else
		crc=125
		echo "server never became ready" >"$work/$name.client"
	fi
	wait $spid
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name (client exit $crc, server exit $src)"
		for f in server client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}

# second_client_addr: a second address on the client host, cli2, for a
# hostile peer: the server's stall budget is per peer address (svc_stall_ms),
# so a bystander on $cli must not share it.  Idempotent.
second_client_addr() {
	case $kind in
	rxe)
		cli2=10.20.0.3
		ip addr show dev rxeC | grep -q " $cli2/" && return 0
		ip addr add $cli2/32 dev rxeC &&
		ip route add $cli2 dev rxeS src $srv table 101 &&
		ip rule add pref 100 to $cli2 iif lo lookup 101 &&
		ip rule add pref 101 to $cli2 oif rxeS lookup 101
		;;
	siw)
		cli2=10.21.0.3
		ip -n rpccli addr show dev siwC | grep -q " $cli2/" && return 0
		ip -n rpccli addr add $cli2/24 dev siwC
		;;
	*)	cli2=$cli; return 1 ;;
	esac
	sleep 0.5	# rxe: the GID table follows the address
}
