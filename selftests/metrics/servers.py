#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# servers.py - host-servers.sh's figures: the table of one server's load
# levels, its three checks, and all of them as JSON.
#
# ROWS is one line per load level, whitespace-separated:
#   server level client_n server_n sg_n iv_n client_p99_us sg_p99_us span_s
# (server_n "-" where the server keeps no count of its own; sg_p99_us "-"
# when slackgov timed nothing).
#
# Usage: servers.py table ROWS SERVER      the table, one line per level
#        servers.py check ROWS SERVER WHAT  exit 0 if WHAT holds (counts, p99,
#                                           rank), a one-line reason on stdout
#        servers.py json ROWS OUT META      every server's rows and checks in
#                                           OUT; META: JSON of the run's facts
import json
import sys

COUNT_TOL = 0.02	# slackgov's count within 2 % of the reference, at every level
RANK_MIN = 0.95		# Spearman's rho of server-side against client p99

FIELDS = ("server", "level", "client_n", "server_n", "sg_n", "iv_n",
	  "client_p99_us", "sg_p99_us", "span_s")


def num(s):
	if s == "-":
		return None
	v = float(s)
	return int(v) if v.is_integer() else v


def rows(path, server=None):
	out = []
	for line in open(path):
		f = line.split()
		if len(f) != len(FIELDS) or (server and f[0] != server):
			continue
		r = dict(zip(FIELDS, f))
		for k in FIELDS[2:]:
			r[k] = num(r[k])
		# the exact count: the server's own where it keeps one
		r["ref_n"] = r["server_n"] if r["server_n"] is not None else r["client_n"]
		r["ratio"] = r["sg_n"] / r["ref_n"] if r["ref_n"] else None
		out.append(r)
	return out


def ranks(v):
	"""Ranks from 1, ties given their mean rank."""
	order = sorted(range(len(v)), key=lambda i: v[i])
	r = [0.0] * len(v)
	i = 0
	while i < len(order):
		j = i
		while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
			j += 1
		for k in range(i, j + 1):
			r[order[k]] = (i + j) / 2 + 1
		i = j + 1
	return r


def spearman(x, y):
	"""Pearson's r of the ranks (exact with ties); None if either is constant."""
	rx, ry = ranks(x), ranks(y)
	n = len(x)
	mx, my = sum(rx) / n, sum(ry) / n
	sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
	sxx = sum((a - mx) ** 2 for a in rx)
	syy = sum((b - my) ** 2 for b in ry)
	return sxy / (sxx * syy) ** 0.5 if sxx and syy else None


def check(rs, what):
	"""(ok, reason) of one check over a server's levels."""
	if len(rs) < 4:
		return False, "%d load levels recorded, 4 needed" % len(rs)
	if what == "counts":
		# slackgov counts a request at its answer, the server (mostly) when
		# it reads it: when a closed-loop client stops, the requests it had
		# in flight are the server's and, answered to a closed connection or
		# not at all, not slackgov's (h2load -c 64 -m 10: 640 of ~60000).
		# So the band from the client's completed count to the server's, 2 %
		# wider on each side; with no server count, the client's alone.
		def out(r):
			lo = r["client_n"] if r["client_n"] is not None else r["ref_n"]
			if r["sg_n"] is None or lo is None or r["ref_n"] is None:
				return True
			return not lo * (1 - COUNT_TOL) <= r["sg_n"] <= max(lo, r["ref_n"]) * (1 + COUNT_TOL)
		bad = [r for r in rs if out(r)]
		worst = max(rs, key=lambda r: (out(r), abs((r["ratio"] or 0) - 1)))
		return not bad, "%d of %d levels outside the client's to the server's count +-%g %%; worst %s: %s counted, client %s, server %s (x%s)" % (
			len(bad), len(rs), COUNT_TOL * 100, worst["level"], fmt(worst["sg_n"]), fmt(worst["client_n"]),
			fmt(worst["server_n"]), fmt(worst["ratio"], "%.3f"))
	if what == "p99":
		bad = [r for r in rs if r["sg_p99_us"] is None or r["client_p99_us"] is None or
		       r["sg_p99_us"] > r["client_p99_us"]]
		desc = ", ".join("%s %s/%s" % (r["level"], fmt(r["sg_p99_us"], "%g"), fmt(r["client_p99_us"], "%g"))
				 for r in bad)
		return not bad, "%d of %d levels with server-side p99 over the client's%s" % (
			len(bad), len(rs), ": " + desc if desc else "")
	if what == "rank":
		if any(r["sg_p99_us"] is None or r["client_p99_us"] is None for r in rs):
			return False, "a level without a server-side p99"
		rho = spearman([r["client_p99_us"] for r in rs], [r["sg_p99_us"] for r in rs])
		return rho is not None and rho >= RANK_MIN, "Spearman rho %s over %d levels (>= %g)" % (
			"undefined" if rho is None else "%.3f" % rho, len(rs), RANK_MIN)
	raise SystemExit("servers.py: unknown check %s" % what)


def fmt(v, f="%d"):
	return "-" if v is None else f % v


def table(rs):
	yield "%-8s %10s %10s %10s %7s %10s %9s %9s %6s" % (
		"level", "client", "server", "slackgov", "ratio", "interval", "p99 cli", "p99 srv", "span")
	for r in rs:
		yield "%-8s %10s %10s %10s %7s %10s %9s %9s %6s" % (
			r["level"], fmt(r["client_n"]), fmt(r["server_n"]), fmt(r["sg_n"]),
			fmt(r["ratio"], "%.3f"), fmt(r["iv_n"]), fmt(r["client_p99_us"]),
			fmt(r["sg_p99_us"]), fmt(r["span_s"], "%.2f"))


def main(argv):
	cmd = argv[1] if len(argv) > 1 else ""
	if cmd == "table" and len(argv) == 4:
		for line in table(rows(argv[2], argv[3])):
			print(line)
	elif cmd == "check" and len(argv) == 5:
		ok, why = check(rows(argv[2], argv[3]), argv[4])
		print(why)
		return 0 if ok else 1
	elif cmd == "json" and len(argv) == 5:
		doc = json.loads(argv[4])
		doc["servers"] = {}
		for r in rows(argv[2]):
			s = doc["servers"].setdefault(r["server"], {"levels": []})
			s["levels"].append(r)
		for name, s in doc["servers"].items():
			s["checks"] = {}
			for what in ("counts", "p99", "rank"):
				ok, why = check(s["levels"], what)
				s["checks"][what] = {"ok": ok, "why": why}
		with open(argv[3], "w") as f:
			json.dump(doc, f, indent=1)
			f.write("\n")
	else:
		sys.stderr.write("usage: servers.py { table ROWS SERVER | check ROWS SERVER WHAT | json ROWS OUT META }\n")
		return 2
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
