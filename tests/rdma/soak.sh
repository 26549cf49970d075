#!/bin/sh
# Load and soak on the current bed: soak_client's connections x calls in
# flight against a threaded echo_server for a while, every Reply verified;
# then the server's descriptors, registered (pinned) memory and RSS must
# be back to what they were before the clients came, and the server must
# have received exactly the Calls the clients sent.  One TAP line.  The
# baseline is taken after one chunked Call on a connection that has gone
# again: the listener's chunk pool (pool_size) is registered on first use
# and kept, as the listener's own; what connections hold must all go.
# RPCRDMA_SOAK_CONNS, RPCRDMA_SOAK_INFLIGHT, RPCRDMA_SOAK_SECS,
# RPCRDMA_SOAK_MAX (largest echo) size it; the defaults are the short run.
kind=${RPCRDMA_TESTBED:?}
b=${RPCRDMA_TEST_BUILDDIR:?}
srv=${RPCRDMA_SERVER_ADDR:?}
cli=${RPCRDMA_CLIENT_ADDR:?}
conns=${RPCRDMA_SOAK_CONNS:-8}
inflight=${RPCRDMA_SOAK_INFLIGHT:-8}
secs=${RPCRDMA_SOAK_SECS:-5}
max=${RPCRDMA_SOAK_MAX:-131072}
# The test bed's siw cannot map more than about 144 pages of queues into
# one process (found with plain verbs: the 145th CQ of 1 or 64 entries
# fails, the 17th of 1024), and a connection of 32 credits maps about 8
# (CQ, SQ, RQ): neither the server nor a client process holds more than
# 18 such connections there, 48 of one credit.
if [ "$kind" = siw ] && [ "$conns" -gt 16 ]; then
	echo "# siw: $conns connections capped at 16 (the bed maps ~144 queue pages a process)"
	conns=16
fi
name=soak-${conns}x${inflight}-${secs}s
work=$b/tests/rdma/work/$kind
port=${RPCRDMA_SOAK_PORT:-20990}
mkdir -p "$work"
ready=$work/$name.ready
rm -f "$ready"

# status field of /proc/PID/status, in kB
field() { awk -v f="$2:" '$1 == f { print $2 }' /proc/$1/status 2>/dev/null; }
fds() { ls /proc/$1/fd 2>/dev/null | wc -l; }

timeout $((secs + 600)) $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -j 4 \
	-a "$srv" -p $port -r "$ready" >"$work/$name.server" 2>&1 &
spid=$!
i=0
while [ ! -e "$ready" ] && kill -0 $spid 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.05; i=$((i + 1))
done
# The server process itself (the prefix may have exec'd into it).
pid=$(pgrep -f "^[^ ]*echo_server -j 4 -a $srv -p $port " | head -n 1)
why=
[ -n "$pid" ] || why="no server process"
# Under AddressSanitizer freed memory waits in its quarantine: seen while
# the server lives (its maps are gone once it exits).
asan=0
grep -q libasan "/proc/$pid/maps" 2>/dev/null && asan=1
fd0=$(fds $pid)
timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/soak_client" -W \
	-a "$srv" -b "$cli" -p $port >"$work/$name.warmup" 2>&1 || why="warm-up failed"
i=0
while [ "$(fds $pid)" != "$fd0" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pin0=$(field $pid VmPin) rss0=$(field $pid VmRSS)
timeout $((secs + 420)) $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/soak_client" \
	-a "$srv" -b "$cli" -p $port -c $conns -t $inflight -D $secs -M $max \
	>"$work/$name.client" 2>&1
crc=$?
# The connections go down asynchronously: give the server a moment.
i=0
while [ $i -lt 100 ]; do
	fd1=$(fds $pid) pin1=$(field $pid VmPin)
	[ "$fd1" = "$fd0" ] && [ "$pin1" = "$pin0" ] && break
	sleep 0.1; i=$((i + 1))
done
rss1=$(field $pid VmRSS)
timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/soak_client" -S \
	-a "$srv" -b "$cli" -p $port >>"$work/$name.client" 2>&1
# The server also counts the warm-up's Call and SHUTDOWN.
wait $spid
src=$?
sent=$(sed -n 's/.*calls sent \([0-9]*\),.*/\1/p' "$work/$name.client")
got=$(sed -n 's/^server: calls \([0-9]*\) .*/\1/p' "$work/$name.server")
summary="fds $fd0->$fd1, pinned ${pin0}->${pin1} kB, rss ${rss0}->${rss1} kB, server calls $got, client calls $sent"
[ $crc -eq 0 ] || why="$why client exit $crc"
[ $src -eq 0 ] || why="$why server exit $src"
[ "$fd1" = "$fd0" ] || why="$why descriptors not back"
[ "$pin1" = "$pin0" ] || why="$why registered memory not back"
# RSS: freed memory may stay in malloc's arenas; a leak per call would not.
slack=65536
[ $asan = 1 ] && slack=$((slack + 262144))
[ -n "$rss1" ] && [ -n "$rss0" ] && [ $rss1 -le $((rss0 + slack)) ] ||
	why="$why RSS grew more than $((slack / 1024)) MiB"
[ -n "$sent" ] && [ "$got" = "$((sent + 2))" ] ||
	why="$why the server did not receive exactly the Calls sent (+ warm-up, + SHUTDOWN)"
calls=$(sed -n "s/.*: \([0-9]*\) calls verified.*/\1/p" "$work/$name.client")
if [ -z "$why" ]; then
	echo "ok - $kind: $name # $calls calls verified; $summary"
else
	echo "not ok - $kind: $name ($why; $summary)"
	for f in server client; do
		awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f" | tail -n 20
	done
	exit 1
fi
