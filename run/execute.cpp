#include "run/execute.hpp"

#include <algorithm>
#include <chrono>

#include <unistd.h>

#include <fmt/format.h>

#include "collectives/placement.hpp"
#include "collectives/rank_error.hpp"
#include "iosys/cache.hpp"
#include "models/cpu.hpp"
#include "run/network_models.hpp"
#include "run/simulation.hpp"
#include "simulator/configured_registry.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "topologies/routing.hpp"

namespace clustersim::run {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void note(const RunHooks& hooks, const std::string& line) {
    if (hooks.notes != nullptr) *hooks.notes << line;
}

// An analytic network model that times each collective call as a whole runs no algorithm:
// say so rather than let --algorithm (and --mpi's choices) pass unused. Collective I/O
// algorithms (write_all=two_phase) are the I/O system's and are used all the same.
void note_unused_algorithms(const RunSpec& spec, const Model& model, const std::string& network,
                            const RunHooks& hooks) {
    if (!capabilities_of(model.topology.settings, model.comm, network).analytic ||
        model.comm.collectives_as_messages)
        return;
    std::string unused;
    for (const auto& a : spec.algorithms)
        if (!mpi::is_io_collective_name(a.substr(0, a.find('='))))
            unused += fmt::format("{}--algorithm {}", unused.empty() ? "" : ", ", a);
    if (!spec.mpi.empty())
        unused += fmt::format("{}--mpi {}", unused.empty() ? "" : ", ", spec.mpi);
    if (!unused.empty())
        note(hooks,
             fmt::format("clustersim: note: {} not used: the {} network model times each "
                         "collective call as a whole; add collectives=messages to --network to "
                         "simulate the algorithm\n",
                         unused, model.comm.model));
}

// A packet-level run whose packets would cost too many events is named before it starts, with
// the flow-level model it could use instead; the model stays the one asked for (issue 52).
// The estimate: the programs' traffic hint (the least their ranks send; 0 for a trace) in
// packets of the network's size, times the links of the route between the first and the
// last rank, times 2 events per packet and link (arrival, link free).
inline constexpr double kPacketEventsNote = 1e9;

void note_packet_cost(const topo::Topology& t, const RunSetup& setup, const mpi::Program& program,
                      const RunHooks& hooks) {
    if (hooks.notes == nullptr || t.settings.model != topo::NetworkModel::Packet ||
        setup.placement.size() < 2)
        return;
    const std::uint64_t bytes = program.traffic_hint();
    const std::uint64_t g = t.settings.granularity;
    if (bytes == 0 || g == 0) return;
    const double packets = static_cast<double>((bytes + g - 1) / g);
    if (packets * 2 * 64 < kPacketEventsNote) return;  // not even over 64 links: no route needed
    const topo::Router router(t);
    const std::size_t links = std::max<std::size_t>(
        2, router.path(setup.placement.front().vertex, setup.placement.back().vertex).size());
    const double events = packets * 2 * static_cast<double>(links);
    if (events < kPacketEventsNote) return;
    note(hooks, fmt::format("clustersim: note: the packet model will take about {:.2g} events "
                            "(at least {} in {} packets over about {} links each, 2 events per "
                            "packet and link); --network fluid times the same routes in a few "
                            "events per message (docs/validation.md, \"Cross-fidelity "
                            "agreement\")\n",
                            events, format_size(bytes), format_size(g), links));
}

// --cache: every I/O server's cache layer. Keeps the model's parameters when the layer stays
// the same kind; a new kind gets its defaults (the server node's memory for write_behind).
void apply_cache(const RunSpec& spec, Model& model) {
    if (spec.cache.empty()) return;
    if (model.io.servers.empty())
        throw InputError(
            "--cache", 0,
            fmt::format("the model {} has no <io-server> to give a cache layer", spec.model_path));
    const io::CacheRegistry& caches = io::cache_models();
    const auto* entry = caches.find(spec.cache);
    if (entry == nullptr)
        throw InputError("--cache", 0,
                         fmt::format("unknown cache layer '{}'{}; valid: {}", spec.cache,
                                     did_you_mean(spec.cache, split_names(caches.names_list())),
                                     caches.names_list()));
    for (auto& s : model.io.servers)
        if (s.cache.model != entry->name) s.cache = io::ComponentSpec{entry->name, {}, 0};
}

// Reads every --app through its source; --ranks counts the apps whose source takes a count.
std::vector<std::unique_ptr<LoadedProgram>> load_programs(const RunSpec& spec,
                                                          const Sources& sources,
                                                          const RunHooks& hooks) {
    if (spec.ranks.size() > spec.apps.size())
        throw InputError(
            "--ranks", 0,
            fmt::format("given {} times for {} --app", spec.ranks.size(), spec.apps.size()));
    SourceOptions options = spec.source;
    options.notes = hooks.notes;
    // A bad option of a source is refused even when no spec of it is read; an option of a
    // source no spec uses would pass unused: say so.
    std::vector<const ProgramSource*> used;
    std::size_t counted = 0;  // apps whose source takes --ranks
    for (const auto& app : spec.apps) {
        const ProgramSource& s = sources.programs.source_for(app);
        if (std::find(used.begin(), used.end(), &s) == used.end()) used.push_back(&s);
        if (!s.brings_own_ranks()) ++counted;
    }
    // "a trace: app brings its own ranks", one note per source whose options went unused.
    std::string own;
    for (const auto& [prefix, s] : sources.programs.all()) {
        s->check(options);
        if (s->brings_own_ranks() && !prefix.empty())
            own += fmt::format("{}{}", own.empty() ? "" : " or ", prefix);
        if (std::find(used.begin(), used.end(), s) != used.end()) continue;
        std::string unused;
        for (const std::string& flag : s->flags_set(options))
            unused += fmt::format("{}{}", unused.empty() ? "" : ", ", flag);
        if (!unused.empty())
            note(hooks, fmt::format("clustersim: note: {} not used: no --app is a {} app\n", unused,
                                    prefix.empty() ? "built-in" : prefix));
    }
    if (spec.ranks.size() > counted)
        throw InputError(
            "--ranks", 0,
            fmt::format("given {} time{} for {} built-in app{}{}", spec.ranks.size(),
                        spec.ranks.size() == 1 ? "" : "s", counted, counted == 1 ? "" : "s",
                        own.empty() ? "" : fmt::format("; a {} app brings its own ranks", own)));
    std::vector<std::unique_ptr<LoadedProgram>> programs;
    std::size_t next = 0;  // the next --ranks value
    for (const auto& app : spec.apps) {
        const ProgramSource& s = sources.programs.source_for(app);
        std::uint32_t ranks = 0;
        if (!s.brings_own_ranks()) {
            if (next < spec.ranks.size() && spec.ranks[next] == 0)
                throw InputError("--ranks", 0,
                                 fmt::format("0 ranks for '{}'; expected at least 1 (leave "
                                             "--ranks out for the app's minimum, {})",
                                             app, s.min_ranks(app)));
            if (next < spec.ranks.size() && spec.ranks[next] > mpi::kMaxRanks)
                throw InputError("--ranks", 0,
                                 fmt::format("{} ranks for '{}'; at most {} ranks in a run "
                                             "(docs/limits.md)",
                                             spec.ranks[next], app, mpi::kMaxRanks));
            ranks = next < spec.ranks.size() ? spec.ranks[next] : s.min_ranks(app);
            ++next;
        }
        programs.push_back(s.load(app, ranks, options));
    }
    return programs;
}

// The rank budget: at most mpi::kMaxRanks, and the memory they need.
std::uint32_t check_rank_budget(const RunSpec& spec,
                                const std::vector<std::unique_ptr<LoadedProgram>>& programs) {
    std::uint64_t all_ranks = 0;  // 64 bits: a sum of --ranks never wraps to a small number
    for (const auto& p : programs) all_ranks += p->ranks();
    const char* flag = spec.ranks.empty() ? "--app" : "--ranks";
    if (all_ranks > mpi::kMaxRanks)
        throw InputError(flag, 0,
                         fmt::format("{} ranks in all; at most {} ranks in a run (docs/limits.md)",
                                     all_ranks, mpi::kMaxRanks));
    // A rank costs about 2.75 KiB in the runtime at the peak of a barrier (259 MiB for
    // 100,000 ranks, 2.71 GiB for 1,048,576 on this machine): refuse before allocating rather
    // than die of std::bad_alloc half-way.
    constexpr std::uint64_t kBytesPerRank = 2816;
    const auto pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 &&
        all_ranks * kBytesPerRank >
            static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page))
        throw InputError(flag, 0,
                         fmt::format("{} ranks need about {} (2.75 KiB per rank) but this machine "
                                     "has {} of memory (docs/limits.md)",
                                     all_ranks, format_size(all_ranks * kBytesPerRank),
                                     format_size(static_cast<std::uint64_t>(pages) *
                                                 static_cast<std::uint64_t>(page))));
    return static_cast<std::uint32_t>(all_ranks);
}

