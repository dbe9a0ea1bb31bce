# SPDX-License-Identifier: GPL-2.0
# host-pool.sh - issue 46's test servers under the per-connection attribution
# (bpf/conn.bpf.h) and the latency decomposition (bpf/slackgov.bpf.c, DOC
# item 8): sgserver's pool (a front thread reads, a worker answers) counted
# and timed with --proto conn, counted but not timed under the thread rules;
# a redis-like pipelined workload (sgclient --proto resp --pipeline 8, one
# write per read) counted request by request with --proto resp; a server
# that blocks 2 ms per request after its service (a timer, a pipe) seen
# blocked 2 ms per request, on the CPU for its service, and not blocked
# without -b.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/lib/server.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
for t in sgserver sgclient; do
	[ -x "$B/$t" ] || ktap_skip_all "$B/$t not built (make tools)"
done
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"

# iv PID: the target's interval figures over the last 4 s as shell
# assignments (REQ NLAT LAT QUEUE SVCM ONCPU RUNQ BLOCKED P99 ATTR; -1 for
# null), for a run of 3 s at most that started after its target was added
iv() {
	"$S" -j status --interval 4s | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = [t for t in d["targets"] if t["target"] == "pid " + sys.argv[1]][0]
i = t["interval"] or {}
keys = (("REQ", "requests"), ("NLAT", "nr_lat"), ("LAT", "lat_mean_us"),
        ("QUEUE", "queue_mean_us"), ("SVCM", "svc_mean_us"),
        ("ONCPU", "oncpu_per_req_us"), ("RUNQ", "runq_per_req_us"),
        ("BLOCKED", "blocked_per_req_us"), ("P99", "lat_p99_us"))
print(" ".join("%s=%d" % (v, -1 if i.get(k) is None else i[k]) for v, k in keys),
      "ATTR=" + t["attribution"])' "$1"
}
# cl FILE: sgclient -j's figures as CSENT CRECV CERR CMEAN CP99 (integers, us)
cl() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("CSENT=%d CRECV=%d CERR=%d CMEAN=%d CP99=%d" %
      (d["sent"], d["received"], d["errors"], d["mean_us"], d["p99_us"]))' "$1" 2>/dev/null ||
		echo "CSENT=0 CRECV=0 CERR=1 CMEAN=0 CP99=0"
}
# srv_stop: stop the last server started, its summary's figures per
# request in us: SCPU_US (cpu_s), SBLK_US (blocked_s), SLATE_US (late_s)
srv_stop() {
	kill $SPID; wait $SPID 2>/dev/null
	eval "$(sed -n 's/.* requests=\([0-9]*\) .* cpu_s=\([0-9.]*\) blocked_s=\([0-9.]*\) late_s=\([0-9.]*\).*/SREQ=\1 _c=\2 _b=\3 _l=\4/p' srv$NSRV.err)"
	SCPU_US=$(awk -v c="${_c:-0}" -v n="${SREQ:-0}" 'BEGIN { printf "%d", n ? c * 1e6 / n : -1 }')
	SBLK_US=$(awk -v b="${_b:-0}" -v n="${SREQ:-0}" 'BEGIN { printf "%d", n ? b * 1e6 / n : -1 }')
	SLATE_US=$(awk -v l="${_l:-0}" -v n="${SREQ:-0}" 'BEGIN { printf "%d", n ? l * 1e6 / n : -1 }')
}
# within A B PCT: |A - B| <= PCT % of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }
# target PROTO: the last server started, a target of PROTO, with nothing yet
target() {
	"$S" target del --pid $SPID > /dev/null 2>&1
	"$S" target add --pid $SPID --proto "$1" > /dev/null
	sleep 0.3
}

# another test may have loaded it since the check: skip, and leave its
# instance alone (the unload is deferred only once this one is ours)
if ! "$S" load > load.out 2>&1; then
	grep -q "already loaded" load.out && ktap_skip_all "slackgov is in use on this machine"
	ktap_plan 1
	ktap_note "$(tail -n 1 load.out)"
	ktap_fail "slackctl load"
	ktap_finished
fi
sg_defer "$S unload"
ktap_plan 18
# the fastest of three calibrations: -s bounds the on-CPU figure from below
W=0
for _i in 1 2 3; do
	_w=$("$B/sgserver" --calibrate | sed -n 's/^iters_per_us \([0-9][0-9]*\)$/\1/p')
	[ "${_w:-0}" -gt "$W" ] && W=$_w
done

