# Send With Invalidate (RFC 8797) and one post per Reply between our own
# client and server (issue 20); sourced by cases.sh after lib.sh.  The
# bench's read-like and echo calls at 64 KiB and 1 MiB, 1 and 8 in flight,
# every Reply verified by the bench: their Reply chunks' RDMA Writes go in
# front of the Send.  Our client advertises Send With Invalidate only where
# its device lets a peer invalidate every handle it offers (siw, not rxe:
# rxe refuses remote invalidation of per-RPC MRs): on siw Calls with one
# rkey must have had it invalidated by the Reply (rs_remote_invs), on rxe
# never; on both, every registration revoked (regs == deregs).
swi_case() {
	out=$work/swi
	rm -f "$out.totals"
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20580 -W read,echo -S 64K,1M -q 1,8 -x auto -D 0.2 -w 0.02 \
		--trials 1 -Q --totals "$out.totals" -o "$out.txt" \
		>"$out.client" 2>&1
	crc=$?
	want_inv=0
	[ "$kind" = siw ] && want_inv=1
	if [ $crc -eq 0 ] && awk -v want=$want_inv '
		{ v[$1] = $2 }
		END {
			print "# totals: remote_invs " v["rs_remote_invs"] \
			      " regs " v["rs_chunk_regs"] " deregs " v["rs_chunk_deregs"] \
			      " reply_chunk_replies " v["rs_reply_chunk_replies"]
			ok = v["rs_chunk_regs"] > 0 && v["rs_chunk_regs"] == v["rs_chunk_deregs"] &&
			     v["rs_reply_chunk_replies"] > 0 && v["rs_bad_replies"] == 0
			ok = ok && (want ? v["rs_remote_invs"] > 0 : v["rs_remote_invs"] == 0)
			exit !ok
		}' "$out.totals" >>"$out.client" 2>&1; then
		tap "ok - $kind: swi-read-echo-chained$([ $want_inv = 1 ] && echo ' (Send With Invalidate)')"
		grep '^# totals' "$out.client"
	else
		tap "not ok - $kind: swi-read-echo-chained (exit $crc)"
		awk '{ print "# swi: " $0 }' "$out.client" "$out.totals" "$out.txt" 2>/dev/null
		failed=1
	fi
}
swi_case

# The client against a raw responder (chunkpeer) that sends its Reply With
# Invalidate whether asked or not: of the call's own Reply-chunk rkey
# (rxe: a memory window, whose invalidation the client then skips; siw: a
# per-RPC MR, still deregistered), and, hostile, of an rkey that is not the
# call's (siw invalidates by the STag's index and reports the rkey named:
# the client must not take it for its own).  Each then checks the call's
# rkey is dead (an RDMA Write with it must fail).  rxe refuses a Send With
# Invalidate of an rkey it cannot invalidate outright (the connection
# fails, no Reply), so the hostile case is siw's.
pair swi-own-rkey \
	"$b/tests/rdma/chunkpeer -a $srv" \
	"$b/tests/rdma/chunk_client -V 31 -a $srv -b $cli -t 1"
if [ "$kind" = siw ]; then
	pair swi-hostile-rkey \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -V 30 -a $srv -b $cli -t 1"
fi
