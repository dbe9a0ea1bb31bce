#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""badinput.py - bad input for every slackctl command that takes an argument.

Usage: badinput.py SLACKCTL COMM CGROUP_ID

Generates command lines whose numbers, units, SLOs, names or words are bad
(signs, whitespace, overflow, wrong units, fractions of the unit, values just
out of range, junk, escape sequences), runs each as text and as -j, and
checks that every one fails the documented way: a non-zero exit, nothing on
stdout and one "Error: " line on stderr (text), one {"error": ...} document
on stdout and nothing on stderr (-j).  COMM names a watched target, CGROUP_ID
a cgroup id nothing watches.  Prints "runs N" and one "bad: ..." line per
command line that did not fail so; exits 1 if there was one.
"""
import json
import subprocess
import sys

S, COMM, CGID = sys.argv[1], sys.argv[2], sys.argv[3]

# numbers that no numeric field takes
BAD_NUMBERS = [
    "", " ", "-1", "+1", "-0", " 1", "1 ", "\t1", "1\n", "\n1", " -18446744073709551615",
    "-18446744073709551615", "18446744073709551616", "99999999999999999999999999999999",
    "184467440737095516160", "0x10", "1e3", "1.", ".5", "1..5", "1,5", "1_000", "inf", "nan",
    "abc", "%", "ms", "1 ms", "1MS", "1mss", "1 %", "10%%", "\x1b[2J", "1\x1b[0m",
    "\u0661", "\uff11", "1\u00a0", "5\n5", "1.0000000000000000000001", "0.", "-", "--1",
]
KNOBS = {  # name: bad values of its own (units and ranges)
    "setpoint": ["1001", "100.1%", "1ms", "0.5", "1844674407370955162%"],
    "kp": ["10001", "1%", "1ms", "0.5", "1.0"],
    "ki": ["10001", "1%"],
    "kd": ["10001", "1%"],
    "deadband": ["501", "50.1%", "1us"],
    "sat_cv": ["1000001", "0.1", "1s"],
    "stale_ms": ["4", "4ms", "61s", "0.5ms", "1500us", "1%"],
    "safe_khz": ["100000001", "1%", "1ms", "1.5"],
    "rate_limit_us": ["1000001", "2s", "1.5us", "1ns", "1%"],
    "idle_tight_slack": ["1001", "100.5%"],
    "idle_relax_slack": ["1001", "-1%"],
    "idle_latency_us": ["100001", "101ms", "0.5us"],
    "ff_gain": ["10001", "1%"],
    "slo_margin": ["901", "90.1%"],
    "slo_gain": ["4001", "1%"],
    "window": ["10000000001", "11s", "0.5ns", "1%", "1.5"],
    "window_sends": ["1000001", "1.5", "1%", "1ms", "10.0"],
}
BAD_SLOS = [
    "0", "0ms", "0us", "0.0s", "17s", "16777216us", "16777216", "1.5us", "0.5us", "p0:1ms",
    "p100:1ms", "p101:1ms", "p99.999:1ms", "p:1ms", "p99:", "p99", "99:1ms", "p-1:1ms",
    "p 99:1ms", "p99: 1ms", "p99:-1ms", "p99:1ms:", "P99:1ms", "p99%:1ms", "p99:1%", "p99.9:0.5us",
    "p50:p50:1ms", ":1ms", "1ms:p99", "p0.001:1ms", "p99.99.9:1ms", "none", "p99:none", "2ms ",
    " 2ms", "-2ms", "\x1b[2J", "p\u0669\u0669:1ms",
] + [n for n in BAD_NUMBERS if n not in ("1.",)]


def cmdlines():
    gov = [k for k in KNOBS]
    for k in gov:
        for v in BAD_NUMBERS + KNOBS[k]:
            yield ["set", k, v]
            yield ["set", "--check", k, v]
    for v in BAD_NUMBERS + KNOBS["setpoint"]:
        yield ["target", "add", "--comm", "sgbad", "--setpoint", v]
        yield ["target", "set", "--comm", COMM, "--setpoint", v]
    for v in BAD_SLOS:
        yield ["target", "add", "--comm", "sgbad", "--slo", v]
        if v != "none":
            yield ["target", "set", "--comm", COMM, "--slo", v]
    for v in BAD_NUMBERS + ["0", "4194305", "2147483648", "1.0", "1.5"]:  # integers only
        yield ["target", "add", "--pid", v]
        yield ["target", "del", "--pid", v]
    for v in BAD_NUMBERS + ["1024", "4294967296", "0.0", "1.0"]:
        yield ["target", "del", "--slot", v]
        yield ["target", "set", "--slot", v, "--slo", "2ms"]
    for v in BAD_NUMBERS + ["0", "18446744073709551616", CGID]:
        if v.strip() and v[0].isdigit() or v == "":
            yield ["target", "del", "--cgroup", v]
    for v in ["", "abcdefghijklmnop", "sgbad-not-there"]:
        yield ["target", "del", "--comm", v]
    for v in BAD_NUMBERS:
        if v.startswith("-"):
            continue	# an option to status, not a value: a usage error all the same
        yield ["status", "--watch", v]
        yield ["status", "--interval", v]
    for v in ["", "bogus", "On", "on ", "1", "\x1b[2J"]:
        yield ["load", "--feed", v]
    yield from ([w] for w in ["frobnicate", "s", "stat", "t", "\x1b[2J", "", "-"])
    yield from (["target", w] for w in ["frob", "", "a", "s", "\x1b]0;x\x07"])
    yield from (["get", w] for w in ["nosuchknob", "", "setpoint extra", "\x1b[2J"])
    yield ["get", "window", "extra"]
    yield ["stats", "--prom", "extra"]
    yield ["stats", "--bogus"]
    yield ["version", "extra"]
    yield ["help", "extra"]
    yield ["unload", "extra"]
    yield ["target", "list", "extra"]
    yield ["target", "add", "--comm", "sgbad", "extra"]
    yield ["target", "add", "--comm", "sgbad", "--pid", "1"]
    yield ["target", "add", "--comm", ""]
    yield ["target", "add", "--comm", "abcdefghijklmnop"]
    yield ["target", "add", "--cgroup", "/nonexistent"]
    yield ["target", "add", "--slot", "1"]
    yield ["target", "set", "--comm", COMM]
    yield ["target", "del", "--comm", COMM, "--setpoint", "1"]
    yield ["target", "add"]
    yield ["target", "del"]
    yield ["--json=1", "status"]
    yield ["-x", "status"]
    yield ["--bogus"]


def run(args, js):
    argv = [S] + (["-j"] if js else []) + args
    try:
        p = subprocess.run(argv, capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "timed out"
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if p.returncode == 0:
        return "exit 0"
    if not js:
        if out:
            return "stdout: %r" % out[:200]
        if len(err.splitlines()) != 1 or not err.startswith("Error: "):
            return "stderr: %r" % err[:300]
        if any(c < " " or c > "~" for c in err.rstrip("\n")):
            return "stderr not printable ASCII: %r" % err[:300]
        return None
    if err:
        return "-j stderr: %r" % err[:200]
    try:
        d = json.loads(out)
    except ValueError:
        return "-j stdout not JSON: %r" % out[:200]
    if list(d) != ["error"]:
        return "-j stdout: %r" % out[:200]
    return None


n = 0
failed = 0
for args in cmdlines():
    for js in (False, True):
        n += 1
        why = run(args, js)
        if why:
            failed += 1
            print("bad: slackctl %s%r: %s" % ("-j " if js else "", args, why))
print("runs %d" % n)
sys.exit(1 if failed else 0)
