// The specs of `clustersim run`'s flags and what they build: the input is lines "KEY VALUE"
// (KEY: app, ranks, network, algorithm, mpi, cpu, placement, model; app and algorithm may
// repeat; other lines are ignored), read as run_command.cpp reads --app, --ranks,
// --network, --algorithm, --mpi, --cpu and --placement, on one of four example models
// (model 0..3: star-16, fat-tree-16, torus-4x4, io-strided). What they accept is simulated
// for at most 2^12 engine events (the first progress call stops it): the app's parameters,
// the algorithms' segments and the network models' parameters reach the code that uses them.
// The errors a user gets for a bad spec (InputError, with RankError, HorizonError) are the
// expected answers; an invalid_argument from a registry is one too (the CLI turns it into
// one line naming the flag).
#include <sstream>
#include <stdexcept>

#include "collectives/apps.hpp"
#include "collectives/placement.hpp"
#include "fuzz_common.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "models/cpu.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "traces/replay.hpp"

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
    static const std::vector<run::Model> models = [] {
        std::vector<run::Model> m;
        for (const char* name :
             {"star-16.xml", "fat-tree-16.xml", "torus-4x4.xml", "io-strided.xml"})
            m.push_back(
                run::load_model(std::string(CLUSTERSIM_SOURCE_DIR "/topologies/examples/") + name));
        return m;
    }();
    std::vector<std::string> apps, algorithms;
    std::string network, mpi_profile, cpu, placement = "round-robin";
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
            run::Model model = models[which];
            mpi::SimulationOptions options;
            if (!network.empty()) options.network = mpi::choose_network(model, network);
            if (!cpu.empty()) options.cpu = cpu::cpu_models().select(cpu);
            mpi::AppRegistry registry;
            mpi::register_builtin_apps(registry);
            io::register_io_apps(registry);
            std::vector<std::unique_ptr<mpi::App>> built;
            std::vector<std::uint32_t> sizes;
            std::vector<io::FileDecl> files;
            std::uint32_t all = 0;
            for (const std::string& spec : apps) {
                const std::uint32_t n =
                    ranks != 0 ? static_cast<std::uint32_t>(ranks) : registry.min_ranks(spec);
                // The example models have 16 cores (n first: all + n could wrap).
                if (n > 16 || all + n > 16) return;
                built.push_back(registry.create(spec, n));
                if (const auto* io_app = dynamic_cast<const io::IoApp*>(built.back().get()))
                    for (const auto& d : io_app->files()) files.push_back(d);
                sizes.push_back(n);
                all += n;
            }
            const auto where = mpi::place_ranks(model.topology, all, placement);
            mpi::MultiProgram multi;
            for (std::size_t i = 0; i < built.size(); ++i) {
                built[i]->set_core_speeds(std::vector<std::uint64_t>(
                    sizes[i], model.topology.nodes[where[0].node].sockets[where[0].socket].speed));
                multi.add(*built[i], sizes[i]);
            }
            options.algorithm_overrides = algorithms;
            options.mpi_profile = mpi_profile;
            options.io = io::io_factory(model.io, std::move(files));
            if (built.size() > 1) options.app_sizes = multi.sizes();
            options.progress = [](std::uint64_t events, Time, const net::NetworkStats&,
                                  std::uint64_t) {
                if (events >= kEvents) throw Stop{};
            };
            options.progress_every = kEvents;
            (void)mpi::simulate(model, where, multi, options);
        } catch (const Stop&) {
        } catch (const std::invalid_argument&) {
        }
    });
    return 0;
}
