# SPDX-License-Identifier: GPL-2.0
# loadrun.sh - guest-side steps shared by the demo and the bench: bring the
# emulated platform and slackgov up, run the test server on the governed
# CPU, drive one load step from the other CPU and measure it.
#
# Layout of every run: CPU 1 runs sgserver and the governor under test;
# CPU 0 runs the load generator at a fixed performance frequency, so that
# the client's own speed does not change with the governor, and is left out
# of the energy figures.  All energy is the emulated platform's modeled
# energy (selftests/modules/vfreq.c), never a measurement of real hardware,
# read from CPU 1's powercap zone as on hardware (selftests/lib/energy.sh).

. "$SG_TOP/selftests/lib/kmod.sh"
. "$SG_TOP/selftests/lib/energy.sh"

LR_K=$SG_BUILD/kmod
LR_T=$SG_BUILD/selftests
LR_CTL=$SG_BUILD/userctl/slackctl
LR_VP=/sys/kernel/debug/vplatform	# residency per P-state: only debugfs has it
LR_EZ=			# CPU 1's powercap zone, set by lr_up
LR_POL0=/sys/devices/system/cpu/cpu0/cpufreq
LR_POL1=/sys/devices/system/cpu/cpu1/cpufreq
LR_SERVER_PID= LR_PORT= LR_SLOT=
LR_ITERS=${LR_ITERS:-}	# sgserver work-loop calibration, set once per boot
LR_SLO=${LR_SLO:-}	# the target's SLO in us (p99), empty: none
LR_TARGET=		# slackctl's selector of the server (empty: --pid LR_SERVER_PID)
LR_CLIENT_ARGS=		# sgclient's protocol options for the server (empty: sgserver's)
LR_CONNS=4		# the client's connections: a thread server's THREADS if fewer
LR_HOOKS=${LR_HOOKS:-}	# slackctl load --hooks (empty: its default, auto)

# lr_up: modules in (vfreq with LR_VFREQ_ARGS), client CPU at max, slackctl
# loaded (feed on; hooks LR_HOOKS, default auto as slackctl's)
LR_VFREQ_ARGS=${LR_VFREQ_ARGS:-}
lr_up() {
	insmod "$LR_K/vfreq.ko" $LR_VFREQ_ARGS || return 1
	LR_EZ=$(sg_pc_zone cpu1) || { echo "loadrun: no powercap zone cpu1" >&2; return 1; }
	[ -f "$LR_K/vidle.ko" ] && insmod "$LR_K/vidle.ko"
	insmod "$LR_K/slackgov.ko" || return 1
	echo performance > $LR_POL0/scaling_governor
	[ -x "$LR_CTL" ] && "$LR_CTL" load ${LR_HOOKS:+--hooks "$LR_HOOKS"} >/dev/null
	return 0
}

lr_down() {
	lr_server_stop
	[ -x "$LR_CTL" ] && "$LR_CTL" unload >/dev/null 2>&1
	for p in /sys/devices/system/cpu/cpufreq/policy*; do
		echo performance > "$p/scaling_governor" 2>/dev/null
	done
	sg_rmmod slackgov
	[ -d /sys/kernel/debug/vidle ] && echo 0 > /sys/kernel/debug/vidle/registered 2>/dev/null
	sg_rmmod vidle
	sg_rmmod vfreq
	return 0
}

# lr_calibrate: LR_ITERS, sgserver's work-loop iterations per us on CPU 1 at
# fmax, once per boot: the median of LR_CAL_RUNS calibrations (each already
# the fastest of several runs), so that every server of the run does the
# same work per request.  Calibrating at every server start let a host
# slowdown during one calibration change the work of one server shape for
# the rest of the run (one of the causes of the capacity's swings).
LR_CAL_RUNS=5
lr_calibrate() {
	[ -n "$LR_ITERS" ] && return 0
	echo performance > $LR_POL1/scaling_governor
	LR_ITERS=$(for i in $(seq 1 $LR_CAL_RUNS); do
		taskset -c 1 "$LR_T/sgserver" --calibrate | sed -n 's/^iters_per_us //p'
	done | sort -n | sed -n "$(( (LR_CAL_RUNS + 1) / 2 ))p")
	[ -n "$LR_ITERS" ]
}

