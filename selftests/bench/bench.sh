# SPDX-License-Identifier: GPL-2.0
# bench.sh - guest side of "make bench" (see selftests/bench/run).
#
# selftests/bench/run boots a guest per shape (BENCH_SHAPES then names
# one), each within the budget of selftests/bench/settings.
# Per server shape: sgserver's epoll and thread shapes, and memcached, an
# unmodified Debian server (lr_mc_start; skipped when the guest has none),
# with a reduced matrix (Documentation/evaluation.rst says why each part is so):
# 0. capacity: what the server sustains at fmax (BENCH-CAP ... start); the
#    load levels are percentages of it.  Re-measured after every repetition
#    of the matrix and at the end (BENCH-CAP ... repN, end): a run whose
#    capacity moved is marked disturbed by results.awk.
#    Speed: on the host's clock (VM_ICOUNT= make bench) the guest's speed
#    switches between two about 1.9x apart within tens of ms to seconds
#    (Documentation/evaluation.rst), and the capacity moves with it.  So
#    CPU 0's speed (sgserver --calibrate: the fastest of 31 runs of 1 ms of
#    work; CPU 0 has no emulated DVFS) is taken with the capacity (the
#    shape's reference) and before and after every cell.  A cell that starts
#    or ends more than BENCH_SPEED_TOL % off the reference runs again, after
#    waiting up to SPEED_WAIT_S for the speed to come back, up to
#    CELL_TRIES times in all, while the run's RETRY_BUDGET_S lasts; its row
#    carries both deviations (per mille), and results.awk leaves the cells
#    still off speed out of the means and the verdict.  Under -icount (the
#    default) the speed stays within a few per cent of the reference: the
#    probe checks it.
# 1. SLO: BENCH_SLO_X (1.5) times the p99 under performance at BENCH_SLO_LOAD
#    (70) % load (the median of SLO_BASE_STEPS steps), in us (BENCH-SLO),
#    unless BENCH_SLO_US fixes it (one value for every shape, or
#    SHAPE=US,... per shape; a shape not named is measured); the server
#    becomes a target with that SLO (slackctl target add --slo), which slack
#    holds and against which slackgov counts the windows over it; with the
#    slo_margin knob's margin, or a larger one of its own where the client's
#    p99 holds more time the server cannot see than that leaves, read in
#    the oracle's cheapest cell meeting the SLO at that load (slo_margin()).
# 2. oracle: the userspace governor at each frequency of the table, at each
#    load, one repetition (BENCH-CELL 0,shape,fixMHZ,...); frequencies that
#    cannot carry the load (f/fmax below it) are skipped.
# 3. control: slack's first visit of each load (slack-first, one
#    repetition, BENCH_FIRST=1 only); then governors x loads x
#    repetitions, interleaved (every repetition walks the loads, every
#    load visits all governors in an order rotated per repetition) so that
#    drift in the emulator's speed hits all governors alike.  One
#    BENCH-CELL row each.
# 4. bursty load (BENCH_BURST_SHAPES, default the first shape): each pattern
#    under each governor, as an sgclient ramp of BENCH_BURST_SUB s sub-steps
#    (BENCH-BURST rows): time over the SLO, p99 per phase, energy per request.
# 5. fidelity: for each server shape, the BPF side's observed RPS against
#    the client's achieved RPS at several rates, and its server-side p99
#    (sgwin -f's follow_lat) against the client's.  One BENCH-FID row each.
# Knobs (environment, passed from the host by selftests/vm/run): see
# Documentation/evaluation.rst, "Smaller runs".
. "$SG_TOP/selftests/lib/loadrun.sh"

SERVICE_US=1000			# ~1 ms of work per request at fmax (evaluation.rst, "Layout of a run")
NOMINAL=1000			# req/s of one CPU at 1 ms per request, before TCG's costs
CAP_RUNS=3			# capacity: the median of 3 overload runs, so one
				# host hiccup does not move the yardstick