# ---- (a) the pool: read by the front thread, answered by a worker ----------------
# --proto conn counts a read that finds no request pending on its connection
# as one request: one that arrives before the previous answer on its
# connection is taken for part of it.  The client's round-robin over 32
# connections puts a connection's consecutive requests ~80 ms apart at
# 400 req/s (the sum of 32 exponential gaps), so only a stall that long
# merges two: the count is within 1 %, not exact by construction.
start_server "$B/sgserver" -m pool -t 2 -s 100 -w "$W"
target conn
"$B/sgclient" -p "$PORT" -r 400 -d 3 -c 32 -j > pool.json 2> pool.err
sleep 0.2
eval "$(cl pool.json)"; eval "$(iv $SPID)"
ktap_note "pool, --proto conn: client sent $CSENT, answered $CRECV (mean $CMEAN us, p99 $CP99 us); counted $REQ, timed $NLAT (mean $LAT us, p99 $P99 us), $ATTR"
ktap_check '[ "$CSENT" -gt 1000 ] && [ "$CRECV" = "$CSENT" ] && [ "$CERR" = 0 ]' \
	"pool: the client's $CSENT requests all answered"
ktap_check '[ "$REQ" -le "$CRECV" ] && within "$REQ" "$CRECV" 1' \
	"pool, --proto conn: requests read by one thread and answered by another counted within 1 % ($REQ of $CRECV)"
ktap_check '[ "$ATTR" = connection ] && [ "$NLAT" -le "$REQ" ] && within "$NLAT" "$REQ" 1' \
	"pool, --proto conn: and timed ($NLAT of $REQ)"
# slackgov's histogram has 8 buckets per power of two: its p99 is known to
# within one bucket (12.5 %), the client's to 0.2 %
ktap_check '[ "$P99" -gt 0 ] && [ $((P99 * 8)) -le $((CP99 * 9)) ]' \
	"pool, --proto conn: server-side p99 $P99 us <= the client's $CP99 us (within a histogram bucket)"
CONN_NLAT=$NLAT
target thread
"$B/sgclient" -p "$PORT" -r 400 -d 3 -c 32 -S 2 -j > poolt.json 2> poolt.err
sleep 0.2
eval "$(cl poolt.json)"; eval "$(iv $SPID)"
ktap_note "pool, --proto thread: client answered $CRECV; counted $REQ (sends), timed $NLAT, $ATTR"
ktap_check '[ "$ATTR" = thread ] && [ "$REQ" -le "$CRECV" ] && within "$REQ" "$CRECV" 1' \
	"pool, --proto thread: its sends counted ($REQ of $CRECV)"
ktap_check '[ "$NLAT" -le $((REQ / 100)) ]' \
	"pool, --proto thread: a send by a thread that did not read the request is not timed ($NLAT timed, $CONN_NLAT under --proto conn)"
srv_stop

# ---- (b) pipelined, one write per read: the redis-like workload ---------------------
# An event loop (one worker) answering the 8 requests of each read with one
# write, as redis does under redis-benchmark -P 8: the RESP parser counts
# each request, --proto conn each read.
start_server "$B/sgserver" -m epoll -t 1 -s 50 -w "$W" --proto resp --coalesce
target resp
"$B/sgclient" -p "$PORT" -r 1600 -d 2 -c 8 --proto resp --pipeline 8 -j > pipe.json 2> pipe.err
sleep 0.2
eval "$(cl pipe.json)"; eval "$(iv $SPID)"
ktap_note "pipelined 8, --proto resp: client sent $CSENT, answered $CRECV (p99 $CP99 us); counted $REQ, timed $NLAT (p99 $P99 us)"
ktap_check '[ "$CSENT" -gt 2000 ] && [ "$CRECV" = "$CSENT" ] && [ "$CERR" = 0 ]' \
	"pipelined 8: the client's $CSENT requests all answered"
ktap_check '[ "$REQ" -le "$CRECV" ] && within "$REQ" "$CRECV" 1 && within "$NLAT" "$REQ" 1' \
	"pipelined 8, one write per read, --proto resp: every request counted and timed ($REQ, $NLAT of $CRECV)"
ktap_check '[ "$P99" -gt 0 ] && [ $((P99 * 8)) -le $((CP99 * 9)) ]' \
	"pipelined 8, --proto resp: server-side p99 $P99 us <= the client's $CP99 us (within a histogram bucket)"
target conn
"$B/sgclient" -p "$PORT" -r 1600 -d 2 -c 8 --proto resp --pipeline 8 -S 2 -j > pipec.json 2> pipec.err
sleep 0.2
eval "$(cl pipec.json)"; eval "$(iv $SPID)"
ktap_note "pipelined 8, --proto conn: client answered $CRECV; counted $REQ ($(awk -v a="$REQ" -v b="$CRECV" 'BEGIN { printf "%.3f", b ? a / b : 0 }') of them: a read is one request)"
srv_stop

