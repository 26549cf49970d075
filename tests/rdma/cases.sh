#!/bin/sh
# Every RDMA test case, run on the current test bed (RPCRDMA_TESTBED) with a
# server on one host and a client on the other.  One TAP line per case; exits
# non-zero if any failed.  Servers signal readiness with a file, never a sleep.
# (tests/rdma/run-cases.sh runs one file of cases alone, for development.)
work=${RPCRDMA_TEST_BUILDDIR:?}/tests/rdma/work/${RPCRDMA_TESTBED:?}
rm -rf "$work" && mkdir -p "$work" || exit 1
. "$(dirname "$0")/lib.sh"
# The files of cases this one sources, in order (each sourced below); the
# timing ones (bystander latencies, the bench) only where want timing.
case_files="conf-cases.sh chain-cases.sh drc-cases.sh srq-cases.sh clnt-cases.sh async-cases.sh rpcb-cases.sh
	xdr-cases.sh nfs3-cases.sh probe-cases.sh preload-cases.sh creds-cases.sh
	swi-cases.sh gss-cases.sh"
timing_files="fair-cases.sh bench-cases.sh"
# Left out where not want slow: configuration's effects on real verbs
# (the parser itself is unit-tested and fuzzed in every build), the
# kernel's NFS client against the tests' own NFSv3 server (its paths in
# the library are those of the chunk cases), and the USDT probes (about
# 80 s for both beds; a probe site adds no memory access to check).
slow_files="conf-cases.sh nfs3-cases.sh probe-cases.sh"
# Run on rxe's bed only: the probes fire from code both beds share, and
# each is checked against a counter, not against the device (about 48 s
# a bed under emulation).
rxe_only_files="probe-cases.sh"
# Files of common cases only (lib.sh, want common); drc-cases.sh and
# swi-cases.sh mark their common cases themselves.
common_files="chain-cases.sh clnt-cases.sh async-cases.sh rpcb-cases.sh"
common_files="$common_files xdr-cases.sh preload-cases.sh creds-cases.sh gss-cases.sh"

pair bedproof \
	"$b/tests/rdma/bedproof server -v -a $srv" \
	"$b/tests/rdma/bedproof client -v -a $srv -b $cli"
if ! want full-batch; then
	# distcheck: one chunked call on top, and every file of cases shipped.
	pair chunks-smoke \
		"$b/tests/rdma/echo_server -F 0 -a $srv" \
		"$b/tests/rdma/chunk_client -K auto -a $srv -b $cli -t 1"
	for f in lib.sh soak.sh acceptrace.sh bench-check.py bench-sweep-check.py $case_files $timing_files; do
		[ -r "$(dirname "$0")/$f" ] && continue
		tap "not ok - $kind: tests/rdma/$f is missing"
		failed=1
	done
	exit $failed
fi

# The siw bed's module carries the accept fix (tools/rdma-vm, SIW_PATCH):
# a client's first Send right after connecting is never left unread in the
# server's socket.  Debian's siw leaves about 1 % so (the rare
# credit-starvation failure): 300 cycles catch an unfixed bed 19 times in 20.
if [ "$kind" = siw ] && want slow; then
	sh "$(dirname "$0")/acceptrace.sh" -d 120 300 >"$work/acceptrace.out" 2>&1
	arc=$?
	if [ $arc -eq 0 ] && grep -q "^cycles 300 .* stuck 0$" "$work/acceptrace.out"; then
		tap "ok - siw: bed-accept-first-send # $(grep '^cycles ' "$work/acceptrace.out")"
	else
		tap "not ok - siw: bed-accept-first-send (exit $arc; 3: first Sends stuck, the bed's siw.ko lacks the fix)"
		awk '{ print "# acceptrace: " $0 }' "$work/acceptrace.out" | tail -20
		failed=1
	fi
fi

# killmid NAME: the server is killed (SIGKILL) while a call is in flight.
killmid() {
	name=$1; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	# A run of this file alone (run-cases.sh) keeps the last run's files.
	rm -f "$ready" "$flag"
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	# Without reconnection: the call fails, and so do later ones, at once.
	RPCRDMA_RECONNECT_TRIES=0 timeout 60 $RPCRDMA_CLIENT_EXEC \
		"$b/tests/rdma/echo_client" -a "$srv" \
		-b "$cli" -p $port -k "$flag" >"$work/$name.client" 2>&1 &
	cpid=$!
	wait_for "$flag" $cpid
	# Let the Call reach the server, then kill it without warning.
	sleep 0.5
	pkill -KILL -f "echo_server -a $srv -p $port " 
	wait $spid
	wait $cpid
	crc=$?
	if [ $crc -eq 0 ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name (client exit $crc)"
		awk '{ print "# client: " $0 }' "$work/$name.client"
		failed=1
	fi
}

# Common cases (lib.sh, want common): the sanitizer build runs them
# on its bed; CI's normal build there does not.
if want common; then
# ... with the driver's signal_every in force: every Send signaled on siw
# (rpcrdma.conf(5), DRIVER DEFAULTS), one in 8 elsewhere; the served
# Calls' shared receives go back in batches (-K).
if [ "$kind" = siw ]; then sig=1; else sig=8; fi
pair rpc-echo \
	"$b/tests/rdma/echo_server -K -a $srv" \
	"$b/tests/rdma/echo_client -a $srv -b $cli -t 40 -n $many -E $sig"

# Replies other than SUCCESS, both ways through the full XDR path: an
# unknown procedure, undecodable arguments, a version mismatch (range).
pair rpc-error-replies \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/echo_client -U -a $srv -b $cli"

# Callers abandon calls (timeouts) while others wait or poll the CQ.
pair abandoned-calls \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/echo_client -A -a $srv -b $cli -t 8 -n 20"

pair bad-replies \
	"$b/tests/rdma/badserver -a $srv" \
	"$b/tests/rdma/badreply_client -a $srv -b $cli"

killmid server-killed-mid-call
fi	# want common

# restartmid NAME: the server is killed while a call is in flight and
# started again on the same port; the client reconnects, the call goes
# again with its xid (its trace shows that xid posted twice) and completes,
# and the same CLIENT carries later calls.
restartmid() {
	name=$1; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	# A run of this file alone (run-cases.sh) keeps the last run's files.
	rm -f "$ready" "$flag"
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	RPCRDMA_DEBUG=1 timeout 100 $RPCRDMA_CLIENT_EXEC \
		"$b/tests/rdma/fault_client" -a "$srv" -b "$cli" -p $port \
		-Y "$flag" >"$work/$name.client" 2>"$work/$name.trace" &
	cpid=$!
	wait_for "$flag" $cpid
	# Let the Call reach the server, then kill it and start another.
	sleep 0.5
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
	dup=$(sed -n 's/.*client: Call xid \(0x[0-9a-f]*\),.*/\1/p' \
		"$work/$name.trace" | sort | uniq -d | head -n 1)
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ -n "$dup" ]; then
		tap "ok - $kind: $name # xid $dup sent twice"
	else
		tap "not ok - $kind: $name (client exit $crc, server exit $src, xid sent twice: '${dup}')"
		awk '{ print "# client: " $0 }' "$work/$name.client"
		grep -v "^client: Call\|Reply of" "$work/$name.trace" | tail -n 30 |
			awk '{ print "# trace: " $0 }'
		failed=1
	fi
}
want common && restartmid server-restarted-mid-call

