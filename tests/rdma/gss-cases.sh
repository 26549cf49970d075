# RPCSEC_GSS (RFC 2203, Kerberos V5) over RDMA: a realm made for this run
# (a KDC from Debian's krb5-kdc on the server host, a service key in a
# keytab, a user's ticket on the client host; all under $work, gone with
# it), then a context established over clnt_rdma_create() (RPCSEC_GSS_INIT
# as an RDMA Call) and echoes of 0 bytes to past 1 MiB at each service
# level, byte-exact, the server seeing the caller's principal and level.
# Sourced by cases.sh (lib.sh's helpers).

gss_dir=$work/krb5
gss_port=8853
gss_env="KRB5_CONFIG=$gss_dir/krb5.conf KRB5_KDC_PROFILE=$gss_dir/kdc.conf"
gss_env="$gss_env KRB5CCNAME=FILE:$gss_dir/ccache KRB5_KTNAME=FILE:$gss_dir/keytab"
# The sanitizer build: libtirpc's svcauth_gss acquires its credential on
# every context made and never releases the one it replaces, nor its
# service name; Kerberos' own libraries (no frame pointers) show only
# themselves in those stacks.  Those leaks are libtirpc's.
# (With preload-cases.sh's one, for gss_preload's rpcgen server.)
gss_env="$gss_env LSAN_OPTIONS=suppressions=$work/krb5-lsan.supp"
printf 'leak:libgssapi_krb5.so\nleak:libkrb5.so\nleak:__rpc_uaddr2taddr_af\n' \
	>"$work/krb5-lsan.supp"
gss_kdc=
# libtirpc's svcauth_gss serves nfs@<this host> when a program sets no
# service name (an rpcgen server's does not): its key is in the keytab.
gss_host=$(hostname | tr A-Z a-z)

# gss_realm: TEST.REALM with echo/rpcsrv.test and tester; 0 when the
# client host holds tester's ticket.  Names are never looked up in DNS.
gss_realm() {
	rm -rf "$gss_dir" && mkdir -p "$gss_dir" || return 1
	cat >"$gss_dir/krb5.conf" <<EOF
[libdefaults]
	default_realm = TEST.REALM
	dns_lookup_kdc = false
	dns_lookup_realm = false
	dns_canonicalize_hostname = false
	rdns = false
	udp_preference_limit = 1
[realms]
	TEST.REALM = {
		kdc = $srv:$gss_port
	}
[domain_realm]
	rpcsrv.test = TEST.REALM
EOF
	cat >"$gss_dir/kdc.conf" <<EOF
[kdcdefaults]
	kdc_ports = $gss_port
	kdc_tcp_ports = $gss_port
[realms]
	TEST.REALM = {
		database_name = $gss_dir/principal
		key_stash_file = $gss_dir/stash
		acl_file = $gss_dir/kadm5.acl
	}
[logging]
	kdc = FILE:$gss_dir/kdc.log
EOF
	(
		export KRB5_CONFIG="$gss_dir/krb5.conf" KRB5_KDC_PROFILE="$gss_dir/kdc.conf"
		kdb5_util create -s -r TEST.REALM -P "master-$$" &&
		kadmin.local -q "addprinc -randkey echo/rpcsrv.test" &&
		kadmin.local -q "ktadd -k $gss_dir/keytab echo/rpcsrv.test" &&
		kadmin.local -q "addprinc -randkey nfs/$gss_host" &&
		kadmin.local -q "ktadd -k $gss_dir/keytab nfs/$gss_host" &&
		kadmin.local -q "addprinc -pw tester-$$ tester"
	) >"$gss_dir/setup.log" 2>&1 || return 1
	env $gss_env $RPCRDMA_SERVER_EXEC krb5kdc -n >>"$gss_dir/setup.log" 2>&1 &
	gss_kdc=$!
	i=0
	until echo "tester-$$" | env $gss_env $RPCRDMA_CLIENT_EXEC kinit tester \
		>>"$gss_dir/setup.log" 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] && kill -0 $gss_kdc 2>/dev/null || return 1
		sleep 0.1
	done
}

# gss_case NAME LEVEL [SERVER-ARGS [CLIENT-ARGS]]: gss_server and
# gss_client at LEVEL; the client checks every echo, the server must have
# seen tester@TEST.REALM at it.
gss_case() {
	name=$1 level=$2 sargs=$3 cargs=$4; port=$((port + 1))
	case $level in none) svc=1 ;; integrity) svc=2 ;; *) svc=3 ;; esac
	ready=$work/$name.ready
	rm -f "$ready"
	timeout 120 env $gss_env $RPCRDMA_SERVER_EXEC "$b/tests/rdma/gss_server" \
		-a "$srv" -p $port -r "$ready" -s echo@rpcsrv.test $sargs \
		>"$work/$name.server" 2>&1 &
	spid=$!
	wait_for "$ready" $spid
	why=
	if [ -e "$ready" ]; then
		timeout 120 env $gss_env $RPCRDMA_CLIENT_EXEC "$b/tests/rdma/gss_client" \
			-a "$srv" -p $port -b "$cli" -s echo@rpcsrv.test -l $level $cargs \
			>"$work/$name.client" 2>&1 || why="client exit $?"
	else
		why="server never became ready"
	fi
	[ -z "$why" ] || kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	[ -n "$why" ] || [ $src -eq 0 ] || why="server exit $src"
	[ -n "$why" ] || grep -qx "gss_server: caller tester@TEST.REALM service $svc" \
		"$work/$name.server" || why="the server never saw tester@TEST.REALM at service $svc"
	if [ -z "$why" ] && grep -q "runtime error\|AddressSanitizer" "$work/$name.server" "$work/$name.client"; then
		why="sanitizer report"
	fi
	if [ -z "$why" ]; then
		tap "ok - $kind: $name"
	else
		tap "not ok - $kind: $name ($why)"
		for f in server client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/$name.$f"
		done
		failed=1
	fi
}

