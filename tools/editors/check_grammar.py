#!/usr/bin/env python3
"""Checks tools/editors/tile.tmLanguage.json, the TextMate grammar of .tile files.

    python3 tools/editors/check_grammar.py [ROOT]

The grammar must be valid JSON and give the right kind of scope to every keyword of the lexer
(grammar/lexer.re), every builtin of semantic analysis (compiler/sema/sema_builtin.c), every scalar
type, the attributes, each form of number, strings, escapes and comments: the lists are read from the
compiler's sources, so a keyword or builtin added there and not here fails the check. It also
highlights every .tile file of examples/ and stdlib/ and requires that nothing in them is marked
invalid. The tokenizer below is a small model of a TextMate engine (earliest match wins, ties go to
the first pattern; begin/end regions with their own patterns); Python's `re` reads the regexes, which
use only the part of Oniguruma's syntax that the two share.
"""
import json
import os
import re
import sys


def fail(msg):
    print("check_grammar: " + msg)
    sys.exit(1)


root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
path = os.path.join(root, "tools", "editors", "tile.tmLanguage.json")
try:
    with open(path, encoding="utf-8") as f:
        grammar = json.load(f)
except ValueError as e:
    fail("%s is not valid JSON: %s" % (path, e))
for key in ("scopeName", "patterns", "repository", "fileTypes"):
    if key not in grammar:
        fail("the grammar has no '%s'" % key)
if grammar["scopeName"] != "source.tile" or "tile" not in grammar["fileTypes"]:
    fail("the grammar must be source.tile for .tile files")


def expand(patterns):
    """The patterns with every include replaced by what it names, in order."""
    out = []
    for p in patterns:
        if "include" in p:
            name = p["include"]
            if not name.startswith("#") or name[1:] not in grammar["repository"]:
                fail("include of an unknown rule '%s'" % name)
            out += expand(grammar["repository"][name[1:]].get("patterns", [grammar["repository"][name[1:]]]))
        else:
            for k in ("match", "begin", "end"):
                if k in p:
                    try:
                        p["_" + k] = re.compile(p[k])
                    except re.error as e:
                        fail("pattern %r does not compile: %s" % (p[k], e))
            out.append(p)
    return out


TOP = expand(grammar["patterns"])


def tokenize(text):
    """[(text, scope)] for the source: a scope is the innermost name, '' for plain text."""
    toks = []
    stack = []  # open begin/end regions: (pattern, its inner patterns)
    for line in text.split("\n"):
        pos = 0
        while pos <= len(line):
            pats = stack[-1][1] if stack else TOP
            best = None  # (start, index, match, pattern, is_end)
            if stack:
                m = stack[-1][0]["_end"].search(line, pos)
                if m:
                    best = (m.start(), -1, m, stack[-1][0], True)
            for i, p in enumerate(pats):
                rx = p.get("_match") or p.get("_begin")
                m = rx.search(line, pos)
                if m and (best is None or m.start() < best[0] or (m.start() == best[0] and best[1] > i and not best[4])):
                    best = (m.start(), i, m, p, False)
            outer = stack[-1][0].get("name", "") if stack else ""
            if best is None:
                if pos < len(line):
                    toks.append((line[pos:], outer))
                break
            start, _, m, p, is_end = best
            if start > pos:
                toks.append((line[pos:start], outer))
            if is_end:
                toks.append((m.group(0), p.get("name", "")))
                stack.pop()
            elif "_begin" in p:
                toks.append((m.group(0), p.get("name", "")))
                stack.append((p, expand(p.get("patterns", []))))
            elif p.get("captures"):
                last = m.start()
                for g in sorted(int(k) for k in p["captures"]):
                    if m.group(g) is None or g == 0:
                        continue
                    if m.start(g) > last:
                        toks.append((line[last:m.start(g)], p.get("name", outer)))
                    toks.append((m.group(g), p["captures"][str(g)]["name"]))
                    last = m.end(g)
                if m.end() > last:
                    toks.append((line[last:m.end()], p.get("name", outer)))
            else:
                toks.append((m.group(0), p.get("name", "")))
            if m.end() == pos and start == pos:
                pos += 1  # an empty match: step on
            else:
                pos = m.end()
            if pos >= len(line) and not (stack and "$" in stack[-1][0]["end"]):
                break
        if stack and "$" in stack[-1][0]["end"]:
            stack.pop()  # a string ends at the end of its line
    return [(t, s) for t, s in toks if t.strip()]


