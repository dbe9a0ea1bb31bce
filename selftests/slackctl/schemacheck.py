#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""schemacheck.py - the JSON keys slackctl.rst documents against those slackctl prints.

Usage: schemacheck.py keys RST COMMAND
       schemacheck.py check [--all-seen] RST COMMAND JSON_FILE...

COMMAND is "status" (the block after ``slackctl -j status``::, in OUTPUT)
or a command of the "Other commands with ``-j``" block ("target add",
"target list", "load", ...).  The schema is read from RST each time, so
that what the page says is what is checked, and a key added to the tool
without its line in the page fails.

The page writes a schema as JSON with placeholders:  "key": N | null,
"key": null | {...} (a nested object), [{...}, ...] (a list of objects),
["key": S,] (a key printed only sometimes), "(as target add, ...)" (the
same keys as another command).  Keys are compared as paths (targets.window.
seq: the key seq of the object under targets' elements' window):

  undocumented   printed, not on the page                        (fails)
  not printed    on the page, its object printed, the key absent (fails)
  not seen       on the page, its object never printed (null, [])  (noted;
                 fails with --all-seen)

keys prints the documented paths, one a line ("?" after an optional one).
The documents of check are merged: give several (a pid, a comm and a
cgroup target; an interval that is null and one that is not) to see more.
"""
import json
import re
import sys


def block(rst, command):
    """the schema text of COMMAND from the page's OUTPUT section"""
    lines = open(rst, encoding="utf-8").read().split("\n")
    if command == "status":
        start = lines.index("``slackctl -j status``::") + 1
        out = []
        for line in lines[start:]:
            if line and not line.startswith(("\t", " ")):
                break
            out.append(line)
        return "\n".join(out)
    start = lines.index("Other commands with ``-j``::") + 1
    entries, name = {}, None
    for line in lines[start:]:
        if line and not line.startswith(("\t", " ")):
            break
        m = re.match(r"\t(\S.*?)(?:\s{2,}|\t)(\S.*)$", line)
        if m and not line.startswith("\t "):
            name = m.group(1).strip()
            entries[name] = m.group(2)
        elif name and line.strip():
            entries[name] += "\n" + line
    if command not in entries:
        sys.exit(f"schemacheck: {rst} documents no '{command}' output (it has: {', '.join(entries)})")
    text = entries[command]
    m = re.match(r"\(as (.+?), ", text)
    if m:			# target set: (as target add, with the new values)
        return block(rst, m.group(1))
    return text


def doc_keys(text):
    """{path: optional} of a schema's text: strings followed by ':' are keys"""
    keys = {}
    stack = []		# one entry per open bracket: ("{", path) or ("[", None)
    path = ()		# the object the keys now read belong to
    last = None		# the last key of that object: the name of a '{' after it
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            word = text[i + 1:j]
            k = j + 1
            while k < len(text) and text[k] in " \t\n":
                k += 1
            if k < len(text) and text[k] == ":":
                optional = bool(stack) and stack[-1][0] == "["
                keys[path + (word,)] = optional
                last = word
                k += 1
            i = k
            continue
        if c == "{":
            stack.append(("{", path, last))
            if last is not None:
                path = path + (last,)
            last = None
        elif c == "}":
            _, path, last = stack.pop()
        elif c == "[":
            stack.append(("[", path, last))
        elif c == "]":
            stack.pop()
        i += 1
    return keys


def printed(doc, path=(), seen=None, objs=None):
    """the key paths of a document and the paths of the objects printed"""
    seen = set() if seen is None else seen
    objs = set() if objs is None else objs
    if isinstance(doc, list):
        for e in doc:
            printed(e, path, seen, objs)
    elif isinstance(doc, dict):
        objs.add(path)
        for k, v in doc.items():
            seen.add(path + (k,))
            if isinstance(v, (dict, list)):
                printed(v, path + (k,), seen, objs)
    return seen, objs


def main():
    strict = "--all-seen" in sys.argv
    if strict:
        sys.argv.remove("--all-seen")
    if len(sys.argv) < 4 or sys.argv[1] not in ("keys", "check"):
        sys.exit(__doc__)
    keys = doc_keys(block(sys.argv[2], sys.argv[3]))
    if not keys:
        sys.exit(f"schemacheck: no keys in the page's '{sys.argv[3]}' schema")
    name = lambda p: ".".join(p)
    if sys.argv[1] == "keys":
        for p, opt in keys.items():
            print(name(p) + ("?" if opt else ""))
        return
    seen, objs = set(), set()
    bad = 0
    for f in sys.argv[4:]:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        try:
            printed(json.loads(text), (), seen, objs)
        except ValueError:
            print(f"not JSON: {f}: {text[:200]!r}")
            bad += 1
    for p in sorted(seen - set(keys)):
        print(f"undocumented: {name(p)}")
        bad += 1
    for p, opt in keys.items():
        if p in seen:
            continue
        if p[:-1] in objs and not opt:
            print(f"not printed: {name(p)}")
            bad += 1
        elif p[:-1] not in objs:
            print(f"not seen: {name(p)} (its object was null or empty in every document)")
            bad += strict
    print(f"keys {len(keys)} documented, {len(seen)} printed, {bad} differ")
    sys.exit(1 if bad else 0)


main()
