#!/usr/bin/env python3
"""Runs the commands the Markdown docs show and checks the figures they state.

A doc marks a checked example in one of two ways:

    <!-- doctest -->
    ```
    $ clustersim run topologies/examples/jitter-8.xml --app loop:work=1ms --ranks 8
      simulated time     237.3 ms
    ```

(the block's `$ ` lines are the command, the rest its output), or, when the command is
shown elsewhere:

    <!-- doctest: clustersim run topologies/examples/figure1-westmere-10.xml --app pingpong -->
    ```
    ...the output...
    ```

Every line of the shown output must appear in the command's real output (stdout and
stderr as one stream), in order; lines the doc leaves out are allowed (an excerpt, where a line `...` may
stand for them). Text must match
exactly (runs of spaces count as one); numbers must match within the tolerance, by
default 0.05 % (outputs print four significant digits), or as given by
`<!-- doctest tolerance=2% -->`. In lines about the machine rather than the model (wall
time, peak memory, event rates, model load), numbers are not compared. A command's
`clustersim` (or `./build/tools/clustersim`) runs the binary under test; the command
runs in a scratch folder, with its inputs (paths relative to the repository's root) found.

Usage: doctest.py CLUSTERSIM_BINARY REPO_ROOT FILE.md...   (exit 0: all examples hold)
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARK = re.compile(r"^<!--\s*doctest(?P<opts>(?:\s+\w+=\S+)*)\s*(?::\s*(?P<cmd>.*?))?\s*-->\s*$")
NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
MACHINE = re.compile(r"wall|peak memory|events/s|model load|M events|local jobs", re.I)


def examples(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if not m:
            i += 1
            continue
        opts = dict(o.split("=", 1) for o in m.group("opts").split())
        start = i + 1
        while start < len(lines) and not lines[start].startswith("```"):
            start += 1
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[start + 1:end]
        cmd = m.group("cmd")
        if not cmd:
            cmds = [l[2:] for l in body if l.startswith("$ ")]
            body = [l for l in body if not l.startswith("$ ")]
            cmd = " && ".join(cmds)
        yield i + 1, cmd, body, opts
        i = end + 1


def tokens(line):
    out, pos = [], 0
    for m in NUMBER.finditer(line):
        out.append(("t", " ".join(line[pos:m.start()].split())))
        out.append(("n", float(m.group().replace(",", ""))))
        pos = m.end()
    out.append(("t", " ".join(line[pos:].split())))
    return [t for t in out if t != ("t", "")]


def same(expected, actual, tol):
    te, ta = tokens(expected), tokens(actual)
    if len(te) != len(ta):
        return False
    machine = bool(MACHINE.search(expected))
    for (ke, ve), (ka, va) in zip(te, ta):
        if ke != ka:
            return False
        if ke == "t" and ve != va:
            return False
        if ke == "n" and not machine:
            if abs(ve - va) > tol * max(abs(ve), abs(va)) and abs(ve - va) > 1e-12:
                return False
    return True


def run(binary, root, cmd):
    """Runs `cmd` in a scratch folder, so that what it writes stays out of the checkout: the
    inputs it names relative to the repository (topologies/..., ../shared/..., also after a
    `trace:` or `map:` prefix and before an `@P` rank count) are made absolute, and the absolute paths are turned back into
    the doc's in the output."""
    given_root = os.path.normpath(os.path.abspath(root))
    root = os.path.realpath(root)
    # ../shared may be a link (a checkout beside a linked shared/): its paths appear in the
    # output under both names, and both are turned back into the doc's.
    shared_names = {os.path.realpath(os.path.join(root, "..", "shared")),
                    os.path.normpath(os.path.join(root, "..", "shared")),
                    os.path.normpath(os.path.join(given_root, "..", "shared"))}
    fixed = []
    # A path after an output flag or `>` is the command's output: it stays in the scratch folder
    # even where the repository has a folder of that name (`--out run/`).
    outputs = ("--out", "-o", ">", "--svg", "--csv", "--placement-out", "--emit-array",
               "--save-measured")
    prev, written = "", set()
    for w in shlex.split(cmd):
        is_output, prev = prev in outputs, w
        if w in ("clustersim", "./build/tools/clustersim"):
            fixed.append(binary)
            continue
        # ... and so is a later mention of it (`compare TRACE run/` after `--out run/`).
        if is_output or w.rstrip("/") in written:
            written.add(w.rstrip("/"))
            fixed.append(w)
            continue
        prefix, rest, suffix = "", w, ""
        m = re.match(r"^([a-z]+:)(.+)$", w)
        if m and not w.startswith("--"):
            prefix, rest = m.group(1), m.group(2)
        # `extrapolate`'s TRACE@P: the path before its rank count.
        m = re.match(r"^(.+)(@\d+)$", rest)
        if m and os.path.exists(os.path.join(root, m.group(1))):
            rest, suffix = m.group(1), m.group(2)
        # A path, not a word that happens to name a folder of the repository (`run`).
        looks_like_path = "/" in rest or os.path.isfile(os.path.join(root, rest))
        if not rest.startswith("-") and looks_like_path and os.path.exists(os.path.join(root, rest)):
            fixed.append(prefix + os.path.normpath(os.path.join(root, rest)) + suffix)
        else:
            fixed.append(w)
    ops = ("&&", "|", ">", "2>&1", ";")
    shell = " ".join(w if w in ops else shlex.quote(w) for w in fixed)
    with tempfile.TemporaryDirectory(prefix="clustersim-doctest-") as work:
        for w in written:  # an output's folder exists in the scratch folder as in the checkout
            parent = os.path.dirname(w)
            if parent and not os.path.isabs(parent):
                os.makedirs(os.path.join(work, parent), exist_ok=True)
        p = subprocess.run(shell, shell=True, cwd=work, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
    text = p.stdout
    for name in sorted(shared_names, key=len, reverse=True):
        text = text.replace(name + "/", "../shared/")
    text = text.replace(root + "/", "").replace(given_root + "/", "")
    return p.returncode, text.split("\n")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    binary, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    checked = failed = 0
    for path in files:
        for line, cmd, expected, opts in examples(path):
            checked += 1
            tol = float(opts.get("tolerance", "0.05%").rstrip("%")) / 100
            code, actual = run(binary, root, cmd)
            where = f"{path}:{line}"
            if code != 0:
                failed += 1
                print(f"FAIL {where}: `{cmd}` exited with {code}:\n  " + "\n  ".join(actual[-5:]))
                continue
            pos = 0
            for e in expected:
                if not e.strip() or e.strip() == "...":  # "..." stands for lines left out
                    continue
                k = pos
                while k < len(actual) and not same(e, actual[k], tol):
                    k += 1
                if k == len(actual):
                    failed += 1
                    near = [a for a in actual if tokens(a)[:1] == tokens(e)[:1]]
                    print(f"FAIL {where}: `{cmd}`\n  the doc says:  {e.strip()}\n"
                          f"  the run says:  {near[0].strip() if near else '(no such line)'}")
                    break
                pos = k + 1
            else:
                print(f"ok   {where}: {cmd}")
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
