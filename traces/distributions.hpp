// Per-process distributions of w + δ (Garg & De §2–3.3: the compute time of a fixed work
// quantum plus the noise it met) from a CSV file, for `clustersim jitter --model
// max-of-distributions`.
//
// The first line that is neither blank nor a '#' comment is a header naming the format:
//
//  - samples:    `process,node,value`              one measured iteration per line
//  - histograms: `process,node,lower,upper,count`  fixed-width bins [lower, upper) with
//                                                  their counts (what the Garg–De benchmark
//                                                  writes)
//
// `process` is a whole number (the MPI rank), `node` its host name (processes of one node
// are grouped when looking for anomalous nodes). Values are times with a unit (`1.25ms`,
// `830us`) or plain numbers in seconds (`0.00125`). A process's lines need not be adjacent;
// its bins or samples are sorted by value. Blank lines and lines starting with '#' are
// skipped; fields may carry surrounding spaces.
//
// Errors are InputError "<file>:<line>: <what was expected>": an empty file (no header or no
// data), an unknown header, a wrong column count, a bad or non-finite number, a negative
// value, upper <= lower, count <= 0, overlapping bins of one process, and a process listed
// on two nodes.
#pragma once

#include <string>
#include <vector>

#include "models/noise_max.hpp"

namespace clustersim::traces {

// Reads a distribution file; the result is sorted by process number.
std::vector<jitter::ProcessDistribution> read_distributions(const std::string& path);

// Parses the CSV text (`name` is used in messages, like a file name).
std::vector<jitter::ProcessDistribution> parse_distributions(const std::string& text,
                                                             const std::string& name);

// Writes distributions as a histogram CSV (`process,node,lower,upper,count`, values in
// seconds) that read_distributions reads back; samples (lower == upper) are written as the
// samples format instead when every bin of every process is a sample. Throws
// InputError(path, 0, …) when the file cannot be written, std::invalid_argument when one file
// would mix samples and bins.
void write_distributions(const std::vector<jitter::ProcessDistribution>& dists,
                         const std::string& path);

}  // namespace clustersim::traces
