# Exactly-once for retransmissions (drc_size) and the connection bounds'
# defaults.  Sourced by cases.sh (or run alone by run-cases.sh).

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
		echo "ok - $kind: $dn-counted # $line; $(grep '^drcpeer: executions' "$work/$dn.client")"
	else
		echo "not ok - $kind: $dn-counted ('$line', $dhits hits expected)"
		failed=1
	fi
}
# The default cache: executed once, the first Reply again, inline, in a
# new Reply chunk, its data in a new Write chunk; with service threads.
drc_case drc-once-inline "" "" "-m once -k inline -n 100 -e 1" 1
drc_case drc-once-reply-chunk "" "" "-m once -k reply -n 8000 -e 1" 1
drc_case drc-once-write-chunk "" "" "-m once -k write -n 8000 -e 1" 1
drc_case drc-once-threaded "" "-j 4" "-m once -k reply -n 8000 -e 1" 1
# The control: drc_size 0, the same retransmission runs the procedure again.
drc_case drc-off-runs-twice "RPCRDMA_DRC_SIZE=0" "" "-m once -k inline -n 100 -e 2" 0
drc_case drc-off-runs-twice-chunk "RPCRDMA_DRC_SIZE=0" "" "-m once -k reply -n 8000 -e 2" 0
# A copy while the first still runs (service threads) is dropped, counted;
# once the first is done, a copy gets its Reply.
drc_case drc-in-progress "" "-j 2" "-m inprog -k inline -n 100" 1
drops=$(sed -n 's/^server: drc .* inprog_drops \([0-9]*\) .*/\1/p' "$work/drc-in-progress.server")
if [ "$drops" = 1 ]; then
	echo "ok - $kind: drc-in-progress-dropped # inprog_drops $drops"
else
	echo "not ok - $kind: drc-in-progress-dropped (inprog_drops '$drops', 1 expected)"
	failed=1
fi
