# Exactly-once for retransmissions (drc_size) and the connection bounds'
# defaults.  Sourced by cases.sh (or run alone by run-cases.sh).
# run-cases.sh keeps the work directory: a ready file of an earlier run
# would let pair start a client before its server listens.
rm -f "$work"/drc-*.ready "$work"/flood-*.ready

# drc_case NAME SERVER-ENV SERVER-ARGS PEER-ARGS HITS: the counter program
# (drc_prog.c) against drcpeer, which sends a Call again on a new
# connection; the peer checks executions and Replies; the server must
# count HITS retransmissions answered from its cache.
drc_case() {
	dn=$1 denv=$2 dsargs=$3 dpargs=$4 dhits=$5
	pair $dn "env $denv $b/tests/rdma/echo_server $dsargs -a $srv" \
		"$b/tests/rdma/drcpeer $dpargs -S -a $srv -b $cli"
	line=$(grep '^server: drc hits' "$work/$dn.server")
	hits=$(echo "$line" | sed -n 's/^server: drc hits \([0-9]*\) .*/\1/p')
	if [ "$hits" = "$dhits" ]; then
		tap "ok - $kind: $dn-counted # $line; $(grep '^drcpeer: executions' "$work/$dn.client")"
	else
		tap "not ok - $kind: $dn-counted ('$line', $dhits hits expected)"
		failed=1
	fi
}
# The cache on (drc_size 1024; it is off by default): executed once, the
# first Reply again, inline, in a new Reply chunk, its data in a new
# Write chunk; with service threads.
on=RPCRDMA_DRC_SIZE=1024
if want common; then	# (lib.sh: the sanitizer build's bed runs these there)
drc_case drc-once-inline $on "" "-m once -k inline -n 100 -e 1" 1
drc_case drc-once-reply-chunk $on "" "-m once -k reply -n 8000 -e 1" 1
drc_case drc-once-write-chunk $on "" "-m once -k write -n 8000 -e 1" 1
drc_case drc-once-threaded $on "-j 4" "-m once -k reply -n 8000 -e 1" 1
# RPCSEC_GSS Calls are never cached (svc_drc.c): a Call with a context
# the server never made, then its retransmission on a new connection with
# the next sequence number, each refused afresh (AUTH_ERROR, CREDPROBLEM),
# none run; a garbage INIT token refused; 0 hits.
# (The sanitizer build: libtirpc keeps its default GSS service name,
# made at the garbage INIT, for good: gss-cases.sh's suppressions.)
printf 'leak:libgssapi_krb5.so\nleak:libkrb5.so\n' >"$work/krb5-lsan.supp"
drc_case drc-gss-never-cached "$on LSAN_OPTIONS=suppressions=$work/krb5-lsan.supp" "" \
	"-m gss -k inline -n 100" 0
# The control: drc_size 0, the same retransmission runs the procedure again.
drc_case drc-off-runs-twice "RPCRDMA_DRC_SIZE=0" "" "-m once -k inline -n 100 -e 2" 0
drc_case drc-off-runs-twice-chunk "RPCRDMA_DRC_SIZE=0" "" "-m once -k reply -n 8000 -e 2" 0
# A copy while the first still runs (service threads) is dropped, counted;
# once the first is done, a copy gets its Reply.
drc_case drc-in-progress $on "-j 2" "-m inprog -k inline -n 100" 1
drops=$(sed -n 's/^server: drc .* inprog_drops \([0-9]*\) .*/\1/p' "$work/drc-in-progress.server")
if [ "$drops" = 1 ]; then
	tap "ok - $kind: drc-in-progress-dropped # inprog_drops $drops"
else
	tap "not ok - $kind: drc-in-progress-dropped (inprog_drops '$drops', 1 expected)"
	failed=1
fi

fi	# want common

# Connection floods against the default bounds (max_connections 1000,
# max_conn_memory 64M, idle_timeout_ms 6m), the server under a descriptor
# limit of 1024 as a default install has (a connection takes one: 1000 of
# them fit beside the server's own).  floodpeer holds silent connections
# until refused; the server must stay up (a watcher served throughout),
# count every refusal, and serve a bystander that connects after.
# Refused at max_connections (-L 1000) on both beds: on siw a process made
# no queue past page 144 of its mmap keys (about 30 connections) until the
# library's key guard (src/verbs.c).  The flood itself may hold more
# descriptors than a default install gives it.
flimit="-L 1000"
# The flood leaves: its connections are freed, the bystander gets in.
want common && pair flood-defaults \
	"prlimit --nofile=1024 -- $b/tests/rdma/echo_server -a $srv" \
	"prlimit --nofile=8192 -- $b/tests/rdma/floodpeer $flimit -S -a $srv -b $cli"
# The flood stays, silent: the idle timeout closes it.  The only setting
# changed: 20 s instead of 6 min, for the test's time (the flood itself
# takes a few seconds under emulation, so 20 s cannot close it early).
want slow && pair flood-idle \
	"env RPCRDMA_IDLE_TIMEOUT_MS=20000 prlimit --nofile=1024 -- $b/tests/rdma/echo_server -a $srv" \
	"prlimit --nofile=8192 -- $b/tests/rdma/floodpeer $flimit -i 20000 -S -a $srv -b $cli"
# A server that may not pin past RLIMIT_MEMLOCK 8 MiB (Debian's default
# for a process without CAP_IPC_LOCK): connections past what it can pin
# fail to set up and are refused, counted; it stays up and serves on.
want common && pair flood-memlock \
	"prlimit --nofile=1024 --memlock=8388608 -- setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock -- $b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/floodpeer -S -a $srv -b $cli"
for f in flood-defaults flood-idle flood-memlock; do
	[ -e "$work/$f.client" ] || continue
	echo "# $kind $f: $(grep '^floodpeer:' "$work/$f.client" | tr '\n' ' ')"
done
