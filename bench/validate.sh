#!/usr/bin/env bash
# Validation against real runs on this machine (issue 7; results in docs/validation.md).
#
#   bash bench/validate.sh [suite|replay|ablation|jacobi|overhead|apps|tracer-setup|all]
#                                                                              (default: all)
#
# suite:    every clustersim-bench phase (PIOsimHD §5.3's set, 10 KiB .. 100 MiB) recorded
#           with the tracer, one mpirun per phase and RUNS runs of each, merged, replayed on
#           MODEL, and the time per call compared (bench/validation_report.cpp says how it is
#           read from both traces): the median over the runs of each, and the fastest and
#           slowest recorded run. Writes OUT/results-RANKSr.csv and prints the table.
# replay:   the traces `suite` recorded (OUT/traces), replayed again on MODEL: compare models
#           on the same recorded runs.
# ablation: `replay` on MODEL and on each variant of it with one MPI-library mechanism
#           switched off (bench/ablate.py: two-way and concurrency curves, <mpi-overhead>,
#           its gap and peer setup, collective curves, buffer copies, rate curves, barrier
#           cost; the ones MODEL carries); one table row each (issue 23's ablation table).
# jacobi:   clustersim-jacobi with MPI-IO checkpoints, traced, replayed, compared; writes
#           the side-by-side timelines (OUT/jacobi/cmp/compare_timeline.svg/.json).
# overhead: the whole suite RUNS times without and RUNS times with the tracer, alternating;
#           the overhead per phase (medians), then median, mean and worst.
# apps:     real applications packaged in Debian (issue 23 part 6; not part of `all`): LAMMPS's
#           `melt` (bench/apps/in.melt.mpiio: 16,384 atoms, 500 steps, an MPI-IO dump every 50)
#           and HPCC (bench/apps/hpccinf.txt: N = 600, P x Q = 1 x 2), APP_RUNS recordings of
#           each in APPS/lmpI/lmp.cstrace and APPS/hpccI/hpcc.cstrace (replays: OUT/apps). With RECORD=1 they are
#           recorded first (`clustersim record`, needs `lmp` and `hpcc`: .ci/install-deps.sh
#           --apps; the untraced run's wall time goes beside it, untraced-time.txt), otherwise
#           the recordings found there are used. Each is replayed on MODEL and compared
#           (`clustersim compare`, APPS/NAMEI/cmp/compare.csv); per app it prints the median
#           over the recordings of total runtime, per-rank MPI + I/O time and every call,
#           with the spread of the error.
# tracer-setup: what the tracer adds to Open MPI's lazy peer set-up: `clustersim-calibrate
#           --peer-setup-only` SETUP_RUNS times without and SETUP_RUNS times with the tracer,
#           alternating; prints each run's total (both directions), the medians, and
#           TRACER_SETUP = (traced - untraced) / 2, per direction (docs/validation.md, "Small
#           messages under traffic").
#
# With TRACER_SETUP=DURATION (e.g. 5.2us; what tracer-setup printed), replay, ablation and
# apps compare the recordings with MODEL's copy whose <peer-setup time> carries the tracer's
# extra set-up as well (bench/tracer_model.py, OUT/tracer-model.xml): the recordings were
# made under the tracer, the model describes the machine without it.
#
# Environment: BUILD (build folder, default build), MODEL (default the calibrated model of
# this machine), RANKS (default 2), RUNS (default 5), WARMUP (untimed calls before each
# suite phase, default 8: the steady state, as the calibration measures it; a fresh mpirun
# is slower for its first calls), OUT (default /tmp/clustersim-validation),
# NETWORK (a clustersim run --network value; default: the model's), CS (the clustersim binary
# that replays; default BUILD's: replay the same recordings with an older build); for apps:
# APPS (default OUT/apps), APP_RUNS (default 3), RECORD (1: record first; default 0).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
build=${BUILD:-build}
model=${MODEL:-topologies/examples/calibrated-this-machine.xml}
ranks=${RANKS:-2}
runs=${RUNS:-5}
warmup=${WARMUP:-8}
out=${OUT:-/tmp/clustersim-validation}
network=${NETWORK:+--network $NETWORK}
cs=${CS:-$build/tools/clustersim}
bench=$build/tools/mpi/clustersim-bench
jacobi=$build/tools/mpi/clustersim-jacobi
tracer=$(realpath $build/tools/mpi/libclustersim-trace.so)
report=$build/bench/validation_report
mpirun="mpirun --allow-run-as-root --oversubscribe -np $ranks"
mkdir -p "$out"

