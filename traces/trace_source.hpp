// Traces as a program source of a run (run/program_source.hpp): `--app trace:PATH` read by the
// trace reader registry (reader.hpp, --format, --skip-unknown) and replayed as a TraceProgram
// with the target cores' speeds (replay.hpp, --traced-speed); an error of one of its ranks
// names the trace and the record. Also the reader of the jitter trace files a model's
// <jitter trace="..."> names (jitter_io.hpp).
#pragma once

#include "run/program_source.hpp"

namespace clustersim::traces {

// Adds the "trace:" program source and the jitter trace reader to `sources`.
void add_trace_sources(run::Sources& sources);

}  // namespace clustersim::traces
