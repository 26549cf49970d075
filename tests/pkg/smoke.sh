#!/bin/sh
# The packages on the test bed: installs the .debs of DEBDIR into the guest
# (its root is a throwaway overlay over the host's /), builds README.md's
# example (tests/pkg/smoke.c) against the installed package only and runs
# it over RDMA on the current bed; then an rpcgen program linked with
# libtirpc only, under the installed librpcrdma-preload.so.  Run by
# tools/run-tests --packages:
#   tools/rdma-vm -k both -w DEBDIR -- sh tests/pkg/smoke.sh DEBDIR
# Prints TAP lines; exits non-zero if any failed.
debdir=${1:?usage: smoke.sh DEBDIR}
src=$(cd "$(dirname "$0")" && pwd)/smoke.c
kind=${RPCRDMA_TESTBED:?run me in tools/rdma-vm}
srv=${RPCRDMA_SERVER_ADDR:?} cli=${RPCRDMA_CLIENT_ADDR:?}
lib=/usr/lib/x86_64-linux-gnu/librpcrdma.so.0
work=/tmp/pkg-smoke
bin=$work/smoke
failed=0
# Nothing from a build tree may leak into the compile or the run.
unset LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_PATH CPATH C_INCLUDE_PATH LIBRARY_PATH

ok() { echo "ok - $kind: $*"; }
notok() { echo "not ok - $kind: $*"; failed=1; }
elapsed() { echo "# $1: $(( $(date +%s) - t0 )) s"; t0=$(date +%s); }
t0=$(date +%s)

# Once per boot (the first bed): install, then build.
if [ ! -e $work/installed ]; then
	mkdir -p $work
	if dpkg-query -W -f='${Status}\n' librpcrdma0 2>/dev/null | grep -q 'ok installed'; then
		notok "librpcrdma0 is installed on the host itself (the guest's root): the smoke test would not test these packages"
		exit 1
	fi
	# man-db's trigger would rebuild its index, minutes under TCG; the
	# flag file is in the guest's throwaway overlay.
	rm -f /var/lib/man-db/auto-update
	if dpkg -i "$debdir"/librpcrdma0_*.deb "$debdir"/librpcrdma-dev_*.deb \
		"$debdir"/rpcrdma-utils_*.deb >$work/dpkg.out 2>&1; then
		ok "dpkg -i librpcrdma0 librpcrdma-dev rpcrdma-utils # $(dpkg-query -W -f='${Version}' librpcrdma0)"
	else
		notok "dpkg -i of the packages failed"
		sed 's/^/# /' $work/dpkg.out
		exit 1
	fi
	touch $work/installed
	elapsed install
	flags=$(pkg-config --cflags --libs librpcrdma)
	echo "# pkg-config --cflags --libs librpcrdma: $flags"
	# -Wl,-rpath nowhere: the run must find the library where ld.so looks.
	if cc -O2 -Wall -o $bin "$src" $flags >$work/cc.out 2>&1; then
		ok "README example built with pkg-config librpcrdma"
	else
		notok "README example does not build against the installed package"
		sed 's/^/# /' $work/cc.out
		exit 1
	fi
	elapsed build
fi

# ldd: the dynamic linker resolves the package's library.
# (/lib is /usr/lib on a merged-/usr system: compare the files' real paths.)
real=$(readlink -f $lib)
got=$(ldd $bin | awk '$1 == "librpcrdma.so.0" { print $3 }')
if [ -n "$got" ] && [ "$(readlink -f "$got")" = "$real" ]; then
	ok "ldd resolves librpcrdma.so.0 to $got, the package's $real"
else
	notok "ldd resolves librpcrdma.so.0 to '$got', not the package's $real"
fi

# The conffile is in place and the package's rpcrdma-conf reads it.
if dpkg-query -W -f='${Conffiles}\n' rpcrdma-utils | grep -q '^ /etc/rpcrdma.conf ' &&
	rpcrdma-conf --dump --client >$work/conf.out 2>&1; then
	ok "/etc/rpcrdma.conf is a conffile and rpcrdma-conf --dump reads it"
else
	notok "/etc/rpcrdma.conf is not a conffile, or rpcrdma-conf --dump failed"
	sed 's/^/# /' $work/conf.out
