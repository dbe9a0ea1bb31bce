# SPDX-License-Identifier: GPL-2.0
# host-docerrors.sh - every error message slackctl, the service script and
# the module can print is documented (slackctl.rst ERRORS, admin-guide.rst Troubleshooting):
# the fixed text of each message, up to its first conversion, is in the docs.
. "$SG_TOP/selftests/lib/ktap.sh"

DOCS="$SG_TOP/Documentation/slackctl.rst $SG_TOP/Documentation/admin-guide.rst"
msgs=$( { grep -ho 'sc_err("[^"]*' "$SG_TOP"/userctl/*.c | sed 's/^sc_err("//'
	  grep -ho 'err "[^"]*' "$SG_TOP/scripts/slackgov-service" | sed 's/^err "//'
	  grep -ho 'echo "line $n: [^"]*' "$SG_TOP/scripts/slackgov-service" | sed 's/^echo "//'
	  grep -ho 'pr_\(err\|warn\)("[^"]*' "$SG_TOP"/kmod/*.c | sed 's/^pr_[a-z]*("//'; } |
	sed 's/%[^ ]*.*//; s/\$[a-zA-Z0-9_{}#]*.*//' | sed 's/[ :(]*$//' | awk 'length($0) >= 6' | sort -u)
n=$(echo "$msgs" | wc -l)
ktap_plan 2
ktap_cmp "$n" -gt 20 "messages found in the sources ($n)"
missing=$(echo "$msgs" | while IFS= read -r m; do grep -qF -- "$m" $DOCS || echo "$m"; done)
[ -z "$missing" ] || echo "$missing" | sed 's/^/# undocumented: /'
ktap_eq "" "$missing" "every message is documented"
ktap_finished
