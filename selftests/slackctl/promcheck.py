#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# promcheck.py FILE - check Prometheus text exposition format 0.0.4 (the
# project's own checker, for where promtool is not installed): UTF-8
# throughout, HELP and TYPE before a family's samples, one TYPE per family,
# each family's samples in one group, no repeated series, valid metric and
# label names, quoted label values with only the format's escapes (\\ \"
# \n), float values; counters named _total; histograms as _bucket (with an
# le label, cumulative counts, a +Inf bucket), _sum and _count (= +Inf).
# Exit 1 with the bad line.
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(rf"^({NAME})(\{{{LABEL}(?:,{LABEL})*\}})? (\S+)( -?\d+)?$")
PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')
typed, helped, seen, series = {}, set(), set(), set()
buckets, counts = {}, {}	# histogram: (family, labels without le) -> [(le, v)], count
current = None
try:
    text = open(sys.argv[1], "rb").read().decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit(f"not UTF-8: {e}")


def family_of(name):
    for sfx in ("_bucket", "_sum", "_count"):
        base = name[: -len(sfx)]
        if name.endswith(sfx) and typed.get(base) in ("histogram", "summary"):
            return base, sfx
    return name, ""


for n, line in enumerate(text.split("\n"), 1):
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
        if parts[3] == "counter" and not parts[2].endswith("_total"):
            bad("a counter's name ends in _total")
        typed[parts[2]] = parts[3]
    elif line.startswith("#") or not line:
        continue
    else:
        m = SAMPLE.match(line)
        if not m:
            bad("not a sample")
        fam, sfx = family_of(m.group(1))
        if fam not in typed:
            bad("sample without TYPE")
        try:
            value = float(m.group(3))
        except ValueError:
            bad("value is not a float")
        if fam != current and fam in seen:
            bad("family's samples not in one group")
        if (m.group(1), m.group(2)) in series:
            bad("repeated series")
        current = fam
        series.add((m.group(1), m.group(2)))
        seen.add(fam)
        labels = dict(PAIR.findall(m.group(2) or ""))
        if typed[fam] == "histogram":
            le = labels.pop("le", None)
            key = (fam, tuple(sorted(labels.items())))
            if sfx == "_bucket":
                if le is None:
                    bad("a bucket without le")
                buckets.setdefault(key, []).append((float(le), value))
            elif "le" in (m.group(2) or ""):
                bad("le on _sum or _count")
            elif sfx == "_count":
                counts[key] = value
for key, bs in buckets.items():
    bs.sort()
    if bs[-1][0] != float("inf"):
        sys.exit(f"{key}: no +Inf bucket")
    if any(b[1] > c[1] for b, c in zip(bs, bs[1:])):
        sys.exit(f"{key}: bucket counts are not cumulative")
    if counts.get(key) != bs[-1][1]:
        sys.exit(f"{key}: _count is not the +Inf bucket")
sys.exit(0)
