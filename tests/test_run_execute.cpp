// run::execute (run/execute.hpp): one run assembled from a RunSpec, with the programs read
// through program sources. A toy source registered here, outside the tree's own list, runs
// like a built-in app or a trace: its ranks placed, its cores' speeds given, its errors named
// by its input and the place in it.
#include <sstream>

#include <gtest/gtest.h>

#include "run/execute.hpp"
#include "simulator/error.hpp"
#include "traces/trace_source.hpp"

namespace {

using namespace clustersim;

const std::string kTwoNodes =
    std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/two-nodes.xml";

// "toy:BYTES[@PEER]": rank 0 sends BYTES to rank PEER (default 1), rank 1 receives them from
// rank 0. Read from "toy.txt", where rank r's operation is on line r + 1.
class ToyProgram final : public mpi::Program {
  public:
    ToyProgram(std::uint64_t bytes, std::int32_t peer) : bytes_(bytes), peer_(peer) {}
    bool next(std::int32_t rank, mpi::Op& op) override {
        if (done_[static_cast<std::size_t>(rank)]) return false;
        done_[static_cast<std::size_t>(rank)] = true;
        op = mpi::Op{};
        op.kind = rank == 0 ? mpi::OpKind::Send : mpi::OpKind::Recv;
        op.peer = rank == 0 ? peer_ : 0;
        op.bytes = bytes_;
        return true;
    }

  private:
    std::uint64_t bytes_;
    std::int32_t peer_;
    bool done_[2] = {false, false};
};

class LoadedToy final : public run::LoadedProgram {
  public:
    LoadedToy(std::string spec, std::uint64_t bytes, std::int32_t peer)
        : spec_(std::move(spec)), program_(bytes, peer), bytes_(bytes) {}
    std::uint32_t ranks() const override { return 2; }
    mpi::Program& bind(std::vector<std::uint64_t> core_speeds) override {
        speeds = std::move(core_speeds);
        return program_;
    }
    std::string name() const override { return "toy"; }
    std::string describe() const override { return spec_ + " (toy)"; }
    std::vector<mpi::AppResult> summarize(Time simulated, const std::vector<Time>&) const override {
        return {{"toy bytes", std::to_string(bytes_), "toy_bytes", static_cast<double>(bytes_)},
                {"toy time", format_time(simulated), "toy_time_s", simulated.seconds()}};
    }
    std::string input() const override { return "toy.txt"; }
    std::string locate(std::int32_t local_rank) const override {
        return "line " + std::to_string(local_rank + 1);
    }
    std::vector<std::uint64_t> speeds;

  private:
    std::string spec_;
    ToyProgram program_;
    std::uint64_t bytes_;
};

class ToySource final : public run::ProgramSource {
  public:
    bool brings_own_ranks() const override { return true; }
    std::uint32_t min_ranks(const std::string&) const override { return 2; }
    std::unique_ptr<run::LoadedProgram> load(const std::string& spec, std::uint32_t,
                                             const run::SourceOptions&) const override {
        const std::string body = spec.substr(4);
        const auto at = body.find('@');
        const std::int32_t peer = at == std::string::npos ? 1 : std::stoi(body.substr(at + 1));
        auto loaded = std::make_unique<LoadedToy>(spec, std::stoull(body.substr(0, at)), peer);
        last = loaded.get();
        return loaded;
    }
    mutable LoadedToy* last = nullptr;
};

struct Fixture {
    run::Sources sources;
    ToySource* toy = nullptr;
    Fixture() {
        run::add_app_source(sources);
        traces::add_trace_sources(sources);
        auto t = std::make_unique<ToySource>();
        toy = t.get();
        sources.programs.add("toy:", std::move(t));  // the one line that adds a source
    }
};

run::RunSpec spec_of(std::vector<std::string> apps) {
    run::RunSpec spec;
    spec.model_path = kTwoNodes;
    spec.apps = std::move(apps);
    return spec;
}

TEST(RunExecute, ASourceRegisteredOutsideTheTreeRunsItsProgram) {
    Fixture f;
    const run::RunOutcome o = run::execute(spec_of({"toy:1000"}), f.sources);
    // Whole messages, store and forward: 6 edges of 1 us + 1000 B / 10^9 B/s each = 12 us.
    EXPECT_EQ(o.result.simulated, Time::us(12));
    EXPECT_EQ(o.result.network.messages_delivered, 1u);
    EXPECT_EQ(o.result.network.bytes_delivered, 1000u);
    ASSERT_EQ(o.setup.ranks, 2u);
    ASSERT_NE(f.toy->last, nullptr);
    // Bound to its cores' speeds: 1G instructions/s on both nodes.
    EXPECT_EQ(f.toy->last->speeds, (std::vector<std::uint64_t>{1'000'000'000, 1'000'000'000}));
    EXPECT_EQ(o.setup.unit, "operations");
    const run::RunReport report = run::make_report(spec_of({"toy:1000"}), o);
    EXPECT_EQ(report.app_line, "toy:1000 (toy)");
    ASSERT_EQ(report.summary.size(), 2u);
    EXPECT_EQ(report.summary[0].text, "1000");
    EXPECT_DOUBLE_EQ(report.summary[1].value, 12e-6);
}

TEST(RunExecute, AnErrorOfOneRankNamesTheInputAndThePlace) {
    Fixture f;
    try {
        (void)run::execute(spec_of({"toy:8@5"}), f.sources);
        FAIL() << "a send to rank 5 of 2 ran";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "toy.txt");
        EXPECT_NE(e.message().find("names peer rank 5"), std::string::npos) << e.message();
        EXPECT_NE(e.message().find("(line 1)"), std::string::npos) << e.message();
    }
}

