# SPDX-License-Identifier: GPL-2.0
# guest-slo-server.sh - the SLO law on the real BPF side and the project's
# server (selftests/lib/loadrun.sh): sgserver (1 ms of work per request at
# fmax) on CPU 1 under slack, sgclient on CPU 0.  The SLO is 3x the p99
# that performance gives at 30 % of the capacity (both measured first, now:
# TCG's speed swings), as the bench chooses it.  At 30 % load under slack
# with that SLO: the server-side p99 that slackgov measures is under the
# SLO and CPU 1 runs below fmax; at the same load a loose SLO runs at a
# lower mean frequency than a tight one (below).  The client's p99 is
# printed, not asserted: it adds the client's own share (the answer's way
# back and the client's wake-up, 2-5 ms here under TCG), which slackgov
# does not see and the law's margin covers only on average; whether it
# stays under the SLO is the bench's to report (issue 15's criterion 1).
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"
. "$SG_TOP/selftests/lib/loadrun.sh"

NOMINAL=1000		# nominal req/s of the 1 ms server at fmax
SECS=6			# seconds per measured step

ktap_plan 5
[ -x "$LR_T/sgserver" ] && [ -x "$LR_T/sgclient" ] && [ -x "$LR_CTL" ] && [ -x "$LR_T/sgwin" ] ||
	ktap_skip_all "sgserver, sgclient, sgwin or slackctl not built"
taskset -p 1 $$ >/dev/null 2>&1
# lr_down's single rmmod can meet EAGAIN while the BPF side's module
# references drop: retry (common.sh), then vfreq
sg_defer "sg_rmmod vfreq 2>/dev/null"
sg_defer sg_rmmod_slackgov
sg_defer lr_down
LR_HOOKS=$SG_LOOP_HOOKS
lr_up || { ktap_note "modules: $(cut -d' ' -f1-3 /proc/modules | tr '\n' ' ')"
	ktap_fail "platform, slackgov and slackctl up"; ktap_finished; }
lr_server_start 2 epoll 1000 || { ktap_fail "sgserver started"; ktap_finished; }
[ -n "$LR_SLOT" ] || { ktap_fail "the server is a target"; ktap_finished; }

lr_gov performance
cap=$(taskset -c 0 "$LR_T/sgclient" -p "$LR_PORT" -r $((NOMINAL * 3)) -d 1.5 -c 4 -S 3 -g 1 -j | jget rps)
cap=${cap%.*}
[ -n "$cap" ] && [ "$cap" -gt 0 ] && [ "$cap" -lt $NOMINAL ] || cap=$NOMINAL
RATE=$((cap * 30 / 100))
perf=$(lr_step performance base $RATE $SECS 11)
p99=$(echo "$perf" | cut -d, -f6)
p99=${p99%.*}
[ -n "$p99" ] && [ "$p99" -gt 0 ] || { ktap_fail "performance's p99 measured"; ktap_finished; }
SLO=$((p99 * 3))
ktap_note "capacity $cap req/s; 30 %: $RATE req/s; SLO $SLO us; performance: $perf"

# step GOV SLO_US SEED: one measured step with the target's SLO set to SLO_US
step() { lr_target_slo "$2"; lr_step "$1" "slo$2" $RATE $SECS "$3"; }

lr_gov slack
step slack $SLO 13 >/dev/null		# settle: K and the filters start from the model
row=$(step slack $SLO 17)
ktap_note "slack, SLO $SLO us: $row"
khz=$(echo "$row" | cut -d, -f10) cp99=$(echo "$row" | cut -d, -f6) sp99=$(echo "$row" | cut -d, -f14)
cp99=${cp99%.*}
fmax=$(cat $LR_POL1/cpuinfo_max_freq)
ktap_cmp "${sp99:-0}" -gt 0 "slackgov measured the server's latency (p99 $sp99 us)"
ktap_cmp "${sp99:-999999999}" -le "$SLO" "the server-side p99 is under the SLO ($sp99 <= $SLO us)"
psp99=$(echo "$perf" | cut -d, -f14)
ktap_note "client's p99 $cp99 us against the SLO $SLO us (performance's client-side share: $((p99 - ${psp99:-0})) us)"
ktap_cmp "${khz:-$fmax}" -lt "$fmax" "CPU 1 runs below fmax ($khz kHz)"

# The tight SLO: 1.5x performance's p99, but at most TIGHT_MAX_US, whose
# budget leaves the law headroom to add (K * W / T, step 2 of the DOC block
# in kmod/control.c: ~1.4 GHz for a 12 ms SLO and 1 ms of work at 3 GHz).
# From a p99 that met a host stall, both SLOs would be so loose that both
# run at the floor the load sets (L / 0.9), where noise orders them.  The
# loose SLO: 10x the tight.
TIGHT_MAX_US=20000
tslo=$((p99 * 3 / 2))
[ "$tslo" -le $TIGHT_MAX_US ] || tslo=$TIGHT_MAX_US
lslo=$((tslo * 10))
loose=$(step slack $lslo 19)
tight=$(step slack $tslo 23)
kl=$(echo "$loose" | cut -d, -f10) kt=$(echo "$tight" | cut -d, -f10)
ktap_note "loose SLO $lslo us: $loose"
ktap_note "tight SLO $tslo us: $tight"
ktap_cmp "${kl:-0}" -lt "${kt:-0}" "same load: the loose SLO runs lower than the tight one ($kl < $kt kHz)"
ktap_eq slo "$(cat $LR_POL1/slack/mode 2>/dev/null | sed 's/boost/slo/')" "the policy runs the SLO law"
ktap_finished
