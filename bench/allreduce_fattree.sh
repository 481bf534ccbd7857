#!/bin/sh
# Allreduce of 8 MiB on 1,024 ranks of a two-level fat tree XGFT(2; 32,32; 1,16) (32 leaf
# switches of 32 nodes, 16 spines, 100 Gbit/s links, 1 us), one rank per node, under the
# packet and the fluid network models: for every registered allreduce algorithm the
# simulated time and the wall time of the run (`clustersim run --json`). One run each.
# Usage: bench/allreduce_fattree.sh [BUILD_DIR] [SIZE] [RANKS-per-leaf]
set -eu
build=${1:-build}
size=${2:-8MiB}
per_leaf=${3:-32}
cs="$build/tools/clustersim"
model=$(mktemp --suffix=.xml)
trap 'rm -f "$model"' EXIT
cat > "$model" <<XML
<?xml version="1.0"?>
<cluster name="fat-tree-$((per_leaf * 32))">
  <network granularity="64KiB" routing="round_robin" nic="packet" eager-threshold="64KiB"/>
  <node-type name="node" memory="16GiB">
    <socket name="s0" cores="1" speed="2.5G"/>
    <memory-node name="mem0" bandwidth="20GB/s" local-bandwidth="20GB/s"/>
    <nic name="nic"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="20GB/s"/>
    <cable from="nic" to="mem0" latency="500ns" bandwidth="16GB/s"/>
  </node-type>
  <fat-tree type="node" levels="2" down="$per_leaf,32" up="1,16" parallel="1,1" prefix="n"
            link-latency="1us" link-bandwidth="100Gbit/s"/>
</cluster>
XML
ranks=$((per_leaf * 32))
echo "| algorithm | network | simulated time | wall time | events |"
echo "| --- | --- | --- | --- | --- |"
for alg in recursive_doubling ring segmented_ring rabenseifner reduce_bcast linear knomial; do
  for net in packet fluid; do
    out=$("$cs" run "$model" --app "allreduce:size=$size" --ranks "$ranks" \
          --algorithm "allreduce=$alg" --network "$net" --json)
    echo "$out" | python3 -c "
import json, sys
j = json.load(sys.stdin)
print('| \`$alg\` | $net | {:.4f} ms | {:.2f} s | {:,} |'.format(
    j['simulated_time_s'] * 1e3, j['wall_time_s'], j['events']))"
  done
done
