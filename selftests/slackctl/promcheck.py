#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# promcheck.py FILE - check Prometheus text exposition format 0.0.4: HELP and
# TYPE before a family's samples, one TYPE per family, each family's samples
# in one group, no repeated series, valid metric and label names, quoted and
# escaped label values, float values.  Exit 1 with the bad line.
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(rf"^({NAME})(\{{{LABEL}(?:,{LABEL})*\}})? (\S+)( -?\d+)?$")
typed, helped, seen, series = {}, set(), set(), set()
current = None
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip("\n")
    def bad(why):
        sys.exit(f"line {n}: {why}: {line}")
    if line.startswith("# HELP "):
        name = line.split(" ", 3)[2]
        if not re.fullmatch(NAME, name) or name in helped:
            bad("bad or repeated HELP")
        helped.add(name)
    elif line.startswith("# TYPE "):
        parts = line.split(" ")
        if len(parts) != 4 or parts[3] not in ("counter", "gauge", "histogram", "summary", "untyped"):
            bad("bad TYPE")
        if parts[2] in typed or parts[2] in seen:
            bad("TYPE repeated or after samples")
        typed[parts[2]] = parts[3]
    elif line.startswith("#") or not line:
        continue
    else:
        m = SAMPLE.match(line)
        if not m:
            bad("not a sample")
        if m.group(1) not in typed:
            bad("sample without TYPE")
        try:
            float(m.group(3))
        except ValueError:
            bad("value is not a float")
        if m.group(1) != current and m.group(1) in seen:
            bad("family's samples not in one group")
        if (m.group(1), m.group(2)) in series:
            bad("repeated series")
        current = m.group(1)
        series.add((m.group(1), m.group(2)))
        seen.add(m.group(1))
sys.exit(0)
