#!/usr/bin/env bash
# Issue 58's motif table: every motif app at 16 ranks (packet model, the star-16 example) and
# at RANKS ranks (default 1,048,576) on a generated star of 25 GB/s links, with the network
# model that fits in memory and time there (column `model`): `simple:collectives=messages`
# (each message L + m/B, collectives run as their algorithms' messages) where the message
# count allows, plain `simple` (a collective as one formula) for fft3d, whose transposes are
# alltoalls of 1,024 ranks (2 x 10^9 messages as messages). Prints one Markdown row per run:
# simulated time, events, wall and CPU time (GNU time) and peak memory.
#   bash bench/motifs_scale.sh [BUILD] [RANKS] [MOTIF]   (MOTIF: only that row, e.g. nbody)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ranks=${2:-1048576}
only=${3:-}
cs="$build/tools/clustersim"
[[ -x /usr/bin/time ]] || { echo "motifs_scale.sh: needs GNU time (Debian package time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
star="$tmp/star.xml"
# 100 KiB store-and-forward packets, as its figures were measured (before issue 52's defaults)
"$cs" generate star --nodes "$ranks" --link-bandwidth 25GB/s --granularity 100KiB \
  --forwarding store_and_forward >"$star"
# name | app spec at 16 ranks | app spec at RANKS | network at RANKS
rows=(
  "halo2d|halo2d:iterations=2|halo2d:iterations=2|simple:collectives=messages"
  "halo3d|halo3d:iterations=2|halo3d:iterations=2|simple:collectives=messages"
  "halo3d 27-point|halo3d:stencil=27,iterations=2|halo3d:stencil=27,iterations=2|simple:collectives=messages"
  "lqcd|lqcd:iterations=2|lqcd:iterations=2|simple:collectives=messages"
  "cg|cg:iterations=2|cg:iterations=2|simple:collectives=messages"
  "mg|mg:iterations=1|mg:iterations=1|simple:collectives=messages"
  "fft3d|fft3d:n=256,iterations=2|fft3d:n=1024,iterations=2|simple"
  "sweep3d|sweep3d:iterations=1|sweep3d:cells=16x16x8,kb=8,iterations=1|simple:collectives=messages"
  "nbody|nbody:iterations=2|nbody:iterations=1|simple:collectives=messages"
  "incast|incast:size=64KiB|incast:size=64KiB|simple:collectives=messages"
  "bisection|bisection:size=1MiB|bisection:size=1MiB|simple:collectives=messages"
  "permutation|permutation:size=1MiB|permutation:size=1MiB|simple:collectives=messages"
)
one() {  # MODEL RANKS APP NETWORK -> "simulated | events | wall | cpu | peak"
  local out="$tmp/out" t="$tmp/time"
  /usr/bin/time -f "%e %U %S %M" -o "$t" "$1" run "$2" --app "$4" --ranks "$3" \
    ${5:+--network "$5"} --json >"$out" 2>"$tmp/err" || { echo "failed: $(tail -1 "$tmp/err")"; return; }
  python3 - "$out" "$t" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
e, u, s, m = open(sys.argv[2]).read().split()[-4:]
print(f"{j['simulated_time_s']*1e3:.4g} ms | {j['events']:,} | {float(e):.1f} s | {float(u)+float(s):.1f} s | {int(m)/1048576:.2f} GiB")
PY
}
echo "| motif | 16 ranks, packet: simulated | wall | $ranks ranks: model | simulated | events | wall | CPU | peak |"
echo "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do
  IFS='|' read -r name small big net <<<"$row"
  [[ -z $only || $name == "$only" ]] || continue
  s=$(one "$cs" topologies/examples/star-16.xml 16 "$small" "")
  b=$(one "$cs" "$star" "$ranks" "$big" "$net")
  IFS='|' read -r s_sim s_ev s_wall s_cpu s_peak <<<"$s"
  echo "| \`$small\` → \`$big\` | $s_sim | $s_wall | \`$net\` | $b |"
done
