#!/usr/bin/env bash
# Runs every benchmark with the figures the issues ask for. Usage: bench/run.sh [BUILD_DIR]
# Build first (Release-like flags): cmake -S . -B build -G Ninja && ninja -C build
set -euo pipefail
build=${1:-build}
echo "== PIOsimHD 4.1: 100 GiB between two processes on one node, 100 KiB packets"
"$build/bench/bench_stream" 100GiB 100KiB packet
"$build/bench/bench_stream" 100GiB 100KiB analytical
echo "== Star models of N single-process nodes: build time and peak memory"
for n in 1024 4096 16384 65536; do "$build/bench/bench_star_build" "$n"; done
echo "== PIOsimHD 4.2: bcast 100 MiB by binary tree, 100 KiB packets, one rank per node on a star"
echo "   (the 65,536-node packet-NIC case takes about 4-5 minutes on a 2-core machine)"
for nic in packet analytical; do
  for n in 1024 4096 16384 65536; do "$build/bench/bench_bcast" "$n" 100MiB binary_tree 100KiB "$nic"; done
done
echo "== Trace replay: 1,024 ranks x 10,000 records (issue 5: 5 M trace events/s; issue 9, simple: 10 M)"
for m in packet analytical fluid simple; do "$build/bench/bench_replay" 1024 10000 "$m"; done
echo "== Parallel I/O: the tables of iosys/README.md (PIOsimHD Figure 5, I/O schedulers)"
bash "$(dirname "$0")/io_tables.sh" "$build"
echo "== OS jitter: jitSim prediction, 1,048,576 tasks x 100 phases, binary-tree barrier (issue 6: < 30 s, < 2 GiB)"
"$build/bench/bench_jitter" "$(dirname "$0")/../traces/examples/jitter/this-machine.core0.jtr" 1048576 100 2
echo "== Sweeps: engine overhead and speed-up on 240 cheap points (issue 24: < 5 ms per point)"
bash "$(dirname "$0")/sweep_scaling.sh" "$build" 2
echo "== Fluid model vs SimGrid 3.32: ring allgather of 10 KiB on a 1,024-node star (issue 25: >= 20x; skipped without SimGrid)"
bash "$(dirname "$0")/fluid_vs_simgrid.sh" "$build" 3 1024
