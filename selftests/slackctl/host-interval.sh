# SPDX-License-Identifier: GPL-2.0
# host-interval.sh - slackctl status's interval figures (issue 17): the
# project's server at 3 rates; the RPS of `slackctl -j status --interval 7s`
# (the interval figure, from the snaps ring), read once per level, is within
# 2% of the client's achieved RPS at every level, and R^2 >= 0.999 across
# the levels.  Bad --interval values fail with one line and change nothing.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"

B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
sg_defer "$S unload"
jget() { python3 "$JC" get "$1" "$2"; }

# Poisson arrivals: the interval (7 s, inside an 8.5 s run) and the run
# share most requests, so their rates differ by sqrt((1/7 - 1/8.5) / rate):
# 0.29% at 3000 req/s, and 2% is 7 of those.  A 10 ms window at the
# interval's edges moves 0.15%.
RATES="3000 7000 11000" DUR=8.5 READ_AT=8 IVAL=7s

ktap_plan 11
ktap_run_ok "slackctl load" "$S" load
start_server "$B/sgserver" -t 2 -s 10
ktap_run_ok "target add --pid on the running server" "$S" target add --pid $SPID

# -- bad input: one line, nothing changed (the windows map as it was)
for bad in 0 -5 abc 1x 99s; do
	sc_fails 1 "status --interval '$bad' is refused" "--interval" status --interval "$bad"
done
# not a byte-for-byte comparison of the live maps (windows close meanwhile):
# the target is there and the ring still has its slot
ktap_check '"$S" target list | grep -q "pid $SPID"' "after the bad input: the target is still watched"

pairs=""
for r in $RATES; do
	"$B/sgclient" -p "$PORT" -r $r -d $DUR -c 4 -j > client.$r.json &
	C=$!
	sleep $READ_AT
	"$S" -j status --interval $IVAL > status.$r.json
	wait $C
	crps=$(jget client.$r.json 'd["rps"]')
	iv='[t for t in d["targets"] if t["target"] == "pid '$SPID'"][0]["interval"]'
	orps=$(jget status.$r.json "$iv[\"rps\"]")
	span=$(jget status.$r.json "$iv[\"span_s\"]")
	ktap_note "rate $r: client $crps req/s; status interval $orps req/s over $span s"
	pairs="$pairs $crps:$orps:$span"
	sleep 1		# the next level starts after this one's answers
done

# every level: within 2 %, over a whole interval (>= 7 s)
bad=$(for p in $pairs; do echo "$p"; done | awk -F: '$2 < $1 * 0.98 || $2 > $1 * 1.02 || $3 < 7 { print }')
ktap_eq "" "$bad" "interval RPS within 2% of the client's at each of 3 rates"
r2=$(for p in $pairs; do echo "$p"; done | awk -F: '
	{ x[NR] = $1; y[NR] = $2; sx += $1; sy += $2 }
	END {
		mx = sx / NR; my = sy / NR
		for (i = 1; i <= NR; i++) {
			sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2; syy += (y[i] - my) ^ 2
		}
		printf "%.6f", sxy * sxy / (sxx * syy)
	}')
ktap_note "R^2 = $r2"
ktap_check 'awk -v r="$r2" "BEGIN { exit !(r >= 0.999) }"' "R^2 >= 0.999 across the levels"
ktap_run_ok "slackctl unload" "$S" unload
ktap_finished
