# SPDX-License-Identifier: GPL-2.0
# guest-memcached.sh - the bench's unmodified server in the guest: Debian's
# memcached (copied in by selftests/vm/run from the package scripts/setup
# unpacked) starts on CPU 1, sgclient --proto memcache fills its key space
# and gets an answer to every multi-get, and slackgov's target on it, by
# name (--comm memcached) with an SLO, reports its requests and their
# server-side latency (sgwin's windows and slackctl status).  Skips when the
# guest has no memcached.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
MC=/usr/bin/memcached
PORT=11211		# memcached's default
RATE=150		# req/s for 3 s: light for a one-thread TCG guest
MGET=20			# keys per get (the bench asks for more; here answers count)

[ -x "$MC" ] || ktap_skip_all "no $MC in the guest (scripts/setup did not unpack Debian's memcached)"
[ -x "$S" ] && [ -x "$B/sgclient" ] && [ -x "$B/sgwin" ] || ktap_skip_all "slackctl, sgclient or sgwin not built"

ktap_plan 7
"$S" load --hooks "$SG_LOOP_HOOKS" > /dev/null
sg_defer "$S unload > /dev/null 2>&1"

taskset -c 1 "$MC" -u root -l 127.0.0.1 -p $PORT -U 0 -t 2 2> mc.err &
MPID=$!
sg_defer "kill $MPID 2>/dev/null"
for i in $(seq 1 20); do
	taskset -c 0 "$B/sgclient" -p $PORT --proto memcache --fill 64 > fill.out 2> fill.err && break
	sleep 0.5
done
ktap_check 'grep -qx "fill ok 1000" fill.out' \
	"memcached $("$MC" -V | cut -d' ' -f2) answers on CPU 1: its 1000 keys stored ($(cat fill.out fill.err mc.err | head -c 200))"

SLOT=$("$S" -j target add --comm memcached --slo 50ms | sed -n 's/.*"slot": *\([0-9]*\).*/\1/p')
sg_defer "$S target del --comm memcached > /dev/null 2>&1"
ktap_check '[ -n "$SLOT" ] && "$S" -j target list | grep -q "\"target\": \"comm memcached\".*\"slo_us\": 50000"' \
	"a target by name: slackctl target add --comm memcached --slo 50ms (slot $SLOT)"

# the client for 3 s; the windows followed over its busy span, and slackctl
# status 2.5 s in, over the last 2 s
"$B/sgwin" -s "${SLOT:-0}" -f 4.2 -b > win.out &
W=$!
sleep 0.1
taskset -c 0 "$B/sgclient" -p $PORT --proto memcache --mget $MGET -r $RATE -d 3 -c 4 -S 5 -j \
	> cl.out 2> cl.err &
C=$!
sleep 2.5
"$S" -j status --interval 2s > st.out 2>&1
wait $C
wait $W
jnum() { sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p" "$2" | head -n 1; }
wfield() { tr ' ' '\n' < win.out | sed -n "s/^$1=//p" | head -n 1; }
sent=$(jnum sent cl.out) recv=$(jnum received cl.out) err=$(jnum errors cl.out)
crps=$(jnum rps cl.out) cp99=$(jnum p99_us cl.out)
ktap_note "client: $(cat cl.out cl.err | head -c 400)"
ktap_check '[ "${sent:-0}" -gt $((RATE * 3 / 2)) ] && [ "$recv" = "$sent" ] && [ "$err" = 0 ]' \
	"every multi-get of $MGET keys answered with $MGET values ($recv of $sent, errors ${err:-?})"

orps=$(wfield rps) nlat=$(wfield nr_lat) sp99=$(wfield p99_us)
ktap_note "windows: $(head -c 600 win.out)"
# memcached sends one answer per get at this rate; several gets read
# together are answered together, so the observed rate may be lower
ktap_check "awk 'BEGIN { exit !(${orps:-0} >= 0.8 * ${crps:-0} && ${orps:-0} <= 1.1 * ${crps:-0}) }'" \
	"slackgov counts its requests: observed ${orps:-?} req/s, client ${crps:-?}"
ktap_check "awk 'BEGIN { exit !(${nlat:-0} >= ${recv:-0} / 2 && ${sp99:-0} > 0 && ${sp99:-0} <= ${cp99:-0} * 9 / 8) }'" \
	"and times them: ${nlat:-?} timed, server-side p99 ${sp99:-?} us <= client p99 ${cp99:-?} us (+1/8, a bucket)"

iv=$(tr -d '\n' < st.out | sed -n 's/.*"interval": *{\([^}]*\)}.*/\1/p')
ktap_note "status: $(head -c 1500 st.out)"
ktap_check 'echo "$iv" | grep -qE "\"requests\": [1-9]" && echo "$iv" | grep -qE "\"nr_lat\": [1-9]" &&
	echo "$iv" | grep -qE "\"lat_p99_us\": [1-9]" && echo "$iv" | grep -qE "\"slo_windows\": [1-9]"' \
	"slackctl status: the target's requests, latency and windows judged against its SLO"

# keys never stored: memcached answers END without them, the client counts
# each such answer as an error
taskset -c 0 "$B/sgclient" -p $PORT --proto memcache --mget $MGET --keyspace 5000 -r 50 -d 1 -c 2 -j \
	> miss.out 2>/dev/null
ktap_check '[ "$(jnum errors miss.out)" -gt 0 ] && [ "$(jnum received miss.out)" = "$(jnum sent miss.out)" ]' \
	"a get of keys never stored is answered and counted as an error ($(head -c 120 miss.out))"
ktap_finished
