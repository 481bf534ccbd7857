#!/usr/bin/env bash
# clustersim's fluid model against SimGrid's flow model (S4U, CM02, no cross-traffic) and
# against clustersim's packet model, on dense traffic patterns on the same star: N
# single-socket nodes, each with a split-duplex link of 1.25 GB/s and 5 us to the star's
# centre (`clustersim generate star --nodes N --link-bandwidth 1.25GB/s --link-latency 5us`;
# SimGrid: bench/simgrid_patterns.cpp, compiled here against the installed SimGrid, Debian
# libsimgrid-dev). Per case, each of
#   simgrid  simgrid_patterns PATTERN N BYTES --eager-threshold=(the star's) CM02, no cross-traffic
#   fluid    clustersim run STAR --ranks N --app APP --algorithm OP=ALG --network fluid --json
#   packet   the same with --network packet
# runs REPEATS times, in alternating order (simgrid, fluid, packet in odd rounds, the reverse
# in even ones). Each run's wall time, CPU time (user + system) and peak memory (%M) come from
# /usr/bin/time (10 ms steps: a run under 0.1 s has a coarse wall time and speed-up); events
# and simulated time from clustersim's JSON ("events", "simulated_time_ps"), SimGrid's
# simulated time and number of communications (data and rendezvous control) from its line.
# The normal build never needs SimGrid: without it this script says so and exits 0.
#
# Usage: bench/flow_dense.sh [CS_BINARY] [REPEATS] [CASE...]
#   CS_BINARY  clustersim (default build/tools/clustersim)
#   REPEATS    rounds per case (default 3)
#   CASE       PATTERN:N[:SIZE], PATTERN one of ring_allgather (allgather=ring),
#              alltoall_pairwise (alltoall=pairwise), alltoall_linear (alltoall=linear),
#              gather_linear (gather=linear, root 0); SIZE what one rank passes (one block),
#              in B, KiB, MiB, GiB, KB, MB or GB (default 10KiB for ring_allgather, 1MiB
#              for gather_linear, 64KiB for the alltoalls). Default (or CASES="CASE ..."):
#              alltoall_pairwise:256 alltoall_pairwise:1024 alltoall_linear:256
#              alltoall_linear:512 alltoall_linear:1024 gather_linear:1024
#              gather_linear:4096 ring_allgather:1024
#   TIMEOUT=S  seconds per run (default 900): a run still going then is stopped and shown as
#              "> S s"; that program is not run again on that case
#   TOOLS="simgrid fluid packet"  the programs to run (default all three)
# Prints one line per run, then two Markdown tables: the summary (wall medians, the speed-up
# of fluid over SimGrid, both simulated times and their ratio fluid / SimGrid) and every
# figure per program (wall, CPU and peak memory as median (min–max), events, simulated time).
# Simulated times of SimGrid and fluid further apart than 3 % are named at the end.
set -euo pipefail

