# Servers that change credentials around every request, as NFS servers do
# (to uid/gid 65534, back to root before the next; the guest runs as
# root), sourced by cases.sh (uses its pair()).  The kernel refuses uverbs
# and rdma_cm writes from a task whose credentials are not those the
# descriptor was opened with: rpcrdma_thread_own_creds(3).

# (a) rpcrdma_thread_own_creds() and per-thread switching: every Reply
# checked (the euid the dispatch ran with), over two connections; and the
# dispatch's rpcrdma_fd_sockinfo(xp_fd) said SOCK_STREAM and the client's
# own address.  The client switches its calling thread too (-s), before
# making either connection.
creds_thread() {
	pair creds-thread-switching \
		"$b/tests/rdma/creds_server -m thread -q l -a $srv" \
		"$b/tests/rdma/creds_client -s -q -n $1 -a $srv -b $cli"
}

# (b) The whole process switched (glibc seteuid, every thread), without
# the above: the NULL Call is answered, the next Reply's Send refused by
# the kernel (rxe may still carry it); exactly one error line, naming the
# cause, the process stays up and
# idle (not spinning on a refused descriptor: its CPU time over 2 s idle
# stays far below the 2 s a spinning loop burns), and the connection is
# counted lost, never freed (its cm_id cannot be destroyed).
creds_refused() {
	name=creds-process-switch-refused; port=$((port + 1))
	ready=$work/$name.ready
	rm -f "$ready"
	timeout 120 $RPCRDMA_SERVER_EXEC $b/tests/rdma/creds_server -m glibc \
		-a $srv -p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	if [ ! -e "$ready" ]; then
		why="server never became ready"
	else
		# The file exists from its fopen(), its pid only once closed.
		i=0
		while [ ! -s "$ready" ] && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
		read pid <"$ready"
		timeout 60 $RPCRDMA_CLIENT_EXEC $b/tests/rdma/creds_client -f \
			-a $srv -b $cli -p $port >"$work/$name.client" 2>&1 ||
			why="client failed"
		# The client's disconnect reaches the listener's refused channel.
		sleep 1
		kill -0 "$pid" 2>/dev/null || why="${why:+$why; }the server died"
		kill -USR1 "$pid" 2>/dev/null
	fi
	wait $spid
	src=$?
	f=$work/$name.server
	ticks=$(sed -n 's/^server: idle cpu \([0-9]*\) ticks of \([0-9]*\) per second.*/\1 \2/p' "$f")
	set -- $ticks
	nerr=$(grep -c "refuses this process's verbs and CM calls" "$f")
	if [ -z "$why" ]; then
		if [ $src -ne 0 ]; then why="server exit $src"
		elif [ $# -ne 2 ]; then why="no idle CPU measure"
		elif [ "$1" -ge "$2" ]; then why="spinning: $1 ticks in 2 s idle (a CPU is $2 a second)"
		elif [ "$nerr" != 1 ]; then why="the refusal logged $nerr times, not once"
		elif [ "$(grep -c 'rpcrdma: error' "$f")" != 1 ]; then why="more than one error line"
		elif ! grep -q '^server: accepted 1 lost 1 freed 0$' "$f"; then
			why="connection not counted lost and not freed"
		fi
	fi
	if [ -z "$why" ]; then
		tap "ok - $kind: $name # idle cpu $1 ticks over 2 s; $(grep '^server: accepted' "$f")"
	else
		tap "not ok - $kind: $name ($why)"
		for s in server client; do
			awk -v f="$s" '{ print "# " f ": " $0 }' "$work/$name.$s"
		done
		failed=1
	fi
}

# (c) and (d) under librpcrdma-preload: the same server switching with the
# C library's seteuid/setegid/setgroups (made per thread by the preload's
# creds.c), every Reply checked; its dispatch asks getsockopt(xp_fd,
# SO_TYPE) and getpeername(xp_fd) (answered by sockq.c), and the client
# checks SOCK_STREAM and its own address.
creds_preload() {
	cpl=$b/.libs/librpcrdma-preload.so
	if [ ! -r "$cpl" ]; then
		tap "not ok - $kind: creds-preload-seteuid ($cpl missing)"
		failed=1
		return
	fi
	# A sanitizer build: the runtime has to come before the preload.
	cpl_asan=$(ldd "$cpl" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p')
	cpl=${cpl_asan:+$cpl_asan:}$cpl
	pair creds-preload-seteuid \
		"env LD_PRELOAD=$cpl $b/tests/rdma/creds_server -m glibc -q s -a $srv" \
		"$b/tests/rdma/creds_client -q -n $1 -a $srv -b $cli"
}

# (b') The same on the client side: a client whose process switches as a
# whole after connecting; the server is then killed (its connection goes
# at once), and the client's progress thread must not spin on the
# disconnect (measured: it reconnects with backoff, on a CM channel it
# opens anew): under 1 s of CPU time in 3 s (spinning burns them all).
creds_client_refused() {
	name=creds-client-process-switch; port=$((port + 1))
	ready=$work/$name.ready sw=$work/$name.switched
	rm -f "$ready" "$sw"
	timeout 120 $RPCRDMA_SERVER_EXEC $b/tests/rdma/creds_server -m thread \
		-a $srv -p $port -r "$ready" >"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	if [ ! -e "$ready" ]; then
		why="server never became ready"
		kill -TERM $spid 2>/dev/null
	else
		i=0
		while [ ! -s "$ready" ] && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
		read pid <"$ready"
		timeout 60 $RPCRDMA_CLIENT_EXEC $b/tests/rdma/creds_client \
			-g "$sw" -a $srv -b $cli -p $port >"$work/$name.client" 2>&1 &
		cpid=$!
		wait_for "$sw" $cpid
		kill -KILL "$pid" 2>/dev/null
		wait $cpid || why="client exit $? (spinning, or failed)"
		[ -e "$sw" ] || why="${why:+$why; }the client never switched"
	fi
	wait $spid
	grep -q "^client: idle cpu" "$work/$name.client" || why="${why:-no idle CPU measure}"
	if [ -z "$why" ]; then
		tap "ok - $kind: $name # $(sed -n 's/^client: idle cpu //p' "$work/$name.client")"
	else
		tap "not ok - $kind: $name ($why)"
		for s in server client; do
			awk -v f="$s" '{ print "# " f ": " $0 }' "$work/$name.$s"
		done
		failed=1
	fi
}

if want slow; then creds_thread 40; else creds_thread 10; fi
creds_refused
creds_client_refused
if want slow; then creds_preload 40; else creds_preload 10; fi
