# SPDX-License-Identifier: GPL-2.0
# host-workload.sh - the project's workload on the host: sgserver (its
# three threading shapes) answers every request sgclient sends, at the
# asked rate, with a schedule fixed by the seed, service time and -b's
# block that show in the latency, in order when pipelined (also in RESP and
# answered one write per read), JSON that parses, and clear errors on bad
# input.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/workload/common.sh"

B=$SG_BUILD/selftests
for t in sgserver sgclient; do
	[ -x "$B/$t" ] || ktap_skip_all "$B/$t not built (make tools)"
done
command -v python3 >/dev/null || ktap_skip_all "python3 missing"

# start_server NAME ARGS...: sgserver in the background, stdout in NAME.out;
# sets PORT (empty if it never said ready) and SRV_PID.
start_server() {
	_n=$1; shift
	"$B/sgserver" -p 0 "$@" >"$_n.out" 2>"$_n.err" &
	SRV_PID=$!
	sg_defer "kill $! 2>/dev/null; wait $! 2>/dev/null"
	PORT=
	for _i in $(seq 50); do
		PORT=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$_n.out")
		[ -n "$PORT" ] && break
		sleep 0.1
	done
}

# jget FILE KEY: a key of the JSON object in FILE
jget() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$1" "$2" 2>/dev/null
}


KEYS="rps sent received errors mean_us p50_us p90_us p99_us p999_us max_us"
KEYS="$KEYS duration_s rate conns seed"

ktap_plan 58

# ---- calibration --------------------------------------------------------------------
W=$("$B/sgserver" --calibrate | sed -n 's/^iters_per_us \([0-9][0-9]*\)$/\1/p')
ktap_check '[ -n "$W" ] && [ "$W" -gt 0 ]' "--calibrate prints iters_per_us N (N=$W)"
W=${W:-1000}
# The service-time checks below assert a lower bound: latency >= service.  The
# spin is work, and this shared host's CPU speed itself moves with its
# neighbours' load (measured: 2000-3700 iterations/us within a minute, SMT
# siblings), so work calibrated in a busy moment runs short in a quiet one.
# Those servers get twice the fastest of three calibrations (WS): their
# "N us" is then at least N us of spin unless the CPU runs over 2x faster
# than it was ever seen to.  What is checked is that the server applies the
# service (default and per-request) and that it shows in the latency.
WS=$W
for _i in 1 2; do
	_w=$("$B/sgserver" --calibrate | sed -n 's/^iters_per_us \([0-9][0-9]*\)$/\1/p')
	[ "${_w:-0}" -gt "$WS" ] && WS=$_w
done
WS=$((WS * 2))

# ---- epoll shape --------------------------------------------------------------------
start_server epoll -m epoll -t 2 -w "$W"
EPORT=$PORT EPID=$SRV_PID
ktap_check '[ -n "$EPORT" ]' "epoll server prints 'ready PORT' (port $EPORT)"

# 3000 req/s for 2 s: 6000 arrivals expected (Poisson sd ~77, 1.3%), so the
# 5% band is a real check of pacing, not of luck; the seed fixes the draw.
ktap_run_ok "client runs 3000 req/s for 2 s" \
	sh -c "'$B/sgclient' -p $EPORT -r 3000 -d 2 -c 4 -S 1 -j >run1.json 2>run1.err"
ktap_note "$(cat run1.json)"
ktap_check 'python3 -c "import json,sys; json.load(sys.stdin)" <run1.json' "JSON output parses"
ktap_check 'jtest run1.json "all(k in o for k in \"$KEYS\".split())"' \
	"JSON has every documented key"
ktap_cmp "$(jget run1.json sent)" -gt 0 "requests were sent"
ktap_eq "$(jget run1.json sent)" "$(jget run1.json received)" "every request was answered"
ktap_eq 0 "$(jget run1.json errors)" "no errors"
ktap_check 'jtest run1.json "abs(o.rps - 3000) <= 0.05 * 3000"' \
	"achieved RPS within 5% of 3000 ($(jget run1.json rps))"
ktap_check 'jtest run1.json "0 < o.p50_us <= o.p90_us <= o.p99_us <= o.p999_us <= o.max_us"' \
	"percentiles are ordered"

# same seed, same schedule (the arrival count in the window is the schedule's)
"$B/sgclient" -p "$EPORT" -r 2000 -d 0.5 -S 42 -j >seed1.json 2>/dev/null
"$B/sgclient" -p "$EPORT" -r 2000 -d 0.5 -S 42 -j >seed2.json 2>/dev/null
ktap_eq "$(jget seed1.json sent)" "$(jget seed2.json sent)" "same seed, same number of arrivals"

ktap_check '"$B/sgclient" -p $EPORT --frag 2000 2>&1 | grep -qx "frag ok 2000"' \
	"epoll: pipelined requests torn across reads are answered in order"
ktap_check '"$B/sgclient" -H ::1 -p $EPORT -r 10 -d 0.2 >/dev/null 2>&1; [ $? -eq 1 ]' \
	"::1 is accepted as loopback (server listens on 127.0.0.1 only: refused)"