# lr_server_start THREADS MODE SERVICE_US: sgserver on CPU 1, work calibrated
# at fmax (lr_calibrate); sets LR_SERVER_PID and LR_PORT, adds the server as
# a target (its slot in LR_SLOT) with the SLO LR_SLO if set
lr_server_start() {
	lr_calibrate || return 1
	echo performance > $LR_POL1/scaling_governor
	rm -f /tmp/lr.fifo && mkfifo /tmp/lr.fifo
	taskset -c 1 "$LR_T/sgserver" -p 0 -t "$1" -m "$2" -s "$3" -w "$LR_ITERS" \
		> /tmp/lr.fifo 2>/tmp/lr.server.err &
	LR_SERVER_PID=$!
	# a thread server takes at most THREADS connections and refuses the rest
	LR_CONNS=4
	[ "$2" = thread ] && [ "$1" -lt $LR_CONNS ] && LR_CONNS=$1
	read -r word LR_PORT < /tmp/lr.fifo
	[ "$word" = ready ] || return 1
	lr_target_add
}

# lr_target_add: the server as a target, with --slo LR_SLO us when set
# (LR_SLOT stays empty when it could not be added: callers check)
lr_target_add() {
	LR_SLOT=
	[ -x "$LR_CTL" ] || return 0
	LR_SLOT=$("$LR_CTL" -j target add ${LR_TARGET:---pid $LR_SERVER_PID} ${LR_SLO:+--slo "${LR_SLO}us"} |
		sed -n 's/.*"slot": *\([0-9]*\).*/\1/p')
	return 0
}

# lr_target_slo US [MARGIN]: the running server's target now with a p99 SLO
# of US microseconds (empty: none), in place (slackctl target set keeps the
# slot), and its own margin of MARGIN thousandths (empty: the knob's)
lr_target_slo() {
	LR_SLO=$1
	[ -x "$LR_CTL" ] || return 0
	"$LR_CTL" target set ${LR_TARGET:---pid $LR_SERVER_PID} --slo "${LR_SLO:-none}${LR_SLO:+us}" \
		${LR_SLO:+--slo-margin "${2:-default}"} >/dev/null
}

lr_server_stop() {
	[ -n "$LR_SERVER_PID" ] || return 0
	[ -x "$LR_CTL" ] && "$LR_CTL" target del ${LR_TARGET:---pid $LR_SERVER_PID} >/dev/null 2>&1
	kill "$LR_SERVER_PID" 2>/dev/null
	wait "$LR_SERVER_PID" 2>/dev/null
	LR_SERVER_PID= LR_TARGET= LR_CLIENT_ARGS= LR_CONNS=4
}

# The bench's unmodified server: Debian's memcached, copied into the guest
# by selftests/vm/run when scripts/setup unpacked it (absent: callers skip).
LR_MC=/usr/bin/memcached
LR_MC_PORT=11211	# memcached's own default
LR_MC_MEM=64		# MiB of item memory: Debian's default (/etc/memcached.conf)

# lr_mc_start THREADS MGET VALUE: memcached on CPU 1 with THREADS worker
# threads, run as packaged (only the port, threads and the root user set);
# its key space (sgclient's 1000 keys) filled with VALUE-byte values; a
# target by name (--comm memcached, with LR_SLO); the client's requests
# multi-gets of MGET keys (LR_CLIENT_ARGS).  Sets LR_SERVER_PID, LR_PORT and
# LR_SLOT like lr_server_start.  1 when memcached is missing or never answers.
lr_mc_start() {
	[ -x "$LR_MC" ] || return 1
	echo performance > $LR_POL1/scaling_governor
	taskset -c 1 "$LR_MC" -u root -l 127.0.0.1 -p $LR_MC_PORT -U 0 -m $LR_MC_MEM -t "$1" \
		2>/tmp/lr.server.err &
	LR_SERVER_PID=$! LR_PORT=$LR_MC_PORT
	LR_TARGET="--comm memcached" LR_CLIENT_ARGS="--proto memcache --mget $2"
	# it listens within a second or so: the fill's connect waits for it
	for _i in $(seq 1 20); do
		taskset -c 0 "$LR_T/sgclient" -p $LR_PORT --proto memcache --fill "$3" \
			>/dev/null 2>&1 && { lr_target_add; return 0; }
		kill -0 "$LR_SERVER_PID" 2>/dev/null || break
		sleep 0.5
	done
	return 1
}

lr_gov() { echo "$1" > $LR_POL1/scaling_governor; }

# lr_fix KHZ: CPU 1 held at KHZ by the userspace governor (the static oracle)
lr_fix() { lr_gov userspace && echo "$1" > $LR_POL1/scaling_setspeed; }

# lr_freqs: CPU 1's frequency table, kHz, ascending
lr_freqs() { tr ' ' '\n' < $LR_POL1/scaling_available_frequencies | sed '/^$/d' | sort -n; }

