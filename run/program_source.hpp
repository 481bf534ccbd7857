// Where the programs of a run come from: one registry of program sources, keyed by the prefix of
// an --app spec ("trace:" for traces), with one default source for the rest (the built-in
// apps). A source turns a spec into a LoadedProgram: its ranks, the files it opens, its
// mpi::Program once the cores it runs on are known, its summary and, for an error of one of
// its ranks, where in its input the operation came from. run::execute (run/execute.hpp) reads
// every --app through these and names no source itself: the built-in apps (collectives/,
// iosys/) come in through AppSource below, traces through traces/trace_source.hpp, and a
// source of one's own is one class and one `add` line (tests/test_run_execute.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/apps.hpp"
#include "collectives/program.hpp"
#include "iosys/file_system.hpp"
#include "models/jitter.hpp"
#include "simulator/time.hpp"

namespace clustersim::run {

// What a source may need besides the spec (the trace flags of `clustersim run`).
struct SourceOptions {
    std::string format = "auto";     // --format: a trace reader's name, or auto
    bool skip_unknown = false;       // --skip-unknown
    std::uint64_t traced_speed = 0;  // --traced-speed in instructions/s (0: the trace's own)
    std::string traced_speed_text;   // --traced-speed as given ("": not given)
    std::ostream* notes = nullptr;   // where a source says what it skipped or assumed
};

// One program of a run, as its source read it.
class LoadedProgram {
  public:
    virtual ~LoadedProgram() = default;
    virtual std::uint32_t ranks() const = 0;
    // The files it opens through MPI-IO (the I/O system declares them before the run).
    virtual std::vector<io::FileDecl> files() const { return {}; }
    // Told the speed (instructions/s) of the core each of its ranks runs on, in rank order,
    // once the ranks are placed; returns the program the run executes.
    virtual mpi::Program& bind(std::vector<std::uint64_t> core_speeds) = 0;
    // Its ranks' name in a timeline (the trace's name, the app spec).
    virtual std::string name() const = 0;
    // Its entry in the summary's header: "pingpong:size=1MiB", "trace:x (4 ranks, 1,024 events)".
    virtual std::string describe() const = 0;
    // What a run of it should not be trusted for, one line each without "warning:" (a trace
    // with no modelled MPI call, one cut before MPI_Finalize): the summary repeats them.
    virtual std::vector<std::string> warnings() const { return {}; }
    // What the progress line counts: "operations" or "records".
    virtual std::string_view unit() const { return "operations"; }
    // Its own results for the summary (a ping-pong's one-way time, a collective's latency per
    // call); `finish`: when each of its ranks finished (index = its rank).
    virtual std::vector<mpi::AppResult> summarize(Time simulated,
                                                  const std::vector<Time>& finish) const {
        (void)simulated;
        (void)finish;
        return {};
    }
    // The input an error of this program names (a trace file); empty: errors stay as thrown.
    virtual std::string input() const { return {}; }
    // Where the operation `local_rank` is in was read from, for an error of that rank
    // ("record 12 of rank 3"); empty: nothing more precise than input().
    virtual std::string locate(std::int32_t local_rank) const {
        (void)local_rank;
        return {};
    }
    // The same for the operation mpi::Program::mark gave `mark` (0: the current one).
    virtual std::string locate_mark(std::int32_t local_rank, std::uint64_t mark) const {
        return mark == 0 ? locate(local_rank) : std::string{};
    }
};

class ProgramSource {
  public:
    virtual ~ProgramSource() = default;
    // True when a spec brings its own rank count (a trace); false when --ranks sets it.
    virtual bool brings_own_ranks() const = 0;
    // The rank count without --ranks (sources that bring their own: unused).
    virtual std::uint32_t min_ranks(const std::string& spec) const = 0;
    // Reads `spec` (prefix included) for `ranks` ranks (0 for a source that brings its own).
    // Bad input: InputError naming the spec's file or --app.
    virtual std::unique_ptr<LoadedProgram> load(const std::string& spec, std::uint32_t ranks,
                                                const SourceOptions& options) const = 0;
    // Checks the options it reads (a bad --format is refused even when no trace is read).
    virtual void check(const SourceOptions& options) const { (void)options; }
    // The options it reads that differ from their defaults, as flags ("--format otf2"), so a
    // run without any spec of this source can say they went unused.
    virtual std::vector<std::string> flags_set(const SourceOptions& options) const {
        (void)options;
        return {};
    }
};

// The sources by prefix; a spec no prefix claims goes to the default source.
class ProgramSources {
  public:
    void add(std::string prefix, std::unique_ptr<ProgramSource> source);
    void set_default(std::unique_ptr<ProgramSource> source);
    // The source of `spec`; InputError naming --app if none claims it.
    const ProgramSource& source_for(std::string_view spec) const;
    // Every registered source with its prefix, the default last (prefix "").
    std::vector<std::pair<std::string_view, const ProgramSource*>> all() const;

  private:
    std::vector<std::pair<std::string, std::unique_ptr<ProgramSource>>> by_prefix_;
    std::unique_ptr<ProgramSource> default_;
};

// The built-in apps of an mpi::AppRegistry (collectives/apps.hpp: pingpong, bcast, ...; the
// I/O apps of iosys/ior.hpp add their files).
class AppSource final : public ProgramSource {
  public:
    explicit AppSource(mpi::AppRegistry registry) : registry_(std::move(registry)) {}
    bool brings_own_ranks() const override { return false; }
    std::uint32_t min_ranks(const std::string& spec) const override {
        return registry_.min_ranks(spec);
    }
    std::unique_ptr<LoadedProgram> load(const std::string& spec, std::uint32_t ranks,
                                        const SourceOptions& options) const override;
    const mpi::AppRegistry& registry() const { return registry_; }

  private:
    mpi::AppRegistry registry_;
};

// Everything a run reads besides the model: the program sources and the reader of the jitter
// trace files a model's <jitter trace="..."> names (traces/jitter_io.hpp; empty: such a
// model is an error).
struct Sources {
    ProgramSources programs;
    std::function<jitter::JitterTrace(const std::string& path, double frequency_hz)> jitter;
};

// The built-in apps (collectives/ and iosys/) as the default source.
void add_app_source(Sources& sources);

}  // namespace clustersim::run