# ramp: one JSON object per step, with step and rate
ktap_run_ok "client ramps 200,1000,500 req/s, 1 s each" \
	sh -c "'$B/sgclient' -p $EPORT --ramp 200,1000,500:1 -S 3 -j >ramp.json 2>ramp.err"
sed "s/^/# /" ramp.json
ktap_eq 3 "$(wc -l <ramp.json)" "ramp prints one line per step"
ktap_check 'jtest ramp.json "[(x.step, x.rate) for x in objs] == [(0, 200), (1, 1000), (2, 500)]"' \
	"ramp steps carry step and rate"
ktap_check 'jtest ramp.json "all(x.sent == x.received > 0 and x.errors == 0 for x in objs)"' \
	"ramp: every request of every step answered"

# warm-up: one line when the measured run starts, then the run, which
# counts only its own requests (same seed and rate: about as many as without)
ktap_run_ok "client warms up 1 s, then 1 s measured at 300 req/s" \
	sh -c "'$B/sgclient' -p $EPORT -r 300 -d 1 --warmup 1 -S 4 -j >warm.json 2>warm.err"
sed "s/^/# /" warm.json
ktap_check 'jtest warm.json "len(objs) == 2 and objs[0].warmup_s == 1 and objs[0].sent > 200"' \
	"warm-up: its line first, with what it sent"
ktap_check 'jtest warm.json "200 < objs[1].sent < 400 and objs[1].sent == objs[1].received and objs[1].errors == 0"' \
	"warm-up: the measured run counts only its own requests, all answered"
ktap_check '"$B/sgclient" -p $EPORT -r 10 -d 1 --warmup -1 2>&1 | grep -q "invalid --warmup"' \
	"a negative warm-up is refused"
# --mark-lead: the line comes that long before the run, which then counts
# the requests sent in between (300 req/s for 0.5 s: ~150)
ktap_run_ok "client warms up 1 s, marks 0.5 s before the measured run" \
	sh -c "'$B/sgclient' -p $EPORT -r 300 -d 1 --warmup 1 --mark-lead 0.5 -S 4 -j >lead.json 2>lead.err"
sed "s/^/# /" lead.json
ktap_check 'jtest lead.json "len(objs) == 2 and objs[0].lead_s == 0.5 and 100 < objs[0].sent < 200 and 100 < objs[1].lead_sent < 200 and 200 < objs[1].sent < 400"' \
	"mark-lead: the line after half the warm-up, the run counts the lead's sends apart from its own"
ktap_check '"$B/sgclient" -p $EPORT -r 10 -d 1 --warmup 0.2 --mark-lead 0.5 2>&1 | grep -q "at most the --warmup"' \
	"a lead longer than the warm-up is refused"

kill "$EPID"
wait "$EPID"
ktap_eq 0 "$?" "epoll server exits 0 on SIGTERM"
ktap_check 'grep -q "requests=[1-9]" epoll.err' "epoll server prints its summary"
ktap_note "$(cat epoll.err)"

# ---- thread-per-connection shape ----------------------------------------------------
start_server thread -m thread -w "$WS"
TPORT=$PORT TPID=$SRV_PID
ktap_check '[ -n "$TPORT" ]' "thread server prints 'ready PORT' (port $TPORT)"
ktap_run_ok "client runs 1000 req/s for 2 s against the thread server" \
	sh -c "'$B/sgclient' -p $TPORT -r 1000 -d 2 -c 8 -S 2 -j >thr.json 2>thr.err"
ktap_note "$(cat thr.json)"
ktap_cmp "$(jget thr.json sent)" -gt 0 "thread: requests were sent"
ktap_eq "$(jget thr.json sent)" "$(jget thr.json received)" "thread: every request was answered"
ktap_eq 0 "$(jget thr.json errors)" "thread: no errors"
ktap_check '"$B/sgclient" -p $TPORT --frag 2000 2>&1 | grep -qx "frag ok 2000"' \
	"thread: pipelined requests torn across reads are answered in order"

# per-request service override: the server's default is 0, the request asks 3 ms
"$B/sgclient" -p "$TPORT" -r 50 -d 1 -c 2 -s 3000 -j >ovr.json 2>/dev/null
ktap_note "$(cat ovr.json)"
ktap_check 'jtest ovr.json "o.p50_us >= 3000"' \
	"a request's service_us override shows in p50 ($(jget ovr.json p50_us) us >= 3000)"
kill "$TPID"
wait "$TPID"
ktap_eq 0 "$?" "thread server exits 0 on SIGTERM"

# ---- pool shape, RESP, one write per read, pipelined arrivals ------------------------
start_server pool -m pool -t 2 -w "$W"
PPORT=$PORT PPID_=$SRV_PID
ktap_check '[ -n "$PPORT" ]' "pool server prints 'ready PORT' (port $PPORT)"
"$B/sgclient" -p "$PPORT" -r 1000 -d 2 -c 8 -S 5 -j >pool.json 2>pool.err
ktap_note "$(cat pool.json)"
ktap_check 'jtest pool.json "o.sent == o.received > 1500 and o.errors == 0"' \
	"pool: every request answered ($(jget pool.json received) of $(jget pool.json sent))"
