#!/usr/bin/env bash
# Runs every libFuzzer harness of tests/fuzz for SECONDS each (default 20) and fails on any
# finding (a crash, a sanitizer report, an uncaught exception, a timeout, too much memory).
#   tests/fuzz/run.sh [SECONDS] [HARNESS...]
# Builds build-fuzz (clang, -DCLUSTERSIM_FUZZ=ON) if needed, makes the seed corpora from the
# repository's examples and ../shared/external into build-fuzz/corpus/HARNESS (the corpus
# then grows there across runs), and writes findings to build-fuzz/findings/HARNESS/.
# FUZZ_BUILD=DIR uses another build folder configured with -DCLUSTERSIM_FUZZ=ON instead (CI:
# its sanitizer build, which compiles the harnesses with the tests).
# Prints the executions of each harness. See tests/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_model_xml fuzz_native_text fuzz_native_binary
  fuzz_simgrid_ti fuzz_import_simgrid fuzz_import_piosimhd fuzz_hdtrace fuzz_jitter fuzz_units
  fuzz_merge fuzz_dumpi fuzz_otf2 fuzz_calibrate_json fuzz_sweep fuzz_sweep_results
  fuzz_placement fuzz_distributions fuzz_run_spec fuzz_goal)
build=${FUZZ_BUILD:-build-fuzz}
shared=../shared/external
jobs=$(nproc)

if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CLUSTERSIM_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "tests/fuzz/run.sh: $build is not configured with -DCLUSTERSIM_FUZZ=ON" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCLUSTERSIM_FUZZ=ON \
    -DCLUSTERSIM_BUILD_TESTS=OFF -DCLUSTERSIM_BUILD_BENCH=OFF -DCLUSTERSIM_MPI=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs" --target clustersim_fuzz

