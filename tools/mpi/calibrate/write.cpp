// WRITE: the model XML and the CSV from a `Measured` and its `Derived` (no MPI), and the
// run's files.

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/error.hpp"
#include "tools/mpi/calibrate/calibrate.hpp"
#include "topologies/model_writer.hpp"

namespace clustersim::calibrate {

std::string host_summary(const Host& h) {
    int cores = 0;
    for (const int c : h.cores) cores += c;
    std::string s = strf("%zu socket%s, %d core%s", h.cores.size(), h.cores.size() == 1 ? "" : "s",
                         cores, cores == 1 ? "" : "s");
    if (h.cpus != cores) s += strf(" (%d logical CPUs)", h.cpus);
    s += strf(", %.1f GiB", static_cast<double>(h.memory) / static_cast<double>(GiB));
    if (!h.cpu_model.empty()) s += ", " + h.cpu_model;
    if (!h.topology_known) s += "; socket layout unknown (no sysfs topology)";
    if (h.load >= 0) s += strf("; load average %.2f at start", h.load);
    return s;
}

std::string eager_text(const Eager& e) {
    return strf("%s%llu B", e.at_least ? "at least " : "",
                static_cast<unsigned long long>(e.bytes));
}

// The I/O test's figures and the derivation, as lines (stdout and the model's comment).
std::vector<std::string> io_report(const Measured& m, const Derived& d) {
    const IoMeasured& io = m.io;
    const std::string size = size_text(io.size), one = size_text(io.transfer);
    const auto mib = [](std::uint64_t b) {
        return strf("%llu MiB", static_cast<unsigned long long>(b / MiB));
    };
    std::vector<std::string> lines{
        strf("rank 0 wrote %s files in %s MPI_File_write_at calls into %s (%s);", size.c_str(),
             one.c_str(), io.dir.c_str(), io.fs.c_str()),
        strf("each figure the median over %d passes (%d files of one write per pass)", m.passes,
             kSmallSyncs),
        strf("  no sync:   open %s, writes %s, close %s", time_text(io.open.value).c_str(),
             time_text(io.write_cached.value).c_str(), time_text(io.close.value).c_str()),
        strf("  synced:    writes %s + MPI_File_sync %s = %s (%s end to end)",
             time_text(io.write_synced.value).c_str(), time_text(io.sync.value).c_str(),
             time_text(io.synced.value).c_str(), mbps_text(d.io_synced_rate).c_str()),
        strf("  page cache = %s / the faster of the two files' writes = %s", size.c_str(),
             mbps_text(d.io_cache_rate).c_str()),
        strf("  one write: write %s + MPI_File_sync %s = %s",
             time_text(io.write_small.value).c_str(), time_text(io.sync_small.value).c_str(),
             time_text(io.synced_small.value).c_str()),
        strf("disk rate = (%s - %s) / (synced - one write synced) = %s: the model's cache",
             size.c_str(), one.c_str(), mbps_text(d.io_disk_rate).c_str()),
        "  flushes while the writes go on, Linux only at the sync (below its background",
        strf("  threshold); Linux's writeback, (%s - %s) / (sync - sync of one write), is %s",
             size.c_str(), one.c_str(), mbps_text(d.io_writeback_rate).c_str()),
        strf("file-system sync = one write synced - %s / disk rate = %s", one.c_str(),
             time_text(d.io_sync_cost).c_str()),
        strf("write-behind memory: of %.1f GiB dirtyable (free + file pages), %s:",
             static_cast<double>(io.dirty.dirtyable) / GiB, io.dirty.rule.c_str()),
        strf("  background %s, limit %s; the setpoint (freerun + limit) / 2, freerun =",
             mib(io.dirty.background).c_str(), mib(io.dirty.limit).c_str()),
        strf("  (background + limit) / 2, where a long write settles at the disk's rate: %s",
             mib(d.io_memory).c_str()),
        strf("small writes: %llu B MPI_File_write_at, %s per call (p10-p90 of the passes' "
             "calls %s - %s); request-overhead = that - 3 intra-node latencies - the copy = %s",
             static_cast<unsigned long long>(kSmallWriteBytes),
             time_text(io.small_write.value).c_str(), time_text(io.small_write.p10).c_str(),
             time_text(io.small_write.p90).c_str(), time_text(d.io_request_overhead).c_str()),
        io.world > 1
            ? strf("on MPI_COMM_WORLD (%d ranks, %d opens, medians, p10-p90): open %s (%s - "
                   "%s), close %s (%s - %s); per rank beyond the first: open %s, close %s; "
                   "close with the others %s late: %s, so collective-close=\"%s\"",
                   io.world, kWorldOpens, time_text(io.open_world.value).c_str(),
                   time_text(io.open_world.p10).c_str(), time_text(io.open_world.p90).c_str(),
                   time_text(io.close_world.value).c_str(), time_text(io.close_world.p10).c_str(),
                   time_text(io.close_world.p90).c_str(), time_text(d.io_open_per_rank).c_str(),
                   time_text(d.io_close_per_rank).c_str(), time_text(kLateClose).c_str(),
                   time_text(io.late_close.value).c_str(), d.io_close_collective ? "yes" : "no")
            : std::string("collective open and close: one rank, not measured")};
    if (io.world > 1 && io.sync_apart.value > 0)
        lines.push_back(
            strf("concurrent syncs: each rank writes %s at its own offset of one file, then all "
                 "MPI_File_sync at once (%d passes): the end of the last to enter less the end of "
                 "the first, per rank beyond the first, median %s (p10-p90 %s - %s): sync-apart",
                 size_text(kSyncApartBytes).c_str(), kSyncApartPasses,
                 time_text(io.sync_apart.value).c_str(), time_text(io.sync_apart.p10).c_str(),
                 time_text(io.sync_apart.p90).c_str()));
    return lines;
}

namespace {

// The concurrency curve (<point-to-point direction="concurrent">, issue 23): the receiver's
// shared transfer bandwidth at every point of the one-way curve, when every point has it
// (saved measurements from before it was measured have none: no element).
void write_concurrent_curve(topo::XmlElement& comm, const char* scope,
                            const std::vector<CurvePoint>& curve) {
    if (curve.empty() || !std::all_of(curve.begin(), curve.end(),
                                      [](const CurvePoint& p) { return p.concurrent > 0; }))
        return;
    topo::XmlElement& shared =
        comm.add("point-to-point").text("scope", scope).text("direction", "concurrent");
    for (const CurvePoint& p : curve) shared.add_point(p.bytes, model_bandwidth_of(p.concurrent));
}

// The groups of kConcurrent messages as CSV rows (kind "concurrent": the time per group, the
// bandwidth kConcurrent s / t), only where measured.
void write_concurrent_csv(std::ostringstream& c, const ClassResult& r, const std::string& who,
                          const std::function<std::string(const Stats&)>& times) {
    for (const SizeResult& s : r.sizes) {
        const Stats& st = s.concurrent;
        if (st.samples <= 0) continue;
        c << "concurrent," << who << "," << static_cast<unsigned long long>(s.bytes) << ",,"
          << times(st) << ",";
        if (s.bytes > 0 && st.value > 0)
            c << strf("%.3f", static_cast<double>(kConcurrent * s.bytes) / st.value / 1e6);
        c << ",\n";
    }
}

// <mpi-overhead><cold-send after="…"> with a point per size measured (the cold one-way time
// less the fresh one), beside the <fresh-send> it adds to, when measured on the same pair
// and some size costs more cold.
void write_cold_send(topo::XmlElement& overhead, const Measured& m) {
    const std::vector<std::pair<std::uint64_t, double>> extra = m.cold_extra();
    const bool costs = std::any_of(extra.begin(), extra.end(), [](const auto& p) {
        return model_time_of(p.second) > Time::zero();
    });
    if (!costs || m.cold_class != m.overhead_class || !(m.cold_after() > 0)) return;
    topo::XmlElement& c = overhead.add("cold-send");
    c.time("after", model_time_of(m.cold_after()));
    for (const auto& [bytes, x] : extra) c.add_point(bytes, model_time_of(x));
}

// <mpi-overhead><fresh-send write-rate="…"> with a point per size measured (the written
// buffer's one-way time less the untouched one's), when measured on the pair of the class
// the per-message costs come from and some size costs more written.
void write_fresh_send(topo::XmlElement& overhead, const Measured& m) {
    const std::vector<std::pair<std::uint64_t, double>> extra = m.fresh_extra();
    const bool costs = std::any_of(extra.begin(), extra.end(), [](const auto& p) {
        return model_time_of(p.second) > Time::zero();
    });
    if (!costs || m.fresh_class != m.overhead_class || !(m.fresh_write_rate() > 0)) return;
    topo::XmlElement& f = overhead.add("fresh-send");
    f.bandwidth("write-rate", model_bandwidth_of(m.fresh_write_rate()));
    for (const auto& [bytes, x] : extra) f.add_point(bytes, model_time_of(x));
    write_cold_send(overhead, m);
}

}  // namespace

std::string library_profile(const std::string& mpi_library) {
    // MPI_Get_library_version of Open MPI 4.1.x: "Open MPI v4.1.4, package: ...".
    const std::string_view open_mpi_41 = "Open MPI v4.1.";
    if (mpi_library.compare(0, open_mpi_41.size(), open_mpi_41) == 0) return "openmpi_4.1";
    return "";
}

namespace {

// The comment before the model's root: what was measured and how the model was derived.
void comment_header(std::ostream& x, const Measured& m, const std::string& name,
                    const std::string& profile) {
    x << name << ": the machine clustersim-calibrate ran on, as a clustersim cluster model\n"
      << "     (PIOsimHD section 5.1 parameterization; PSINS's simple model in <comm-model>).\n\n";
    x << "     command: on the <?clustersim-calibrate ...?> line below the comment (a comment\n"
      << "              cannot hold the flags' double hyphens); " << m.world << " MPI ranks\n";
    x << "     date:    " << m.date << "\n";
    x << "     MPI:     " << m.mpi_library << "; within a node its shared-memory path\n";
    if (!profile.empty())
        x << "              <collectives profile=\"" << profile
          << "\" buffer-copies=\"yes\">: that library's decision rules\n"
          << "              and its algorithms' own buffer copies (collectives/README.md)\n";
    for (std::size_t h = 0; h < m.hosts.size(); ++h)
        x << "     n" << h << " = host " << m.hosts[h].name << ": " << host_summary(m.hosts[h])
          << "\n";
    x << "\n     Measured, each figure the median over " << m.passes
      << " passes of the pass's median\n"
      << "     (ping-pong: one way = round trip / 2; sendrecv: both directions at once,\n"
      << "     aggregate = 2 x size / time):\n";
}

void comment_measured(std::ostream& x, const Measured& m, const Derived& d) {
    for (int c = 0; c < kClasses; ++c) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) {
            x << "       " << class_name(c) << ": absent (" << r.pair.absent << ")\n";
            continue;
        }
        x << "       " << class_name(c) << " (ranks " << r.pair.a << " and " << r.pair.b
          << "): latency " << us_text(r.latency.value) << "; " << size_text(f.at) << " ping-pong "
          << mbps_text(f.raw) << ", sendrecv aggregate " << mbps_text(f.aggregate) << ";\n"
          << "         eager up to " << eager_text(r.eager) << " (up to "
          << eager_text(r.eager_quiet) << " while the receiver makes no MPI call)\n";
    }
    x << "       core speed: " << strf("%.0f", d.speed / 1e6)
      << " M instructions/s (xorshift64 kernel, " << kInstructionsPerStep
      << " instructions per step;\n"
      << "         median over the ranks); traces recorded on this machine carry it as\n"
      << "         traced-speed " << strf("%.3fG", d.speed / 1e9) << "\n";
    x << "       local work of collectives (rank 0, median of " << kLocalRuns
      << " runs; copy = memcpy, reduce = MPI_Reduce_local of doubles, MPI_SUM):\n";
    for (std::size_t i = 0; i < m.local.copy.size(); ++i)
        x << "         " << size_text(m.local.copy[i].first) << ": copy "
          << mbps_text(m.local.copy[i].second) << ", reduce " << mbps_text(m.local.reduce[i].second)
          << "\n";
}

