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