REPS=${BENCH_REPS:-3}
STEP_S=${BENCH_STEP_S:-8}
# a cell runs STEP_S, or longer at a low rate, up to 2 x STEP_S, so that
# its p99 is of MIN_REQS requests where it can be: at 10 % a step of 8 s
# holds ~640, whose p99 is the 7th slowest
MIN_REQS=${BENCH_MIN_REQS:-1200}
CELL_LEN="${STEP_S} s per cell (up to $((STEP_S * 2)) s to time $MIN_REQS requests)"
# every cell first runs WARMUP_S at its rate, unmeasured, on the same
# connections as the measured run (sgclient --warmup), which starts with no
# gap: the matrix compares steady states (a governor's reaction to a change
# is the bursty runs' subject); 3 s is the slack law's outer loop settling
# (about two of its 2 s horizons, kmod/control.c).  A fixed frequency gets
# the same: the counters start LR_MARK_LEAD before the measured run, and a
# shorter warm-up put the start's queue into its server-side p99
# (evaluation.rst), so every cell's counters start alike.
WARMUP_S=${BENCH_WARMUP_S:-3}
LOADS=${BENCH_LOADS:-"10 30 50 70 90"}
# the governors the goal reads; another (BENCH_GOVS="... ondemand") adds a
# third to the matrix: under -icount the three took 82 minutes of the
# hour the whole run should take (Documentation/evaluation.rst)
GOVS=${BENCH_GOVS:-"slack performance schedutil"}
SHAPES=${BENCH_SHAPES:-"epoll thread memcached"}	# dispatcher/worker epoll; thread per
				# connection; Debian's memcached
# memcached: each request a multi-get of MC_MGET keys of MC_VALUE bytes, so
# that its service time is CPU work of about 1 ms at fmax, as the
# sgserver's (evaluation.rst says why that is fair); its reduced matrix
# (loads and repetitions) keeps its part of the run near the others'
MC_MGET=${BENCH_MC_MGET:-200}
MC_VALUE=${BENCH_MC_VALUE:-64}
MC_LOADS=${BENCH_MC_LOADS:-${BENCH_LOADS:-"10 30 50 70"}}
MC_REPS=${BENCH_MC_REPS:-${BENCH_REPS:-2}}
# thread: the second sgserver shape, 2 repetitions like memcached's; the
# primary workload (epoll, the bursty patterns' too) keeps REPS
THREAD_REPS=${BENCH_THREAD_REPS:-${BENCH_REPS:-2}}
ORACLE=${BENCH_ORACLE:-1}
# slack's first visits (slack-first) before the matrix, on request: they
# showed what a fresh start costs (evaluation.rst) and took 3.5 minutes
FIRST=${BENCH_FIRST:-0}
SLO_X=${BENCH_SLO_X:-$LR_SLO_X}
SLO_LOAD=${BENCH_SLO_LOAD:-$LR_SLO_LOAD}
SLO_US=${BENCH_SLO_US:-}
CAP_FIXED=${BENCH_CAP:-}
SLO_BASE_STEPS=3		# the SLO's base p99: the median of 3 steps
BURSTS=${BENCH_BURSTS-"burst diurnal"}
BURST_SHAPES=${BENCH_BURST_SHAPES-${SHAPES%% *}}
BURST_REPS=${BENCH_BURST_REPS:-1}
BURST_SUB=${BENCH_BURST_SUB:-0.5}
FID=${BENCH_FIDELITY:-1}
# BENCH_TRACE=1: slack's decisions of every cell and bursty run summarised
# per second (trace_cell), so that a cell over its SLO can be read against
# what the law saw; off by default, as the event costs a little on the
# server's CPU
TRACE=${BENCH_TRACE:-0}
TR=/sys/kernel/tracing
SPEED_TOL=${BENCH_SPEED_TOL:?set by selftests/bench/run, which says why}	# per cent
SPEED_REFS=3			# the reference: the median of 3 probes
SPEED_WAIT_S=30			# a slow phase of the host lasts up to seconds:
				# wait at most this long for it to pass
CELL_TRIES=3
RETRY_BUDGET_S=${BENCH_RETRY_BUDGET_S:-900}	# all retries and waits of a run
retry_spent=0

# per_shape LIST SHAPE: SHAPE's value in LIST (empty: none), a number for
# every shape or SHAPE=N pairs separated by commas (BENCH_SLO_US, BENCH_CAP)
per_shape() {
	case "$1" in
	*=*) echo "$1" | tr ',' '\n' | sed -n "s/^$2=\([0-9][0-9]*\)$/\1/p" | head -n 1 ;;
	*) echo "$1" ;;
	esac
}
# slo_fixed SHAPE: the SLO that BENCH_SLO_US fixes for SHAPE, us (empty:
# measure it)
slo_fixed() { per_shape "$SLO_US" "$1"; }


