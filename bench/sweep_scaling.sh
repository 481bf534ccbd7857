#!/usr/bin/env bash
# The sweep engines' scaling and per-point overhead (issue 24). Usage:
#   bench/sweep_scaling.sh [BUILD_DIR] [ROUNDS]        (cheap points)
#   HEAVY=1 bench/sweep_scaling.sh [BUILD_DIR] [ROUNDS] (points of ~20-40 ms of simulation:
#     a stream of 1 .. 6.75 GiB on star-16 x 10 seeds, to see the speed-up without start-up)
# A sweep of 240 cheap points (pingpong on topologies/examples/two-nodes.xml: 24 sizes x
# 10 iteration counts, a few ms each, mostly process start-up) is run
#   direct  - the 240 `clustersim run ... --json` commands of `sweep --list`, one after the
#             other from a bash loop (what a user's script does);
#   jobs1   - clustersim sweep --jobs 1;   jobs2 - --jobs 2;
#   mpi2    - mpirun -np 2 clustersim sweep (wall time with mpirun's start-up, and the
#             sweep's own wall time, which starts after MPI_Init);
# each with a fresh output folder, ROUNDS times (default 2), the order reversed every other
# round (the machine may be shared). Overhead per point = (jobs1 - direct) / 240, and the
# engine's own time beyond its children's lifetimes = (jobs1 - sum of records' wall_time_s) / 240.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${2:-2}
cs="$build/tools/clustersim"
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes='"1B","2B","4B","8B","16B","32B","64B","128B","256B","512B","1KiB","2KiB","4KiB","8KiB","16KiB","32KiB","64KiB","128KiB","256KiB","512KiB","1MiB","2MiB","4MiB","8MiB"'
label="pingpong on two-nodes.xml"
if [ "${HEAVY:-0}" = 1 ]; then
  sizes=""
  for k in $(seq 4 27); do sizes+="${sizes:+,}\"$((k * 256))MiB\""; done
  label="stream on star-16.xml"
  cat > "$work/scaling.json" <<JSON
{"base": {"model": "$src/topologies/examples/star-16.xml", "app": "stream"},
 "axes": {"size": [$sizes], "seed": 10}}
JSON
else
  cat > "$work/scaling.json" <<JSON
{"base": {"model": "$src/topologies/examples/two-nodes.xml", "app": "pingpong"},
 "axes": {"size": [$sizes], "iterations": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}
JSON
fi
n=$("$cs" sweep "$work/scaling.json" --list | tail -1 | cut -d' ' -f1)
"$cs" sweep "$work/scaling.json" --list | grep '^  clustersim run' | sed "s|^  clustersim|\"$cs\"|" > "$work/commands.sh"
now() { date +%s.%N; }
# Each measured command in a session of its own (Linux groups a session's processes for CPU
# fairness, sched_autogroup): mpirun's ranks get a fresh session anyway, so the others do too.
fresh=()
command -v setsid > /dev/null && fresh=(setsid -w)
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
mpirun_cmd=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_cmd+=(--allow-run-as-root)
run_one() {  # name -> prints "name wall_s [sweep_wall_s] [sum_point_s]"
  local name=$1 out="$work/out-$1" t0 t1
  rm -rf "$out"
  case $name in
    direct)
      t0=$(now); (cd "$work" && "${fresh[@]}" bash -c 'while read -r line; do eval "$line" > /dev/null; done < commands.sh'); t1=$(now)
      echo "direct $(calc "$t1 - $t0")";;
    jobs1|jobs2)
      t0=$(now); "${fresh[@]}" "$cs" sweep "$work/scaling.json" --jobs "${name#jobs}" --out "$out" > "$work/$name.txt"; t1=$(now)
      local inner sum
      inner=$(grep -o 'in [0-9.]* s wall' "$work/$name.txt" | cut -d' ' -f2)
      sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_time_s") c = i; next } { s += $c } END { printf "%.6f", s }' "$out/results.csv")
      echo "$name $(calc "$t1 - $t0") $inner $sum";;
    mpi2)
      t0=$(now); "${fresh[@]}" "${mpirun_cmd[@]}" -np 2 "$cs" sweep "$work/scaling.json" --out "$out" > "$work/$name.txt" 2> "$work/$name.err" || true; t1=$(now)
      inner=$(grep -o 'in [0-9.]* s wall' "$work/$name.txt" | cut -d' ' -f2)
      echo "mpi2 $(calc "$t1 - $t0") $inner";;
  esac
}
echo "sweep of $n points ($label), $rounds rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  order=(direct jobs1 jobs2 mpi2)
  (( r % 2 == 0 )) && order=(mpi2 jobs2 jobs1 direct)
  for name in "${order[@]}"; do
    line=$(run_one "$name")
    set -- $line
    case $1 in
      direct) printf "round %d  direct loop    %7.3f s  (%.2f ms per point)\n" "$r" "$2" "$(calc "$2 * 1000 / $n")"; direct=$2;;
      jobs*)  printf "round %d  sweep --%s   %7.3f s  (sweep's own: %.3f s; children alive %.3f s in all; engine beyond children %.2f ms per point)\n" \
                "$r" "${1/jobs/jobs }" "$2" "$3" "$4" "$(calc "($3 - $4 / ${1#jobs}) * 1000 / $n")";;
      mpi2)   printf "round %d  mpirun -np 2   %7.3f s  (sweep's own after MPI_Init: %.3f s)\n" "$r" "$2" "$3";;
    esac
    [ "$1" = jobs1 ] && jobs1=$2
  done
  printf "round %d  overhead per point (jobs 1 - direct) / %d = %.2f ms\n" "$r" "$n" "$(calc "($jobs1 - $direct) * 1000 / $n")"
done
