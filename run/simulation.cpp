#include "run/simulation.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "collectives/apps.hpp"
#include "models/noise_gen.hpp"
#include "run/network_models.hpp"
#include "simulator/error.hpp"
#include "simulator/memory.hpp"
#include "simulator/params.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {

namespace {
// The runtime's settings from the model: eager threshold, and the collectives' local work
// (instructions per byte, or measured rates, or measured rate curves), then what a decision
// profile changes in the protocol (profile_protocol: --mpi simgrid's eager sends, envelope
// and no reduction work).
RuntimeConfig local_work_config(const topo::NetworkSettings& settings, const MpiSettings& mpi,
                                const std::string& profile) {
    RuntimeConfig c;
    static_cast<MpiCosts&>(c) = mpi;  // the costs as the model gives them
    c.eager_threshold = settings.eager_threshold;
    c.progress_in_mpi = settings.progress_in_mpi;
    c.reduce_curve = comm::FittedCurve::from(mpi.reduce_curve);
    c.copy_curve = comm::FittedCurve::from(mpi.copy_curve);
    if (mpi.collective_curves_on)
        for (const CollectiveCurveSpec& spec : mpi.collective_curves) {
            CollectiveCurveRule rule;
            parse_coll_op(spec.operation, rule.op);  // checked by the model's reader
            parse_curve_scope(spec.scope, rule.scope);
            rule.ranks = spec.ranks;
            rule.curve = std::make_shared<const CollectiveCurve>(spec.points);
            c.collective_curves.push_back(std::move(rule));
        }
    const ProfileProtocol protocol = profile_protocol(profile);
    if (protocol.eager_only) c.eager_threshold = UINT64_MAX;
    c.envelope_bytes = protocol.envelope_bytes;
    if (!protocol.reduction_work) {  // none at all, whichever way the model prices it
        c.reduce_instructions_per_byte = 0;
        c.reduce_bandwidth = kInfiniteBandwidth;
        c.reduce_curve = comm::FittedCurve{};
    }
    return c;
}
}  // namespace

void check_routes(const topo::Topology& t, topo::Router& router,
                  const std::vector<RankLocation>& ranks) {
    if (ranks.empty()) return;
    const topo::VertexId root = ranks[0].vertex;
    std::vector<bool> checked(t.num_vertices(), false);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const topo::VertexId v = ranks[r].vertex;
        if (checked[v]) continue;
        checked[v] = true;
        // A pair a complete <routes> table leaves unrouted is an error only if the run sends
        // between them (topologies/route_service.cpp), as in SimGrid.
        auto reaches = [&](topo::VertexId a, topo::VertexId b) {
            return router.reachable(a, b) || router.unrouted_table(a, b) >= 0;
        };
        const bool ok = v == root ? true : (reaches(v, root) && reaches(root, v));
        // A socket also needs a neighbour to exchange messages between its own ranks.
        const bool has_link = t.out_edge_range(v).first < t.out_edge_range(v).second;
        const auto& node = t.nodes[ranks[r].node];
        if (!ok)
            throw InputError(
                t.source, node.line,
                fmt::format(
                    "node '{}' hosts rank {} but has no route to or from node '{}' (rank 0)",
                    node.name, r, t.nodes[ranks[0].node].name));
        if (!has_link && ranks.size() > 1)
            throw InputError(
                t.source, node.line,
                fmt::format("socket '{}' hosts rank {} but has no link (it needs at least a "
                            "memory node to exchange messages)",
                            t.vertex(v).name, r));
    }
}

namespace {

// The noise timelines of one run, built on first use and shared by identical specs.
class NoiseTimelines {
  public:
    NoiseTimelines(const topo::Topology& t, const std::vector<jitter::JitterSpec>& jitter,
                   const SimulationOptions& options)
        : t_(t), jitter_(jitter), options_(options) {}

