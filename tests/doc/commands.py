#!/usr/bin/env python3
"""Runs every clustersim command line the Markdown docs show, so that none goes stale.

doctest.py checks the examples marked `<!-- doctest -->` line by line against their shown
output. This script covers every other command line in a fenced code block (`clustersim ...`,
`$ clustersim ...`, `./build/tools/clustersim ...`; a trailing `\\` continues a line):

- the command lines of one block run in order in one scratch folder (`import ... > pvs.xml`,
  then `run pvs.xml ...`), inputs found as doctest.py finds them;
- a command the block shows failing (its next line is `clustersim: error: ...`) must exit
  with 2 and print that line; every other command must exit with 0;
- no command may write into the checkout (`git status` is compared before and after; a path
  after `--out`, `-o` or `>` stays in the scratch folder even where the repository has a
  folder of that name);
- a block whose commands hold placeholders that a `<!-- commands: M=independent,collective
  C=none,write_behind -->` line above it lists values for runs once per combination (a
  table's rows: `transfer=T` for each record size);
- a synopsis is not run but listed: a line with `[...]`, `a|b` or a placeholder in capitals
  (`MODEL.xml`, `FILE`, `--cache C`), or one that writes to an absolute path outside the
  scratch folder (`--emit-array /shared/study`); so is an illustration that names a file
  of the reader's own. Neither runs, but its command (`trace merge`, `jitter-trace convert`)
  must exist and every `--flag` it shows must be in that command's `--help`; so must every
  command in running text (`` `clustersim compare ... --by-size` ``).

Usage: commands.py CLUSTERSIM_BINARY REPO_ROOT FILE.md...   (exit 0: every command held)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doctest  # noqa: E402  (tests/doc/doctest.py: its runner)

COMMAND = re.compile(r"^\s*(?:\$ )?((?:\./build/tools/)?clustersim(?: |$).*)$")
OUTPUT = re.compile(r"^clustersim [a-z-]+: ")  # "clustersim run: model ..." is output
MISSING = re.compile(r"clustersim: error: ([^:\s]+): cannot (?:read|open)")
SUBSTITUTE = re.compile(r"^<!--\s*commands:\s*(.*?)\s*-->$")
INLINE = re.compile(r"`((?:\./build/tools/)?clustersim [^`]+)`")
PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9._/-])[A-Z][A-Z0-9_]*(?:\.[a-z]+)?(?![A-Za-z0-9])")


def blocks(path):
    """(line, [(line, command, expected_error or None)], marked, substitutions) per fenced
    block; substitutions from a `<!-- commands: T=64KiB,1MiB -->` line above it."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, marked, subs = 0, False, {}
    while i < len(lines):
        s = lines[i].strip()
        if doctest.MARK.match(s):
            marked = True
        elif m := SUBSTITUTE.match(s):
            subs = {k: v.split(",") for k, v in re.findall(r"([A-Z][A-Z0-9_]*)=(\S+)", m.group(1))}
        elif s.startswith("```"):
            start, cmds, j = i + 1, [], i + 1
            end = j
            while end < len(lines) and not lines[end].strip().startswith("```"):
                end += 1
            # A block with `$ ` prompts shows output too: only its prompted lines are commands.
            prompted = any(lines[k].lstrip().startswith("$ ") for k in range(j, end))
            while j < len(lines) and not lines[j].strip().startswith("```"):
                m = COMMAND.match(lines[j])
                if prompted and not lines[j].lstrip().startswith("$ "):
                    m = None
                if m and not OUTPUT.match(m.group(1)):
                    cmd, at = m.group(1).strip(), j + 1
                    while cmd.endswith("\\") and j + 1 < len(lines):
                        j += 1
                        cmd = cmd[:-1].rstrip() + " " + lines[j].strip()
                    nxt = lines[j + 1].strip() if j + 1 < len(lines) else ""
                    error = nxt if nxt.startswith("clustersim: error:") else None
                    cmds.append((at, re.sub(r"\s+#.*$", "", cmd), error))
                j += 1
            if cmds:
                yield start, cmds, marked, subs
            marked, subs = False, {}
            i = j
        elif s:
            marked, subs = False, {}
        i += 1


def instances(cmd, subs):
    """`cmd` once per combination of the substitutions it names (`transfer=T` with
    T=64KiB,1MiB: two commands), or [cmd]."""
    out = [cmd]
    for name, values in subs.items():
        pattern = re.compile(r"(?<![A-Za-z0-9._/-])" + name + r"(?![A-Za-z0-9])")
        if pattern.search(cmd):
            out = [pattern.sub(v, c) for c in out for v in values]
    return out


def git_status(root):
    """`git status --porcelain` of the checkout (untracked files too), None outside git."""
    try:
        p = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=all"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


