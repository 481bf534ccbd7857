#!/usr/bin/env bash
# Large blocks on huge pages (simulator/README.md, "Large blocks on huge pages"), measured: the
# binomial bcast of 1 MiB with the fluid model on a generated star (25 GB/s links), one rank
# per node, run with CLUSTERSIM_HUGE_PAGES=off and without it (the default: on), alternated,
# in one build. Per run: the event loop's CPU time (the run's cpu_time_s), the process's CPU
# (user + system) and wall time, its peak memory and its page faults (GNU time's minor ones).
#
# Usage: bench/huge_pages.sh [BUILD] [RANKS...]   (default: build, 65536 262144 1048576)
# Environment: REPEATS (default 3): rounds per rank count, each "off, on" or "on, off" in turn.
set -euo pipefail
build=${1:-build}
shift || true
ranks=("$@")
(( ${#ranks[@]} )) || ranks=(65536 262144 1048576)
repeats=${REPEATS:-3}
exe=$build/tools/clustersim
[[ -x "$exe" ]] || { echo "huge_pages.sh: $exe: not built" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "huge_pages.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| ranks | huge pages | event loop CPU | process CPU | process wall | peak memory | page faults |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for n in "${ranks[@]}"; do
  star=$tmp/star-$n.xml
  "$exe" generate star --nodes "$n" --link-bandwidth 25GB/s > "$star"
  for r in $(seq 1 "$repeats"); do
    if (( r % 2 )); then modes="off on"; else modes="on off"; fi
    for m in $modes; do
      setting=()
      [[ $m == off ]] && setting=(CLUSTERSIM_HUGE_PAGES=off)
      env "${setting[@]}" /usr/bin/time -o "$tmp/time" -f "%U %S %e %M %R" "$exe" run "$star" \
        --ranks "$n" --app bcast:size=1MiB --algorithm bcast=binomial --network fluid --json \
        > "$tmp/out"
      loop=$(python3 -c "import json; print('%.3f' % json.load(open('$tmp/out'))['cpu_time_s'])")
      read -r user sys wall rss faults < "$tmp/time"
      awk -v n="$n" -v m="$m" -v loop="$loop" -v u="$user" -v s="$sys" -v w="$wall" \
        -v rss="$rss" -v f="$faults" 'BEGIN {
          printf "| %d | %s | %s s | %.2f s | %.2f s | %.1f MiB | %d |\n", n, m, loop, u + s, w, rss / 1024, f }'
    done
  done
done
