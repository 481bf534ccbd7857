#!/usr/bin/env bash
# Cross-fidelity agreement matrix (issue 52, item 5): every pattern on every generated fabric
# under the packet-level models, the flow-level model and an analytic one, one rank per node.
#   bash bench/fidelity_matrix.sh BUILD [NODES] [OUT] [PATTERNS]
# Fabrics: `clustersim generate KIND --nodes NODES` with the defaults (4 KiB packets,
# cut-through switches and NICs, the fabric's own routing), and the same file with
# `--forwarding store_and_forward` for the packet column. Models:
#   packet       the store-and-forward file (switches and NICs), --network packet
#   cut_through  the default file, as generated (its own model)
#   fluid        the default file, --network fluid
#   simple       the default file, --network simple:collectives=messages (no contention:
#                latency + size / bottleneck per message, the algorithm's messages)
# Prints a Markdown table: simulated time per model, each model's ratio to fluid (in bold
# where they differ by more than 10 %), and the event loop's wall time of each run. Then the
# bcast rows on the dragonfly with the old defaults (PIOsimHD's 100 KiB store-and-forward
# packets: `--granularity 100KiB --forwarding store_and_forward`, run as it is, `packet`,
# and with `--network cut_through`, which leaves its NICs storing and forwarding), the
# issue's table. Runs already in OUT are read back, not run again (delete OUT to measure
# afresh). PATTERNS: a regular expression the pattern names must match (default: all).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?BUILD dir}
nodes=${2:-256}
out=${3:-/tmp/fidelity-matrix-$nodes}
only=${4:-.}
cs="$build/tools/clustersim"
[ -x "$cs" ] || { echo "bench/fidelity_matrix.sh: $cs is not built" >&2; exit 2; }
mkdir -p "$out"
# FABRICS (environment): the fabrics to run, default all four.
read -r -a fabrics <<<"${FABRICS:-star fat-tree torus dragonfly}"
# name|app|--algorithm (empty: none)
patterns=(
  "alltoall linear|alltoall:size=16KiB|alltoall=linear"
  "alltoall pairwise|alltoall:size=16KiB|alltoall=pairwise"
  "bcast binomial|bcast:size=16MiB|bcast=binomial"
  "bcast scatter_allgather|bcast:size=16MiB|bcast=scatter_allgather"
  "bcast pipelined_chain|bcast:size=16MiB|bcast=pipelined_chain"
  "allreduce ring|allreduce:size=16MiB|allreduce=ring"
  "allreduce recursive_doubling|allreduce:size=4MiB|allreduce=recursive_doubling"
  "many-into-one|sendtoroot:size=1MiB|"
)
models=(packet cut_through fluid simple)
for f in "${fabrics[@]}"; do
  [ -s "$out/$f.xml" ] || "$cs" generate "$f" --nodes "$nodes" >"$out/$f.xml" || exit 2
  [ -s "$out/$f-saf.xml" ] ||
    "$cs" generate "$f" --nodes "$nodes" --forwarding store_and_forward >"$out/$f-saf.xml" ||
    exit 2
done
[ -s "$out/dragonfly-old.xml" ] ||
  "$cs" generate dragonfly --nodes "$nodes" --granularity 100KiB \
    --forwarding store_and_forward >"$out/dragonfly-old.xml" || exit 2
for p in "${patterns[@]}"; do
  IFS='|' read -r name app alg <<<"$p"
  [[ $name =~ $only ]] || continue
  key=${name// /-}
  for f in "${fabrics[@]}"; do
    for m in "${models[@]}"; do
      json="$out/$key.$f.$m.json"
      [ -s "$json" ] && continue
      model="$out/$f.xml"
      net=()
      case $m in
        packet) model="$out/$f-saf.xml" net=(--network packet) ;;
        fluid) net=(--network fluid) ;;
        simple) net=(--network simple:collectives=messages) ;;
      esac
      a=()
      [ -n "$alg" ] && a=(--algorithm "$alg")
      "$cs" run "$model" --app "$app" --ranks "$nodes" "${a[@]}" "${net[@]}" --json -q \
        >"$json.tmp" 2>"$out/$key.$f.$m.err" && mv "$json.tmp" "$json"
    done
  done
  # The old defaults, on the dragonfly's bcast rows.
  [[ $name == bcast* ]] || continue
  for m in old_packet old_cut_through; do
    json="$out/$key.dragonfly.$m.json"
    [ -s "$json" ] && continue
    "$cs" run "$out/dragonfly-old.xml" --app "$app" --ranks "$nodes" --algorithm "$alg" \
      --network "${m#old_}" --json -q >"$json.tmp" 2>"$out/$key.dragonfly.$m.err" &&
      mv "$json.tmp" "$json"
  done
done
FABRICS="${fabrics[*]}" python3 - "$out" "$nodes" "$only" "${models[@]}" <<'EOF'
import json, os, re, sys
out, nodes, only, models = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
patterns = ["alltoall linear", "alltoall pairwise", "bcast binomial", "bcast scatter_allgather",
            "bcast pipelined_chain", "allreduce ring", "allreduce recursive_doubling",
            "many-into-one"]
fabrics = os.environ["FABRICS"].split()
def ms(s):
    return f"{s * 1e3:.3f} ms"
def load(p, f, m):
    path = os.path.join(out, f"{p.replace(' ', '-')}.{f}.{m}.json")
    if os.path.exists(path) and os.path.getsize(path) > 0:
        j = json.load(open(path))
        return j["simulated_time_s"], j["phases_s"]["event_loop"]
    return None
def ratio(t, m):
    if t.get(m) is None or not t.get("fluid"):
        return "—"
    r = t[m] / t["fluid"]
    return f"**{r:.3f}**" if abs(r - 1) > 0.10 else f"{r:.3f}"
def table(rows, cols, title):
    print(f"| {title} | fabric | " + " | ".join(cols) + " | " +
          " | ".join(f"{m} / fluid" for m in cols if m != "fluid") +
          " | event loop (" + ", ".join(cols) + ") |")
    print("| --- | --- | " + " | ".join("---:" for _ in cols) + " | " +
          " | ".join("---:" for m in cols if m != "fluid") + " | ---: |")
    for p, f in rows:
        got = {m: load(p, f, m) for m in cols}
        t = {m: v[0] for m, v in got.items() if v}
        cells = [ms(t[m]) if m in t else "—" for m in cols]
        wall = " / ".join(f"{got[m][1]:.2f}" if got[m] else "—" for m in cols)
        print(f"| {p} | {f} | " + " | ".join(cells) + " | " +
              " | ".join(ratio(t, m) for m in cols if m != "fluid") + f" | {wall} s |")
chosen = [p for p in patterns if re.search(only, p)]
table([(p, f) for p in chosen for f in fabrics], models, f"pattern ({nodes} ranks)")
old = [p for p in chosen if p.startswith("bcast")]
if old:
    print()
    table([(p, "dragonfly") for p in old], ["old_packet", "old_cut_through", "cut_through", "fluid"],
          f"old defaults ({nodes} ranks)")
EOF