// The per-message costs and the stream (send gap).
void comment_overheads(std::ostream& x, const Measured& m) {
    if (!m.overheads.empty()) {
        const Pair& p = m.classes[static_cast<std::size_t>(m.overhead_class)].pair;
        x << "       per-message costs (" << class_name(m.overhead_class) << ", ranks " << p.a
          << " and " << p.b << "; bursts of " << kBurst
          << " messages, per message; p10-p90 of all bursts):\n"
          << "         o_s = MPI_Isend posting, post = MPI_Irecv posting, o_r = MPI_Recv of a\n"
          << "         burst sent while the receiver made no MPI call, minus post\n";
        for (const OverheadResult& o : m.overheads)
            x << "         " << size_text(o.bytes) << ": o_s " << time_text(o.send.value) << " ("
              << time_text(o.send.p10) << "-" << time_text(o.send.p90) << "), post "
              << time_text(o.post.value) << " (" << time_text(o.post.p10) << "-"
              << time_text(o.post.p90) << "), o_r " << time_text(o.recv.value) << " ("
              << time_text(o.recv.p10) << "-" << time_text(o.recv.p90) << ")\n";
        x << "         <mpi-overhead> carries them; the simulator charges o_s + o_r per message "
             "on\n"
          << "         the ranks' cores, so every class's latency below is its 0 B one-way time\n"
          << "         minus o_s + o_r (at least a tenth of it), and every transfer time\n"
          << "         t - k L - o_s(s) - o_r(s)\n";
        const std::vector<std::pair<std::uint64_t, double>> gap = m.send_gap();
        if (!gap.empty()) {
            const ClassResult& r = m.classes[static_cast<std::size_t>(m.overhead_class)];
            x << "       stream (ranks " << p.a << " and " << p.b
              << "): blocking MPI_Send back to back, the receiver looping on\n"
              << "         MPI_Recv; time per call (p10-p90 of all samples); <mpi-overhead><gap> "
                 "is it\n"
              << "         less o_s (LogGP's g: the simulator completes no send sooner than g "
                 "after it\n"
              << "         left):";
            int col = 0;
            for (const SizeResult& s : r.sizes)
                x << (col++ % 3 == 0 ? "\n          " : "  ") << size_text(s.bytes) << " "
                  << time_text(s.stream.value) << " (" << time_text(s.stream.p10) << "-"
                  << time_text(s.stream.p90) << ");";
            x << "\n";
        }
    }
}