# Link cuts with calls in flight: each call
# returns within its timeout, and the same CLIENT works after.  siw: the
# client's veth goes down.  rxe: both veths drop every packet (netem), as
# with the two hosts in one namespace a veth set down only sends the
# traffic through loopback instead.
link_set() {
	if [ "$kind" = rxe ]; then
		# As few programs as can be between the Calls and the cut: each
		# exec costs 50-100 ms under TCG, and the server answers after 1 s
		# (sch_netem is loaded before the calls; tc add fails if it can't).
		for d in rxeC rxeS; do
			if [ "$1" = down ]; then
				tc qdisc add dev $d root netem loss 100% 2>>"$work/$name.cut" ||
					return 1
			else
				tc qdisc del dev $d root 2>>"$work/$name.cut" || return 1
			fi
		done
	else
		ip -n rpccli link set siwC "$1" 2>>"$work/$name.cut"
	fi
}
# linkcut NAME SECS [-T]: the link is down for SECS with calls in flight.
# A cut that landed after the 1 s Replies (a loaded host) tested nothing:
# the case then runs once more, said in its TAP line.
linkcut() {
	linkcut_again=
	linkcut_once "$@"
	if [ -n "$late" ]; then
		linkcut_once "$@"
		note="${note:+$note, }the first cut landed after the Replies"
	fi
	linkcut_settle "$1"
	if [ -n "$skip" ]; then
		tap "ok - $kind: $1 # SKIP the link could not be cut: $skip"
	elif [ -z "$why" ]; then
		tap "ok - $kind: $1 # $note"
	else
		tap "not ok - $kind: $1 ($why)"
		for f in server client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$1.$f"
		done
		failed=1
	fi
}
# linkcut_settle: after a cut a new connection may not get through at
# once (rxe: seen timing out for seconds to minutes after a 5 s cut,
# though the connection that lived through the cut works again): wait,
# at most 60 s, until a bedproof pair connects, so the next case starts
# on a working bed; the wait goes into note (settled), or why.
linkcut_settle() {
	st=0 settled=
	while [ $st -lt 12 ]; do
		port=$((port + 1))
		rm -f "$work/$1.settle.ready"
		timeout 30 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/bedproof" server -a "$srv" \
			-p $port -r "$work/$1.settle.ready" >"$work/$1.settle" 2>&1 &
		sp=$!
		wait_for "$work/$1.settle.ready" $sp
		if timeout 20 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/bedproof" client \
			-a "$srv" -b "$cli" -p $port >>"$work/$1.settle" 2>&1; then
			wait $sp
			settled=1
			break
		fi
		kill -TERM $sp 2>/dev/null
		wait $sp
		st=$((st + 1))
		sleep 5
	done
	if [ -z "$settled" ]; then
		why="${why:+$why; }no new connection within 60 s after the cut"
	elif [ $st -gt 0 ]; then
		note="${note:+$note, }a new connection got through after $st retries"
	fi
}
linkcut_once() {
	name=$1 secs=$2 lost=$3; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	# A run of this file alone (run-cases.sh) keeps the last run's files.
	rm -f "$ready" "$flag"
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -j 4 \
		-a "$srv" -p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	# The guest does not load qdisc modules by itself.
	[ "$kind" = rxe ] && modprobe sch_netem 2>>"$work/$name.cut"
	timeout 110 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/fault_client" \
		-a "$srv" -b "$cli" -p $port -W "$flag" $lost >"$work/$name.client" 2>&1 &
	cpid=$!
	wait_for "$flag" $cpid
	sleep 0.2
	cut=ok
	link_set down || cut=no
	sleep $secs
	link_set up || cut=no
	wait $cpid
	crc=$?
	[ $crc -eq 0 ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	# The calls sleep 1 s: through a cut of seconds none is done in 1.5 s.
	fast=$(grep -c ': RPC: Success after 1\.[0-4]' "$work/$name.client")
	skip= why= late= note=
	if [ $cut != ok ]; then
		skip=$(head -n 1 "$work/$name.cut" 2>/dev/null)
	elif [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$fast" = 0 ]; then
		note="$(grep -c ': RPC: Success after' "$work/$name.client") completed"
	elif [ $crc -eq 0 ] && [ $src -eq 0 ] && [ -z "$linkcut_again" ]; then
		late=1 linkcut_again=1
	else
		why="client exit $crc, server exit $src, $fast calls done before the link came back"
	fi
}
want timing && linkcut link-cut-mid-call 3
# A cut longer than the calls' 8 s timeout: each call in flight fails
# with RPC_TIMEDOUT within it, and the CLIENT works once the link is back.
# Neither bed loses the connection to a cut of seconds (rxe retransmits
# on, siw rides TCP's retransmissions), so this is what a caller sees.
want timing && linkcut link-cut-outlasts-timeout 12 -T

if want common; then	# (common cases, as above)
# The short soak: connections x calls in flight, mixed sizes, every Reply
# verified, the server's descriptors and memory back after (soak.sh;
# `make soak` runs the long one).
sh "$(dirname "$0")/soak.sh" || failed=1
tap_time

# Calls the server drops, abandoned by their callers, hold every credit:
# the next call recovers by reconnecting.  -S: should a call time out,
# the server's counters say whether its Call or its Reply went missing.
pair credit-starvation \
	"$b/tests/rdma/echo_server -S -a $srv" \
	"$b/tests/rdma/fault_client -Z -a $srv -b $cli"

# Eight blocking callers on 2 credits, without pause: when one has made
# 300 calls, each of the others has made at least 75 (credits go to
# waiting callers in the order they came).
pair credits-in-order \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/echo_client -F -a $srv -b $cli -t 8 -n 300"

[ "$kind" = rxe ] && { sh "$(dirname "$0")/nfs-interop.sh" || failed=1; tap_time; }

# Each Send strategy forced on both sides, then auto; mapped also from a
# caller-registered buffer (no copy, no hot-path registration).  Each
# client echoes every length from 0 to the inline limit (4024), one call
# each; the sanitizer build stops at 2100 (past 2048, where a mapped Send
# of unregistered memory registers), half the calls on the same paths.
sweep=; want slow || sweep="-m 2100"
for st in inline pullup mapped auto; do
	pair "strategy-$st" \
		"$b/tests/rdma/echo_server -s $st -a $srv" \
		"$b/tests/rdma/echo_client $sweep -s $st -I 512 -a $srv -b $cli -t 4 -n $some"
done
pair strategy-mapped-cached \
	"$b/tests/rdma/echo_server -s mapped -a $srv" \
	"$b/tests/rdma/echo_client $sweep -s mapped -C 8 -a $srv -b $cli -t 4 -n $some"
# Replies by svc_rdma_sendreply_async, gathered from the results (mapped):
# the server never waits for a Send, releases (which poison the results)
# run once each, and every reply arrives intact.
pair strategy-mapped-async \
	"$b/tests/rdma/echo_server -A -s mapped -a $srv" \
	"$b/tests/rdma/echo_client $sweep -s mapped -a $srv -b $cli -t 4 -n $some"
pair strategy-mapped-registered \
	"$b/tests/rdma/echo_server -s mapped -a $srv" \
	"$b/tests/rdma/echo_client $sweep -s mapped -R -a $srv -b $cli -t 4 -n $some"
# svc_sendreply() Replies past send_buffer (17 KiB) to a client that
# receives 64 KiB: their results are copied into a chunk-pool buffer the
# Send gathers, never waited for (-W: rs_reply_waits_for_send 0; -O:
# rs_reply_copies), byte-exact from 17000 to 18500 bytes, auto and forced
# mapped.
pair reply-own-64k \
	"$b/tests/rdma/echo_server -W -O -a $srv" \
	"$b/tests/rdma/echo_client -T 65536 -o 17000 -m 18500 -a $srv -b $cli -t 2 -n 100"
pair reply-own-64k-mapped \
	"$b/tests/rdma/echo_server -W -O -s mapped -a $srv" \
	"$b/tests/rdma/echo_client -T 65536 -o 17000 -m 18000 -s mapped -C 8 -a $srv -b $cli -t 2 -n 100"

# Chunks between our own client and server (the same chunk_client that
# chunkpeer checks below): ECHO_BYTES from the inline threshold to 4 MiB,
# every residue mod 4, byte-exact, from several threads; each Call kind
# forced, the Reply chunk always offered, zero-copy results placed by the
# server's RDMA Writes, and service threads.  One Call at a time fits the
# default chunk pool: no Call falls back to a registration of its own.
for k in auto read long; do
	pair "chunks-ours-call-$k" \
		"$b/tests/rdma/echo_server -F 0 -a $srv" \
		"$b/tests/rdma/chunk_client -K $k -w -a $srv -b $cli -t 3"
done
pair chunks-ours-reply-always-zerocopy \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/chunk_client -X always -z -a $srv -b $cli -t 2"
pair chunks-ours-threaded \
	"$b/tests/rdma/echo_server -j 4 -a $srv" \
	"$b/tests/rdma/chunk_client -z -a $srv -b $cli -t 6"
# One service thread, so one Call of a connection pulls at a time: the
# others wait at the head of its queue for the holder (rs_reads_queued,
# echo_server -Q), every echo byte-exact.
pair chunks-ours-one-holder \
	"$b/tests/rdma/echo_server -j 1 -Q -a $srv" \
	"$b/tests/rdma/chunk_client -K read -a $srv -b $cli -t 3"
# The default inline sizes (17 KiB each way) on both ends: a 16 KiB echo
# and the largest that fits cross in one Send each way, nothing
# registered; one word more and the Call goes in a Read chunk.
pair chunks-ours-default-inline \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/chunk_client -D -a $srv -b $cli"
# Automatic Reply chunks: an offer costs a registration (siw) or a
# window's bind and invalidation (rxe), so the client learns per procedure
# on both (probe, none once Replies came inline, one retry after ERR_CHUNK).
pair chunks-ours-reply-learning \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/chunk_client -L -a $srv -b $cli"

# The chunk pool.  A 2 MiB region of the program's (huge pages if any) and
# no pool of our own (pool_size 0 from the environment): Calls up to 2 MiB
# use the region, the 4 MiB ones overflow into per-Call registrations.  A
# region that holds a 4 MiB Call and its Reply leaves none; a 64K pool of
# our own (and no region) falls back for everything larger.  Every Reply
# byte-exact (chunk_client), the counters checked by the server.
pair chunks-pool-region-overflow \
	"env RPCRDMA_POOL_SIZE=0 $b/tests/rdma/echo_server -P 2097152 -F 1 -a $srv" \
	"$b/tests/rdma/chunk_client -a $srv -b $cli -t 3"
# Enough: each of the 3 connections may hold a 4 MiB Reply chunk's buffer
# until its Send completes, besides the Call served (its Read chunk and
# its Reply): 5 x 4 MiB and change.
pair chunks-pool-region-enough \
	"env RPCRDMA_POOL_SIZE=0 $b/tests/rdma/echo_server -P 23068672 -F 0 -a $srv" \
	"$b/tests/rdma/chunk_client -a $srv -b $cli -t 3"
pair chunks-pool-small \
	"env RPCRDMA_POOL_SIZE=64K $b/tests/rdma/echo_server -F 1 -a $srv" \
	"$b/tests/rdma/chunk_client -K read -a $srv -b $cli -t 3"
pair chunks-pool-region-threaded \
	"env RPCRDMA_POOL_SIZE=1M $b/tests/rdma/echo_server -j 4 -P 4194304 -F 1 -a $srv" \
	"$b/tests/rdma/chunk_client -z -a $srv -b $cli -t 6"

pair rpc-echo-own-loop \
	"$b/tests/rdma/echo_server -l -a $srv" \
	"$b/tests/rdma/echo_client -a $srv -b $cli -m 700 -t 8 -n 50"
fi	# want common

# Service threads (-j): four clients x 8 threads on one threaded server at
# once, every reply verified, then one more that shuts it down.
threaded_many() {
	name=$1 sargs=$2; port=$((port + 1))
	ready=$work/$name.ready
	timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -j 8 $sargs -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	[ -e "$ready" ] || why="server never became ready"
	if [ -z "$why" ]; then
		pids=
		for k in 1 2 3 4; do
			timeout 120 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" -N \
				-a "$srv" -b "$cli" -p $port -m 700 -t 8 -n 50 \
				>"$work/$name.client$k" 2>&1 &
			pids="$pids $!"
		done
		k=0
		for p in $pids; do
			k=$((k + 1))
			wait $p || why="${why}client $k failed (exit $?); "
		done
	fi
	if [ -z "$why" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" \
			-a "$srv" -b "$cli" -p $port -m 100 -t 2 -n 10 \
			>"$work/$name.client" 2>&1 || why="the last client failed (exit $?)"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	if [ -z "$why" ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name ($why)"
		for f in "$work/$name".server "$work/$name".client*; do
			awk -v f="${f##*.}" '{ print "# " f ": " $0 }' "$f"
		done
		failed=1
	fi
}
want common && threaded_many threaded-many-clients
# The same with async mapped Replies, released from whichever thread reaps.
want slow && threaded_many threaded-many-clients-async "-A -s mapped"

if want common; then	# (common cases, as above)
# Calls of ONE connection served in parallel: 8 threads of one CLIENT each
# sleep 300 ms three times on a server with 8 service threads; at least two
# sleeps must have run at once (no timing asserted).
pair threaded-parallel \
	"$b/tests/rdma/echo_server -j 8 -a $srv" \
	"$b/tests/rdma/echo_client -S -a $srv -b $cli -t 8 -n 3"
conc=$(sed -n 's/^server: max concurrent \([0-9]*\)$/\1/p' "$work/threaded-parallel.server")
if [ "${conc:-0}" -ge 2 ]; then
	tap "ok - $kind: threaded-parallel-concurrency # max concurrent $conc"
else
	tap "not ok - $kind: threaded-parallel-concurrency (max concurrent '$conc', expected >= 2)"
	failed=1
fi

# Chunks, client side, against a raw responder that moves them (chunkpeer):
# every size from the inline threshold to 4 MiB from several threads, each
# chunk kind forced, zero-copy results, lying Replies, the stale rkey.
chunks_cases() {
	for k in auto read long; do
		pair "chunks-call-$k" \
			"$b/tests/rdma/chunkpeer -a $srv" \
			"$b/tests/rdma/chunk_client -K $k -a $srv -b $cli -t 3"
	done
	pair chunks-reply-always-zerocopy \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -X always -z -a $srv -b $cli -t 2"
	pair chunks-lying-replies \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -H -a $srv -b $cli -t 1"
	pair stale-rkey \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -R -a $srv -b $cli -t 1"
	pair abandoned-rkey \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -A -a $srv -b $cli -t 1"
}
chunks_cases

pair bad-headers \
	"$b/tests/rdma/echo_server -l -a $srv" \
	"$b/tests/rdma/badpeer -a $srv -b $cli"

# The server under lowered chunk limits (environment, server side only):
# exactly at each limit served, one over each ERR_CHUNK, still serving;
# every refusal counted in rs_chunk_limit.  The control: the same Calls
# to a server with the default limits are all served.
limits_case() {
	lc=chunk-limits		# pair sets name
	pair $lc-control \
		"$b/tests/rdma/echo_server -l -a $srv" \
		"$b/tests/rdma/badpeer -L 8192,2,1 -C -a $srv -b $cli"
	pair $lc \
		"env RPCRDMA_MAX_CHUNK_BYTES=8K RPCRDMA_MAX_CHUNK_SEGS=2 RPCRDMA_MAX_CHUNKS=1 $b/tests/rdma/echo_server -l -a $srv" \
		"$b/tests/rdma/badpeer -L 8192,2,1 -a $srv -b $cli"
	sent=$(sed -n 's/^badpeer: \([0-9]*\) Calls over the limits$/\1/p' "$work/$lc.client")
	counted=$(sed -n 's/^server: chunk_limit \([0-9]*\) .*/\1/p' "$work/$lc.server")
	if [ "${sent:-0}" -gt 0 ] && [ "$counted" = "$sent" ]; then
		tap "ok - $kind: $lc-counted # rs_chunk_limit $counted"
	else
		tap "not ok - $kind: $lc-counted (rs_chunk_limit '$counted', Calls over the limits '$sent')"
		failed=1
	fi
	# Our own client: ERR_CHUNK for a Call and a Reply over 64 KiB, each
	# counted in its rs_err_chunk and in the server's rs_chunk_limit.
	pair $lc-client \
		"env RPCRDMA_MAX_CHUNK_BYTES=64K $b/tests/rdma/echo_server -a $srv" \
		"$b/tests/rdma/chunk_client -M 65536 -a $srv -b $cli"
	sent=$(sed -n 's/^chunk_client: \([0-9]*\) Calls over the limits$/\1/p' "$work/$lc-client.client")
	counted=$(sed -n 's/^server: chunk_limit \([0-9]*\) .*/\1/p' "$work/$lc-client.server")
	if [ "${sent:-0}" -gt 0 ] && [ "$counted" = "$sent" ]; then
		tap "ok - $kind: $lc-client-counted # rs_chunk_limit $counted"
	else
		tap "not ok - $kind: $lc-client-counted (rs_chunk_limit '$counted', Calls over the limits '$sent')"
		failed=1
	fi
}
limits_case

# max_conn_memory: three 64 KiB units beyond the rings (4 KiB each way,
# the client's offer, to which a server fits its rings).  Calls whose
# chunks, or whose Reply, would go past it get ERR_CHUNK (four, counted in
# rs_conn_mem_limit), the others are served, byte-exact, before and after;
# under svc_run() and with service threads.  Then a limit below the rings:
# every connection refused, counted, and the server stops cleanly.
memory_case() {
	mc=$1 sargs=$2
	pair $mc "$b/tests/rdma/echo_server $sargs -T 4096 -m 196608 -a $srv" \
		"$b/tests/rdma/chunk_client -m -a $srv -b $cli"
	counted=$(sed -n 's/^server: chunk_limit .* conn_mem_limit \([0-9]*\)$/\1/p' "$work/$mc.server")
	if [ "$counted" = 4 ]; then
		tap "ok - $kind: $mc-counted # rs_conn_mem_limit $counted"
	else
		tap "not ok - $kind: $mc-counted (rs_conn_mem_limit '$counted', 4 Calls over)"
		failed=1
	fi
}
memory_case conn-memory ""
memory_case conn-memory-threaded "-j 2"
pair conn-memory-rings \
	"env RPCRDMA_MAX_CONN_MEMORY=64K $b/tests/rdma/echo_server -l -x 1 -a $srv" \
	"$b/tests/rdma/chunk_client -g -a $srv -b $cli"
counted=$(sed -n 's/^server: chunk_limit .* conn_mem_limit \([0-9]*\)$/\1/p' "$work/conn-memory-rings.server")
refused=$(sed -n 's/^server: calls .* refused \([0-9]*\) .*/\1/p' "$work/conn-memory-rings.server")
if [ "$counted" = 1 ] && [ "$refused" = 1 ]; then
	tap "ok - $kind: conn-memory-rings-counted # refused $refused"
else
	tap "not ok - $kind: conn-memory-rings-counted (rs_conn_mem_limit '$counted', rs_conns_refused '$refused', 1 expected)"
	failed=1
fi
# A server's rings fitted to its client's offer (RFC 8797): its own
# inline sizes, 256 KiB each way (16 MiB of rings at 32 credits), are far
# over max_conn_memory (3 MiB), yet a client offering the defaults (65 KiB
# sent, 17 KiB received: 2.6 MiB of rings) is taken and served.
pair conn-memory-fitted \
	"env RPCRDMA_MAX_CONN_MEMORY=3M RPCRDMA_MAX_REQUESTS=32 $b/tests/rdma/echo_server -T 262144 -a $srv" \
	"$b/tests/rdma/echo_client -a $srv -b $cli -t 2 -n 10"

# The caller's and the local address (svc_getrpccaller, xp_ltaddr) of
# every Call, and the listener's own xp_ltaddr, against the test bed's.
pair caller-address \
	"$b/tests/rdma/echo_server -c -a $srv" \
	"$b/tests/rdma/echo_client -a $srv -b $cli -t 2 -n 10"
f=$work/caller-address.server
why=
grep -q "^server: listener local $srv port $((port)) xp_port $((port))\$" "$f" ||
	why="listener xp_ltaddr is not $srv port $port; "
calls=$(grep -c "^server: caller " "$f")
good=$(grep -c "^server: caller $cli port [1-9][0-9]* local $srv port $port\$" "$f")
[ "$calls" -ge 1 ] && [ "$calls" = "$good" ] ||
	why="${why}$good of $calls caller lines name $cli and $srv:$port"
if [ -z "$why" ]; then
	tap "ok - $kind: caller-address-checked # $calls connection(s)"
else
	tap "not ok - $kind: caller-address-checked ($why)"
	awk '{ print "# server: " $0 }' "$f"
	failed=1
fi

# Bounded servers, each checked by a raw peer that watches the server's
# descriptors, pinned memory and connections come back to what they were:
# 30 connections abandoned right after connect (half closed, half their
# process gone), a Send larger than the receive buffers and Calls over the
# credits (each costs at most that peer its connection), max_connections.
pair abandoned-connections \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/boundpeer -m abandon -n 30 -S -a $srv -b $cli"
pair oversized-send \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/boundpeer -m oversize -S -a $srv -b $cli"
pair over-credits \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/boundpeer -m overcredit -S -a $srv -b $cli"
pair max-connections \
	"$b/tests/rdma/echo_server -M 3 -a $srv" \
	"$b/tests/rdma/boundpeer -m limit -n 3 -S -a $srv -b $cli"
# idle_timeout_ms 2 s: a silent connection is closed, a busy one stays;
# under svc_run() (the timer) and with service threads (the leader).
pair idle-timeout \
	"$b/tests/rdma/echo_server -i 2000 -a $srv" \
	"$b/tests/rdma/boundpeer -m idle -n 2000 -S -a $srv -b $cli"
pair idle-timeout-threaded \
	"$b/tests/rdma/echo_server -j 2 -i 2000 -a $srv" \
	"$b/tests/rdma/boundpeer -m idle -n 2000 -S -a $srv -b $cli"

# killedclient NAME CLIENT: a client is killed (SIGKILL) mid-call; the
# server must free its connection and all it held (descriptors, pinned
# memory back to a baseline taken with one raw peer connected), count it
# lost and freed, and serve on.  The baseline and settle peers come from
# the client host's second address: the killed client's chunks stall the
# server past its budget, whose teardown then refuses the killed client's
# address a while (svc_stall_ms in rpcrdma.conf(5)).
second_client_addr || cli2=$cli
killedclient() {
	name=$1 cargs=$2; port=$((port + 1))
	ready=$work/$name.ready flag=$work/$name.calling
	# A run of this file alone (run-cases.sh) keeps the last run's files.
	rm -f "$ready" "$flag"
	timeout 200 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	# The listener's chunk pool is registered by the first chunked Call
	# and kept (the listener's own), so it belongs in the baseline: one
	# chunked Call first, then the baseline once its connection is gone.
	timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/soak_client" -W \
		-a "$srv" -b "$cli" -p $port >"$work/$name.warmup" 2>&1 ||
		why="warm-up failed (exit $?)"
	i=0
	while [ -z "$why" ]; do
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/boundpeer" -m status \
			-a "$srv" -b "$cli2" -p $port >"$work/$name.peer" 2>&1 ||
			why="no baseline (exit $?)"
		conns=$(sed -n 's/^status [0-9]* [0-9]* \([0-9]*\) .*/\1/p' "$work/$name.peer")
		[ "$conns" = 1 ] || [ $i -ge 50 ] && break
		sleep 0.1; i=$((i + 1))
	done
	base=$(sed -n 's/^status \([0-9]*\) \([0-9]*\) .*/\1:\2/p' "$work/$name.peer")
	if [ -z "$why" ]; then
		RPCRDMA_RECONNECT_TRIES=0 timeout 100 $RPCRDMA_CLIENT_EXEC $cargs \
			-p $port >"$work/$name.client" 2>&1 &
		cpid=$!
		wait_for "$flag" $cpid
		# Let the Call (and its chunks) reach the server, then kill the
		# client itself (cpid is its timeout wrapper), by its flag path.
		sleep 1
		kill -0 $cpid 2>/dev/null || why="the client ended before it was killed"
		pkill -KILL -f -- "$flag"
		wait $cpid
		crc=$?
		[ -n "$why" ] || [ $crc -eq 137 ] || why="the client was not killed (exit $crc)"
	fi
	if [ -z "$why" ]; then
		timeout 100 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/boundpeer" -m settle \
			-B "$base" -S -a "$srv" -b "$cli2" -p $port \
			>>"$work/$name.peer" 2>&1 || why="the server did not free it (exit $?)"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	# settled ACCEPTED REFUSED LOST FREED CONNS
	lost=$(sed -n 's/^settled [0-9]* [0-9]* \([0-9]*\) .*/\1/p' "$work/$name.peer")
	[ -n "$why" ] || [ "${lost:-0}" -ge 1 ] || why="conns_lost '$lost', expected >= 1"
	if [ -z "$why" ]; then
		tap "ok - $kind: $name # baseline fds:vmpin_kb $base, lost $lost"
	else
		tap "not ok - $kind: $name ($why)"
		for f in server client peer; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}
# Killed while the server sleeps in its Call, and while the server pulls
# a 4 MiB Call's Read chunks (chunk_client writes the flag first).
killedclient client-killed-mid-call \
	"$b/tests/rdma/echo_client -D 3000 -a $srv -b $cli -k $work/client-killed-mid-call.calling"
killedclient client-killed-mid-chunks \
	"$b/tests/rdma/chunk_client -K read -F $work/client-killed-mid-chunks.calling -a $srv -b $cli -t 2"
fi	# want common

# stall NAME SARGS RECV_BUFFERS: a raw peer sends 65 Calls and never posts
# a receive, so the server's Replies to it cannot be delivered (rxe: they
# sit in RNR retry and their Sends never complete; siw: iWARP has no RNR,
# that connection terminates).  While the peer stays connected, a bystander
# client and then a connection made after the stall must be served in
# time; once the peer has gone, the server must still serve, shut down
# cleanly, and report the connection it closed.  No thread ever waits for
# the peer (stalled_conns 0, and -W: no Reply waited for its Send): with
# rings of their own (recv_buffers 0) its first 32 Replies hold every send
# context, the next 32 are parked, and the 65th shows more Replies out
# than any grant allows; on shared receive queues its Calls past its one
# credit are its undoing first.  Either way it exceeded its grant
# (rs_grant_exceeded; rings on rxe only: on siw the first Reply ends it).
stall() {
	name=$1 sargs=$2 rbufs=$3 pargs=$4; port=$((port + 1))
	ready=$work/$name.ready sent=$work/$name.sent stop=$work/$name.stop
	# A ring of 32 Replies' send contexts (max_requests): the peer's 65
	# Calls fill it and the parked queue (with the default 128 they would
	# not).
	timeout 300 $RPCRDMA_SERVER_EXEC env RPCRDMA_SVC_STALL_MS=1s \
		RPCRDMA_RECV_BUFFERS=$rbufs RPCRDMA_MAX_REQUESTS=32 \
		"$b/tests/rdma/echo_server" -W $sargs -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	# Its own address: the server refuses a stalled peer's address a
	# while (svc_stall_ms), and the clients below are on $cli.
	second_client_addr || echo "no second client address" >"$work/$name.peer"
	timeout 240 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/norecv_peer" -a "$srv" \
		-b "$cli2" -p $port -n 65 -f "$sent" -s "$stop" -i 200 $pargs \
		>"$work/$name.peer" 2>&1 &
	ppid=$!
	wait_for "$sent" $ppid
	why=
	[ -e "$sent" ] || why="the peer's Calls never went out"
	# The bystander, then a new connection, each within 60 s.
	if [ -z "$why" ]; then
		t0=$(date +%s)
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" -N \
			-a "$srv" -b "$cli" -p $port -m 700 -t 4 -n 50 \
			>"$work/$name.client" 2>&1 ||
			why="the bystander was not served (exit $?)"
		echo "bystander: $(($(date +%s) - t0)) s" >>"$work/$name.client"
	fi
	if [ -z "$why" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" -N \
			-a "$srv" -b "$cli" -p $port -m 100 -t 2 -n 20 \
			>>"$work/$name.client" 2>&1 ||
			why="a connection made after the stall was not served (exit $?)"
	fi
	[ -n "$why" ] || kill -0 $ppid 2>/dev/null ||
		why="the peer left before the others were served"
	touch "$stop"
	wait $ppid
	prc=$?
	[ -n "$why" ] || [ $prc -eq 0 ] || why="the peer failed (exit $prc)"
	# The peer has gone: the server still serves, then shuts down.
	if [ -z "$why" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" \
			-a "$srv" -b "$cli" -p $port -m 100 -t 2 -n 10 \
			>>"$work/$name.client" 2>&1 ||
			why="the last client was not served (exit $?)"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	stalled=$(sed -n 's/^server: calls .* stalled_conns \([0-9]*\) .*/\1/p' \
		"$work/$name.server")
	exceeded=$(sed -n 's/^server: srq grant_exceeded \([0-9]*\) .*/\1/p' \
		"$work/$name.server")
	# The peer's connection went down while it stayed.  rxe: the server
	# closed it; siw: it failed by itself.
	if [ -z "$why" ] && ! grep -q "the server disconnected us" "$work/$name.peer"; then
		why="the peer's connection was never torn down"
	fi
	if [ -z "$why" ] && [ "$stalled" != 0 ]; then
		why="stalled_conns '$stalled': a thread waited for the peer"
	fi
	if [ -z "$why" ] && { [ "$rbufs" != 0 ] || [ "$kind" = rxe ]; } &&
	   [ "$exceeded" != 1 ]; then
		why="grant_exceeded '$exceeded', expected 1"
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
want common && stall stalled-peer "" 0
# Mapped Replies of svc_sendreply(): copied, never waited for.
want slow && stall stalled-peer-mapped "-s mapped" 0
# Async Replies to the stalled peer are released when it is torn down.
want slow && stall stalled-peer-async "-A -s mapped" 0
# The same peer on shared receive queues: closed for its Calls past its
# grant before any Reply can stall.  It asks for 1 credit and its first
# Call sleeps, so the burst is queued behind it and past the grant of 1
# whenever the first Reply goes (asking 32, a server that answered Call
# 0 before the rest arrived granted the whole burst, and on siw that
# Reply ended the connection before anything was past its grant).
want common && stall stalled-peer-srq "" 512 "-c 1 -S 300"

# readstall NAME SARGS: a raw peer sends an ECHO_SLEEP of 300 ms, then an
# ECHO_BYTES whose 64 KiB the server must RDMA Read, and moves its QP to
# the error state once both are sent, telling the connection manager
# nothing: the Reads, posted after the sleep, get no answer (on both beds
# the connection then ends within a few ms: the peer is lost mid-Read).
# A bystander must be served meanwhile and after; no wait ran out
# (stalled_conns 0); and a Call's Reads were still under way when the
# thread went on (rs_reads_deferred, the Read-chunk Calls of the clients
# included): under svc_run, and with service threads (-j), whose held
# Calls any thread steps on (svc_hold.c).
readstall() {
	name=$1 sargs=$2; port=$((port + 1))
	ready=$work/$name.ready sent=$work/$name.sent stop=$work/$name.stop
	rm -f "$work/$name".*
	timeout 200 $RPCRDMA_SERVER_EXEC env RPCRDMA_SVC_STALL_MS=1s \
		"$b/tests/rdma/echo_server" -W $sargs -a "$srv" \
		-p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	second_client_addr || why="no second client address"
	timeout 100 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/norecv_peer" -a "$srv" \
		-b "$cli2" -p $port -R 65536 -S 300 -f "$sent" -s "$stop" \
		-i 60 >"$work/$name.peer" 2>&1 &
	ppid=$!
	wait_for "$sent" $ppid
	[ -n "$why" ] || [ -e "$sent" ] || why="the peer's Calls never went out"
	if [ -z "$why" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" -N \
			-a "$srv" -b "$cli" -p $port -m 100 -t 2 -n 20 \
			>"$work/$name.client" 2>&1 ||
			why="the bystander was not served (exit $?)"
	fi
	# Past svc_stall_ms since the Reads began, then the peer goes.
	sleep 2
	touch "$stop"
	wait $ppid
	if [ -z "$why" ]; then
		timeout 60 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/echo_client" \
			-a "$srv" -b "$cli" -p $port -m 100 -t 2 -n 10 \
			>>"$work/$name.client" 2>&1 ||
			why="the last client was not served (exit $?)"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	stalled=$(sed -n 's/^server: calls .* stalled_conns \([0-9]*\) .*/\1/p' \
		"$work/$name.server")
	[ -n "$why" ] || [ "$stalled" = 0 ] ||
		why="stalled_conns '$stalled': a thread waited for the Reads"
	deferred=$(sed -n 's/^server: reads_deferred \([0-9]*\) .*/\1/p' \
		"$work/$name.server")
	[ -n "$why" ] || [ "${deferred:-0}" -ge 1 ] ||
		why="reads_deferred '$deferred': a thread waited for the Reads"
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
want common && readstall read-stalled-peer ""
want common && readstall read-stalled-peer-threaded "-j 2"

# rpcrdma.conf, the environment and per-handle options on the wire
# (conf-cases.sh); the RDMA Read/Write engine: failing chains, dying
# peers, Read depth (chain-cases.sh); the duplicate request cache and the
# default bounds against a connection flood (drc-cases.sh); the client's
# registrations of abandoned calls at destroy, and Replies that come just
# before a disconnect (clnt-cases.sh); every XDR construct at every size
# over RDMA and TCP, compared (xdr-cases.sh); the kernel's NFS client
# against our own NFSv3 server (nfs3-cases.sh); each USDT probe against
# its counter, under bpftrace (probe-cases.sh); servers that switch
# credentials per request (creds-cases.sh).
for f in $case_files; do
	case " $slow_files " in *" $f "*) want slow || continue ;; esac
	case " $rxe_only_files " in *" $f "*) [ "$kind" = rxe ] || continue ;; esac
	case " $common_files " in *" $f "*) want common || continue ;; esac
	. "$(dirname "$0")/$f"
done

# rpcrdma_bench, a short real run: one size under the inline threshold and
# one over it, every strategy and baseline, two interleaved trials of 0.2 s a cell,
# each payload verified; the JSON (trials, intervals, ties) and plot are
# checked by bench-check.py.  Then one corrupted reply
# must fail a run.
bench_case() {
	name=bench port=20300
	out=$work/bench
	timeout 300 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p $port -S 64,8K -q 1,4 -D 0.2 -w 0.05 --trials 2 -Q -f json \
		-o "$out.json" -P "$out.svg" >"$work/bench.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && python3 "$(dirname "$0")/bench-check.py" "$out.json" \
		"$out.svg" 4000 2 >>"$work/bench.client" 2>&1; then
		tap "ok - $kind: bench"
	else
		tap "not ok - $kind: bench (exit $crc)"
		awk '{ print "# bench: " $0 }' "$work/bench.client"
		failed=1
	fi
	# The connections sweep, short: NULL calls of auto and TCP over 1 and
	# 24 connections; each must answer, and the holdings must move.
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p $((port + 20)) -W null -x auto,tcp -q 1,8 --conns 1,24 \
		-D 0.1 -w 0.02 --trials 1 -Q -f json \
		-o "$out-sweep.json" >"$work/bench-sweep.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && python3 "$(dirname "$0")/bench-sweep-check.py" \
		"$out-sweep.json" 1,24 >>"$work/bench-sweep.client" 2>&1; then
		tap "ok - $kind: bench-conns-sweep"
	else
		tap "not ok - $kind: bench-conns-sweep (exit $crc)"
		awk '{ print "# bench-sweep: " $0 }' "$work/bench-sweep.client"
		failed=1
	fi
	# A threaded server (svc_threads) whose connections close while
	# svc_run() polls in its main thread, three times over: it aborted
	# in libtirpc when a closed connection's descriptor came back to
	# svc_run() as POLLNVAL (svc_fdpool.c).  It must stay up.
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p $((port + 30)) -j 2 -W null -x auto -q 1,4 --conns 8,8,8 \
		-D 0.1 -w 0.02 --trials 1 -Q -f json \
		-o "$out-threaded.json" >"$work/bench-threaded.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && ! grep -q "did not take SHUTDOWN" \
		"$work/bench-threaded.client"; then
		tap "ok - $kind: bench-conns-threaded-server-stays"
	else
		tap "not ok - $kind: bench-conns-threaded-server-stays (exit $crc)"
		awk '{ print "# bench-threaded: " $0 }' "$work/bench-threaded.client"
		failed=1
	fi
	timeout 120 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p $((port + 10)) -W echo -S 64 -x inline -q 1 -D 0.2 -w 0 \
		--corrupt 5 -Q -o "$out-corrupt.txt" >"$work/bench-corrupt.client" 2>&1
	crc=$?
	if [ $crc -eq 1 ] && grep -q "FAILED: .*differs" "$work/bench-corrupt.client"; then
		tap "ok - $kind: bench-corrupt-fails"
	else
		tap "not ok - $kind: bench-corrupt-fails (exit $crc, expected 1 and a mismatch)"
		awk '{ print "# bench: " $0 }' "$work/bench-corrupt.client"
		failed=1
	fi
}
# Fair turns and per-peer stall budgets: a bystander's latency during a
# flood and a stalling loop (fair-cases.sh); the bench's cost pass and
# calibration (bench-cases.sh), on both beds (siw's runs the bench's
# server through its --server-exec); then the bench itself, whose checks
# (bench-check.py: the JSON, the intervals, the plot; a corrupted reply
# fails) do not depend on the device, on rxe's bed only (43 s a bed).
if want timing; then
	for f in $timing_files; do
		. "$(dirname "$0")/$f"
	done
	[ "$kind" = rxe ] && bench_case
fi

exit $failed
