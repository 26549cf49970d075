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

# want KIND: whether this run's scope (RPCRDMA_TEST_SCOPE) takes cases of
# KIND.  full (the default build) takes all; san (the sanitizer build)
# leaves out "timing" cases, whose point is when things happen, not what
# memory they touch; smoke (distcheck) takes only "smoke" cases: there
# the batch proves the tarball carries what the tests need.
want() {
	case $scope in
	full) return 0 ;;
	san) [ "$1" != timing ] ;;
	smoke) [ "$1" = smoke ] ;;
	*) return 0 ;;
	esac
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
		echo "ok - $kind: $name"
	else
		echo "not ok - $kind: $name (client exit $crc, server exit $src)"
		for f in server client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}