void comment_derived(std::ostream& x, const Measured& m, const Derived& d) {
    const bool multi_node = m.hosts.size() > 1;
    const bool multi_socket = std::any_of(m.hosts.begin(), m.hosts.end(),
                                          [](const Host& h) { return h.cores.size() > 1; });
    x << "\n     Derived: every memory node, switch and NIC forwards cut-through, so a message of\n"
      << "     m bytes takes (sum of the path's latencies) + m / (its bottleneck bandwidth).\n"
      << "       s - mem: latency = intra-socket latency (less o_s + o_r) / 2 = "
      << us_text(d.sm_latency) << ", bandwidth (and the memory node's\n"
      << "         local rate) " << mbps_text(d.sm_bandwidth) << "\n";
    if (multi_socket)
        x << "       mem - qpi: latency = (inter-socket - intra-socket latency) / 2 = "
          << us_text(d.mq_latency) << ",\n         bandwidth " << mbps_text(d.mq_bandwidth)
          << "; qpi relay = sendrecv aggregate " << mbps_text(d.qpi_relay) << "\n";
    if (multi_node)
        x << "       nic - sw: latency = (inter-node latency - node-internal part) / 2 = "
          << us_text(d.link_latency) << ",\n         bandwidth " << mbps_text(d.link_bandwidth)
          << "; nic relay = sendrecv aggregate " << mbps_text(d.nic_relay) << "\n";
    if (d.fit)
        x << "       The bandwidth of a class (bandwidth fit) is the B for which k x latency + m / "
             "B\n"
          << "       is closest to the measured one-way times of every size m from 1 KiB up "
             "(least\n"
          << "       squares of log(simulated / measured); k = 1 eager, 3 above the eager "
             "threshold:\n"
          << "       request, clear-to-send, data).\n";
    else
        x << "       The bandwidth of a class is m / (t - k x latency) at its largest size m (k = "
             "1\n"
          << "       eager, 3 above the eager threshold: request, clear-to-send, data), so the\n"
          << "       simulated ping-pong there is the measured one.\n";
    for (int c = 0; c < kClasses; ++c) {
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) continue;
        x << "       " << class_name(c) << " bandwidth: largest size " << mbps_text(f.largest)
          << ", fit " << mbps_text(f.fit) << " (the model uses the "
          << (d.fit ? "fit" : "largest size") << ")\n";
    }
    x << "       eager-threshold: " << d.eager_source << ".\n";
    for (const std::string& note : d.notes) x << "       note: " << note << "\n";
}

