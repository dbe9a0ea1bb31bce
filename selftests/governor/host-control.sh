#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-control.sh - unit test of the control law: kmod/control.c built in
# user space against selftests/governor/unit/shim/ and driven by
# unit/control_test.c (fixed-point helpers, filters, the SLO law and its
# outer loop, PID steps, saturation and drain, several targets, stale and
# exited rules, feed-forward at its bounds, the SLO law closed over a
# simulated M/M/1 server).  Needs only a C compiler.
U=$SG_TOP/selftests/governor/unit
command -v "${CC:-gcc}" >/dev/null || { echo "1..0 # SKIP no C compiler"; exit 4; }
"${CC:-gcc}" -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-I"$U/shim" -I"$SG_TOP/include/uapi" -I"$SG_TOP/kmod" \
	"$U/control_test.c" -lm -o control_test || { echo "not ok 1 build"; exit 1; }
exec ./control_test
