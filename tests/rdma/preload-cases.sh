# librpcrdma-preload (issue 21), sourced by cases.sh and run-cases.sh: an
# rpcgen program (tests/rdma/pre_echo.x; the server's main() is rpcgen's
# own: pmap_unset, svctcp_create, svc_register, svc_run) linked with
# libtirpc only, run under LD_PRELOAD.  Netid rdma asked by the client;
# RPCRDMA_PRELOAD=tcp carrying "tcp" over RDMA; the same client against a
# server without the preload falling back to TCP; the filters; bad input.
# Proof of the transport: the server answers with the netid of the
# connection each Call came on, the preload's dumped counters, and rxe's
# packet counters.  rpcbind runs in the server's namespace (rpcgen's
# main() registers with it; libtirpc's TCP clients look the port up): the
# preload's servers register under netid rdma, rpcinfo lists them, a
# client finds the port there, and the entries go when the server exits.
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
			[ -r "$f" ] && awk -v f="${f##*/}" '!/ 0$/ { print "# " f ": " $0 }' "$f" | tail -40
		done
		failed=1
	fi
}

pl_stat() {	# FILE KEY: the value of KEY in a stats dump (empty if none)
	sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1" 2>/dev/null | tail -1
}

# Packets the bed's two devices sent (rxe; empty where they count none:
# siw has no hw_counters).
pl_pkts() {
	s=
	for f in /sys/class/infiniband/$RPCRDMA_SERVER_DEV/ports/1/hw_counters/sent_pkts \
		 /sys/class/infiniband/$RPCRDMA_CLIENT_DEV/ports/1/hw_counters/sent_pkts; do
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

# The sanitizer build: libtirpc's pmap_set() (rpcgen's main() calls it
# through svc_register) frees the netbuf of uaddr2taddr() and not its
# address, 16 bytes; that leak is libtirpc's, the rest are checked.
pl_lsan=$work/pl-lsan.supp
printf 'leak:__rpc_uaddr2taddr_af\n' >"$pl_lsan"

# pl_server NAME [ENV...]: the rpcgen server in the background (pl_spid),
# ready once rpcbind lists its program.
pl_server() {
	name=$1; shift
	$RPCRDMA_SERVER_EXEC rpcinfo -d $pl_prog 1 >/dev/null 2>&1
	rm -f "$work/pl-$name.srvstats"	# appended to: a run alone keeps the last
	timeout 120 $RPCRDMA_SERVER_EXEC env RPCRDMA_PORT=$port \
		LSAN_OPTIONS=suppressions=$pl_lsan \
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

# pl_rdma_reg FILE: rpcbind's rdma entry for the program, as the client
# host sees it (rpcinfo's netid and universal address), into FILE.
pl_rdma_reg() {
	timeout 30 $RPCRDMA_CLIENT_EXEC rpcinfo $srv >"$1" 2>&1
	awk -v p=$pl_prog '$1 == p && $2 == 1 && $3 == "rdma" { print $3, $4 }' "$1"
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
	uaddr=0.0.0.0.$((port / 256)).$((port % 256))
	if pl_server srv LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp; then
		reg=$(pl_rdma_reg "$work/pl-rpcbind.rpcinfo")
		# The client's port key is wrong: only rpcbind knows the port.
		pl_client netid-rdma rdma rdma - LD_PRELOAD=$pl RPCRDMA_PORT=1 \
			RPCRDMA_LOG_LEVEL=debug; r1=$?
		p1=$(pl_pkts)
		# With AUTH_SYS, destroyed by the program before clnt_destroy
		# (pre_client's end): the preload's CLIENT must leave it alone.
		pl_client tcp-over-rdma tcp rdma - LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp \
			PRE_CLIENT_AUTH=sys; r2=$?
		pl_client filter-host tcp tcp - LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD=tcp:host=192.0.2.1; r3=$?
		pl_client filter-prog tcp tcp exit LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD=tcp:prog=1,prog=2; r4=$?
	else
		r1=125 r2=125 r3=125 r4=125
		echo "server never registered" >"$work/pl-netid-rdma.client"
	fi
	pl_stop; src=$?
	gone=$(pl_rdma_reg "$work/pl-rpcbind.after")
	s=$work/pl-srv.srvstats c=$work/pl-netid-rdma.clistats
	why=
	[ $r1 = 0 ] || why="client exit $r1"
	[ "$(pl_stat $c preload.clnt_rdma)" = 1 ] || why="$why; clnt_rdma not 1"
	# 20 echoes and the netid query, all over RDMA.
	[ "$(pl_stat $c clnt.rs_replies)" = 21 ] || why="$why; clnt.rs_replies $(pl_stat $c clnt.rs_replies), not 21"
	[ -n "$p0" ] && [ "$p1" -le "$p0" ] && why="$why; rxe sent_pkts did not move ($p0 -> $p1)"
	if [ -n "$p0" ]; then
		pkts="devices' sent_pkts +$((p1 - p0))"
	else
		pkts="no device packet counters"
	fi
	pl_tap netid-rdma "$why" "21 Replies over RDMA, server netid rdma, $pkts"
	c=$work/pl-tcp-over-rdma.clistats
	why=
	[ $r2 = 0 ] || why="client exit $r2"
	[ "$(pl_stat $c preload.clnt_rdma)" = 1 ] || why="$why; clnt_rdma not 1"
	[ "$(pl_stat $c preload.clnt_tcp_fallback)" = 0 ] || why="$why; fell back"
	# The NULL Call that proves the peer serves the program, then the rest.
	[ "$(pl_stat $c clnt.rs_replies)" = 22 ] || why="$why; clnt.rs_replies $(pl_stat $c clnt.rs_replies), not 22"
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
	[ "$(pl_stat $s svc.rs_calls)" = 43 ] || why="$why; svc.rs_calls $(pl_stat $s svc.rs_calls), not 43 (21 + 22)"
	pl_tap server-mirrors-tcp "$why"
	# rpcbind: the mirror registered under rdma, the client found its port
	# there, and the entry went with the server's exit.
	why=
	[ "$reg" = "rdma $uaddr" ] || why="rpcinfo shows '$reg', not 'rdma $uaddr'"
	grep -q "port $port of program $pl_prog version 1 from rpcbind on $srv (netid rdma)" \
		"$work/pl-netid-rdma.client" || why="$why; the client's port not from rpcbind"
	[ -z "$gone" ] || why="$why; '$gone' still registered after the exit"
	[ "$(pl_stat $s preload.rpcb_unset)" -ge 1 ] 2>/dev/null || why="$why; rpcb_unset not counted"
	pl_tap rpcbind-rdma-registration "$why" "rpcinfo: $pl_prog 1 $reg"

	# Servers that name netid rdma themselves (svc_create, svc_tp_create,
	# svc_tli_create and svc_reg), clients through clnt_create,
	# clnt_tp_create and clnt_create_vers (from version 3: a NULL Call
	# refused PROG_MISMATCH, then one of version 1).
	for how in create:create:22 tp:tp:22 tli:vers:24; do
		smode=${how%%:*} cmode=${how#*:} calls=${how##*:} why=
		cmode=${cmode%:*} n=netid-rdma-server-$smode
		port=$((port + 1))
		ready=$work/pl-$n.ready
		rm -f "$ready" "$work/pl-$n.srvstats"
		timeout 120 $RPCRDMA_SERVER_EXEC env RPCRDMA_PORT=$port LD_PRELOAD=$pl \
			RPCRDMA_PRELOAD_STATS="$work/pl-$n.srvstats" "$pl_nc" $smode "$ready" \
			>"$work/pl-$n.server" 2>&1 &
		pl_spid=$!
		wait_for "$ready" $pl_spid
		reg= gone=
		if [ -e "$ready" ]; then
			reg=$(pl_rdma_reg "$work/pl-$n.rpcinfo")
			pl_client $n rdma rdma exit LD_PRELOAD=$pl PRE_CLIENT_CALL=$cmode; r1=$?
		else
			r1=125
		fi
		pl_stop; src=$?
		gone=$(pl_rdma_reg "$work/pl-$n.after")
		[ "$reg" = "rdma 0.0.0.0.$((port / 256)).$((port % 256))" ] ||
			why="rpcinfo showed '$reg' while it served"
		[ -z "$gone" ] || why="$why; '$gone' still registered after the exit"
		[ $r1 = 0 ] || why="$why; client exit $r1"
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
		# An RDMA listener that serves another program (librpcrdma's
		# echo_server) on the port: the NULL Call is refused, TCP used.
		port=$((port + 1))
		ready=$work/pl-other-program.ready
		rm -f "$ready"
		timeout 120 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/echo_server" -a $srv \
			-p $port -r "$ready" >"$work/pl-other-program.server" 2>&1 &
		epid=$!
		wait_for "$ready" $epid
		pl_client other-program tcp tcp - LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp; r3=$?
		kill -TERM $epid 2>/dev/null
		wait $epid
		# A preload for another libtirpc stands aside: plain TCP.
		pl_client other-libtirpc tcp tcp exit LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp \
			RPCRDMA_PRELOAD_TIRPC_VERSION=TIRPC_9.9; r2=$?
	else
		r1=125 r2=125 r3=125
		echo "server never registered" >"$work/pl-fallback.client"
	fi
	pl_stop; src=$?
	c=$work/pl-fallback.clistats
	why=
	[ $r1 = 0 ] || why="client exit $r1"
	[ $src = 0 ] || why="$why; the server without the preload exited $src"
	[ "$(pl_stat $c preload.clnt_tcp_fallback)" = 1 ] || why="$why; clnt_tcp_fallback not 1"
	[ "$(pl_stat $c preload.clnt_rdma)" = 0 ] || why="$why; clnt_rdma not 0"
	grep -q "^librpcrdma-preload: warning: clnt_create: no RDMA to $srv .*falling back to TCP" \
		"$work/pl-fallback.client" || why="$why; no fallback warning"
	pl_tap tcp-fallback "$why"
	c=$work/pl-other-program.clistats
	why=
	[ $r3 = 0 ] || why="client exit $r3"
	[ "$(pl_stat $c preload.clnt_tcp_fallback)" = 1 ] || why="$why; clnt_tcp_fallback not 1"
	[ "$(pl_stat $c clnt.rs_calls)" = 1 ] || why="$why; clnt.rs_calls not 1 (the NULL Call)"
	grep -q "falling back to TCP" "$work/pl-other-program.client" || why="$why; no fallback warning"
	pl_tap rdma-listener-of-another-program "$why"
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
