# Sourced by cases.sh (helpers in lib.sh): the Linux kernel's NFS client
# against the tests' own NFSv3 server (nfs3_server: NFS over RDMA, MOUNT over
# TCP), mounted with proto=rdma, hard.  Odd-size writes and reads compared by
# md5 on both ends, a 600-entry directory (Reply chunks), a symlink, eight
# parallel readers, the server SIGKILLed mid-read and restarted under the
# mount, rename and rm -r; then the chunk kinds in /proc/self/mountstats and
# in the server's counters, and a clean exit (SIGTERM) after umount.  The kernel client
# runs in the initial network namespace: on siw a veth pair (siwI 10.22.0.2,
# siwJ 10.22.0.1 in rpcsrv) with a siw device on each end joins it to the
# server's.  Every wait is bounded (a hard mount would wait forever).
n3_ok() {	# STEP STATUS [WHY]
	if [ "$2" = 0 ]; then
		tap "ok - $kind: nfs3 $1"
	else
		tap "not ok - $kind: nfs3 $1${3:+ ($3)}"
		n3fail=1 failed=1
	fi
}

n3_start() {	# the server, on the same port and directory every time
	rm -f "$n3ready"
	timeout 300 $RPCRDMA_SERVER_EXEC "$b/tests/rdma/nfs3_server" -a $n3addr \
		-p $n3port -m $n3mport -d $n3d -r "$n3ready" >>"$n3log" 2>&1 &
	n3wrap=$!
	wait_for "$n3ready" $n3wrap
	n3pid=
	[ -e "$n3ready" ] && read -r n3pid <"$n3ready"
	[ -n "$n3pid" ]
}

n3_siw_link() {	# idempotent
	ip link show siwI >/dev/null 2>&1 && return 0
	ip link add siwI index 43 type veth peer name siwJ index 44 netns rpcsrv &&
		ip addr add 10.22.0.2/24 dev siwI && ip link set siwI up &&
		printf 'addr add 10.22.0.1/24 dev siwJ\nlink set siwJ up\n' |
			ip -n rpcsrv -batch - &&
		rdma link add siw2 type siw netdev siwI &&
		ip netns exec rpcsrv rdma link add siw3 type siw netdev siwJ
}

n3_drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