void check_cores(const RunSpec& spec, const topo::Topology& t, std::uint32_t ranks) {
    std::uint64_t cores = 0;
    for (const auto& n : t.nodes)
        for (const auto& s : n.sockets) cores += s.cores;
    if (ranks > cores && !spec.oversubscribe)
        throw InputError("--placement", 0,
                         fmt::format("{} ranks need {} cores but the model has {}; pass "
                                     "--oversubscribe to let ranks share cores",
                                     ranks, ranks, cores));
}

std::string unit_of(const std::vector<std::unique_ptr<LoadedProgram>>& programs) {
    bool records = false, operations = false;
    for (const auto& p : programs) (p->unit() == "records" ? records : operations) = true;
    return records && operations ? "records and operations" : records ? "records" : "operations";
}

// Runs the simulation; an error of one rank's operation names its program's input and where
// in it the operation was read from; an error of the program as a whole ("app": a deadlock)
// names every input.
mpi::SimulationResult simulate_naming_inputs(const Model& model, const RunSetup& setup,
                                             mpi::Program& program,
                                             const mpi::SimulationOptions& options) {
    try {
        return mpi::simulate(model, setup.placement, program, options);
    } catch (const mpi::RankError& e) {
        // The program a world rank belongs to, and its rank there.
        const auto owner =
            [&](std::int32_t world) -> std::pair<const LoadedProgram*, std::int32_t> {
            std::uint32_t r0 = 0;
            const auto rank = static_cast<std::uint32_t>(world);
            for (const auto& p : setup.programs) {
                if (rank < r0 + p->ranks()) return {p.get(), static_cast<std::int32_t>(rank - r0)};
                r0 += p->ranks();
            }
            return {nullptr, 0};
        };
        const auto [p, local] = owner(e.rank());
        if (p == nullptr) throw;
        const std::string where = p->locate(local);
        if (p->input().empty() || where.empty()) throw;
        std::string other;
        if (e.other() >= 0) {
            // The rank it disagrees with, at the record it entered the call with.
            const auto [q, q_local] = owner(e.other());
            const std::string there =
                q == nullptr ? std::string{} : q->locate_mark(q_local, e.other_mark());
            if (!there.empty())
                other = q->input() == p->input() ? ", " + there : "; " + q->input() + ": " + there;
        }
        throw InputError(p->input(), 0, fmt::format("{} ({}{})", e.message(), where, other));
    } catch (const InputError& e) {
        if (e.file() != "app") throw;
        std::string where;
        for (const auto& p : setup.programs)
            if (!p->input().empty()) where += (where.empty() ? "" : ", ") + p->input();
        if (where.empty()) throw;
        throw InputError(where, 0, e.message());
    }
}

}  // namespace

