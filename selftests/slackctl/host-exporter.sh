# SPDX-License-Identifier: GPL-2.0
# host-exporter.sh - the Prometheus export (issue 17, issue 14 item 3):
# `slackctl exporter` serves /metrics; two scrapes under load pass the
# metrics checker (promtool when installed, else promcheck.py), every
# counter only grows, and the requests counter's rate over the scrape
# interval is within 2% of the client's RPS.  `stats --prom --output FILE`
# writes the file whole (rename) and leaves nothing else; a non-UTF-8
# process name is escaped; a port in use and an unwritable --output fail
# with one line and change nothing.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"

B=$SG_BUILD/selftests
SCRAPE="python3 $SG_TOP/selftests/slackctl/scrape.py"
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
sg_defer "$S unload"
jget() { python3 "$JC" get "$1" "$2"; }
if command -v promtool > /dev/null; then
	check_metrics() { promtool check metrics < "$1" > pc.out 2>&1 &&
		python3 "$SG_TOP/selftests/slackctl/promcheck.py" "$1" >> pc.out 2>&1; }
else
	ktap_note "promtool not installed (Debian: prometheus): promcheck.py only"
	check_metrics() { python3 "$SG_TOP/selftests/slackctl/promcheck.py" "$1" > pc.out 2>&1; }
fi

# 6000 req/s (Poisson) for 9 s, scrapes 6 s apart inside the run: the two
# rates share most requests, sqrt((1/6 - 1/9) / 6000) = 0.3% apart; the
# counter moves at window closes (10 ms: 0.17% of 6 s per scrape).
RATE=6000 DUR=9

ktap_plan 22
ktap_run_ok "slackctl load" "$S" load
start_server "$B/sgserver" -t 2 -s 10
ktap_run_ok "target add --pid on the running server" "$S" target add --pid $SPID
# a process name that is not UTF-8 (issue 14 item 3); nothing runs under it
ktap_run_ok "target add --comm with a non-UTF-8 name" "$S" target add --comm "$(printf 'a\377\376b')"

"$S" exporter --listen 127.0.0.1:0 > exp.out 2> exp.err &
EP=$!
sg_defer "kill $EP"
for i in $(seq 1 20); do grep -q serving exp.out && break; sleep 0.1; done
EPORT=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' exp.out)
ktap_check '[ -n "$EPORT" ]' "exporter --listen 127.0.0.1:0 says where it serves ($(cat exp.out exp.err))"
URL=http://127.0.0.1:$EPORT/metrics

"$B/sgclient" -p "$PORT" -r $RATE -d $DUR -c 4 -j > client.json &
C=$!
sleep 1.5
read -r t1 ctype1 <<EOF
$($SCRAPE get "$URL" s1.txt)
EOF
sleep 6
read -r t2 ctype2 <<EOF
$($SCRAPE get "$URL" s2.txt)
EOF
wait $C

ktap_eq "text/plain; version=0.0.4; charset=utf-8" "$ctype1" "/metrics is the text format 0.0.4"
ktap_check 'check_metrics s1.txt || { sed "s/^/# /" pc.out; false; }' "the first scrape passes the metrics checker"
ktap_check 'check_metrics s2.txt || { sed "s/^/# /" pc.out; false; }' "the second scrape passes the metrics checker"
n=$($SCRAPE counters s1.txt s2.txt 2> cnt.err)
ktap_check '[ -n "$n" ] && [ "$n" -gt 30 ]' "all $n counter series only grew between the scrapes $(cat cnt.err)"
series='slackgov_target_requests_total{target="pid '$SPID'"}'
r1=$($SCRAPE value s1.txt "$series")
r2=$($SCRAPE value s2.txt "$series")
rate=$(awk -v a="$r1" -v b="$r2" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.1f", (b - a) / (t2 - t1) }')
crps=$(jget client.json 'd["rps"]')
ktap_note "requests_total $r1 -> $r2 in $(awk -v a=$t1 -v b=$t2 'BEGIN { print b - a }') s: $rate req/s; client $crps req/s"
ktap_check 'awk -v o="$rate" -v c="$crps" "BEGIN { exit !(o >= c * 0.98 && o <= c * 1.02) }"' \
	"rate(requests_total) over the scrape interval within 2% of the client's RPS"
ktap_check 'grep -q "^slackgov_target_request_latency_seconds_bucket{target=\"pid $SPID\",le=\"+Inf\"} " s2.txt &&
	grep -q "^slackgov_build_info{version=\"[^\"]*\",abi=\"[0-9]*\"} 1$" s2.txt' \
	"the latency histogram and build_info are there"
ktap_check '! grep -q recv_cv_ratio s2.txt' "the misnamed recv_cv_ratio is gone"
# the name's bytes \377 \376 as target list shows them (the text \xff\xfe),
# the backslashes escaped by the format
ktap_check 'grep -qF "{target=\"comm a\\\\xff\\\\xfeb\"}" s2.txt' \
	"a non-UTF-8 process name is escaped in its label"
ktap_check '[ "$(curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:$EPORT/other)" = 404 ]' \
	"another path is 404"

# -- bad input: one line, nothing changed
sc_fails 1 "a port in use" "Address already in use" exporter --listen 127.0.0.1:$EPORT
sc_fails 1 "a bad port" "bad port" exporter --listen 127.0.0.1:99999
ktap_check 'kill -0 $EP && $SCRAPE get "$URL" s3.txt > /dev/null' "the first exporter still serves"

# -- stats --prom --output FILE
mkdir -p out
ktap_run_ok "stats --prom --output FILE" "$S" stats --prom --output out/slackgov.prom
ktap_check 'check_metrics out/slackgov.prom && [ "$(ls -A out)" = slackgov.prom ]' \
	"the file passes the checker and is alone in its folder (no temporary left)"
cp out/slackgov.prom keep.prom
sc_fails 1 "--output in a folder that cannot hold it" "cannot write" stats --prom --output /proc/slackgov.prom
sc_fails 1 "--output under a file" "cannot write" stats --prom --output out/slackgov.prom/x
ktap_check 'cmp -s keep.prom out/slackgov.prom && [ "$(ls -A out)" = slackgov.prom ]' \
	"after the failures the file is as it was, and nothing else is in its folder"

kill $EP
wait $EP
ktap_eq 0 $? "the exporter stops cleanly on SIGTERM"
ktap_finished