// <comm-model> and the measured curves it carries.
void comment_curves(std::ostream& x, const Measured& m, const Derived& d) {
    x << "\n     <comm-model>: PSINS's simple model with the measured latency and bandwidth; it "
         "is\n"
      << "     the default network model of this file (run with network packet to use the graph).\n"
      << "     Its <point-to-point> curves carry the measured ping-pong: a message of s bytes "
         "takes\n"
      << "     s / B(s) of transfer and arrives the pair's latency L after it, B interpolated\n"
      << "     (monotone cubic, log-log) through the points; above the eager threshold the\n"
      << "     simulated runtime sends a request and a clear-to-send first (2 L more). So each\n"
      << "     point's bandwidth is the transfer bandwidth s / (t(s) - k L), t the one-way time,\n"
      << "     k = 1 eager, 3 rendezvous; sizes with t - k L at most 2 % of t are left out (pure\n"
      << "     latency). The curves with direction=\"both\" carry the measured MPI_Sendrecv the\n"
      << "     same way: the transfer of one direction while the ranks send and receive at once,\n"
      << "     s / (t2(s) - k L - o(s)), never faster than one way. collectives=\"messages\":\n"
      << "     collectives run their algorithms as point-to-point messages through the curves;\n"
      << "     <collectives buffer-footprint=\"yes\">: a collective's rendezvous segment or block\n"
      << "     moves at the lower of the curve's bandwidths at its size and at the size of the\n"
      << "     receive buffer it lands in (the ping-pong reuses one buffer of the message's size,\n"
      << "     cache-resident below the cache's size; a segment walks through the whole buffer).\n"
      << "     Measured (size, one-way time, transfer bandwidth, sendrecv per call / one-way):\n";
    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        std::vector<std::uint64_t> skipped;
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, &skipped);
        x << "       " << scope << ", from " << class_name(c)
          << " (L = " << time_text(r.latency.value) << "):";
        int col = 0;
        for (const CurvePoint& p : curve)
            x << (col++ % 2 == 0 ? "\n        " : "   ") << " " << size_text(p.bytes) << ", "
              << time_text(p.one_way) << ", " << mbps_text(p.bandwidth) << ", "
              << strf("%.2f", p.sendrecv / p.one_way) << ";";
        x << "\n";
        if (!skipped.empty()) {
            x << "         left out (t - k L at most 2 % of t):";
            for (const std::uint64_t b : skipped) x << " " << size_text(b);
            x << "\n";
        }
    }
}

void comment_io(std::ostream& x, const Measured& m, const Derived& d) {
    if (d.io) {
        x << "\n     I/O:\n";
        for (const std::string& line : io_report(m, d)) x << "       " << line << "\n";
        x << "       The model: one I/O server on n0 (the node rank 0 ran on) with that "
             "write-behind\n"
          << "       cache and a simple disk at the disk rate; file-system open, close and sync\n"
          << "       as measured. Its cache acknowledges a write once copied in at the page\n"
          << "       cache's rate (copy-rate).\n";
    } else if (m.io.measured) {
        x << "\n     I/O: not measured (" << m.io.error << "); no I/O server.\n";
    }
}