# slo_margin SLO CLIENT_P99 SERVER_P99: the SLO margin slack holds the
# shape's target with, thousandths: what an operator who measured the
# client's p99 and slackgov's at one operating point would give (slackctl
# target add --slo-margin).  The margin is for the time the server cannot
# see (its answer's way back, the client's wake-up) and for the law's own
# error (its outer loop overshoots its aim by up to ~10 %, kmod/control.c
# step 2).  The time unseen is about a constant at one frequency, not a
# share, but it is not the same at every frequency: memcached's, whose
# answer is 13 kB, was 4.7-4.8 ms at fmax and 1.6-2.5 ms at the fixed
# frequencies just meeting its SLO (run U, evaluation.rst); sgserver's
# 0.5-2.5 ms at either.  So it is read where slack runs to hold the SLO:
# in the oracle's cell at SLO_LOAD of the lowest frequency that met the SLO
# there (oracle_gap), and only without an oracle (BENCH_ORACLE=0, or no
# fixed frequency met it) in the SLO's base steps under performance at
# fmax.  The client's p99 less slackgov's, as a share of the SLO: where it
# is within the slo_margin knob's default the knob covers it (sgserver's:
# 3-15 % of the SLO in runs O and R, and the knob's 20 % held its SLO in
# run O at 63-99 %); where it is more, the share plus SLO_ROOM, rounded up
# to 5 %.  The share of one cell moves by several per cent (sgserver's 3 %
# in run O, 15 % in run R's first start), which must not move a workload's
# margin: hence the knob below the threshold
SLO_ROOM=100
slo_margin() {
	awk -v slo="$1" -v b="$2" -v s="$3" -v m="$MARGIN_KNOB" -v room=$SLO_ROOM 'BEGIN {
		if (slo > 0 && b > 0 && s > 0 && s < b && 1000 * (b - s) / slo > m)
			m = int((1000 * (b - s) / slo + room + 49) / 50) * 50
		if (m > 900) m = 900
		print m }'
}
# the slo_margin knob's default, from its one definition
MARGIN_KNOB=$(awk '$1 == "X(slo_margin," { sub(",", "", $2); print $2 }' "$SG_TOP/include/uapi/slackgov.h")
# target_slo: the running server's target with $SLO and $margin (the
# knob's, when it is the knob's value: no margin of its own)
target_slo() {
	lr_target_slo "$SLO" "$([ "$margin" = "$MARGIN_KNOB" ] || echo "$margin")" ||
		echo "BENCH-INFO $shape: slackctl refused --slo ${SLO}us: slack runs without an SLO"
}
# oracle_gap ROW: for an oracle cell's BENCH-CELL ROW, on speed and within
# the SLO, "MHZ,P99,SERVER_P99" (the cheapest such cell is the first at
# SLO_LOAD: the oracle walks the frequencies upwards); nothing otherwise
oracle_gap() {
	off_speed "$(echo "$1" | cut -d, -f17)" "$(echo "$1" | cut -d, -f18)" && return 0
	echo "$1" | awk -F, -v slo="$SLO" '$8 > 0 && $8 <= slo && $16 > 0 {
		printf "%d,%d,%d\n", substr($3, 4), $8, $16 }'
}

# a pattern's phases: load percentages, BURST_PHASE_S seconds each.  burst:
# 20 % -> 80 % -> 20 %, three cycles, 2 s a phase (a step a one-window
# governor should follow and a utilization average lags); diurnal: a slow
# rise to 90 % and back, 2 s a level
BURST_PHASE_S=2
pattern() {
	case $1 in
	burst) echo "20 80 20 80 20 80 20" ;;
	diurnal) echo "10 30 50 70 90 70 50 30 10" ;;
	*) return 1 ;;
	esac
}

