// Trace replay throughput: a synthetic trace of RANKS ranks x EVENTS records each (a ring
// halo exchange: compute, isend right, irecv left, waitall, and an allreduce every 50
// iterations) is written as a native binary trace, read back, and replayed through the full
// simulator on a star of RANKS single-core nodes. Reports trace events per second of replay
// (read + simulate), engine events, wall times and peak memory. FORMAT otf2 writes and reads
// the trace as an OTF2 archive (traces/otf2_writer.cpp, the otf2 reader) instead.
//
//   bench_replay [RANKS=1024] [EVENTS=10000] [packet|analytical|fluid|simple|...] [MESSAGE=1KiB]
//                [native|otf2]
// (packet: hop-by-hop packets; analytical: the analytical NIC, one event per packet; fluid:
// max-min flows; any other --network value, e.g. simple or bus_only:buses=4: that model)
#include <chrono>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "bench/bench_args.hpp"
#include "run/execute.hpp"
#include "run/model.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "traces/otf2.hpp"
#include "traces/trace.hpp"
#include "traces/trace_source.hpp"

using namespace clustersim;

namespace {

int bench_main(int argc, char** argv) {
    const auto n = static_cast<std::uint32_t>(
        bench::count_arg(argc, argv, 1, "RANKS", 1024, 1, bench::kMaxRanks));
    const std::uint64_t events =
        bench::count_arg(argc, argv, 2, "EVENTS", 10000, 1, std::uint64_t{1} << 32);
    const std::string network = argc > 3 ? argv[3] : "packet";
    const std::uint64_t message = parse_size(argc > 4 ? argv[4] : "1KiB");
    const std::string format = argc > 5 ? argv[5] : "native";
    if (format != "native" && format != "otf2") {
        fmt::print(stderr, "bench_replay: FORMAT must be native or otf2, got '{}'\n", format);
        return 2;
    }

    // The synthetic trace.
    const auto t0 = std::chrono::steady_clock::now();
    traces::Trace trace;
    trace.name = "synthetic-ring";
    trace.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) {
        std::uint64_t k = 0;
        for (std::uint64_t it = 0; k < events; ++it) {
            traces::Record c;
            c.kind = mpi::OpKind::Compute;
            c.compute_time = Time::us(10);
            trace.append(r, c), ++k;
            if (k + 3 > events) break;
            traces::Record s;
            s.kind = mpi::OpKind::Isend;
            s.peer = static_cast<std::int32_t>((r + 1) % n);
            s.bytes = message;
            s.handle = 0;
            trace.append(r, s), ++k;
            traces::Record v;
            v.kind = mpi::OpKind::Irecv;
            v.peer = static_cast<std::int32_t>((r + n - 1) % n);
            v.bytes = message;
            v.handle = 1;
            trace.append(r, v), ++k;
            traces::Record w;
            w.kind = mpi::OpKind::Waitall;
            w.handle = 0;
            w.count = 2;
            trace.append(r, w), ++k;
            if (it % 50 == 49 && k < events) {
                traces::Record a;
                a.kind = mpi::OpKind::Collective;
                a.coll = mpi::CollOp::Allreduce;
                a.bytes = 8;
                trace.append(r, a), ++k;
            }
        }
    }
    const std::filesystem::path tmp = std::filesystem::temp_directory_path();
    const std::string path = (tmp / (format == "otf2" ? "clustersim_bench_replay.otf2"
                                                      : "clustersim_bench_replay.cstrace"))
                                 .string();
    if (format == "otf2")
        traces::write_otf2(trace, path);
    else
        traces::write_binary(trace, path);
    const auto t1 = std::chrono::steady_clock::now();
    std::uint64_t disk = std::filesystem::file_size(path);
    if (format == "otf2") {
        disk += std::filesystem::file_size(tmp / "clustersim_bench_replay.def");
        for (const auto& e : std::filesystem::directory_iterator(tmp / "clustersim_bench_replay"))
            disk += e.file_size();
    }

