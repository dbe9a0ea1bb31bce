#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""reportcheck.py - the demo report's figures, recomputed from steps.csv.

  reportcheck.py make SEED SCENARIO STEPS_CSV   write a seeded steps.csv
  reportcheck.py check STEPS_CSV REPORT SLO     check REPORT against it

SCENARIO: "hold" (slack holds the SLO within capacity), "mixed" (each
governor misses in some steps), "incomplete" (no slack rows).  check
recomputes, independently of report.awk, what selftests/demo/report.awk's
header comment defines: the steps within capacity (their share and the
previous step's at most 100 %), how many of them each governor held the SLO
in, slack's energy per request over them against performance's and
schedutil's, the per-step comparison lines and the table's rows; it exits 1
and says what differs when the report does not carry those figures.
"""
import csv
import random
import re
import sys

GOVS = ("performance", "schedutil", "slack")
SHARES = (20, 40, 70, 130, 20)	# the demo's default ramp
COLS = ("gov,step,rate,rps,p50_us,p99_us,p999_us,energy_j,energy_j_per_req,mean_khz,idle,"
        "slo_windows,slo_over,srv_p99_us,pstates,load_pct").split(",")


def make(seed, scenario, path):
    rnd = random.Random(seed)
    slo = 3000
    cap = rnd.randint(700, 1000)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLS)
        for g in GOVS:
            if scenario == "incomplete" and g == "slack":
                continue
            for i, share in enumerate(SHARES, 1):
                rate = cap * share // 100
                if share > 100:
                    p99 = rnd.uniform(2, 20) * slo
                elif scenario == "hold" and g != "schedutil":
                    p99 = rnd.uniform(0.2, 0.99) * slo
                else:
                    p99 = rnd.uniform(0.5, 1.6) * slo
                reqs = rate * 5 + rnd.randint(-20, 20)
                epr = rnd.uniform(0.0008, 0.003)
                ej = epr * reqs
                w.writerow([g, i, rate, rate, f"{p99 / 3:.1f}", f"{p99:.1f}", f"{p99 * 1.3:.1f}",
                            f"{ej:.4f}", f"{epr:.6f}", rnd.randint(1000000, 3000000), "C1=10",
                            "", "", "", "3000=1000", share])
    print(slo)


def fail(msg):
    print(f"# reportcheck: {msg}")
    sys.exit(1)


def check(steps_csv, report, slo):
    rows = list(csv.DictReader(open(steps_csv)))
    text = open(report).read()
    share = {int(r["step"]): int(r["load_pct"]) for r in rows}
    by = {(r["gov"], int(r["step"])): r for r in rows}
    steps = sorted(share)
    govs = {r["gov"] for r in rows}

    def held(g, s):
        return float(by[g, s]["p99_us"]) <= slo

    # the table: a row per step, with each governor's p99 and its mark
    for s in steps:
        m = re.search(rf"^\s+{s}\s+{share[s]}%\s+\d+ \|(.*)$", text, re.M)
        if not m:
            fail(f"no table row for step {s}")
        cells = m.group(1).split("|")
        order = list(dict.fromkeys(r["gov"] for r in rows))	# as the CSV has them
        for g, cell in zip(order, cells):
            p = by[g, s]
            want = f"{float(p['p99_us']):.0f}{' ' if held(g, s) else '*'}"
            if want not in cell:
                fail(f"step {s}, {g}: table cell '{cell.strip()}' lacks '{want.strip()}' (SLO mark)")
    if govs != set(GOVS):
        if "Headline: none, the run is incomplete" not in text:
            fail("an incomplete run without the incomplete headline")
        print("# incomplete run: no headline, as it should")
        return
    within = [s for s in steps if share[s] <= 100 and (s == 1 or share.get(s - 1, 0) <= 100)]
    # per-step lines: slack against the other two (compared with spaces collapsed)
    flat = " ".join(text.split())
    for s in steps:
        sl, pf, su = (float(by[g, s]["energy_j_per_req"]) for g in ("slack", "performance", "schedutil"))
        want = (f"step {s}, {share[s]} % ({by['slack', s]['rate']} req/s): {100 * (sl / pf - 1):+.1f} % "
                f"vs performance, {100 * (sl / su - 1):+.1f} % vs schedutil; SLO "
                f"{'held' if held('slack', s) else 'MISSED'} by slack, "
                f"{'held' if held('performance', s) else 'missed'} by performance, "
                f"{'held' if held('schedutil', s) else 'missed'} by schedutil")
        if want not in flat:
            fail(f"step {s}: no line '{want}'")
    # the headline
    e = {g: sum(float(by[g, s]["energy_j"]) for s in within) for g in GOVS}
    r = {g: sum(float(by[g, s]["energy_j"]) / float(by[g, s]["energy_j_per_req"]) for s in within)
         for g in GOVS}
    n = {g: sum(held(g, s) for s in within) for g in GOVS}
    x = e["slack"] / r["slack"]

    def than(v, who):
        return f"{abs(v):.1f} % {'below' if v < 0 else 'above'} {who}'s"

    head = " ".join(text[text.index("Headline:"):].split("\n\n")[0].split())
    want = (f"Headline: within capacity (steps {' '.join(map(str, within))}), slack held the SLO in "
            f"{n['slack']} of {len(within)} steps, performance in {n['performance']}, schedutil in "
            f"{n['schedutil']}; slack's modeled energy per request was "
            f"{than(100 * (x / (e['performance'] / r['performance']) - 1), 'performance')} and "
            f"{than(100 * (x / (e['schedutil'] / r['schedutil']) - 1), 'schedutil')}.")
    if not head.startswith(want):
        fail(f"headline\n#   is:     {head}\n#   wanted: {want}")
    for s in steps:
        if s in within:
            continue
        p = [f"{float(by[g, s]['p99_us']):.0f}" for g in GOVS]
        m = re.search(rf"Step {s} \({share[s]} %, [^)]*\): client p99 {p[0]} us under performance, "
                      rf"{p[1]} under schedutil, {p[2]} under slack\.", flat)
        if not m:
            fail(f"no sentence for step {s} outside capacity with p99s {p}")
    print(f"# headline and {len(steps)} steps' figures are those of {steps_csv}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "make":
        make(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)
