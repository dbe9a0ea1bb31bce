# SPDX-License-Identifier: GPL-2.0
# bench.sh - guest side of "make bench" (see selftests/bench/run).
#
# 0. capacity: per server shape, what it sustains at fmax (load levels are
#    percentages of it).
# 1. control: governors x load levels x repetitions on each server shape,
#    interleaved (every repetition walks the loads, every load visits all
#    governors in an order rotated per repetition) so that drift in the
#    emulator's speed hits all governors alike.  One BENCH-CELL row each.
# 2. fidelity: for each server shape, the BPF side's observed RPS against the
#    client's achieved RPS at several rates.  One BENCH-FID row each.
# Knobs (environment, passed from the host by selftests/vm/run): BENCH_REPS,
# BENCH_STEP_S, BENCH_LOADS, BENCH_GOVS, BENCH_SHAPES.
. "$SG_TOP/selftests/lib/loadrun.sh"

SERVICE_US=1000			# ~1 ms of work per request at fmax (PLATFORM.md)
NOMINAL=1000			# req/s of one CPU at 1 ms per request, before TCG's costs
REPS=${BENCH_REPS:-3}
STEP_S=${BENCH_STEP_S:-8}
LOADS=${BENCH_LOADS:-"10 30 50 70 90"}
GOVS=${BENCH_GOVS:-"slack performance powersave schedutil ondemand"}
SHAPES=${BENCH_SHAPES:-"epoll thread"}	# dispatcher/worker epoll; thread per connection

trap 'lr_down' EXIT
lr_up || { echo "BENCH-INFO cannot bring the platform up"; exit 1; }
echo "BENCH-INFO kernel $(uname -r)"
echo "BENCH-INFO cpu1 idle states: $(cat /sys/devices/system/cpu/cpu1/cpuidle/state*/name 2>/dev/null | tr '\n' ' ')(driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null), governor $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null))"

# rotate N WORDS...: the words, starting at the N-th (mod count)
rotate() { n=$1; shift; k=$(( n % $# )); i=0
	for w in "$@"; do [ $i -ge $k ] && printf '%s ' "$w"; i=$((i + 1)); done
	i=0; for w in "$@"; do [ $i -lt $k ] && printf '%s ' "$w"; i=$((i + 1)); done; }

# capacity SHAPE: the rate the server sustains at fmax, measured as its
# sends over the busy span (sgwin -f -b) while a client offers twice the
# nominal rate for 2 s; the load levels are percentages of it.  Under TCG it
# is below the nominal 1000 req/s (wake-ups, syscalls and the emulated
# platform's own work), and it moves with the host's speed.
capacity() {
	lr_gov performance
	sleep 1
	lr_follow $((NOMINAL * 2)) 2 99 0.3 > /dev/null
	sleep 2		# the backlog drains
	lr_win rps | cut -d. -f1
}
declare_cap() { eval "CAP_$1=$2"; }
cap_of() { eval "echo \${CAP_$1:-$NOMINAL}"; }

for shape in $SHAPES; do
	lr_server_start 2 "$shape" $SERVICE_US || { echo "BENCH-INFO $shape server did not start"; exit 1; }
	cap=$(capacity)
	[ -n "$cap" ] && [ "$cap" -gt 0 ] || { echo "BENCH-INFO $shape: no capacity measured, nominal $NOMINAL req/s used"; cap=$NOMINAL; }
	declare_cap "$shape" "$cap"
	echo "BENCH-INFO capacity $shape $cap req/s at fmax (offered $((NOMINAL * 2)) req/s)"
	echo "BENCH-INFO control matrix, $shape server: $REPS x {$LOADS}% x {$GOVS}, ${STEP_S} s per cell"
	for rep in $(seq 1 "$REPS"); do
		for load in $LOADS; do
			rate=$((cap * load / 100))
			for gov in $(rotate $rep $GOVS); do
				lr_gov "$gov"
				sleep 1		# let the governor settle on the idle server
				row=$(lr_step "$gov" "$load" "$rate" "$STEP_S" "$((rep * 100 + load))")
				echo "BENCH-CELL $rep,$shape,$row"
			done
		done
	done
	lr_server_stop
done

# fidelity: observed (BPF) vs client RPS, under performance, measured as
# selftests/metrics/fidelity.sh does: the windows of the run from the first
# to the last with a send (sgwin -f -b), so that the idle edges of a step
# (windows before the client starts and after it ends) do not count
for shape in $SHAPES; do
	lr_server_start 2 $shape $SERVICE_US || continue
	[ -n "$LR_SLOT" ] || { echo "BENCH-INFO fidelity: $shape server is no target"; lr_server_stop; continue; }
	lr_gov performance
	for load in $LOADS; do
		out=$(lr_follow $(($(cap_of $shape) * load / 100)) 5 "$load" 2)
		obs=$(lr_win rps)
		echo "BENCH-FID $shape,$load,$(echo "$out" | jget rps),${obs:-0}"
	done
	lr_server_stop
done
exit 0
