# rpcbind and the port key, sourced by cases.sh.  Without rpcbind: a NULL
# port listens on, and connects to, the port key (20049, or RPCRDMA_PORT),
# and a client with no server gets a clean rpc_createerr.  With rpcbind on
# the server host: svc_reg() with rpcrdma_getnetconfigent("rdma") registers
# the listener (wildcard and bound) under netid rdma, rpcinfo lists it, a
# client with a NULL port finds the (non-default) port, and the entry is
# gone after the server's svc_unreg(); a garbled registration falls back.
rp=$b/tests/rdma/rpcb_peer
rprog=536871200		# 0x20000120, transient program numbers
rb_pid=

# rs_verdict NAME WHY: ok when WHY is empty, else not ok with the logs.
rs_verdict() {
	if [ -z "$2" ]; then
		tap "ok - $kind: $1"
		return
	fi
	tap "not ok - $kind: $1 ($2)"
	for f in "$work/$1".*; do
		[ -f "$f" ] && awk -v f="${f##*.}" '{ print "# " f ": " $0 }' "$f"
	done
	failed=1
}

# rs_server NAME ARGS: the server on the server host; 0 once it is ready.
rs_server() {
	rs_name=$1; shift
	rm -f "$work/$rs_name.ready"
	timeout 120 $RPCRDMA_SERVER_EXEC env $RS_ENV "$rp" server -P $rprog \
		-r "$work/$rs_name.ready" "$@" >"$work/$rs_name.server" 2>&1 &
	rs_pid=$!
	wait_for "$work/$rs_name.ready" $rs_pid
	[ -e "$work/$rs_name.ready" ]
}

# rs_client NAME ARGS: the client (NULL port unless ARGS has -p), traced,
# so that it says where its port came from; its exit status in crc.
rs_client() {
	n=$1; shift
	timeout 60 $RPCRDMA_CLIENT_EXEC env RPCRDMA_DEBUG=1 $RS_ENV "$rp" client \
		-P $rprog -a $srv "$@" >"$work/$n.client" 2>&1
	crc=$?
}

# rs_wait: the server's exit status in src (it stops on the client's -S).
rs_wait() {
	[ $crc -eq 0 ] || kill -TERM $rs_pid 2>/dev/null
	wait $rs_pid
	src=$?
}

# rpcinfo as the client host sees the server's rpcbind.
rs_rpcinfo() {
	timeout 30 $RPCRDMA_CLIENT_EXEC rpcinfo $srv >"$work/$1" 2>&1
}

uaddr_port() {
	echo "$(($1 / 256)).$(($1 % 256))"
}

# ---- no rpcbind ------------------------------------------------------------
RS_ENV=
why=
if rs_rpcinfo rpcb-default.rpcinfo; then
	why="an rpcbind already answers on $srv"
elif ! rs_server rpcb-default -a $srv; then
	why="server never became ready"
	crc=1
	rs_wait
else
	grep -q "^server: listening port 20049 " "$work/rpcb-default.server" ||
		why="NULL port did not listen on 20049"
	rs_client rpcb-default -n 5 -S
	[ $crc -eq 0 ] && grep -q "^client: 5 calls verified" "$work/rpcb-default.client" ||
		why="${why:-client exit $crc}"
	grep -q "rpcbind on $srv has no rdma port .*: the port key, 20049$" \
		"$work/rpcb-default.client" || why="${why:-no fallback to the port key logged}"
	rs_wait
	[ $src -eq 0 ] || why="${why:-server exit $src}"
fi
rs_verdict rpcb-absent-default-port "$why"

# Nothing listening either: a clean error, well within the timeout.
RS_ENV=RPCRDMA_PORT=20199
why=
rs_client rpcb-noserver -n 1
if [ $crc -ne 3 ]; then
	why="client exit $crc, not 3 (create failed)"
elif ! grep -q "^client: clnt_rdma_create: RPC: " "$work/rpcb-noserver.client"; then
	why="no rpc_createerr message"
elif ! grep -q ": the port key, 20199$" "$work/rpcb-noserver.client"; then
	why="RPCRDMA_PORT not used"
fi
rs_verdict rpcb-absent-no-server "$why"

# ---- rpcbind on the server host ----------------------------------------------
RS_ENV=
mkdir -p /run/rpcbind
$RPCRDMA_SERVER_EXEC rpcbind -f >"$work/rpcbind.log" 2>&1 &
rb_pid=$!
i=0
until rs_rpcinfo rpcbind.rpcinfo || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done

# rs_registered NAME PORT UADDR-HOST: svc_reg registers, rpcinfo shows it,
# the client finds PORT through rpcbind, svc_unreg removes it.
rs_registered() {
	name=$1 p=$2 want="$3.$(uaddr_port $2)"
	shift 3
	why=
	if ! rs_server $name -p $p -R "$@"; then
		why="server never became ready"
		crc=1
		rs_wait
		rs_verdict $name "$why"
		return
	fi
	rs_rpcinfo $name.rpcinfo
	awk -v p=$rprog -v u="$want" '$1 == p && $2 == 1 && $3 == "rdma" && $4 == u { f = 1 }
		END { exit !f }' "$work/$name.rpcinfo" ||
		why="rpcinfo does not list $rprog 1 rdma $want"
	rs_client $name -n 5 -S
	[ $crc -eq 0 ] && grep -q "^client: 5 calls verified" "$work/$name.client" ||
		why="${why:-client exit $crc}"
	grep -q "client: port $p of program $rprog version 1 from rpcbind on $srv (netid rdma)" \
		"$work/$name.client" || why="${why:-port not from rpcbind}"
	rs_wait
	[ $src -eq 0 ] || why="${why:-server exit $src}"
	rs_rpcinfo $name.after
	awk -v p=$rprog '$1 == p { f = 1 } END { exit f }' "$work/$name.after" ||
		why="${why:-still registered after svc_unreg}"
	rs_verdict $name "$why"
}

if ! [ -s "$work/rpcbind.rpcinfo" ] || ! grep -q portmapper "$work/rpcbind.rpcinfo"; then
	rs_verdict rpcb-start "rpcbind never answered on $srv"
else
	rs_registered rpcb-register-wildcard 20171 0.0.0.0 -a -
	rs_registered rpcb-register-bound 20172 $srv -a $srv

	# A registration whose address does not parse: the port key.
	RS_ENV=RPCRDMA_PORT=20173
	why=
	if ! $RPCRDMA_SERVER_EXEC "$rp" badreg -P $rprog "10.0.0.1.300.1" \
		>"$work/rpcb-garbage.badreg" 2>&1; then
		why="could not register the garbage"
	elif ! rs_server rpcb-garbage -a $srv; then
		why="server never became ready"
		crc=1
		rs_wait
	else
		rs_client rpcb-garbage -n 5 -S
		[ $crc -eq 0 ] && grep -q "^client: 5 calls verified" "$work/rpcb-garbage.client" ||
			why="client exit $crc"
		grep -q "rpcbind on $srv has no rdma port .*(Invalid argument): the port key, 20173$" \
			"$work/rpcb-garbage.client" || why="${why:-garbage not refused}"
		rs_wait
		[ $src -eq 0 ] || why="${why:-server exit $src}"
	fi
	$RPCRDMA_SERVER_EXEC rpcinfo -d $rprog 1 >/dev/null 2>&1
	rs_verdict rpcb-garbled-uaddr "$why"
	RS_ENV=
fi
kill $rb_pid 2>/dev/null
wait $rb_pid 2>/dev/null
