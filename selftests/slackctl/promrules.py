#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""promrules.py - the Prometheus rules and the Grafana dashboard against a real scrape.

Usage: promrules.py names SCRAPE RULES RULES_TEST DASHBOARD
       promrules.py rulesfile DASHBOARD          (to stdout)
       promrules.py query URL RULES DASHBOARD

names: every series the rules, their unit tests' input series and the
dashboard's queries (panels and variables) name is one SCRAPE (a real
/metrics text) has a family for (a histogram's _bucket, _sum and _count), a
recording rule of RULES, or Prometheus' own "up"; every label they name
(matchers, by/without/on/ignoring/group_left, label_values(), legends,
$labels in annotations) is one of SCRAPE's samples carries, or the scrape's
job and instance, and a label in NAME{...} one that NAME's own samples carry;
the dashboard defines every $variable it uses and its panel ids are unique.
Exits 1 with one line per name that is not.

rulesfile: the dashboard's queries as recording rules (Grafana's variables
replaced: $__rate_interval 1m, $baseline 0.01, the others .*), for promtool
check rules to parse them.

query: each recording rule of RULES and each dashboard query (variables as
above, $__rate_interval 10s), asked of the Prometheus at URL, returns at
least one series; a query with "offset" (a week ago) only has to parse.
Prints one line per query (ok/EMPTY/ERROR, the series, the first one's
value, the query); exits 1 if one failed.

The YAML files are read as text (their expr, record and series lines), so
that no YAML module is needed: promtool checks the YAML itself.
"""
import json
import re
import sys
import urllib.parse
import urllib.request

KEYWORDS = {
    "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
    "group_left", "group_right", "inf", "nan", "Inf", "NaN",
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
    "count_values", "bottomk", "topk", "quantile",
}
SCRAPE_LABELS = {"job", "instance"}


def scrape_families(path):
    """series names, label names, and each series name's label names, of a /metrics text"""
    names, labels, per = set(), set(), {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            name, kind = m.groups()
            names.add(name)
            if kind == "histogram":
                names |= {name + "_bucket", name + "_sum", name + "_count"}
            continue
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s", line)
        if m:
            ls = set(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="', m.group(3) or ""))
            labels |= ls
            per.setdefault(m.group(1), set()).update(ls)
    return names, labels, per


def yaml_values(path, key):
    """the values of KEY: in a rules or rules-test file, folded ones joined"""
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)(?:- )?" + key + r":\s*(.*)$", line)
        if not m:
            continue
        ind, v = len(m.group(1)), m.group(2).strip()
        if v in (">-", ">", "|", "|-"):
            parts = []
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= ind + (2 if line.lstrip().startswith("- ") else 0):
                    break
                parts.append(nxt.strip())
            v = " ".join(p for p in parts if p)
        elif v[:1] in ("'", '"') and v[-1:] == v[:1]:
            v = v[1:-1]
        out.append(v)
    return out


def grafana(path):
    """(queries, label_values pairs, legend labels) of a dashboard"""
    d = json.load(open(path, encoding="utf-8"))
    exprs, lv, legends = [], [], set()

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                if t.get("expr"):
                    exprs.append(t["expr"])
                legends.update(re.findall(r"\{\{\s*(\w+)\s*\}\}", t.get("legendFormat", "")))
            walk(p.get("panels", []))
    walk(d.get("panels", []))
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.match(r"label_values\((.*),\s*(\w+)\)$", q.strip())
        if m:
            lv.append((m.group(1), m.group(2)))
        else:
            exprs.append(q)
    return exprs, lv, legends


def grafana_vars(expr, rate="1m"):
    expr = re.sub(r"\$__rate_interval|\$__interval|\$\{__rate_interval\}", rate, expr)
    expr = re.sub(r"\$\{?baseline\}?", "0.01", expr)
    return re.sub(r"\$\{?\w+\}?", ".*", expr)


def selectors(expr):
    """(series name, label names of its matchers) of each NAME{...} in an expression"""
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    return [(m.group(1), set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(2))))
            for m in re.finditer(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}", s)]


def promql_names(expr):
    """(series names, label names) an expression uses"""
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    s = re.sub(r"'(?:[^'\\]|\\.)*'", "''", s)
    labels = set()
    for m in re.finditer(r"\{([^}]*)\}", s):
        labels |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(1)))
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    grp = r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)"
    for m in re.finditer(grp, s):
        labels |= {x.strip() for x in m.group(1).split(",") if x.strip()}
    s = re.sub(grp, " ", s)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", s):
        tok, before, after = m.group(0), s[:m.start()][-1:], s[m.end():].lstrip()
        if before.isdigit() or before == "." or after.startswith("(") or tok in KEYWORDS:
            continue	# a number's exponent or a duration's unit, a function, a keyword
        names.add(tok)
    return names, labels