fi

# The first bed: the package's rpcrdma-trace (bpftrace over the installed
# library's probes) watches the run; its histograms are checked below.
trace=
if [ ! -e $work/traced ]; then
	touch $work/traced
	trace=$work/$kind.trace
	# The bed's init mounts no tracefs; bpftrace needs it to detach.
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	rpcrdma-trace >$trace 2>&1 &
	tpid=$!
	i=0
	while ! grep -q '^Tracing librpcrdma' $trace && kill -0 $tpid 2>/dev/null &&
		[ $i -lt 1200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	elapsed "rpcrdma-trace attached"
fi

ready=$work/$kind.ready port=20300
rm -f $ready
timeout 120 $RPCRDMA_SERVER_EXEC $bin server $srv $port $ready >$work/$kind.server 2>&1 &
spid=$!
i=0
while [ ! -s $ready ] && kill -0 $spid 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.05; i=$((i + 1))
done
if [ -s $ready ]; then
	# The running server's mapping of the library (its pid in $ready):
	# the mapped file's device and inode, through /proc/PID/map_files
	# (on siw the server is in another mount namespace, and the path
	# /proc/PID/maps shows depends on the reader's).
	pid=$(cat $ready)
	maps=$(awk '/librpcrdma/ { print $1 }' /proc/$pid/maps | while read r; do
		stat -L -c %d:%i /proc/$pid/map_files/$r; done | sort -u)
	echo "# server pid $pid maps:" $(grep -o '/[^ ]*librpcrdma[^ ]*' /proc/$pid/maps | sort -u)
	timeout 120 $RPCRDMA_CLIENT_EXEC $bin client $srv $port $cli >$work/$kind.client 2>&1
	crc=$?
	[ $crc -eq 0 ] || kill -TERM $spid 2>/dev/null
else
	crc=125 maps=
	echo "server never became ready" >$work/$kind.client
fi
wait $spid
src_rc=$?
sed 's/^/# /' $work/$kind.server $work/$kind.client
if [ $crc -eq 0 ] && [ $src_rc -eq 0 ] &&
	grep -q "^client: 21 calls of 0 B to 1 MiB, every reply verified$" $work/$kind.client &&
	served=$(sed -n 's/^server: served \([0-9]*\) calls$/\1/p' $work/$kind.server) &&
	again=$(sed -n 's/^client: reconnects [0-9]* retransmits \([0-9]*\) reply_chunk_retries \([0-9]*\)$/\1 + \2/p' $work/$kind.client) &&
	[ -n "$again" ] && [ "${served:-0}" -eq $((21 + $again)) ]; then
	# The server runs a Call once more for each time the client sent
	# it again: a retransmit on a new connection, or a Reply-chunk
	# retry after ERR_CHUNK (on siw, whose inline grant is smaller, the
	# first 64 KiB echo's Reply goes that way); the count is exact.
	ok "README example over RDMA: 21 calls, every reply verified (server ran $served = 21 + $again)"
else
	notok "README example over RDMA (client exit $crc, server exit $src_rc)"
fi
# Both processes mapped the package's file (the real name behind the link).
if [ -n "$maps" ] && [ "$maps" = "$(stat -L -c %d:%i $real)" ] &&
	grep -qx "client: library $real" $work/$kind.client &&
	grep -qx "server: library $real" $work/$kind.server; then
	ok "server and client mapped $real (/proc/PID/maps, map_files)"
else
	notok "the library mapped (device:inode '$maps') is not $real"
fi
if [ -n "$trace" ]; then
	kill -INT $tpid 2>/dev/null
	wait $tpid
	sed 's/^/# trace: /' $trace
	# 21 calls and a STOP: every one a Reply the script timed.
	if grep -q "^Tracing librpcrdma ($real)" $trace &&
		grep -q '^@latency_us_by_strategy\[inline\]' $trace &&
		grep -q '^@latency_us_by_call_chunks\[read list\]' $trace &&
		grep -q '^@latency_us_by_reply_chunks\[reply chunk\]' $trace; then
		ok "rpcrdma-trace read the installed library's probes: latency by strategy and chunk type"
	else
		notok "rpcrdma-trace printed no histograms for the run"
	fi
fi
elapsed "$kind run"

# The package's preload: an rpcgen program linked with libtirpc only (the
# preload cases' tests/rdma/pre_echo.x, server main() rpcgen's -s tcp),
# built here against libtirpc-dev, asking for "tcp"; RPCRDMA_PRELOAD=tcp
# and the installed librpcrdma-preload.so carry it over RDMA.  The server
# answers with the netid its Calls came on; its counters are dumped at exit:
# 23 Calls over RDMA (the client's NULL probe, 20 echoes, NETID, EXIT).
pl=/usr/lib/x86_64-linux-gnu/librpcrdma-preload.so
pldir=$work/preload rdmadir=$(cd "$(dirname "$0")/../rdma" && pwd)
if [ ! -e $pldir/pre_client ]; then
	mkdir -p $pldir && cp "$rdmadir"/pre_echo.x "$rdmadir"/pre_server.c \
		"$rdmadir"/pre_client.c $pldir/ &&
	(cd $pldir && rpcgen -h -o pre_echo.h pre_echo.x &&
		rpcgen -c -o pre_echo_xdr.c pre_echo.x &&
		rpcgen -l -o pre_echo_clnt.c pre_echo.x &&
		rpcgen -s tcp -o pre_echo_svc.c pre_echo.x &&
		tl=$(pkg-config --cflags --libs libtirpc) &&
		cc -O2 -w -o pre_server pre_server.c pre_echo_svc.c pre_echo_xdr.c $tl &&
		cc -O2 -w -o pre_client pre_client.c pre_echo_clnt.c pre_echo_xdr.c $tl) \
		>$work/pl-cc.out 2>&1 || { cat $work/pl-cc.out; rm -f $pldir/pre_client; }
fi
# rpcgen's main() registers with rpcbind: one in the server's namespace.
rpcb=
if ! $RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
	mkdir -p /run/rpcbind
	$RPCRDMA_SERVER_EXEC /usr/sbin/rpcbind -f >/dev/null 2>&1 &
	rpcb=$!
	i=0
	while ! $RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
fi
plport=20320 prog=537169953 pcrc=125 psrc=125
rm -f $work/$kind.plstats
if [ -x $pldir/pre_client ]; then
	timeout 120 $RPCRDMA_SERVER_EXEC env LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp \
		RPCRDMA_PORT=$plport RPCRDMA_PRELOAD_STATS=$work/$kind.plstats \
		$pldir/pre_server >$work/$kind.plserver 2>&1 &
	pspid=$!
	i=0
	while kill -0 $pspid 2>/dev/null && [ $i -lt 600 ] &&
		! $RPCRDMA_SERVER_EXEC rpcinfo -p 127.0.0.1 2>/dev/null |
			grep -q "^ *$prog "; do
		sleep 0.05; i=$((i + 1))
	done
	timeout 60 $RPCRDMA_CLIENT_EXEC env LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp \
		RPCRDMA_PORT=$plport RPCRDMA_SOURCE=$cli \
		$pldir/pre_client $srv tcp 20 rdma exit >$work/$kind.plclient 2>&1
	pcrc=$?
	[ $pcrc -eq 0 ] || kill -TERM $pspid 2>/dev/null
	wait $pspid
	psrc=$?
fi
[ -n "$rpcb" ] && kill $rpcb 2>/dev/null && wait $rpcb
sed 's/^/# preload: /' $work/$kind.plserver $work/$kind.plclient 2>/dev/null
plcalls=$(sed -n 's/^svc\.rs_calls \([0-9]*\)$/\1/p' $work/$kind.plstats 2>/dev/null | tail -1)
if [ $pcrc -eq 0 ] && [ $psrc -eq 0 ] &&
	grep -q '^calls 20 verified 20 server-netid rdma$' $work/$kind.plclient &&
	[ "${plcalls:-0}" -eq 23 ]; then
	ok "librpcrdma-preload.so carries an rpcgen program's tcp over RDMA: 20 echoes verified, server netid rdma, svc.rs_calls $plcalls"
else
	notok "librpcrdma-preload.so (client exit $pcrc, server exit $psrc, svc.rs_calls '${plcalls}')"
	sed 's/^/# stats: /' $work/$kind.plstats 2>/dev/null
fi
elapsed "$kind preload"
exit $failed
