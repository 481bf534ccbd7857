#!/bin/sh
# Trace, merge and replay at a real size (issue 19): clustersim-bench's `paired` phase
# (MPI_Sendrecv between ranks 0 and 1) with CALLS calls per rank (default 5,000,000: 10 M
# MPI calls recorded), untraced and traced; then `trace merge` and `run` (without --out: the
# outputs are not streamed yet, see bench/README.md). Prints wall times, the tracer's
# overhead, the rank files' size, merge and replay time and peak memory (/usr/bin/time).
# Usage: bench/real_size.sh [BUILD] [CALLS] [PAYLOAD]
set -eu
build=${1:-build}
calls=${2:-5000000}
payload=${3:-1KiB}
bench=$build/tools/mpi/clustersim-bench
tracer=$build/tools/mpi/libclustersim-trace.so
cli=$build/tools/clustersim
model=$(dirname "$0")/../topologies/examples/calibrated-this-machine.xml
for f in "$bench" "$tracer" "$cli"; do
  [ -e "$f" ] || { echo "real_size.sh: $f: not built (cmake --build $build)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
args="--only paired:$payload --small-repeats $calls --repeats $calls --warmup 1"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
s=$(now); $mpirun "$bench" $args > /dev/null; e=$(now); plain=$(secs "$s" "$e")
mkdir "$tmp/ranks"
s=$(now)
$mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_DIR="$tmp/ranks" "$bench" $args > /dev/null
e=$(now); traced=$(secs "$s" "$e")
echo "paired:$payload, $calls calls per rank, 2 ranks"
echo "  untraced $plain s, traced $traced s, overhead $(awk -v a="$plain" -v b="$traced" 'BEGIN { printf "%+.1f", 100 * (b - a) / a }') %"
echo "  rank files $(du -cb "$tmp"/ranks/*.csrank | tail -1 | awk '{ printf "%.1f MiB", $1 / 1048576 }')"
/usr/bin/time -f "  merge: %e s wall, peak %M KiB" "$cli" trace merge "$tmp/ranks" -o "$tmp/t.cstrace" 2>&1 |
  grep -E 'MPI calls|rank files|trace  |merge:' | sed 's/^  */  /'
rm -rf "$tmp/ranks"
/usr/bin/time -f "  replay: %e s wall, peak %M KiB" "$cli" run "$model" --app trace:"$tmp/t.cstrace" 2>&1 |
  grep -E 'simulated time|replay:' | sed 's/^  */  /'
