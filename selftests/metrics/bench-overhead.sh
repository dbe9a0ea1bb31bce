#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench-overhead.sh - what the BPF side costs, side by side in one run, on
# the host or in a guest (root, BPF; a benchmark, not a pass/fail test):
#   - per syscall that slackgov does not watch (getppid loop), of any
#     process, and per watched syscall of an untraced process (send + recv
#     of a byte on a socketpair), slackgov loaded;
#   - per counted event of a target (the same send + recv: two counted
#     calls), the process a target by name;
#   - per context switch (a pipe ping-pong with a child on the same CPU);
#   - both as ns added and as a ratio to the same loop with no programs;
#   - for each set of syscall hooks (bpf/slackgov.bpf.c DOC "hooks"):
#     the tracepoints (slackctl load --hooks tracepoint) and, where the
#     kernel takes them, fentry/fexit (--hooks fentry), each beside its
#     floor: the same hooks with empty programs (sgloop -e: tp_btf
#     sys_enter/sys_exit, what any raw-syscall tracepoint design costs;
#     sgloop -f: fentry/fexit on the watched syscalls);
#   - request latency's programs (sg_tcp_probe on every TCP segment the
#     machine receives, sg_tcp_read on every TCP read): a request/response
#     round trip over loopback TCP (sgloop's tcp loop: 2 segments, 2 reads,
#     and for a target 2 timed requests per round trip) with nothing, with
#     slackgov's programs (tracepoint hooks) without those two ("nolat":
#     their links removed after the load) and with all, untraced and a
#     target; per received segment (untraced) and per timed request
#     (target), and what a server receiving 10^6 segments/s would pay;
#   - the request attributions (issue 46): the same round trip carrying a
#     RESP PING and its +PONG (sgloop -p), a target by name under each of
#     --proto thread, conn and resp and --request BINARY:sgl_serve (a
#     uprobe and a uretprobe around the server side's read and answer),
#     beside nothing attached: per round trip and as a ratio, and what each
#     adds over the thread rules per request (one PING a round trip).
# REPS repetitions, the conditions interleaved in a rotating order, the
# loops on CPU 1 (SCHED_FIFO where chrt exists); medians over repetitions
# (each repetition: sgloop's fastest of its runs).  Also the programs' own
# run time per call from kernel.bpf_stats_enabled (where bpftool exists).
# POSIX sh: the guest's busybox runs it too, e.g. on 6.12:
#   KVER=6.12.117+deb12 BENCH_OVERHEAD_REPS=9 selftests/vm/run selftests/metrics/bench-overhead.sh
# (vm/run passes the host's BENCH_* settings to the guest).
# Settings: BENCH_OVERHEAD_REPS (default 9; or the first argument),
# BENCH_OVERHEAD_ITERS (200000: ~40 ms of getppid per run on the host,
# short enough to fall between stalls), BENCH_OVERHEAD_RUNS (5).
# Human-readable lines, then, as the LAST line, one JSON object:
#   {"kernel": uname -r, "baseline_ns": getppid with nothing attached,
#    tracepoint hooks:
#    "untraced_ns": added per syscall, untraced, "untraced_ratio",
#    "traced_ns": added per counted event (send or recv) of a target,
#    "traced_ratio", "baseline_sendrecv_ns", "untraced_sendrecv_ns",
#    "untraced_sendrecv_ratio": the untraced pair over nothing attached,
#    "target_other_ns": added per uncounted syscall (getppid) of a target,
#    "empty_ns": added per syscall by empty tp_btf programs (the floor),
#    fentry hooks ("fentry": false and no fe_* keys where refused):
#    "fe_empty_ns", "fe_empty_sendrecv_ns": added by the empty fentry
#    programs per getppid and per send or recv,
#    "fe_untraced_ns", "fe_untraced_ratio" (getppid: an unwatched syscall),
#    "fe_untraced_sendrecv_ns", "fe_untraced_sendrecv_ratio" (watched, untraced),
#    "fe_traced_ns", "fe_traced_ratio" (counted events of a target),
#    "fe_target_other_ns",
#    "switch_ns", "target_switch_ns": added per context switch of an
#    untraced process and of a target (a pipe ping-pong on one CPU against
#    the empty tracepoint programs, less its four syscalls' programs beyond
#    the floor), "baseline_pingpong_ns": a round trip with nothing,
#    "tcp_rt_ns": {"none", "untraced_nolat", "untraced", "target_nolat",
#    "target"}: ns per TCP round trip in each condition, "tcp_segs_per_rt",
#    "tcp_probe_seg_ns": added per received segment (and its read, one each
#    in the loop) of an untraced process by
#    the latency programs, "tcp_probe_seg_ratio": the untraced round trip with
#    them over without, "lat_req_ns": added per timed request of a target,
#    "lat_req_ratio", "cpu_share_1m_segs": share of one CPU that 10^6
#    untraced segments per second cost,
#    "attr_rt_ns": {"none", "thread", "conn", "resp", "func"}: ns per
#    round trip with a PING, "attr_ratio": {...}: each over "none",
#    "attr_req_ns": {"conn", "resp", "func"}: added per request over
#    "thread",
#    "reps", "prog_ns": {program: ns per run} (tracepoint hooks),
#    "fe_prog_ns": the same with the fentry hooks}
# Usage: bench-overhead.sh [REPS]
set -u
TOP=${SG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${SG_BUILD:-$TOP/build}
S=$BUILD/userctl/slackctl
REPS=${1:-${BENCH_OVERHEAD_REPS:-9}}
ITERS=${BENCH_OVERHEAD_ITERS:-200000}
RUNS=${BENCH_OVERHEAD_RUNS:-5}
PIN=/sys/fs/bpf/slackgov

die() { echo "bench-overhead: $*" >&2; echo "{\"error\": \"$*\"}"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$S" ] && [ -x "$BUILD/selftests/sgloop" ] || die "build first (make)"
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
[ -e $PIN ] && die "slackgov is loaded: unload it first"

work=$(mktemp -d)
trap '"$S" unload >/dev/null 2>&1; rm -rf "$work"; [ -n "${stats_old:-}" ] && sysctl -qw kernel.bpf_stats_enabled=$stats_old' EXIT
# two names (at most 15 bytes: a comm): one untraced, one a target by name
U=$(printf %.15s "sgl-u$$") T=$(printf %.15s "sgl-t$$")
cp "$BUILD/selftests/sgloop" "$work/$U"
cp "$BUILD/selftests/sgloop" "$work/$T"
U=$work/$U T=$work/$T
cpu=$(( $(nproc) > 1 ? 1 : 0 ))
fifo=""
command -v chrt > /dev/null && fifo="chrt -f 50"

run() { $fifo taskset -c $cpu "$@" -n "$ITERS" -r "$RUNS"; }	# -> "getppid_ns X sendrecv_ns Y ..."
load() {	# load HOOKS: slackgov with those hooks, the target added
	"$S" load --hooks "$1" >/dev/null && "$S" target add --comm "$(basename "$T")" >/dev/null
}
# attr ATTR: the target loop's PING round trips under attribution ATTR
# (thread, conn, resp: --proto; func: --request on sgloop's sgl_serve)
attr() {
	case $1 in
	func) a="--request $T:sgl_serve" ;;
	*) a="--proto $1" ;;
	esac
	"$S" load --hooks tracepoint >/dev/null && "$S" target add --comm "$(basename "$T")" $a >/dev/null ||
		die "slackctl load or target add $a failed"
	run "$T" -p >> "$work/attr_$1"
	"$S" unload >/dev/null
}
# the latency programs off: their pinned links are their only reference
nolat() { rm -f $PIN/links/sg_tcp_probe $PIN/links/sg_tcp_read; }

