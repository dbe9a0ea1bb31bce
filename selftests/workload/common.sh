# SPDX-License-Identifier: GPL-2.0
# common.sh - helpers of the workload tests (sourced, not a test).

# jtest FILE EXPR: the Python expression EXPR holds for o, the first JSON
# object of FILE, or for objs, the list of its JSON objects one per line
# (keys as o.key)
jtest() {
	python3 -c '
import json, sys
class D(dict):
	__getattr__ = dict.__getitem__
objs = [json.loads(l, object_hook=D) for l in open(sys.argv[1]).read().splitlines()]
o = objs[0]
sys.exit(not eval(sys.argv[2]))' "$1" "$2"
}
