#include "traces/trace_source.hpp"

#include <ostream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/text.hpp"
#include "traces/goal_source.hpp"
#include "traces/jitter_io.hpp"
#include "traces/reader.hpp"
#include "traces/replay.hpp"

namespace clustersim::traces {

namespace {

constexpr std::string_view kPrefix = "trace:";

class LoadedTrace final : public run::LoadedProgram {
  public:
    LoadedTrace(std::string spec, Trace trace, std::uint64_t traced_speed,
                std::vector<std::string> warnings)
        : spec_(std::move(spec)),
          trace_(std::move(trace)),
          traced_speed_(traced_speed),
          warnings_(std::move(warnings)) {}
    std::vector<std::string> warnings() const override { return warnings_; }
    std::uint32_t ranks() const override { return trace_.ranks(); }
    std::vector<io::FileDecl> files() const override { return trace_.files; }
    mpi::Program& bind(std::vector<std::uint64_t> core_speeds) override {
        replay_ = std::make_unique<TraceProgram>(trace_, std::move(core_speeds), traced_speed_);
        return *replay_;
    }
    std::string name() const override { return trace_.name; }
    std::string describe() const override {
        return fmt::format("{} ({} ranks, {} events)", spec_, ranks(),
                           with_commas(trace_.total_events()));
    }
    std::string_view unit() const override { return "records"; }
    std::string input() const override { return spec_.substr(kPrefix.size()); }
    std::string locate(std::int32_t local_rank) const override {
        if (!replay_) return {};
        return fmt::format("record {} of rank {}", with_commas(replay_->record_number(local_rank)),
                           local_rank);
    }
    std::string locate_mark(std::int32_t local_rank, std::uint64_t mark) const override {
        if (!replay_ || mark == 0) return locate(local_rank);
        return fmt::format("record {} of rank {}",
                           with_commas(replay_->record_number_at(local_rank, mark)), local_rank);
    }

  private:
    std::string spec_;
    Trace trace_;
    std::uint64_t traced_speed_;
    std::vector<std::string> warnings_;
    std::unique_ptr<TraceProgram> replay_;
};

class TraceSource final : public run::ProgramSource {
  public:
    bool brings_own_ranks() const override { return true; }
    std::uint32_t min_ranks(const std::string&) const override { return 0; }
    std::unique_ptr<run::LoadedProgram> load(const std::string& spec, std::uint32_t,
                                             const run::SourceOptions& o) const override {
        const std::string path = spec.substr(kPrefix.size());
        if (is_goal_input(path, o.format)) return load_goal(spec, path, o);
        ReadOptions ro;
        ro.skip_unknown = o.skip_unknown;
        ReadReport report;
        Trace trace = load_trace(path, o.format, ro, report);
        if (o.notes != nullptr) {
            for (const auto& [kind, n] : report.skipped)
                *o.notes << fmt::format("clustersim: skipped {} '{}' record(s) of {}\n", n, kind,
                                        path);
            *o.notes << unmodeled_line(report, path);
        }
        if (trace.ranks() == 0) throw InputError(path, 0, "the trace has no ranks");
        // Warnings for the run's summary (LoadedProgram::warnings); `clustersim run` prints
        // them on stderr once the run has succeeded (an error stays the one line).
        const std::string lines = trace_warnings(trace, report, path);
        std::vector<std::string> warnings;
        const std::string_view prefix = "clustersim: warning: ";
        for (std::size_t at = 0; at < lines.size();) {
            const std::size_t end = lines.find('\n', at);
            warnings.push_back(lines.substr(at + prefix.size(), end - at - prefix.size()));
            at = end + 1;
        }
        return std::make_unique<LoadedTrace>(spec, std::move(trace), o.traced_speed,
                                             std::move(warnings));
    }
    void check(const run::SourceOptions& o) const override { check_trace_format(o.format); }
    std::vector<std::string> flags_set(const run::SourceOptions& o) const override {
        std::vector<std::string> set;
        if (o.format != "auto") set.push_back("--format " + o.format);
        if (o.skip_unknown) set.emplace_back("--skip-unknown");
        if (!o.traced_speed_text.empty()) set.push_back("--traced-speed " + o.traced_speed_text);
        return set;
    }
};

}  // namespace

void add_trace_sources(run::Sources& sources) {
    sources.programs.add(std::string(kPrefix), std::make_unique<TraceSource>());
    sources.jitter = [](const std::string& path, double frequency_hz) {
        return read_jitter_trace(path, JitterFormat::Auto, frequency_hz);
    };
}

}  // namespace clustersim::traces