# ---- (c) blocked in service: 2 ms off the CPU per request ---------------------------
# Light open-loop load (100 req/s on two event-loop workers, ~12 % busy):
# the 2 ms of -b after 300 us of CPU work are blocked_per_req_us, and the
# work is oncpu_per_req_us.  The reference for the latter is the process's
# own CPU time per request (getrusage at exit), not -s nor the run without
# -b: -s is work at the calibration's speed, the fastest 1 ms this shared
# host gave (Documentation/workload.rst), and its sustained speed was
# 1.4-2.6x lower and drifted from one run to the next (300 us of work took
# 420-800 us of CPU, with or without slackgov loaded; the calibration read
# 1400-3100 iterations/us within the hour), so -s only bounds it from
# below; each request's read, send and epoll_wait add tens of us.  The
# server also times its blocking calls (blocked_s): the sleep is part of
# that time, which holds the wake-up's run-queue wait too (slackgov's
# figure is allowed 5 % over it: once it was 1.6 % over).  --block-how pipe
# sleeps until the helper thread writes, and the helper waits for a CPU
# too (28-703 us a block here, the host's load 4-5): the block to expect
# is 2 ms plus the helper's lateness (late_s), which the server measures.
BLK=2000 SVC_US=300
# run_conn ARGS...: sgserver ARGS as a target under --proto conn, 3 s of
# light load, its figures, the server stopped
run_conn() {
	start_server "$B/sgserver" -m epoll -t 2 -s $SVC_US -w "$W" "$@"
	target conn
	"$B/sgclient" -p "$PORT" -r 100 -d 3 -c 4 -j > blk.json 2> blk.err
	sleep 0.2
	eval "$(cl blk.json)"; eval "$(iv $SPID)"
	srv_stop
}
# without -b the server is not blocked in service: its waits in epoll_wait
# wait for work, not for a request's backend
run_conn
ONCPU0=$ONCPU
ktap_note "no -b: lat_mean $LAT us = queue $QUEUE + service $SVCM; per request on-CPU $ONCPU, run queue $RUNQ, blocked $BLOCKED us; the server: CPU $SCPU_US us each"
ktap_check '[ "$NLAT" -gt 200 ] && [ "$BLOCKED" -ge 0 ] && [ "$BLOCKED" -le 100 ]' \
	"without -b: blocked_per_req_us $BLOCKED <= 100 (5 % of $BLK)"
for how in timer pipe; do
	run_conn -b $BLK --block-how $how
	D=$((BLK + SLATE_US))
	SHARE=$(awk -v b="$BLOCKED" -v l="$LAT" 'BEGIN { printf "%.3f", (l > 0 ? b / l : 0) }')
	WANT=$(awk -v l="$LAT" -v d="$D" 'BEGIN { printf "%.3f", (l > 0 ? d / l : 0) }')
	ktap_note "-b $BLK ($how): lat_mean $LAT us = queue $QUEUE + service $SVCM; per request on-CPU $ONCPU, run queue $RUNQ, blocked $BLOCKED us; the server: $SREQ requests, CPU $SCPU_US us, $SBLK_US us in its blocking calls and $SLATE_US us of the helper's lateness each"
	ktap_check '[ "$CRECV" = "$CSENT" ] && [ "$CSENT" -gt 200 ] && [ "$NLAT" -gt 0 ] && within "$NLAT" "$CRECV" 1' \
		"-b $BLK ($how): every request answered and timed ($NLAT of $CRECV)"
	ktap_check 'within "$BLOCKED" "$D" 10' \
		"-b $BLK ($how): blocked_per_req_us $BLOCKED within 10 % of $D ($BLK + the helper's lateness): blocked share of lat_mean $SHARE, $D / lat_mean $WANT"
	ktap_check '[ "$BLOCKED" -le $((SBLK_US * 105 / 100)) ]' \
		"-b $BLK ($how): no more than the server's own time in its blocking calls ($BLOCKED <= $SBLK_US us)"
	ktap_check 'within "$ONCPU" "$SCPU_US" 10 && [ "$ONCPU" -ge $((SVC_US * 8 / 10)) ]' \
		"-b $BLK ($how): oncpu_per_req_us $ONCPU within 10 % of the process's CPU per request ($SCPU_US us; $ONCPU0 without -b), -s $SVC_US at least"
done
# a pool's workers wait for work on a condition variable, not in a wait
# call: they have no busy segment, so their sleeps are not counted, the 2 ms
# blocked among them (bpf/slackgov.bpf.c DOC item 8); shown, not checked
run_conn -m pool -b $BLK
ktap_note "pool, -b $BLK: lat_mean $LAT us = queue $QUEUE + service $SVCM; per request on-CPU $ONCPU, run queue $RUNQ, blocked $BLOCKED us (not seen in a pool); the server: $SBLK_US us in its blocking calls each"
_w=$("$B/sgserver" --calibrate | sed -n 's/^iters_per_us \([0-9][0-9]*\)$/\1/p')
ktap_note "iters_per_us: $W at the start (the fastest of three), ${_w:-?} now: the spin's speed on this host"
ktap_finished