def names(scrape, rules, test, dash):
    have, have_labels, per = scrape_families(scrape)
    records = set(yaml_values(rules, "record"))
    known = have | records | {"up"}
    labels_ok = have_labels | SCRAPE_LABELS
    bad = []
    uses = []		# (where, names, labels)
    sels = []		# (where, series name, its matchers' labels)
    for e in yaml_values(rules, "expr"):
        uses.append(("rules", *promql_names(e)))
        sels += [("rules", *x) for x in selectors(e)]
    for a in re.findall(r"\$labels\.(\w+)", open(rules, encoding="utf-8").read()):
        uses.append(("rules' annotations", set(), {a}))
    for sr in yaml_values(test, "series"):
        n, lab = promql_names(sr)
        uses.append(("rules test input", n, lab))
        sels += [("rules test input", *x) for x in selectors(sr)]
    exprs, lv, legends = grafana(dash)
    for e in exprs:
        uses.append(("dashboard", *promql_names(grafana_vars(e))))
        sels += [("dashboard", *x) for x in selectors(grafana_vars(e))]
    for e, lab in lv:
        n, labs = promql_names(grafana_vars(e))
        uses.append(("dashboard variable", n, labs | {lab}))
        sels += [("dashboard variable", *x) for x in selectors(grafana_vars(e))]
        sels.append(("dashboard variable", next(iter(n)) if len(n) == 1 else "", {lab}))
    uses.append(("dashboard legend", set(), legends))
    # the dashboard's own consistency: variables defined, panel ids unique
    d = json.load(open(dash, encoding="utf-8"))
    defined = {v["name"] for v in d.get("templating", {}).get("list", [])}
    text = json.dumps(d)
    for v in sorted(set(re.findall(r"\$\{?(\w+)", text)) - defined):
        if not v.startswith("__"):
            bad.append(f"dashboard: variable ${v} is not defined in its templating")
    ids = []

    def panel_ids(panels):
        for p in panels:
            ids.append(p.get("id"))
            panel_ids(p.get("panels", []))
    panel_ids(d.get("panels", []))
    if len(ids) != len(set(ids)) or None in ids:
        bad.append(f"dashboard: panel ids not unique: {ids}")
    # a family's own labels, where the scrape has samples of it (a
    # recording rule's are the rules' business: promtool tests them)
    for where, n, ls in sels:
        if n in per:
            for lab in sorted(ls - per[n] - SCRAPE_LABELS):
                bad.append(f"{where}: {n} has no label {lab} (it has {', '.join(sorted(per[n])) or 'none'})")
    nn = nl = 0
    for where, ns, ls in uses:
        for n in sorted(ns - known):
            bad.append(f"{where}: series {n} is not one the exporter emits (nor a recording rule)")
        for lab in sorted(ls - labels_ok):
            bad.append(f"{where}: label {lab} is on no series of the scrape")
        nn += len(ns)
        nl += len(ls)
    for b in sorted(set(bad)):
        print(b)
    print(f"{len(exprs)} dashboard queries, {len(lv)} variables; {nn} series and {nl} label uses; "
          f"{len(have)} series names in the scrape, {len(records)} recording rules; {len(set(bad))} unknown")
    return 1 if bad else 0


def rulesfile(dash):
    exprs, lv, _ = grafana(dash)
    print("groups:\n  - name: dashboard\n    rules:")
    for i, e in enumerate(exprs + [e for e, _ in lv]):
        print(f"      - record: dashboard:query_{i}")
        print("        expr: " + json.dumps(grafana_vars(e)))
    return 0


def query(url, rules, dash):
    exprs, lv, _ = grafana(dash)
    qs = [(r, r) for r in yaml_values(rules, "record")]
    qs += [(e, grafana_vars(e, "10s")) for e in exprs + [e for e, _ in lv]]
    bad = 0
    for shown, q in qs:
        u = url.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
        try:
            r = json.load(urllib.request.urlopen(u, timeout=10))
        except Exception as e:		# an HTTP 400 is a query that does not parse
            r = {"status": "error", "error": str(e)}
        res = r.get("data", {}).get("result", []) if r.get("status") == "success" else None
        n = len(res) if res is not None else -1
        ok = n > 0 or (n == 0 and "offset" in q)
        bad += not ok
        first = f"{float(res[0]['value'][1]):.4g}" if n > 0 else "-"
        print(f"{'ok' if ok else 'EMPTY' if n == 0 else 'ERROR'} {n} {first} {shown[:150]}"
              + ("" if n >= 0 else f" ({r.get('error', '')[:200]})"))
    return 1 if bad else 0


if __name__ == "__main__":
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else (None, [])
    if cmd == "names" and len(args) == 4:
        sys.exit(names(*args))
    if cmd == "rulesfile" and len(args) == 1:
        sys.exit(rulesfile(*args))
    if cmd == "query" and len(args) == 3:
        sys.exit(query(*args))
    sys.exit(__doc__)
