# The CLIENT's side of issue 16 (sourced by cases.sh and run-cases.sh).

# Calls that time out against a server that never answers them, then
# clnt_destroy(): VmPin back to its baseline, the PD deallocated.
pair destroy-after-timeouts "$b/tests/rdma/leavepeer -a $srv" \
	"$b/tests/rdma/clnt_leave -P -a $srv -b $cli"

# A server that answers and disconnects at once, 10 times (3 in the
# sanitizer build, where a round with its CPU hogs takes 5 s): every Reply
# reaches its call (the poller starved, so the CM event comes first).
rounds=10; want slow || rounds=3
pair reply-before-disconnect "$b/tests/rdma/leavepeer -a $srv" \
	"$b/tests/rdma/clnt_leave -L $rounds -a $srv -b $cli"
