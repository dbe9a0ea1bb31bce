# SPDX-License-Identifier: GPL-2.0
# host-docsync.sh - the copies of DOC blocks in Documentation/ (for readers
# without sphinx) are the DOC blocks of the sources, as scripts/doc-sync
# writes them; and the script notices a copy that drifted.
. "$SG_TOP/selftests/lib/ktap.sh"

ktap_plan 3
out=$("$SG_TOP/scripts/doc-sync" --check 2>&1)
ktap_eq 0 "$?" "every DOC block copy is current${out:+ ($out)}"
n=$(cat "$SG_TOP"/Documentation/*.rst | grep -c '^\.\. doc-sync: begin$')
ktap_cmp "$n" -ge 2 "copies found: metrics and control law ($n)"
# a drifted copy (one word changed in a scratch page) is reported
cp "$SG_TOP/Documentation/metrics.rst" drift.rst
sed -i '/^\.\. doc-sync: begin$/,/^\.\. doc-sync: end$/ s/Per target/Per TARGET/' drift.rst
"$SG_TOP/scripts/doc-sync" --check "$PWD/drift.rst" > drift.out 2>&1
rc=$?
ktap_check '[ $rc = 1 ] && grep -q "drift.rst: the copy of a DOC block is out of date" drift.out' \
	"a drifted copy is reported (exit $rc: $(cat drift.out))"
ktap_finished
