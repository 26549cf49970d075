#!/bin/sh
# Run one file of RDMA cases alone on the current bed, for development:
#   tools/rdma-vm -k rxe -w BUILD -- env RPCRDMA_TEST_BUILDDIR=BUILD \
#       sh tests/rdma/run-cases.sh tests/rdma/FILE.sh
# FILE uses the helpers of lib.sh; prints TAP like cases.sh.
work=${RPCRDMA_TEST_BUILDDIR:?}/tests/rdma/work/${RPCRDMA_TESTBED:?}
mkdir -p "$work" || exit 1
. "$(dirname "$0")/lib.sh"
. "$1"
exit $failed
