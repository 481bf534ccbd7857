// Jitter trace files (issue 6). Three formats:
//
//  - jitSim text (`.jtr`, the default): comment lines start with '#'; an optional header
//    line `# frequency: 2.4GHz` (any speed clustersim parses: 2.4G, 2.4GHz, 2400000000Hz, or
//    a plain number of Hz, 2400000000) gives the clock of the cycles; then one tuple per
//    line: `<jitter_cycles> <cycles_to_next>` (whitespace or a comma between; a '#' after
//    the tuple starts a comment). Without a frequency header the trace is in cycles only
//    (frequency 0). The writer puts whole hertz in the header (`# frequency: 2400000000Hz`,
//    a fractional clock is rounded) after a `# source:` comment; the binary format keeps
//    the exact double.
//  - jitSim binary (`.jtb`): magic "CSJTR\0\0\1" (8 bytes), frequency in Hz (float64 little
//    endian, 0 = unknown), tuple count (uint64 LE), then count × (jitter uint64 LE,
//    compute uint64 LE).
//  - LogGOPSim noise (`.noise`, format "loggopsim"): one event per line,
//    `<start>\t<duration>` in nanoseconds from the start of the run (integers or decimals),
//    events sorted by start and not overlapping (touching is fine). Read with a frequency
//    (needed to turn ns into cycles; the reader default is 1 GHz, i.e. 1 cycle = 1 ns);
//    times are rounded to the nearest cycle; the gap before the first event and after the
//    last are compute: the trace ends at the largest time in the file. An event of duration
//    0 (or under half a cycle) is no jitter; the writer ends the file with one,
//    `<end>\t0`, so the compute after the last event survives a round trip (within one
//    cycle per boundary; a tuple with 0 jitter in the middle of a trace merges into the
//    compute before it). '#' starts a comment. Written from a trace that has a frequency.
//
// Errors are InputError "<file>:<line>: <what was expected>": a negative, non-numeric or
// missing field, trailing garbage, an empty trace (no tuples), a trace with no compute
// cycles, a bad frequency, a truncated binary file, overlapping or unsorted LogGOPSim events.
// An empty trace or one without compute is reported at the file's last line (text,
// LogGOPSim); binary-format errors have no line ("<file>: <what>").
#pragma once

#include <string>
#include <vector>

#include "models/jitter.hpp"

namespace clustersim::traces {

enum class JitterFormat { Auto, Text, Binary, LogGOPSim };

// "auto" | "text" | "binary" | "loggopsim"; throws InputError("--format", 0, …).
JitterFormat parse_jitter_format(const std::string& name);
const std::vector<std::string>& jitter_format_names();  // the names it reads
// Auto: binary when the file starts with the magic, LogGOPSim when the name ends in
// ".noise", else text.
JitterFormat detect_jitter_format(const std::string& path);

// Reads a trace; `frequency_hz` (> 0) overrides or supplies the clock: for text and binary
// it replaces the header's frequency (if both are given and differ, the flag wins); for
// LogGOPSim it converts ns to cycles (0 → 1 GHz). The result's `source` is the path.
jitter::JitterTrace read_jitter_trace(const std::string& path,
                                      JitterFormat format = JitterFormat::Auto,
                                      double frequency_hz = 0);

// Writes a trace; LogGOPSim needs trace.frequency_hz > 0 (else InputError naming the path).
// Throws InputError(path, 0, …) when the file cannot be written.
void write_jitter_trace(const jitter::JitterTrace& trace, const std::string& path,
                        JitterFormat format);

// Parses the text format from memory (`name` is used in messages); used by the reader and
// tests.
jitter::JitterTrace parse_jitter_text(const std::string& text, const std::string& name);

}  // namespace clustersim::traces
