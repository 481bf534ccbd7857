// GOAL schedules as a program of a run (`--app trace:FILE.goal`, or --format goal): read whole
// (read_goal), run as a GoalProgram; an error of one of its ranks names the file and the line
// of the operation the rank was in. The "goal" entry of the reader registry only names the
// format (--format goal, detection): a schedule is a graph, not a sequence of records, so
// commands that read traces as records (convert, stats, compare) refuse it with that reason.
#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/text.hpp"
#include "traces/goal.hpp"
#include "traces/goal_source.hpp"
#include "traces/reader.hpp"

namespace clustersim::traces {

namespace {

class LoadedGoal final : public run::LoadedProgram {
  public:
    LoadedGoal(std::string spec, GoalSchedule schedule, std::uint64_t traced_speed)
        : spec_(std::move(spec)), schedule_(std::move(schedule)), traced_speed_(traced_speed) {}
    std::uint32_t ranks() const override { return schedule_.ranks; }
    mpi::Program& bind(std::vector<std::uint64_t> core_speeds) override {
        program_ = std::make_unique<GoalProgram>(schedule_, std::move(core_speeds), traced_speed_);
        return *program_;
    }
    std::string name() const override { return schedule_.path; }
    std::string describe() const override {
        return fmt::format("{} (GOAL, {} ranks, {} operations)", spec_, ranks(),
                           with_commas(schedule_.ops.size()));
    }
    std::string_view unit() const override { return "operations"; }
    std::string input() const override { return schedule_.path; }
    std::string locate(std::int32_t local_rank) const override {
        if (!program_) return {};
        const std::uint32_t line = program_->line(local_rank);
        if (line == 0) return fmt::format("rank {}", local_rank);
        return fmt::format("rank {}, the operation on line {}", local_rank, line);
    }

  private:
    std::string spec_;
    GoalSchedule schedule_;
    std::uint64_t traced_speed_;
    std::unique_ptr<GoalProgram> program_;
};

class GoalReader final : public TraceReader {
  public:
    std::string name() const override { return "goal"; }
    std::string description() const override {
        return "LogGOPSim/ATLAHS GOAL schedule (text; run with --app trace:FILE, not read as "
               "records)";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        return looks_like_goal(path, head);
    }
    Trace read(const std::string& path, const ReadOptions&, ReadReport&) const override {
        throw InputError(path, 0,
                         "a GOAL schedule is a graph of dependencies, not a sequence of records: "
                         "run it (clustersim run --app trace:PATH); only runs read it");
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_goal_reader() {
    return std::make_unique<GoalReader>();
}

bool is_goal_input(const std::string& path, const std::string& format) {
    if (format == "goal") return true;
    if (format != "auto") return false;
    try {
        return trace_readers().detect(path).name() == "goal";
    } catch (const InputError&) {
        return false;  // the trace readers say why
    }
}

std::unique_ptr<run::LoadedProgram> load_goal(const std::string& spec, const std::string& path,
                                              const run::SourceOptions& o) {
    GoalSchedule s = read_goal(path);
    if (s.annotated != 0 && o.notes != nullptr)
        *o.notes << fmt::format(
            "clustersim: {}: {} operation(s) name a cpu or nic; read and ignored (a rank runs on "
            "one core)\n",
            path, with_commas(s.annotated));
    return std::make_unique<LoadedGoal>(spec, std::move(s), o.traced_speed);
}

}  // namespace clustersim::traces
