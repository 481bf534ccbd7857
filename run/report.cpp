#include "run/report.hpp"
#include "run/network_models.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "simulator/text.hpp"
#include "simulator/units.hpp"
#include "topologies/summary.hpp"

namespace clustersim::run {

IoThroughput io_throughput(const mpi::SimulationResult& res) {
    IoThroughput t;
    t.bytes = res.io.bytes_written + res.io.bytes_read;
    for (std::size_t r = 0; r < res.ranks.size(); ++r) {
        Time in_io;
        for (int k = static_cast<int>(mpi::OpKind::FileOpen);
             k <= static_cast<int>(mpi::OpKind::FileSync); ++k)
            in_io += res.ranks[r].ops[k].time;
        if (in_io > t.slowest) t.slowest = in_io, t.rank = static_cast<int>(r);
    }
    if (t.slowest.ps() > 0) t.bytes_per_s = static_cast<double>(t.bytes) / t.slowest.seconds();
    return t;
}

namespace {

// Per-operation totals over all ranks.
std::array<mpi::OpStats, mpi::kStatKinds> op_totals(const mpi::SimulationResult& res) {
    std::array<mpi::OpStats, mpi::kStatKinds> total{};
    for (const auto& r : res.ranks) {
        for (int k = 0; k < mpi::kStatKinds; ++k) {
            total[k].count += r.ops[k].count;
            total[k].time += r.ops[k].time;
            total[k].bytes += r.ops[k].bytes;
        }
    }
    return total;
}

// Written data the servers' caches still held when the last rank finished (`end`), and how
// long after it their disks were done writing it.
struct Drain {
    std::uint64_t bytes = 0;
    Time time;
};
Drain drain_of(const mpi::IoReport& io, Time end) {
    Drain d;
    for (const auto& s : io.servers) {
        d.bytes += s.drained_bytes;
        if (s.drained_bytes > 0 && s.drain_end > end) d.time = max(d.time, s.drain_end - end);
    }
    return d;
}

nlohmann::json io_json(const mpi::SimulationResult& res) {
    const mpi::IoReport& io = res.io;
    nlohmann::json j;
    j["bytes_written"] = io.bytes_written;
    j["bytes_read"] = io.bytes_read;
    j["files"] = io.files;
    const bool any = io.first_start != Time::max() && io.last_end > io.first_start;
    j["io_span_s"] = any ? (io.last_end - io.first_start).seconds() : 0.0;
    const IoThroughput t = io_throughput(res);
    j["slowest_rank_io_time_s"] = t.slowest.seconds();
    j["throughput_bytes_per_s"] = t.bytes_per_s;
    nlohmann::json servers = nlohmann::json::array();
    for (const auto& s : io.servers)
        servers.push_back({{"node", s.node},
                           {"cache", s.cache},
                           {"disk", s.disk},
                           {"bytes_written", s.bytes_written},
                           {"bytes_read", s.bytes_read},
                           {"disk_requests", s.disk_requests},
                           {"disk_bytes_written", s.disk_bytes_written},
                           {"disk_bytes_read", s.disk_bytes_read},
                           {"disk_busy_s", s.disk_busy.seconds()},
                           {"track_seeks", s.track_seeks},
                           {"average_seeks", s.average_seeks},
                           {"cache_hits", s.cache_hits},
                           {"cache_hit_bytes", s.cache_hit_bytes},
                           {"cache_misses", s.cache_misses},
                           {"merged_chunks", s.merged},
                           {"write_stalls", s.write_stalls},
                           {"peak_cache_bytes", s.peak_memory},
                           {"readahead_waits", s.readahead_waits},
                           {"drained_after_run_bytes", s.drained_bytes}});
    j["servers"] = servers;
    const Drain d = drain_of(io, res.simulated);
    j["drained_after_run_bytes"] = d.bytes;
    j["drain_after_run_s"] = d.time.seconds();
    return j;
}

void print_io(const mpi::SimulationResult& res, std::ostream& out) {
    const mpi::IoReport& io = res.io;
    out << fmt::format("  file data          {} written, {} read, {} file(s)\n",
                       format_size(io.bytes_written), format_size(io.bytes_read), io.files);
    if (const IoThroughput t = io_throughput(res); t.slowest.ps() > 0)
        out << fmt::format(
            "  I/O throughput     {} ({} over the slowest rank's {} in MPI-IO calls, rank {})\n",
            format_bandwidth(Bandwidth{static_cast<std::uint64_t>(t.bytes_per_s)}),
            format_size(t.bytes), format_time(t.slowest), t.rank);
    // The run ends when the last rank does; write-behind caches may still hold data then.
    if (const Drain d = drain_of(io, res.simulated); d.bytes > 0)
        out << fmt::format(
            "  still cached       {} in the servers' caches when the last rank finished: the "
            "disks write it in the {} after the run\n",
            format_size(d.bytes), format_time(d.time));
    // Columns as wide as their widest entry (node names can be long: "PVS-Node_11").
    std::size_t wn = 6, wc = 5, wd = 4;
    for (const auto& s : io.servers)
        wn = std::max(wn, s.node.size()), wc = std::max(wc, s.cache.size()),
        wd = std::max(wd, s.disk.size());
    out << fmt::format("\n  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>10}  {:>19}  {:>10}\n",
                       "server", wn, "cache", wc, "disk", wd, "received", "sent", "disk busy",
                       "seeks (track/avg)", "cache hits");
    for (const auto& s : io.servers)
        out << fmt::format(
            "  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>10}  {:>19}  {:>10}\n", s.node, wn,
            s.cache, wc, s.disk, wd, format_size(s.bytes_written), format_size(s.bytes_read),
            format_time(s.disk_busy),
            fmt::format("{}/{}", with_commas(s.track_seeks), with_commas(s.average_seeks)),
            with_commas(s.cache_hits));
}

// The packet size every node sends with, or the network's default when node types set their
// own (0: whole messages).
std::uint64_t packet_size(const topo::Topology& t) {
    return t.nodes.empty() ? t.settings.granularity : t.nodes[0].granularity;
}
bool one_packet_size(const topo::Topology& t) {
    return std::all_of(t.nodes.begin(), t.nodes.end(),
                       [&](const topo::NodeInfo& n) { return n.granularity == packet_size(t); });
}

// What a graph model ran with, after --network: "4 KiB packets, cut_through switches and
// NICs, routing d_mod_k, packet NIC" (the packet models), "routing d_mod_k" (fluid).
std::string graph_network_line(const topo::Topology& t) {
    const std::string routing = fmt::format("routing {}", topo::to_string(t.settings.routing));
    if (t.settings.model != topo::NetworkModel::Packet) return "one flow per message, " + routing;
    const std::uint64_t g = packet_size(t);
    std::string packets = g == 0 ? "whole-message packets" : format_size(g) + " packets";
    if (!one_packet_size(t)) packets += " by default (some node types set their own)";
    const std::string sw = topo::forwarding_name(t.settings.forwarding);
    const std::string nic = topo::nic_forwarding(t);
    const std::string forwarding = nic == sw || nic.empty()
                                       ? sw + " switches and NICs"
                                       : fmt::format("{} switches, {} NICs", sw, nic);
    return fmt::format("{}, {}, {}, {} NIC", packets, forwarding, routing,
                       topo::to_string(t.settings.nic_model));
}

double events_per_s(const mpi::SimulationResult& res) {
    return res.wall_seconds > 0 ? static_cast<double>(res.events) / res.wall_seconds : 0.0;
}

}  // namespace

std::string report_network_name(const RunReport& rep) {
    const Model& m = *rep.loaded;
    const topo::Topology& t = m.topology;
    // The model that ran: a model file whose switches forward cut-through runs cut_through.
    return !rep.network.empty() ? rep.network : network_model_of(t.settings, m.comm);
}

nlohmann::json render_json(const RunReport& rep, bool per_rank) {
    const Model& m = *rep.loaded;
    const topo::Topology& t = m.topology;
    const mpi::SimulationResult& res = *rep.result;
    const double eps = events_per_s(res);
    nlohmann::json j;
    j["model"] = rep.model;
    j["app"] = rep.apps.size() == 1 ? nlohmann::json(rep.apps[0]) : nlohmann::json(rep.apps);
    j["ranks"] = rep.ranks;
    j["placement"] = rep.placement;
    j["simulated_time_s"] = res.simulated.seconds();
    j["simulated_time_ps"] = res.simulated.ps();
    j["events"] = res.events;
    j["wall_time_s"] = res.wall_seconds;
    j["cpu_time_s"] = res.cpu_seconds;
    j["model_load_s"] = rep.model_load_s;
    const RunPhases& ph = rep.phases;
    j["phases_s"] = {{"start", ph.start_s},
                     {"model_load", ph.model_load_s},
                     {"programs_load", ph.programs_load_s},
                     {"placement", ph.placement_s},
                     {"set_up", ph.set_up_s},
                     {"event_loop", ph.event_loop_s},
                     {"results", ph.results_s},
                     {"report", ph.report_s},
                     {"outputs", ph.outputs_s},
                     {"total", ph.total_s()}};
    j["events_per_s"] = eps;
    j["peak_memory_bytes"] = rep.peak_memory_bytes;
    const std::string model_name = report_network_name(rep);
    j["network"] = {{"model", model_name},
                    {"messages", res.network.messages_delivered},
                    {"bytes_sent", res.network.bytes_sent},
                    {"bytes_delivered", res.network.bytes_delivered},
                    {"messages_waited", res.network.messages_waited},
                    {"resource_wait_s", res.network.resource_wait.seconds()}};
    // What the model moved, as it names it (NetworkCapabilities): packets and their link
    // traversals (packet model), or flows and the times their rates were solved (fluid model).
    const NetworkCapabilities caps = capabilities_of(t.settings, m.comm, rep.network);
    // The graph models named completely: routing, and for the packet models the forwarding
    // of switches and NICs, the packet size and the NIC model (issue 52).
    if (!caps.analytic) {
        j["network"]["routing"] = topo::to_string(t.settings.routing);
        if (t.settings.model == topo::NetworkModel::Packet) {
            j["network"]["forwarding"] = topo::forwarding_name(t.settings.forwarding);
            j["network"]["nic_forwarding"] = topo::nic_forwarding(t);
            j["network"]["packet_size_bytes"] = packet_size(t);
            j["network"]["packet_size_varies"] = !one_packet_size(t);
            j["network"]["nic"] = topo::to_string(t.settings.nic_model);
        }
    }
    if (!caps.units.empty()) {
        auto key = [](std::string name) {
            std::replace(name.begin(), name.end(), ' ', '_');
            return name;
        };
        j["network"][key(caps.units)] = res.network.packets;
        j["network"][key(caps.work)] = res.network.packet_hops;
    }
    nlohmann::json ops = nlohmann::json::object();
    const auto totals = op_totals(res);
    for (int k = 0; k < mpi::kStatKinds; ++k) {
        if (totals[k].count == 0) continue;
        ops[mpi::stat_name(k)] = {{"count", totals[k].count},
                                  {"time_s", totals[k].time.seconds()},
                                  {"bytes", totals[k].bytes}};
    }
    j["operations"] = ops;
    // Which algorithm each collective call ran: "bcast/binomial" -> calls.
    nlohmann::json algs = nlohmann::json::object();
    for (const auto& [name, calls] : res.algorithms) algs[name] = calls;
    j["collective_algorithms"] = algs;
    nlohmann::json summary = nlohmann::json::object();
    for (const mpi::AppResult& x : rep.summary) summary[x.key] = x.value;
    j["app_summary"] = summary;
    if (!rep.warnings.empty()) j["warnings"] = rep.warnings;
    if (res.has_io) j["io"] = io_json(res);
    if (!m.jitter.empty()) {
        Time sum, most;
        for (const auto& r : res.ranks) sum += r.jitter, most = max(most, r.jitter);
        j["jitter"] = {{"total_s", sum.seconds()}, {"max_per_rank_s", most.seconds()}};
    }
    if (per_rank) {
        nlohmann::json pr = nlohmann::json::array();
        for (std::size_t r = 0; r < res.ranks.size(); ++r) {
            const auto& loc = res.placement[r];
            pr.push_back({{"rank", r},
                          {"node", t.nodes[loc.node].name},
                          {"socket", loc.socket},
                          {"core", loc.core},
                          {"finish_s", res.ranks[r].finish.seconds()},
                          {"bytes_sent", res.ranks[r].bytes_sent},
                          {"bytes_received", res.ranks[r].bytes_received},
                          {"jitter_s", res.ranks[r].jitter.seconds()}});
        }
        j["per_rank"] = pr;
    }
    return j;
}

void render_header(const std::string& model_path, const Model& model, const std::string& app_line,
                   std::uint32_t ranks, const std::string& placement,
                   const std::vector<mpi::RankLocation>& where, std::ostream& out) {
    const topo::Topology& t = model.topology;
    out << fmt::format("clustersim run: model {} ({} nodes), app {}\n", model_path, t.nodes.size(),
                       app_line);
    out << fmt::format("  {} ranks placed {}", ranks, placement);
    const std::size_t show = std::min<std::size_t>(where.size(), 4);
    for (std::size_t r = 0; r < show; ++r) {
        const auto& loc = where[r];
        out << fmt::format("{} rank {} on {} socket {} core {}", r == 0 ? ":" : ",", r,
                           t.nodes[loc.node].name, loc.socket, loc.core);
    }
    out << (where.size() > show ? ", ...\n" : "\n");
}

void render_text(const RunReport& rep, std::ostream& out) {
    const Model& m = *rep.loaded;
    const topo::Topology& t = m.topology;
    const mpi::SimulationResult& res = *rep.result;
    const double eps = events_per_s(res);
    if (!rep.header_shown)
        render_header(rep.model, m, rep.app_line, rep.ranks, rep.placement, res.placement, out);
    out << fmt::format("\n  simulated time     {}\n", format_time(res.simulated));
    for (const std::string& w : rep.warnings) out << fmt::format("  warning            {}\n", w);
    for (const mpi::AppResult& x : rep.summary)
        out << fmt::format("  {:<18} {}\n", x.label, x.text);
    const NetworkCapabilities caps = capabilities_of(t.settings, m.comm, rep.network);
    if (caps.analytic) {
        out << fmt::format("  network model      {} (analytic{})\n", m.comm.model,
                           m.comm.collectives_as_messages ? ", collectives as messages"
                                                          : ", collectives timed as a whole");
        out << fmt::format(
            "  messages           {} ({} delivered; {} waited for a bus or link, {} in all)\n",
            with_commas(res.network.messages_delivered), format_size(res.network.bytes_delivered),
            with_commas(res.network.messages_waited), format_time(res.network.resource_wait));
    } else if (!caps.units.empty()) {
        out << fmt::format("  network model      {} ({})\n", report_network_name(rep),
                           graph_network_line(t));
        out << fmt::format("  messages           {} ({} delivered in {} {}, {} {})\n",
                           with_commas(res.network.messages_delivered),
                           format_size(res.network.bytes_delivered),
                           with_commas(res.network.packets), caps.units,
                           with_commas(res.network.packet_hops), caps.work);
    } else {
        out << fmt::format("  messages           {} ({} delivered)\n",
                           with_commas(res.network.messages_delivered),
                           format_size(res.network.bytes_delivered));
    }
    if (!m.jitter.empty()) {
        // OS jitter met by the ranks' CPU work (the model's <jitter> elements).
        Time sum, most;
        std::size_t worst = 0;
        for (std::size_t r = 0; r < res.ranks.size(); ++r) {
            sum += res.ranks[r].jitter;
            if (res.ranks[r].jitter > most) most = res.ranks[r].jitter, worst = r;
        }
        const Time mean = res.ranks.empty()
                              ? Time::zero()
                              : Time::ps(sum.ps() / static_cast<std::int64_t>(res.ranks.size()));
        out << fmt::format("  OS jitter          {} per rank on average, at most {} (rank {})\n",
                           format_time(mean), format_time(most), worst);
    }
    if (res.has_io) print_io(res, out);
    const auto totals = op_totals(res);
    std::size_t wop = 14;  // "operation" column: as wide as the longest name shown
    for (int k = 0; k < mpi::kStatKinds; ++k)
        if (totals[k].count > 0) wop = std::max(wop, std::string(mpi::stat_name(k)).size());
    out << fmt::format("\n  {:<{}} {:>9}   {:>21}   bytes\n", "operation", wop, "count",
                       "time (sum over ranks)");
    for (int k = 0; k < mpi::kStatKinds; ++k) {
        const mpi::OpStats& total = totals[k];
        if (total.count == 0) continue;
        out << fmt::format("  {:<{}} {:>9}   {:>21}   {}\n", mpi::stat_name(k), wop,
                           with_commas(total.count), format_time(total.time),
                           format_size(total.bytes));
    }
    if (!res.algorithms.empty()) {
        out << "\n  collective algorithm          calls\n";
        for (const auto& [name, calls] : res.algorithms)
            out << fmt::format("  {:<28} {:>6}\n", name, with_commas(calls));
    }
    out << fmt::format(
        "\n  simulator: {} events in {:.3f} s wall ({:.1f} M events/s), model load {:.3f} s, "
        "peak memory {}\n",
        with_commas(res.events), res.wall_seconds, eps / 1e6, rep.model_load_s,
        format_size(rep.peak_memory_bytes));
    const RunPhases& ph = rep.phases;
    out << fmt::format(
        "  wall time by phase: start {:.3f} s, model {:.3f} s, programs {:.3f} s, placement "
        "{:.3f} s, set-up {:.3f} s, event loop {:.3f} s, results {:.3f} s, report {:.3f} s: "
        "{:.3f} s\n",
        ph.start_s, ph.model_load_s, ph.programs_load_s, ph.placement_s, ph.set_up_s,
        ph.event_loop_s, ph.results_s, ph.report_s, ph.total_s());
}

}  // namespace clustersim::run