# TRACER_SETUP: the recordings are compared with MODEL plus the tracer's extra set-up.
with_tracer_setup() {
  [ -n "${TRACER_SETUP:-}" ] || return 0
  python3 bench/tracer_model.py "$model" "$out/tracer-model.xml" "$TRACER_SETUP" >&2 || exit 2
  model=$out/tracer-model.xml
}

# tracer-setup: the tracer's extra peer set-up, measured (see the header).
tracer_setup() {
  local cal=$build/tools/mpi/clustersim-calibrate n=${SETUP_RUNS:-5} plain=() traced=() i side v
  for ((i = 0; i < n; i++)); do
    local order="plain traced"
    [ $((i % 2)) -eq 0 ] || order="traced plain"
    for side in $order; do
      if [ "$side" = plain ]; then
        v=$($mpirun "$cal" --peer-setup-only | sed -n 's/^peer set-up: total \([0-9.]*\) us.*/\1/p')
        plain+=("${v:-0}")
      else
        rm -rf "$out/setup-ranks"
        v=$($mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_DIR="$out/setup-ranks" "$cal" \
          --peer-setup-only | sed -n 's/^peer set-up: total \([0-9.]*\) us.*/\1/p')
        traced+=("${v:-0}")
      fi
    done
  done
  local p t
  p=$(printf '%s\n' "${plain[@]}" | median)
  t=$(printf '%s\n' "${traced[@]}" | median)
  echo "peer set-up, both directions (us): without the tracer ${plain[*]} (median $p); with it ${traced[*]} (median $t); load $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -v p="$p" -v t="$t" 'BEGIN { d = (t - p) / 2; if (d < 0) d = 0; printf "TRACER_SETUP=%.3fus\n", d }'
}

bytes_of() {  # 10KiB -> 10240
  local v=${1%%[KMG]iB} u=${1##*[0-9]}
  case $u in KiB) echo $((v << 10)) ;; MiB) echo $((v << 20)) ;; GiB) echo $((v << 30)) ;; *) echo 0 ;; esac
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# One traced run of `$@` (an MPI program and its flags) into OUT/t.cstrace.
traced_run() {
  rm -rf "$out/ranks"
  mkdir -p "$out/ranks"
  $mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_DIR="$out/ranks" "$@" >"$out/app.log"
  $cs trace merge "$out/ranks" -o "$out/t.cstrace" >"$out/merge.log"
}

# suite: record every phase RUNS times (OUT/traces/PHASE.I.cstrace), then replay them.
suite() {
  mkdir -p "$out/traces"
  for phase in $($bench --list); do
    for ((i = 0; i < runs; i++)); do
      traced_run "$bench" --only "$phase" --repeats 4 --small-repeats 32 --warmup "$warmup"
      cp "$out/t.cstrace" "$out/traces/${phase/:/-}.$i.cstrace"
    done
    echo "recorded $phase" >&2
  done
  replay
}

