# SPDX-License-Identifier: GPL-2.0
# trace.awk - slack's decisions through one bench cell, per second
# (bench.sh's trace_cell, BENCH_TRACE=1).
#
# Input: the trace buffer, whose marker line "bench cell start" opens the
# cell, then slackgov_decision events.  -v pre=REP,SHAPE,GOV,LOAD, -v w=the
# warm-up's seconds.  Output: one BENCH-TRACE row per second with decisions:
# PRE,second ("w" appended inside the warm-up),decisions,mean output (MHz),
# mean f_need (MHz, at most 10x the output),mean lat_q (us),largest lat_q
# (us),mean K (thousandths),largest window's mean queueing (us),boost
# decisions (slo-queue, saturated-*),requests timed,requests over T (the
# windows of the SLO target the decisions followed, each window once: a
# window's decisions share its slo_seq).
function ts(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return $i + 0; return -1 }
function val(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
/bench cell start/ { t0 = ts(); next }
/slackgov_decision:/ && t0 != "" {
	s = int(ts() - t0); if (s < 0) next; if (s > last) last = s
	u = val("u") / 1000; fn = val("f_need") / 1000; if (fn > 10 * u) fn = 10 * u
	q = val("lat_q_us") + 0; r = val("reason")
	n[s]++; su[s] += u; sf[s] += fn; sq[s] += q; if (q > mq[s]) mq[s] = q
	sk[s] += val("k"); qu = val("queue_us") + 0; if (qu > mx[s]) mx[s] = qu
	if (r ~ /^(slo-queue|saturated)/) b[s]++
	w_id = val("slo_seq"); if (w_id != last_w) { nl[s] += val("nr_lat"); no[s] += val("nr_over"); last_w = w_id } }
END { for (s = 0; s <= last; s++) if (n[s])
	printf "BENCH-TRACE %s,%d%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", pre, s, s < w ? "w" : "", n[s],
		su[s] / n[s], sf[s] / n[s], sq[s] / n[s], mq[s], sk[s] / n[s], mx[s], b[s],
		nl[s], no[s] }