def synopsis(cmd, root):
    """Why `cmd` is a synopsis, not a command ("" if it is one to run)."""
    words = cmd.split("#")[0]
    if re.search(r"\[.*\]", words) or re.search(r"\w\|\w", words):
        return "a synopsis ([...] or a|b)"
    if m := PLACEHOLDER.search(words):
        return f"a placeholder ({m.group()})"
    for w in words.split():
        if w.startswith("/") and not os.path.exists(w):
            return f"writes to {w}"
    return ""


HELP = {}


def help_of(binary, path):
    """`clustersim PATH --help` (cached), "" if the command does not exist."""
    key = " ".join(path)
    if key not in HELP:
        p = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, timeout=60)
        HELP[key] = p.stdout if p.returncode == 0 else ""
    return HELP[key]


def check_synopsis(binary, cmd):
    """What a synopsis names that the command line does not have ("" if all is there): its
    command (and nested command) must exist, and each --flag it shows must be one of that
    command's flags."""
    words = re.sub(r"[\[\]]", " ", cmd).split()
    words = words[1:]  # clustersim
    path = []
    for w in words:
        if w.startswith("-") or not re.fullmatch(r"[a-z][a-z-]*", w):
            break
        subs = re.findall(r"^  ([a-z][a-z-]*) ", help_of(binary, path).split("Subcommands:")[-1]
                          if "Subcommands:" in help_of(binary, path) else "", re.M)
        if w not in subs:
            break
        path.append(w)
    if not path and words and not words[0].startswith("-"):
        return f"no command '{words[0]}'"
    text = help_of(binary, path)
    if not text:
        return f"no command '{' '.join(path)}'"
    flags = set(re.findall(r"(?:^|[ ,])(--[a-z][a-z0-9-]*)", text, re.M))
    missing = [f for f in re.findall(r"(?:^|\s)(--[a-z][a-z0-9-]*)", " ".join(words))
               if f not in flags]
    return f"'{' '.join(path)}' has no {', '.join(missing)}" if missing else ""


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    binary, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    ran = failed = skipped = covered = stale = inline = 0
    status = git_status(root)
    for path in files:
        for start, cmds, marked, subs in blocks(path):
            if marked:
                covered += len(cmds)
                continue
            runnable = []
            cmds = [(line, c, error) for line, cmd, error in cmds for c in instances(cmd, subs)]
            for line, cmd, error in cmds:
                why = synopsis(cmd, root)
                if why:
                    skipped += 1
                    # Not run, but its command and flags must be the command line's own.
                    if wrong := check_synopsis(binary, cmd):
                        stale += 1
                        print(f"FAIL {path}:{line}: {why}: {wrong}: {cmd}")
                    else:
                        print(f"skip {path}:{line}: {why}, its command and flags exist: {cmd}")
                else:
                    runnable.append((line, cmd, error))
            # One scratch folder per block: the commands before a failing example, then it.
            done = []
            for line, cmd, error in runnable:
                chain = " && ".join([c for _, c, _ in done] + [cmd])
                code, out = doctest.run(binary, root, chain)
                text = "\n".join(out)
                # An illustration with the reader's own file (`island.xml`, `gd.csv`): listed.
                own = MISSING.search(text)
                if code != 0 and own and not os.path.exists(os.path.join(root, own.group(1))):
                    skipped += 1
                    if wrong := check_synopsis(binary, cmd):
                        stale += 1
                        print(f"FAIL {path}:{line}: {wrong}: {cmd}")
                    else:
                        print(f"skip {path}:{line}: names a file of the reader's own "
                              f"({own.group(1)}), its command and flags exist: {cmd}")
                    continue
                ran += 1
                if error is None and code != 0:
                    failed += 1
                    print(f"FAIL {path}:{line}: `{cmd}` exited with {code}:\n  " +
                          "\n  ".join(out[-5:]))
                elif error is not None and (code != 2 or error not in text):
                    failed += 1
                    print(f"FAIL {path}:{line}: `{cmd}` should fail with\n  {error}\n"
                          f"  exited with {code}:\n  " + "\n  ".join(out[-3:]))
                else:
                    print(f"ok   {path}:{line}: {cmd}")
                if error is None:
                    done.append((line, cmd, error))
        # Commands in running text (`clustersim run ... --json`): their commands and flags.
        fenced = False
        for n, text in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            if text.strip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            for cmd in INLINE.findall(text):
                inline += 1
                if wrong := check_synopsis(binary, cmd):
                    stale += 1
                    print(f"FAIL {path}:{n}: in the text: {wrong}: {cmd}")
    # The commands run in scratch folders: none may write into the checkout.
    if status is not None and git_status(root) != status:
        failed += 1
        print("FAIL a command wrote into the repository: git status changed")
    print(f"{ran - failed} ran and held, {failed} failed, {covered} in doctest blocks, "
          f"{skipped} synopses not run and {inline} commands in running text checked, {stale} "
          f"of them naming a command or flag that does not exist")
    return 1 if failed or stale or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
