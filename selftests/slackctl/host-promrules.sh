# SPDX-License-Identifier: GPL-2.0
# host-promrules.sh - the Prometheus rules and the Grafana dashboard of
# contrib/ (issue 49 item 3) against the series slackctl's exporter really
# emits: promtool check rules, promtool test rules (the unit tests of
# slackgov.rules.test.yml), promtool check config of the example
# prometheus.yml; the dashboard's queries parse (promtool, as recording
# rules); every series and label the rules, their tests and the dashboard
# name is in a real scrape of the exporter under load (promrules.py names);
# and a real Prometheus scraping that exporter every second answers every
# recording rule and every dashboard query with at least one series
# (promrules.py query).  The host has no cpufreq and no powercap, so the
# exporter runs in a private mount namespace over a stand-in policy0 (under
# slack, 2 GHz) and a stand-in powercap zone whose counter a loop advances:
# its policy and energy families then have samples, as on a real server.
# Skips without promtool (Debian: prometheus); the live part without the
# prometheus binary.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"

B=$SG_BUILD/selftests
C=$SG_TOP/contrib
RULES=$C/prometheus/slackgov.rules.yml
DASH=$C/grafana/slackgov.json
PR="python3 $SG_TOP/selftests/slackctl/promrules.py"
command -v promtool > /dev/null || ktap_skip_all "promtool missing (Debian: apt-get install prometheus)"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
sg_defer "$S unload"
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# ok_out "desc" CMD...: one ktap line; CMD's output as notes when it fails
ok_out() {
	_d=$1
	shift
	if "$@" > out.txt 2>&1; then ktap_ok "$_d"; else sed 's/^/# /' out.txt; ktap_fail "$_d"; fi
}

ktap_plan 9
ok_out "promtool check rules slackgov.rules.yml" promtool check rules "$RULES"
ok_out "promtool test rules slackgov.rules.test.yml" promtool test rules "$C/prometheus/slackgov.rules.test.yml"
ok_out "promtool check config of the example prometheus.yml (and its rule file)" \
	promtool check config "$C/prometheus/prometheus.yml"
$PR rulesfile "$DASH" > dash.rules.yml 2> dash.err
ok_out "the dashboard is JSON and its $(grep -c 'record:' dash.rules.yml) queries parse (promtool check rules)" \
	promtool check rules dash.rules.yml

# -- a real exporter: a target under load, the stand-in sysfs
"$S" load > /dev/null
start_server "$B/sgserver" -t 2 -s 200
"$S" target add --pid $SPID --slo p99:5ms > /dev/null
"$S" target add --comm sgprom-none > /dev/null
STANDIN='
set -e
if ! ls -d /sys/devices/system/cpu/cpufreq/policy* > /dev/null 2>&1; then
	mount -t tmpfs sgprom /sys/devices/system/cpu/cpufreq
	d=/sys/devices/system/cpu/cpufreq
	mkdir -p $d/policy0/slack $d/slack
	echo slack > $d/policy0/scaling_governor
	echo 2000000 > $d/policy0/scaling_cur_freq
	for f in decisions boosts fallbacks; do echo 0 > $d/policy0/slack/$f; done
	echo 200 > $d/slack/slo_margin
fi
if ! cat /sys/class/powercap/*:*/energy_uj > /dev/null 2>&1; then
	if [ -d /sys/class/powercap ]; then pc=/sys/class/powercap; else pc=/sys/class; fi
	mount -t tmpfs sgprom $pc
	z=/sys/class/powercap/sgprom:0
	mkdir -p $z
	echo 262143328850 > $z/max_energy_range_uj
	echo package-0 > $z/name
	# 2 W: 0.5 J every 0.25 s
	e=1000000; echo $e > $z/energy_uj
	(while :; do e=$((e + 500000)); echo $e > $z/energy_uj.new; mv $z/energy_uj.new $z/energy_uj; sleep 0.25; done) &
	echo $! > energy.pid
fi
exec "$S" exporter --listen 127.0.0.1:0
'
S="$S" unshare -m --propagation private sh -c "$STANDIN" > exp.out 2> exp.err &
EP=$!
sg_defer "kill $EP"
for i in $(seq 1 30); do grep -q serving exp.out && break; sleep 0.1; done
[ -s energy.pid ] && sg_defer "kill $(cat energy.pid)"
EPORT=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' exp.out)
[ -n "$EPORT" ] || ktap_note "the exporter did not start: $(head -c 300 exp.out exp.err)"
"$B/sgclient" -p "$PORT" -r 200 -d 20 -c 2 -j > client.json 2> client.err &
CP=$!
sg_defer "kill $CP"
sleep 2
python3 "$SG_TOP/selftests/slackctl/scrape.py" get "http://127.0.0.1:$EPORT/metrics" scrape.txt > /dev/null 2>&1
ktap_check 'grep -q "^slackgov_policy_frequency_hertz{" scrape.txt && grep -q "^slackgov_energy_joules_total{" scrape.txt &&
	grep -q "^slackgov_target_slo_seconds{" scrape.txt && grep -q "^slackgov_target_requests_total{target=\"pid $SPID\"} [1-9]" scrape.txt' \
	"a real scrape with every family sampled ($(grep -vc '^#' scrape.txt 2> /dev/null) samples)"
ok_out "every series and label the rules, their tests and the dashboard name is in the scrape" \
	$PR names scrape.txt "$RULES" "$C/prometheus/slackgov.rules.test.yml" "$DASH"
cat out.txt | tail -n 1 | sed 's/^/# /'

# -- a real Prometheus on that exporter, with the rules
if ! command -v prometheus > /dev/null; then
	ktap_skip "Prometheus answers every recording rule and dashboard query" "no prometheus binary"
	ktap_skip "no rule failed to evaluate" "no prometheus binary"
	ktap_skip "the counted requests reach Prometheus" "no prometheus binary"
	ktap_finished
fi
PP=$(freeport)
cat > prom.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
  - job_name: slackgov
    static_configs:
      - targets: ['127.0.0.1:$EPORT']
EOF
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$PP \
	--log.level=warn > prom.log 2>&1 &
PRP=$!
sg_defer "kill $PRP"
URL=http://127.0.0.1:$PP
# ready, then until the 5 min burn rate (two scrapes of a target with an SLO) has a value
for i in $(seq 1 40); do
	curl -sf "$URL/api/v1/query?query=slackgov:target_slo_burn:rate5m" 2> /dev/null | grep -q '"value"' && break
	sleep 0.5
done
sleep 4		# a few more scrapes: 10 s rates over at least 4 samples
ok_out "Prometheus answers every recording rule and dashboard query with a series" $PR query "$URL" "$RULES" "$DASH"
ktap_note "queries answered: $(grep -c '^ok' out.txt) of $(wc -l < out.txt)"
curl -sf "$URL/api/v1/rules" > rules.json
ktap_check '[ -s rules.json ] && ! grep -q "\"health\":\"err\"" rules.json' \
	"no rule failed to evaluate $(grep -o '"lastError":"[^"]\+"' rules.json | head -n 3)"
n=$(curl -sf "$URL/api/v1/query?query=slackgov_target_requests_total%7Btarget%3D%22pid%20$SPID%22%7D" |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)')
ktap_cmp "${n:-0}" -gt 100 "the counted requests reach Prometheus ($n for pid $SPID)"
ktap_finished
