#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# jsoncheck.py - check slackctl's -j / -p output.  Exit 1 with the reason.
#
#   jsoncheck.py compact FILE   one JSON document on one line
#   jsoncheck.py pretty FILE    one document, every member on its own line,
#                               indented by 4 spaces per level (as bpftool -p)
#   jsoncheck.py error FILE     compact or pretty {"error": "non-empty text"} only
#   jsoncheck.py lines FILE N   at least N compact documents, one per line
#   jsoncheck.py same A B       A and B hold the same document
#   jsoncheck.py get FILE EXPR  print EXPR evaluated with d = the document
import json
import sys


def fail(why):
    sys.exit(f"jsoncheck {sys.argv[1]}: {why}")


def load(path):
    text = open(path, encoding="utf-8").read()
    try:
        return text, json.loads(text)
    except ValueError as e:
        fail(f"{path} is not one JSON document ({e}): {text[:200]!r}")


def compact(path):
    text, d = load(path)
    if text.count("\n") != 1 or not text.endswith("\n"):
        fail(f"{path}: not one line: {text[:200]!r}")
    return d


def pretty(path):
    text, d = load(path)
    lines = text.rstrip("\n").split("\n")
    if isinstance(d, (dict, list)) and d and len(lines) < 2:
        fail(f"{path}: a non-empty container on one line: {text[:200]!r}")
    depth = 0
    for n, line in enumerate(lines, 1):
        body = line.lstrip(" ")
        ind = len(line) - len(body)
        closing = body[:1] in ("}", "]")
        want = (depth - 1 if closing else depth) * 4
        if ind != want:
            fail(f"{path} line {n}: indent {ind}, want {want}: {line!r}")
        # depth after this line: count brackets outside strings
        instr = esc = False
        for c in body:
            if instr:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == '"':
                    instr = False
            elif c == '"':
                instr = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
    return d


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "compact":
        compact(path)
    elif mode == "pretty":
        pretty(path)
    elif mode == "error":
        text, _ = load(path)
        d = compact(path) if text.count("\n") == 1 else pretty(path)
        if not isinstance(d, dict) or list(d) != ["error"] or not isinstance(d["error"], str) \
           or not d["error"]:
            fail(f"{path}: not an error object: {text[:200]!r}")
    elif mode == "lines":
        docs = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
        if len(docs) < int(sys.argv[3]):
            fail(f"{path}: {len(docs)} documents, want {sys.argv[3]}")
    elif mode == "same":
        if load(path)[1] != load(sys.argv[3])[1]:
            fail(f"{path} and {sys.argv[3]} differ")
    elif mode == "get":
        d = load(path)[1]
        print(eval(sys.argv[3], {"d": d}))
    else:
        fail("unknown mode")


main()
