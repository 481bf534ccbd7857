#!/usr/bin/env bash
# Concurrent transfers on this machine (issue 23): bench/concurrent_isend.c built with mpicc
# and run RUNS times (default 5) on 2 ranks, then per case (direction, size, k) the median over
# the runs of each run's median and p10, the ratio to k one-way times (p10s), and the
# receiver's first completion. About 5 s per run on an idle machine. OUT (default
# /tmp/clustersim-concurrent) keeps the binary and each run's output.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/clustersim-concurrent}
runs=${RUNS:-5}
mkdir -p "$out"
mpicc -O2 -o "$out/concurrent_isend" bench/concurrent_isend.c
for ((i = 1; i <= runs; i++)); do
  echo "run $i: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  mpirun --allow-run-as-root -np 2 "$out/concurrent_isend" >"$out/run$i.txt"
done
python3 - "$out" "$runs" <<'PY'
import statistics as st, sys
out, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for i in range(1, runs + 1):
    for line in open(f"{out}/run{i}.txt"):
        m = dict(kv.split("=") for kv in line.split())
        key = (int(m["dir"]), int(m["s"]), int(m["k"]))
        rows.setdefault(key, []).append((float(m["med_us"]), float(m["p10"]), float(m["first_recv_med_us"])))
one = {}
print("| direction | size | k | group median (runs' min-max) | group p10 | p10 / (k x one p10) | first completion |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for (d, s, k), v in sorted(rows.items()):
    med = [x[0] for x in v]; p10 = st.median([x[1] for x in v]); first = st.median([x[2] for x in v])
    if k == 1: one[(d, s)] = p10
    print(f"| {'one way' if d == 1 else 'both'} | {s // 1024} KiB | {k} | {st.median(med):.1f} us ({min(med):.1f}-{max(med):.1f}) "
          f"| {p10:.1f} us | {p10 / (k * one[(1, s)]):.2f} | {f'{first:.1f} us' if d == 1 and k > 1 else '-'} |")
PY
