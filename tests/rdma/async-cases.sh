# Asynchronous calls, clnt_rdma_call_async(3) (sourced by cases.sh and
# run-cases.sh): one thread with many calls in flight, every Reply
# verified, every callback run exactly once, under each way of driving
# them and under the hostile cases.

# The program's loop polls the descriptor; 128 in flight, mixed sizes
# (inline, Read chunks, Reply chunks).
pair async-fd \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/async_client -m fd -d 128 -n $((many * 20)) -a $srv -b $cli"

# clnt_rdma_progress waits (spins, then sleeps as a poller), with a
# thread making blocking calls on the same CLIENT meanwhile.
pair async-wait-blocking \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/async_client -m wait -B -d 32 -n $((many * 10)) -a $srv -b $cli"

# The library's progress thread runs the callbacks, which start the next
# calls; the hostile sequence: timeouts among answered calls, credit
# starvation (2 credits, then every credit held by abandoned calls, the
# recovery counted) and clnt_destroy with calls in flight (RPC_INTR).
pair async-thread-hostile \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/async_client -m thread -H -a $srv -b $cli"

# The server killed and started again on the same port with 32 calls in
# flight: the CLIENT reconnects, the calls go again (counted) and every
# one completes, verified, its callback once.
asyncrestart() {
	name=$1; shift; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	rm -f "$ready" "$flag"
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	timeout 100 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/async_client" "$@" \
		-a "$srv" -b "$cli" -p $port -Y "$flag" >"$work/$name.client" 2>&1 &
	cpid=$!
	wait_for "$flag" $cpid
	pkill -KILL -f "echo_server -a $srv -p $port "
	wait $spid
	rm -f "$ready"
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server2" 2>&1 &
	spid=$!
	wait $cpid
	crc=$?
	[ $crc -eq 0 ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		tap "ok - $kind: $name # $(grep 'server restart' "$work/$name.client")"
	else
		tap "not ok - $kind: $name (client exit $crc, server exit $src)"
		awk '{ print "# client: " $0 }' "$work/$name.client"
		failed=1
	fi
}
asyncrestart async-restart -m fd -d 32
