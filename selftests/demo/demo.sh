# SPDX-License-Identifier: GPL-2.0
# demo.sh - guest side of "make demo": the same load ramp under schedutil
# (the governor every server already has) and under slack holding a latency
# SLO, with a live sample every half second (DEMO-ROW), a row per load step
# (DEMO-STEP), the SLO (DEMO-SLO) and notes (DEMO-INFO); see selftests/demo/run.
. "$SG_TOP/selftests/lib/loadrun.sh"

SERVICE_US=1000		# ~1 ms of work per request at fmax, as the bench: under
			# TCG a wake-up alone costs 0.1-0.4 ms (evaluation.rst)
RAMP=${DEMO_RAMP:-"100 300 500 700 500 300 100"}	# req/s; nominal capacity ~1000 req/s
STEP_S=${DEMO_STEP_S:-5}
GOVS=${DEMO_GOVS:-"schedutil slack"}
SLO_X=3			# the SLO: 3x performance's p99 at the ramp's first
			# rate, as make bench chooses it (evaluation.rst)

info() { echo "DEMO-INFO $*"; }

# with_power PREFIX: sgsample's rows from stdin, each printed after PREFIX
# with ",power_w" appended: CPU 1's modeled power in W since the previous
# row, from its powercap counter (lr_energy_uj, read as the row arrives) over
# the rows' t_s (seconds, two decimals); -1.000 on the first row
with_power() {
	e0= t0=
	while IFS= read -r row; do
		e=$(lr_energy_uj)
		t=${row%%,*}
		cs=${t#*.}
		t=$(( ${t%.*} * 100 + ${cs#0} ))	# centiseconds; no leading 0: not octal
		pw=-1.000
		if d=$(sg_energy_delta "$LR_EZ" "$e0" "$e") && [ "$t" -gt "${t0:-$t}" ]; then
			mw=$(( d / ((t - t0) * 10) ))	# uJ / (cs * 10) = uJ / ms = mW
			pw=$(printf '%d.%03d' $((mw / 1000)) $((mw % 1000)))
		fi
		echo "$1$row,$pw"
		e0=$e t0=$t
	done
}
trap 'lr_down' EXIT

lr_up || { info "cannot bring the platform up"; exit 1; }
[ -x "$LR_CTL" ] || info "slackctl missing: the slack run has no BPF feed"
lr_server_start 2 epoll $SERVICE_US || { info "server did not start"; exit 1; }
info "server pid $LR_SERVER_PID port $LR_PORT, $SERVICE_US us of work per request, ramp $RAMP req/s, ${STEP_S}s a step"

if [ -n "${DEMO_SLO_US:-}" ]; then
	slo=$DEMO_SLO_US
	info "SLO: p99 <= $slo us (DEMO_SLO_US)"
else
	lr_gov performance
	sleep 1
	base=$(lr_step performance 0 "${RAMP%% *}" "$STEP_S" 99 | cut -d, -f6 | cut -d. -f1)
	slo=$(( ${base:-0} * SLO_X ))
	info "SLO: p99 <= $slo us ($SLO_X x performance's p99 of $base us at ${RAMP%% *} req/s)"
fi
[ "$slo" -gt 0 ] || { info "no SLO measured"; exit 1; }
echo "DEMO-SLO $slo"
lr_target_slo "$slo" || info "slackctl refused --slo ${slo}us: slack runs without an SLO"

for gov in $GOVS; do
	lr_gov $gov
	info "---- governor $gov on CPU 1 ----"
	sleep 1
	"$LR_T/sgsample" -i 500 -s "${LR_SLOT:-0}" | with_power "DEMO-ROW $gov," &
	sampler=$!
	step=0
	for rate in $RAMP; do
		step=$((step + 1))
		echo "DEMO-STEP $(lr_step $gov $step $rate $STEP_S $step)"
	done
	kill $sampler 2>/dev/null
	wait $sampler 2>/dev/null
done
[ -x "$LR_CTL" ] && "$LR_CTL" status | sed 's/^/DEMO-INFO /'
exit 0