trap 'lr_down' EXIT
lr_up || { echo "BENCH-INFO cannot bring the platform up"; exit 1; }
echo "BENCH-INFO kernel $(uname -r)"
echo "BENCH-INFO cpu1 idle states: $(cat /sys/devices/system/cpu/cpu1/cpuidle/state*/name 2>/dev/null | tr '\n' ' ')(driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null), governor $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null))"
lr_calibrate || { echo "BENCH-INFO sgserver calibration failed"; exit 1; }
echo "BENCH-INFO calibration $LR_ITERS iterations/us at fmax (median of $LR_CAL_RUNS), for every server of the run"
FREQS=$(lr_freqs)
FMAX=$(echo "$FREQS" | tail -n 1)

# rotate N WORDS...: the words, starting at the N-th (mod count)
rotate() { n=$1; shift; k=$(( n % $# )); i=0
	for w in "$@"; do [ $i -ge $k ] && printf '%s ' "$w"; i=$((i + 1)); done
	i=0; for w in "$@"; do [ $i -lt $k ] && printf '%s ' "$w"; i=$((i + 1)); done; }

# server_start SHAPE: the shape's server on CPU 1, a target (loadrun.sh)
server_start() {
	case $1 in
	memcached) lr_mc_start 2 "$MC_MGET" "$MC_VALUE" ;;
	*) lr_server_start 2 "$1" $SERVICE_US ;;
	esac
}
# loads_of SHAPE, reps_of SHAPE: its matrix
loads_of() { if [ "$1" = memcached ]; then echo "$MC_LOADS"; else echo "$LOADS"; fi; }
reps_of() { case $1 in memcached) echo "$MC_REPS" ;; thread) echo "$THREAD_REPS" ;; *) echo "$REPS" ;; esac; }

# capacity: lr_capacity, CAP_RUNS runs offered twice the nominal rate
capacity() { lr_capacity $CAP_RUNS $((NOMINAL * 2)); }
# cap_point SHAPE POINT: measure and report the capacity; sets cap
cap_point() {
	: > /tmp/lr.quiet
	c=$(capacity)
	[ -n "$c" ] && [ "$c" -gt 0 ] || c=0
	echo "BENCH-CAP $1,$2,$c,$(speed_dev)"
	echo "BENCH-INFO capacity $1 $2: each probe's backlog drained within {$(awk '{ printf "%s%.1f", (NR > 1 ? " " : ""), ($1 + 1) / 2 }' /tmp/lr.quiet)} s (the server quiet for 0.5 s after)"
}
declare_cap() { eval "CAP_$1=$2"; }

# speed: CPU 0's sgw_spin() iterations per us now; speed_ref: the median of
# SPEED_REFS, into SPEED_REF; speed_dev: a probe's deviation from SPEED_REF,
# per mille (0 when either is missing)
speed() { taskset -c 0 "$LR_T/sgserver" --calibrate | sed -n 's/^iters_per_us //p'; }
speed_ref() {
	SPEED_REF=$(for i in $(seq 1 $SPEED_REFS); do speed; done | sort -n | sed -n "$(( (SPEED_REFS + 1) / 2 ))p")
	echo "BENCH-INFO speed $1: CPU 0 at ${SPEED_REF:-?} iterations/us (median of $SPEED_REFS), the reference of its cells"
}
speed_dev() {
	awk -v s="$(speed)" -v r="${SPEED_REF:-0}" 'BEGIN { printf "%d", (s > 0 && r > 0) ? (s - r) * 1000 / r : 0 }'
}
# off_speed D...: true when a deviation is beyond SPEED_TOL
off_speed() { for d in "$@"; do [ "${d#-}" -gt $((SPEED_TOL * 10)) ] && return 0; done; return 1; }
# speed_wait: up to SPEED_WAIT_S (and the budget left) for the speed to be
# back within SPEED_TOL; sets d0 to the last probe's deviation
speed_wait() {
	t0=$SECONDS
	d0=$(speed_dev)
	while off_speed "$d0" && [ $((SECONDS - t0)) -lt $SPEED_WAIT_S ] &&
	      [ $((retry_spent + SECONDS - t0)) -lt "$RETRY_BUDGET_S" ]; do
		sleep 3
		d0=$(speed_dev)
	done
	retry_spent=$((retry_spent + SECONDS - t0))
}
# cell_s RATE: a cell's length at RATE req/s, whole seconds (MIN_REQS above)
cell_s() {
	awk -v r="$1" -v s="$STEP_S" -v n="$MIN_REQS" 'BEGIN { t = r > 0 ? n / r : s
		if (t < s) t = s; if (t > 2 * s) t = 2 * s; printf "%d", t + 0.999 }'
}
cap_of() { eval "echo \${CAP_$1:-$NOMINAL}"; }

