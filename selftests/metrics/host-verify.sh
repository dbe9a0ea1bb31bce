# SPDX-License-Identifier: GPL-2.0
# host-verify.sh - what the verifier walks for each program of the metrics
# object on the host kernel (selftests/tools/sgverify.c): at most 100000
# instructions processed per program, a tenth of the verifier's limit.  On
# this kernel they process 38000-63000 (Documentation/metrics.rst); a
# branch per bucket in a walk over the latency histogram had made it
# ~190000.  Loads each program alone, attaches and pins nothing.
. "$SG_TOP/selftests/lib/ktap.sh"

T=$SG_BUILD/selftests/sgverify
[ -x "$T" ] || ktap_skip_all "sgverify not built"
exec "$T" "$SG_BUILD/bpf/slackgov.bpf.o" 100000