nfs3_case() {
	n3fail=0 n3wrap=
	n3log=$work/nfs3.server n3ready=$work/nfs3.ready
	: >"$n3log"
	port=$((port + 1)); n3port=$port; n3mport=$((port + 1000))
	n3d=/tmp/nfs3.export m=/tmp/nfs3.mnt s=/tmp/nfs3.src
	if ! command -v mount.nfs >/dev/null && [ ! -x /sbin/mount.nfs ] &&
	   [ ! -x /usr/sbin/mount.nfs ]; then
		tap "ok - $kind: nfs3 kernel client # SKIP mount.nfs not installed (nfs-common)"
		return 0
	fi
	case $kind in
	rxe) n3addr=$srv ;;
	siw) n3addr=10.22.0.1
		n3_siw_link || { n3_ok "siw link to the initial namespace" 1; return 1; } ;;
	esac
	modprobe -a nfs nfsv3 rpcrdma 2>>"$n3log"
	mkdir -p $n3d $m $s && mount -t tmpfs -o size=96m nfs3export $n3d &&
		head -c 4194304 /dev/urandom >$s/r || { n3_ok setup 1; return 1; }
	for n in 1 4095 4097 65537 1048579 3145731; do
		head -c $n $s/r >$s/f$n
	done
	(cd $s && md5sum f* >$s.sums)
	n3_start || { n3_ok "server start" 1; n3_end; return 1; }
	mount -t nfs -o vers=3,proto=rdma,port=$n3port,mountport=$n3mport,mountproto=tcp,nolock,hard \
		$n3addr:/ $m >>"$n3log" 2>&1
	n3_ok "mount proto=rdma (server $n3addr)" $? || true
	if ! grep -q " $m nfs " /proc/mounts; then
		n3_end; return 1
	fi

	# Odd sizes: written through the mount, compared on the server's
	# disk, then read back cold through the mount.
	{ cp $s/f* $m/ && n3_drop && (cd $n3d && md5sum -c --quiet $s.sums) &&
		(cd $m && md5sum -c --quiet $s.sums); } >>"$n3log" 2>&1
	n3_ok "odd-size writes and reads (1 B to 3 MiB + 3, md5 both ends)" $?

	# 600 names of 40 bytes: READDIR(PLUS) Replies of tens of KiB.
	i=0 n3names=
	while [ $i -lt 600 ]; do
		i=$((i + 1)); n3names="$n3names entry-with-a-forty-byte-long-name-$((100000 + i))"
	done
	{ mkdir $m/big && (cd $m/big && touch $n3names) && n3_drop; } >>"$n3log" 2>&1
	n3n=$(ls $m/big 2>>"$n3log" | wc -l)
	[ "$n3n" = 600 ]
	n3_ok "600-entry directory listing" $? "listed $n3n"

	{ ln -s f4097 $m/lnk && n3_drop && [ -L $n3d/lnk ] &&
		[ "$(readlink $m/lnk)" = f4097 ] && cmp $m/lnk $s/f4097; } >>"$n3log" 2>&1
	n3_ok "symlink (ln -s, readlink, read through it)" $?

	n3_drop
	n3pids=
	for f in f1 f4095 f4097 f65537 f1048579 f3145731 f1048579 f3145731; do
		timeout -s KILL 120 cmp $m/$f $s/$f >>"$n3log" 2>&1 &
		n3pids="$n3pids $!"
	done
	n3bad=0
	for p in $n3pids; do wait $p || n3bad=$((n3bad + 1)); done
	n3_ok "8 parallel readers" $n3bad "$n3bad failed"

	# SIGKILL the server while a 3 MiB read is under way, start it again
	# on the same port and directory; the hard mount must recover, and the
	# handles the client holds must still name the same files.
	n3_drop
	timeout -s KILL 150 cmp $m/f3145731 $s/f3145731 >>"$n3log" 2>&1 &
	n3rd=$!
	read -r n3t0 _ </proc/uptime
	kill -KILL $n3pid
	wait $n3wrap
	n3_start; n3rc=$?
	wait $n3rd; n3rc=$((n3rc + $?))
	{ timeout -s KILL 120 cp $s/f1048579 $m/after && cmp $n3d/after $s/f1048579 && n3_drop &&
		timeout -s KILL 60 cmp $m/f3145731 $s/f3145731 &&
		[ "$(timeout -s KILL 60 ls $m/big | wc -l)" = 600 ]; } >>"$n3log" 2>&1
	n3rc=$((n3rc + $?))
	read -r n3t1 _ </proc/uptime
	n3_ok "server SIGKILLed mid-read and restarted under the hard mount" $n3rc
	echo "# recovered read, a write, a read and the listing in $(( ${n3t1%.*} - ${n3t0%.*} )) s"

	{ timeout -s KILL 60 mkdir -p $m/tree/sub && cp $s/f4095 $m/tree/sub/x && mv $m/f65537 $m/renamed &&
		mv $m/tree $m/tree2 && n3_drop && cmp $m/tree2/sub/x $s/f4095 &&
		cmp $m/renamed $s/f65537 && rm -r $m/tree2 $m/big &&
		[ ! -e $n3d/tree2 ] && [ ! -e $n3d/big ] && [ ! -e $n3d/f65537 ]; } >>"$n3log" 2>&1
	n3_ok "rename (file, directory) and rm -r" $?

	n3_stats
	sync
	timeout -s KILL 60 umount $m >>"$n3log" 2>&1
	n3rc=$?
	# umount.nfs sent no UMNT here (the server stops at one): SIGTERM
	# ends its svc_run the same way, and it must exit 0 with its counters.
	i=0
	while kill -0 $n3wrap 2>/dev/null && [ $i -lt 20 ]; do
		sleep 0.05; i=$((i + 1))
	done
	kill -TERM $n3pid 2>/dev/null
	wait $n3wrap
	n3src=$?
	[ $n3rc = 0 ] && [ $n3src = 0 ]
	n3_ok "umount; server exits cleanly" $? "umount $n3rc, server $n3src"
	awk '/^server: rdma/ { for (i = 2; i < NF; i++) v[$i] = $(i + 1) }
	     END { exit !(v["read_chunk_calls"] > 0 && v["write_chunks"] > 0 &&
			  v["reply_chunk_replies"] > 0) }' "$n3log"
	n3_ok "server used Read, Write and Reply chunks (after its restart)" $?
	# The kernel client takes Send With Invalidate (RFC 8797): Replies to
	# Calls with one rkey invalidated it, and the mount kept working.
	awk '/^server: rdma/ { for (i = 2; i < NF; i++) v[$i] = $(i + 1) }
	     END { exit !(v["remote_inv_sends"] > 0) }' "$n3log"
	n3_ok "server replied With Invalidate (after its restart)" $?
	grep '^server:' "$n3log" | sed 's/^/# /'
	n3_end
}

# The mount's RDMA transport line: read, write and reply chunk counts are
# its 11th-13th numbers (the kernel's xprt_rdma_print_stats).
n3_stats() {
	n3x=$(awk -v m=$m '$1 == "device" { on = ($5 == m) }
		on && $1 == "xprt:" { print; exit }' /proc/self/mountstats)
	echo "# mountstats:$n3x"
	set -- $n3x
	[ "$2" = rdma ] && [ "${13:-0}" -gt 0 ] && [ "${14:-0}" -gt 0 ] &&
		[ "${15:-0}" -gt 0 ]
	n3_ok "client used read, write and reply chunks (mountstats)" $? \
		"read ${13:-?} write ${14:-?} reply ${15:-?}"
}

n3_end() {
	if grep -q " $m nfs " /proc/mounts; then
		umount -f -l $m 2>/dev/null
	fi
	if [ -n "$n3wrap" ] && kill -0 $n3wrap 2>/dev/null; then
		kill -TERM $n3wrap; wait $n3wrap
	fi
	if [ $n3fail != 0 ]; then
		sed 's/^/# server: /' "$n3log"
		dmesg | grep -iE 'rpcrdma|xprtrdma|nfs|rxe|siw' | tail -20 |
			sed 's/^/# dmesg: /'
	fi
	umount $n3d 2>/dev/null
	rm -rf $s $s.sums
}
nfs3_case
