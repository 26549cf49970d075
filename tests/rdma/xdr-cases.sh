# Sourced by cases.sh (helpers in lib.sh): the differential test.  Every
# XDR construct rpcgen emits, at random sizes from 0 past 4 MiB, over RDMA
# (several Send strategies and chunk modes) and TCP against one server,
# compared value by value.  Bounded: at most 60 s of calls (-B); the seed is
# printed (RPCRDMA_XDRDIFF_SEED replays a run).  Every procedure goes once
# at every edge size (234 calls), plus -n random ones across the modes: 60,
# or 20 in the sanitizer build, whose time is CI's.
xdrdiff_case() {
	xdn=60; want slow || xdn=20
	seed=${RPCRDMA_XDRDIFF_SEED:+-S $RPCRDMA_XDRDIFF_SEED}
	rm -f "$work/xdr-differential.ready"	# a stale one would start the client early
	pair xdr-differential "$b/tests/rdma/xdrdiff_server -a $srv" \
		"$b/tests/rdma/xdrdiff_client -a $srv $seed -n ${XDN:-$xdn} -B ${XDB:-60}"
	grep -h 'seed\|calls' "$work/xdr-differential.client" | sed 's/^/# /'
}
xdrdiff_case