# replay: the recorded traces of `suite` on MODEL, without recording again (so that models
# can be compared on the same recorded runs).
replay() {
  local csv=$out/results-${ranks}r.csv
  echo "benchmark,payload_bytes,ranks,recorded_s,simulated_s,recorded_min_s,recorded_max_s" >"$csv"
  for phase in $($bench --list); do
    local name=${phase%%:*} size=${phase#*:} payload=0 repeats=32
    [ "$name" = "$phase" ] || payload=$(bytes_of "$size")
    [ "$payload" -lt $((1 << 20)) ] || repeats=4
    [ "$name" != barrier ] || repeats=32
    local rec=() sim=()
    for ((i = 0; i < runs; i++)); do
      local t=$out/traces/${phase/:/-}.$i.cstrace
      $cs run "$model" --oversubscribe $network --app trace:"$t" --out "$out/sim" >"$out/run.log"
      read -r r s < <($report phase "$t" "$out/sim/simulated.cstrace" "$name" "$repeats")
      rec+=("$r")
      sim+=("$s")
    done
    local r s lo hi
    r=$(printf '%s\n' "${rec[@]}" | median)
    s=$(printf '%s\n' "${sim[@]}" | median)
    lo=$(printf '%s\n' "${rec[@]}" | sort -g | head -1)
    hi=$(printf '%s\n' "${rec[@]}" | sort -g | tail -1)
    echo "$name,$payload,$ranks,$r,$s,$lo,$hi" >>"$csv"
  done
  $report table "$csv"
}

# ablation: MODEL as given, then with each MPI-library mechanism it carries switched off in
# turn (bench/ablate.py writes the variants into OUT/ablation/), each replayed on the same
# suite recordings (OUT/traces) like `replay`; prints one table row per variant.
ablation() {
  local base=$out variants
  mkdir -p "$base/ablation"
  variants=$(python3 bench/ablate.py "$model" "$base/ablation") || exit 2
  echo "| model | median abs. error vs median run | within 15 % | within 30 % |"
  echo "| --- | ---: | ---: | ---: |"
  local line
  line=$(replay | grep "median absolute error")
  echo "| $(basename "$model") | $(summary_of "$line") |"
  while IFS=$'\t' read -r name what; do
    mkdir -p "$base/ablation/$name"
    ln -sfn "$(realpath "$base/traces")" "$base/ablation/$name/traces"
    line=$(out=$base/ablation/$name model=$base/ablation/$name.xml replay | grep "median absolute error")
    echo "| without $what | $(summary_of "$line") |"
  done <<<"$variants"
}
# "… median absolute error 11.1 %, …; 33 within 15 %, 44 within 30 %. …" -> "11.1 % | 33 | 44"
summary_of() {
  sed -E 's/.*Against the median run: median absolute error ([0-9.]+ %).*; ([0-9]+) within 15 %, ([0-9]+) within 30 %.*/\1 | \2 | \3/' <<<"$1"
}

jacobi_run() {
  local d=$out/jacobi
  rm -rf "$d"
  mkdir -p "$d"
  traced_run "$jacobi" --size 1000 --iterations 200 --checkpoint-every 50 --residual-every 10 \
    --checkpoint "$out/jacobi.ckpt"
  cp "$out/app.log" "$d/app.log"
  cp "$out/t.cstrace" "$d/jacobi.cstrace"
  cat "$out/merge.log"
  $cs run "$model" --oversubscribe $network --app trace:"$d/jacobi.cstrace" --out "$d/sim" >"$d/run.log"
  $cs compare "$d/jacobi.cstrace" "$d/sim" --out "$d/cmp"
}

overhead() {
  # Alternating which goes first, so a drift of the machine's speed does not favour one side.
  local plain=() traced=()
  for ((i = 0; i < runs; i++)); do
    local order="plain traced"
    [ $((i % 2)) -eq 0 ] || order="traced plain"
    for side in $order; do
      if [ "$side" = plain ]; then
        $mpirun "$bench" --csv "$out/plain-$i.csv" >/dev/null
        plain+=("$out/plain-$i.csv")
      else
        rm -rf "$out/ranks"
        mkdir -p "$out/ranks"
        $mpirun -x LD_PRELOAD="$tracer" -x CLUSTERSIM_TRACE_DIR="$out/ranks" "$bench" \
          --csv "$out/traced-$i.csv" >/dev/null
        traced+=("$out/traced-$i.csv")
      fi
    done
  done
  $report overhead "$(IFS=,; echo "${plain[*]}")" "$(IFS=,; echo "${traced[*]}")"
}

# One recording of a Debian application (lmp or hpcc) in directory $2, 2 ranks, then the
# same run untraced (its wall time: the tracer's overhead on this application).
record_app() {
  local app=$1 d=$2 input cmd
  case $app in
    lmp) input=in.melt.mpiio cmd=(lmp -in in.melt.mpiio) ;;
    hpcc) input=hpccinf.txt cmd=(hpcc) ;;
  esac
  command -v "${cmd[0]}" >/dev/null || {
    echo "validate.sh apps: ${cmd[0]} not installed (bash .ci/install-deps.sh --apps)" >&2
    exit 2
  }
  rm -rf "$d"
  mkdir -p "$d"
  cp "bench/apps/$input" "$d/"
  local abs_cs
  abs_cs=$(realpath "$cs")
  (cd "$d" && CLUSTERSIM_TRACER=$tracer /usr/bin/time -v "$abs_cs" record -o "$app.cstrace" -- \
    $mpirun "${cmd[@]}" >out.txt 2>time.txt)
  rm -f "$d"/dump.* "$d"/hpccoutf.txt
  (cd "$d" && /usr/bin/time -v $mpirun "${cmd[@]}" >untraced.txt 2>untraced-time.txt)
  echo "recorded $d/$app.cstrace (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
}