# ---- seed corpora ------------------------------------------------------------------------
seed() {  # seed HARNESS FILE...: copy the existing files into the harness's corpus
  local dir="$build/corpus/$1"
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$dir/$(echo "$f" | tr '/' '_')"; done
  return 0
}
shopt -s nullglob
seed fuzz_model_xml topologies/examples/*.xml tests/data/bad/*.xml
seed fuzz_native_text tests/data/traces/*.trace tests/data/bad/hostile/*.trace
seed fuzz_simgrid_ti tests/data/bad/hostile/*.ti "$shared"/simgrid-ti-traces/ti_traces_32_1/ti_trace{0,1,2}.txt \
  "$shared"/simgrid-ti-traces/replay/actions{0,1}.txt
seed fuzz_import_simgrid "$shared"/simgrid-platforms/*.xml
seed fuzz_dumpi "$shared"/dumpi-sst-dumpi/testtrace-000{0,1}.bin
seed fuzz_otf2 "$shared"/otf2-scorep-sst-macro/traces/{0,3}.evt
seed fuzz_import_piosimhd "$shared"/piosimhd-models/*-model.xml tests/data/bad/hostile/piosimhd-*.xml
seed fuzz_jitter traces/examples/jitter/*.jtr
seed fuzz_goal tests/data/goal/*.goal
seed fuzz_calibrate_json tests/data/calibrate/measured.json
seed fuzz_units
for u in 1ms 2.5us 100KiB 1.25GB/s 10Gbit/s 2.8G 1000 0.000000000001s 3min; do
  printf '%s' "$u" > "$build/corpus/fuzz_units/$(echo "$u" | tr '/' '_')"
done
# Model XML with <routes> (a SimGrid Full zone's complete table), when a clustersim binary is
# at hand: SimGrid's small_platform.xml imported.
if [ -x build/tools/clustersim ] && [ -f "$shared/simgrid-platforms/small_platform.xml" ]; then
  build/tools/clustersim import simgrid "$shared/simgrid-platforms/small_platform.xml" \
    >"$build/corpus/fuzz_model_xml/imported_small_platform.xml" 2>/dev/null || true
fi
# Native binary: the text fixtures converted, when a clustersim binary is at hand.
mkdir -p "$build/corpus/fuzz_native_binary"
if [ -x build/tools/clustersim ]; then
  for t in tests/data/traces/*.trace; do
    build/tools/clustersim convert "$t" "$build/corpus/fuzz_native_binary/$(basename "$t" .trace).cstb" \
      --to binary >/dev/null 2>&1 || true
  done
fi
# HDTrace: project, a NUL byte, then rank 0's trace (the harness splits there).
mkdir -p "$build/corpus/fuzz_hdtrace"
hd=tests/data/bad/hostile/hdtrace-self-type
{ cat "$hd/selftype.proj"; printf '\0'; cat "$hd/selftype_node0_0_0.trc"; } > "$build/corpus/fuzz_hdtrace/selftype"
p="$shared/hdtrace-partdiff-mpi-io"
if [ -f "$p/partdiff-par.proj" ]; then
  { cat "$p/partdiff-par.proj"; printf '\0'; head -c 20000 "$p/partdiff-par_node05_0_0.trc"; } \
    > "$build/corpus/fuzz_hdtrace/partdiff"
fi
# Rank files: a header of one rank and the trailer record (python3: exact struct layout).
mkdir -p "$build/corpus/fuzz_merge"
python3 - "$build/corpus/fuzz_merge/one-rank.csrank" <<'PY'
import struct, sys
header = b"CSRANK01" + struct.pack("<IIQiiq", 1, 0x01020304, 42, 0, 1, 0) + b"host".ljust(64, b"\0") + b"prog".ljust(64, b"\0")
assert len(header) == 168
end = struct.pack("<qqBBBBHHI", 10, 20, 101, 0, 0, 0, 0, 0, 0) + b"\0" * (120 - 32)
open(sys.argv[1], "wb").write(header + end)
PY

# Sweep files: the examples with their model named by absolute path (the harness's file is in
# a scratch folder), and a zipped one.
mkdir -p "$build/corpus/fuzz_sweep"
for f in sweep/examples/*.json; do
  sed "s#\.\./\.\./topologies#$PWD/topologies#" "$f" > "$build/corpus/fuzz_sweep/$(basename "$f")"
done
printf '{"base": {"model": "%s/topologies/examples/star-16.xml", "app": "bcast", "network": "fluid",
 "oversubscribe": true}, "axes": {"size": ["1KiB", "1MiB"], "ranks": [2, 32], "seed": 3},
 "zip": [["size", "ranks"]], "limits": {"time": "10min", "memory": "2GiB"}}\n' "$PWD" \
  > "$build/corpus/fuzz_sweep/zip.json"
# Sweep results: three records as `clustersim sweep` writes them (one failed).
mkdir -p "$build/corpus/fuzz_sweep_results"
{
  echo '{"axes":{"network":"fluid","ranks":2,"size":"1KiB"},"exit_code":0,"hash":"13c4e79ef48defd0","index":0,"result":{"network":{"model":"fluid","messages":1},"operations":{"Bcast":{"bytes":2048,"count":2,"time_s":3.36e-06}},"ranks":2,"simulated_time_s":3.28192e-06},"status":"ok"}'
  echo '{"axes":{"network":"simple","ranks":4,"size":"8KiB"},"exit_code":0,"hash":"a4c1345e76a69d2f","index":1,"result":{"network":{"model":"simple"},"ranks":4,"simulated_time_s":1.2e-05},"status":"ok"}'
  echo '{"axes":{"network":"simple","ranks":4,"size":"1MiB"},"exit_code":2,"hash":"b4c1345e76a69d2f","index":2,"error":"bad input","status":"failed"}'
} > "$build/corpus/fuzz_sweep_results/results.jsonl"
# JSON past the nesting limit (sweep/json_depth.hpp: 256 levels), on a later line: refused at
# that line, for the mutations to start from (with the dictionary tests/fuzz/json.dict).
python3 - "$build/corpus" <<'PY'
import sys
d = sys.argv[1]
deep = "[" * 300 + "]" * 300
open(d + "/fuzz_sweep/deep.json", "w").write('{"base": {"model": "m.xml", "app": "barrier"},\n "description": ' + deep + "}\n")
open(d + "/fuzz_sweep_results/deep.jsonl", "w").write('{"status": "ok", "axes": {}, "result": {}}\n{"status": "ok", "result": ' + deep + "}\n")
PY
# Placement maps and jitter distributions.
mkdir -p "$build/corpus/fuzz_placement" "$build/corpus/fuzz_distributions"
printf '0 n0\n1 n0 1\n2 n1 0 1 # a comment\n3 n7 1 1\n' > "$build/corpus/fuzz_placement/map"
printf 'process,node,value\n0,n0,1000us\n0,n0,1200us\n1,n1,1.1ms\n' \
  > "$build/corpus/fuzz_distributions/samples.csv"
printf 'process,node,lower,upper,count\n0,n0,0.001,0.002,10\n0,n0,0.002,0.004,3\n' \
  > "$build/corpus/fuzz_distributions/histogram.csv"
# Run specs: KEY VALUE lines (fuzz_run_spec.cpp; ranks and model are one byte each).
mkdir -p "$build/corpus/fuzz_run_spec"
s="$build/corpus/fuzz_run_spec"
printf 'app bcast:size=64KiB\nranks \x08\nnetwork fluid\nalgorithm bcast=pipeline:segment=8KiB\n' > "$s/bcast"
printf 'app allreduce:size=1KiB\nranks \x10\nmodel \x01\nmpi openmpi_4.1\nnetwork packet\n' > "$s/allreduce"
printf 'app alltoallv:size=1KiB\nranks \x04\nnetwork simple:collectives=messages\ncpu run_to_completion\n' > "$s/alltoallv"
printf 'app io:op=write,size=1MiB\nranks \x04\nmodel \x03\nalgorithm write_all=two_phase\n' > "$s/io"
printf 'app pingpong:size=1KiB,iterations=3\napp barrier\nranks \x02\nplacement sequential\n' > "$s/two-apps"

# ---- run -----------------------------------------------------------------------------------
# One libFuzzer process per harness (each is single-threaded), as many at once as there are
# cores; the results are printed in the harnesses' order.
fuzz_one() {  # HARNESS: runs it, writes its result line to findings/HARNESS/result
  local h=$1 log="$build/findings/$1/last-run.log" out="$build/findings/$1/result"
  local dict=()  # the JSON readers' harnesses mutate with JSON's tokens and runs of brackets
  case $h in fuzz_sweep | fuzz_sweep_results | fuzz_calibrate_json) dict=(-dict="$PWD/tests/fuzz/json.dict") ;; esac
  case $h in fuzz_goal) dict=(-dict="$PWD/tests/fuzz/goal.dict") ;; esac  # GOAL's keywords
  if "$build/tests/fuzz/$h" "$build/corpus/$h" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
       -artifact_prefix="$build/findings/$h/" >"$log" 2>&1; then
    echo "$h: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions in ${seconds} s, no finding" >"$out"
  else
    { echo "$h: FINDING (see $log and $build/findings/$h/)"
      grep -m3 -E "ERROR|SUMMARY|terminate|what\(\)" "$log" || tail -5 "$log"; } >"$out"
    return 1
  fi
}
running=0
for h in "${harnesses[@]}"; do
  mkdir -p "$build/findings/$h"
  rm -f "$build/findings/$h/result"
  fuzz_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
status=0
for h in "${harnesses[@]}"; do
  cat "$build/findings/$h/result" 2>/dev/null || echo "$h: no result (the harness did not run)"
  grep -q "no finding" "$build/findings/$h/result" 2>/dev/null || status=1
done
exit $status