# trace_arm: the slackgov_decision event on, into an empty buffer whose
# first line marks the cell's start (TRACE=1 and a slack cell only)
trace_arm() {
	echo 0 > $TR/tracing_on
	echo 4096 > $TR/buffer_size_kb
	echo > $TR/trace
	echo 1 > $TR/events/slackgov/slackgov_decision/enable
	echo 1 > $TR/tracing_on
	echo "bench cell start" > $TR/trace_marker
}
# trace_cell PRE WARMUP: the armed buffer as BENCH-TRACE rows, one per
# second since the cell's start (trace.awk says what they hold)
trace_cell() {
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/slackgov/slackgov_decision/enable
	awk -v pre="$1" -v w="$2" -f "$SG_TOP/selftests/bench/trace.awk" $TR/trace
}

# cell REP SHAPE GOV LOAD RATE SEED: one cell under GOV (a governor, or
# fixMHZ: userspace at that frequency)
cell() {
	case $3 in
	fix*) lr_fix $(( ${3#fix} * 1000 )) ;;
	slack-first) lr_gov slack ;;
	*) lr_gov "$3" ;;
	esac
	# the requests a previous run left in the server's sockets (lr_quiet)
	lr_quiet || echo "BENCH-INFO cell $1,$2,$3,$4: the server still busy after $LR_QUIET_MAX_S s, a backlog left before the cell"
	[ "$LR_QUIET_HALVES" -gt 0 ] &&
		echo "BENCH-INFO cell $1,$2,$3,$4: waited $LR_QUIET_HALVES half-seconds for the server to go quiet"
	sleep 1		# let the governor settle on the idle server
	w=$WARMUP_S
	try=1
	d0=$(speed_dev)
	while :; do
		t0=$SECONDS
		[ "$TRACE" = 1 ] && case $3 in slack*) trace_arm ;; esac
		row=$(lr_step "$3" "$4" "$5" "$(cell_s "$5")" "$6" "$w")
		d1=$(speed_dev)
		off_speed "$d0" "$d1" || break
		[ $try -lt $CELL_TRIES ] && [ "$retry_spent" -lt "$RETRY_BUDGET_S" ] || break
		retry_spent=$((retry_spent + SECONDS - t0))
		echo "BENCH-INFO cell $1,$2,$3,$4 off speed (${d0}/${d1} per mille of the reference, try $try): again"
		try=$((try + 1))
		speed_wait
	done
	[ "$TRACE" = 1 ] && case $3 in slack*) trace_cell "$1,$2,$3,$4" "$w" ;; esac
	# the P-state residency (lr_step's last field) after the speeds
	CELL_ROW="$1,$2,${row%,*},$d0,$d1,${row##*,}"
	echo "BENCH-CELL $CELL_ROW"
}

