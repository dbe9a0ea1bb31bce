# SPDX-License-Identifier: GPL-2.0
# server.sh - start a request/response server in the background for a test.
#
# Sourced after ktap.sh (uses sg_defer and ktap_note).  POSIX sh.
#
#	start_server "$SG_BUILD/selftests/sgserver" -t 2 -s 50
#
# start_server BINARY ARGS...: runs BINARY -p 0 ARGS... with its output in
# srvN.out/srvN.err (one pair per server: the shell truncates a reused file
# in the child, after the parent may already have read the old one's port),
# waits up to 4 s for its "ready PORT" line, sets SPID and PORT (PORT empty,
# with a note, if it never became ready) and kills it at exit.
NSRV=0
start_server() {
	NSRV=$((NSRV + 1))
	"$@" -p 0 > srv$NSRV.out 2> srv$NSRV.err &
	SPID=$!
	sg_defer "kill $SPID"
	for i in $(seq 1 20); do grep -q ready srv$NSRV.out && break; sleep 0.2; done
	PORT=$(awk '/ready/ {print $2}' srv$NSRV.out)
	[ -n "$PORT" ] || ktap_note "server did not start: $(cat srv$NSRV.err)"
}
