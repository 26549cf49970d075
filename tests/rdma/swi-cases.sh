# One post per Reply (issue 20) between our own client and server, and a
# server that answers With Invalidate unasked; sourced by cases.sh after
# lib.sh.  The bench's read-like and echo calls at 64 KiB and 1 MiB, 1 and
# 8 in flight, every Reply verified by the bench: their Reply chunks' RDMA
# Writes go in front of the Send.  Our client never asks for Send With
# Invalidate (clnt_setup.c says why), so none may come (rs_remote_invs 0),
# and every registration is revoked by the client (regs == deregs).
swi_case() {
	out=$work/swi
	rm -f "$out.totals"
	timeout 200 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
		${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
		-p 20580 -W read,echo -S 64K,1M -q 1,8 -x auto -D 0.2 -w 0.02 \
		--trials 1 -Q --totals "$out.totals" -o "$out.txt" \
		>"$out.client" 2>&1
	crc=$?
	if [ $crc -eq 0 ] && awk '
		{ v[$1] = $2 }
		END {
			print "# totals: remote_invs " v["rs_remote_invs"] \
			      " regs " v["rs_chunk_regs"] " deregs " v["rs_chunk_deregs"] \
			      " reply_chunk_replies " v["rs_reply_chunk_replies"]
			ok = v["rs_chunk_regs"] > 0 && v["rs_chunk_regs"] == v["rs_chunk_deregs"] &&
			     v["rs_reply_chunk_replies"] > 0 && v["rs_bad_replies"] == 0
			ok = ok && v["rs_remote_invs"] == 0
			exit !ok
		}' "$out.totals" >>"$out.client" 2>&1; then
		tap "ok - $kind: swi-read-echo-chained"
		grep '^# totals' "$out.client"
	else
		tap "not ok - $kind: swi-read-echo-chained (exit $crc)"
		awk '{ print "# swi: " $0 }' "$out.client" "$out.totals" "$out.txt" 2>/dev/null
		failed=1
	fi
}
# The bench walks the sanitizer build's paths no other way: left out there.
want slow && swi_case

# A chained Reply's Write source is reused as soon as its Send completes:
# read-like calls, 8 in flight for 2 s, every result verified.  siw sent
# unsignaled Writes zero-copy, and data changed after completion went out
# (half the runs corrupted a 64 KiB read before every Write was signaled).
out=$work/chain-reuse
if ! want slow; then
	:
elif timeout 120 $RPCRDMA_CLIENT_EXEC "$b/rpcrdma_bench" --pair "$srv" -b "$cli" \
	${RPCRDMA_SERVER_EXEC:+--server-exec "$RPCRDMA_SERVER_EXEC"} \
	-p 20590 -W read -S 64K,256K -q 8 -x auto -D 2 --trials 1 -Q \
	-o "$out.txt" >"$out.client" 2>&1; then
	tap "ok - $kind: chain-write-source-reuse"
else
	tap "not ok - $kind: chain-write-source-reuse"
	awk '{ print "# reuse: " $0 }' "$out.client" "$out.txt" 2>/dev/null
	failed=1
fi

# Hostile: a raw responder (chunkpeer) sends its Reply With Invalidate of
# the call's own Reply-chunk rkey, unasked.  On rxe that rkey is a memory
# window: the client must see the invalidation (rxe reports it in a
# nonstandard wc_flags bit, verbs.c) and never invalidate the window again,
# which panics rxe's kernel driver; the call succeeds, counted in
# rs_remote_invs, every registration revoked, the rkey dead after.  siw
# fails the connection on a remote invalidation of an ibv_reg_mr MR, like
# any connection loss, so the case is rxe's.
if [ "$kind" = rxe ] && want common; then
	pair swi-own-rkey \
		"$b/tests/rdma/chunkpeer -a $srv" \
		"$b/tests/rdma/chunk_client -V 31 -a $srv -b $cli -t 1"
fi