# lr_lat: the target's cumulative latency counters (sgwin's "lat" line;
# empty when the BPF side has none); lr_lat_diff "BEFORE" "AFTER" prints
# "slo_windows slo_over p99_us" between the two: the windows judged against
# the SLO, those over it, and the server-side p99 of the requests timed
# (read linearly inside its bucket, as the BPF side reads it; 0 when none):
# sgwin -d, built on include/uapi/slackgov.h's bucket layout.
lr_lat() { [ -n "$LR_SLOT" ] && "$LR_T/sgwin" -s "$LR_SLOT" 2>/dev/null | sed -n 's/^lat //p'; }
lr_lat_diff() { printf '%s\n%s\n' "$1" "$2" | "$LR_T/sgwin" -d; }

# lr_follow RATE SECONDS SEED GRACE: the client at RATE req/s for SECONDS
# while sgwin follows the server's windows over the busy span (sgwin -f -b:
# first to last window with a send); prints the client's JSON line and
# leaves sgwin's "follow" line in /tmp/lr.win (read it with lr_win)
lr_follow() {
	"$LR_T/sgwin" -s "$LR_SLOT" -f "$(awk -v d="$2" 'BEGIN { print d + 1.2 }')" -b > /tmp/lr.win &
	_lw=$!
	sleep 0.1
	taskset -c 0 "$LR_T/sgclient" $LR_CLIENT_ARGS -p "$LR_PORT" -r "$1" -d "$2" -c $LR_CONNS -S "$3" -g "$4" -j 2>/dev/null
	wait $_lw
}

# lr_quiet [MAX_S]: wait, at most MAX_S s (default LR_QUIET_MAX_S), until
# the server has used no more than LR_QUIET_TICKS of CPU time (1/100 s,
# /proc/PID/stat's utime + stime over all its threads) in half a second:
# a client that stops leaves the requests it sent in the server's sockets,
# and the server answers them (to closed connections) for as long as they
# take: a run must not start behind another's backlog.  (The bench's
# capacity probes, an overload of twice the capacity for 2 s, drained
# within 0.5 s of the end of their window sampler in every probe
# measured: the requests of 1-1.7 s in the next cell's first second come
# from elsewhere, evaluation.rst.)  Sets LR_QUIET_HALVES to the
# half-seconds it waited before the quiet one; 1 when the server is still
# busy after MAX_S.
LR_QUIET_MAX_S=30
LR_QUIET_TICKS=2
lr_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$LR_SERVER_PID/stat" 2>/dev/null || echo 0; }
lr_quiet() {
	LR_QUIET_HALVES=0
	[ -n "$LR_SERVER_PID" ] || return 0
	_q0=$(lr_cpu_ticks)
	while [ "$LR_QUIET_HALVES" -lt $(( ${1:-$LR_QUIET_MAX_S} * 2 )) ]; do
		sleep 0.5
		_q1=$(lr_cpu_ticks)
		[ $((_q1 - _q0)) -le $LR_QUIET_TICKS ] && return 0
		_q0=$_q1 LR_QUIET_HALVES=$((LR_QUIET_HALVES + 1))
	done
	return 1
}

# lr_median FIELD: the median of a CSV field of lr_step rows, whole (0: none)
lr_median() {
	cut -d, -f"$1" | cut -d. -f1 | sed 's/^$/0/' | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
# lr_capacity RUNS RATE: the rate the server sustains at fmax, measured as
# its requests over the busy span (sgwin -f -b) while a client offers RATE
# req/s (an overload) for 2 s; the median of RUNS such runs, so that one
# host hiccup does not move the yardstick.  Each probe's drain (lr_quiet's
# half-seconds) is appended to /tmp/lr.quiet.
lr_capacity() {
	lr_gov performance
	sleep 1
	for _c in $(seq 1 "$1"); do
		lr_follow "$2" 2 $((98 + _c)) 0.3 > /dev/null
		lr_quiet	# the backlog drains
		echo "$LR_QUIET_HALVES" >> /tmp/lr.quiet
		lr_win rps
	done | lr_median 1
}
# The SLO rule of the bench and the demo: LR_SLO_X times performance's
# client p99 at LR_SLO_LOAD % of the capacity.  At 70 % the p99 is mostly
# queueing, which a lower frequency lengthens; 1.5x leaves a governor room
# to slow down and still asks for most of performance's tail (under it,
# schedutil misses at 30-70 % load and slack holds it, evaluation.rst).
LR_SLO_X=1.5
LR_SLO_LOAD=70
# lr_win NAME: NAME=value of the last lr_follow's sgwin line
lr_win() { tr ' ' '\n' < /tmp/lr.win | sed -n "s/^$1=//p" | head -n 1; }

# lr_energy_uj: CPU 1's energy counter now; lr_energy_j BEFORE AFTER: the
# joules between two of its readings (counter wraps handled), 0 without them
lr_energy_uj() { sg_energy_uj "$LR_EZ"; }
lr_energy_j() { awk -v d="$(sg_energy_delta "$LR_EZ" "$1" "$2")" 'BEGIN { printf "%.4f", d / 1e6 }'; }

# lr_mean_khz "RES_BEFORE" "RES_AFTER": time-weighted mean frequency between
lr_mean_khz() {
	echo "$1 | $2" | awk '{ n = 0; for (i = 1; $i != "|"; i += 2) b[$i] = $(i + 1)
		for (i++; i <= NF; i += 2) { d = $(i + 1) - b[$i]; s += d * $i; t += d }
		printf "%d\n", t ? s / t : 0 }'
}

