// The tables clustersim-calibrate prints on stdout (rank 0).

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"
#include "topologies/model_writer.hpp"

namespace clustersim::calibrate {

// ---- report (rank 0) -----------------------------------------------------------------------

// `s` padded with spaces to `width` characters (UTF-8 aware: µ is one character).
std::string pad(const std::string& s, std::size_t width, bool right = false) {
    std::size_t chars = 0;
    for (const char ch : s)
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++chars;
    const std::string fill(width > chars ? width - chars : 0, ' ');
    return right ? fill + s : s + fill;
}

void print_placement(const Measured& m, const std::array<Pair, kClasses>& pairs) {
    std::printf("%s: %d ranks on %zu node%s; %s\n", kProgram, m.world, m.hosts.size(),
                m.hosts.size() == 1 ? "" : "s", m.mpi_library.c_str());
    for (const Host& h : m.hosts) {
        std::printf("  host %s: %s\n", h.name.c_str(), host_summary(h).c_str());
        if (h.load > 0.5 * std::max(1, h.cpus))
            std::printf(
                "  warning: %s was busy (load average %.2f over the last minute on %d CPUs);\n"
                "  if other work still runs, the figures will be pessimistic\n",
                h.name.c_str(), h.load, h.cpus);
    }
    std::printf("\n  rank  host                  cpu  socket  affinity\n");
    for (std::size_t r = 0; r < m.ranks.size(); ++r) {
        const RankInfo& i = m.ranks[r];
        const std::string aff = i.bound_cpus == 1  ? "bound to its cpu"
                                : i.bound_cpus > 1 ? strf("%d cpus (may migrate)", i.bound_cpus)
                                                   : "unknown";
        std::printf("  %4zu  %-20s %4d  %6d  %s\n", r, i.host, i.cpu, i.socket, aff.c_str());
    }
    std::printf("\n  class          pair\n");
    for (int c = 0; c < kClasses; ++c) {
        const Pair& p = pairs[static_cast<std::size_t>(c)];
        if (p.present)
            std::printf("  %-14s ranks %d and %d%s\n", class_name(c), p.a, p.b,
                        p.shared_cpu ? " (they share one cpu: no pair on two cpus)" : "");
        else
            std::printf("  %-14s absent: %s\n", class_name(c), p.absent.c_str());
    }
    std::fflush(stdout);
}

void print_class(int c, const ClassResult& r) {
    std::printf("\n%s (ranks %d and %d)\n", class_name(c), r.pair.a, r.pair.b);
    std::printf("  latency (0 B ping-pong, one way): %s  (%.0f round trips in %.0f passes)\n",
                us_text(r.latency.value).c_str(), r.latency.samples, r.latency.passes);
    std::printf(
        "  eager threshold (largest MPI_Send that returns before the receive is posted):"
        " %s;\n    %s while the receiver makes no MPI call\n",
        eager_text(r.eager).c_str(), eager_text(r.eager_quiet).c_str());
    std::printf("\n  %s %s  %s %s %s %s| %s %s %s\n", pad("size", 8).c_str(),
                pad("round trips", 11, true).c_str(), pad("ping-pong", 12).c_str(),
                pad("min", 12).c_str(), pad("p90", 12).c_str(), pad("bandwidth", 14).c_str(),
                pad("sendrecv", 12).c_str(), pad("per direction", 14).c_str(), "aggregate");
    for (const SizeResult& s : r.sizes) {
        const double b = static_cast<double>(s.bytes);
        const bool bw = s.bytes > 0;
        std::printf("  %s %s  %s %s %s %s| %s %s %s\n", pad(size_text(s.bytes), 8).c_str(),
                    pad(strf("%.0f", s.pingpong.samples), 11, true).c_str(),
                    pad(time_text(s.pingpong.value), 12).c_str(),
                    pad(time_text(s.pingpong.min), 12).c_str(),
                    pad(time_text(s.pingpong.p90), 12).c_str(),
                    pad(bw ? mbps_text(b / s.pingpong.value) : "-", 14).c_str(),
                    pad(time_text(s.sendrecv.value), 12).c_str(),
                    pad(bw ? mbps_text(b / s.sendrecv.value) : "-", 14).c_str(),
                    bw ? mbps_text(2 * b / s.sendrecv.value).c_str() : "-");
    }
    std::printf(
        "  ping-pong: one way (round trip / 2); sendrecv: time per call, both directions"
        " at once;\n  min and p90 over every sample\n");
    if (r.stream_measured) {
        std::printf(
            "  stream (blocking MPI_Send back to back, time per call; p10-p90 of every "
            "sample):\n");
        for (const SizeResult& s : r.sizes)
            std::printf("    %s %s (%s - %s)%s\n", pad(size_text(s.bytes), 8).c_str(),
                        pad(time_text(s.stream.value), 12).c_str(), time_text(s.stream.p10).c_str(),
                        time_text(s.stream.p90).c_str(),
                        s.pingpong.value > 0
                            ? strf(", %.2f x one way", s.stream.value / s.pingpong.value).c_str()
                            : "");
    }
    std::fflush(stdout);
}

namespace {

// The groups of kConcurrent messages sent at once (issue 23), when measured: time per group
// against kConcurrent one-way times, and the receiver's shared bandwidth the model gets.
void print_concurrent(const char* scope, const std::vector<CurvePoint>& curve) {
    if (std::none_of(curve.begin(), curve.end(), [](const CurvePoint& p) { return p.group > 0; }))
        return;
    std::printf(
        "<point-to-point scope=\"%s\" direction=\"concurrent\">: %d messages of s bytes "
        "sent at once, one way;\n  group / one-way: time per group over one message's "
        "(1: no slower than one,\n  %d: one after the other)\n",
        scope, kConcurrent, kConcurrent);
    std::printf("  %-8s %-12s %-14s %s\n", "size", "group", "shared bw", "group / one-way");
    for (const CurvePoint& p : curve)
        std::printf("  %-8s %-12s %-14s %.2f\n", size_text(p.bytes).c_str(),
                    p.group > 0 ? time_text(p.group).c_str() : "-",
                    p.concurrent > 0 ? mbps_text(p.concurrent).c_str() : "-",
                    p.group > 0 ? p.group / p.one_way : 0.0);
}

}  // namespace

// --peer-setup-only's report: every round trip, then the set-up's total (setup_total_of).
void print_setup_total(const std::vector<double>& round_trips) {
    std::printf("peer set-up round trips (ranks 0 and 1, zero bytes, us):");
    for (const double rt : round_trips) std::printf(" %.3f", rt * 1e6);
    const SetupTotal t = setup_total_of(round_trips);
    if (!t.found) {
        std::printf(
            "\npeer set-up: none seen (no round trip from the 2nd exceeds steady by more "
            "than max(%.0f x steady, %.0f us))\n",
            kSetupSpikeFactor, kSetupSpikeFloor * 1e6);
        return;
    }
    std::printf(
        "\npeer set-up: total %.3f us (both directions) over round trips %d..%d, %d of them over "
        "the threshold; steady round trip %.3f us\n",
        t.total * 1e6, t.first, std::min(t.last + 3, kSetupRoundTrips), t.spikes, t.steady * 1e6);
}

void print_peer_setup(const Measured& m, int cost_class) {
    if (m.setup_round_trips.empty()) return;
    const PeerSetup ps = m.peer_setup();
    const auto [lo, hi] =
        std::minmax_element(m.setup_round_trips.begin() + 1, m.setup_round_trips.end());
    std::printf(
        "\npeer set-up (ranks 0 and 1, %s; %d zero-byte round trips, the first messages they "
        "exchange):\n  first round trip %.3f us (cold), the others %.3f-%.3f us; steady (median "
        "of 33..%d) %.3f us\n",
        class_name(m.setup_class), kSetupRoundTrips, m.setup_round_trips.front() * 1e6, *lo * 1e6,
        *hi * 1e6, kSetupRoundTrips, ps.steady * 1e6);
    if (!ps.found) {
        std::printf(
            "  no round trip from the 2nd exceeds steady by more than max(%.0f x steady, %.0f "
            "us): no lazy set-up seen, no <peer-setup> written\n",
            kSetupSpikeFactor, kSetupSpikeFloor * 1e6);
    } else {
        std::printf(
            "  spike at round trip %d: %.3f us over steady (round trips %d..%d: %.3f us over); "
            "<peer-setup after=\"%d\" time=\"%.3fus\"/>%s\n",
            ps.after, ps.excess * 1e6, ps.after, std::min(ps.after + 3, kSetupRoundTrips),
            ps.spread * 1e6, ps.after, ps.time * 1e6,
            m.setup_class == cost_class
                ? ""
                : " (not written: not the class the per-message costs come from)");
    }
    std::fflush(stdout);
}

void print_first_uses(const Measured& m) {
    const FirstUse& f = m.first_use;
    if (!f.measured) return;
    std::printf(
        "\nfirst uses (rank 0, once per run, before any other MPI-IO call):\n"
        "  MPI_Cart_create: first %.3f us, second %.3f us: <collectives first-topology> %.3f us\n"
        "  MPI_File_open on MPI_COMM_WORLD of a new file: first %.3f us, second %.3f us: "
        "<file-system first-open> %.3f us\n",
        f.cart_first * 1e6, f.cart_second * 1e6, f.topology() * 1e6, f.open_first * 1e6,
        f.open_second * 1e6, f.open() * 1e6);
    std::fflush(stdout);
}

void print_cold_sends(const Measured& m) {
    if (m.cold.empty()) return;
    std::printf(
        "\ncold fresh sends (%s pair; one-way time of a just-written send buffer, and of one "
        "written after both ranks wrote %llu x their core's %llu KiB cache, alternated; "
        "medians):\n",
        class_name(m.cold_class), static_cast<unsigned long long>(kColdEvictCaches),
        static_cast<unsigned long long>(m.cold_cache_bytes / 1024));
    for (const ColdResult& c : m.cold)
        std::printf("  %8llu B: fresh %9.3f us, cold %9.3f us (+%.3f us)\n",
                    static_cast<unsigned long long>(c.bytes), c.fresh.value * 1e6,
                    c.cold.value * 1e6, (c.cold.value - c.fresh.value) * 1e6);
    std::printf(
        "  eviction %.3f us (p10-p90 %.3f-%.3f us): after = one cache's worth, %.3f us; "
        "<mpi-overhead><cold-send> is written with <fresh-send> when some size costs more "
        "cold\n",
        m.cold_evict.value * 1e6, m.cold_evict.p10 * 1e6, m.cold_evict.p90 * 1e6,
        m.cold_after() * 1e6);
    std::fflush(stdout);
}

void print_fresh_sends(const Measured& m) {
    if (m.fresh.empty()) return;
    std::printf(
        "\nfresh send buffers (%s pair; one-way time of an untouched send buffer and of one the "
        "sender wrote just before, alternated; medians):\n",
        class_name(m.fresh_class));
    for (const FreshResult& f : m.fresh)
        std::printf("  %8llu B: untouched %9.3f us, written %9.3f us (+%.3f us), write %9.3f us\n",
                    static_cast<unsigned long long>(f.bytes), f.untouched.value * 1e6,
                    f.fresh.value * 1e6, (f.fresh.value - f.untouched.value) * 1e6,
                    f.write.value * 1e6);
    std::printf(
        "  write rate (fastest) %.1f MB/s; <mpi-overhead><fresh-send> is written when this is "
        "the per-message costs' pair and some size costs more written\n",
        m.fresh_write_rate() / 1e6);
    std::fflush(stdout);
}

void print_summary(const Measured& m, const Derived& d) {
    std::printf(
        "\ncommunicator creation (rank 0, median of 31 calls): MPI_Comm_dup %.2f us, 8-byte "
        "MPI_Allreduce %.2f us: comm-create %.2f us; MPI_Comm_free %.2f us: comm-free\n",
        m.comm_dup * 1e6, m.agreement * 1e6, m.comm_create_local() * 1e6, m.comm_free * 1e6);
    if (m.barrier_measured)
        std::printf(
            "barrier (rank 0, median of %d runs of %d calls, p10-p90 %.3f-%.3f us): MPI_Barrier "
            "%.3f us per call, less %d round(s) of the smallest MPI_Sendrecv %.3f us: barrier "
            "%.3f us\n",
            kBarrierRuns, kBarrierCalls, m.barrier.p10 * 1e6, m.barrier.p90 * 1e6,
            m.barrier.value * 1e6, m.barrier_rounds(), m.barrier_exchange() * 1e6,
            m.barrier_local() * 1e6);
    for (const std::string& line : coll_curves_report(m)) std::printf("%s\n", line.c_str());
    std::printf(
        "\nlocal work of collectives (rank 0, median of %d runs)\n"
        "      size   copy (memcpy)   reduce (MPI_Reduce_local, doubles, SUM)\n",
        kLocalRuns);
    for (std::size_t i = 0; i < m.local.copy.size(); ++i)
        std::printf("  %8s   %13s   %s\n", size_text(m.local.copy[i].first).c_str(),
                    mbps_text(m.local.copy[i].second).c_str(),
                    mbps_text(m.local.reduce[i].second).c_str());
    std::printf(
        "\ncpu speed (xorshift64 kernel: %d instructions per step, %.1f M instructions "
        "per run)\n",
        kInstructionsPerStep, static_cast<double>(m.cpu_instructions) / 1e6);
    std::printf("  rank   cpu  speed (median pass)    slowest run\n");
    for (std::size_t r = 0; r < m.cpu.size(); ++r) {
        if (m.cpu[r].samples == 0) {
            std::printf("  %4zu  %4d  - (a rank per cpu of its host ran the kernel)\n", r,
                        m.ranks[r].cpu);
            continue;
        }
        std::printf(
            "  %4zu  %4d  %s %s\n", r, m.ranks[r].cpu,
            pad(strf("%.1f M instr/s", m.speed(r) / 1e6), 22).c_str(),
            strf("%.1f M instr/s", static_cast<double>(m.cpu_instructions) / m.cpu[r].max / 1e6)
                .c_str());
    }
    std::printf(
        "  model speed %s instructions/s per core; traces recorded here: --traced-speed "
        "%s\n",
        topo::model_speed(model_speed_of(d.speed)).c_str(), strf("%.3fG", d.speed / 1e9).c_str());

    std::printf("\nmodel figures\n");
    for (int c = 0; c < kClasses; ++c) {
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) {
            std::printf("  %-14s absent\n", class_name(c));
            continue;
        }
        std::printf(
            "  %-14s latency %s, bandwidth %s (%s; %s %s);\n"
            "  %-14s ping-pong %s at %s, sendrecv aggregate %s\n",
            class_name(c), us_text(f.latency).c_str(), gbps_text(f.bandwidth).c_str(),
            d.fit ? "the fit" : "from the largest size",
            d.fit ? "the largest size gives" : "the fit gives",
            gbps_text(d.fit ? f.largest : f.fit).c_str(), "", gbps_text(f.raw).c_str(),
            size_text(f.at).c_str(), gbps_text(f.aggregate).c_str());
    }
    std::printf("  eager threshold %llu B (%s)\n", static_cast<unsigned long long>(d.eager),
                d.eager_source.c_str());

    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        std::vector<std::uint64_t> skipped;
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, &skipped);
        std::printf(
            "\n<point-to-point scope=\"%s\"> from %s: transfer bandwidth s / (one-way - k L),\n"
            "  L = %s, k = 1 up to the eager threshold (%llu B), else 3; sendrecv / one-way:\n"
            "  time per MPI_Sendrecv over the ping-pong's one-way time (1: both directions cost\n"
            "  what one message does)\n",
            scope, class_name(c), us_text(r.latency.value).c_str(),
            static_cast<unsigned long long>(d.eager));
        std::printf("  %s %s %s %s %s\n", pad("size", 8).c_str(), pad("one-way", 12).c_str(),
                    pad("transfer bw", 14).c_str(), pad("two-way bw", 14).c_str(),
                    "sendrecv / one-way");
        for (const CurvePoint& p : curve)
            std::printf("  %s %s %s %s %.2f\n", pad(size_text(p.bytes), 8).c_str(),
                        pad(time_text(p.one_way), 12).c_str(),
                        pad(mbps_text(p.bandwidth), 14).c_str(),
                        pad(p.two_way > 0 ? mbps_text(p.two_way) : "-", 14).c_str(),
                        p.sendrecv / p.one_way);
        if (!skipped.empty()) {
            std::printf("  left out (one-way - k L at most 2 %% of one-way):");
            for (const std::uint64_t b : skipped) std::printf(" %s", size_text(b).c_str());
            std::printf("\n");
        }
        print_concurrent(scope, curve);
    }

    const IoMeasured& io = m.io;
    if (d.io) {
        std::printf("\nI/O\n");
        for (const std::string& line : io_report(m, d)) std::printf("  %s\n", line.c_str());
    } else if (io.measured) {
        std::printf("\nI/O: not measured: %s\n", io.error.c_str());
    }
    for (const std::string& n : d.notes) std::printf("  note: %s\n", n.c_str());
    std::fflush(stdout);
}

void print_overheads(const Measured& m) {
    if (m.overhead_class < 0 || m.overhead_class >= kClasses) return;
    const Pair& p = m.classes[static_cast<std::size_t>(m.overhead_class)].pair;
    std::printf(
        "\nper-message costs (%s, ranks %d and %d; median over %d passes of each "
        "pass's median of %d bursts of %d; p10-p90 of all bursts):\n",
        class_name(m.overhead_class), p.a, p.b, m.passes, m.overhead_bursts, kBurst);
    for (const OverheadResult& o : m.overheads)
        std::printf("  %6s: o_s %s (%s-%s), post %s (%s-%s), o_r %s (%s-%s)\n",
                    size_text(o.bytes).c_str(), time_text(o.send.value).c_str(),
                    time_text(o.send.p10).c_str(), time_text(o.send.p90).c_str(),
                    time_text(o.post.value).c_str(), time_text(o.post.p10).c_str(),
                    time_text(o.post.p90).c_str(), time_text(o.recv.value).c_str(),
                    time_text(o.recv.p10).c_str(), time_text(o.recv.p90).c_str());
}

}  // namespace clustersim::calibrate