// The graph: node types (sockets, memory nodes, the QPI switch, the NIC), nodes and the switch.
void add_graph(topo::XmlElement& cluster, const Measured& m, const Derived& d) {
    const bool multi_node = m.hosts.size() > 1;
    cluster.add_network()
        .text("forwarding", "cut_through")
        .size("granularity", 100 * KiB)
        .text("routing", "shortest_path")
        .text("nic", "packet")
        .size("eager-threshold", d.eager);
    const Bandwidth sm_bandwidth = model_bandwidth_of(d.sm_bandwidth);
    const Bandwidth link_bandwidth = model_bandwidth_of(d.link_bandwidth);
    for (const NodeType& t : d.types) {
        topo::XmlElement& type = cluster.add_node_type(t.name, t.memory / MiB * MiB);
        const std::size_t sockets = t.cores.size();
        for (std::size_t s = 0; s < sockets; ++s)
            type.add_socket(strf("s%zu", s), static_cast<std::uint64_t>(std::max(1, t.cores[s])),
                            model_speed_of(t.speed));
        for (std::size_t s = 0; s < sockets; ++s)
            type.add_memory_node(strf("mem%zu", s))
                .bandwidth("local-bandwidth", sm_bandwidth)
                .text("forwarding", "cut_through");
        // A relay rate of 0 was not measured: the switch or NIC is unlimited.
        if (sockets > 1)
            type.add_switch("qpi", d.qpi_relay > 0 ? model_bandwidth_of(d.qpi_relay) : Bandwidth{})
                .text("forwarding", "cut_through");
        if (multi_node)
            type.add_nic("nic", d.nic_relay > 0 ? model_bandwidth_of(d.nic_relay) : Bandwidth{})
                .text("forwarding", "cut_through");
        for (std::size_t s = 0; s < sockets; ++s)
            type.add_cable(strf("s%zu", s), strf("mem%zu", s), model_time_of(d.sm_latency),
                           sm_bandwidth);
        if (sockets > 1)
            for (std::size_t s = 0; s < sockets; ++s)
                type.add_cable(strf("mem%zu", s), "qpi", model_time_of(d.mq_latency),
                               model_bandwidth_of(d.mq_bandwidth));
        if (multi_node)
            type.add_cable("nic", sockets > 1 ? "qpi" : "mem0", Time::zero(), link_bandwidth);
    }
    for (std::size_t h = 0; h < m.hosts.size(); ++h)
        cluster.add_node(strf("n%zu", h), d.types[d.type_of_host[h]].name);
    if (multi_node) {
        cluster.add_switch("sw").text("forwarding", "cut_through");
        for (std::size_t h = 0; h < m.hosts.size(); ++h)
            cluster.add_cable(strf("n%zu.nic", h), "sw", model_time_of(d.link_latency),
                              link_bandwidth);
    }
}

// PSINS's simple model with the measured point-to-point curves.
void add_comm_model(topo::XmlElement& cluster, const Measured& m, const Derived& d) {
    // Within a node the intra-socket figures (the inter-socket ones if
    // no pair shared a socket), between nodes the inter-node ones.
    const ClassFigures& in =
        d.fig[kIntraSocket].present ? d.fig[kIntraSocket] : d.fig[kInterSocket];
    topo::XmlElement& comm = cluster.add_comm_model("simple");
    if (d.fig[kInterNode].present)
        comm.time("latency", model_time_of(d.fig[kInterNode].latency))
            .bandwidth("bandwidth", model_bandwidth_of(d.fig[kInterNode].bandwidth));
    if (in.present)
        comm.time("intra-latency", model_time_of(in.latency))
            .bandwidth("intra-bandwidth", model_bandwidth_of(in.bandwidth));
    comm.text("collectives", "messages");
    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, nullptr);
        if (curve.empty()) continue;
        topo::XmlElement& one_way = comm.add("point-to-point").text("scope", scope);
        for (const CurvePoint& p : curve)
            one_way.add_point(p.bytes, model_bandwidth_of(p.bandwidth));
        if (std::all_of(curve.begin(), curve.end(),
                        [](const CurvePoint& p) { return p.two_way > 0; })) {
            topo::XmlElement& both =
                comm.add("point-to-point").text("scope", scope).text("direction", "both");
            for (const CurvePoint& p : curve)
                both.add_point(p.bytes, model_bandwidth_of(p.two_way));
        }
        write_concurrent_curve(comm, scope, curve);
    }
}

// The per-message software costs, as measured (OverheadResult).
void add_overheads(topo::XmlElement& cluster, const Measured& m) {
    if (!m.overheads.empty()) {
        topo::XmlElement& overhead = cluster.add_mpi_overhead();
        for (const auto& [tag, member] :
             {std::pair<const char*, Stats OverheadResult::*>{"send", &OverheadResult::send},
              {"recv", &OverheadResult::recv},
              {"post", &OverheadResult::post}}) {
            topo::XmlElement& curve = overhead.add(tag);
            for (const OverheadResult& o : m.overheads)
                curve.add_point(o.bytes, model_time_of((o.*member).value));
        }
        // The send gap (LogGP's g): the stream's time per call less o_s (Measured::send_gap).
        const std::vector<std::pair<std::uint64_t, double>> gap = m.send_gap();
        if (!gap.empty()) {
            topo::XmlElement& curve = overhead.add("gap");
            for (const auto& [bytes, g] : gap) curve.add_point(bytes, model_time_of(g));
        }
        // The lazy peer set-up (Measured::peer_setup), when seen on the pair of the class
        // the other costs come from.
        if (const PeerSetup ps = m.peer_setup(); ps.found && m.setup_class == m.overhead_class)
            overhead.add("peer-setup")
                .count("after", static_cast<std::uint64_t>(ps.after))
                .time("time", model_time_of(ps.time));
        // Fresh send buffers (Measured::fresh_extra), when measured on that pair and some
        // size costs more written than untouched.
        write_fresh_send(overhead, m);
    }
}