# lr_pstate_share "RES_BEFORE" "RES_AFTER": per frequency CPU 1 ran at
# between the two, its share of that time in per mille, as
# "mhz=share;mhz=share" (the frequencies in the platform's order)
lr_pstate_share() {
	echo "$1 | $2" | awk '{ n = 0; for (i = 1; $i != "|"; i += 2) b[$i] = $(i + 1)
		for (i++; i <= NF; i += 2) { f[++n] = $i; d[n] = $(i + 1) - b[$i]; t += d[n] }
		sep = ""; for (i = 1; i <= n; i++) {
			printf "%s%d=%d", sep, f[i] / 1000, (t > 0 ? d[i] * 1000 / t : 0); sep = ";" }
		printf "\n" }'
}

# jget KEY: a number from the one-line JSON on stdin
jget() { sed -n "s/.*\"$1\": *\([-0-9.]*\).*/\1/p"; }

# lr_idle_share "IDLE_BEFORE" "IDLE_AFTER" WALL_US: per state, its share of
# the step's wall time in per mille, as "name=share;name=share"
lr_idle_share() {
	echo "$1 | $2" | awk -v wall="$3" '{ n = 0; for (i = 1; $i != "|"; i += 2) b[$i] = $(i + 1)
		sep = ""; for (i++; i <= NF; i += 2) {
			printf "%s%s=%d", sep, $i, (wall > 0 ? ($(i + 1) - b[$i]) * 1000 / wall : 0); sep = ";" }
		printf "\n" }'
}

