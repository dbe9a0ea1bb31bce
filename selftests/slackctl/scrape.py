#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# scrape.py - the exporter test's client (host-exporter.sh).
#
#   scrape.py get URL OUT        GET URL into OUT; prints the monotonic time
#                                of the scrape (mid-request) and the
#                                Content-Type
#   scrape.py counters A B       every counter series of A (TYPE counter, and
#                                the histograms' _bucket/_sum/_count) is in B
#                                and did not decrease; prints how many
#   scrape.py value FILE SERIES  the value of one series ("name{labels}")
import sys
import time
import urllib.request


def parse(path):
    types, series = {}, {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ")
            types[name] = typ
        elif line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            series[key] = float(value)
    return types, series


def family(key, types):
    name = key.split("{", 1)[0]
    for sfx in ("_bucket", "_sum", "_count"):
        if name.endswith(sfx) and types.get(name[: -len(sfx)]) == "histogram":
            return name[: -len(sfx)]
    return name


if sys.argv[1] == "get":
    t0 = time.monotonic()
    with urllib.request.urlopen(sys.argv[2], timeout=10) as r:
        body = r.read()
        ctype = r.headers.get("Content-Type")
    t1 = time.monotonic()
    open(sys.argv[3], "wb").write(body)
    print(f"{(t0 + t1) / 2:.6f} {ctype}")
elif sys.argv[1] == "counters":
    ta, a = parse(sys.argv[2])
    tb, b = parse(sys.argv[3])
    n = 0
    for key, v in a.items():
        if ta.get(family(key, ta)) not in ("counter", "histogram"):
            continue
        if key not in b:
            sys.exit(f"{key}: gone in the second scrape")
        if b[key] < v:
            sys.exit(f"{key}: {v} -> {b[key]}")
        n += 1
    print(n)
elif sys.argv[1] == "value":
    print(parse(sys.argv[2])[1][sys.argv[3]])
