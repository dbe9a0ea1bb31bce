# SPDX-License-Identifier: GPL-2.0
# host-fidelity.sh - the metrics against the project's client on the host
# kernel (fidelity.sh): observed rps vs the client's achieved rps over four
# load levels from 10% to 80% of capacity (R^2, slope), slack falling with
# load, the saturation signal (cv) at saturation vs 50% load, and the
# server-side request latency against the client's (p99 ranked alike,
# never above it, queueing growing with load).
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/metrics/fidelity.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"
[ "$(nproc)" -ge 2 ] || ktap_skip_all "needs 2 CPUs"
sg_defer "$S unload"

# 200 us of work: ~5000 req/s nominal on an idle CPU; the server and the
# client run SCHED_FIFO so that other tenants' work (QEMU guests of the other
# tests) does not preempt them; medians over passes (up, down, ...) against
# the drift of this shared machine's speed: five passes of the rate series,
# whose median outlasts two passes of a level that a host stall disturbed
# (two of three skew the fit), three of the latency series (its steps are
# ranked one by one, not by their medians)
FID_SVC_US=200 FID_NOMINAL=4000 FID_DUR=2 FID_TAIL=0.6 FID_PASSES=5 FID_LAT_PASSES=3
FID_RT="chrt -f 50"
# Latency: a series of its own on a server with 1 ms of work (~1000 req/s).
# With 200 us the server is not what saturates on this host: the client and
# loopback TCP top out near 1600 req/s while the worker is a third busy, so
# the p99 is flat (~1 ms: wake-ups and the client's own delays, ranked by
# noise) up to the levels where the delay builds outside the server's
# sockets, which the server cannot see.  Up to its own capacity, not past
# it: an overloaded step times a few batch reads (their p99 is about their
# maximum, read inside a bucket 12.5 % wide) against a client that drops
# the requests it gave up on.
# Six levels up to the server's capacity, at least 800 requests a step (the
# low levels run longer than FID_DUR): this host's own delays put p99 at
# 4-5 ms up to half load, and with 400 requests (p99 their fourth slowest)
# one delay on the client's side of one step reordered that flat stretch
# (Spearman 0.917 once).
FID_LAT_SVC_US=1000 FID_LAT_PCTS="20 35 50 65 80 95" FID_LAT_MIN_REQS=800

ktap_plan 7
"$S" load > /dev/null
fid_run || ktap_note "the run failed"
fid_checks
fid_lat_checks
ktap_finished