# gss_preload: an rpcgen program linked with libtirpc alone (the
# preload's, preload-cases.sh), its client with an RPCSEC_GSS context at
# krb5i (libtirpc's rpc_gss_seccreate), its server libtirpc's svcauth_gss
# under its default service name, both carried over RDMA by the preload:
# 20 echoes verified, the server's netid rdma, the caller seen.
gss_preload() {
	pl_rpcbind || { tap "not ok - $kind: gss-preload-krb5i (no rpcbind)"; failed=1; return; }
	port=$((port + 1))
	why=
	if pl_server gss-pre LD_PRELOAD=$pl RPCRDMA_PRELOAD=tcp $gss_env; then
		pl_client gss-pre rdma rdma exit LD_PRELOAD=$pl $gss_env \
			PRE_CLIENT_GSS=nfs@$gss_host:integrity || why="client exit $?"
	else
		why="server never registered"
	fi
	pl_stop || why="$why; server exit $?"
	c=$work/pl-gss-pre.clistats
	[ "$(pl_stat $c preload.clnt_rdma)" = 1 ] || why="$why; clnt_rdma not 1"
	grep -q "^pre_server: caller tester@TEST.REALM service 2$" "$work/pl-gss-pre.server" ||
		why="$why; the server never saw tester@TEST.REALM at integrity"
	if [ -z "$why" ]; then
		tap "ok - $kind: gss-preload-krb5i # $(grep -h '^calls' "$work/pl-gss-pre.client")"
	else
		tap "not ok - $kind: gss-preload-krb5i (${why#; })"
		for f in server client; do
			awk -v f="$f" '{ print "# " f ": " $0 }' "$work/pl-gss-pre.$f"
		done
		failed=1
	fi
	if [ -n "$pl_rpcbind_pid" ]; then
		kill $pl_rpcbind_pid 2>/dev/null
		wait $pl_rpcbind_pid 2>/dev/null
		pl_rpcbind_pid=
	fi
}

if gss_realm; then
	gss_case gss-krb5 none
	gss_case gss-krb5i integrity
	gss_case gss-krb5p privacy
	# Four threads on one CLIENT and its context, four service threads:
	# libtirpc's RPCSEC_GSS keeps one sequence number per context on
	# either side, so the client serializes such calls and the server
	# serves one connection's one at a time (rpcrdma(7) SECURITY).
	gss_case gss-krb5i-threads integrity "-j 4" "-T 4"
	# Bad input on an established context (gss_client -M): a bit of the
	# header's MIC flipped is refused with RPCSEC_GSS_CREDPROBLEM, a bit of
	# the checksummed or sealed body with GARBAGE_ARGS; each followed by
	# a good call on the same context, the server standing.
	gss_case gss-krb5i-bad-input integrity "" "-M"
	gss_case gss-krb5p-bad-input privacy "" "-M"
	# The differential test (xdr-cases.sh) on the auth axis: every
	# XDR construct at sizes from 0 past 4 MiB, the Send strategies and
	# chunk modes taking krb5i, krb5p, krb5 and AUTH_SYS in turn, each
	# call compared with the same call over libtirpc TCP at the same
	# flavour.  Fewer random calls than the plain run: 20, in 40 s.
	rm -f "$work/xdr-differential-gss.ready"
	pair xdr-differential-gss \
		"env $gss_env $b/tests/rdma/xdrdiff_server -a $srv -s echo@rpcsrv.test" \
		"env $gss_env $b/tests/rdma/xdrdiff_client -a $srv -A krb5i,krb5p,krb5,sys -s echo@rpcsrv.test -n ${XDN:-20} -B ${XDB:-40}"
	grep -h 'seed\|calls\|auth' "$work/xdr-differential-gss.client" | sed 's/^/# /'
	gss_preload
else
	tap "not ok - $kind: gss-realm (no Kerberos realm: krb5-kdc and krb5-user installed?)"
	awk '{ print "# setup: " $0 }' "$gss_dir/setup.log" "$gss_dir/kdc.log" 2>/dev/null
	failed=1
fi
[ -z "$gss_kdc" ] || { kill $gss_kdc 2>/dev/null; wait $gss_kdc 2>/dev/null; }
