#!/usr/bin/env bash
# Results-unchanged check (issue 25's "no result changes"): runs a fixed set of simulations
# with BUILD's clustersim and writes one `run --json --per-rank` output per run to OUT.
# Run it on a base build and on a changed build, then `python3 bench/bitcmp.py OUT_A OUT_B`
# lists every output whose simulated results differ (wall time, CPU time and memory are
# ignored). The set: every example model x 5 networks x 7 built-in apps, the same apps and the
# repository's traces on a generated star with the analytical NIC, the repository's
# and ../shared/external's traces on 3 networks, the I/O traces (partdiff on the imported PIOsimHD model), 16-rank
# collectives under Open MPI's rules, and SimGrid platform imports with a 32-rank trace.
#   bash bench/bitcmp.sh BUILD OUT
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?BUILD dir}
out=${2:?OUT dir}
cs="$build/tools/clustersim"
[ -x "$cs" ] || { echo "bench/bitcmp.sh: $cs is not built" >&2; exit 2; }
mkdir -p "$out"
ext=../shared/external
networks=(packet cut_through fluid simple contention)
apps=("pingpong:size=1MiB,iterations=10" "bcast:size=4MiB" "allreduce:size=1MiB"
  "allgather:size=64KiB" "alltoall:size=4KiB" "reduce:size=4MiB" "barrier")
n=0
one() {  # NAME ARGS...: one run, its JSON (or its error line and exit code) in OUT/NAME.json
  local name=$1
  shift
  "$cs" run "$@" --json --per-rank >"$out/$name.json" 2>"$out/$name.err"
  echo "exit $?" >>"$out/$name.err"
  n=$((n + 1))
}
for m in topologies/examples/*.xml; do
  mb=$(basename "$m" .xml)
  for net in "${networks[@]}"; do
    for a in "${apps[@]}"; do
      one "$mb.$net.${a%%:*}" "$m" --app "$a" --network "$net" --ranks 4 --oversubscribe
    done
  done
done
traces=(tests/data/traces/*.trace "$ext/simgrid-ti-traces/actions01.index.txt"
  "$ext/simgrid-ti-traces/ti_traces_32_1.index.txt"
  "$ext/otf2-scorep-sst-macro/traces.otf2" "$ext/dumpi-sst-dumpi/testtrace.meta")
for t in "${traces[@]}"; do
  [ -e "$t" ] || continue
  tb=$(basename "$t" | tr '.' '_')
  for net in packet fluid simple; do
    one "trace.$tb.$net" topologies/examples/star-16.xml --app "trace:$t" --network "$net" \
      --oversubscribe --skip-unknown
  done
done
# Collectives at 16 ranks with Open MPI's decision rules, on the 16+-node models.
for m in star-16 fat-tree-16 dragonfly-72 torus-4x4 psins-16; do
  for net in packet fluid simple; do
    for a in "${apps[@]:1}"; do
      one "$m.16.$net.${a%%:*}" "topologies/examples/$m.xml" --app "$a" --network "$net" \
        --ranks 16 --mpi openmpi_4.1
    done
  done
done
# The analytical NIC (no example model has it): a generated 16-node star, every app, and
# the repository's traces.
"$cs" generate star --nodes 16 --nic analytical >"$out/star-16-analytical.xml"
for a in "${apps[@]}"; do
  one "star-16-analytical.${a%%:*}" "$out/star-16-analytical.xml" --app "$a" --ranks 16
done
for t in tests/data/traces/*.trace; do
  one "star-16-analytical.trace.$(basename "$t" .trace)" "$out/star-16-analytical.xml" \
    --app "trace:$t" --oversubscribe --skip-unknown
done
# I/O: the repository's partdiff trace on the I/O models; HDTrace's partdiff on the imported
# PIOsimHD model (plain and PVFS2); SimGrid platforms imported and a ring trace on each.
for m in io-strided figure5-io-8; do
  for net in packet fluid; do
    one "$m.$net.partdiff-small" "topologies/examples/$m.xml" --network "$net" --oversubscribe \
      --app trace:tests/data/traces/partdiff-small.trace
  done
done
hd=$ext/hdtrace-partdiff-mpi-io
for fs in plain pvfs2; do
  flag=()
  [ "$fs" = pvfs2 ] && flag=(--file-system pvfs2)
  "$cs" import piosimhd "$hd/pvs-cluster-model.xml" "${flag[@]}" >"$out/import.pvs.$fs.xml" \
    2>"$out/import.pvs.$fs.err"
  one "partdiff.$fs" "$out/import.pvs.$fs.xml" --app "trace:$hd/partdiff-par.proj"
done
for p in "$ext"/simgrid-platforms/*.xml; do
  pb=$(basename "$p" .xml)
  "$cs" import simgrid "$p" >"$out/import.$pb.xml" 2>"$out/import.$pb.err"
  echo "exit $?" >>"$out/import.$pb.err"
  one "simgrid.$pb.ti32" "$out/import.$pb.xml" --network fluid --mpi simgrid --oversubscribe \
    --app "trace:$ext/simgrid-ti-traces/ti_traces_32_1.index.txt"
done
echo "bench/bitcmp.sh: $n runs in $out"