# lr_snap [DEFER]: the counters lr_step differences, read without a fork:
# shell builtins for the files and, for the latency counters, the sgwin that
# lr_lat_serve started (none: no latency counters).  Sets _e (CPU 1's
# energy counter, uJ), _r ("f1 ns1 f2 ns2 ...": the time CPU 1 spent at each
# frequency so far), _i ("name us name us ...": the time it spent in each
# cpuidle state so far), _u (uptime, s) and _l (as lr_lat).  With DEFER
# (seconds), the latency counters are read that much later and _l is left
# empty: lr_lat_take collects them.
lr_snap() {
	_l=
	if [ -n "${1:-}" ] && [ -n "$_lw" ]; then
		echo "$1" >&7
	elif [ -n "$_lw" ]; then
		echo >&7
		lr_lat_take
	fi
	lr_snap_files
}
lr_snap_files() {
	read -r _e < "$LR_EZ/energy_uj" || _e=
	_r=
	while read -r _k _v; do
		case $_k in cpu1.f[0-9]*) _r="$_r${_k#cpu1.f} $_v " ;; esac
	done < $LR_VP/residency_ns
	_i=
	for _d in /sys/devices/system/cpu/cpu1/cpuidle/state*; do
		[ -r "$_d/time" ] || continue
		read -r _k < "$_d/name" && read -r _v < "$_d/time" && _i="$_i$_k $_v "
	done
	read -r _u _k < /proc/uptime
}
# lr_lat_take: _l, the next answer of lr_lat_serve's sgwin (empty: none)
lr_lat_take() {
	_l=
	[ -n "$_lw" ] || return 0
	read -r _l <&8
	_l=${_l#lat }
}

# lr_lat_serve: start an sgwin -w whose answers lr_snap reads (fds 7 and 8);
# lr_lat_unserve stops it
lr_lat_serve() {
	_lw=
	[ -n "$LR_SLOT" ] && [ -x "$LR_T/sgwin" ] || return 0
	rm -f /tmp/lr.wq /tmp/lr.wa && mkfifo /tmp/lr.wq /tmp/lr.wa || return 0
	"$LR_T/sgwin" -s "$LR_SLOT" -w < /tmp/lr.wq > /tmp/lr.wa 2>/dev/null &
	_lw=$!
	exec 7> /tmp/lr.wq 8< /tmp/lr.wa
}
lr_lat_unserve() {
	[ -n "$_lw" ] || return 0
	exec 7>&- 8<&-
	wait $_lw
	_lw=
}

# lr_step GOV STEP RATE SECS SEED [WARM]: one load step; prints a CSV row
# gov,step,rate,rps,p50_us,p99_us,p999_us,energy_j,energy_j_per_req,mean_khz,idle,
# slo_windows,slo_over,srv_p99_us,pstates
# (idle: CPU 1's cpuidle residency per state, per mille of the step's time;
# slo_windows, slo_over and srv_p99_us from slackgov's counters,
# lr_lat_diff, empty without them; pstates: CPU 1's time at each
# frequency, per mille of its time at all, lr_pstate_share).
# WARM > 0: the client first runs WARM seconds at RATE, unmeasured (sgclient
# --warmup), and the counters start at its mark, the load already running,
# LR_MARK_LEAD s before the measured run (at most WARM).  The reads at the
# mark fork nothing (lr_snap): under -icount the guest's two CPUs share one
# emulator thread, so a fork or an exec there (a dozen of them, through
# $(...), cat, sed and awk, took tens of ms) stalls the server on the
# other CPU, and the queue it leaves is in the SLO law's
# recent tail for seconds: the law raised K for a stall that no frequency
# causes or cures (evaluation.rst).  The lead keeps what is left of it out
# of the measured run.  The energy counters span the lead's requests too,
# and energy per request divides by them as well; slackgov's latency
# counters are read at the end of the lead (sgwin asked at the mark to
# read them LEAD s later, lr_snap DEFER, its answer taken after the run):
# the lead's requests, which the client leaves out of its p99, and the
# mark's stall with them, would otherwise be in the server-side p99 alone
# (evaluation.rst: over the client's by up to 8 % on the thread shape at
# 70-90 %).
LR_MARK_LEAD=0.4
lr_step() {
	lr_lat_serve
	if [ "${6:-0}" != 0 ]; then
		rm -f /tmp/lr.step && mkfifo /tmp/lr.step
		_lead=$(awk -v w="$6" -v l=$LR_MARK_LEAD 'BEGIN { print w < l ? w : l }')
		taskset -c 0 "$LR_T/sgclient" $LR_CLIENT_ARGS -p "$LR_PORT" -r "$3" -d "$4" \
			--warmup "$6" --mark-lead "$_lead" -c $LR_CONNS -S "$5" -j > /tmp/lr.step &
		_lc=$!
		exec 3< /tmp/lr.step
		read -r _mark <&3
		lr_snap "$_lead"
		e0=$_e r0=$_r i0=$_i u0=$_u
		out=
		while read -r _x <&3; do out="$out$_x
"; done
		exec 3<&-
		wait $_lc
		lr_lat_take
		l0=$_l
	else
		lr_snap
		e0=$_e r0=$_r i0=$_i u0=$_u l0=$_l
		out=$(taskset -c 0 "$LR_T/sgclient" $LR_CLIENT_ARGS -p "$LR_PORT" -r "$3" -d "$4" -c $LR_CONNS -S "$5" -j)
	fi
	lr_snap
	e1=$_e r1=$_r i1=$_i u1=$_u l1=$_l
	lr_lat_unserve
	lat=
	[ -n "$l0" ] && [ -n "$l1" ] && lat=$(lr_lat_diff "$l0" "$l1" | tr ' ' ',')
	rps=$(echo "$out" | jget rps)
	recv=$(echo "$out" | jget received)
	lead_sent=$(echo "$out" | jget lead_sent)
	ej=$(lr_energy_j "$e0" "$e1")
	epr=$(awk -v e="$ej" -v n="$recv" -v m="${lead_sent:-0}" 'BEGIN { printf "%.6f", (n > 0 ? e / (n + m) : 0) }')
	echo "$1,$2,$3,$rps,$(echo "$out" | jget p50_us),$(echo "$out" | jget p99_us),$(echo "$out" | jget p999_us),$ej,$epr,$(lr_mean_khz "$r0" "$r1"),$(lr_idle_share "$i0" "$i1" "$(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%d", (b - a) * 1000000 }')"),${lat:-,,},$(lr_pstate_share "$r0" "$r1")"
}
