#!/bin/sh
# Interop with the Linux kernel's NFS server over RDMA, on the rxe test bed
# (nfsd serves the initial network namespace only).  Starts rpcbind, mountd
# and nfsd with an RDMA listener on port 20049, runs nfs_interop from the
# client address, tears everything down, and prints one TAP line with "# "
# diagnostics.  Every wait has a deadline; readiness is polled, never slept.
# Needs the host packages nfs-kernel-server and rpcbind (tools/install-deps).
kind=${RPCRDMA_TESTBED:?}
b=${RPCRDMA_TEST_BUILDDIR:?}
srv=${RPCRDMA_SERVER_ADDR:?}
cli=${RPCRDMA_CLIENT_ADDR:?}
name=nfsd-interop
# Logs stay in the guest's private /tmp: other runs may share the build dir.
work=$(mktemp -d /tmp/$name.XXXXXX) || exit 1
PATH=/usr/sbin:/sbin:$PATH
log=$work/setup.log
why=
rpcbind_pid= mountd_pid= nfsd_up=

# now_ms: sets ms to the uptime in milliseconds, without a fork.
now_ms() { read -r up _ </proc/uptime; ms=$(( ${up%.*} * 1000 + 1${up#*.} * 10 - 1000 )); }

# poll DEADLINE_SECS CMD...: runs CMD until it succeeds, 50 ms apart.
poll() {
	now_ms; end=$((ms + $1 * 1000)); shift
	while ! "$@" >>"$log" 2>&1; do
		now_ms; [ $ms -lt $end ] || return 1
		sleep 0.05
	done
}

start() {
	now_ms; t0=$ms
	modprobe -a sunrpc grace lockd nfs_acl auth_rpcgss nfsd rpcrdma || { why="modprobe"; return 1; }
	grep -q ' /proc/fs/nfsd ' /proc/mounts ||
		mount -t nfsd nfsd /proc/fs/nfsd || { why="mount nfsd"; return 1; }
	mkdir -p /export /run/rpcbind /var/lib/nfs/rpc_pipefs &&
		mount -t tmpfs -o mode=0755 export /export || { why="tmpfs /export"; return 1; }
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	rpcbind -f >"$work/rpcbind.log" 2>&1 &
	rpcbind_pid=$!
	poll 20 rpcinfo -p 127.0.0.1 || { why="rpcbind never answered"; return 1; }
	exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=0 '*:/export' \
		>>"$log" 2>&1 || { why="exportfs"; return 1; }
	# 1 MiB WRITEs and READs in one call (the default scales with RAM).
	echo 1048576 >/proc/fs/nfsd/max_block_size 2>>"$log"
	rpc.mountd -F >"$work/mountd.log" 2>&1 &
	mountd_pid=$!
	timeout 60 rpc.nfsd 4 >>"$log" 2>&1 || { why="rpc.nfsd 4"; return 1; }
	nfsd_up=1
	echo 'rdma 20049' >/proc/fs/nfsd/portlist || { why="rdma portlist"; return 1; }
	grep -q '^rdma 20049$' /proc/fs/nfsd/portlist || { why="no rdma in portlist"; return 1; }
	poll 20 rpcinfo -T tcp 127.0.0.1 100005 3 || { why="mountd v3 never answered over TCP"; return 1; }
	now_ms; nfsd_ms=$((ms - t0))
}

stop() {
	# Never "-rdma 20049" in the portlist: stopping the threads closes it.
	[ -n "$nfsd_up" ] && { timeout 60 rpc.nfsd 0 >>"$log" 2>&1 || why=${why:-"rpc.nfsd 0 failed"}; }
	for p in $mountd_pid $rpcbind_pid; do kill "$p" 2>/dev/null; done
	for p in $mountd_pid $rpcbind_pid; do wait "$p" 2>/dev/null; done
	exportfs -ua >>"$log" 2>&1
	umount /export 2>/dev/null
}

if ! command -v rpc.nfsd >/dev/null || ! command -v rpcbind >/dev/null; then
	echo "ok - $kind: $name # SKIP nfs-kernel-server or rpcbind not installed"
	exit 0
fi
crc=
if start; then
	timeout 400 $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/nfs_interop" -a "$srv" -b "$cli" \
		-l /export -c ${RPCRDMA_NFS_BENCH:+-B} >"$work/client" 2>&1
	crc=$?
	[ $crc -eq 0 ] || why="nfs_interop exit $crc"
fi
stop

if [ -z "$why" ]; then
	echo "ok - $kind: $name"
	echo "# nfsd ready in ${nfsd_ms} ms"
	grep -E '^rdma: |^stats (final|chunks)' "$work/client" | sed 's/^/# /'
	exit 0
fi
echo "not ok - $kind: $name ($why)"
for f in setup.log rpcbind.log mountd.log client; do
	[ -s "$work/$f" ] && sed "s/^/# $f: /" "$work/$f"
done
dmesg | grep -iE 'rpcrdma|svcrdma|nfsd|sunrpc|rxe' | tail -20 | sed 's/^/# dmesg: /'
exit 1
