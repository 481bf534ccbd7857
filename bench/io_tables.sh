#!/usr/bin/env bash
# The parallel I/O tables of iosys/README.md, as markdown rows. Usage:
#   bench/io_tables.sh [BUILD_DIR]
# Each row is one `clustersim run ... --json`; the command is printed above each table.
set -euo pipefail
build=${1:-build}
cs="$build/tools/clustersim"
here=$(cd "$(dirname "$0")/.." && pwd)
row() {  # label, then clustersim run arguments
  local label=$1; shift
  "$cs" run "$@" --json | python3 -c '
import json, sys
j = json.load(sys.stdin); io = j["io"]; s = io["servers"]
label = sys.argv[1]
t = j["simulated_time_s"]; wall = j["wall_time_s"]
seeks = sum(x["track_seeks"] for x in s), sum(x["average_seeks"] for x in s)
req = sum(x["disk_requests"] for x in s)
hits = sum(x["cache_hits"] for x in s)
bw = io["throughput_bytes_per_s"]
cached = io["drained_after_run_bytes"] / 2**20; drain = io["drain_after_run_s"]
left = f"{cached:,.1f} MiB, {drain:.3f} s" if cached > 0 else "0"
print(f"| {label} | {t:.3f} s | {bw / 1e6:.1f} MB/s | {left} | {req:,} | {seeks[0]:,} / {seeks[1]:,} | {hits:,} | {wall:.2f} s |")
' "$label"
}
header() {
  echo "| $1 | simulated time | I/O throughput | still cached, drain after the run | disk requests | seeks (track / average) | cache hits | wall time |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
}

echo "## Figure 5: 8 clients x 1 GiB, servers on the same nodes, 2 GiB write-behind cache each"
echo "clustersim run topologies/examples/figure5-io-8.xml --ranks 8 --app io:op=OP,size=1GiB,transfer=T"
for op in write read; do
  echo; header "$op, record size"
  for t in 64KiB 256KiB 1MiB 4MiB 16MiB; do
    row "$t" "$here/topologies/examples/figure5-io-8.xml" --ranks 8 --app "io:op=$op,size=1GiB,transfer=$t"
  done
done

echo
echo "## Schedulers: 8 clients (4 per node) write interleaved 64 KiB blocks to 2 hdd servers"
echo "clustersim run topologies/examples/io-strided.xml --ranks 8 --placement sequential --app io:size=64MiB,transfer=64KiB,pattern=strided,mode=M --cache C"
echo; header "cache layer, mode"
for c in none aggregation reorder write_behind; do
  for m in independent collective; do
    row "$c, $m" "$here/topologies/examples/io-strided.xml" --ranks 8 --placement sequential \
      --app "io:size=64MiB,transfer=64KiB,pattern=strided,mode=$m" --cache "$c"
  done
done