namespace {
// `text` ("NAME[:params]") with NAME as one of `names` spells it, if equal up to separators.
std::string canonical_name(const std::string& text, const std::vector<std::string>& names) {
    const std::size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const std::string* found = find_named(names, name, [](const std::string& n) { return n; });
    if (found == nullptr || *found == name) return text;
    return *found + (colon == std::string::npos ? "" : text.substr(colon));
}
}  // namespace

void canonicalize_names(RunSpec& spec) {
    if (!spec.placement.empty() && spec.placement.rfind("map:", 0) != 0)
        spec.placement =
            canonical_name(spec.placement, {mpi::to_string(mpi::PlacementKind::RoundRobin),
                                            mpi::to_string(mpi::PlacementKind::Sequential)});
    if (!spec.network.empty())
        spec.network = canonical_name(spec.network, split_names(mpi::network_names()));
    if (!spec.cpu.empty()) {
        std::vector<std::string> names;
        for (const auto& e : cpu::cpu_models().entries()) names.push_back(e.name);
        spec.cpu = canonical_name(spec.cpu, names);
    }
    if (!spec.cache.empty()) {
        const io::CacheRegistry& caches = io::cache_models();
        spec.cache = canonical_name(spec.cache, split_names(caches.names_list()));
    }
}

RunOutcome execute(RunSpec spec, const Sources& sources, const RunHooks& hooks) {
    canonicalize_names(spec);
    RunOutcome out;
    const auto t_load = std::chrono::steady_clock::now();
    if (spec.model)
        out.model = std::move(*spec.model);
    else
        out.model = load_model(spec.model_path);
    spec.model.reset();
    Model& model = out.model;
    const topo::Topology& t = model.topology;
    mpi::SimulationOptions options;
    if (!spec.network.empty()) options.network = mpi::choose_network(model, spec.network);
    note_unused_algorithms(spec, model, options.network, hooks);
    if (t.settings.routing == topo::Routing::AdaptiveUp) {
        const std::string& chosen = options.network;
        const std::string name = chosen.empty() ? network_model_of(t.settings, model.comm)
                                                : chosen.substr(0, chosen.find(':'));
        if (name == "fluid")
            note(hooks,
                 "clustersim: note: the fluid model routes adaptive_up as d_mod_k (it has no "
                 "packet queues to choose by); the packet models choose per packet\n");
    }
    if (!spec.cpu.empty()) options.cpu = select_flag("--cpu", cpu::cpu_models(), spec.cpu);
    apply_cache(spec, model);
    out.model_load_s = seconds_since(t_load);

    const auto t_programs = std::chrono::steady_clock::now();
    RunSetup& setup = out.setup;
    setup.programs = load_programs(spec, sources, hooks);
    out.programs_load_s = seconds_since(t_programs);
    const auto t_place = std::chrono::steady_clock::now();
    setup.ranks = check_rank_budget(spec, setup.programs);
    check_cores(spec, t, setup.ranks);
    setup.placement = mpi::place_ranks(t, setup.ranks, spec.placement);
    setup.unit = unit_of(setup.programs);
    if (hooks.placed) hooks.placed(setup, out.model);

    // Each program runs with the speeds of the cores its ranks are placed on.
    mpi::MultiProgram multi;
    mpi::Program* single = nullptr;
    std::vector<io::FileDecl> files;
    std::uint32_t first = 0;
    for (auto& p : setup.programs) {
        std::vector<std::uint64_t> speed(p->ranks());
        for (std::uint32_t r = 0; r < p->ranks(); ++r) {
            const auto& loc = setup.placement[first + r];
            speed[r] = t.nodes[loc.node].sockets[loc.socket].speed;
        }
        single = &p->bind(std::move(speed));
        multi.add(*single, p->ranks());
        for (auto& d : p->files()) files.push_back(std::move(d));
        first += p->ranks();
    }
    options.algorithm_overrides = spec.algorithms;
    options.mpi_profile = spec.mpi;
    options.seed = spec.seed;
    options.leave_state_to_exit = spec.leave_state_to_exit;
    options.io = io::io_factory(model.io, std::move(files));
    options.jitter_loader = sources.jitter;
    if (setup.programs.size() > 1) options.app_sizes = multi.sizes();
    // One program runs as itself (no per-operation forwarding through the MultiProgram).
    mpi::Program* const programs = setup.programs.size() == 1 ? single : &multi;
    note_packet_cost(t, setup, *programs, hooks);
    mpi::Program* program = programs;
    if (hooks.wrap) {
        mpi::OpObserver* observer = nullptr;
        if (mpi::Program* wrapped = hooks.wrap(*programs, setup, observer)) program = wrapped;
        options.observer = observer;
    }
    if (hooks.progress) {
        // The network model's own work, named as the summary names it (NetworkCapabilities).
        const std::string work_unit = capabilities_of(t.settings, model.comm, options.network).work;
        options.progress_every = hooks.progress_every;
        options.progress = [&hooks, programs, work_unit](std::uint64_t events, Time now,
                                                         const net::NetworkStats& n,
                                                         std::uint64_t running) {
            // Completed, not started: what the programs handed out less the operations the
            // ranks are still inside (a collective app's 256 operations were "100.0%" from
            // the first line, all of them started at once).
            const mpi::ProgramProgress p = programs->progress();
            hooks.progress(RunProgress{events, now,
                                       p.done - std::min<std::uint64_t>(p.done, running), p.total,
                                       &n, std::string_view(work_unit)});
        };
    }
    if (spec.hardware_activity) {
        options.link_activity = &out.link_activity;
        options.disk_activity = &out.disk_activity;
    }
    out.placement_s = seconds_since(t_place);
    const auto t_simulate = std::chrono::steady_clock::now();
    out.result = simulate_naming_inputs(model, setup, *program, options);
    out.simulation_s = seconds_since(t_simulate);
    return out;
}