    // Gives core `core` (the task index) at `loc` its noise, if its node type has one.
    void apply(cpu::CpuModel& cpus, std::uint32_t core, const RankLocation& loc) {
        const topo::NodeInfo& node = t_.nodes[loc.node];
        std::int32_t node_core = static_cast<std::int32_t>(loc.core);
        for (std::uint32_t s = 0; s < loc.socket; ++s)
            node_core += static_cast<std::int32_t>(node.sockets[s].cores);
        const jitter::JitterSpec* spec = nullptr;
        for (const jitter::JitterSpec& j : jitter_) {
            if (j.node_type != node.type) continue;
            if (j.core == node_core) {
                spec = &j;
                break;
            }
            if (j.core < 0) spec = &j;
        }
        if (spec == nullptr) return;
        const std::uint64_t speed = node.sockets[loc.socket].speed;
        const jitter::Timeline& timeline = get(*spec, speed);
        jitter::StartSpec start;
        switch (spec->start) {
            case jitter::JitterSpec::Start::Unsynchronized:
                start.policy = jitter::StartPolicy::Unsynchronized;
                break;
            case jitter::JitterSpec::Start::Synchronized:
                start.policy = jitter::StartPolicy::Synchronized;
                break;
            case jitter::JitterSpec::Start::Coscheduled:
                start.policy = jitter::StartPolicy::Coscheduled;
                start.window_high = static_cast<std::uint64_t>(spec->window_high.ps());
                start.window_low = static_cast<std::uint64_t>(spec->window_low.ps());
                break;
            case jitter::JitterSpec::Start::Explicit:
                start.policy = jitter::StartPolicy::Explicit;
                start.indices = spec->start_indices;
                break;
        }
        start.seed = spec->has_seed ? spec->seed : options_.seed;
        try {
            jitter::check_start(timeline, start);
        } catch (const std::invalid_argument& e) {
            fail(*spec, e.what());
        }
        try {
            cpus.set_noise(core, &timeline, jitter::start_position(timeline, start, core));
        } catch (const std::invalid_argument& e) {
            fail(*spec, e.what());
        }
    }

  private:
    [[noreturn]] void fail(const jitter::JitterSpec& spec, const std::string& what) const {
        throw InputError(t_.source, spec.line, fmt::format("<jitter>: {}", what));
    }

    const jitter::Timeline& get(const jitter::JitterSpec& spec, std::uint64_t speed) {
        double frequency = spec.frequency_hz;
        if (frequency <= 0 && !spec.generator.empty()) frequency = static_cast<double>(speed);
        const std::string key =
            spec.generator.empty()
                ? fmt::format("trace {} @{}", spec.trace, frequency)
                : fmt::format("gen {} length {} seed {} @{}", spec.generator, spec.length.ps(),
                              spec.has_seed ? spec.seed : options_.seed, frequency);
        auto it = by_key_.find(key);
        if (it != by_key_.end()) return *it->second;
        jitter::JitterTrace trace;
        if (spec.generator.empty()) {
            if (!options_.jitter_loader)
                fail(spec, fmt::format("trace '{}': this run has no jitter trace reader "
                                       "(SimulationOptions::jitter_loader is not set)",
                                       spec.trace));
            try {
                trace = options_.jitter_loader(spec.trace, frequency);
            } catch (const InputError& e) {
                fail(spec, fmt::format("trace: {}", e.what()));
            } catch (const std::invalid_argument& e) {
                fail(spec, fmt::format("trace: {}", e.what()));
            }
            if (!(trace.frequency_hz > 0))
                fail(spec, fmt::format("trace '{}' has no frequency header; expected "
                                       "frequency=\"...\" (e.g. 2.4GHz) on <jitter>",
                                       spec.trace));
        } else {
            try {
                const jitter::GeneratorSpec g = jitter::parse_generator(spec.generator);
                trace = jitter::generate_trace(g, spec.length.seconds(), frequency,
                                               spec.has_seed ? spec.seed : options_.seed);
            } catch (const std::invalid_argument& e) {
                fail(spec, fmt::format("attribute 'generator': {}", e.what()));
            }
        }
        try {
            owned_.push_back(
                std::make_unique<jitter::Timeline>(jitter::Timeline::in_picoseconds(trace)));
        } catch (const std::invalid_argument& e) {
            fail(spec, e.what());
        }
        by_key_.emplace(key, owned_.back().get());
        return *owned_.back();
    }

    const topo::Topology& t_;
    const std::vector<jitter::JitterSpec>& jitter_;
    const SimulationOptions& options_;
    std::vector<std::unique_ptr<jitter::Timeline>> owned_;
    std::map<std::string, const jitter::Timeline*> by_key_;
};

}  // namespace

std::string network_names() {
    std::string names;
    for (const std::string& n : run::network_models().names())
        names += (names.empty() ? "" : ", ") + n;
    return names;
}