# progstats HOOKS [loaded]: the programs' own cost per run, with a target
# loop running (slackgov loaded with HOOKS here, or already: "loaded");
# sets ps, and unloads
progstats() {
	ps=""
	[ "${2:-}" = loaded ] || load "$1" || return 0
	if [ -n "$stats_old" ] && command -v bpftool > /dev/null; then
		sysctl -qw kernel.bpf_stats_enabled=1
		run "$T" > /dev/null; run "$U" > /dev/null
		for l in $PIN/links/*; do
			p=$(basename "$l")
			id=$(bpftool -j link show pinned "$l" 2>/dev/null | sed -n 's/.*"prog_id":\([0-9]*\).*/\1/p')
			[ -n "$id" ] || continue
			ns=$(bpftool -j prog show id "$id" | sed -n 's/.*"run_time_ns":\([0-9]*\),"run_cnt":\([0-9]*\).*/\1 \2/p' |
				awk '{ if ($2) printf "%.1f", $1 / $2; else print "null" }')
			ps="$ps${ps:+, }\"$p\": ${ns:-null}"
		done
		sysctl -qw kernel.bpf_stats_enabled="$stats_old"
	fi
	"$S" unload >/dev/null
}
stats_old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)

# does this kernel take the fentry hooks?  (the 6.18 host: no, EPERM)  The
# probe's load is the fentry programs' cost run (a load takes 15 s under
# TCG)
fe=0 fe_prog_json=""
if load fentry 2> "$work/fe.err"; then
	fe=1
	progstats fentry loaded; fe_prog_json=$ps