std::string describe_programs(const RunSetup& setup) {
    std::string line;
    for (const auto& p : setup.programs) line += (line.empty() ? "" : " + ") + p->describe();
    return line;
}

RunReport make_report(const RunSpec& spec, const RunOutcome& outcome) {
    RunReport report;
    report.model = spec.model_path;
    report.apps = spec.apps;
    report.app_line = describe_programs(outcome.setup);
    report.ranks = outcome.setup.ranks;
    report.placement = spec.placement;
    report.network = spec.network;
    report.loaded = &outcome.model;
    report.result = &outcome.result;
    for (const auto& p : outcome.setup.programs)
        for (std::string& w : p->warnings()) report.warnings.push_back(std::move(w));
    std::uint32_t r0 = 0;
    for (const auto& p : outcome.setup.programs) {
        std::vector<Time> finish;
        for (std::uint32_t r = 0; r < p->ranks(); ++r)
            finish.push_back(r0 + r < outcome.result.ranks.size()
                                 ? outcome.result.ranks[r0 + r].finish
                                 : Time::zero());
        for (mpi::AppResult& x : p->summarize(outcome.result.simulated, finish))
            report.summary.push_back(std::move(x));
        r0 += p->ranks();
    }
    report.model_load_s = outcome.model_load_s;
    RunPhases& p = report.phases;
    p.model_load_s = outcome.model_load_s;
    p.programs_load_s = outcome.programs_load_s;
    p.placement_s = outcome.placement_s;
    p.set_up_s = outcome.result.set_up_seconds;
    p.event_loop_s = outcome.result.wall_seconds;
    p.results_s = std::max(0.0, outcome.simulation_s - p.set_up_s - p.event_loop_s);
    return report;
}

}  // namespace clustersim::run
