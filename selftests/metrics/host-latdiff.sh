# SPDX-License-Identifier: GPL-2.0
# host-latdiff.sh - the server-side p99 between two readings of a target's
# cumulative latency counters (sgwin -d, which the bench and the demo use
# through lr_lat_diff): the earlier histogram is subtracted bucket by bucket,
# the p99 is read inside its bucket as the BPF side reads it, and bad input
# is refused.  Bucket 80 is [4096, 4608) us, bucket 88 [8192, 9216) us
# (slackgov_lat_lo(): 8 sub-buckets a power of two).  Needs nothing attached.
. "$SG_TOP/selftests/lib/ktap.sh"

W=$SG_BUILD/selftests/sgwin
[ -x "$W" ] || ktap_skip_all "sgwin not built"
ktap_plan 5

diff_of() { printf '%s\n%s\n' "$1" "$2" | "$W" -d; }

# 50 requests in bucket 80 before; 50 more there and 50 in bucket 88 after:
# the 100 between them are half and half, so p99 is 98 % of bucket 88's
# width into it (8192 + 1024 * 0.98), not 97 % as without the subtraction
A="total_lat=50 total_lat_ns=1 total_queue_ns=0 total_slo_windows=4 total_slo_over=1 hist=80:50"
B="lat total_lat=150 total_lat_ns=2 total_queue_ns=0 total_slo_windows=10 total_slo_over=2 hist=80:100,88:50"
ktap_eq "6 1 9195" "$(diff_of "$A" "$B")" "the windows, those over the SLO and p99 between two readings"
ktap_eq "0 0 0" "$(diff_of "$B" "$B")" "no request between them: p99 0"
ktap_run_fails "the readings the wrong way round are refused" diff_of "$B" "$A"
ktap_run_fails "a line that is not a lat line is refused" diff_of "$A" "now_ns=1 head=2"
ktap_run_fails "a bucket past the histogram is refused" diff_of "$A" "${B%hist=*}hist=80:100,999:1"
ktap_finished
