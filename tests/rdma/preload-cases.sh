# librpcrdma-preload (issue 21), sourced by cases.sh and run-cases.sh: an
# rpcgen program (tests/rdma/pre_echo.x; the server's main() is rpcgen's
# own: pmap_unset, svctcp_create, svc_register, svc_run) linked with
# libtirpc only, run under LD_PRELOAD.  Netid rdma asked by the client;
# RPCRDMA_PRELOAD=tcp carrying "tcp" over RDMA; the same client against a
# server without the preload falling back to TCP; the filters; bad input.
# Proof of the transport: the server answers with the netid of the
# connection each Call came on, the preload's dumped counters, and rxe's
# packet counters.  rpcbind runs in the server's namespace (rpcgen's
# main() registers with it; libtirpc's TCP clients look the port up).
pl=$b/.libs/librpcrdma-preload.so
# A sanitizer build: the runtime has to come before the preload.
pl_asan=$(ldd "$pl" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p')
pl=${pl_asan:+$pl_asan:}$pl
pl_prog=537169953	# 0x20049021
pl_srv=$b/tests/rdma/pre_server pl_cli=$b/tests/rdma/pre_client
pl_nc=$b/tests/rdma/pre_server_nc

pl_tap() {	# NAME WHY [COMMENT]: ok when WHY (what went wrong) is empty
	if [ -z "$2" ]; then
		tap "ok - $kind: preload $1${3:+ # $3}"
	else
		tap "not ok - $kind: preload $1 (${2#; })"
		for f in "$work"/pl-"$1".*; do
			[ -r "$f" ] && awk -v f="${f##*/}" '{ print "# " f ": " $0 }' "$f" | tail -40
		done
		failed=1
	fi
}

pl_stat() {	# FILE KEY: the value of KEY in a stats dump (empty if none)
	sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1" 2>/dev/null | tail -1
}

# rxe's packets sent over both devices (empty where the device has none).
pl_pkts() {
	s=
	for f in /sys/class/infiniband/*/ports/1/hw_counters/sent_pkts; do
		[ -r "$f" ] && s=$(( ${s:-0} + $(cat "$f") ))
	done
	echo "$s"
}

# rpcbind in the server's namespace, started here when none answers.
pl_rpcbind_pid=
pl_rpcbind() {
	$RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && return 0
	command -v rpcbind >/dev/null || [ -x /usr/sbin/rpcbind ] || return 1
	mkdir -p /run/rpcbind
	$RPCRDMA_SERVER_EXEC /usr/sbin/rpcbind -f >"$work/pl-rpcbind.log" 2>&1 &
	pl_rpcbind_pid=$!
	i=0
	while ! $RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

# pl_server NAME [ENV...]: the rpcgen server in the background (pl_spid),
# ready once rpcbind lists its program.
pl_server() {
	name=$1; shift
	$RPCRDMA_SERVER_EXEC rpcinfo -d $pl_prog 1 >/dev/null 2>&1
	timeout 120 $RPCRDMA_SERVER_EXEC env RPCRDMA_PORT=$port \
		RPCRDMA_PRELOAD_STATS="$work/pl-$name.srvstats" "$@" "$pl_srv" \
		>"$work/pl-$name.server" 2>&1 &
	pl_spid=$!
	i=0
	while kill -0 $pl_spid 2>/dev/null &&
	      ! $RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 2>/dev/null | grep -q "^ *$pl_prog "; do
		i=$((i + 1)); [ $i -lt 600 ] || break
		sleep 0.05
	done
	kill -0 $pl_spid 2>/dev/null
}

# pl_stop: the server's exit status; it exits by itself after PRE_EXIT,
# and is stopped (SIGTERM) when a failed client never sent it.
pl_stop() {
	i=0
	while kill -0 $pl_spid 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	kill -TERM $pl_spid 2>/dev/null
	wait $pl_spid
}

# pl_client NAME NETID EXPECTED-NETID [exit] [ENV...]: 20 echoes, verified.
pl_client() {
	cname=$1 cnetid=$2 cexp=$3 cexit=$4; shift 4
	rm -f "$work/pl-$cname.clistats"
	timeout 60 $RPCRDMA_CLIENT_EXEC env RPCRDMA_PORT=$port RPCRDMA_SOURCE=$cli \
		RPCRDMA_PRELOAD_STATS="$work/pl-$cname.clistats" "$@" \
		"$pl_cli" $srv $cnetid 20 $cexp $cexit >"$work/pl-$cname.client" 2>&1
}

preload_cases() {
	port=$((port + 1))
	# The programs know nothing of librpcrdma.
	if readelf -d "$pl_srv" "$pl_cli" | grep NEEDED | grep -q rpcrdma ||
	   ! readelf -d "$pl_cli" | grep NEEDED | grep -q libtirpc; then
		pl_tap programs-libtirpc-only "a test program links librpcrdma"
	else
		pl_tap programs-libtirpc-only ""
	fi
	if ! pl_rpcbind; then
		pl_tap rpcbind "rpcbind could not be started in the server's namespace"
		return 1
	fi

	# 1. The server carries TCP over RDMA beside TCP; clients ask for
	# netid rdma, then for tcp under RPCRDMA_PRELOAD=tcp, then for tcp
	# with filters that leave them on TCP.  The last one stops it.
	p0=$(pl_pkts)
	if pl_server srv LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp; then
		pl_client netid-rdma rdma rdma - LD_PRELOAD=$pl; r1=$?
		p1=$(pl_pkts)
		pl_client tcp-over-rdma tcp rdma - LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp; r2=$?
		pl_client filter-host tcp tcp - LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD=tcp:host=192.0.2.1; r3=$?
		pl_client filter-prog tcp tcp exit LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD=tcp:prog=1,prog=2; r4=$?
	else
		r1=125 r2=125 r3=125 r4=125
		echo "server never registered" >"$work/pl-netid-rdma.client"
	fi
	pl_stop; src=$?
	s=$work/pl-srv.srvstats c=$work/pl-netid-rdma.clistats
	why=
	[ $r1 = 0 ] || why="client exit $r1"
	[ "$(pl_stat $c preload.clnt_rdma)" = 1 ] || why="$why; clnt_rdma not 1"
	# 20 echoes and the netid query, all over RDMA.
	[ "$(pl_stat $c clnt.rs_replies)" = 21 ] || why="$why; clnt.rs_replies $(pl_stat $c clnt.rs_replies), not 21"
	[ -n "$p0" ] && [ "$p1" -le "$p0" ] && why="$why; rxe sent_pkts did not move ($p0 -> $p1)"
	pl_tap netid-rdma "$why" \
		"21 Replies over RDMA, server netid rdma${p0:+, rxe sent_pkts +$((p1 - p0))}"
	c=$work/pl-tcp-over-rdma.clistats
	why=
	[ $r2 = 0 ] || why="client exit $r2"
	[ "$(pl_stat $c preload.clnt_rdma)" = 1 ] || why="$why; clnt_rdma not 1"
	[ "$(pl_stat $c preload.clnt_tcp_fallback)" = 0 ] || why="$why; fell back"
	[ "$(pl_stat $c clnt.rs_replies)" = 21 ] || why="$why; clnt.rs_replies $(pl_stat $c clnt.rs_replies), not 21"
	pl_tap tcp-over-rdma "$why"
	why=
	[ $r3 = 0 ] && [ $r4 = 0 ] || why="client exits $r3 $r4"
	for f in filter-host filter-prog; do
		[ "$(pl_stat $work/pl-$f.clistats preload.clnt_rdma)" = 0 ] || why="$why; $f went over RDMA"
	done
	pl_tap filters "$why"
	# The server: a normal exit (PRE_EXIT), the TCP registration mirrored,
	# and the Calls of both RDMA clients in its listener's counters.
	why=
	[ $src = 0 ] || why="server exit $src"
	[ "$(pl_stat $s preload.svc_mirrored)" = 1 ] || why="$why; svc_mirrored not 1"
	[ "$(pl_stat $s svc.rs_calls)" = 42 ] || why="$why; svc.rs_calls $(pl_stat $s svc.rs_calls), not 42"
	pl_tap server-mirrors-tcp "$why"

	# Servers that name netid rdma themselves (svc_create, svc_tp_create,
	# svc_tli_create and svc_reg), clients through clnt_create,
	# clnt_tp_create and clnt_create_vers (one NULL Call more).
	for how in create:create:22 tp:tp:22 tli:vers:23; do
		smode=${how%%:*} cmode=${how#*:} calls=${how##*:}
		cmode=${cmode%:*} n=netid-rdma-server-$smode
		port=$((port + 1))
		ready=$work/pl-$n.ready
		rm -f "$ready"
		timeout 120 $RPCRDMA_SERVER_EXEC env RPCRDMA_PORT=$port LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD_STATS="$work/pl-$n.srvstats" "$pl_nc" $smode "$ready" \
			>"$work/pl-$n.server" 2>&1 &
		pl_spid=$!
		wait_for "$ready" $pl_spid
		if [ -e "$ready" ]; then
			pl_client $n rdma rdma exit LD_PRELOAD=$pl PRE_CLIENT_CALL=$cmode; r1=$?
		else
			r1=125
		fi
		pl_stop; src=$?
		why=
		[ $r1 = 0 ] || why="client exit $r1"
		[ $src = 0 ] || why="$why; server exit $src"
		v=$(pl_stat "$work/pl-$n.srvstats" svc.rs_calls)
		[ "$v" = $calls ] || why="$why; svc.rs_calls $v, not $calls"
		pl_tap $n "$why" "client: $cmode"
	done

	# 2. The same client against the server without the preload: RDMA
	# is refused, the client says so, counts it and goes on over TCP.
	port=$((port + 1))
	if pl_server plain; then
		pl_client fallback tcp tcp - LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp; r1=$?
		# A preload for another libtirpc stands aside: plain TCP.
		pl_client other-libtirpc tcp tcp exit LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp \
			RPCRDMA_PRELOAD_TIRPC_VERSION=TIRPC_9.9; r2=$?
	else
		r1=125 r2=125
		echo "server never registered" >"$work/pl-fallback.client"
	fi
	pl_stop
	c=$work/pl-fallback.clistats
	why=
	[ $r1 = 0 ] || why="client exit $r1"
	[ "$(pl_stat $c preload.clnt_tcp_fallback)" = 1 ] || why="$why; clnt_tcp_fallback not 1"
	[ "$(pl_stat $c preload.clnt_rdma)" = 0 ] || why="$why; clnt_rdma not 0"
	grep -q "^librpcrdma-preload: warning: clnt_create: no RDMA to $srv .*falling back to TCP" \
		"$work/pl-fallback.client" || why="$why; no fallback warning"
	pl_tap tcp-fallback "$why"
	c=$work/pl-other-libtirpc.clistats
	why=
	[ $r2 = 0 ] || why="client exit $r2"
	[ "$(pl_stat $c preload.clnt_rdma)" = 0 ] || why="$why; clnt_rdma not 0"
	[ "$(grep -c 'stands aside' "$work/pl-other-libtirpc.client")" = 1 ] ||
		why="$why; not one 'stands aside' error"
	pl_tap other-libtirpc "$why"

	# 3. Bad input, no server: an unknown netid gets libtirpc's own error;
	# netid rdma with no RDMA listener a clean error, bounded.
	pl_client unknown-netid bogus - - LD_PRELOAD=$pl; r1=$?
	why=
	[ $r1 = 3 ] || why="client exit $r1, not 3 (creation failed)"
	grep -q "Unknown protocol" "$work/pl-unknown-netid.client" || why="$why; not libtirpc's error"
	pl_tap unknown-netid "$why"
	pl_client no-listener rdma - - LD_PRELOAD=$pl; r1=$?
	why=
	[ $r1 = 3 ] || why="client exit $r1, not 3 (124: it hung)"
	[ "$(pl_stat $work/pl-no-listener.clistats preload.clnt_rdma_failed)" = 1 ] ||
		why="$why; clnt_rdma_failed not 1"
	pl_tap rdma-no-listener "$why"

	if [ -n "$pl_rpcbind_pid" ]; then
		kill $pl_rpcbind_pid 2>/dev/null
		wait $pl_rpcbind_pid 2>/dev/null
	fi
}
preload_cases
