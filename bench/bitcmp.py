#!/usr/bin/env python3
"""Compares two bench/bitcmp.sh output folders: every simulated result must be identical.

Fields that measure the simulator rather than the simulation (wall time, CPU time, memory,
rates per wall second) are dropped before comparing, and each folder's own path is read as
OUT, so two folders of any names compare. Prints each differing file and the
first differing field; exit 0 when all are identical, 1 otherwise.
    python3 bench/bitcmp.py OUT_A OUT_B
"""
import json
import re
import sys
from pathlib import Path

IGNORED = re.compile(r"wall|cpu_time|cpu_s|memory|rss|per_second|per_s$|elapsed|load_s|host|phases",
                     re.I)


def clean(value):
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if not IGNORED.search(k)}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def load(path):
    # The runs of a folder name files in it (imported models): the folder is not a result.
    text = path.read_text(errors="replace").replace(str(path.parent), "OUT")
    if path.suffix == ".json" and text.strip():
        try:
            return clean(json.loads(text))
        except json.JSONDecodeError:
            pass
    return text


def first_difference(a, b, where=""):
    if type(a) is not type(b):
        return f"{where or '/'}: {str(a)[:80]} != {str(b)[:80]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}/{k}: only in one"
            d = first_difference(a[k], b[k], f"{where}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where or '/'}: {str(a)[:80]} != {str(b)[:80]}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a_dir, b_dir = Path(sys.argv[1]), Path(sys.argv[2])
    names = sorted({p.name for p in a_dir.iterdir()} | {p.name for p in b_dir.iterdir()})
    differ = 0
    for name in names:
        a, b = a_dir / name, b_dir / name
        if not a.exists() or not b.exists():
            print(f"{name}: only in {'B' if not a.exists() else 'A'}")
            differ += 1
            continue
        d = first_difference(load(a), load(b))
        if d:
            print(f"{name}: {d}")
            differ += 1
    print(f"{len(names)} files, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
