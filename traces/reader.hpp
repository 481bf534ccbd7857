// Trace readers as plug-ins: one class per format behind a small interface, chosen by the
// file's content (sniff) or by name (--format). Adding a format = one class + one line:
// `trace_readers().add(...)`, from any translation unit.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

struct ReadOptions {
    // Records the reader does not support are skipped (and counted per kind) instead of
    // being an error naming the file, line and record.
    bool skip_unknown = false;
};

struct ReadReport {
    std::map<std::string, std::uint64_t> skipped;  // record kind -> how many were skipped
    std::vector<std::string> notes;                // what the reader assumed, one line each
    // Every file the trace was read from besides the one named (the rank files of an index
    // or project file), so that `convert` can tell the trace's whole size.
    std::vector<std::string> inputs;
    // MPI calls kept as `unmodeled` records (replayed as their recorded duration), by MPI
    // function name (OTF2 and DUMPI readers).
    std::map<std::string, std::uint64_t> unmodeled;
    // The ranks whose MPI_Finalize the trace records (a SimGrid TI `finalize`, an OTF2 or
    // DUMPI MPI_Finalize). `finalize_always`: the format records every rank's (SimGrid TI),
    // so a rank without one was cut; otherwise a rank without one is cut only when another
    // rank has one (clustersim's own traces record none).
    std::set<std::uint32_t> finalized;
    bool finalize_always = false;
    // What the reader itself found that a run should not be trusted for (an OTF2 archive
    // whose locations hold fewer events than its definitions announce), one line each,
    // without "clustersim: warning: PATH: ": trace_warnings prints them.
    std::vector<std::string> warnings;
};

// One warning line (with its newline) per thing a trace lacks that a replay of it needs: no
// MPI call the simulator models (the run replays recorded durations only), or ranks whose
// recording ends before MPI_Finalize (cut: the run replays what was recorded). Empty when
// there is none. The reader's own warnings (ReadReport::warnings) come first.
std::string trace_warnings(const Trace& trace, const ReadReport& report, const std::string& path);

class TraceReader {
  public:
    virtual ~TraceReader() = default;
    virtual std::string name() const = 0;         // "native_text", "simgrid_ti", "hdtrace"
    virtual std::string description() const = 0;  // one line for --help and errors
    // True if `path` (a file or directory) looks like this format; `head` is the first bytes
    // of the file (empty for a directory).
    virtual bool sniff(const std::string& path, const std::string& head) const = 0;
    // Reads the whole trace. Bad input: InputError naming file, line and what was expected.
    virtual Trace read(const std::string& path, const ReadOptions& options,
                       ReadReport& report) const = 0;
};

// The first bytes of a file that sniff() is given (4 KiB; fewer for a shorter file; empty when
// it cannot be read). A reader that reads a folder through one of its files (an OTF2 anchor, a
// DUMPI .meta) sniffs that file with them.
std::string read_head(const std::string& path);

// One registered reader: its name and one line (the reader's own), no parameters.
struct ReaderEntry {
    std::string name;
    std::string doc;
    std::vector<ParamInfo> params;
    std::shared_ptr<const TraceReader> reader;
};

// Readers in the order detect() tries them, built on NamedRegistry (simulator/registry.hpp).
// The formats' own is trace_readers(); one made here is a list of one's own.
class ReaderRegistry {
  public:
    ReaderRegistry() : readers_("trace format") {}
    // Throws std::logic_error for a name registered twice.
    void add(std::unique_ptr<TraceReader> reader);
    const TraceReader* find(const std::string& name) const;
    // The first reader whose sniff() accepts `path`; InputError listing the formats if none.
    const TraceReader& detect(const std::string& path) const;
    std::string names() const;  // "native_text, native_binary, simgrid_ti, hdtrace"
    std::vector<ReaderEntry> entries() const { return readers_.entries(); }

  private:
    NamedRegistry<ReaderEntry> readers_;
};

void register_builtin_readers(ReaderRegistry& registry);
// Every trace reader `--format` and detection know: the built-ins on first use, then whatever
// any translation unit adds: `traces::trace_readers().add(std::make_unique<MyReader>())`.
ReaderRegistry& trace_readers();

// One line (with its newline) naming the MPI calls a reader kept as unmodeled records, by name;
// empty when there are none.
std::string unmodeled_line(const ReadReport& report, const std::string& path);

// Reads `path` with `format` ("auto": detect).
Trace load_trace(const std::string& path, const std::string& format, const ReadOptions& options,
                 ReadReport& report);
// Throws load_trace's InputError (naming --format) if `format` is neither "auto" nor a
// registered reader's name: a bad --format is refused even when no trace is read.
void check_trace_format(const std::string& format);

// Factories of the readers (defined in their own files).
std::unique_ptr<TraceReader> make_native_text_reader();
std::unique_ptr<TraceReader> make_native_binary_reader();
std::unique_ptr<TraceReader> make_simgrid_ti_reader();
std::unique_ptr<TraceReader> make_hdtrace_reader();
std::unique_ptr<TraceReader> make_otf2_reader();
std::unique_ptr<TraceReader> make_dumpi_reader();
std::unique_ptr<TraceReader> make_goal_reader();

}  // namespace clustersim::traces
