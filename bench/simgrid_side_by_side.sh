#!/usr/bin/env bash
# Issue 21: clustersim against SimGrid on SimGrid's own inputs. Replays every external TI
# trace (../shared/external/simgrid-ti-traces) and single collectives (TI traces written
# here) on SimGrid's fat-tree, torus, dragonfly and backbone platforms and small_platform.xml
# (../shared/external/simgrid-platforms), and 1 MB route probes between every two hosts of
# small_platform.xml (its routes given link by link in a Full zone), with
#   SimGrid:    smpirun -replay, CM02 network model without cross-traffic
#               (--cfg=network/model:CM02 --cfg=network/crosstraffic:0), every other
#               setting its default;
#   clustersim: clustersim import simgrid, then run --network fluid --mpi simgrid;
# rank i on the platform's i-th host in both (SimGrid: a hostfile of the hosts in order;
# clustersim: round_robin over the imported nodes, which keep SimGrid's order), and prints
# one row per case: both simulated times and their ratio. Skips with a message where
# SimGrid (Debian libsimgrid-dev: smpirun) is not installed.
#
# Usage: bench/simgrid_side_by_side.sh [BUILD] [FILTER]
#   BUILD   the build folder holding tools/clustersim (default: build)
#   FILTER  only cases whose "platform case" line matches this extended regex
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-build}
filter=${2:-.}
[[ $build = /* ]] || build="$root/$build"
clustersim="$build/tools/clustersim"
ext=$(cd "$root/../shared/external" 2>/dev/null && pwd) || {
    echo "simgrid_side_by_side: skipped: ../shared/external is not there"
    exit 0
}
if ! command -v smpirun >/dev/null 2>&1; then
    echo "simgrid_side_by_side: skipped: SimGrid's smpirun is not installed (Debian: apt-get install libsimgrid-dev)"
    exit 0
fi
[[ -x $clustersim ]] || { echo "simgrid_side_by_side: $clustersim not built" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
platforms="$ext/simgrid-platforms"
traces="$ext/simgrid-ti-traces"

# ---- platforms: name, file, hosts (SimGrid's host names, in order) --------------------------
declare -A pfile phosts
pfile[fat_tree]=cluster_fat_tree.xml
phosts[fat_tree]=16
pfile[torus]=cluster_torus.xml
phosts[torus]=12
pfile[dragonfly]=cluster_dragonfly.xml
phosts[dragonfly]=120
pfile[backbone]=cluster_backbone.xml
phosts[backbone]=100
# small_platform.xml: 7 hosts in one Full zone, every route given link by link.
pfile[small]=small_platform.xml
phosts[small]=7
small_hosts=(Tremblay Jupiter Fafard Ginette Bourassa Jacquelin Boivin)
for p in fat_tree torus dragonfly backbone small; do
    if [[ $p = small ]]; then
        printf '%s\n' "${small_hosts[@]}" >"$work/$p.hosts"
    else
        for ((i = 0; i < ${phosts[$p]}; i++)); do echo "node-$i.simgrid.org"; done >"$work/$p.hosts"
    fi
    "$clustersim" import simgrid "$platforms/${pfile[$p]}" >"$work/$p.xml" 2>"$work/$p.import.log"
done

# ---- single collectives: one TI trace each, on R ranks -----------------------------------
# name: the action line every rank runs (sizes in MPI_BYTE: `init` without argument).
collective_trace() { # NAME RANKS ACTION...
    local name=$1 n=$2
    shift 2
    local f="$work/coll_${name}_$n.txt"
    {
        for ((r = 0; r < n; r++)); do echo "$r init"; done
        for ((r = 0; r < n; r++)); do echo "$r $*"; done
    } >"$f"
    echo "$f"
}
reducescatter_args() { # RANKS BLOCK
    local s="reducescatter"
    for ((j = 0; j < $1; j++)); do s+=" $2"; done
    echo "$s 0"
}
scatterv_args() { # RANKS BLOCK: the send counts, then the receive count
    local s="scatterv"
    for ((j = 0; j < $1; j++)); do s+=" $2"; done
    echo "$s $2"
}
gatherv_args() { # VERB RANKS BLOCK
    local s="$1 $3"
    for ((j = 0; j < $2; j++)); do s+=" $3"; done
    echo "$s"
}

# ---- one case ----------------------------------------------------------------------------
printf '| platform | case | ranks | SimGrid | clustersim | ratio |\n| --- | --- | --- | --- | --- | --- |\n'
run_case() { # PLATFORM CASE RANKS TRACE_FILE [HOST...]: rank i on the i-th HOST if given
    local p=$1 name=$2 n=$3 trace=$4
    shift 4
    [[ "$p $name" =~ $filter ]] || return 0
    local hosts="$work/$p.hosts" placement=()
    if [[ $# -gt 0 ]]; then
        hosts="$work/case.hosts"
        printf '%s\n' "$@" >"$hosts"
        local r=0
        for h in "$@"; do echo "$r $h"; r=$((r + 1)); done >"$work/case.map"
        placement=(--placement "map:$work/case.map")
    fi
    local idx="$work/$p.$name.index"
    # A one-line index: SimGrid's shared-trace form; clustersim reads the same file.
    case $trace in
        *.index.txt) idx=$trace ;;
        *) echo "$trace" >"$idx" ;;
    esac
    local sg cs
    sg=$(cd "$(dirname "$idx")" && smpirun -np "$n" -platform "$platforms/${pfile[$p]}" \
        -hostfile "$hosts" -replay "$idx" --cfg=network/model:CM02 \
        --cfg=network/crosstraffic:0 2>&1 | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' |
        tail -1)
    cs=$("$clustersim" run "$work/$p.xml" --app "trace:$idx" --oversubscribe \
        --network fluid --mpi simgrid ${placement[@]+"${placement[@]}"} --quiet --json 2>"$work/cs.err" |
        sed -n 's/.*"simulated_time_s": *\([0-9.e+-]*\).*/\1/p' | head -1) || true
    if [[ -z $sg || -z $cs ]]; then
        printf '| %s | %s | %s | %s | %s | error: %s |\n' "$p" "$name" "$n" "${sg:-?}" "${cs:-?}" \
            "$(head -c 200 "$work/cs.err" | tr '\n|' '  ')"
        return 0
    fi
    awk -v p="$p" -v c="$name" -v n="$n" -v a="$sg" -v b="$cs" 'BEGIN {
        printf "| %s | %s | %d | %.6g s | %.6g s | %.3f |\n", p, c, n, a, b, (a > 0 ? b / a : 0) }'
}

