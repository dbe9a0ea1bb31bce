# SPDX-License-Identifier: GPL-2.0
# host-latmath.sh - unit test of the latency histogram's math shared by the
# BPF side, slackctl and the tests (include/uapi/slackgov.h): bucket bounds,
# widths, the top bucket, and the interpolation of percentiles inside a
# bucket.  Runs selftests/tools/sglatmath (KTAP); needs nothing attached.
. "$SG_TOP/selftests/lib/ktap.sh"

T=$SG_BUILD/selftests/sglatmath
[ -x "$T" ] || ktap_skip_all "sglatmath not built"
exec "$T"
