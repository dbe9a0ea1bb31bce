#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - results.json and the rst tables of make sim, from sgsim's one
JSON object per cell (build/sim/cells.jsonl).

results.json: "cells", one record per cell and governor (workload spec,
cpus, workers, policy layout, load, governor, slo_us, p99_us,
energy_j_per_req, the static oracle's and the bound's figures);
"verdicts", one per cell against issue 48's goal (for slack as the BPF side
feeds it today, and for slack-cpu: the law fed each CPU's share);
"calibration", the calib cells against the guest bench's published cells
(Documentation/evaluation-results.rst, read by benchcells.py).  The rst:
the same as tables, which Documentation/simulation.rst includes."""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchcells  # noqa: E402

# the calibration's bounds: energy per request within 10 % of the bench's
# (issue 48); p99 within 25 %, the spread of the bench's own two cells of
# one configuration (performance and the 3000 MHz oracle cell of one run
# differ by up to 22 % on epoll, 41 % on thread, 10 % on memcached)
CAL_E = 0.10
CAL_P99 = 0.25
CAL_GOVS = ["performance", "schedutil", "slack"]


def load(path):
    cells = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                cells.append(json.loads(line))
    return cells


def family(cell):
    return cell["cell"].split("-")[0]


def flatten(cells):
    out = []
    for c in cells:
        orc = c.get("oracle")
        bnd = c.get("bound")
        for g, r in list(c["governors"].items()) + \
                [("fixed%s" % k, v) for k, v in c["fixed"].items()]:
            out.append({
                "cell": c["cell"], "workload": c["spec"], "platform": c["platform"],
                "cpus": c["cpus"], "workers": c["workers"], "policy": c["policy"],
                "targets": c["targets"], "load": c["load"],
                "rate_per_cpu": c.get("rate_per_cpu"), "governor": g,
                "slo_us": c["slo_us"], "p99_us": r["p99_us"],
                "server_p99_us": r["server_p99_us"],
                "energy_j_per_req": r["energy_j_per_req"], "mean_mhz": r["mean_mhz"],
                "slo_ok": r["slo_ok"], "boosts": r["boosts"], "changes": r["changes"],
                "oracle_mhz": orc["mhz"] if orc else None,
                "oracle_j_per_req": orc["energy_j_per_req"] if orc else None,
                "bound_j_per_req": bnd["energy_j_per_req"] if bnd else None,
            })
    return out


def lt(out, header, rows, widths=None):
    """a list-table"""
    out.append(".. list-table::")
    out.append("   :header-rows: 1")
    if widths:
        out.append("   :widths: " + " ".join(str(w) for w in widths))
    out.append("")
    for row in [header] + rows:
        out.append("   * - " + (row[0] or " "))
        for x in row[1:]:
            out.append("     - " + (x if x != "" else " "))
    out.append("")


def pct(x):
    return "%+.1f %%" % (100 * x)


# ---- the calibration ------------------------------------------------------------

def calibration(cells, bench):
    """per (workload, load, governor): the mean and range over the seeds"""
    agg = {}
    for c in cells:
        m = re.match(r"calib-(\w+)-(\d+)-s\d+$", c["cell"])
        if not m:
            continue
        wl, ld = m.group(1), int(m.group(2))
        for g, r in list(c["governors"].items()) + \
                [("fixed" + k, v) for k, v in c["fixed"].items()]:
            agg.setdefault((wl, ld, g), []).append(r)
    rows = []
    for (wl, ld, g), rs in sorted(agg.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        bc = bench.get(wl, {}).get("cells", {}).get((g, ld), {})
        if "mj" not in bc:
            continue
        es = [r["energy_j_per_req"] * 1e3 for r in rs]
        ps = [r["p99_us"][0] for r in rs]
        e, p = sum(es) / len(es), sum(ps) / len(ps)
        rows.append({
            "workload": wl, "load": ld, "governor": g,
            "bench_mj": bc["mj"], "sim_mj": e, "sim_mj_min": min(es), "sim_mj_max": max(es),
            "energy_diff": e / bc["mj"] - 1,
            "bench_p99_us": bc["p99_us"], "sim_p99_us": p, "p99_diff": p / bc["p99_us"] - 1,
            "bench_mhz": bc.get("mhz"), "sim_mhz": sum(r["mean_mhz"] for r in rs) / len(rs),
            "bench_slo_ok": bc["p99_us"] <= bench[wl]["slo_us"],
            "sim_slo_ok": p <= bench[wl]["slo_us"],
            "seeds": len(rs),
        })
    return rows


def order_of(rows, wl, ld, key):
    got = [(r[key], r["governor"]) for r in rows
           if r["workload"] == wl and r["load"] == ld and r["governor"] in CAL_GOVS]
    return [g for _, g in sorted(got)]


def cal_tables(out, rows, bench):
    out += ["Calibration against the guest bench", "-" * 35, ""]
    if not rows:
        out += ["(no calib cells in this run)", ""]
        return
    n_e = sum(1 for r in rows if abs(r["energy_diff"]) <= CAL_E)
    n_p = sum(1 for r in rows if abs(r["p99_diff"]) <= CAL_P99)
    gov_rows = [r for r in rows if r["governor"] in CAL_GOVS]
    n_ge = sum(1 for r in gov_rows if abs(r["energy_diff"]) <= CAL_E)
    out.append("Energy per request within 10 %% of the bench's: %d of %d cells (governors "
               "%d of %d, fixed frequencies %d of %d); p99 within 25 %%: %d of %d."
               % (n_e, len(rows), n_ge, len(gov_rows), n_e - n_ge, len(rows) - len(gov_rows),
                  n_p, len(rows)))
    out.append("")
    for wl in sorted({r["workload"] for r in rows}, key=["epoll", "thread", "memcached"].index):
        b = bench[wl]
        title = "``%s`` (bench: SLO %d us, capacity %d req/s)" % (wl, b["slo_us"], b["capacity"])
        out += [title, "~" * len(title), ""]
        govs = CAL_GOVS + sorted({r["governor"] for r in rows if r["workload"] == wl and
                                  r["governor"].startswith("fixed")},
                                 key=lambda g: int(g[5:]))
        body = []
        for g in govs:
            line = [g.replace("fixed", "") + (" MHz" if g.startswith("fixed") else "")]
            for ld in b["loads"]:
                r = [x for x in rows if x["workload"] == wl and x["load"] == ld and
                     x["governor"] == g]
                if not r:
                    line.append("")
                    continue
                r = r[0]
                line.append("%.3f / %.3f (%s%s); p99 %.0f / %d (%s%s)%s" % (
                    r["sim_mj"], r["bench_mj"], pct(r["energy_diff"]),
                    "" if abs(r["energy_diff"]) <= CAL_E else " **x**",
                    r["sim_p99_us"], r["bench_p99_us"], pct(r["p99_diff"]),
                    "" if abs(r["p99_diff"]) <= CAL_P99 else " **x**",
                    "; %.0f / %s MHz" % (r["sim_mhz"], r["bench_mhz"]) if r["bench_mhz"] and
                    not g.startswith("fixed") else ""))
            body.append(line)
        lt(out, ["sim / bench"] + ["%d %%" % ld for ld in b["loads"]], body)
        orders = []
        for ld in b["loads"]:
            bo = [g for g in sorted(CAL_GOVS, key=lambda g: b["cells"].get((g, ld), {}).get("mj", 1e9))
                  if (g, ld) in b["cells"]]
            so = order_of(rows, wl, ld, "sim_mj")
            orders.append("%d %%: bench %s, sim %s%s" % (
                ld, " < ".join(bo), " < ".join(so), "" if bo == so else " (**differs**)"))
        out.append("Order of energy per request: " + "; ".join(orders) + ".")
        out.append("")


# ---- the law at scale ------------------------------------------------------------------

def fig(r, unit):
    e = r["energy_j_per_req"] * (1e6 if unit == "uJ" else 1e3)
    p = max(r["p99_us"])
    return "%.1f, %.0f%s" % (e, p, "" if r["slo_ok"] else " **over**")


def verdict(v):
    if not v:
        return "-"
    miss = [k for k in ("slo", "oracle", "schedutil") if v.get(k) == "missed"]
    s = "x%.2f oracle" % v["vs_oracle"] if "vs_oracle" in v else "no oracle"
    if "vs_schedutil" in v:
        s += ", x%.2f schedutil" % v["vs_schedutil"]
    return ("**missed** %s; " % "+".join(miss) if miss else "met; ") + s


def scale_table(out, title, cells, unit):
    out += [title, "~" * len(title), ""]
    body = []
    for c in cells:
        g = c["governors"]
        o = c.get("oracle")
        b = c.get("bound")
        body.append([
            c["cell"].split("-", 1)[1],
            "%d %s, %d w" % (c["cpus"], c["policy"], c["workers"]),
            "%.0fk, %s" % (c.get("rate_per_cpu", 0) / 1000, "/".join(str(s) for s in c["slo_us"])),
        ] + [fig(g[n], unit) if n in g else "-" for n in
             ("performance", "schedutil", "ondemand", "slack", "slack-cpu")] + [
            "%d MHz, %.1f" % (o["mhz"], o["energy_j_per_req"] * (1e6 if unit == "uJ" else 1e3))
            if o else "none holds it",
            "%.1f" % (b["energy_j_per_req"] * (1e6 if unit == "uJ" else 1e3)) if b else "-",
            verdict(c.get("verdict")), verdict(c.get("verdict_cpu")),
        ])
    lt(out, ["cell", "CPUs, policy, workers", "req/s a core, SLO us",
             "performance %s, p99 us" % unit, "schedutil", "ondemand", "slack", "slack-cpu",
             "oracle", "bound", "slack: goal", "slack-cpu: goal"], body)


def ablation_table(out, cells):
    """ablation cells: per mechanism off (a row), its energy and p99 in each base cell"""
    out += ["Ablation", "-" * 8, ""]
    out.append("slack's energy per request and p99 (us), the means of three seeds: the "
               "whole law's (uJ; the guest's cells in mJ), then with one mechanism off, "
               "as the change of energy against the whole law's.  **over**: seeds whose "
               "p99 missed the SLO.")
    out.append("")
    base, variants = {}, []
    for c in cells:
        m = re.match(r"ablation-(.+)-(law|no-[a-z-]+|window-1ms)-s\d+$", c["cell"])
        if not m:
            continue
        base.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(c)
        if m.group(2) not in variants:
            variants.append(m.group(2))
    variants.sort(key=lambda v: (v != "law", v))

    def mean(cs, f):
        return sum(f(c["governors"]["slack"]) for c in cs) / len(cs)

    def energy(cs):
        return mean(cs, lambda r: r["energy_j_per_req"])

    body = []
    for v in variants:
        row = [v]
        for b, vs in base.items():
            cs, law = vs.get(v), vs.get("law")
            if not cs:
                row.append("")
                continue
            k = 1e3 if b.startswith("guest") else 1e6
            e = ("%.3g" % (energy(cs) * k) if v == "law" or not law
                 else pct(energy(cs) / energy(law) - 1))
            over = sum(1 for c in cs if not c["governors"]["slack"]["slo_ok"])
            row.append("%s, %.0f%s" % (e, mean(cs, lambda r: max(r["p99_us"])),
                                       " **over** %d/%d" % (over, len(cs)) if over else ""))
        body.append(row)
    row = ["oracle"]
    for b, vs in base.items():
        o = vs["law"][0].get("oracle") if vs.get("law") else None
        row.append("%d MHz, %.3g" % (o["mhz"], o["energy_j_per_req"] *
                                     (1e3 if b.startswith("guest") else 1e6)) if o else "-")
    body.append(row)
    lt(out, ["mechanism off"] + list(base), body)


def summary(cells):
    s = {}
    for key in ("verdict", "verdict_cpu"):
        met = [c["cell"] for c in cells if key in c and
               all(c[key].get(k) != "missed" for k in ("slo", "oracle", "schedutil"))]
        miss = [c["cell"] for c in cells if key in c and c["cell"] not in met]
        s[key] = {"met": met, "missed": miss}
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--bench", default=None)
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("cells")
    a = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bench_rst = a.bench or os.path.join(top, "Documentation", "evaluation-results.rst")
    cells = load(a.cells)
    bench = benchcells.parse(bench_rst) if os.path.exists(bench_rst) else {}
    cal = calibration(cells, bench)
    try:
        rev = subprocess.run(["git", "-C", top, "describe", "--always", "--dirty"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = ""
    scale = [c for c in cells if family(c) == "scale"]
    res = {"cells": flatten(cells),
           "verdicts": [{"cell": c["cell"], "slack": c.get("verdict"),
                         "slack_cpu": c.get("verdict_cpu")} for c in cells if "verdict" in c],
           "calibration": cal, "summary": summary(scale),
           "elapsed_s": a.elapsed, "jobs": a.jobs, "cpu_s": sum(c.get("cpu_s", 0) for c in cells),
           "commit": rev}
    with open(a.json, "w") as f:
        json.dump(res, f, indent=1)
    out = [".. SPDX-License-Identifier: GPL-2.0", "",
           ".. Generated by ``make sim`` (sim/report.py) from build/sim/results.json;",
           "   do not edit.  All energy is modeled.", "",
           "make sim at %s: %d cells, %.0f s of CPU, %d s on %d parallel jobs."
           % (rev or "?", len(cells), res["cpu_s"], a.elapsed, a.jobs), ""]
    cal_tables(out, cal, bench)
    out += ["The law at real scale", "-" * 21, ""]
    out.append("Per cell: modeled energy per request (uJ) and the p99 (us, the worst "
               "target's) of each governor; **over**: over the SLO.  The goal: the SLO "
               "held wherever performance holds it, within 5 % of the oracle's energy, "
               "no more than schedutil's wherever schedutil holds the SLO.")
    out.append("")
    if scale:
        sm = res["summary"]
        for key, name in (("verdict", "slack"), ("verdict_cpu", "slack-cpu")):
            out.append("%s: the goal met in %d of %d cells%s." % (
                name, len(sm[key]["met"]), len(sm[key]["met"]) + len(sm[key]["missed"]),
                (", missed in " + ", ".join("``%s``" % c[6:] for c in sm[key]["missed"]))
                if sm[key]["missed"] else ""))
            out.append("")
        scale_table(out, "Cells ``scale``", scale, "uJ")
    abl = [c for c in cells if family(c) == "ablation"]
    if abl:
        ablation_table(out, abl)
    check = [c for c in cells if family(c) == "check"]
    if check:
        out += ["The regression cells", "-" * 20, ""]
        scale_table(out, "Cells ``check``", check, "uJ")
    with open(a.table, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