for p in fat_tree torus dragonfly backbone small; do
    h=${phosts[$p]}
    # External TI traces: SimGrid's index files as they are; merged files through a one-line
    # index (the shared-trace form).
    run_case "$p" actions01 2 "$traces/actions01.index.txt"
    for f in "$traces"/replay/actions_*.txt; do
        b=$(basename "$f" .txt)
        n=$(awk '$1 ~ /^[0-9]+$/ && $1 + 1 > m { m = $1 + 1 } END { print m }' "$f")
        run_case "$p" "$b" "$n" "$f"
    done
    run_case "$p" ti_traces_32_1 32 "$traces/ti_traces_32_1.index.txt"
    # Single collectives on min(16, hosts) ranks.
    n=$((h < 16 ? h : 16))
    run_case "$p" "barrier" "$n" "$(collective_trace barrier "$n" barrier)"
    run_case "$p" "bcast-1MiB" "$n" "$(collective_trace bcast "$n" bcast 1048576)"
    run_case "$p" "reduce-1MiB" "$n" "$(collective_trace reduce "$n" reduce 1048576 0)"
    run_case "$p" "allreduce-1MiB" "$n" "$(collective_trace allreduce "$n" allreduce 1048576 0)"
    run_case "$p" "allreduce-8B" "$n" "$(collective_trace allreduce8 "$n" allreduce 8 0)"
    run_case "$p" "allgather-64KiB" "$n" "$(collective_trace allgather "$n" allgather 65536 65536)"
    run_case "$p" "allgatherv-64KiB" "$n" \
        "$(collective_trace allgatherv "$n" "$(gatherv_args allgatherv "$n" 65536)")"
    run_case "$p" "alltoall-64KiB" "$n" "$(collective_trace alltoall "$n" alltoall 65536 65536)"
    run_case "$p" "gather-64KiB" "$n" "$(collective_trace gather "$n" gather 65536 65536 0)"
    run_case "$p" "scatter-64KiB" "$n" "$(collective_trace scatter "$n" scatter 65536 65536 0)"
    run_case "$p" "gatherv-64KiB" "$n" \
        "$(collective_trace gatherv "$n" "$(gatherv_args gatherv "$n" 65536) 0")"
    run_case "$p" "scatterv-64KiB" "$n" \
        "$(collective_trace scatterv "$n" "$(scatterv_args "$n" 65536) 0")"
    run_case "$p" "reducescatter-64KiB" "$n" \
        "$(collective_trace reducescatter "$n" "$(reducescatter_args "$n" 65536)")"
    run_case "$p" "scan-64KiB" "$n" "$(collective_trace scan "$n" scan 65536 0)"
done

# Route probes on small_platform.xml: 1 MB from each host to each later one, alone on the
# platform (its route's latency and bottleneck, as the platform gives them).
probe="$work/probe.txt"
{ echo "0 init"; echo "1 init"; echo "0 send 1 0 1000000"; echo "1 recv 0 0 1000000"; } >"$probe"
for ((i = 0; i < ${#small_hosts[@]}; i++)); do
    for ((j = i + 1; j < ${#small_hosts[@]}; j++)); do
        run_case small "probe-${small_hosts[i]}-${small_hosts[j]}" 2 "$probe" \
            "${small_hosts[i]}" "${small_hosts[j]}"
    done
done