std::string choose_network(topo::NetworkSettings& settings, comm::CommModelSpec& comm,
                           const std::string& text) {
    const std::size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const std::string params = colon == std::string::npos ? "" : text.substr(colon + 1);
    const auto entry = run::network_models().find(name);
    if (!entry)
        throw InputError(
            "--network", 0,
            fmt::format("unknown network model '{}'{}, expected one of: {}", name,
                        did_you_mean(name, split_names(network_names())), network_names()));
    if (!params.empty() && entry->params.empty())
        throw InputError("--network", 0,
                         fmt::format("'{}' takes no parameters (only the analytic models do: "
                                     "simple:latency=2us,bandwidth=10GB/s, bus_only:buses=4, ...)",
                                     name));
    if (colon != std::string::npos && params.empty())
        throw InputError("--network", 0,
                         fmt::format("'{}': expected key=value parameters after ':'", text));
    auto fail = [&](const std::string& what) {
        throw InputError("--network", 0, fmt::format("'{}': {}", text, what));
    };
    // Every key is checked against the entry's documented parameters.
    std::vector<KeyValue> values;
    if (!params.empty()) {
        for (const KeyValueItem& item : split_key_values(params)) {
            if (!item.ok)
                fail(fmt::format("'{}' is not key=value; expected e.g. buses=4,latency=2us",
                                 item.kv.key));
            if (const std::string problem = item.problem(); !problem.empty()) fail(problem);
            if (find_param(entry->params, item.kv.key) == nullptr)
                fail(fmt::format("unknown parameter '{}'; expected {}", item.kv.key,
                                 param_names(entry->params)));
            values.push_back(item.kv);
        }
    }
    try {
        if (entry->select) entry->select(settings, comm, values);
    } catch (const std::invalid_argument& e) {
        fail(e.what());
    }
    return text;
}

cpu::CpuModelId cpu_model_of(const topo::Topology& t) {
    if (t.settings.cpu_model_line == 0 && t.settings.cpu_model.empty())
        return cpu::kProcessorSharing;
    try {
        return cpu::cpu_models().select(t.settings.cpu_model);
    } catch (const std::invalid_argument& e) {
        throw InputError(t.source, t.settings.cpu_model_line,
                         fmt::format("<network> attribute 'cpu': {}", e.what()));
    }
}

SimulationResult simulate(const topo::Topology& t, const std::vector<RankLocation>& ranks,
                          Program& program, const SimulationOptions& options) {
    return simulate(t, run::ModelParts{}, ranks, program, options);
}