else
	"$S" unload > /dev/null 2>&1
	echo "bench-overhead: no fentry rows: $(head -n 1 "$work/fe.err")" >&2
fi

# one condition each; a repetition runs them all, in turn forwards and backwards
c_none() { run "$U" >> "$work/none"; }
c_empty() { run "$U" -e >> "$work/empty" || die "empty tracepoint programs did not attach"; }
c_empty_fe() { [ $fe = 0 ] || run "$U" -f >> "$work/empty_fe" || die "empty fentry programs did not attach"; }
c_tp() {
	load tracepoint || die "slackctl load --hooks tracepoint failed"
	if [ "$1" = fwd ]; then
		run "$U" >> "$work/untraced"; run "$T" >> "$work/target"
		nolat
		run "$U" >> "$work/untraced_nolat"; run "$T" >> "$work/target_nolat"
	else
		run "$T" >> "$work/target"; run "$U" >> "$work/untraced"
		nolat
		run "$T" >> "$work/target_nolat"; run "$U" >> "$work/untraced_nolat"
	fi
	"$S" unload >/dev/null
}
c_fe() {
	[ $fe = 0 ] && return 0
	load fentry || die "slackctl load --hooks fentry failed"
	if [ "$1" = fwd ]; then
		run "$U" >> "$work/fe_untraced"; run "$T" >> "$work/fe_target"
	else
		run "$T" >> "$work/fe_target"; run "$U" >> "$work/fe_untraced"
	fi
	"$S" unload >/dev/null
}
c_attr() {
	if [ "$1" = fwd ]; then
		run "$U" -p >> "$work/attr_none"; for a in thread conn resp func; do attr $a; done
	else
		for a in func resp conn thread; do attr $a; done; run "$U" -p >> "$work/attr_none"
	fi
}
for f in none empty empty_fe untraced target untraced_nolat target_nolat fe_untraced fe_target \
	attr_none attr_thread attr_conn attr_resp attr_func; do
	: > "$work/$f"
done
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then
		c_none; c_empty; c_empty_fe; c_tp fwd; c_fe fwd; c_attr fwd
	else
		c_attr back; c_fe back; c_tp back; c_empty_fe; c_empty; c_none
	fi
done

prog_json=""
if [ -n "$stats_old" ] && command -v bpftool > /dev/null; then
	progstats tracepoint; prog_json=$ps
fi

med() {	# med FILE COLUMN: the median, or -1 for an empty file
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) printf "-1"
		else if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
