# SPDX-License-Identifier: GPL-2.0
# guest-knobs.sh - every tunable of the slack governor rejects malformed,
# negative, overflowing, empty and out-of-range writes with EINVAL and an
# unchanged value, accepts valid ones, and the per-policy stats exist.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"

# name:min:max, from SLACKGOV_GOV_KNOBS in include/uapi/slackgov.h (the list
# the module builds its attributes from), so a knob added there is tested here
# (a maximum named by a #define of the header, SLACKGOV_CV_MAX, is its value)
KNOBS=$(awk '$1 == "#define" && $3 ~ /^[0-9]+$/ { d[$2] = $3 }
	/^[[:space:]]*X\([a-z_]+,/ { x = $0; sub(/^[[:space:]]*X\(/, "", x); n = split(x, f, /,[[:space:]]*/)
		if (n < 5 || f[2] !~ /^[0-9]+$/ || f[3] !~ /^[0-9]+$/) next
		print f[1] ":" f[3] ":" (f[4] in d ? d[f[4]] : f[4]) }' "$SG_TOP/include/uapi/slackgov.h")
NK=$(echo "$KNOBS" | wc -l)
STATS="mode decisions boosts fallbacks last_slack last_freq last_reason last_slo_us last_lat_us
last_slo_k idle_qos"

ktap_plan $((2 * NK + 11))
ktap_note "knobs: $(echo $KNOBS)"
[ "$NK" -ge 15 ] || ktap_fail "the knob list of slackgov.h was not read ($NK knobs)"
sg_setup 0 1 || { ktap_fail "setup"; ktap_finished; }
ktap_check '[ -d $GOV ]' "tunables directory $GOV exists"
all_knobs() { for k in $KNOBS; do printf '%s=%s ' "${k%%:*}" "$(knob ${k%%:*})"; done; }
snapshot=$(all_knobs)

for k in $KNOBS; do
	name=${k%%:*} r=${k#*:}; lo=${r%%:*} hi=${r#*:}
	before=$(knob $name)
	bad=0
	# malformed, negative, overflowing, empty, fractional, out of range
	vals="abc -1 99999999999999999999 4294967296 1.5 0x10 $((hi + 1))"
	[ "$lo" -gt 0 ] && vals="$vals $((lo - 1))"
	for v in $vals "" "5 5"; do
		# the write must fail with EINVAL ("Invalid argument"), not another error
		err=$( (echo "$v" > "$GOV/$name") 2>&1 ) &&
			{ bad=$((bad + 1)); echo "# $name accepted '$v'"; continue; }
		case $err in
		*"Invalid argument"*) ;;
		*) bad=$((bad + 1)); echo "# $name: '$v' failed with: $err" ;;
		esac
	done
	ktap_eq "0:$before" "$bad:$(knob $name)" "$name rejects bad writes, value unchanged"
	# a valid value different from the current one, then the default back
	v=$lo; [ "$v" = "$before" ] && v=$hi
	[ $name = idle_tight_slack ] && v=$(knob idle_relax_slack)
	[ $name = idle_relax_slack ] && v=$(knob idle_tight_slack)
	knob $name $v
	got=$(knob $name)
	knob $name "$before"
	ktap_eq "$v:$before" "$got:$(knob $name)" "$name accepts $v and the old value back"
done

# cross-knob rule: idle_tight_slack <= idle_relax_slack
relax=$(knob idle_relax_slack) tight=$(knob idle_tight_slack)
knob idle_tight_slack $((relax + 1)) && ktap_fail "tight above relax accepted" ||
	ktap_eq "$tight" "$(knob idle_tight_slack)" "idle_tight_slack above idle_relax_slack is refused"
knob idle_relax_slack $((tight - 1)) && ktap_fail "relax below tight accepted" ||
	ktap_eq "$relax" "$(knob idle_relax_slack)" "idle_relax_slack below idle_tight_slack is refused"

# read-back of all knobs after the loop: unchanged, and the defaults
ktap_eq "$snapshot" "$(all_knobs)" "every knob reads back what it held before the bad writes"
ktap_eq "350 300 200 0 50 3000 50 0" \
	"$(for n in setpoint kp ki kd deadband sat_cv stale_ms safe_khz; do knob $n; done | xargs)" \
	"control knobs read back their defaults"
ktap_eq "150 350 20 0" \
	"$(for n in idle_tight_slack idle_relax_slack idle_latency_us ff_gain; do knob $n; done | xargs)" \
	"idle and feed-forward knobs read back their defaults"
ktap_eq "200 500" "$(knob slo_margin) $(knob slo_gain)" "SLO knobs read back their defaults"
ktap_cmp "$(knob rate_limit_us)" -gt 0 "rate_limit_us defaults from the driver ($(knob rate_limit_us) us)"
ktap_check '! (echo 1 > $(pol 1)/slack/decisions) 2>/dev/null' "stats are read-only"

missing=""
STATS=$(echo $STATS)
for s in $STATS; do [ -r "$(pol 1)/slack/$s" ] || missing="$missing $s"; done
ktap_eq "" "$missing" "policy stats: $STATS"
ktap_eq util "$(gstat 1 mode)" "a policy without targets is in util mode"
ktap_finished
