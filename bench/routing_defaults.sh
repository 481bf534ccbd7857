#!/usr/bin/env bash
# Each generated fabric's default routing against every routing it accepts (issue 52): a
# linear alltoall (every message posted at once) on `clustersim generate KIND --nodes NODES`,
# one rank per node, the file's own model (cut-through, 4 KiB packets).
#   bash bench/routing_defaults.sh BUILD [NODES] [SIZE]
# Prints a Markdown table: simulated ms per routing, the default's distance from the best,
# and each run's CPU seconds.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?BUILD dir}
nodes=${2:-256}
size=${3:-64KiB}
cs="$build/tools/clustersim"
[ -x "$cs" ] || { echo "bench/routing_defaults.sh: $cs is not built" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| fabric ($nodes nodes) | routing | simulated ms | CPU s |"
echo "| --- | --- | ---: | ---: |"
for kind in fat-tree torus dragonfly; do
  case $kind in
    fat-tree) routings="d_mod_k round_robin adaptive_up shortest_path" ;;
    torus) routings="dimension_order_balanced dimension_order round_robin shortest_path" ;;
    dragonfly) routings="ugal_l ugal_g shortest_path valiant" ;;
  esac
  "$cs" generate "$kind" --nodes "$nodes" >"$out/default.xml" || exit 2
  dflt=$(sed -n 's/.*routing="\([a-z_]*\)".*/\1/p' "$out/default.xml" | head -1)
  best=""; dtime=""
  for r in $routings; do
    "$cs" generate "$kind" --nodes "$nodes" --routing "$r" >"$out/$r.xml" || exit 2
    read -r ms cpu < <("$cs" run "$out/$r.xml" --ranks "$nodes" --app "alltoall:size=$size" \
      --algorithm alltoall=linear --json 2>/dev/null |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.3f %.2f" % (j["simulated_time_s"]*1e3, j["cpu_time_s"]))')
    mark=""; [ "$r" = "$dflt" ] && { mark=" (default)"; dtime=$ms; }
    echo "| $kind | $r$mark | $ms | $cpu |"
    best=$(python3 -c "print(min(x for x in [$ms${best:+, $best}]))")
  done
  python3 -c "print('| $kind | default %+.1f %% from the best ($best ms) | | |' % (100 * ($dtime / $best - 1)))"
done
