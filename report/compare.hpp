// Comparing a recorded run with a simulated one (`clustersim compare`): per rank and per
// operation the recorded and simulated time and the relative error, and the total runtime
// error, from two RunLogs (each read from a trace with times).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_log.hpp"

namespace clustersim::traces {

struct CompareRow {
    std::string name;
    std::uint64_t count_recorded = 0, count_simulated = 0;
    Time recorded, simulated;
    // (simulated - recorded) / recorded; 0 when both are 0, +inf-like large when only the
    // recorded one is 0 (reported as "n/a").
    double error() const;
};

struct Comparison {
    CompareRow total;  // runtime: the last rank's end
    // Where the ranks' time went, summed over ranks: replayed (compute and unmodeled calls,
    // replayed at their recorded durations), modelled (MPI and MPI-IO calls), the time in no
    // record (before a rank's first, between records), and their sum, the ranks' runtimes.
    std::vector<CompareRow> split;
    std::vector<CompareRow> ranks;  // per rank: its last end (its runtime)
    // per rank: time in MPI and MPI-IO calls (everything but compute), as PSINS compares
    std::vector<CompareRow> rank_comm;
    // per rank: time in modelled calls (MPI and MPI-IO; the split's modelled part per rank)
    std::vector<CompareRow> rank_modelled;
    std::vector<CompareRow> ops;  // per operation kind: summed durations over ranks
    // per operation kind and message size class (size_class_of), MPI and MPI-IO calls only:
    // summed durations over ranks; named "Allreduce (64 B, 1 KiB]" (`compare --by-size`)
    std::vector<CompareRow> by_size;
    std::vector<std::string> notes;  // e.g. rank counts differ
    // Tracer overhead taken out of the recorded side (run_log_from_trace's TracerOverhead;
    // set by the caller): its time summed over ranks and the compute bursts that held it.
    Time overhead_subtracted;
    std::uint64_t overhead_bursts = 0;
};

// Message size classes of `compare --by-size`: 0 B, then powers of 16 from 64 B:
// (0, 64 B], (64 B, 1 KiB], (1 KiB, 16 KiB], (16 KiB, 256 KiB], (256 KiB, 4 MiB],
// (4 MiB, 64 MiB], and above 64 MiB. A call's size is the bytes it moved (its payload, or a
// file call's data).
inline constexpr int kSizeClasses = 8;
int size_class_of(std::uint64_t bytes);
// "0 B", "(0 B, 64 B]", "(64 B, 1 KiB]", ..., "> 64 MiB": each class holds the sizes above its
// lower bound up to and including its upper one.
std::string size_class_name(int size_class);

Comparison compare_runs(const RunLog& recorded, const RunLog& simulated);
// Whether the two runs are of one program: the same number of ranks, and on every rank the
// same number of calls of every operation but compute (compute bursts are cut differently
// by a tracer and a simulation; calls complete in another order where they overlap, so the
// counts are compared, not the order). Empty when they agree, else the first difference
// ("rank 3 made 12 Allreduce calls in the recorded run, 10 in the simulated one").
std::string program_mismatch(const RunLog& recorded, const RunLog& simulated);
// The readable table for stdout (units on every number; errors in percent); `by_size` adds the
// table per operation and size class, with the time per call.
std::string format_comparison(const Comparison& c, std::size_t max_rank_rows = 32,
                              bool by_size = false);
// The comparison as one JSON object (`compare --json`, and compare.json with --out;
// docs/schema/compare.schema.json): the runtime, the split (replayed, modelled, no record,
// the ranks' runtimes; the first three add up to the last on each side), per rank its
// runtime, its modelled calls' time and its time outside compute, per operation, per operation and
// size class with `by_size`, the notes and the tracer overhead taken out. Each row: name, calls on
// each side, recorded_s, simulated_s and error ((simulated - recorded) / recorded; null when only
// the recorded time is 0).
nlohmann::json comparison_json(const Comparison& c, bool by_size = false);
// CSV with one row per rank and per operation (and with `by_size`, per operation and size
// class: what "operation_size", name "Allreduce (64 B, 1 KiB]").
void write_comparison_csv(const Comparison& c, const std::string& path, bool by_size = false);

}  // namespace clustersim::traces
