# SPDX-License-Identifier: GPL-2.0
# guest-workload.sh - the project's workload in the Debian 6.1 guest (busybox
# sh, TCG): sgserver in both threading shapes answers every request of a
# short sgclient run, with no errors.
. "$SG_TOP/selftests/lib/ktap.sh"

B=$SG_BUILD/selftests
for t in sgserver sgclient; do
	[ -x "$B/$t" ] || ktap_skip_all "$B/$t not built (make tools)"
done

# start_server NAME ARGS...: sgserver in the background; sets PORT (empty if
# it never said ready within 10 s) and SRV_PID.
start_server() {
	_n=$1; shift
	"$B/sgserver" -p 0 "$@" >"$_n.out" 2>"$_n.err" &
	SRV_PID=$!
	sg_defer "kill $SRV_PID 2>/dev/null"
	PORT=
	_i=0
	while [ $_i -lt 100 ]; do
		PORT=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$_n.out")
		[ -n "$PORT" ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
}

# jget FILE KEY: an integer key of sgclient's JSON line (no python here)
jget() { sed -n "s/.*\"$2\": \([0-9][0-9]*\).*/\1/p" "$1"; }

ktap_plan 13

W=$("$B/sgserver" --calibrate | sed -n 's/^iters_per_us \([0-9][0-9]*\)$/\1/p')
ktap_check '[ -n "$W" ] && [ "$W" -gt 0 ]' "--calibrate works in the guest (iters_per_us $W)"
W=${W:-100}

# Guest scale (workload.rst, evaluation.rst): ~1 ms service, ~100 req/s, 2 vCPUs.
for mode in epoll thread; do
	start_server $mode -m $mode -s 1000 -w "$W" -d 60
	ktap_check '[ -n "$PORT" ]' "$mode: server prints 'ready PORT'"
	"$B/sgclient" -p "$PORT" -r 100 -d 2 -c 2 -S 5 -j >$mode.json 2>$mode.cerr
	ktap_eq 0 "$?" "$mode: client run exits 0"
	ktap_note "$(cat $mode.json $mode.cerr)"
	ktap_cmp "$(jget $mode.json sent)" -gt 0 "$mode: requests were sent"
	ktap_eq "$(jget $mode.json sent)" "$(jget $mode.json received)" \
		"$mode: every request was answered"
	ktap_eq 0 "$(jget $mode.json errors)" "$mode: no errors"
	ktap_check '"$B/sgclient" -p $PORT --frag 200 2>&1 | grep -qx "frag ok 200"' \
		"$mode: pipelined requests torn across reads are answered in order"
	kill $SRV_PID
	wait $SRV_PID
	ktap_note "$(cat $mode.err)"
done
ktap_finished