SimulationResult simulate(const topo::Topology& t, const run::ModelParts& parts,
                          const std::vector<RankLocation>& ranks, Program& program,
                          const SimulationOptions& options) {
    const auto t_set_up = std::chrono::steady_clock::now();
    const CollectiveRegistry registry = registered_collectives();  // built-in and added
    const Selection selection(registry, parts.mpi, t.source, options.algorithm_overrides,
                              options.mpi_profile);
    // The simulator's state, owned here; left to the process's exit when the options say so.
    auto router_owned = std::make_unique<topo::Router>(t);
    topo::Router& router = *router_owned;
    check_routes(t, router, ranks);

    auto engine_owned = std::make_unique<Engine>();
    Engine& engine = *engine_owned;
    // Forwarding shim: the network and CPUs are built before the runtime that listens.
    // Messages of the I/O system carry kIoCookie and go to it.
    struct Forward final : net::NetworkClient, cpu::CpuClient {
        Runtime* rt = nullptr;
        IoService* io = nullptr;
        void message_delivered(std::uint64_t c) override {
            if (c & kIoCookie)
                io->message_delivered(c & ~kIoCookie);
            else
                rt->message_delivered(c);
        }
        void message_injected(std::uint64_t c) override {
            if (c & kIoCookie)
                io->message_injected(c & ~kIoCookie);
            else
                rt->message_injected(c);
        }
        void compute_done(std::uint64_t c, Time jitter) override { rt->compute_done(c, jitter); }
        std::string describe_job(std::uint64_t c) const override { return rt->describe_job(c); }
    } forward;
    std::unique_ptr<net::Transport> transport = run::make_transport(
        run::TransportContext{engine, t, parts.comm, router, forward, options.seed, {}},
        options.network);
    net::Transport& network = *transport;
    NoiseTimelines noise(t, parts.jitter, options);  // before the cores that point into it
    const cpu::CpuModelId cpu_model = options.cpu ? *options.cpu : cpu_model_of(t);
    std::unique_ptr<cpu::CpuModel> cpu_model_made =
        cpu::cpu_models().made(cpu_model)(engine, forward);
    cpu::CpuModel& cpus = *cpu_model_made;

    // One core model per (node, socket, core) that hosts at least one rank.
    std::unordered_map<std::uint64_t, std::uint32_t> core_of;
    std::vector<std::uint32_t> rank_core(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto& loc = ranks[r];
        const std::uint64_t key = (static_cast<std::uint64_t>(loc.node) << 32) |
                                  (static_cast<std::uint64_t>(loc.socket) << 16) | loc.core;
        auto [it, fresh] = core_of.emplace(key, 0);
        if (fresh) {
            it->second = cpus.add_core(t.nodes[loc.node].sockets[loc.socket].speed);
            if (!parts.jitter.empty()) noise.apply(cpus, it->second, loc);
        }
        rank_core[r] = it->second;
    }

    if (auto* app = dynamic_cast<App*>(&program)) {
        std::vector<std::uint64_t> speeds(ranks.size());
        for (std::size_t r = 0; r < ranks.size(); ++r)
            speeds[r] = t.nodes[ranks[r].node].sockets[ranks[r].socket].speed;
        app->set_core_speeds(speeds);
    }
    auto runtime_owned = std::make_unique<Runtime>(
        engine, network, cpus, ranks, std::move(rank_core), selection,
        local_work_config(t.settings, parts.mpi,
                          options.mpi_profile.empty() ? parts.mpi.profile : options.mpi_profile),
        program);
    Runtime& runtime = *runtime_owned;
    forward.rt = &runtime;
    runtime.set_observer(options.observer);
    runtime.set_apps(options.app_sizes);
    std::unique_ptr<IoService> io;
    if (options.io)
        io = options.io(
            IoContext{engine, network, t, parts.mpi, ranks, runtime, options.algorithm_overrides});
    if (io) {
        forward.io = io.get();
        runtime.set_io(io.get());
        if (options.disk_activity != nullptr) io->record_disks(options.disk_activity);
    }
    if (options.link_activity != nullptr) network.record_links(options.link_activity);

    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_seconds();
    runtime.start();
    if (options.progress) {
        // Chunks of events between two calls: at most progress_every, halved while a chunk
        // takes longer than progress_wall_s and doubled again while it takes under a quarter
        // of it, so slow events still report about every progress_wall_s.
        const std::uint64_t most = std::max<std::uint64_t>(1, options.progress_every);
        std::uint64_t chunk = std::min<std::uint64_t>(most, 64);
        while (engine.pending() > 0) {
            const auto c0 = std::chrono::steady_clock::now();
            engine.run(Time::max(), chunk);
            const double took =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
            if (took > options.progress_wall_s && chunk > 1)
                chunk /= 2;
            else if (took < options.progress_wall_s / 4 && chunk < most)
                chunk = std::min(most, chunk * 2);
            options.progress(engine.events_processed(), engine.now(), network.stats(),
                             runtime.ops_in_progress());
        }
    } else {
        engine.run();
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double cpu1 = process_cpu_seconds();

    if (!runtime.all_finished()) {
        runtime.check_collective_communicators();
        const auto blocked = runtime.blocked_ranks();
        std::string list;
        for (std::size_t i = 0; i < blocked.size() && i < 8; ++i)
            list += (i ? "; " : "") + blocked[i];
        if (blocked.size() > 8) list += fmt::format("; and {} more", blocked.size() - 8);
        throw InputError(
            "app", 0,
            fmt::format("deadlock at {}: {} of {} ranks wait forever: {}",
                        format_time(engine.now()), blocked.size(), ranks.size(), list));
    }

    SimulationResult res;
    res.events = engine.events_processed();
    res.set_up_seconds = std::chrono::duration<double>(t0 - t_set_up).count();
    res.wall_seconds = std::chrono::duration<double>(t1 - t0).count();
    res.cpu_seconds = cpu1 - cpu0;
    res.ranks = runtime.results();
    res.algorithms = runtime.algorithm_calls();
    for (const auto& r : res.ranks) res.simulated = max(res.simulated, r.finish);
    res.placement = ranks;
    res.network = network.stats();
    res.edge_bytes = network.edge_bytes();
    for (std::uint64_t b : res.edge_bytes) res.bytes_on_edges += b;
    if (io) {
        res.has_io = true;
        res.io = io->report();
    }
    if (options.leave_state_to_exit) {
        // The process ends after the report: freeing a million ranks' state piece by piece
        // only delays that.
        (void)router_owned.release();
        (void)engine_owned.release();
        (void)transport.release();
        (void)cpu_model_made.release();
        (void)runtime_owned.release();
        (void)io.release();
    }
    return res;
}

}  // namespace clustersim::mpi
