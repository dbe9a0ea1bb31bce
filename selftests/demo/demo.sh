# SPDX-License-Identifier: GPL-2.0
# demo.sh - guest side of "make demo": one load ramp under performance (what
# latency-critical fleets run), schedutil (the kernel's default) and slack
# holding a p99 SLO, with a live row a second (DEMO-ROW), a row per load step
# (DEMO-STEP), the capacity and the SLO (DEMO-CAP, DEMO-SLO) and notes
# (DEMO-INFO); selftests/demo/run turns them into the report.
#
# The ramp is in shares of the capacity the server sustains at fmax,
# measured first as the bench does (lr_capacity): steps within it, then
# one burst past it and a step after the burst, in which the queue the
# burst left drains.  The SLO is the bench's rule (LR_SLO_X times
# performance's client p99 at LR_SLO_LOAD %), read in performance's own
# step at that share: performance runs first, and that step is on the ramp.
. "$SG_TOP/selftests/lib/loadrun.sh"

SERVICE_US=1000		# ~1 ms of work per request at fmax, as the bench: under
			# TCG a wake-up alone costs 0.1-0.4 ms (evaluation.rst)
NOMINAL=1000		# req/s of one CPU at 1 ms a request; the probes offer twice
CAP_RUNS=1		# one capacity probe: the demo's two minutes cannot
			# afford the bench's three, and the steps say what they got
RAMP=${DEMO_RAMP:-"20 40 $LR_SLO_LOAD"}	# % of capacity, within it
BURST=${DEMO_BURST:-130}	# % of capacity for BURST_S: past what the server serves
BURST_S=2
AFTER=${DEMO_AFTER:-20}		# % of capacity: the step the burst's queue drains into
STEP_S=${DEMO_STEP_S:-3}
GOVS="performance schedutil slack"	# performance first: its step sets the SLO
# The syscall tracepoints, not slackctl's default fentry set: its 30
# programs take 25 s of the emulated CPU to verify and attach (3 s for the
# two tracepoint programs), a seventh of the demo; the law's inputs are
# the same.  DEMO_HOOKS=auto gives the default back.
LR_HOOKS=${DEMO_HOOKS:-tracepoint}

info() { echo "DEMO-INFO $*"; }

