// Jitter trace files (issue 6). Three formats are registered (jitter_formats()):
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

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/jitter.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"

namespace clustersim::traces {

// One jitter trace format: one of these and one `jitter_formats().add(...)` line, from any
// file (traces/README.md, "Adding a jitter trace format").
struct JitterFormatEntry {
    std::string name;               // "text"
    std::string doc;                // one line
    std::vector<ParamInfo> params;  // what it reads besides the file (none yet)
    // The extensions of an output file that choose it when no format is named (".jtb");
    // an output with none of the registered ones is written as text.
    std::vector<std::string> extensions;
    // True when the file `path`, whose first bytes are `head` (up to 64), is in this format;
    // null: never detected (text is what is left). Tried in registration order.
    std::function<bool(const std::string& path, std::string_view head)> detect;
    // The trace held in `data` (the file's bytes; `path` names it in messages). A
    // `frequency_hz` > 0 overrides or supplies the clock (see read_jitter_trace).
    std::function<jitter::JitterTrace(const std::string& data, const std::string& path,
                                      double frequency_hz)>
        read;
    // The bytes of `trace` in this format; InputError naming `path` when it cannot hold it.
    std::function<std::string(const jitter::JitterTrace& trace, const std::string& path)> write;
};

using JitterFormatRegistry = NamedRegistry<JitterFormatEntry>;

// Every jitter trace format: text, binary, loggopsim on first use, then whatever is added.
JitterFormatRegistry& jitter_formats();

// A format by name: "auto" (detect when reading, text when writing) or a registered one.
// The built-ins are spelled as constants, so callers (and tests) keep writing
// JitterFormat::Binary; any registered name is a JitterFormat{"name"}.
struct JitterFormat {
    std::string name = "auto";
    static const JitterFormat Auto, Text, Binary, LogGOPSim;
    friend bool operator==(const JitterFormat&, const JitterFormat&) = default;
};
inline const JitterFormat JitterFormat::Auto{"auto"};
inline const JitterFormat JitterFormat::Text{"text"};
inline const JitterFormat JitterFormat::Binary{"binary"};
inline const JitterFormat JitterFormat::LogGOPSim{"loggopsim"};

// "auto" or a registered name (its '-'/'_' spelling too); throws InputError("--format", 0, …).
JitterFormat parse_jitter_format(const std::string& name);
std::vector<std::string> jitter_format_names();  // "auto", then the registered names
// Auto: the first registered format whose detect accepts the file (binary when it starts
// with the magic, LogGOPSim when the name ends in ".noise"), else text.
JitterFormat detect_jitter_format(const std::string& path);
// The format an output file is written in: the one named (not "auto"), else the one whose
// extension `path` has, else text.
JitterFormat output_jitter_format(const std::string& name, const std::string& path);

// Reads a trace; `frequency_hz` (> 0) overrides or supplies the clock: for text and binary
// it replaces the header's frequency (if both are given and differ, the flag wins); for
// LogGOPSim it converts ns to cycles (0 → 1 GHz). The result's `source` is the path.
jitter::JitterTrace read_jitter_trace(const std::string& path,
                                      const JitterFormat& format = JitterFormat::Auto,
                                      double frequency_hz = 0);

// Writes a trace (Auto: text); LogGOPSim needs trace.frequency_hz > 0 (else InputError
// naming the path). Throws InputError(path, 0, …) when the file cannot be written.
void write_jitter_trace(const jitter::JitterTrace& trace, const std::string& path,
                        const JitterFormat& format);

// Parses the text format from memory (`name` is used in messages); used by the reader and
// tests.
jitter::JitterTrace parse_jitter_text(const std::string& text, const std::string& name);

}  // namespace clustersim::traces
