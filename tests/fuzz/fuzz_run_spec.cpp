// The specs of `clustersim run`'s flags and what they build: the input is lines "KEY VALUE"
// (KEY: app, ranks, network, algorithm, mpi, cpu, placement, model; app and algorithm may
// repeat; other lines are ignored), given to run::execute as `clustersim run` gives --app,
// --ranks, --network, --algorithm, --mpi, --cpu and --placement, on one of four example models
// (model 0..3: star-16, fat-tree-16, torus-4x4, io-strided). What they accept is simulated
// for at most 2^12 engine events (the first progress call stops it): the app's parameters,
// the algorithms' segments and the network models' parameters reach the code that uses them.
// The errors a user gets for a bad spec (InputError, with RankError, HorizonError) are the
// expected answers; an invalid_argument from a registry is one too (the CLI turns it into
// one line naming the flag).
#include <sstream>
#include <stdexcept>

#include "fuzz_common.hpp"
#include "run/execute.hpp"
#include "run/model.hpp"

namespace {
struct Stop {};  // the event budget is spent
// Events simulated per input. 2^18 took more than libFuzzer's 10 s under the sanitizers for
// a legitimate input (a 91 MiB bcast pipelined in 7 KiB segments on the fluid model: coupled
// components of about 12 flows, 7.5 us per event in the release build, about 375 us in this
// instrumented one), 2^14 still 6.2 s.
constexpr std::uint64_t kEvents = std::uint64_t{1} << 12;
}  // namespace

CLUSTERSIM_FUZZ_HARNESS(fuzz_run_spec) {
    using namespace clustersim;
    static const run::Sources sources = [] {
        run::Sources s;
        run::add_app_source(s);
        return s;
    }();
    static const std::vector<run::Model> models = [] {
        std::vector<run::Model> m;
        for (const char* name :
             {"star-16.xml", "fat-tree-16.xml", "torus-4x4.xml", "io-strided.xml"})
            m.push_back(
                run::load_model(std::string(CLUSTERSIM_SOURCE_DIR "/topologies/examples/") + name));
        return m;
    }();
    std::vector<std::string> apps, algorithms;
    std::string network, mpi_profile, cpu, placement = "round_robin";
    std::uint64_t ranks = 0;
    std::size_t which = 0;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    for (std::string line; std::getline(in, line);) {
        const auto space = line.find(' ');
        if (space == std::string::npos) continue;
        const std::string key = line.substr(0, space), value = line.substr(space + 1);
        if (key == "app")
            apps.push_back(value);
        else if (key == "algorithm")
            algorithms.push_back(value);
        else if (key == "network")
            network = value;
        else if (key == "mpi")
            mpi_profile = value;
        else if (key == "cpu")
            cpu = value;
        else if (key == "placement")
            placement = value;
        else if (key == "model" && !value.empty())
            which = static_cast<unsigned char>(value[0]) % models.size();
        else if (key == "ranks" && !value.empty())
            ranks = static_cast<unsigned char>(value[0]) % 17;
    }
    if (apps.empty() || apps.size() > 2 || placement.starts_with("map:")) return 0;
    fuzz::expect_clean([&] {
        try {
            // As `clustersim run` assembles it (run::execute), with the built-in apps; the
            // cores bound the ranks (no --oversubscribe: at most 16 on these models).
            run::RunSpec spec;
            spec.model_path = "model";
            spec.model = models[which];
            spec.apps = apps;
            if (ranks != 0) spec.ranks.assign(apps.size(), static_cast<std::uint32_t>(ranks));
            spec.network = network;
            spec.cpu = cpu;
            spec.placement = placement;
            spec.algorithms = algorithms;
            spec.mpi = mpi_profile;
            run::RunHooks hooks;
            hooks.progress = [](const run::RunProgress& p) {
                if (p.events >= kEvents) throw Stop{};
            };
            hooks.progress_every = kEvents;
            (void)run::execute(std::move(spec), sources, hooks);
        } catch (const Stop&) {
        } catch (const std::invalid_argument&) {
        }
    });
    return 0;
}