# burst REP SHAPE PATTERN GOV: one bursty run; a BENCH-BURST row
# rep,shape,pattern,gov,requests,energy_j,j_per_req,steps,steps_over,sub_s,
# slo_windows,slo_over,phases ("load:p99_us:requests;...", one per distinct
# load of the pattern, its phases merged: sgclient --by-rate)
burst() {
	cap=$(cap_of "$2") subs=$(awk -v p="$BURST_PHASE_S" -v s="$BURST_SUB" 'BEGIN { n = int(p / s + 0.5); print n < 1 ? 1 : n }')
	rates=$(for l in $(pattern "$3"); do i=0; while [ $i -lt "$subs" ]; do
		printf '%s,' $((cap * l / 100)); i=$((i + 1)); done; done)
	lr_gov "$4"
	lr_quiet || echo "BENCH-INFO burst $1,$2,$3,$4: the server still busy after $LR_QUIET_MAX_S s, a backlog left before the run"
	sleep 1
	l0=$(lr_lat) e0=$(lr_energy_uj)
	[ "$TRACE" = 1 ] && [ "$4" = slack ] && trace_arm
	out=$(taskset -c 0 "$LR_T/sgclient" $LR_CLIENT_ARGS -p "$LR_PORT" --ramp "${rates%,}:$BURST_SUB" --by-rate \
		-c $LR_CONNS -S "$1" -j)
	e1=$(lr_energy_uj) l1=$(lr_lat)
	# its decisions per second, the pattern in the load's field
	[ "$TRACE" = 1 ] && [ "$4" = slack ] && trace_cell "$1,$2,$4,$3" 0
	lat=,
	[ -n "$l0" ] && [ -n "$l1" ] && lat=$(lr_lat_diff "$l0" "$l1" | cut -d' ' -f1,2 | tr ' ' ',')
	echo "$out" | awk -v slo="$SLO" -v cap="$cap" -v ej="$(lr_energy_j "$e0" "$e1")" -v sub_s="$BURST_SUB" \
		-v pre="$1,$2,$3,$4" -v lat="$lat" '
	function num(k,   m) { if (!match($0, "\"" k "\": *[-0-9.]+")) return 0
		m = substr($0, RSTART, RLENGTH); sub(/.*: */, "", m); return m + 0 }
	/"step":/ { n++; req += num("received"); if (num("p99_us") > slo) over++ }
	/"by_rate":/ { ph = ph sprintf("%s%d:%.0f:%d", ph == "" ? "" : ";", int(num("by_rate") * 100 / cap + 0.5),
		num("p99_us"), num("received")) }
	END { printf "BENCH-BURST %s,%d,%.4f,%.6f,%d,%d,%s,%s,%s\n", pre, req, ej, req ? ej / req : 0,
			n, over, sub_s, lat, ph }'
}

