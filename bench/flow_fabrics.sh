#!/usr/bin/env bash
# clustersim's flow model against its own packet model on generated fabrics (issue 51): the
# dense patterns of a study (linear and pairwise alltoall, pipelined-chain and
# scatter-allgather bcast, ring allreduce) on a generated star, fat tree, torus and dragonfly
# of 256 and 1,024 nodes, each fabric with its generated defaults (routing, packet size).
# Per case the two models run REPEATS times in alternating order (fluid first in odd rounds,
# packet first in even ones). Each run's figures come from its `--json`: the event loop's CPU
# time (`cpu_time_s`, user + system: not inflated by waiting for a core on a shared
# machine), the engine's events, the simulated time; the peak memory from /usr/bin/time.
#
# Usage: bench/flow_fabrics.sh [CS_BINARY] [REPEATS] [SIZE...]
#   CS_BINARY  clustersim (default build/tools/clustersim)
#   REPEATS    rounds per case (default 3)
#   SIZE       256 and/or 1024 (default both)
#   PATTERNS="a b"  a subset of: alltoall_linear alltoall_pairwise bcast_chain bcast_sag
#              allreduce_ring (default all)
#   FABRICS="a b"   a subset of: star fat_tree torus dragonfly (default all)
# Prints one line per run, then a Markdown table: per case the median CPU time of each model
# (min-max), their ratio fluid / packet, the packet model's packets per message (with bytes:
# a flow of the fluid model), both simulated times and their ratio, the peak memories.
set -euo pipefail

cs=${1:-build/tools/clustersim}
repeats=${2:-3}
shift $(($# > 2 ? 2 : $#))
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(256 1024)
read -r -a patterns <<< "${PATTERNS:-alltoall_linear alltoall_pairwise bcast_chain bcast_sag allreduce_ring}"
read -r -a fabrics <<< "${FABRICS:-star fat_tree torus dragonfly}"
[ -x "$cs" ] || { echo "flow_fabrics.sh: $cs is not an executable" >&2; exit 2; }
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "flow_fabrics.sh: REPEATS must be a positive whole number" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A fabric of N nodes: the generate command's arguments.
fabric_args() {
  case "$1:$2" in
    star:*) echo "star --nodes $2" ;;
    fat_tree:256) echo "fat-tree --down 16,16 --up 1,4" ;;
    fat_tree:1024) echo "fat-tree --down 16,16,4 --up 1,4,4" ;;
    torus:256) echo "torus --dims 4,8,8" ;;
    torus:1024) echo "torus --dims 8,8,16" ;;
    dragonfly:256) echo "dragonfly --groups 8 --routers 8 --nodes-per-router 4 --global-links 4" ;;
    dragonfly:1024) echo "dragonfly --groups 32 --routers 8 --nodes-per-router 4 --global-links 4" ;;
    *) echo "flow_fabrics.sh: no $1 of $2 nodes (256 or 1024)" >&2; exit 2 ;;
  esac
}
pattern_args() {
  case "$1" in
    alltoall_linear) echo "--app alltoall:size=16KiB --algorithm alltoall=linear" ;;
    alltoall_pairwise) echo "--app alltoall:size=64KiB --algorithm alltoall=pairwise" ;;
    bcast_chain) echo "--app bcast:size=16MiB --algorithm bcast=pipelined_chain" ;;
    bcast_sag) echo "--app bcast:size=16MiB --algorithm bcast=scatter_allgather" ;;
    allreduce_ring) echo "--app allreduce:size=16MiB --algorithm allreduce=ring" ;;
    *) echo "flow_fabrics.sh: unknown pattern $1" >&2; exit 2 ;;
  esac
}

echo "# $("$cs" --version | head -1), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
results="$work/results"
: > "$results"
for n in "${sizes[@]}"; do
  for fab in "${fabrics[@]}"; do
    model="$work/$fab-$n.xml"
    # shellcheck disable=SC2046
    "$cs" generate $(fabric_args "$fab" "$n") > "$model"
    for pat in "${patterns[@]}"; do
      for ((round = 1; round <= repeats; ++round)); do
        order=(fluid packet)
        ((round % 2 == 0)) && order=(packet fluid)
        for net in "${order[@]}"; do
          # shellcheck disable=SC2046
          /usr/bin/time -f '%M' -o "$work/time" "$cs" run "$model" --ranks "$n" $(pattern_args "$pat") \
            --network "$net" --json -q > "$work/out.json"
          line=$(python3 - "$work/out.json" "$work/time" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
peak = int(open(sys.argv[2]).read().split()[-1])
net = d["network"]
print(f"{d['cpu_time_s']:.4f} {d['events']} {d['simulated_time_ps']} {peak} {net.get('packets', 0)} {net['messages']}")
EOF
)
          echo "$fab $n $pat $net $line" | tee -a "$results"
        done
      done
    done
  done
done

python3 - "$results" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    fab, n, pat, net, cpu, events, sim, peak, packets, messages = line.split()
    runs.setdefault((fab, int(n), pat), {}).setdefault(net, []).append(
        (float(cpu), int(events), int(sim), int(peak), int(packets), int(messages)))
print()
print("| fabric | ranks | pattern | fluid CPU | packet CPU | fluid / packet | packets per message | simulated fluid | simulated packet | packet / fluid | peak fluid / packet |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
worst = 0
for (fab, n, pat), by in runs.items():
    f, p = by["fluid"], by["packet"]
    fc = [r[0] for r in f]; pc = [r[0] for r in p]
    mf, mp = statistics.median(fc), statistics.median(pc)
    ratio = mf / mp if mp > 0 else float("inf")
    worst = max(worst, ratio)
    per_flow = p[0][4] / max(1, p[0][5])
    sf, sp = f[0][2], p[0][2]
    pk = f"{statistics.median(r[3] for r in f) / 1024:.0f} / {statistics.median(r[3] for r in p) / 1024:.0f} MiB"
    print(f"| {fab} | {n:,} | {pat} | {mf:.3f} s ({min(fc):.3f}-{max(fc):.3f}) | {mp:.3f} s ({min(pc):.3f}-{max(pc):.3f}) | "
          f"{ratio:.2f} | {per_flow:.1f} | {sf / 1e9:.4f} ms | {sp / 1e9:.4f} ms | {sp / sf:.3f} | {pk} |")
print()
print(f"largest fluid / packet CPU ratio: {worst:.2f}")
EOF
