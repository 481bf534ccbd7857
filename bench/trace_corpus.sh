#!/usr/bin/env bash
# Replays every trace found under DIR (other tools' recordings: OTF2 archives `*.otf2`, DUMPI
# `*.meta`, HDTrace projects `*.proj`) on MODEL with `clustersim run --oversubscribe`, then
# compares each replay with its recording (`clustersim compare`): one line per trace (replayed:
# ranks, simulated and recorded time; or the one-line refusal, exit 2), then the counts.
#
#   bash bench/trace_corpus.sh DIR [MODEL] [CLUSTERSIM]
#
# MODEL defaults to topologies/examples/star-16.xml (a trace that opens files needs a model with
# a file system: e.g. `clustersim import piosimhd ../shared/external/hdtrace-partdiff-mpi-io/
# pvs-cluster-model.xml > pvs.xml`). Exit 0 unless a trace makes clustersim fail in an
# unexpected way: a signal, a time-out (TIMEOUT seconds per command, default 300), or an exit
# status other than 0 and 2 (traces/README.md, "Checked on other tools' recordings").
set -u
dir=${1:?usage: trace_corpus.sh DIR [MODEL] [CLUSTERSIM]}
model=${2:-topologies/examples/star-16.xml}
bin=${3:-build/tools/clustersim}
limit=${TIMEOUT:-300}
[ -d "$dir" ] || { echo "bench/trace_corpus.sh: $dir is not a folder" >&2; exit 2; }
[ -x "$bin" ] || { echo "bench/trace_corpus.sh: $bin is not built" >&2; exit 2; }
[ -f "$model" ] || { echo "bench/trace_corpus.sh: no model $model" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
replayed=0 refused=0 broken=0
while IFS= read -r -d '' t; do
    name=${t#"$dir"/}
    rm -rf "$out/run"
    timeout "$limit" "$bin" run "$model" --oversubscribe --app "trace:$t" --out "$out/run" \
        >"$out/log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        ranks=$(sed -n 's/.*app trace:.* (\([0-9,]*\) ranks.*/\1/p' "$out/log" | head -1)
        sim=$(awk '$1 == "simulated" && $2 == "time" {print $3, $4; exit}' "$out/log")
        rec=$(timeout "$limit" "$bin" compare "$t" "$out/run" 2>&1 |
            sed -n 's/.*total runtime: recorded \(.*\), simulated .*/\1/p' | head -1)
        printf '%-70s replayed: %s ranks, simulated %s, recorded %s\n' "$name" "${ranks:-?}" \
            "${sim:-?}" "${rec:-? (compare failed)}"
        [ -n "$rec" ] || broken=$((broken + 1))
        replayed=$((replayed + 1))
    elif [ "$rc" -eq 2 ]; then
        printf '%-70s refused: %s\n' "$name" "$(grep -m1 'error' "$out/log" || tail -1 "$out/log")"
        refused=$((refused + 1))
    else
        printf '%-70s BROKEN: exit %s: %s\n' "$name" "$rc" "$(tail -1 "$out/log")"
        broken=$((broken + 1))
    fi
done < <(find "$dir" -type f \( -name '*.otf2' -o -name '*.meta' -o -name '*.proj' \) -print0 |
    sort -z)
echo "replayed $replayed, refused $refused, broken $broken"
[ "$broken" -eq 0 ]