void add_collectives(topo::XmlElement& cluster, const Measured& m, const std::string& profile,
                     bool local_curves) {
    // Collectives' local work at the measured rates (rank 0, memcpy and MPI_Reduce_local of
    // doubles): the attributes the largest size's rates, the curves (--local-curves) every
    // size's (cache effects). Communicator creation: the local cost beyond the 8-byte
    // allreduce's agreement.
    topo::XmlElement& collectives = cluster.add_collectives();
    // The library that ran: its collectives' decision rules and buffer copies.
    if (!profile.empty()) collectives.text("profile", profile).text("buffer-copies", "yes");
    // A collective's segments and blocks priced at the buffer they land in (issue 23: the
    // curves above are ping-pongs of one buffer of the message's size).
    collectives.text("buffer-footprint", "yes");
    if (!m.local.copy.empty() && !m.local.reduce.empty()) {
        collectives.bandwidth("reduce-bandwidth", model_bandwidth_of(m.local.reduce.back().second))
            .bandwidth("copy-bandwidth", model_bandwidth_of(m.local.copy.back().second));
        if (local_curves)
            for (const auto& [tag, rates] :
                 {std::pair<const char*, const std::vector<std::pair<std::uint64_t, double>>*>{
                      "copy-rate", &m.local.copy},
                  {"reduce-rate", &m.local.reduce}}) {
                topo::XmlElement& curve = collectives.add(tag);
                for (const auto& [size, rate] : *rates)
                    curve.add_point(size, model_bandwidth_of(rate));
            }
    }
    collectives.time("comm-create", model_time_of(m.comm_create_local()));
    // MPI_Comm_free, local (Measured::comm_free).
    if (model_time_of(m.comm_free) > Time::zero())
        collectives.time("comm-free", model_time_of(m.comm_free));
    // A process's first communicator with a topology (Measured::first_use).
    if (m.first_use.measured && model_time_of(m.first_use.topology()) > Time::zero())
        collectives.time("first-topology", model_time_of(m.first_use.topology()));
    // The barrier's own cost beyond its messages (Measured::barrier_local).
    if (m.barrier_measured) collectives.time("barrier", model_time_of(m.barrier_local()));
    add_collective_curves(m, collectives);  // the real library's curves (coll_curves.cpp)
}

// The I/O server and the file system's costs.
void add_io(topo::XmlElement& cluster, const Measured& m, const Derived& d) {
    if (d.io) {
        // One I/O server on the node rank 0 wrote from, the kernel's page cache as its
        // write-behind cache, the disk a simple one at the measured rate.
        topo::XmlElement& server = cluster.add_io_server("n0");
        std::vector<std::pair<std::string, std::string>> cache = {
            {"memory", topo::model_size(d.io_memory / MiB * MiB)}};
        if (d.io_cache_rate > 0)
            cache.emplace_back("copy-rate",
                               topo::model_bandwidth(model_bandwidth_of(d.io_cache_rate)));
        server.add_component("cache", "write_behind", cache);
        server.add_component("disk", "simple",
                             {{"rate", topo::model_bandwidth(model_bandwidth_of(d.io_disk_rate))}});
        topo::XmlElement& fs = cluster.add_file_system()
                                   .time("open", model_time_of(d.io_open))
                                   .time("close", model_time_of(d.io_close))
                                   .time("sync", model_time_of(d.io_sync_cost))
                                   .time("request-overhead", model_time_of(d.io_request_overhead));
        if (m.io.world > 1)
            fs.time("open-per-rank", model_time_of(d.io_open_per_rank))
                .time("close-per-rank", model_time_of(d.io_close_per_rank))
                .text("collective-close", d.io_close_collective ? "yes" : "no");
        // Concurrent syncs of one file end apart (IoMeasured::sync_apart).
        if (model_time_of(d.io_sync_apart) > Time::zero())
            fs.time("sync-apart", model_time_of(d.io_sync_apart));
        // A process's first MPI_File_open (Measured::first_use).
        if (m.first_use.measured && model_time_of(m.first_use.open()) > Time::zero())
            fs.time("first-open", model_time_of(m.first_use.open()));
    }
}

}  // namespace

std::string write_model(const Measured& m, const Derived& d, const std::string& name,
                        bool local_curves) {
    std::ostringstream x;  // the comment before the root
    const std::string profile = library_profile(m.mpi_library);
    comment_header(x, m, name, profile);
    comment_measured(x, m, d);
    comment_overheads(x, m);
    comment_derived(x, m, d);
    comment_curves(x, m, d);
    comment_io(x, m, d);
    topo::ModelDocument doc(name);
    doc.set_encoding("UTF-8");
    doc.add_comment(x.str());
    doc.add_processing_instruction("clustersim-calibrate", m.command);
    topo::XmlElement& cluster = doc.cluster();
    add_graph(cluster, m, d);
    add_comm_model(cluster, m, d);
    add_overheads(cluster, m);
    add_collectives(cluster, m, profile, local_curves);
    add_io(cluster, m, d);
    return doc.str();
}