for shape in $SHAPES; do
	LR_SLO=
	if [ "$shape" = memcached ] && [ ! -x "$LR_MC" ]; then
		echo "BENCH-INFO memcached: not in the guest (scripts/setup did not unpack Debian's package): workload skipped"
		continue
	fi
	loads=$(loads_of "$shape") reps=$(reps_of "$shape")
	if ! server_start "$shape"; then
		echo "BENCH-INFO $shape server did not start: $(head -c 300 /tmp/lr.server.err)"
		# the real server is optional: the run goes on without it
		[ "$shape" = memcached ] || exit 1
		lr_server_stop
		continue
	fi
	[ "$shape" = memcached ] &&
		echo "BENCH-INFO memcached $("$LR_MC" -V | cut -d' ' -f2) (Debian's, unmodified): 2 worker threads, multi-gets of $MC_MGET keys of $MC_VALUE bytes, loads {$loads}%, $reps repetitions"
	speed_ref "$shape"
	cap_point "$shape" start
	cap=$c
	# BENCH_CAP fixes the rate the loads are shares of (the capacity is
	# still measured, here and after each repetition, for the disturbance
	# rule): two builds compared on one workload then run the same rates,
	# where a capacity measured in each moves by several per cent
	fixed=$(per_shape "$CAP_FIXED" "$shape")
	if [ -n "$fixed" ]; then
		echo "BENCH-INFO capacity $shape fixed by BENCH_CAP at $fixed req/s (measured $cap)"
		cap=$fixed
	elif [ "$cap" -gt 0 ]; then
		echo "BENCH-INFO capacity $shape $cap req/s at fmax (median of $CAP_RUNS runs offered $((NOMINAL * 2)) req/s)"
	else
		echo "BENCH-INFO $shape: no capacity measured, nominal $NOMINAL req/s used"
		cap=$NOMINAL
	fi
	declare_cap "$shape" "$cap"

	# the SLO: SLO_X times performance's p99 at SLO_LOAD %, the median of
	# SLO_BASE_STEPS steps with their own arrival seeds: the p99 of one
	# step moves with the seed
	# (and, in the same steps, slackgov's server-side p99: the margin below)
	SLO=$(slo_fixed "$shape")
	base=0 srv=0
	if [ -z "$SLO" ]; then
		lr_gov performance
		sleep 1
		rows=$(for i in $(seq 1 $SLO_BASE_STEPS); do
			lr_step performance "$SLO_LOAD" $((cap * SLO_LOAD / 100)) "$STEP_S" $((i * 10 - 3))
		done)
		base=$(echo "$rows" | lr_median 6) srv=$(echo "$rows" | lr_median 14)
		SLO=$(awk -v b="${base:-0}" -v x="$SLO_X" 'BEGIN { printf "%d", b * x }')
	fi
	[ "$SLO" -gt 0 ] || { echo "BENCH-INFO $shape: no SLO (base p99 '$base')"; exit 1; }
	# the target gets the SLO at once (the oracle's cells count their
	# windows over it) with the margin of the base steps, then the
	# margin of the oracle's cell, if any, before slack runs
	margin=$(slo_margin "$SLO" "$base" "$srv")
	target_slo

	gap=
	if [ "$ORACLE" = 1 ]; then
		echo "BENCH-INFO oracle, $shape server: userspace at {$(echo $FREQS)} kHz x {$loads}%, $CELL_LEN"
		for load in $loads; do
			for f in $FREQS; do
				# f/fmax below the load: an overload by construction
				[ $((f * 100)) -lt $((FMAX * load)) ] && continue
				cell 0 "$shape" "fix$((f / 1000))" "$load" $((cap * load / 100)) "$load"
				[ "$load" = "$SLO_LOAD" ] && [ -z "$gap" ] && gap=$(oracle_gap "$CELL_ROW")
			done
		done
	fi
	if [ -n "$gap" ]; then
		g=${gap#*,} m0=$margin
		margin=$(slo_margin "$SLO" "${g%,*}" "${g#*,}")
		[ "$margin" = "$m0" ] || target_slo
	fi
	echo "BENCH-SLO $shape,$SLO,$base,$SLO_X,$SLO_LOAD,$srv,$margin,$gap"

	# slack's first visit of each load, before the matrix: its K is learnt
	# per load (kmod/control.c, step 2), from the model's c_q on a load it
	# never ran; reported as its own column, so the matrix's three
	# repetitions of slack are all of a server it has seen before
	if [ "$FIRST" = 1 ] && case " $GOVS " in *" slack "*) true ;; *) false ;; esac; then
		echo "BENCH-INFO slack's first visit, $shape server: {$loads}%, $CELL_LEN"
		for load in $loads; do
			cell 1 "$shape" slack-first "$load" $((cap * load / 100)) $((100 + load))
		done
	fi
	echo "BENCH-INFO control matrix, $shape server: $reps x {$loads}% x {$GOVS}, $CELL_LEN"
	for rep in $(seq 1 "$reps"); do
		for load in $loads; do
			for gov in $(rotate $rep $GOVS); do
				cell "$rep" "$shape" "$gov" "$load" $((cap * load / 100)) $((rep * 100 + load))
			done
		done
		cap_point "$shape" "rep$rep"
	done

	case " $BURST_SHAPES " in *" $shape "*)
		for rep in $(seq 1 "$BURST_REPS"); do
			for b in $BURSTS; do
				pattern "$b" > /dev/null || { echo "BENCH-INFO unknown pattern $b"; continue; }
				echo "BENCH-INFO bursty $b, $shape server: phases {$(pattern "$b")}% of capacity, ${BURST_PHASE_S} s each, under {$GOVS}"
				for gov in $(rotate $rep $GOVS); do
					burst "$rep" "$shape" "$b" "$gov"
				done
			done
		done
		cap_point "$shape" end ;;
	*) [ "$reps" -gt 0 ] || cap_point "$shape" end ;;
	esac
	lr_server_stop
done

# fidelity: observed (BPF) vs client RPS, under performance, measured as
# selftests/metrics/fidelity.sh does: the windows of the run from the first
# to the last with a send (sgwin -f -b), so that the idle edges of a step
# (windows before the client starts and after it ends) do not count
[ "$FID" = 1 ] || exit 0
LR_SLO=
for shape in $SHAPES; do
	server_start "$shape" || { lr_server_stop; continue; }
	[ -n "$LR_SLOT" ] || { echo "BENCH-INFO fidelity: $shape server is no target"; lr_server_stop; continue; }
	lr_gov performance
	for load in $(loads_of "$shape"); do
		out=$(lr_follow $(($(cap_of $shape) * load / 100)) 5 "$load" 2)
		obs=$(lr_win rps)
		echo "BENCH-FID $shape,$load,$(echo "$out" | jget rps),${obs:-0},$(echo "$out" | jget p99_us),$(lr_win p99_us),$(lr_win queue_us)"
	done
	lr_server_stop
done
exit 0