gp0=$(med "$work/none" 2) sr0=$(med "$work/none" 4)
gpe=$(med "$work/empty" 2) sre=$(med "$work/empty" 4)
gpf=$(med "$work/empty_fe" 2) srf=$(med "$work/empty_fe" 4)
gpu=$(med "$work/untraced" 2) sru=$(med "$work/untraced" 4)
gpt=$(med "$work/target" 2) srt=$(med "$work/target" 4)
gpfu=$(med "$work/fe_untraced" 2) srfu=$(med "$work/fe_untraced" 4)
gpft=$(med "$work/fe_target" 2) srft=$(med "$work/fe_target" 4)
pp0=$(med "$work/none" 6) ppe=$(med "$work/empty" 6) ppu=$(med "$work/untraced" 6) ppt=$(med "$work/target" 6)
tc0=$(med "$work/none" 8) tcun=$(med "$work/untraced_nolat" 8) tcu=$(med "$work/untraced" 8)
tctn=$(med "$work/target_nolat" 8) tct=$(med "$work/target" 8) segs=$(med "$work/none" 10)
an=$(med "$work/attr_none" 8) at=$(med "$work/attr_thread" 8) ac=$(med "$work/attr_conn" 8)
ar=$(med "$work/attr_resp" 8) af=$(med "$work/attr_func" 8)
awk -v gp0="$gp0" -v sr0="$sr0" -v gpe="$gpe" -v sre="$sre" -v gpu="$gpu" -v sru="$sru" -v gpt="$gpt" -v srt="$srt" \
    -v fe="$fe" -v gpf="$gpf" -v srf="$srf" -v gpfu="$gpfu" -v srfu="$srfu" -v gpft="$gpft" -v srft="$srft" \
    -v pp0="$pp0" -v ppe="$ppe" -v ppu="$ppu" -v ppt="$ppt" \
    -v tc0="$tc0" -v tcun="$tcun" -v tcu="$tcu" -v tctn="$tctn" -v tct="$tct" -v segs="$segs" \
    -v an="$an" -v at="$at" -v ac="$ac" -v ar="$ar" -v af="$af" \
    -v reps="$REPS" -v kern="$(uname -r)" -v progs="$prog_json" -v feprogs="$fe_prog_json" '
