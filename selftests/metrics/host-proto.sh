# SPDX-License-Identifier: GPL-2.0
# host-proto.sh - requests per connection and their parsers (bpf/conn.bpf.h,
# bpf/proto.bpf.h) on byte streams whose requests are known (proto.py): each
# protocol's requests counted exactly, with --proto PROTO and with auto,
# pipelined, cut mid-token across reads, inside payloads that look like
# requests, read by one thread and answered by another, and timed from
# their arrival (the answer waits 20 ms); over TLS too, read at libssl's
# SSL_read_ex (--tls); the thread rules count sends instead; a bad --proto
# or --tls changes nothing.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
PY="python3 -B $SG_TOP/selftests/metrics/proto.py"
[ -x "$S" ] || ktap_skip_all "slackctl not built"
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"
sg_defer "$S unload"
# slat SLOT KEY: a field of the slot's cumulative latency counters (sgwin)
slat() { "$B/sgwin" -s "$1" | sed -n 's/^lat //p' | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# field EXPR of target pid $1 in status -j
tgt() { "$S" -j status | python3 -c "import json,sys; d=json.load(sys.stdin); x=[t for t in d['targets'] if t['target']=='pid $1'][0]; print($2)"; }

# run PROTO TARGET_PROTO [tls]: proto.py's server of PROTO as a target with
# --proto TARGET_PROTO, its client once: SENT (client's requests), REQ
# (total_req), SENDS (total_send), LAT (mean latency, us), ATTR
run() {
	rm -f srv.port
	if [ "${3:-}" = tls ]; then
		$PY server "$1" --tls cert.pem key.pem > srv.port & SRV=$!
	else
		$PY server "$1" > srv.port & SRV=$!
	fi
	for i in $(seq 1 50); do [ -s srv.port ] && break; sleep 0.1; done
	slot=$("$S" -j target add --pid $SRV --proto "$2" ${3:+--tls "$LIBSSL"} |
		sed -n 's/.*"slot": *\([0-9]*\).*/\1/p')
	SENT=$($PY client "$(cat srv.port)" "$1" ${3:+--tls})
	sleep 0.05		# the last answer's window closes
	REQ=$(tgt $SRV "x['total_req']") SENDS=$(tgt $SRV "x['total_send']")
	ATTR=$(tgt $SRV "x['attribution']")
	n=$(slat "$slot" total_lat) ns=$(slat "$slot" total_lat_ns)
	LAT=$(( ${ns:-0} / (${n:-0} > 0 ? ${n:-0} : 1) / 1000 ))
	"$S" target del --pid $SRV > /dev/null
	kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
}

# the libssl that Python's ssl module maps, and a certificate for it
LIBSSL=$(ldd "$(python3 -c 'import _ssl; print(_ssl.__file__)' 2>/dev/null)" 2>/dev/null |
	sed -n 's/.*libssl[^ ]* => \([^ ]*\) .*/\1/p')
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=localhost \
	> /dev/null 2>&1 || LIBSSL=""

ktap_plan 19
"$S" load > /dev/null || ktap_bail "slackctl load failed"
for p in resp memcache http1 http2 conn; do
	run $p $p
	ktap_note "$p: client sent $SENT, counted $REQ ($SENDS sends), mean latency ${LAT} us, $ATTR"
	ktap_check '[ -n "$SENT" ] && [ "$REQ" = "$SENT" ]' "--proto $p: every request counted ($REQ of $SENT)"
	ktap_check '[ "$n" = "$SENT" ] && [ "$LAT" -ge 20000 ]' \
		"--proto $p: all $n timed from arrival to the other thread's answer, 20 ms later (mean $LAT us)"
done
for p in resp http2; do
	run $p auto
	ktap_check '[ -n "$SENT" ] && [ "$REQ" = "$SENT" ]' "--proto auto on $p's bytes: counted as $p ($REQ of $SENT)"
done
for p in resp http2; do
	if [ -z "$LIBSSL" ]; then
		ktap_skip "--tls on $p" "no libssl for Python's ssl module, or no openssl to make a certificate"
		continue
	fi
	run $p $p tls
	ktap_note "$p over TLS: client sent $SENT, counted $REQ ($SENDS sends), mean latency ${LAT} us, $ATTR"
	ktap_check '[ -n "$SENT" ] && [ "$REQ" = "$SENT" ] && [ "$ATTR" = tls+parser ] && [ "$LAT" -ge 20000 ]' \
		"--proto $p --tls: every request counted in the plaintext and timed ($REQ of $SENT, mean $LAT us)"
done
run resp thread
ktap_check '[ "$REQ" = "$SENDS" ] && [ "$REQ" -lt "$SENT" ] && [ "$ATTR" = thread ]' \
	"the thread rules count sends: $REQ for $SENT pipelined requests"

# bad input: a clear error, the target table unchanged
sleep 60 & SL=$!
sg_defer "kill $SL 2>/dev/null"
before=$("$S" -j target list)
"$S" target add --pid $SL --proto smtp > bad.out 2> bad.err
rc=$?
ktap_check '[ $rc -ne 0 ] && grep -q "^Error: .*--proto .smtp.: not one of" bad.err && [ "$("$S" -j target list)" = "$before" ]' \
	"an unknown protocol is refused, nothing added ($(cat bad.err))"
"$S" target add --pid $SL --proto http2 --tls "$SG_BUILD/userctl/slackctl" > bad.out 2> bad.err
rc=$?
ktap_check '[ $rc -ne 0 ] && grep -q "^Error: --tls: no function .SSL_read." bad.err && [ "$("$S" -j target list)" = "$before" ] &&
	! ls /sys/fs/bpf/slackgov/links | grep -q "^uprobe-"' "a --tls library without SSL_read is refused, nothing attached ($(cat bad.err))"
"$S" target add --pid $SL --tls /nonexistent > bad.out 2> bad.err
rc=$?
ktap_check '[ $rc -ne 0 ] && grep -q "^Error: .*--tls reads the requests at SSL_read: give the protocol" bad.err &&
	[ "$("$S" -j target list)" = "$before" ]' "--tls without --proto is refused ($(cat bad.err))"
"$S" target add --pid $SL > /dev/null
"$S" target set --pid $SL --proto http1 > /dev/null
"$S" target del --pid $SL --proto http1 > bad.out 2> bad.err
rc=$?
ktap_check '[ $rc -ne 0 ] && [ "$("$S" -j target list | grep -c "\"proto\": *\"http1\"")" = 1 ]' \
	"target set changes the proto; del refuses --proto, the target stays ($(cat bad.err))"
ktap_finished
