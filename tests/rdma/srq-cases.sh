# Shared receive queues and credits granted by need (rpcrdma(7), SHARED
# RECEIVES AND CREDITS), against raw peers offering 4 KiB as the Linux
# client does: many connections held and each served, round robin, while
# others come and go with Calls in flight (the grants never outrun the
# posted receives: rs_grant_overcommits 0, every Call answered, on siw
# too, where a Call finding no receive would end its connection); a peer
# past its grant closed alone and counted; the device's SRQ limit event
# counted; and recv_buffers 0, rings of their own as before.  Sourced by cases.sh (lib.sh's helpers).

# Connections held at once: a thousand, on both beds (rxe: about 17 s
# under TCG).  The peer takes the siw key guard the library takes
# (rawpeer_siw_guard): without it a process makes no queue past about 30.
srq_conns=${RPCRDMA_TEST_SRQ_CONNS:-1000}
pair srq-many \
	"prlimit --nofile=4096 -- $b/tests/rdma/echo_server -M $((srq_conns + 16)) -a $srv" \
	"prlimit --nofile=8192 -- $b/tests/rdma/grantpeer -n $srq_conns -r 2 -S -a $srv -b $cli"
[ -e "$work/srq-many.client" ] &&
	echo "# $kind srq-many: $(grep -E '^(grantpeer:|# srq:)' "$work/srq-many.client" | tail -4 | tr '\n' ' ')"
pair srq-exceed \
	"$b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/grantpeer -x -S -a $srv -b $cli"
# The device's SRQ limit event, counted (rs_srq_limit_events): a burst
# holding nearly all of a 32-buffer queue while the server sleeps.
pair srq-limit \
	"env RPCRDMA_RECV_BUFFERS=32 $b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/grantpeer -l -S -a $srv -b $cli"
pair srq-rings \
	"env RPCRDMA_RECV_BUFFERS=0 $b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/grantpeer -R -n 20 -S -a $srv -b $cli"
# A device without shared receive queues (forced: RPCRDMA_DEBUG_NO_SRQ):
# the same rings, each connection counted a fallback, said once.
pair srq-fallback \
	"env RPCRDMA_DEBUG_NO_SRQ=1 $b/tests/rdma/echo_server -a $srv" \
	"$b/tests/rdma/grantpeer -F -n 20 -S -a $srv -b $cli"
if [ -e "$work/srq-fallback.server" ]; then
	nw=$(grep -c "has no shared receive queues" "$work/srq-fallback.server")
	if [ "$nw" = 1 ]; then
		tap "ok - $kind: srq-fallback-said-once"
	else
		tap "not ok - $kind: srq-fallback-said-once ($nw warnings, expected 1)"
		failed=1
	fi
fi