namespace {

// Fresh send buffers as CSV rows: per size, "fresh_untouched", "fresh_written" (the one-way
// times) and "fresh_write" (the sender's store loop), each a row of its Stats; bandwidth the
// size over the time.
// Cold fresh sends as CSV rows: per size, "cold_fresh" and "cold_cold" (the one-way times),
// and one "cold_evict" row (both ranks' write of kColdEvictCaches caches; size its bytes).
void write_cold_csv(std::ostringstream& c, const Measured& m) {
    if (m.cold.empty()) return;
    const Pair& p = m.classes[static_cast<std::size_t>(m.cold_class)].pair;
    const std::string who = strf("%s,%d,%d", class_name(m.cold_class), p.a, p.b);
    const auto row = [&](const char* kind, std::uint64_t bytes, const Stats& st) {
        c << kind << "," << who << "," << static_cast<unsigned long long>(bytes) << ",,"
          << strf("%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", st.passes, st.samples, st.value * 1e6,
                  st.median_all * 1e6, st.min * 1e6, st.p10 * 1e6, st.p90 * 1e6, st.max * 1e6)
          << ",";
        if (st.value > 0) c << strf("%.3f", static_cast<double>(bytes) / st.value / 1e6);
        c << ",\n";
    };
    for (const ColdResult& x : m.cold) {
        row("cold_fresh", x.bytes, x.fresh);
        row("cold_cold", x.bytes, x.cold);
    }
    row("cold_evict", kColdEvictCaches * m.cold_cache_bytes, m.cold_evict);
}

void write_fresh_csv(std::ostringstream& c, const Measured& m) {
    if (m.fresh.empty()) return;
    const Pair& p = m.classes[static_cast<std::size_t>(m.fresh_class)].pair;
    const std::string who = strf("%s,%d,%d", class_name(m.fresh_class), p.a, p.b);
    for (const FreshResult& f : m.fresh)
        for (const auto& [kind, st] :
             {std::pair<const char*, const Stats*>{"fresh_untouched", &f.untouched},
              {"fresh_written", &f.fresh},
              {"fresh_write", &f.write}}) {
            c << kind << "," << who << "," << static_cast<unsigned long long>(f.bytes) << ",,"
              << strf("%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", st->passes, st->samples,
                      st->value * 1e6, st->median_all * 1e6, st->min * 1e6, st->p10 * 1e6,
                      st->p90 * 1e6, st->max * 1e6)
              << ",";
            if (st->value > 0) c << strf("%.3f", static_cast<double>(f.bytes) / st->value / 1e6);
            c << ",\n";
        }
}

// The lazy peer set-up's round trips as CSV rows (kind "peer_setup", one per round trip:
// the instructions column is its 1-based index, value_us its time; then one row
// "peer_setup_spike" with the steady round trip as value_us, the spike's index as
// instructions and its excess as max_us, or none when no spike was seen).
void write_peer_setup_csv(std::ostringstream& c, const Measured& m) {
    if (m.setup_round_trips.empty()) return;
    const std::string who = strf("%s,0,1", class_name(m.setup_class));
    for (std::size_t i = 0; i < m.setup_round_trips.size(); ++i)
        c << "peer_setup," << who << ",0," << i + 1 << ",,1,"
          << strf("%.4f", m.setup_round_trips[i] * 1e6) << ",,,,,,,\n";
    const PeerSetup ps = m.peer_setup();
    if (ps.found)
        c << "peer_setup_spike," << who << ",0," << ps.after << ",,,"
          << strf("%.4f,,,,,%.4f", ps.steady * 1e6, ps.excess * 1e6) << ",,\n";
}

}  // namespace

std::string write_csv(const Measured& m) {
    std::ostringstream c;
    c << "kind,class,rank_a,rank_b,bytes,instructions,passes,samples,value_us,median_all_us,"
         "min_us,p10_us,p90_us,max_us,bandwidth_MB_per_s,speed_Minstr_per_s\n";
    auto times = [&](const Stats& s) {
        return strf("%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", s.passes, s.samples, s.value * 1e6,
                    s.median_all * 1e6, s.min * 1e6, s.p10 * 1e6, s.p90 * 1e6, s.max * 1e6);
    };
    for (int k = 0; k < kClasses; ++k) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(k)];
        if (!r.pair.present) continue;
        const std::string who = strf("%s,%d,%d", class_name(k), r.pair.a, r.pair.b);
        for (const int kind : {0, 1, 2}) {
            if (kind == 2 && !r.stream_measured) continue;
            for (const SizeResult& s : r.sizes) {
                const Stats& st = kind == 0 ? s.pingpong : kind == 1 ? s.sendrecv : s.stream;
                c << (kind == 0   ? "pingpong,"
                      : kind == 1 ? "sendrecv,"
                                  : "stream,")
                  << who << "," << static_cast<unsigned long long>(s.bytes) << ",," << times(st)
                  << ",";
                if (s.bytes > 0 && st.value > 0)
                    c << strf("%.3f", static_cast<double>(s.bytes) / st.value / 1e6);
                c << ",\n";
            }
        }
        write_concurrent_csv(c, r, who, times);
        c << "eager_threshold," << who << "," << r.eager.bytes << ",,," << r.eager.probes
          << ",,,,,,,,\n";
        c << "eager_threshold_receiver_computing," << who << "," << r.eager_quiet.bytes << ",,,"
          << r.eager_quiet.probes << ",,,,,,,,\n";
    }
    if (!m.overheads.empty()) {  // per-message costs: seconds per message, as the others
        const Pair& p = m.classes[static_cast<std::size_t>(m.overhead_class)].pair;
        const std::string who = strf("%s,%d,%d", class_name(m.overhead_class), p.a, p.b);
        for (const OverheadResult& o : m.overheads)
            for (const auto& [kind, st] : {std::pair<const char*, const Stats*>{"o_s", &o.send},
                                           {"o_post", &o.post},
                                           {"o_r", &o.recv}})
                c << kind << "," << who << "," << static_cast<unsigned long long>(o.bytes) << ",,"
                  << times(*st) << ",,\n";
    }
    write_peer_setup_csv(c, m);
    write_fresh_csv(c, m);
    write_cold_csv(c, m);
    if (m.io.measured && m.io.error.empty()) {
        const IoMeasured& io = m.io;
        const std::tuple<const char*, const Stats*, std::uint64_t> rows[] = {
            {"io_open", &io.open, 0},
            {"io_write_cached", &io.write_cached, io.size},
            {"io_close", &io.close, 0},
            {"io_write_small", &io.write_small, io.transfer},
            {"io_sync_small", &io.sync_small, io.transfer},
            {"io_synced_small", &io.synced_small, io.transfer},
            {"io_write_synced", &io.write_synced, io.size},
            {"io_sync", &io.sync, io.size},
            {"io_synced", &io.synced, io.size}};
        for (const auto& [kind, st, bytes] : rows) {
            c << kind << ",io,0,," << bytes << ",," << times(*st) << ",";
            if (bytes > 0 && st->value > 0)
                c << strf("%.3f", static_cast<double>(bytes) / st->value / 1e6);
            c << ",\n";
        }
    }
    for (std::size_t r = 0; r < m.cpu.size(); ++r)
        if (m.cpu[r].samples > 0)
            c << "cpu,cpu" << m.ranks[r].cpu << "," << r << ",,," << m.cpu_instructions << ","
              << times(m.cpu[r]) << ",," << strf("%.1f", m.speed(r) / 1e6) << "\n";
    c << coll_curves_csv(m);
    return c.str();
}

