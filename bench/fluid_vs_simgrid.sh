#!/usr/bin/env bash
# clustersim's fluid model against SimGrid's flow model (CM02, no cross-traffic) on the same
# ring allgather on the same star, in one run: N single-socket nodes, 1.25 GB/s and 5 us
# links, ring allgather of SIZE per rank (N x (N - 1) messages). clustersim runs
# `bench_models N allgather:size=SIZE fluid`; SimGrid runs bench/simgrid_ring.cpp, compiled
# here against the installed SimGrid (Debian libsimgrid-dev). The normal build never needs
# SimGrid: without it this script says so and exits 0.
#
# Usage: bench/fluid_vs_simgrid.sh [BUILD_DIR] [REPEATS] [N...]
#   defaults: build 3 1024
#   BASE_BENCH=PATH  also runs another build's bench_models (e.g. main's, for a before/after
#                    in the same run), alternating with the other two
# The two programs alternate (clustersim first in odd rounds, SimGrid first in even ones).
# Each run's wall time and CPU time (user + system, /usr/bin/time) are printed, then per
# size the median, min and max of each and the ratio of the medians. On a shared machine
# the CPU time is the steadier figure: the wall time includes waiting for a core.
# clustersim's CPU time is the one bench_models prints ("process cpu": clock_gettime of the
# whole process, in nanoseconds): /usr/bin/time counts in 10 ms steps, 6 % of a 0.16 s run.
# A bench_models that does not print it (an older BASE_BENCH) is timed by /usr/bin/time.
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
shift $(($# > 2 ? 2 : $#))
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1024)
msg=${MSG_SIZE:-10KiB}
msg_bytes=${MSG_BYTES:-10240}

if ! [[ "$repeats" =~ ^[1-9][0-9]*$ ]]; then
  echo "fluid_vs_simgrid.sh: REPEATS must be a positive integer, got '$repeats'" >&2
  exit 2
fi
bench_models="$build/bench/bench_models"
if [ ! -x "$bench_models" ]; then
  echo "fluid_vs_simgrid.sh: $bench_models not found (build first)" >&2
  exit 2
fi
if [ ! -f /usr/include/simgrid/s4u.hpp ]; then
  echo "SimGrid is not installed (apt-get install -y libsimgrid-dev): comparison skipped"
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sg="$work/simgrid_ring"
g++ -std=c++17 -O2 -o "$sg" "$here/simgrid_ring.cpp" -lsimgrid
sg_version=$(dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null || echo unknown)
echo "SimGrid $sg_version (CM02, no cross-traffic) vs clustersim fluid; ring allgather of $msg per rank"

# Runs a command under /usr/bin/time; prints "WALL_S CPU_S" and keeps its output in $work/out.
timed() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
    echo "fluid_vs_simgrid.sh: '$*' failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  read -r wall user sys < "$work/time"
  awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { print w, u + s }'
}

stats() {  # numbers on stdin -> "median (min-max)"
  sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.4f s (%.4f-%.4f s)", m, v[1], v[NR] }'
}
# bench_models' own process CPU time from $work/out, or the given fallback.
own_cpu() { { grep -o 'process cpu [0-9.]* s' "$work/out" || true; } | awk -v f="$1" '{ v = $3 } END { print (v == "") ? f : v }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for n in "${sizes[@]}"; do
  : > "$work/cs_wall"; : > "$work/cs_cpu"; : > "$work/sg_wall"; : > "$work/sg_cpu"
  : > "$work/bs_wall"; : > "$work/bs_cpu"
  for ((round = 1; round <= repeats; ++round)); do
    order=(cs sg)
    [ -n "${BASE_BENCH:-}" ] && order=(cs bs sg)
    [ $((round % 2)) -eq 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
    for who in "${order[@]}"; do
      if [ "$who" = bs ]; then
        read -r wall cpu < <(timed "$BASE_BENCH" "$n" "allgather:size=$msg" fluid)
        cpu=$(own_cpu "$cpu")
        sim=$(grep -o 'simulated *[0-9.]* [a-z]*' "$work/out" | sed 's/simulated *//')
        echo "$wall" >> "$work/bs_wall"; echo "$cpu" >> "$work/bs_cpu"
        printf '  round %d  BASE_BENCH fluid  %6d ranks  simulated %-12s wall %7.3f s  cpu %7.4f s\n' \
          "$round" "$n" "$sim" "$wall" "$cpu"
      elif [ "$who" = cs ]; then
        read -r wall cpu < <(timed "$bench_models" "$n" "allgather:size=$msg" fluid)
        cpu=$(own_cpu "$cpu")
        sim=$(grep -o 'simulated *[0-9.]* [a-z]*' "$work/out" | sed 's/simulated *//')
        echo "$wall" >> "$work/cs_wall"; echo "$cpu" >> "$work/cs_cpu"
        printf '  round %d  clustersim fluid  %6d ranks  simulated %-12s wall %7.3f s  cpu %7.4f s\n' \
          "$round" "$n" "$sim" "$wall" "$cpu"
      else
        read -r wall cpu < <(timed "$sg" "$n" "$msg_bytes" --cfg=network/model:CM02 \
          --cfg=network/crosstraffic:0 --log=root.thres:critical)
        sim=$(grep -o 'simulated [0-9.]* ms' "$work/out" | sed 's/simulated //')
        echo "$wall" >> "$work/sg_wall"; echo "$cpu" >> "$work/sg_cpu"
        printf '  round %d  SimGrid           %6d ranks  simulated %-12s wall %7.3f s  cpu %7.3f s\n' \
          "$round" "$n" "$sim" "$wall" "$cpu"
      fi
    done
  done
  ratio_wall=$(awk -v a="$(median < "$work/sg_wall")" -v b="$(median < "$work/cs_wall")" 'BEGIN { print a / b }')
  ratio_cpu=$(awk -v a="$(median < "$work/sg_cpu")" -v b="$(median < "$work/cs_cpu")" 'BEGIN { print a / b }')
  echo "$n ranks, $repeats rounds: median (min-max)"
  echo "  clustersim fluid: wall $(stats < "$work/cs_wall"), cpu $(stats < "$work/cs_cpu")"
  echo "  SimGrid:          wall $(stats < "$work/sg_wall"), cpu $(stats < "$work/sg_cpu")"
  if [ -n "${BASE_BENCH:-}" ]; then
    echo "  BASE_BENCH fluid: wall $(stats < "$work/bs_wall"), cpu $(stats < "$work/bs_cpu")"
  fi
  printf '  clustersim is %.1fx faster (medians of wall), %.1fx (medians of cpu)\n' "$ratio_wall" "$ratio_cpu"
done