TEST(RunExecute, RanksCountOnlyTheAppsWhoseSourceTakesACount) {
    Fixture f;
    // The toy brings its 2 ranks; --ranks 4 is the barrier's: 6 ranks, placed in --app order.
    run::RunSpec spec = spec_of({"toy:64", "barrier"});
    spec.ranks = {4};
    spec.oversubscribe = true;
    const run::RunOutcome o = run::execute(spec, f.sources);
    EXPECT_EQ(o.setup.ranks, 6u);
    EXPECT_EQ(o.result.ranks.size(), 6u);
    EXPECT_GE(o.result.network.bytes_delivered, 64u);
    // A second count has no app to go to; the message names the sources that bring their own.
    spec.ranks = {4, 2};
    try {
        (void)run::execute(spec, f.sources);
        FAIL() << "two --ranks for one built-in app ran";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "--ranks");
        EXPECT_NE(e.message().find("for 1 built-in app; a trace: or toy: app brings its own ranks"),
                  std::string::npos)
            << e.message();
    }
}

TEST(RunExecute, TheHooksSeeThePlacementWrapTheProgramAndTheNotes) {
    Fixture f;
    run::RunSpec spec = spec_of({"pingpong:size=1000B,iterations=1"});
    spec.ranks = {2};
    spec.source.format = "native_text";  // a trace flag with no trace: app
    std::ostringstream notes;
    std::uint32_t placed = 0;
    std::uint64_t wrapped_ops = 0;
    struct Counting final : mpi::Program {
        mpi::Program* inner = nullptr;
        std::uint64_t* ops = nullptr;
        bool next(std::int32_t rank, mpi::Op& op) override {
            const bool more = inner->next(rank, op);
            *ops += more ? 1 : 0;
            return more;
        }
    } counting;
    counting.ops = &wrapped_ops;
    run::RunHooks hooks;
    hooks.notes = &notes;
    hooks.placed = [&](const run::RunSetup& s, const run::Model&) { placed = s.ranks; };
    hooks.wrap = [&](mpi::Program& program, const run::RunSetup&,
                     mpi::OpObserver*&) -> mpi::Program* {
        counting.inner = &program;
        return &counting;
    };
    const run::RunOutcome o = run::execute(spec, f.sources, hooks);
    EXPECT_EQ(placed, 2u);
    EXPECT_EQ(wrapped_ops, 4u);  // a send and a receive on each rank
    // The round trip is two one-way times of the toy's 12 us.
    EXPECT_EQ(o.result.simulated, Time::us(24));
    EXPECT_EQ(notes.str(),
              "clustersim: note: --format native_text not used: no --app is a trace: app\n");
}

TEST(RunExecute, AModelGivenInMemoryIsUsedAsIs) {
    Fixture f;
    run::RunSpec spec = spec_of({"toy:1000"});
    spec.model = run::load_model(kTwoNodes);
    spec.model_path = "in-memory";  // only names it
    const run::RunOutcome o = run::execute(spec, f.sources);
    EXPECT_EQ(o.result.simulated, Time::us(12));
    spec = spec_of({"toy:1000"});
    spec.model_path = "/nonexistent/model.xml";
    EXPECT_THROW((void)run::execute(spec, f.sources), InputError);
}

}  // namespace
