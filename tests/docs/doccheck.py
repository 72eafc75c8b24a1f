#!/usr/bin/env python3
"""doccheck: the documentation's commands, outputs and snippets, run and compared (issue 24).

Usage: doccheck.py --source SRC --build BUILD [--cc CC] [--keep] DOC.md...

Every fenced block of each document is checked according to its info string (the word after ```):

  console   A session, as cram runs one: a line starting with `$ ` is a command (a line ending in `\\`
            continues on the next), the lines up to the next `$ ` are its expected output: stdout
            and stderr together, as a terminal shows them. The commands of one document run in order,
            in one scratch folder that holds a fresh copy of what they read (examples/, stdlib/,
            include/, tests/golden/examples/ and run/, tests/data/), with `build` a link to the build folder
            that CTest names, a fresh RK_CACHE_DIR, RK_STDLIB_DIR on the copy, and no other RK_
            variable set. A command that exits with a status other than 0 must say so with a last
            output line `[N]`.
  c         Compiled with CC against include/rk.h. A whole program (it defines main) is linked with
            the build's librk and run on RK_DEVICE=interp and RK_DEVICE=emu; it must exit 0.
            A fragment is compiled as the body of a function, after the declarations that a
            `c-decl` directive gives (below).
  tile      A whole program is written to a file and compiled by rkc (gfx942); `run ARGS` runs it.
            A quote of a file (`file PATH` or `fragment PATH` directive) is compared with that file
            instead, and the file is compiled.
  sh, python, cmake, text, ebnf
            Shown, not run (commands that print nothing, other languages, grammars).
  (none)    An error: every block says what it is.

Markers in expected output (the syntax the documents explain to their readers, docs/tutorial.md):

  ...            A line that is only `...` (any indentation) stands for any number of output lines,
                 none included. `...` inside a line stands for any text on that line.
  LINE  (varies) A line ending in two or more spaces and `(varies)` shows figures that vary by machine
                 and by run (times, rates, thread counts): every number in it matches any number; the
                 rest of the line is compared. The document says when and where the shown figures
                 were measured.
  [N]            The last line of a command's output: the command exits with status N.

A command `cat NAME`, where NAME does not exist in the scratch folder, first writes its shown output to
NAME: that is how a document creates a small source file that later commands use.

Directives: an HTML comment on the line before a fence, invisible when the Markdown is rendered:

  <!-- doccheck: file PATH -->        the block is PATH (from the source folder) exactly
  <!-- doccheck: fragment PATH -->    every line of the block, but `...` lines and text after a `...`,
                                      appears in PATH in this order (leading spaces ignored)
  <!-- doccheck: run -k NAME ARGS -->  run the tile program with `rkc run` on interp and emu
  <!-- doccheck: c-decl DECLS -->     declarations in scope of a C fragment
  <!-- doccheck: skip REASON -->      not checked; the reason is required

A failure prints `DOC:LINE: what differs` and the status is 1.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHOWN_ONLY = {"sh", "python", "cmake", "text", "ebnf", "json"}
COPIED = ["examples", "stdlib", "include", "tests/golden/examples", "tests/golden/run", "tests/data"]
VARIES = re.compile(r"\s{2,}\(varies\)\s*$")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
NUMBER_RX = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"

failures = []
SHOW = False


def fail(doc, line, msg):
    failures.append(f"{doc}:{line}: {msg}")
    print(f"{doc}:{line}: {msg}", file=sys.stderr)


class Block:
    def __init__(self, lang, first, lines, directive):
        self.lang = lang            # info string's first word, "" if none
        self.first = first          # line number (1-based) of the first content line
        self.lines = lines          # content lines, the fence's indentation removed
        self.directive = directive  # (word, rest) or None


def parse_blocks(text):
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)", lines[i])
        if not m:
            i += 1
            continue
        indent, lang = len(m.group(1)), m.group(2)
        directive = None
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        d = re.match(r"^\s*<!--\s*doccheck:\s*(\S+)\s*(.*?)\s*-->\s*$", lines[j]) if j >= 0 else None
        if d:
            directive = (d.group(1), d.group(2))
        body = []
        k = i + 1
        while k < len(lines) and not re.match(r"^\s*```\s*$", lines[k]):
            body.append(lines[k][indent:] if lines[k][:indent].strip() == "" else lines[k])
            k += 1
        blocks.append(Block(lang, i + 2, body, directive))
        i = k + 1
    return blocks


def line_regex(expected):
    """A compiled regex for one expected line (markers applied)."""
    varies = bool(VARIES.search(expected))
    if varies:
        expected = VARIES.sub("", expected)
    parts = expected.rstrip().split("...")
    rx = []
    for p in parts:
        if varies:
            out, pos = [], 0
            for m in NUMBER.finditer(p):
                out.append(re.escape(p[pos:m.start()]))
                out.append(NUMBER_RX)
                pos = m.end()
            out.append(re.escape(p[pos:]))
            rx.append("".join(out))
        else:
            rx.append(re.escape(p))
    return re.compile(".*?".join(rx) + r"\s*$")


def match_output(expected, actual):
    """Expected lines (with markers) against actual lines. Returns None on a match, else the index
    of the expected line that could not be matched and the actual line met there (or None)."""
    exp = [(e.strip() == "...", None if e.strip() == "..." else line_regex(e)) for e in expected]
    best = [0, None]
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i > best[0] or (i == best[0] and best[1] is None):
            best[0], best[1] = i, j
        if i == len(exp):
            r = j == len(actual)
        elif exp[i][0]:
            r = go(i + 1, j) or (j < len(actual) and go(i, j + 1))
        else:
            r = j < len(actual) and exp[i][1].match(actual[j]) is not None and go(i + 1, j + 1)
        memo[key] = r
        return r

    sys.setrecursionlimit(100000)
    if go(0, 0):
        return None
    i, j = best
    return i, (actual[j] if j is not None and j < len(actual) else None)


def scratch_folder(src, build):
    d = tempfile.mkdtemp(prefix="doccheck.")
    for rel in COPIED:
        s = os.path.join(src, rel)
        if os.path.isdir(s):
            shutil.copytree(s, os.path.join(d, rel), symlinks=True)
    os.symlink(os.path.abspath(build), os.path.join(d, "build"))
    os.makedirs(os.path.join(d, "cache"))
    return d


def clean_env(work):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
    env["RK_CACHE_DIR"] = os.path.join(work, "cache")
    env["RK_STDLIB_DIR"] = os.path.join(work, "stdlib")
    env["LC_ALL"] = "C"
    return env


def run_console(doc, block, work, env):
    cmds = []  # (line, command, [expected lines])
    cur = None
    cont = False
    for n, line in enumerate(block.lines):
        ln = block.first + n
        if cont:
            cur[1] += "\n" + line
            cont = line.endswith("\\")
        elif line.startswith("$ "):
            cur = [ln, line[2:], []]
            cmds.append(cur)
            cont = line.endswith("\\")
        elif cur is None:
            fail(doc, ln, "console block: output before the first `$ ` command")
            return
        else:
            cur[2].append((ln, line))
    for ln, cmd, out in cmds:
        while out and not out[-1][1].strip():
            out.pop()
        status = 0
        if out and re.match(r"^\[\d+\]$", out[-1][1].strip()):
            status = int(out[-1][1].strip()[1:-1])
            out.pop()
        m = re.match(r"^cat (\S+)$", cmd)
        if m and not os.path.exists(os.path.join(work, m.group(1))):
            with open(os.path.join(work, m.group(1)), "w") as f:
                f.write("".join(l + "\n" for _, l in out))
        try:
            p = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=900)
        except subprocess.TimeoutExpired:
            fail(doc, ln, f"`{cmd.splitlines()[0]}` ran for more than 900 s")
            continue
        actual = p.stdout.decode("utf-8", "replace").split("\n")
        if actual and actual[-1] == "":
            actual.pop()
        actual = [a.rstrip() for a in actual]
        short = cmd.splitlines()[0]
        if p.returncode != status:
            tail = "\n    ".join(actual[-8:])
            fail(doc, ln, f"`{short}` exited with {p.returncode}, the document says {status}:\n    {tail}")
            continue
        r = match_output([l for _, l in out], actual)
        if r is None:
            continue
        if SHOW:
            print(f"--- {doc}:{ln}: $ {cmd}", file=sys.stderr)
            print("\n".join(actual), file=sys.stderr)
        i, got = r
        if i < len(out):
            fail(doc, out[i][0], f"output of `{short}` differs:\n  document: {out[i][1].strip()}\n"
                 f"  rk:       {got.strip() if got is not None else '(no more output)'}")
        else:
            fail(doc, ln, f"`{short}` printed more than the document shows, from:\n  rk:       {got}")


def read_directive(block, want):
    if block.directive and block.directive[0] == want:
        return block.directive[1]
    return None


def check_quote(doc, block, src):
    """A `file` or `fragment` directive: the block against the repository file."""
    word, path = block.directive
    try:
        with open(os.path.join(src, path)) as f:
            text = f.read()
    except OSError:
        fail(doc, block.first - 2, f"doccheck: {word} {path}: no such file in the repository")
        return None
    if word == "file":
        if text.rstrip("\n").split("\n") != block.lines:
            a = text.rstrip("\n").split("\n")
            for n, line in enumerate(block.lines):
                if n >= len(a) or a[n] != line:
                    fail(doc, block.first + n, f"differs from {path}:{n + 1}: "
                         f"{a[n] if n < len(a) else '(end of file)'}")
                    return path
            fail(doc, block.first + len(block.lines), f"{path} goes on after the quoted lines")
        return path
    lines = [re.sub(r"\s+", " ", l.strip()) for l in text.split("\n")]
    pos = 0
    for n, line in enumerate(block.lines):
        want = line.split("...")[0].strip() if "..." in line else line.strip()
        want = re.sub(r"\s+", " ", want)
        if not want:
            continue
        while pos < len(lines) and not lines[pos].startswith(want):
            pos += 1
        if pos == len(lines):
            fail(doc, block.first + n, f"not in {path} (or out of order): {line.strip()}")
            return path
        pos += 1
    return path


def rkc(build):
    return os.path.join(build, "rkc")


def check_tile(doc, block, src, work, env, build, seq):
    if block.directive and block.directive[0] in ("file", "fragment"):
        path = check_quote(doc, block, src)
        if path is None:
            return
        target = os.path.join(work, path) if os.path.exists(os.path.join(work, path)) else os.path.join(src, path)
        p = subprocess.run([rkc(build), target, "-o", os.devnull], cwd=work, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            fail(doc, block.first, f"{path} does not compile:\n{p.stdout.decode(errors='replace')}")
        return
    name = os.path.join(work, f"snippet{seq}.tile")
    with open(name, "w") as f:
        f.write("\n".join(block.lines) + "\n")
    p = subprocess.run([rkc(build), name, "-o", os.devnull], cwd=work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        fail(doc, block.first, f"tile snippet does not compile:\n{p.stdout.decode(errors='replace')}")
        return
    args = read_directive(block, "run")
    if args is None:
        return
    for device in ("interp", "emu"):
        e = dict(env, RK_DEVICE=device)
        p = subprocess.run(f"{rkc(build)} run {name} {args}", shell=True, cwd=work, env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            fail(doc, block.first, f"tile snippet fails on {device}:\n{p.stdout.decode(errors='replace')}")


def check_c(doc, block, src, work, env, build, cc, seq):
    text = "\n".join(block.lines) + "\n"
    inc = os.path.join(src, "include")
    if re.search(r"\bint\s+main\s*\(", text):
        name = os.path.join(work, f"snippet{seq}.c")
        exe = os.path.join(work, f"snippet{seq}")
        with open(name, "w") as f:
            f.write(text)
        # RK_DOCS_CFLAGS: what a program linking this build's librk needs (the sanitizers' flags in a
        # sanitizer build: tests/CMakeLists.txt sets it as for the install test's consumer)
        extra = os.environ.get("RK_DOCS_CFLAGS", "").split()
        p = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", *extra, "-I", inc, name, "-o", exe,
                            "-L", build, "-lrk", f"-Wl,-rpath,{os.path.abspath(build)}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            fail(doc, block.first, f"C program does not compile:\n{p.stdout.decode(errors='replace')}")
            return
        for device in ("interp", "emu"):
            p = subprocess.run([exe], cwd=work, env=dict(env, RK_DEVICE=device),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode:
                fail(doc, block.first, f"C program fails on {device} (status {p.returncode}):\n"
                     f"{p.stdout.decode(errors='replace')}")
        return
    decls = read_directive(block, "c-decl") or ""
    name = os.path.join(work, f"snippet{seq}.c")
    with open(name, "w") as f:
        f.write("#include <stddef.h>\n#include <string.h>\n#include \"rk.h\"\n"
                "void doccheck_fragment(void);\nvoid doccheck_fragment(void)\n{\n"
                f"{decls}\n#line {block.first} \"{doc}\"\n{text}}}\n")
    # a fragment elides the set-up, so a variable it shows declared may be used before the elided code
    # sets it (clang's -Wuninitialized)
    p = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-Wall", "-Wno-unused", "-Wno-uninitialized", "-Werror",
                        "-I", inc, name],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        fail(doc, block.first, f"C fragment does not compile:\n{p.stdout.decode(errors='replace')}")


def check_doc(doc, src, build, cc, keep):
    path = os.path.join(src, doc)
    with open(path) as f:
        blocks = parse_blocks(f.read())
    work = scratch_folder(src, build)
    env = clean_env(work)
    try:
        for seq, b in enumerate(blocks):
            if b.directive and b.directive[0] == "skip":
                if not b.directive[1]:
                    fail(doc, b.first - 2, "doccheck: skip needs a reason")
                continue
            lang = b.lang.split(",")[0]
            if lang == "console":
                run_console(doc, b, work, env)
            elif lang == "tile":
                check_tile(doc, b, src, work, env, build, seq)
            elif lang == "c":
                check_c(doc, b, src, work, env, build, cc, seq)
            elif lang in SHOWN_ONLY:
                continue
            elif lang == "":
                fail(doc, b.first - 1, "code block without a language: say what it is "
                     "(console, tile, c, sh, text, ...)")
            else:
                fail(doc, b.first - 1, f"code block of unknown language '{lang}'")
    finally:
        if keep:
            print(f"doccheck: {doc}: scratch folder {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="run the documentation's commands and snippets")
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--keep", action="store_true", help="keep the scratch folders")
    ap.add_argument("--show", action="store_true", help="print the whole output of a command that differs")
    ap.add_argument("docs", nargs="+")
    a = ap.parse_args()
    global SHOW
    SHOW = a.show
    for doc in a.docs:
        check_doc(doc, os.path.abspath(a.source), os.path.abspath(a.build), a.cc, a.keep)
    if failures:
        print(f"doccheck: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print(f"doccheck: {' '.join(a.docs)}: every block as shown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
