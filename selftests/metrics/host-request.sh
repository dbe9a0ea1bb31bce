# SPDX-License-Identifier: GPL-2.0
# host-request.sh - requests bracketed by a user function (target add
# --request, bpf/func.bpf.h): funcsrv's handle_request() sleeps 2 ms and
# spins 300 us per request; every request is counted, its 2 ms counted as
# blocked (within 10 %) and the spin as on-CPU; the probes go with target
# del; a missing binary, a missing function, a stripped binary, a file that
# is no ELF, --request with --proto and a PID that has exited are refused
# with nothing attached or added.  The same by USDT probes (--request
# usdt:BINARY:PROVIDER:START:END, funcsrv's probes around each request):
# every request counted and its sleep blocked; a probe behind a semaphore
# is reached (the kernel set the semaphore: funcsrv counted its requests
# there, none without the probe); a missing probe, a binary without
# probes and a malformed spec are refused, nothing changed.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
[ -x "$S" ] || ktap_skip_all "slackctl not built"
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
command -v "${CC:-cc}" >/dev/null || ktap_skip_all "no C compiler for the test server"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"
[ -e /sys/bus/event_source/devices/uprobe/type ] || ktap_skip_all "this kernel has no uprobe events"
"${CC:-cc}" -O2 -o funcsrv "$SG_TOP/selftests/metrics/funcsrv.c" || ktap_skip_all "cannot build funcsrv"
cp funcsrv funcsrv.stripped && strip -s funcsrv.stripped
echo 'int main(void) { return 0; }' | "${CC:-cc}" -x c -o nousdt - || ktap_skip_all "cannot build a binary"
sg_defer "$S unload"
LINKS=/sys/fs/bpf/slackgov/links
uprobes() { ls "$LINKS" | grep -c '^uprobe-'; }

ktap_plan 20
"$S" load > /dev/null || ktap_bail "slackctl load failed"
./funcsrv 2000 300 > srv.port 2> srv.gated & SRV=$!
sg_defer "kill $SRV 2>/dev/null"
for i in $(seq 1 30); do [ -s srv.port ] && break; sleep 0.1; done

before=$("$S" -j target list)
bad() {		# bad DESC MESSAGE [--dead] ARGS...: refused, nothing attached or
	_d=$1 _m=$2	# added; --dead: for a PID that has exited, not the server's
	shift 2
	_p=$SRV
	[ "$1" = --dead ] && { shift; sleep 0 & _p=$!; wait $_p; }
	"$S" target add --pid $_p "$@" > bad.out 2> bad.err
	_rc=$?
	ktap_check '[ $_rc -ne 0 ] && grep -q "^Error: .*$_m" bad.err && [ "$(uprobes)" = 0 ] &&
		[ "$("$S" -j target list)" = "$before" ]' "$_d: refused, nothing changed ($(cat bad.err))"
}
bad "a missing binary" "No such file" --request "$PWD/nosuch:handle_request"
bad "a missing function" "no function 'nosuch'" --request "$PWD/funcsrv:nosuch"
bad "a stripped binary" "stripped" --request "$PWD/funcsrv.stripped:handle_request"
bad "a file that is no ELF" "not an ELF" --request "$PWD/srv.port:x"
bad "--request with --proto" "not with --proto" --request "$PWD/funcsrv:handle_request" --proto conn
bad "probes for a process that has exited" "no process with PID" --dead --request "$PWD/funcsrv:handle_request"

"$S" target add --pid $SRV --request "$PWD/funcsrv:handle_request" > add.out
ktap_check '[ "$(uprobes)" = 2 ] && grep -q "proto func" add.out' "the function's two probes attached ($(cat add.out))"
# send300 PORT: 300 requests one after another, then the client closes: the
# server exits; prints 300
send300() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for i in range(300):
	s.sendall(b"req\n")
	if s.recv(16) != b"ok\n":
		sys.exit("bad answer")