std::string open_outputs(const Options& o, Outputs& out) {
    const std::pair<const char*, std::pair<const std::string*, std::ofstream*>> files[] = {
        {"--out", {&o.out, &out.xml}},
        {"--csv", {&o.csv, &out.csv}},
        {"--save-measured", {&o.save_measured, &out.measured}}};
    for (const auto& [flag, file] : files) {
        if (file.first->empty()) continue;
        file.second->open(*file.first);
        if (!*file.second)
            return strf("%s: cannot write '%s': %s", flag, file.first->c_str(),
                        std::strerror(errno));
    }
    return {};
}

void finish(const Measured& m, const Options& opt, Outputs& out) {
    const Derived d = derive(m, opt.fit);
    print_summary(m, d);
    std::string name = opt.name;
    if (name.empty()) {
        name = "calibrated-";
        for (const char ch : m.hosts.front().name)
            name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-') ? ch : '_';
    }
    if (out.xml.is_open()) {
        out.xml << write_model(m, d, name, opt.local_curves);
        out.xml.close();
        if (!out.xml) throw UsageError(strf("--out: cannot write '%s'", opt.out.c_str()));
        std::printf("\nwrote the model to %s\n", opt.out.c_str());
    }
    if (out.csv.is_open()) {
        out.csv << write_csv(m);
        out.csv.close();
        if (!out.csv) throw UsageError(strf("--csv: cannot write '%s'", opt.csv.c_str()));
        std::printf("wrote the measurements to %s\n", opt.csv.c_str());
    }
    if (out.measured.is_open()) {
        out.measured << measured_to_json(m);
        out.measured.close();
        if (!out.measured)
            throw UsageError(strf("--save-measured: cannot write '%s'", opt.save_measured.c_str()));
        std::printf("wrote the raw measurements to %s\n", opt.save_measured.c_str());
    }
}

int main_from(int argc, char** argv) {
    try {
        const Options opt = parse_options(argc, argv);
        if (opt.help) {
            std::fputs(kUsage, stdout);
            return 0;
        }
        try {
            refuse_non_file(opt.from);  // a folder, or a device that never ends
        } catch (const InputError& e) {
            throw UsageError(strf("--from: %s", e.what()));
        }
        std::ifstream in(opt.from, std::ios::binary);
        if (!in)
            throw UsageError(
                strf("--from: cannot read '%s': %s", opt.from.c_str(), std::strerror(errno)));
        std::ostringstream text;
        text << in.rdbuf();
        if (in.bad()) throw UsageError(strf("--from: cannot read '%s'", opt.from.c_str()));
        Measured m;
        try {
            m = measured_from_json(text.str(), opt.from);
        } catch (const BadMeasured& e) {
            throw UsageError(e.what());
        }
        Outputs out;
        if (const std::string e = open_outputs(opt, out); !e.empty()) throw UsageError(e);
        std::array<Pair, kClasses> pairs;
        for (int c = 0; c < kClasses; ++c)
            pairs[static_cast<std::size_t>(c)] = m.classes[static_cast<std::size_t>(c)].pair;
        std::printf("measurements of %s, read from %s\n", m.date.c_str(), opt.from.c_str());
        print_placement(m, pairs);
        print_peer_setup(m, m.overhead_class);
        for (int c = 0; c < kClasses; ++c)
            if (pairs[static_cast<std::size_t>(c)].present)
                print_class(c, m.classes[static_cast<std::size_t>(c)]);
        print_overheads(m);
        finish(m, opt, out);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
        return kUsageExit;
    }
}

}  // namespace clustersim::calibrate
