#!/bin/sh
# Run one file of RDMA cases alone on the current bed, for development:
#   tools/rdma-vm -k rxe -w BUILD -- env RPCRDMA_TEST_BUILDDIR=BUILD \
#       sh tests/rdma/run-cases.sh tests/rdma/FILE.sh
# FILE uses the helpers of lib.sh; prints TAP like cases.sh.  The work
# directory is kept (cases.sh empties it): a case's files from an earlier
# run (its .ready, .sent) would let it start before its server, so those
# of FILE's case names are removed first, as far as they can be found.
work=${RPCRDMA_TEST_BUILDDIR:?}/tests/rdma/work/${RPCRDMA_TESTBED:?}
mkdir -p "$work" || exit 1
for n in $(sed -n 's/^\(.*&& \)\{0,1\}[a-z_]* \([a-z0-9][a-z0-9-]*\) .*/\2/p' "$1" | sort -u); do
	rm -f "$work/$n".*
done
. "$(dirname "$0")/lib.sh"
. "$1"
exit $failed