ktap_check '"$B/sgclient" -p $PPORT --frag 2000 2>&1 | grep -qx "frag ok 2000"' \
	"pool: pipelined requests torn across reads are answered in order"
kill "$PPID_"
wait "$PPID_"
ktap_check '[ $? -eq 0 ] && grep -q "mode=pool threads=2 .*requests=[1-9]" pool.err' \
	"pool server exits 0 on SIGTERM with its summary"
# RESP: an event loop answering each read's requests with one write (redis's
# shape), then the pool the same way; 8 requests per arrival
for shape in "-m epoll -t 1" "-m pool -t 2"; do
	start_server resp $shape --proto resp --coalesce -w "$W"
	ktap_check '"$B/sgclient" -p $PORT --proto resp --frag 2000 2>&1 | grep -qx "frag ok 2000"' \
		"$shape --proto resp --coalesce: requests torn across reads answered in order"
	"$B/sgclient" -p "$PORT" --proto resp --pipeline 8 -r 4000 -d 1 -c 4 -j >resp.json 2>resp.err
	ktap_check 'jtest resp.json "o.sent == o.received > 3000 and o.sent % 8 == 0 and o.errors == 0"' \
		"$shape --proto resp --coalesce: 8 pipelined per arrival, every request answered ($(jget resp.json received))"
	kill "$SRV_PID"
	wait "$SRV_PID"
done

# ---- -b: a block off the CPU after the service --------------------------------------
# wall time, not work: the lower bound holds at any CPU speed
for how in timer pipe; do
	start_server blk -t 2 -b 3000 --block-how $how -w "$W"
	"$B/sgclient" -p "$PORT" -r 50 -d 1 -c 2 -j >blk.json 2>/dev/null
	kill "$SRV_PID"
	wait "$SRV_PID"
	ktap_check 'jtest blk.json "o.sent == o.received > 0 and o.p50_us >= 3000" && grep -q "block_us=3000 block_how=$how .* blocked_s=0\.[1-9]" blk.err' \
		"-b 3000 --block-how $how: the block shows in p50 ($(jget blk.json p50_us) us >= 3000) and in blocked_s"
done

# ---- service time -------------------------------------------------------------------
# Only the lower bound is asserted (see WS above); latency is a benchmark figure.
start_server svc -t 2 -s 2000 -w "$WS" -d 30
ktap_check '[ -n "$PORT" ]' "server with 2 ms service time is ready"
"$B/sgclient" -p "$PORT" -r 50 -d 1 -c 2 -j >svc.json 2>/dev/null
ktap_note "$(cat svc.json)"
ktap_eq "$(jget svc.json sent)" "$(jget svc.json received)" "service: every request was answered"
ktap_check 'jtest svc.json "o.p50_us >= 2000"' \
	"service time shows in p50 ($(jget svc.json p50_us) us >= 2000)"

ktap_check 'timeout 10 "$B/sgserver" -p 0 -w "$W" -d 0.3 >/dev/null 2>&1' \
	"server exits by itself after -d"

# ---- bad input ----------------------------------------------------------------------
# fails_with RC "description" args...: sgclient exits RC with "sgclient: error:"
fails_with() {
	_rc=$1 _d=$2; shift 2
	timeout 10 "$B/sgclient" "$@" >bad.out 2>bad.err
	_got=$?
	if [ "$_got" -eq "$_rc" ] && grep -q '^sgclient: error: ' bad.err; then
		ktap_ok "$_d"
	else
		ktap_note "exit $_got (want $_rc), stderr: $(cat bad.err)"
		ktap_fail "$_d"
	fi
}
fails_with 2 "missing -p is an error" -r 10 -d 1
fails_with 2 "rate 0 is an error" -p "$EPORT" -r 0 -d 1
fails_with 2 "negative rate is an error" -p "$EPORT" -r -5 -d 1
fails_with 2 "unknown flag is an error" -p "$EPORT" -r 10 -d 1 --bogus
fails_with 2 "non-loopback host is refused" -H 192.0.2.1 -p "$EPORT" -r 10 -d 1
# the epoll server is gone: nothing listens on its port
fails_with 1 "connection refused is an error" -p "$EPORT" -r 10 -d 1
ktap_check '! "$B/sgserver" -m bogus 2>bad.err && grep -q "^sgserver: error: " bad.err' \
	"server refuses an unknown mode"
ktap_check '! "$B/sgserver" -b 10 --block-how sleep 2>bad.err && grep -q "^sgserver: error: invalid --block-how" bad.err' \
	"server refuses an unknown --block-how"
fails_with 2 "--pipeline 0 is an error" -p 1 -r 10 -d 1 --pipeline 0
fails_with 2 "--pipeline is not for --frag" -p 1 --frag 10 --pipeline 2
ktap_finished
