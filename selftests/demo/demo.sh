# SPDX-License-Identifier: GPL-2.0
# demo.sh - guest side of "make demo": the same load ramp under performance
# and under slack, with a live sample every half second (DEMO-ROW), a row
# per load step (DEMO-STEP) and notes (DEMO-INFO); see selftests/demo/run.
. "$SG_TOP/selftests/lib/loadrun.sh"

SERVICE_US=1000		# ~1 ms of work per request at fmax: PLATFORM.md's
			# advice for TCG, where a wake-up alone costs 0.1-0.4 ms
RAMP="100 300 500 700 500 300 100"	# req/s; nominal capacity ~1000 req/s
STEP_S=5

info() { echo "DEMO-INFO $*"; }
trap 'lr_down' EXIT

lr_up || { info "cannot bring the platform up"; exit 1; }
[ -x "$LR_CTL" ] || info "slackctl missing: the slack run has no BPF feed"
lr_server_start 2 epoll $SERVICE_US || { info "server did not start"; exit 1; }
info "server pid $LR_SERVER_PID port $LR_PORT, $SERVICE_US us of work per request, ramp $RAMP req/s, ${STEP_S}s a step"

for gov in performance slack; do
	lr_gov $gov
	info "---- governor $gov on CPU 1 ----"
	"$LR_T/sgsample" -i 500 -e "$LR_VP/energy_uj:cpu1" |
		while IFS= read -r row; do echo "DEMO-ROW $gov,$row"; done &
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
