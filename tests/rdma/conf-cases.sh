# Configuration on the wire, sourced by cases.sh (uses its pair()).  A knob
# set in rpcrdma.conf, overridden by the environment, then per handle: the
# forced strategy shows in the counters (-e / -s verify them) and a smaller
# max_inline_data request in the inline size the QP granted.  Then one file
# read by both sides: each applies only its own device's [device] section.
# Last, the strategy changed on live handles wins over file and environment.
# The server reads no file (RPCRDMA_CONF empty) unless the case says so.
conf_layers() {
	f=$work/conf-layers.conf
	# rxe grants what is asked between 16 bytes per SGE (272 here) and
	# 512, and refuses more; siw grants 80 whatever is asked (measured on
	# the test bed), so there only the strategy can show the layers.
	ask_file=512 ask_env=400 ask_handle=288
	printf '[client]\nsend_strategy = pullup\nmax_inline_data = %s\n' \
		$ask_file >"$f"
	srvcmd="env RPCRDMA_CONF= $b/tests/rdma/echo_server -a $srv"
	clicmd="$b/tests/rdma/echo_client -a $srv -b $cli -m 300 -t 2 -n 5"
	pair conf-file "$srvcmd" "env RPCRDMA_CONF=$f $clicmd -e pullup"
	pair conf-env "$srvcmd" "env RPCRDMA_CONF=$f RPCRDMA_SEND_STRATEGY=mapped \
RPCRDMA_MAX_INLINE_DATA=$ask_env $clicmd -e mapped"
	pair conf-handle "$srvcmd" "env RPCRDMA_CONF=$f RPCRDMA_SEND_STRATEGY=mapped \
RPCRDMA_MAX_INLINE_DATA=$ask_env $clicmd -s inline -I $ask_handle"
	g=
	for layer in file env handle; do
		g="$g $(sed -n 's/^client: sends .* inline_granted \([0-9]*\)$/\1/p' \
			"$work/conf-$layer.client")"
	done
	set -- $g
	if [ "$kind" = siw ]; then
		tap "ok - $kind: conf-inline-request-on-the-wire # SKIP siw grants 80 bytes whatever is asked (granted $*)"
	elif [ $# -eq 3 ] && [ "$1" -gt "$2" ] && [ "$2" -gt "$3" ]; then
		tap "ok - $kind: conf-inline-request-on-the-wire # asked $ask_file/$ask_env/$ask_handle, granted $1/$2/$3"
	else
		tap "not ok - $kind: conf-inline-request-on-the-wire (asked $ask_file/$ask_env/$ask_handle by file/env/handle, granted '$g': each layer's smaller request must show)"
		failed=1
	fi
}

conf_device() {
	f=$work/conf-device.conf
	if [ -z "$RPCRDMA_CLIENT_DEV" ] || [ -z "$RPCRDMA_SERVER_DEV" ]; then
		tap "not ok - $kind: conf-device (RPCRDMA_CLIENT_DEV/RPCRDMA_SERVER_DEV unknown on this bed)"
		failed=1
		return
	fi
	printf '[global]\nsend_strategy = pullup\n[device %s]\nsend_strategy = mapped\n[device %s]\nsend_strategy = inline\n[device nosuch9]\nsend_strategy = auto\n' \
		"$RPCRDMA_CLIENT_DEV" "$RPCRDMA_SERVER_DEV" >"$f"
	pair conf-device \
		"env RPCRDMA_CONF=$f $b/tests/rdma/echo_server -e inline -a $srv" \
		"env RPCRDMA_CONF=$f $b/tests/rdma/echo_client -e mapped -a $srv -b $cli -m 300 -t 2 -n 5"
}

# Changed on the live handles, over the file and the environment: the
# client's strategy with RPCRDMA_CLSET_OPTIONS, the listener's (for the
# connections it accepts) with svc_rdma_set_options().
conf_live() {
	f=$work/conf-live.conf
	printf '[global]\nsend_strategy = pullup\n' >"$f"
	pair conf-live \
		"env RPCRDMA_CONF=$f RPCRDMA_SEND_STRATEGY=inline $b/tests/rdma/echo_server -L mapped -a $srv" \
		"env RPCRDMA_CONF=$f RPCRDMA_SEND_STRATEGY=mapped $b/tests/rdma/echo_client -L inline -a $srv -b $cli -m 300 -t 2 -n 5"
}

conf_layers
conf_device
conf_live
