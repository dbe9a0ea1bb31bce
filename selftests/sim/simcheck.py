#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""simcheck.py CELL.json EXPR - exit 0 when the Python expression EXPR holds
for one cell of sgsim (selftests/sim/host-sim.sh).  Names: g (the
governors' figures), f (the fixed P-states'), o (the oracle, None without
one), b (the bound), v and vc (the verdicts of slack and slack-cpu),
E(gov) (energy per request, J), P(gov) (the worst target's p99, us),
ok(gov) (every target within its SLO).  On failure prints what it read."""
import json
import sys

d = json.load(open(sys.argv[1]))
g, f = d["governors"], d["fixed"]
env = {
    "g": g, "f": f, "o": d.get("oracle"), "b": d.get("bound"),
    "v": d.get("verdict", {}), "vc": d.get("verdict_cpu", {}),
    "E": lambda n: g[n]["energy_j_per_req"],
    "P": lambda n: max(g[n]["p99_us"]),
    "ok": lambda n: g[n]["slo_ok"],
}
if eval(sys.argv[2], {}, env):
    sys.exit(0)
print("%s: %s does not hold" % (d["cell"], sys.argv[2]))
for n, r in g.items():
    print("  %-11s %.3f uJ/req, p99 %s us, slo_ok %s" % (
        n, r["energy_j_per_req"] * 1e6, r["p99_us"], r["slo_ok"]))
print("  oracle %s, bound %s, verdict %s, verdict_cpu %s" % (
    d.get("oracle"), d.get("bound"), d.get("verdict"), d.get("verdict_cpu")))
sys.exit(1)