# The median over compare.csv files (one per recording) of every row: recorded and simulated
# time, the error, and the error's min and max over the recordings.
apps_table() {
  awk -F, '
    function fmt(t) {
      if (t >= 1) return sprintf("%.3f s", t)
      if (t >= 1e-3) return sprintf("%.3f ms", t * 1e3)
      return sprintf("%.2f µs", t * 1e6)
    }
    function med(list,   a, n, i, j, x) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    FNR == 1 { next }
    {
      key = $1 "," $2
      if (!(key in seen)) { seen[key] = 1; order[++rows] = key; label[key] = ($1 == "rank_mpi_io" ? $2 " MPI + I/O" : $1 == "rank" ? $2 " runtime" : $2); calls[key] = $3 }
      rec[key] = rec[key] " " $5; sim[key] = sim[key] " " $6; err[key] = err[key] " " ($7 * 100)
      if (!(key in lo) || $7 * 100 < lo[key]) lo[key] = $7 * 100
      if (!(key in hi) || $7 * 100 > hi[key]) hi[key] = $7 * 100
    }
    END {
      print "| what | calls | recorded | simulated | error | error min – max |"
      print "| --- | ---: | ---: | ---: | ---: | ---: |"
      for (r = 1; r <= rows; r++) {
        k = order[r]
        printf "| %s | %s | %s | %s | %+.1f %% | %+.1f to %+.1f %% |\n", label[k], (calls[k] > 0 ? calls[k] : ""), fmt(med(rec[k])), fmt(med(sim[k])), med(err[k]), lo[k], hi[k]
      }
    }' "$@"
}

apps() {
  local dir=${APPS:-$out/apps} n=${APP_RUNS:-3}
  for app in lmp hpcc; do
    local csvs=()
    for ((i = 1; i <= n; i++)); do
      local t=$dir/$app$i/$app.cstrace r=$out/apps/$app$i
      [ "${RECORD:-0}" != 1 ] || record_app "$app" "$dir/$app$i"
      [ -f "$t" ] || {
        echo "validate.sh apps: $t: no recording (RECORD=1 makes it)" >&2
        exit 2
      }
      mkdir -p "$r"
      $cs run "$model" --oversubscribe $network --app trace:"$t" --out "$r/sim" >"$r/run.log"
      $cs compare "$t" "$r/sim" --out "$r/cmp" >"$r/compare.txt"
      csvs+=("$r/cmp/compare.csv")
    done
    echo
    echo "$app: $n recordings in $dir/${app}1..$n, replayed on $model (median over the recordings)"
    echo
    apps_table "${csvs[@]}"
  done
}

case $what in
  suite) suite ;;
  replay) with_tracer_setup; replay ;;
  ablation) with_tracer_setup; ablation ;;
  jacobi) jacobi_run ;;
  overhead) overhead ;;
  apps) with_tracer_setup; apps ;;
  tracer-setup) tracer_setup ;;
  all) suite; jacobi_run; overhead ;;
  *) echo "usage: bench/validate.sh [suite|replay|ablation|jacobi|overhead|apps|tracer-setup|all]" >&2; exit 2 ;;
esac
