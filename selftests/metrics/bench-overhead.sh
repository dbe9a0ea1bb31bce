#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-overhead.sh - what the BPF side costs, side by side in one run on
# the host (root, BPF; a benchmark, not a pass/fail test):
#   - per syscall of an untraced process (getppid loop), slackgov loaded;
#   - per counted event of a target (send + recv of a byte on a socketpair:
#     two counted calls), the process a target by name;
#   - per context switch (a pipe ping-pong with a child on the same CPU);
#   - both as ns added and as a ratio to the same loop with no programs;
#   - the floor: the same loops with empty tp_btf sys_enter/sys_exit
#     programs (sgloop -e), what any raw-syscall tracepoint design costs;
#   - request latency's programs (sg_tcp_probe on every TCP segment the
#     machine receives, sg_tcp_read on every TCP read): a request/response
#     round trip over loopback TCP (sgloop's tcp loop: 2 segments, 2 reads,
#     and for a target 2 timed requests per round trip) with nothing, with
#     slackgov's programs without those two ("nolat": their links removed
#     after the load) and with all, untraced and a target; per received
#     segment (untraced) and per timed request (target), and what a server
#     receiving 10^6 segments/s would pay.
# REPS repetitions (default 9), the three conditions interleaved in a
# rotating order, the loops SCHED_FIFO on CPU 1; medians over repetitions
# (each repetition: sgloop's fastest of its runs).  Also the programs' own
# run time per call from kernel.bpf_stats_enabled.
# Human-readable lines, then, as the LAST line, one JSON object:
#   {"baseline_ns": getppid with nothing attached,
#    "untraced_ns": added per syscall, untraced, "untraced_ratio",
#    "traced_ns": added per counted event (send or recv) of a target,
#    "traced_ratio", "baseline_sendrecv_ns", "untraced_sendrecv_ns",
#    "target_other_ns": added per uncounted syscall (getppid) of a target,
#    "empty_ns": added per syscall by empty tp_btf programs (the floor),
#    "switch_ns", "target_switch_ns": added per context switch of an
#    untraced process and of a target (a pipe ping-pong on one CPU against
#    the empty programs, less its four syscalls' programs beyond the floor),
#    "baseline_pingpong_ns": a round trip with nothing,
#    "tcp_rt_ns": {"none", "untraced_nolat", "untraced", "target_nolat",
#    "target"}: ns per TCP round trip in each condition, "tcp_segs_per_rt",
#    "tcp_probe_seg_ns": added per received segment (and its read, one each
#    in the loop) of an untraced process by
#    the latency programs, "tcp_probe_seg_ratio": the untraced round trip with
#    them over without, "lat_req_ns": added per timed request of a target,
#    "lat_req_ratio", "cpu_share_1m_segs": share of one CPU that 10^6
#    untraced segments per second cost,
#    "reps", "prog_ns": {program: ns per run}}
# Usage: bench-overhead.sh [REPS]
set -u
TOP=${SG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${SG_BUILD:-$TOP/build}
S=$BUILD/userctl/slackctl
REPS=${1:-9}
ITERS=200000	# ~40 ms of getppid per run: short enough to fall between stalls
RUNS=5

die() { echo "bench-overhead: $*" >&2; echo "{\"error\": \"$*\"}"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$S" ] && [ -x "$BUILD/selftests/sgloop" ] || die "build first (make)"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
[ -e /sys/fs/bpf/slackgov ] && die "slackgov is loaded: unload it first"

work=$(mktemp -d)
trap '"$S" unload >/dev/null 2>&1; rm -rf "$work"; [ -n "${stats_old:-}" ] && sysctl -qw kernel.bpf_stats_enabled=$stats_old' EXIT
U=sgl-u$$; T=sgl-t$$	# two names: one untraced, one a target by name
cp "$BUILD/selftests/sgloop" "$work/${U:0:15}"
cp "$BUILD/selftests/sgloop" "$work/${T:0:15}"
U=$work/${U:0:15} T=$work/${T:0:15}
cpu=$(( $(nproc) > 1 ? 1 : 0 ))

run() { chrt -f 50 taskset -c $cpu "$@" -n $ITERS -r $RUNS; }	# -> "getppid_ns X sendrecv_ns Y"
load() { "$S" load >/dev/null && "$S" target add --comm "$(basename "$T")" >/dev/null; }
# the latency programs off: their pinned links are their only reference
nolat() {
	rm -f /sys/fs/bpf/slackgov/links/sg_tcp_probe /sys/fs/bpf/slackgov/links/sg_tcp_read
}

for f in none empty untraced target untraced_nolat target_nolat; do : > "$work/$f"; done
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then
		run "$U" >> "$work/none"
		run "$U" -e >> "$work/empty" || die "empty programs did not attach"
		load || die "slackctl load failed"
		run "$U" >> "$work/untraced"; run "$T" >> "$work/target"
		nolat
		run "$U" >> "$work/untraced_nolat"; run "$T" >> "$work/target_nolat"
		"$S" unload >/dev/null
	else
		load || die "slackctl load failed"
		nolat
		run "$T" >> "$work/target_nolat"; run "$U" >> "$work/untraced_nolat"
		"$S" unload >/dev/null
		load || die "slackctl load failed"
		run "$T" >> "$work/target"; run "$U" >> "$work/untraced"
		"$S" unload >/dev/null
		run "$U" -e >> "$work/empty" || die "empty programs did not attach"
		run "$U" >> "$work/none"
	fi
done

# the programs' own cost per run, with a target loop running
stats_old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
prog_json=""
if [ -n "$stats_old" ] && load; then
	sysctl -qw kernel.bpf_stats_enabled=1
	run "$T" > /dev/null; run "$U" > /dev/null
	for l in /sys/fs/bpf/slackgov/links/*; do
		p=$(basename "$l")
		id=$(bpftool -j link show pinned "$l" 2>/dev/null | sed -n 's/.*"prog_id":\([0-9]*\).*/\1/p')
		[ -n "$id" ] || continue
		ns=$(bpftool -j prog show id "$id" | sed -n 's/.*"run_time_ns":\([0-9]*\),"run_cnt":\([0-9]*\).*/\1 \2/p' |
			awk '{ if ($2) printf "%.1f", $1 / $2; else print "null" }')
		prog_json="$prog_json${prog_json:+, }\"$p\": ${ns:-null}"
	done
	sysctl -qw kernel.bpf_stats_enabled="$stats_old"
	"$S" unload >/dev/null
fi

med() {	# med FILE COLUMN
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
gp0=$(med "$work/none" 2) sr0=$(med "$work/none" 4)
gpe=$(med "$work/empty" 2) sre=$(med "$work/empty" 4)
gpu=$(med "$work/untraced" 2) sru=$(med "$work/untraced" 4)
gpt=$(med "$work/target" 2) srt=$(med "$work/target" 4)
pp0=$(med "$work/none" 6) ppe=$(med "$work/empty" 6) ppu=$(med "$work/untraced" 6) ppt=$(med "$work/target" 6)
tc0=$(med "$work/none" 8) tcun=$(med "$work/untraced_nolat" 8) tcu=$(med "$work/untraced" 8)
tctn=$(med "$work/target_nolat" 8) tct=$(med "$work/target" 8) segs=$(med "$work/none" 10)
awk -v gp0="$gp0" -v sr0="$sr0" -v gpe="$gpe" -v sre="$sre" -v gpu="$gpu" -v sru="$sru" -v gpt="$gpt" -v srt="$srt" \
    -v pp0="$pp0" -v ppe="$ppe" -v ppu="$ppu" -v ppt="$ppt" \
    -v tc0="$tc0" -v tcun="$tcun" -v tcu="$tcu" -v tctn="$tctn" -v tct="$tct" -v segs="$segs" \
    -v reps="$REPS" -v kern="$(uname -r)" -v progs="$prog_json" 'BEGIN {
	printf "overhead of the slackgov BPF programs, kernel %s, medians of %d interleaved repetitions\n", kern, reps
	printf "  %-34s %10s %10s %10s %10s\n", "", "nothing", "empty", "untraced", "target"
	printf "  %-34s %10.1f %10.1f %10.1f %10.1f\n", "getppid, ns per call", gp0, gpe, gpu, gpt
	printf "  %-34s %10.1f %10.1f %10.1f %10.1f\n", "send+recv (2 counted), ns per pair", sr0, sre, sru, srt
	printf "  %-34s %10.1f %10.1f %10.1f %10.1f\n", "pipe ping-pong, ns per round trip", pp0, ppe, ppu, ppt
	printf "empty tp_btf sys_enter+sys_exit (the floor): +%.1f ns per syscall\n", gpe - gp0
	un = gpu - gp0; tr = (srt - sr0) / 2
	printf "untraced process: +%.1f ns per syscall (x%.2f of %.1f ns)\n", un, gpu / gp0, gp0
	printf "untraced send+recv: +%.1f ns per call\n", (sru - sr0) / 2
	printf "target: +%.1f ns per counted event (send or recv; x%.2f of the pair with nothing attached)\n", tr, srt / sr0
	printf "target: +%.1f ns per uncounted syscall (getppid)\n", gpt - gp0
	# a round trip: 2 context switches and 4 pipe syscalls.  Against the
	# empty programs (the same raw-tracepoint floor on the syscalls, no
	# sched_switch program), less what the syscall programs cost beyond
	# that floor (the getppid difference in the same conditions)
	sw = (ppu - ppe - 4 * (gpu - gpe)) / 2; swt = (ppt - ppe - 4 * (gpt - gpe)) / 2
	printf "context switch (sg_switch): +%.1f ns untraced, +%.1f ns a target (ping-pong round trip +%.1f / +%.1f ns over the empty programs, less its 4 syscalls)\n", sw, swt, ppu - ppe, ppt - ppe
	# request latency: a TCP round trip is segs received segments (2: a
	# byte each way, the ACKs ride on the answers) and, for a target, two
	# timed requests (each side reads, then sends on the same socket)
	if (segs <= 0) segs = 2
	printf "  %-34s %10s %10s %10s\n", "TCP round trip, ns (ratio)", "nothing", "today", "+latency"
	printf "  %-34s %10.1f %10.1f (x%.2f) %10.1f (x%.2f)\n", "untraced", tc0, tcun, tcun / tc0, tcu, tcu / tc0
	printf "  %-34s %10.1f %10.1f (x%.2f) %10.1f (x%.2f)\n", "target (2 timed requests)", tc0, tctn, tctn / tc0, tct, tct / tc0
	seg = (tcu - tcun) / segs; req = (tct - tctn) / 2
	printf "latency programs: +%.1f ns per received TCP segment of an untraced process, with its read (x%.3f of its round trip without them); a server receiving 10^6 segments/s pays %.2f%% of a CPU\n", seg, tcu / tcun, seg * 1e6 / 1e9 * 100
	printf "latency programs: +%.1f ns per timed request of a target (x%.3f of its round trip without them)\n", req, tct / tctn
	if (progs != "") printf "programs, ns per run (bpf_stats, target and untraced loops): %s\n", progs
	printf "{\"baseline_ns\": %.1f, \"untraced_ns\": %.1f, \"untraced_ratio\": %.3f, \"traced_ns\": %.1f, \"traced_ratio\": %.3f, \"baseline_sendrecv_ns\": %.1f, \"untraced_sendrecv_ns\": %.1f, \"target_other_ns\": %.1f, \"empty_ns\": %.1f, \"switch_ns\": %.1f, \"target_switch_ns\": %.1f, \"baseline_pingpong_ns\": %.1f, ",
		gp0, un, gpu / gp0, tr, srt / sr0, sr0 / 2, (sru - sr0) / 2, gpt - gp0, gpe - gp0, sw, swt, pp0
	printf "\"tcp_rt_ns\": {\"none\": %.1f, \"untraced_nolat\": %.1f, \"untraced\": %.1f, \"target_nolat\": %.1f, \"target\": %.1f}, \"tcp_segs_per_rt\": %.2f, \"tcp_probe_seg_ns\": %.1f, \"tcp_probe_seg_ratio\": %.3f, \"lat_req_ns\": %.1f, \"lat_req_ratio\": %.3f, \"cpu_share_1m_segs\": %.4f, ",
		tc0, tcun, tcu, tctn, tct, segs, seg, tcu / tcun, req, tct / tctn, seg * 1e6 / 1e9
	printf "\"reps\": %d, \"prog_ns\": {%s}}\n", reps, progs
}'