function cell(v, base) {	# "ns (xratio)", or "-" for a condition not run
	return v < 0 ? "-" : sprintf("%.1f (x%.2f)", v, v / base)
}
BEGIN {
	printf "overhead of the slackgov BPF programs, kernel %s, medians of %d interleaved repetitions\n", kern, reps
	printf "  %-38s %16s %16s %16s %16s %16s\n", "ns per call (ratio to nothing)", "nothing", "empty tp", "empty fentry",
		"slackgov tp", "slackgov fentry"
	printf "  %-38s %16s %16s %16s %16s %16s\n", "getppid (unwatched), untraced", cell(gp0, gp0), cell(gpe, gp0),
		cell(gpf, gp0), cell(gpu, gp0), cell(gpfu, gp0)
	printf "  %-38s %16s %16s %16s %16s %16s\n", "getppid (unwatched), a target", cell(gp0, gp0), cell(gpe, gp0),
		cell(gpf, gp0), cell(gpt, gp0), cell(gpft, gp0)
	printf "  %-38s %16s %16s %16s %16s %16s\n", "send+recv pair (watched), untraced", cell(sr0, sr0), cell(sre, sr0),
		cell(srf, sr0), cell(sru, sr0), cell(srfu, sr0)
	printf "  %-38s %16s %16s %16s %16s %16s\n", "send+recv pair, a target (2 counted)", cell(sr0, sr0), cell(sre, sr0),
		cell(srf, sr0), cell(srt, sr0), cell(srft, sr0)
	printf "  %-38s %16s %16s %16s %16s %16s\n", "pipe ping-pong, per round trip", cell(pp0, pp0), cell(ppe, pp0),
		"-", cell(ppu, pp0), "-"
	printf "issue 18 goals, as ratios to nothing attached:  unwatched syscall <= 1.05, watched syscall untraced <= 1.3, counted event of a target <= 1.5\n"
	printf "  tracepoint hooks: x%.3f, x%.3f, x%.3f\n", gpu / gp0, sru / sr0, srt / sr0
	if (fe) printf "  fentry hooks:     x%.3f, x%.3f, x%.3f\n", gpfu / gp0, srfu / sr0, srft / sr0
	else print "  fentry hooks:     refused by this kernel"
	printf "empty tp_btf sys_enter+sys_exit (the tracepoint floor): +%.1f ns per syscall\n", gpe - gp0
	if (fe) printf "empty fentry/fexit (the fentry floor): +%.1f ns per getppid, +%.1f ns per send or recv\n", gpf - gp0, (srf - sr0) / 2
	un = gpu - gp0; tr = (srt - sr0) / 2
	printf "tracepoint, untraced process: +%.1f ns per syscall (x%.2f of %.1f ns)\n", un, gpu / gp0, gp0
	printf "tracepoint, untraced send+recv: +%.1f ns per call\n", (sru - sr0) / 2
	printf "tracepoint, target: +%.1f ns per counted event (send or recv; x%.2f of the pair with nothing attached)\n", tr, srt / sr0
	printf "tracepoint, target: +%.1f ns per uncounted syscall (getppid)\n", gpt - gp0
	if (fe) {
		printf "fentry, untraced process: +%.1f ns per unwatched syscall, +%.1f ns per watched one (send or recv)\n", gpfu - gp0, (srfu - sr0) / 2
		printf "fentry, target: +%.1f ns per counted event (x%.2f of the pair), +%.1f ns per uncounted syscall\n", (srft - sr0) / 2, srft / sr0, gpft - gp0
	}
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
	printf "  %-34s %16s %16s %16s %16s %16s\n", "TCP round trip with a PING, ns", "nothing", "--proto thread",
		"--proto conn", "--proto resp", "--request"
	printf "  %-34s %16s %16s %16s %16s %16s\n", "a target by name (ratio)", cell(an, an), cell(at, an), cell(ac, an),
		cell(ar, an), cell(af, an)
	printf "per request (a PING a round trip) over the thread rules: conn +%.1f ns, the RESP parser +%.1f ns, the function probes (--request) +%.1f ns\n",
		ac - at, ar - at, af - at
	if (progs != "") printf "programs, ns per run (bpf_stats, target and untraced loops), tracepoint hooks: %s\n", progs
	if (feprogs != "") printf "programs, ns per run, fentry hooks: %s\n", feprogs
	printf "{\"kernel\": \"%s\", \"baseline_ns\": %.1f, \"untraced_ns\": %.1f, \"untraced_ratio\": %.3f, \"traced_ns\": %.1f, \"traced_ratio\": %.3f, \"baseline_sendrecv_ns\": %.1f, \"untraced_sendrecv_ns\": %.1f, \"untraced_sendrecv_ratio\": %.3f, \"target_other_ns\": %.1f, \"empty_ns\": %.1f, ",
		kern, gp0, un, gpu / gp0, tr, srt / sr0, sr0 / 2, (sru - sr0) / 2, sru / sr0, gpt - gp0, gpe - gp0
	if (fe)
		printf "\"fentry\": true, \"fe_empty_ns\": %.1f, \"fe_empty_sendrecv_ns\": %.1f, \"fe_untraced_ns\": %.1f, \"fe_untraced_ratio\": %.3f, \"fe_untraced_sendrecv_ns\": %.1f, \"fe_untraced_sendrecv_ratio\": %.3f, \"fe_traced_ns\": %.1f, \"fe_traced_ratio\": %.3f, \"fe_target_other_ns\": %.1f, ",
			gpf - gp0, (srf - sr0) / 2, gpfu - gp0, gpfu / gp0, (srfu - sr0) / 2, srfu / sr0, (srft - sr0) / 2, srft / sr0, gpft - gp0
	else
		printf "\"fentry\": false, "
	printf "\"switch_ns\": %.1f, \"target_switch_ns\": %.1f, \"baseline_pingpong_ns\": %.1f, ", sw, swt, pp0
	printf "\"tcp_rt_ns\": {\"none\": %.1f, \"untraced_nolat\": %.1f, \"untraced\": %.1f, \"target_nolat\": %.1f, \"target\": %.1f}, \"tcp_segs_per_rt\": %.2f, \"tcp_probe_seg_ns\": %.1f, \"tcp_probe_seg_ratio\": %.3f, \"lat_req_ns\": %.1f, \"lat_req_ratio\": %.3f, \"cpu_share_1m_segs\": %.4f, ",
		tc0, tcun, tcu, tctn, tct, segs, seg, tcu / tcun, req, tct / tctn, seg * 1e6 / 1e9
	printf "\"attr_rt_ns\": {\"none\": %.1f, \"thread\": %.1f, \"conn\": %.1f, \"resp\": %.1f, \"func\": %.1f}, ", an, at, ac, ar, af
	printf "\"attr_ratio\": {\"thread\": %.3f, \"conn\": %.3f, \"resp\": %.3f, \"func\": %.3f}, ", at / an, ac / an, ar / an, af / an
	printf "\"attr_req_ns\": {\"conn\": %.1f, \"resp\": %.1f, \"func\": %.1f}, ", ac - at, ar - at, af - at
	printf "\"reps\": %d, \"prog_ns\": {%s}, \"fe_prog_ns\": {%s}}\n", reps, progs, feprogs
}'