    // Read it back and replay it, as `clustersim run --app trace:PATH` does (run::execute).
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = n;
    if (network == "analytical") o.nic = topo::NicModel::Analytical;
    o.granularity = 100 * 1024;  // as its figures were measured (store-and-forward, 100 KiB)
    o.forwarding = topo::kStoreAndForward;
    run::RunSpec spec;
    spec.model_path = "bench-replay.xml";
    spec.model = run::parse_model(topo::generate_model_xml(o), spec.model_path);
    spec.network = network == "analytical" ? "packet" : network;
    spec.apps = {"trace:" + path};
    spec.source.format = format == "otf2" ? "otf2" : "native_binary";
    run::Sources sources;
    traces::add_trace_sources(sources);
    // The simulation's CPU time counts from the hook, once the trace is read and placed: the
    // program made from it (a large trace is copied onto huge pages there, traces/replay.hpp,
    // which is part of what a replay costs), what simulate() builds and frees around its event
    // loop, and the loop.
    double cpu0 = 0;
    run::RunHooks hooks;
    hooks.placed = [&cpu0](const run::RunSetup&, const run::Model&) {
        cpu0 = process_cpu_seconds();
    };
    const run::RunOutcome outcome = run::execute(std::move(spec), sources, hooks);
    const double sim_cpu = process_cpu_seconds() - cpu0;
    const mpi::SimulationResult& res = outcome.result;
    const auto t3 = std::chrono::steady_clock::now();
    const double read_s = outcome.programs_load_s;
    const double replay_s = read_s + res.wall_seconds;
    const std::uint64_t total = trace.total_events();

    fmt::print(
        "replay of a synthetic ring trace: {} ranks x {} records, {} messages, {} network, {} "
        "format\n",
        n, events, format_size(message), network, format);
    fmt::print("  trace            {} records, {} on disk (generated and written in {:.3f} s)\n",
               total, format_size(disk), std::chrono::duration<double>(t1 - t0).count());
    fmt::print("  read             {:.3f} s ({:.2f} M records/s)\n", read_s,
               static_cast<double>(total) / read_s / 1e6);
    fmt::print("  simulate         {:.3f} s  ({} engine events, {:.1f} M events/s)\n",
               res.wall_seconds, res.events,
               static_cast<double>(res.events) / res.wall_seconds / 1e6);
    fmt::print(
        "  replay           {:.2f} M trace events/s (read + simulate), {:.2f} M (simulate)\n",
        static_cast<double>(total) / replay_s / 1e6,
        static_cast<double>(total) / res.wall_seconds / 1e6);
    fmt::print(
        "  simulate CPU     {:.3f} s ({:.2f} M trace events/s on CPU time: the process's own "
        "time, not what it waited for a CPU on a shared machine)\n",
        sim_cpu, static_cast<double>(total) / sim_cpu / 1e6);
    // The event loop alone on CPU time: the trace events the loop replays per second of the
    // process's CPU time during it. The `simulate CPU` line above also counts what the run
    // builds and frees around the loop (the network, the runtime, the trace's copy onto huge
    // pages, about 0.1 s here).
    fmt::print(
        "  loop CPU         {:.3f} s ({:.2f} M trace events/s on the event loop's CPU time)\n",
        res.cpu_seconds, static_cast<double>(total) / res.cpu_seconds / 1e6);
    fmt::print("  simulated time   {} ({} ps)\n", format_time(res.simulated), res.simulated.ps());
    fmt::print("  total wall       {:.3f} s, peak memory {}\n",
               std::chrono::duration<double>(t3 - t0).count(), format_size(peak_memory_bytes()));
    std::filesystem::remove(path);
    if (format == "otf2") {
        std::filesystem::remove(tmp / "clustersim_bench_replay.def");
        std::filesystem::remove_all(tmp / "clustersim_bench_replay");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return bench::guarded_main("bench_replay", [&] { return bench_main(argc, argv); });
}
