#!/bin/sh
# The tracer's overhead on a polling-heavy MPI program (issue 19): tests/mpi/polling_app
# (2 ranks under mpirun; per iteration the ranks wait for each other by polling MPI_Testany,
# MPI_Test and MPI_Iprobe) run ROUNDS times each, interleaved: untraced, traced with failed
# polls folded (the default), traced with every failed poll recorded
# (CLUSTERSIM_TRACE_POLLS=all, the behaviour before issue 19). Prints each run's wall time,
# the medians, the overhead of each traced mode over the untraced median, the rank-file
# size and the failed polls of the last traced run.
# Usage: bench/polling_overhead.sh [BUILD] [ITERATIONS] [ROUNDS]
set -eu
build=${1:-build}
iterations=${2:-2000}
rounds=${3:-3}
app=$build/tests/polling_app
tracer=$build/tools/mpi/libclustersim-trace.so
cli=$build/tools/clustersim
for f in "$app" "$tracer" "$cli"; do
  [ -e "$f" ] || { echo "polling_overhead.sh: $f: not built (cmake --build $build)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
now() { date +%s.%N; }
run() {  # mode -> prints wall seconds
  mode=$1
  rm -rf "$tmp/ranks"
  mkdir -p "$tmp/ranks"
  start=$(now)
  case $mode in
    none) $mpirun "$app" "$iterations" "$tmp/ck.dat" > /dev/null ;;
    fold) $mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_DIR="$tmp/ranks" \
            "$app" "$iterations" "$tmp/ck.dat" > /dev/null ;;
    all) $mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_POLLS=all \
            -x CLUSTERSIM_TRACE_DIR="$tmp/ranks" "$app" "$iterations" "$tmp/ck.dat" > /dev/null ;;
  esac
  end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$tmp/none"; : > "$tmp/fold"; : > "$tmp/all"
for i in $(seq "$rounds"); do
  for mode in none fold all; do
    t=$(run $mode)
    echo "$t" >> "$tmp/$mode"
    printf 'round %s %-4s %.3f s\n' "$i" "$mode" "$t"
    if [ "$mode" != none ]; then
      size=$(du -cb "$tmp"/ranks/*.csrank | tail -1 | cut -f1)
      echo "$mode $size" > "$tmp/size_$mode"
      "$cli" trace merge "$tmp/ranks" -o "$tmp/t.cstrace" | grep -E 'MPI calls|polls' | sed 's/^/    /'
    fi
  done
done
base=$(median < "$tmp/none")
for mode in none fold all; do
  m=$(median < "$tmp/$mode")
  lo=$(sort -g "$tmp/$mode" | head -1)
  hi=$(sort -g "$tmp/$mode" | tail -1)
  over=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.3f", 100 * (m - b) / b }')
  size=""
  [ -f "$tmp/size_$mode" ] && size=$(awk '{printf ", rank files %.2f MiB", $2 / 1048576}' "$tmp/size_$mode")
  printf '%-4s median %.3f s (%.3f-%.3f s over %s runs), overhead %+.1f %%%s\n' \
    "$mode" "$m" "$lo" "$hi" "$rounds" "$over" "$size"
done
