#!/usr/bin/env bash
# The analytical NIC against the packet NIC: every example model with its <network nic> set
# to each, 7 built-in apps at 8 ranks, the simulated times compared. Prints one line per run
# (model, app, packet ps, analytical ps, deviation) and the summary: median and largest
# |deviation|, runs within 1 %, identical runs. With BASE_BUILD the analytical runs are also
# made with BASE_BUILD's clustersim (a column and a summary of their own).
#   bash bench/nic_agreement.sh [BUILD=build] [BASE_BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
base=${2:-}
cs="$build/tools/clustersim"
[ -x "$cs" ] || { echo "bench/nic_agreement.sh: $cs is not built" >&2; exit 2; }
[ -z "$base" ] || [ -x "$base/tools/clustersim" ] ||
  { echo "bench/nic_agreement.sh: $base/tools/clustersim is not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apps=("pingpong:size=1MiB,iterations=10" "bcast:size=4MiB" "allreduce:size=1MiB"
  "allgather:size=64KiB" "alltoall:size=4KiB" "reduce:size=4MiB" "barrier")
sim() {  # CLUSTERSIM MODEL APP: the simulated picoseconds, or NA
  "$1" run "$2" --app "$3" --ranks 8 --oversubscribe --json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['simulated_time_ps'])" 2>/dev/null ||
    echo NA
}
for m in topologies/examples/*.xml; do
  mb=$(basename "$m" .xml)
  for nic in packet analytical; do
    if grep -q 'nic="' "$m"; then
      sed "s/nic=\"[a-z-]*\"/nic=\"$nic\"/" "$m" >"$tmp/$mb.$nic.xml"
    else
      sed "s/<network /<network nic=\"$nic\" /" "$m" >"$tmp/$mb.$nic.xml"
    fi
  done
  for a in "${apps[@]}"; do
    p=$(sim "$cs" "$tmp/$mb.packet.xml" "$a")
    an=$(sim "$cs" "$tmp/$mb.analytical.xml" "$a")
    b=-
    [ -z "$base" ] || b=$(sim "$base/tools/clustersim" "$tmp/$mb.analytical.xml" "$a")
    echo "$mb ${a%%:*} $p $an $b"
  done
done | python3 -c '
import statistics, sys
cols = {"analytical": [], "base analytical": []}
print("%-22s %-10s %15s %15s %8s %15s %8s" % ("model", "app", "packet ps", "analytical ps", "dev", "base ps", "base dev"))
for line in sys.stdin:
    m, app, p, a, b = line.split()
    if "NA" in (p, a):
        print(f"{m:<22} {app:<10} {p:>15} {a:>15}       NA")
        continue
    d = int(a) / int(p) - 1
    cols["analytical"].append(d)
    bd = ""
    if b not in ("-", "NA"):
        bd = int(b) / int(p) - 1
        cols["base analytical"].append(bd)
        bd = f"{100 * bd:+7.2f}%"
    print(f"{m:<22} {app:<10} {p:>15} {a:>15} {100 * d:+7.2f}% {b:>15} {bd:>8}")
for name, v in cols.items():
    if not v:
        continue
    av = [abs(x) for x in v]
    print(f"{name} against packet: {len(v)} runs, median |deviation| {100 * statistics.median(av):.2f} %, "
          f"largest {100 * max(av):.1f} %, within 1 %: {sum(x <= 0.01 for x in av)}, identical: {sum(x == 0 for x in av)}")
'
