# SPDX-License-Identifier: GPL-2.0
# host-citations.sh - every document a tracked file cites is in the
# repository (issue 49 item 4: seven files cited a Markdown file that never
# was in it).  A citation is a name ending in .rst or .md, bare or under
# Documentation/; one under a variable's folder ($D/results.rst) is a file
# the test makes, not a citation.  A bare name is looked up in Documentation/
# and at the top.
. "$SG_TOP/selftests/lib/ktap.sh"

W=$PWD
cd "$SG_TOP" || ktap_skip_all "no $SG_TOP"
git rev-parse --git-dir > /dev/null 2>&1 || ktap_skip_all "not a git checkout"

# files tests write and then name, not documents
MADE="drift.rst"

ktap_plan 2
git grep -noE '(^|[^A-Za-z0-9_./$-])(Documentation/)?[A-Za-z0-9_-]+\.(rst|md)\b' > "$W/cites.txt"
# FILE:LINE:[boundary][Documentation/]NAME -> FILE:LINE NAME
missing=$(sed 's/^\([^:]*:[0-9]*\):[^A-Za-z0-9_-]\{0,1\}\(Documentation\/\)\{0,1\}/\1 /' "$W/cites.txt" |
	while read -r where name; do
		case " $MADE " in *" $name "*) continue ;; esac
		[ -e "Documentation/$name" ] || [ -e "$name" ] || echo "$where: $name"
	done)
n=$(wc -l < "$W/cites.txt")
ktap_cmp "$n" -gt 100 "the citations were found ($n)"
[ -z "$missing" ] || ktap_note "$missing"
ktap_eq "" "$missing" "every cited .rst and .md is in the repository"
ktap_finished