print(300)' "$1"
}
sent=$(send300 "$(cat srv.port)")
wait $SRV
sleep 0.1
py() { "$S" -j status --interval 5s | python3 -c "import json,sys; d=json.load(sys.stdin); x=[t for t in d['targets'] if t['target']=='pid $SRV'][0]; i=x['interval']; print($1)"; }
read -r req blk cpu lat <<EOF
$(py "x['total_req'], i['blocked_per_req_us'], i['oncpu_per_req_us'], i['lat_mean_us']")
EOF
ktap_note "client sent ${sent:-?}; counted $req, per request: latency $lat us, blocked $blk us, on-CPU $cpu us"
ktap_check '[ "$req" = "${sent:-x}" ]' "every call of the function is a request ($req of $sent)"
ktap_check 'awk -v b="$blk" -v c="$cpu" "BEGIN { exit !(b >= 1800 && b <= 2200 && c >= 300) }"' \
	"its 2 ms sleep is blocked time (within 10 %: $blk us) and its 300 us spin on-CPU ($cpu us)"
"$S" target del --pid $SRV > /dev/null
ktap_eq 0 "$(uprobes)" "target del removes the probes"
ktap_eq "gated 0" "$(cat srv.gated)" "with no probe at the gated USDT probe, its semaphore stayed 0"

# ---- USDT probes ----
# usdt START END: a new funcsrv, a target by its probes START..END; sets req
# blk sent gated
usdt() {
	./funcsrv 2000 300 > srv.port 2> srv.gated & SRV=$!
	for i in $(seq 1 30); do [ -s srv.port ] && break; sleep 0.1; done
	"$S" target add --pid $SRV --request "usdt:$PWD/funcsrv:funcsrv:$1:$2" > add.out 2>&1
	ktap_check '[ "$(uprobes)" = 2 ] && grep -q "proto func" add.out' "USDT $1..$2: two probes attached ($(cat add.out))"
	sent=$(send300 "$(cat srv.port)")
	wait $SRV
	sleep 0.1
	read -r req blk cpu lat <<-EOF
	$(py "x['total_req'], i['blocked_per_req_us'], i['oncpu_per_req_us'], i['lat_mean_us']")
	EOF
	gated=$(cat srv.gated)
	ktap_note "USDT $1..$2: client sent ${sent:-?}; counted $req, per request: latency $lat us, blocked $blk us, on-CPU $cpu us; funcsrv: $gated"
	"$S" target del --pid $SRV > /dev/null
}
usdt req_start req_done
ktap_check '[ "$req" = "${sent:-x}" ]' "USDT: every pass from req_start to req_done is a request ($req of $sent)"
ktap_check 'awk -v b="$blk" "BEGIN { exit !(b >= 1800 && b <= 2200) }"' "USDT: the request's 2 ms sleep is blocked time (within 10 %: $blk us)"
usdt gated_start gated_done
ktap_check '[ "$req" = "${sent:-x}" ] && [ "$gated" = "gated $sent" ]' \
	"USDT behind a semaphore: set while attached, every request passed it ($gated, $req counted of $sent)"
ktap_eq 0 "$(uprobes)" "target del removes the USDT probes"

./funcsrv 2000 300 > srv.port 2> srv.gated & SRV=$!
sg_defer "kill $SRV 2>/dev/null"
for i in $(seq 1 30); do [ -s srv.port ] && break; sleep 0.1; done
before=$("$S" -j target list)
bad "a missing USDT probe" "no USDT probe 'funcsrv:nosuch'" --request "usdt:$PWD/funcsrv:funcsrv:req_start:nosuch"
bad "a binary without USDT probes" "has no USDT probes" --request "usdt:$PWD/nousdt:funcsrv:req_start:req_done"
bad "a USDT spec without its END" "write usdt:BINARY:PROVIDER:START:END" --request "usdt:$PWD/funcsrv:req_start:req_done"
ktap_finished