def scope_of(snippet, word):
    for t, s in tokenize(snippet):
        if t == word:
            return s
    fail("%r is not one token in %r: %r" % (word, snippet, tokenize(snippet)))


def read(rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


checked = 0


def expect(snippet, word, prefixes):
    global checked
    s = scope_of(snippet, word)
    if not any(s.startswith(p) for p in prefixes):
        fail("%r in %r has scope %r; expected %s" % (word, snippet, s, " or ".join(prefixes)))
    checked += 1


# Keywords, from the lexer's rules: "word" { RET(TOK_...); }
keywords = re.findall(r'^\s*"([A-Za-z_]+)"\s*\{\s*RET\(TOK_', read("grammar/lexer.re"), re.M)
if len(keywords) < 20:
    fail("found only %d keywords in grammar/lexer.re" % len(keywords))
for k in keywords:
    expect("%s x" % k, k, ["keyword.", "storage.", "constant.language."])

# Builtins, from sema's table: {"name", b_...
builtins = re.findall(r'^\s*\{"([a-z_0-9]+)", b_', read("compiler/sema/sema_builtin.c"), re.M)
if len(builtins) < 40:
    fail("found only %d builtins in compiler/sema/sema_builtin.c" % len(builtins))
for b in builtins:
    expect("let y = %s(x);" % b, b, ["support.function.builtin."])

# The stdlib's fns.
for mod in sorted(os.listdir(os.path.join(root, "stdlib", "std"))):
    for fn in re.findall(r"^fn\s+([A-Za-z_][A-Za-z0-9_]*)", read(os.path.join("stdlib", "std", mod)), re.M):
        expect("let y = %s(x);" % fn, fn, ["support.function.std."])

# Types, attributes, declarations, numbers, strings, comments, operators.
for t in "bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 type".split():
    expect("let y = x as %s;" % t, t, ["storage.type."])
for a in ("grid", "options", "autotune"):
    expect("@%s(n)" % a, a, ["storage.type.annotation."])
expect("@bogus(n)", "bogus", ["invalid."])
expect("kernel matmul(a: *f16)", "matmul", ["entity.name.function."])
expect("fn gelu2(x) {", "gelu2", ["entity.name.function."])
for n in ("0", "42", "1_000", "0x1F", "0xdead_BEEF", "0b1_0", "1.0", ".5", "1e-3", "2.5e+4", "3E2", ".5e3", "1_0.2_5"):
    expect("let y = %s;" % n, n, ["constant.numeric."])
expect("for i in 0 .. n {", "..", ["keyword.operator.range"])
toks = tokenize(r'print("a\"b\n", x);')
if not any(s.startswith("constant.character.escape") and t == r"\"" for t, s in toks):
    fail("no escape in a string: %r" % toks)
if not any(s.startswith("string.quoted.double") for t, s in toks):
    fail("no string: %r" % toks)
for c, w in (("let x = 1; // done", "// done"), ("/* block */ let x = 1;", "block")):
    if not any(w in t and s.startswith("comment.") for t, s in tokenize(c)):
        fail("no comment in %r: %r" % (c, tokenize(c)))
toks = tokenize("/* one\n let two = 2; */ let three = 3;")
if any(t == "let" and not s.startswith("comment") for t, s in toks[:3]) or ("let", "storage.modifier.tile") not in toks:
    fail("a block comment over two lines: %r" % toks)
checked += 6

# Real sources: nothing invalid.
files = []
for d in ("examples", os.path.join("stdlib", "std")):
    files += [os.path.join(d, f) for f in sorted(os.listdir(os.path.join(root, d))) if f.endswith(".tile")]
for rel in files:
    for t, s in tokenize(read(rel)):
        if "invalid" in s:
            fail("%s: %r is marked %s" % (rel, t, s))
print("check_grammar: ok: %d keywords, %d builtins, %d checks, %d files highlighted"
      % (len(keywords), len(builtins), checked, len(files)))