usage='usage: flow_dense.sh [CS_BINARY] [REPEATS] [PATTERN:N[:SIZE]...]'
cs=${1:-build/tools/clustersim}
repeats=${2:-3}
shift $(($# > 2 ? 2 : $#))
cases=("$@")
[ ${#cases[@]} -eq 0 ] && read -r -a cases <<< "${CASES:-}"
[ ${#cases[@]} -eq 0 ] && cases=(alltoall_pairwise:256 alltoall_pairwise:1024 alltoall_linear:256
  alltoall_linear:512 alltoall_linear:1024 gather_linear:1024 gather_linear:4096 ring_allgather:1024)
limit=${TIMEOUT:-900}
read -r -a tools <<< "${TOOLS:-simgrid fluid packet}"

bad() { echo "flow_dense.sh: $*; $usage" >&2; exit 2; }
# A size with a unit (64KiB) -> bytes; fails on anything else.
to_bytes() {
  awk -v s="$1" 'BEGIN {
    f["B"] = 1; f[""] = 1; f["KiB"] = 1024; f["MiB"] = 1048576; f["GiB"] = 1073741824
    f["KB"] = 1000; f["MB"] = 1000000; f["GB"] = 1000000000
    if (!match(s, /^[0-9]+/)) exit 1
    n = substr(s, 1, RLENGTH); u = substr(s, RLENGTH + 1)
    if (!(u in f) || n + 0 == 0) exit 1
    printf "%.0f\n", n * f[u] }'
}

[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || bad "REPEATS must be a positive integer, got '$repeats'"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || bad "TIMEOUT must be a positive number of seconds, got '$limit'"
[ -x "$cs" ] && [ -f "$cs" ] || bad "$cs is not an executable (give the clustersim binary)"
[ ${#tools[@]} -gt 0 ] || bad "TOOLS names no program"
for t in "${tools[@]}"; do
  [[ "$t" =~ ^(simgrid|fluid|packet)$ ]] || bad "TOOLS: '$t' is not simgrid, fluid or packet"
done
declare -A c_pattern c_ranks c_size c_bytes
for c in "${cases[@]}"; do
  IFS=: read -r pattern n size extra <<< "$c"
  [ -z "${extra:-}" ] || bad "case '$c' is not PATTERN:N[:SIZE]"
  case "$pattern" in
    ring_allgather) : "${size:=10KiB}" ;;
    alltoall_pairwise | alltoall_linear) : "${size:=64KiB}" ;;
    gather_linear) : "${size:=1MiB}" ;;
    *) bad "case '$c': PATTERN must be ring_allgather, alltoall_pairwise, alltoall_linear or gather_linear" ;;
  esac
  [[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 1048576 ] ||
    bad "case '$c': N must be an integer in 2..1048576"
  bytes=$(to_bytes "$size") || bad "case '$c': SIZE must be a positive size like 64KiB, got '$size'"
  [[ "$size" =~ [A-Za-z]$ ]] || size="${size}B"
  c_pattern[$c]=$pattern; c_ranks[$c]=$n; c_size[$c]=$size; c_bytes[$c]=$bytes
done

if [ ! -f /usr/include/simgrid/s4u.hpp ]; then
  echo "SimGrid is not installed (apt-get install -y libsimgrid-dev): comparison skipped"
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sg="$work/simgrid_patterns"
g++ -std=c++17 -O2 -o "$sg" "$here/simgrid_patterns.cpp" -lsimgrid
sg_version=$(dpkg-query -W -f '${Version}' libsimgrid-dev 2>/dev/null || echo unknown)
sg_cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thres:critical)
echo "flow_dense.sh: $("$cs" --version 2>/dev/null | head -1) vs SimGrid $sg_version (CM02, no cross-traffic)"
echo "  $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load$(uptime | sed 's/.*load average//'), $repeats rounds, timeout $limit s"

# Runs a command under /usr/bin/time and the time limit; sets status (ok or timeout), wall,
# cpu (user + system, s) and mem (peak resident, KiB: %M); keeps its output in $work/out.
timed() {
  local rc=0 user sys
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" timeout -k 10 "$limit" "$@" \
    > "$work/out" 2> "$work/err" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status=timeout; return; fi
  if [ "$rc" -ne 0 ]; then
    echo "flow_dense.sh: '$*' failed (exit $rc):" >&2
    tail -n 5 "$work/err" >&2
    exit 1
  fi
  read -r wall user sys mem < <(tail -n 1 "$work/time")
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  status=ok
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# FILE -> "median (min–max)" with printf FORMAT and UNIT; empty file: "—".
stats() {
  [ -s "$1" ] || { echo "—"; return; }
  sort -g "$1" | awk -v f="$2" -v u="$3" '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    if (NR == 1) printf f " %s", m, u; else printf f " %s (" f "–" f ")", m, u, v[1], v[NR] }'
}
declare -A star_of eager_of
star() {  # the generated star of $1 nodes (made once) and its eager threshold in bytes
  local f="$work/star-$1.xml" e
  if [ ! -f "$f" ]; then
    "$cs" generate star --nodes "$1" --link-bandwidth 1.25GB/s --link-latency 5us \
      --granularity 100KiB --forwarding store_and_forward > "$f"  # as its figures were measured
    e=$(grep -o 'eager-threshold="[^"]*"' "$f" | head -1 | sed 's/.*="\(.*\)"/\1/')
    eager_of[$1]=$(to_bytes "${e:-64KiB}")  # clustersim's default without the attribute
  fi
  star_of[$1]=$f
}

declare -A app_of alg_of
app_of=([ring_allgather]=allgather [alltoall_pairwise]=alltoall [alltoall_linear]=alltoall [gather_linear]=gather)
alg_of=([ring_allgather]=allgather=ring [alltoall_pairwise]=alltoall=pairwise
  [alltoall_linear]=alltoall=linear [gather_linear]=gather=linear)
declare -A timed_out  # "case tool" -> round it timed out in
for c in "${cases[@]}"; do
  pattern=${c_pattern[$c]}; n=${c_ranks[$c]}; size=${c_size[$c]}; bytes=${c_bytes[$c]}
  star "$n"
  key=$(echo "$c" | tr ':' '_')
  for t in "${tools[@]}"; do for f in wall cpu mem events sim; do : > "$work/$key.$t.$f"; done; done
  echo "== $pattern $size, $n ranks (eager threshold ${eager_of[$n]} B)"
  for ((round = 1; round <= repeats; ++round)); do
    order=("${tools[@]}")
    [ $((round % 2)) -eq 0 ] && mapfile -t order < <(printf "%s\n" "${tools[@]}" | tac)
    for t in "${order[@]}"; do
      if [ -n "${timed_out[$c $t]:-}" ]; then
        printf '  round %d  %-7s skipped (over %s s in round %s)\n' "$round" "$t" "$limit" "${timed_out[$c $t]}"
        continue
      fi
      if [ "$t" = simgrid ]; then
        timed "$sg" "$pattern" "$n" "$bytes" "--eager-threshold=${eager_of[$n]}" "${sg_cfg[@]}"
      else
        timed "$cs" run "${star_of[$n]}" --ranks "$n" --app "${app_of[$pattern]}:size=$size" \
          --algorithm "${alg_of[$pattern]}" --network "$t" --json -q
      fi
      if [ "$status" = timeout ]; then
        timed_out[$c $t]=$round
        printf '  round %d  %-7s over %s s: stopped\n' "$round" "$t" "$limit"
        continue
      fi
      if [ "$t" = simgrid ]; then
        sim=$(grep -o 'simulated [0-9.]* ms' "$work/out" | awk '{ print $2 }')
        events=$(grep -o 'comms [0-9]*' "$work/out" | awk '{ print $2 }')
        what="comms"
      else
        sim=$(grep -o '"simulated_time_ps": *[0-9]*' "$work/out" | awk '{ printf "%.6f", $2 / 1e9 }')
        events=$(grep -o '"events": *[0-9]*' "$work/out" | awk '{ print $2 }')
        what="events"
      fi
      [ -n "$sim" ] && [ -n "$events" ] || { echo "flow_dense.sh: no simulated time in the output of $t:" >&2; cat "$work/out" >&2; exit 1; }
      echo "$wall" >> "$work/$key.$t.wall"; echo "$cpu" >> "$work/$key.$t.cpu"
      mem=$(awk -v k="$mem" 'BEGIN { printf "%.1f", k / 1024 }')  # KiB -> MiB
      echo "$mem" >> "$work/$key.$t.mem"; echo "$events" >> "$work/$key.$t.events"
      echo "$sim" >> "$work/$key.$t.sim"
      printf '  round %d  %-7s simulated %14s ms  wall %8.2f s  cpu %8.2f s  peak %8.1f MiB  %s %s\n' \
        "$round" "$t" "$sim" "$wall" "$cpu" "$mem" "$what" "$events"
    done
  done
done

# One cell: wall (or cpu, mem) of case key $1, tool $2; "> LIMIT s" if it timed out.
cell() {
  local c=$1 t=$2 f=$3
  if [ -n "${timed_out[$c $t]:-}" ]; then [ "$f" = mem ] && echo "—" || echo "> $limit s"; return; fi
  case $f in
    mem) stats "$work/$4.$t.mem" "%.1f" MiB ;;
    *) stats "$work/$4.$t.$f" "%.2f" s ;;
  esac
}
sim_of() {  # the simulated time of case key $1, tool $2 ("varies" if the runs differ)
  [ -s "$work/$1.$2.sim" ] || { echo "—"; return; }
  [ "$(sort -u "$work/$1.$2.sim" | wc -l)" -eq 1 ] && echo "$(head -1 "$work/$1.$2.sim") ms" || echo "varies"
}
has() { [[ " ${tools[*]} " == *" $1 "* ]]; }
echo
echo "| case | SimGrid wall | clustersim fluid wall | clustersim packet wall | fluid/SimGrid speed-up (wall) | simulated SimGrid vs fluid (fluid / SimGrid) |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
far=()
for c in "${cases[@]}"; do
  key=$(echo "$c" | tr ':' '_')
  row="| ${c_pattern[$c]} ${c_size[$c]}, ${c_ranks[$c]} ranks"
  for t in simgrid fluid packet; do
    if has "$t"; then row+=" | $(cell "$c" "$t" wall "$key")"; else row+=" | not run"; fi
  done
  speedup="—"
  if has simgrid && has fluid && [ -s "$work/$key.fluid.wall" ]; then
    f=$(median < "$work/$key.fluid.wall")
    if [ -n "${timed_out[$c simgrid]:-}" ]; then
      speedup=$(awk -v s="$limit" -v f="$f" 'BEGIN { if (f > 0) printf "> %.0fx", s / f; else print "—" }')
    elif [ -s "$work/$key.simgrid.wall" ]; then
      speedup=$(awk -v s="$(median < "$work/$key.simgrid.wall")" -v f="$f" \
        'BEGIN { if (f > 0) printf "%.1fx", s / f; else print "— (fluid < 0.01 s)" }')
    fi
  fi
  sims="—"
  sg_sim=$(sim_of "$key" simgrid); fl_sim=$(sim_of "$key" fluid)
  if [[ "$sg_sim" == *ms && "$fl_sim" == *ms ]]; then
    ratio=$(awk -v a="${sg_sim% ms}" -v b="${fl_sim% ms}" 'BEGIN { printf "%.4f", b / a }')
    sims="$sg_sim vs $fl_sim ($ratio)"
    if awk -v r="$ratio" 'BEGIN { exit !(r > 1.03 || r < 1 / 1.03) }'; then
      far+=("$c ($ratio)"); sims="**$sims**"
    fi
  fi
  echo "$row | $speedup | $sims |"
done
echo
echo "| case | program | wall | CPU | peak memory | events (SimGrid: comms) | simulated |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
  key=$(echo "$c" | tr ':' '_')
  for t in "${tools[@]}"; do
    ev="—"; [ -s "$work/$key.$t.events" ] && ev=$(sort -u "$work/$key.$t.events" | paste -sd/ -)
    echo "| ${c_pattern[$c]} ${c_size[$c]}, ${c_ranks[$c]} ranks | $t | $(cell "$c" "$t" wall "$key") |" \
      "$(cell "$c" "$t" cpu "$key") | $(cell "$c" "$t" mem "$key") | $ev | $(sim_of "$key" "$t") |"
  done
done
if [ ${#far[@]} -gt 0 ]; then
  echo
  echo "simulated times of SimGrid and clustersim fluid more than 3 % apart: ${far[*]}"
fi
