// Timelines in the Chrome trace-event format (chrome://tracing, https://ui.perfetto.dev):
// one process (pid) per run, one thread (tid) per rank, one "X" complete event per operation
// (its waiting part as a nested "wait" event), hardware activity on extra threads.
//
//   {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[
//   {"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"simulated"}},
//   ...
//   {"name":"Send","cat":"mpi","ph":"X","pid":1,"tid":0,"ts":1.5,"dur":2.25,"args":{...}},
//   {"name":"wait","cat":"wait","ph":"X","pid":1,"tid":0,"ts":1.5,"dur":1,"args":{}},
//   ...]}
//
// ts and dur are microseconds, printed exactly from integer picoseconds. Metadata first, then
// the events sorted by (pid, tid, ts); the events of one thread never overlap except a wait
// inside its operation. See traces/README.md, "Outputs of a run".
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "report/run_log.hpp"

namespace clustersim::traces {

// One run; its process is named after log.title ("run" if empty).
void write_timeline(const RunLog& log, const std::string& path);

// Several runs side by side ("recorded", "simulated"): run i is process i + 1, named by its
// label, with the same thread per rank. Throws InputError(path, 0, ...) if path cannot be
// written.
void write_timelines(const std::vector<std::pair<std::string, const RunLog*>>& runs,
                     const std::string& path);

// One run whose operations are not held in memory (`run --out`): `next` gives them sorted by
// (rank, start, end, completion order), each with its effective wait (effective_waits), and
// returns false after the last; `header` gives the title, ranks, hardware spans and end (its
// ops are not read); `nranks` is at least 1 + the highest rank given. The same text as
// write_timeline of the RunLog holding those operations.
using OpSource = std::function<bool(mpi::OpEvent& op, Time& effective_wait)>;
void write_timeline_sorted(const RunLog& header, std::size_t nranks, const OpSource& next,
                           const std::string& path);

// The same document as a string (for tests and callers that embed it).
std::string timeline_json(const std::vector<std::pair<std::string, const RunLog*>>& runs);

}  // namespace clustersim::traces