# live GOV < FIGURES: a DEMO-ROW per line of "RPS P99_US SLACK" (one a
# second, from ivfig below): gov,t_s,step,rate,rps,srv_p99_us,slack_pct,
# mhz,power_w; rps, the server-side p99 and slack are status's interval
# figures (the last second of windows), MHz CPU 1's time-weighted mean
# frequency and W its modeled power since the previous row (the platform's
# residency and powercap counters).  The step being run is in
# /tmp/demo.step.  Shell builtins only, and no pattern matching on long
# strings: under -icount CPU 0's work takes the server's turns of the
# emulator (evaluation.rst, "make demo").
live() {
	gov=$1
	lr_snap_files
	e0=$_e r0=$_r c0=${_u%.*}${_u#*.}	# uptime in centiseconds
	t0=$c0
	while read -r rps p99 sl; do
		lr_snap_files
		read -r step rate < /tmp/demo.step
		c1=${_u%.*}${_u#*.}
		if [ "$step" = 0 ]; then	# before the first step: no row
			e0=$_e r0=$_r c0=$c1 t0=$c1
			continue
		fi
		[ "$rps" = - ] && rps=
		[ "$p99" = - ] && p99=
		[ "$sl" = - ] && sl=
		[ -n "$sl" ] && sl=$((sl / 10)).$((sl % 10))
		# CPU 1's mean MHz: its time at each frequency since the last row
		set -- $_r
		_a=$r0 _s=0 _t=0
		while [ $# -ge 2 ] && [ -n "$_a" ]; do
			_a=${_a#* }; _n0=${_a%% *}; _a=${_a#* }
			_s=$((_s + ($2 - _n0) * ($1 / 1000))) _t=$((_t + $2 - _n0))
			shift 2
		done
		mhz=$((_t > 0 ? _s / _t : 0))
		pw=-1.000
		if [ "$c1" -gt "$c0" ] && [ -n "$_e" ] && [ -n "$e0" ] && [ "$_e" -ge "$e0" ]; then
			mw=$(( (_e - e0) / ((c1 - c0) * 10) ))	# uJ / (cs * 10) = mW
			_m=$((mw % 1000)); while [ ${#_m} -lt 3 ]; do _m=0$_m; done
			pw=$((mw / 1000)).$_m
		fi
		echo "DEMO-ROW $gov,$(( (c1 - t0) / 100 )),$step,$rate,$rps,$p99,$sl,$mhz,$pw"
		e0=$_e r0=$_r c0=$c1
	done
}
# ivfig < "slackctl -j status --watch": per document, the first target's
# interval figures "RPS P99_US SLACK" (integers; "-" where null or absent),
# one line each, flushed: a single awk for the whole run, not a fork a second
ivfig() {
	awk 'function num(k,  r) {
		if (!match(iv, "\"" k "\": [-0-9.]+")) return "-"
		r = substr(iv, RSTART + length(k) + 4, RLENGTH - length(k) - 4)
		return int(r)
	}
	{
		iv = ""
		if (match($0, /"interval": \{[^}]*\}/)) iv = substr($0, RSTART, RLENGTH)
		print num("rps"), num("lat_p99_us"), num("slack"); fflush()
	}'
}
trap 'lr_down' EXIT
taskset -p -c 0 $$ >/dev/null	# this shell, the client and the sampler on CPU 0
lr_up || { info "cannot bring the platform up"; exit 1; }
[ -x "$LR_CTL" ] || { info "slackctl missing: no BPF feed, no slack run"; exit 1; }
lr_server_start 2 epoll $SERVICE_US || { info "server did not start"; exit 1; }
[ -n "$LR_SLOT" ] || { info "slackctl could not add the server as a target"; exit 1; }
case " $RAMP " in *" $LR_SLO_LOAD "*) ;; *) info "DEMO_RAMP must hold $LR_SLO_LOAD (the SLO's step)"; exit 1 ;; esac

: > /tmp/lr.quiet
cap=$(lr_capacity $CAP_RUNS $((NOMINAL * 2)))
[ -n "$cap" ] && [ "$cap" -gt 0 ] || { info "no capacity measured"; exit 1; }
echo "DEMO-CAP $cap"
info "server pid $LR_SERVER_PID: sgserver (epoll, 2 threads) on CPU 1, $SERVICE_US us of work a request at fmax"
info "capacity $cap req/s at fmax (one probe offered $((NOMINAL * 2)) req/s for 2 s)"
info "hooks: $LR_HOOKS (slackctl load --hooks $LR_HOOKS)"
info "ramp {$RAMP} % of it, ${STEP_S} s a step, then $BURST % for ${BURST_S} s and $AFTER % for ${STEP_S} s"

slo=0
for gov in $GOVS; do
	if [ "$gov" != performance ]; then
		[ "$slo" -gt 0 ] || { info "no SLO: performance's $LR_SLO_LOAD % step gave no p99"; exit 1; }
		lr_target_slo "$slo" || { info "slackctl refused --slo ${slo}us"; exit 1; }
	fi
	lr_gov "$gov"
	info "---- $gov on CPU 1 ----"
	step=0
	echo "0 0" > /tmp/demo.step
	rm -f /tmp/demo.live && mkfifo /tmp/demo.live
	"$LR_CTL" -j status --watch 2>/dev/null | ivfig > /tmp/demo.live &
	watcher=$!
	live "$gov" < /tmp/demo.live &
	sampler=$!
	sleep 1		# slackctl's start (a tenth of a second of CPU 0) before the load
	for share in $RAMP "b$BURST" "$AFTER"; do
		step=$((step + 1))
		len=$STEP_S
		case $share in b*) share=${share#b} len=$BURST_S ;; esac
		rate=$((cap * share / 100))
		echo "$step $rate" > /tmp/demo.step
		row=$(lr_step "$gov" "$step" "$rate" "$len" "$step")
		echo "DEMO-STEP $row,$share"
		if [ "$gov" = performance ] && [ "$share" = "$LR_SLO_LOAD" ] && [ "$slo" = 0 ]; then
			base=$(echo "$row" | cut -d, -f6 | cut -d. -f1)
			slo=$(awk -v b="${base:-0}" -v x="$LR_SLO_X" 'BEGIN { printf "%d", b * x }')
			echo "DEMO-SLO $slo,$base,$LR_SLO_X,$LR_SLO_LOAD"
		fi
	done
	kill $watcher $sampler 2>/dev/null
	wait $watcher $sampler 2>/dev/null
	lr_quiet 10 || info "the server was still busy 10 s after $gov's run"
done
"$LR_CTL" status | sed 's/^/DEMO-INFO /'
exit 0
