#!/bin/sh
# The passive side's accept race (tests/rdma/acceptrace.c), on the current test
# bed: CYCLES connections, each Sending at once, against one server.
#   acceptrace.sh [-d SECS] [-w MS] [-k SIW_KO] CYCLES
# -d: stop after SECS seconds even if fewer cycles ran.  -w: how long the
# server waits for a first Send before it looks for it in the socket.
# -k (siw bed only): replace the loaded siw.ko by this module first (to
# compare builds of siw within one boot).  Prints the server's summary; exits
# 0 if no first Send was stuck, 3 if some were, else the failure's status.
# Run it in the test-bed VM:
#   tools/rdma-vm -k siw -- env RPCRDMA_TEST_BUILDDIR=$PWD \
#       sh ../tests/rdma/acceptrace.sh -d 300 100000
b=${RPCRDMA_TEST_BUILDDIR:?}
secs=0 w=1000 ko=
while getopts d:w:k: o; do
	case $o in
	d) secs=$OPTARG ;;
	w) w=$OPTARG ;;
	k) ko=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
n=${1:?usage: acceptrace.sh [-d SECS] [-w MS] [-k SIW_KO] CYCLES}
srv=${RPCRDMA_SERVER_ADDR:?} cli=${RPCRDMA_CLIENT_ADDR:?}
work=$b/tests/rdma/work/${RPCRDMA_TESTBED:?}
mkdir -p "$work" || exit 1
if [ -n "$ko" ]; then
	[ "$RPCRDMA_TESTBED" = siw ] || { echo "SIW_KO needs the siw bed" >&2; exit 2; }
	rmmod siw && insmod "$ko" || exit 99
	ip netns exec rpcsrv rdma link add siw0 type siw netdev siwS &&
		ip netns exec rpccli rdma link add siw1 type siw netdev siwC || exit 99
	echo "# siw: $ko ($(md5sum <"$ko" | cut -c1-12))"
fi
port=$((20000 + $$ % 10000))
ready=$work/acceptrace.$port.ready
rm -f "$ready"
start=$(date +%s)
$RPCRDMA_SERVER_EXEC "$b/tests/rdma/acceptrace" server -s -a "$srv" -p $port \
	-r "$ready" -n "$n" -w "$w" &
spid=$!
i=0
while [ ! -e "$ready" ] && kill -0 $spid 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
[ -e "$ready" ] || { echo "server never became ready" >&2; kill $spid; exit 99; }
$RPCRDMA_CLIENT_EXEC "$b/tests/rdma/acceptrace" client -a "$srv" -b "$cli" \
	-p $port -n "$n" -d "$secs"
crc=$?
[ $crc -eq 0 ] || kill $spid 2>/dev/null
wait $spid
src=$?
echo "# $RPCRDMA_TESTBED: $n cycles in $(($(date +%s) - start)) s, client exit $crc, server exit $src"
[ $crc -eq 0 ] || exit $crc
exit $src
