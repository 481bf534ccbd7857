// clustersim-gargde: the Garg–De Parallel Benchmark (Garg & De, "Impact of noise on scaling
// of collectives: an empirical evaluation", Algorithm 1). It measures, per process, the
// distribution of w + δ (the time of a fixed quantum of work plus the OS noise it met), of
// the barrier time b and of the iteration time θ, as fixed-width histograms, for
// `clustersim jitter --model max_of_distributions`. MPI's C API and the standard library only.
//
// Every iteration (Algorithm 1):
//
//   busy-wait a random time, uniform in [0, --max-wait]   (decorrelates periodic daemons)
//   MPI_Barrier
//   t_s; do_work(W); t_f                                  (W: a fixed count of LCG steps)
//   MPI_Barrier
//   t_e; store w + δ = t_f - t_s, b = t_e - t_f, θ = t_e - t_s in the histograms
//   MPI_Bcast of rank 0's elapsed time (one double)       (all ranks stop together)
//
// do_work is the paper's linear congruential generator x <- (a x + c) mod p (a = 16807,
// c = 12345, p = 2^31 - 1). W is --work-iterations, or --work (a time) turned into steps at
// the fastest rank's calibrated rate (each rank times do_work, the rates go through one
// MPI_Allreduce MAX), so that every rank does the same work. Times come from
// std::chrono::steady_clock in whole nanoseconds (no MPI_Wtime in the loop).
//
// The loop ends after --iterations, or when rank 0's elapsed time reaches --duration (the
// paper's `period`), whichever comes first. --no-bcast leaves line 10's broadcast out (the
// paper's Figure 4 variant; only with a fixed iteration count).
//
// Histograms: bin k holds the values in [k × width, (k + 1) × width), width = --bin-width;
// only non-empty bins are kept and written. Rank 0 gathers them (MPI_Gather of the counts,
// MPI_Gatherv of (bin, count) pairs as doubles, MPI_Gather of the host names from
// MPI_Get_processor_name) and writes three files in the histogram format of
// traces/distributions.hpp, `process,node,lower,upper,count`, values in seconds written
// exactly, with `#` comment lines: --out (w + δ, the file `clustersim jitter` reads),
// --barrier-out and --iteration-out (the same format, so any of them can be read back).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tools/mpi/program_common.hpp"

namespace {

using namespace clustersim::mpiprog;

constexpr const char* kProgram = "clustersim-gargde";

struct Options {
    std::uint64_t work_ns = 300'000;    // --work
    std::uint64_t work_iterations = 0;  // --work-iterations (0: calibrate from work_ns)
    std::uint64_t iterations = 2000;
    std::uint64_t duration_ns = 0;  // 0: no time limit
    std::uint64_t max_wait_ns = 100'000;
    std::uint64_t bin_ns = 1000;
    std::uint64_t seed = 1;
    bool bcast = true;
    std::string out = "gargde-work.csv", barrier_out, iteration_out;
};

// "x.csv" -> "x"; "x-work.csv" -> "x"; then + "-barrier.csv" etc.
std::string derived_name(const std::string& out, const std::string& what) {
    std::string base = out;
    if (base.size() > 4 && base.compare(base.size() - 4, 4, ".csv") == 0)
        base.resize(base.size() - 4);
    if (base.size() > 5 && base.compare(base.size() - 5, 5, "-work") == 0)
        base.resize(base.size() - 5);
    return base + "-" + what + ".csv";
}

Options parse_options(int argc, char** argv, bool& help, std::string& usage) {
    const Flags flags(
        {{"--work", "TIME",
          "work quantum w as a time, calibrated to LCG steps on the fastest rank (default 300us)"},
         {"--work-iterations", "N", "work quantum as a count of LCG steps (instead of --work)"},
         {"--iterations", "N",
          "loop iterations (default 2000; unlimited when only --duration is given)"},
         {"--duration", "TIME",
          "stop when rank 0's elapsed time reaches TIME (the paper's period)"},
         {"--max-wait", "TIME",
          "random busy-wait before each iteration, uniform in [0, TIME] "
          "(default 100us; 0s for none)"},
         {"--bin-width", "TIME", "histogram bin width, a whole number of ns (default 1us)"},
         {"--seed", "N", "seed of the random waits; rank r uses (N, r) (default 1)"},
         {"--no-bcast", "", "leave out the MPI_Bcast of the elapsed time (Algorithm 1, line 10)"},
         {"--out", "FILE", "w + δ histograms (default gargde-work.csv)"},
         {"--barrier-out", "FILE", "barrier-time histograms (default: --out with -barrier.csv)"},
         {"--iteration-out", "FILE",
          "iteration-time histograms (default: --out with -iteration.csv)"}},
        argc, argv);
    help = flags.help();
    usage = flags.usage(kProgram,
                        "Garg–De parallel benchmark: per-process histograms of w + δ (work + "
                        "noise), barrier time and iteration time.");
    Options o;
    if (flags.has("--work") && flags.has("--work-iterations"))
        throw UsageError("--work-iterations: cannot be combined with --work, expected one of them");
    if (flags.has("--work")) {
        o.work_ns = parse_time_ns("--work", flags.get("--work", ""));
        if (o.work_ns == 0)
            throw UsageError("--work: '" + flags.get("--work", "") + "': expected a time above 0");
    }
    if (flags.has("--work-iterations"))
        o.work_iterations = parse_count("--work-iterations", flags.get("--work-iterations", ""), 1,
                                        std::uint64_t{1} << 50);
    if (flags.has("--duration")) {
        o.duration_ns = parse_time_ns("--duration", flags.get("--duration", ""));
        if (o.duration_ns == 0)
            throw UsageError("--duration: '" + flags.get("--duration", "") +
                             "': expected a time above 0");
        o.iterations = 0;  // unlimited unless given
    }
    if (flags.has("--iterations"))
        o.iterations =
            parse_count("--iterations", flags.get("--iterations", ""), 1, std::uint64_t{1} << 40);
    if (flags.has("--max-wait"))
        o.max_wait_ns = parse_time_ns("--max-wait", flags.get("--max-wait", ""));
    if (flags.has("--bin-width")) {
        o.bin_ns = parse_time_ns("--bin-width", flags.get("--bin-width", ""));
        if (o.bin_ns == 0)
            throw UsageError("--bin-width: '" + flags.get("--bin-width", "") +
                             "': expected a time of at least 1ns");
    }
    if (flags.has("--seed"))
        o.seed = parse_count("--seed", flags.get("--seed", ""), 0, ~std::uint64_t{0} >> 1);
    o.bcast = !flags.has("--no-bcast");
    if (!o.bcast && o.duration_ns != 0)
        throw UsageError(
            "--no-bcast: cannot be combined with --duration (the broadcast ends the loop), "
            "expected --iterations instead");
    for (const char* f : {"--out", "--barrier-out", "--iteration-out"})
        if (flags.has(f) && flags.get(f, "").empty())
            throw UsageError(std::string(f) + ": empty path, expected a file name");
    o.out = flags.get("--out", o.out);
    o.barrier_out = flags.get("--barrier-out", derived_name(o.out, "barrier"));
    o.iteration_out = flags.get("--iteration-out", derived_name(o.out, "iteration"));
    const std::set<std::string> distinct{o.out, o.barrier_out, o.iteration_out};
    if (distinct.size() != 3)
        throw UsageError("--out: '" + o.out +
                         "' names the same file as --barrier-out or --iteration-out, expected "
                         "three different files");
    return o;
}

// ---------------------------------------------------------------------------------------
// The work quantum and the clock.

std::uint64_t lcg_state = 1;

void do_work(std::uint64_t steps) {
    std::uint64_t x = lcg_state;
    for (std::uint64_t i = 0; i < steps; ++i) x = (16807 * x + 12345) % 2147483647;
    lcg_state = x;  // a global the compiler must keep: the loop cannot be dropped
}

std::uint64_t now_ns() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
}

void busy_wait(std::uint64_t ns) {
    const std::uint64_t until = now_ns() + ns;
    while (now_ns() < until) {
    }
}

// LCG steps per second on this rank: the best of several timed runs of >= 2 ms.
double calibrate() {
    std::uint64_t steps = 1000;
    std::uint64_t t = 0;
    while (true) {
        const std::uint64_t t0 = now_ns();
        do_work(steps);
        t = now_ns() - t0;
        if (t >= 2'000'000) break;
        steps *= 2;
    }
    std::uint64_t best = t;
    for (int k = 0; k < 7; ++k) {
        const std::uint64_t t0 = now_ns();
        do_work(steps);
        best = std::min(best, now_ns() - t0);
    }
    return static_cast<double>(steps) /
           (static_cast<double>(std::max<std::uint64_t>(best, 1)) * 1e-9);
}

// ---------------------------------------------------------------------------------------
// Histograms and statistics.

struct Histogram {
    std::map<std::uint64_t, std::uint64_t> bins;  // bin index -> count
    std::uint64_t count = 0;
    double sum_ns = 0;
    std::uint64_t min_ns = ~std::uint64_t{0}, max_ns = 0;

    void add(std::uint64_t ns, std::uint64_t width) {
        ++bins[ns / width];
        ++count;
        sum_ns += static_cast<double>(ns);
        min_ns = std::min(min_ns, ns);
        max_ns = std::max(max_ns, ns);
    }
    void merge(const Histogram& h) {
        for (const auto& [k, c] : h.bins) bins[k] += c;
        count += h.count;
        sum_ns += h.sum_ns;
        min_ns = std::min(min_ns, h.min_ns);
        max_ns = std::max(max_ns, h.max_ns);
    }
    // Upper edge of the bin where the cumulative count reaches q (0 < q <= 1), in seconds.
    double quantile_s(double q, std::uint64_t width) const {
        const double target = q * static_cast<double>(count);
        double cum = 0;
        for (const auto& [k, c] : bins) {
            cum += static_cast<double>(c);
            if (cum >= target) return static_cast<double>((k + 1) * width) * 1e-9;
        }
        return 0;
    }
    double mean_s() const { return count == 0 ? 0 : sum_ns / static_cast<double>(count) * 1e-9; }
};

// Exact decimal seconds of a whole number of nanoseconds: 301000 -> "0.000301".
std::string seconds_text(std::uint64_t ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu.%09llu",
                  static_cast<unsigned long long>(ns / 1'000'000'000),
                  static_cast<unsigned long long>(ns % 1'000'000'000));
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

// A host name that fits a CSV field: anything but letters, digits, '.', '-', '_' becomes '_'.
std::string node_name() {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    std::string s(name, static_cast<std::size_t>(std::max(len, 0)));
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
            c = '_';
    return s.empty() ? "unknown" : s;
}

// Collective: every rank's histogram arrives at rank 0 (index = rank).
std::vector<Histogram> gather(const Histogram& h, int rank, int ranks) {
    std::vector<double> mine;
    mine.reserve(2 * h.bins.size() + 4);
    mine.push_back(h.sum_ns);
    mine.push_back(static_cast<double>(h.min_ns == ~std::uint64_t{0} ? 0 : h.min_ns));
    mine.push_back(static_cast<double>(h.max_ns));
    mine.push_back(static_cast<double>(h.count));
    for (const auto& [k, c] : h.bins) {
        mine.push_back(static_cast<double>(k));
        mine.push_back(static_cast<double>(c));
    }
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displs(counts.size());
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        displs[r] = static_cast<int>(total);
        total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Gatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    std::vector<Histogram> out(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r) {
        const double* d = all.data() + displs[r];
        Histogram& o = out[r];
        o.sum_ns = d[0];
        o.min_ns = static_cast<std::uint64_t>(d[1]);
        o.max_ns = static_cast<std::uint64_t>(d[2]);
        o.count = static_cast<std::uint64_t>(d[3]);
        for (int i = 4; i + 1 < counts[r]; i += 2)
            o.bins[static_cast<std::uint64_t>(d[i])] = static_cast<std::uint64_t>(d[i + 1]);
    }
    return out;
}

void write_histograms(std::FILE* f, const char* what, const std::string& header,
                      const std::vector<Histogram>& hs, const std::vector<std::string>& nodes,
                      std::uint64_t width) {
    std::fprintf(f, "# %s: Garg-De parallel benchmark (Algorithm 1), %s\n", kProgram, what);
    std::fprintf(f, "%s", header.c_str());
    std::fprintf(f, "# bins [lower, upper) in seconds; empty bins are left out\n");
    std::fprintf(f, "process,node,lower,upper,count\n");
    for (std::size_t r = 0; r < hs.size(); ++r)
        for (const auto& [k, c] : hs[r].bins)
            std::fprintf(f, "%zu,%s,%s,%s,%llu\n", r, nodes[r].c_str(),
                         seconds_text(k * width).c_str(), seconds_text((k + 1) * width).c_str(),
                         static_cast<unsigned long long>(c));
}

std::string stats_row(const std::string& name, const Histogram& h, std::uint64_t width) {
    return pad(name, 20) + lpad(format_seconds(static_cast<double>(h.min_ns) * 1e-9), 12) +
           lpad(format_seconds(h.mean_s()), 12) +
           lpad(format_seconds(h.quantile_s(0.5, width)), 12) +
           lpad(format_seconds(h.quantile_s(0.99, width)), 12) +
           lpad(format_seconds(static_cast<double>(h.max_ns) * 1e-9), 12);
}

int gargde_main(int rank, int argc, char** argv) {
    bool help = false;
    std::string usage;
    const Options o = parse_options(argc, argv, help, usage);
    if (help) {
        if (rank == 0) std::fputs(usage.c_str(), stdout);
        return 0;
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    // Rank 0 creates the output files first, so that a bad path fails before the run.
    std::FILE* files[3] = {nullptr, nullptr, nullptr};
    {
        const std::string* paths[3] = {&o.out, &o.barrier_out, &o.iteration_out};
        const char* flags[3] = {"--out", "--barrier-out", "--iteration-out"};
        int bad = -1;
        std::string why;
        if (rank == 0)
            for (int i = 0; i < 3 && bad < 0; ++i) {
                files[i] = std::fopen(paths[i]->c_str(), "w");
                if (files[i] == nullptr) {
                    bad = i;
                    why = std::strerror(errno);
                }
            }
        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad >= 0) {
            for (auto* f : files)
                if (f != nullptr) std::fclose(f);
            throw UsageError(std::string(flags[bad]) + ": cannot write '" + *paths[bad] + "'" +
                             (why.empty() ? "" : " (" + why + ")") + ", expected a writable file");
        }
    }

    // The work quantum: the same number of LCG steps on every rank.
    double rate = 0;
    std::uint64_t steps = o.work_iterations;
    if (steps == 0) {
        const double mine = calibrate();
        MPI_Allreduce(&mine, &rate, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        steps = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(static_cast<double>(o.work_ns) * 1e-9 * rate + 0.5));
    }

    std::seed_seq seeds{static_cast<std::uint32_t>(o.seed),
                        static_cast<std::uint32_t>(o.seed >> 32), static_cast<std::uint32_t>(rank)};
    std::mt19937_64 rng(seeds);
    std::uniform_int_distribution<std::uint64_t> wait(0, o.max_wait_ns);
    Histogram work, barrier, iteration;
    const std::uint64_t start = now_ns();
    std::uint64_t done = 0;
    while (true) {
        if (o.max_wait_ns > 0) busy_wait(wait(rng));
        MPI_Barrier(MPI_COMM_WORLD);
        const std::uint64_t ts = now_ns();
        do_work(steps);
        const std::uint64_t tf = now_ns();
        MPI_Barrier(MPI_COMM_WORLD);
        const std::uint64_t te = now_ns();
        work.add(tf - ts, o.bin_ns);
        barrier.add(te - tf, o.bin_ns);
        iteration.add(te - ts, o.bin_ns);
        ++done;
        double elapsed_s = static_cast<double>(now_ns() - start) * 1e-9;
        if (o.bcast) MPI_Bcast(&elapsed_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (o.iterations != 0 && done >= o.iterations) break;
        if (o.duration_ns != 0 && elapsed_s >= static_cast<double>(o.duration_ns) * 1e-9) break;
    }
    const double wall_s = static_cast<double>(now_ns() - start) * 1e-9;

    // Host names, then the three histograms, to rank 0.
    std::vector<std::string> nodes;
    {
        std::string name = node_name();
        name.resize(MPI_MAX_PROCESSOR_NAME, '\0');
        std::vector<char> all(rank == 0 ? static_cast<std::size_t>(ranks) * MPI_MAX_PROCESSOR_NAME
                                        : 0);
        MPI_Gather(name.data(), MPI_MAX_PROCESSOR_NAME, MPI_BYTE, all.data(),
                   MPI_MAX_PROCESSOR_NAME, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (int r = 0; rank == 0 && r < ranks; ++r)
            nodes.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    }
    const auto works = gather(work, rank, ranks);
    const auto barriers = gather(barrier, rank, ranks);
    const auto iterations = gather(iteration, rank, ranks);
    if (rank != 0) return 0;

    const std::set<std::string> distinct_nodes(nodes.begin(), nodes.end());
    char header[512];
    std::snprintf(header, sizeof header,
                  "# work quantum %llu LCG steps%s, %llu iterations, %d ranks on %zu node(s), bin "
                  "width %s, random wait up to %s, seed %llu%s\n",
                  static_cast<unsigned long long>(steps),
                  rate > 0 ? (" (calibrated to " +
                              format_seconds(static_cast<double>(o.work_ns) * 1e-9) + ")")
                                 .c_str()
                           : "",
                  static_cast<unsigned long long>(done), ranks, distinct_nodes.size(),
                  format_seconds(static_cast<double>(o.bin_ns) * 1e-9).c_str(),
                  format_seconds(static_cast<double>(o.max_wait_ns) * 1e-9).c_str(),
                  static_cast<unsigned long long>(o.seed), o.bcast ? "" : ", no broadcast");
    write_histograms(files[0], "w + delta = t_f - t_s (the work quantum plus the noise it met)",
                     header, works, nodes, o.bin_ns);
    write_histograms(files[1], "barrier time b = t_e - t_f", header, barriers, nodes, o.bin_ns);
    write_histograms(files[2], "iteration time theta = t_e - t_s", header, iterations, nodes,
                     o.bin_ns);
    bool write_ok = true;
    for (auto* f : files) write_ok = std::ferror(f) == 0 && write_ok;
    for (auto* f : files) write_ok = std::fclose(f) == 0 && write_ok;

    Histogram all_work, all_barrier, all_iteration;
    for (int r = 0; r < ranks; ++r) {
        all_work.merge(works[static_cast<std::size_t>(r)]);
        all_barrier.merge(barriers[static_cast<std::size_t>(r)]);
        all_iteration.merge(iterations[static_cast<std::size_t>(r)]);
    }
    std::printf("%s: %d ranks on %zu node%s, %llu iterations in %s\n", kProgram, ranks,
                distinct_nodes.size(), distinct_nodes.size() == 1 ? "" : "s",
                static_cast<unsigned long long>(done), format_seconds(wall_s).c_str());
    if (rate > 0)
        std::printf("work quantum %llu LCG steps = %s at the fastest rank's %s steps/s\n",
                    static_cast<unsigned long long>(steps),
                    format_seconds(static_cast<double>(steps) / rate).c_str(),
                    trim_number(rate).c_str());
    else
        std::printf("work quantum %llu LCG steps\n", static_cast<unsigned long long>(steps));
    std::printf("%s, bin width %s, seed %llu%s\n\n",
                o.max_wait_ns == 0 ? "no random wait"
                                   : ("random wait up to " +
                                      format_seconds(static_cast<double>(o.max_wait_ns) * 1e-9))
                                         .c_str(),
                format_seconds(static_cast<double>(o.bin_ns) * 1e-9).c_str(),
                static_cast<unsigned long long>(o.seed), o.bcast ? "" : ", no broadcast");
    std::printf("all processes       %s%s%s%s%s\n", lpad("min", 12).c_str(),
                lpad("mean", 12).c_str(), lpad("p50", 12).c_str(), lpad("p99", 12).c_str(),
                lpad("max", 12).c_str());
    std::printf("%s\n", stats_row("w + δ (t_f - t_s)", all_work, o.bin_ns).c_str());
    std::printf("%s\n", stats_row("barrier (t_e - t_f)", all_barrier, o.bin_ns).c_str());
    std::printf("%s\n", stats_row("iteration (t_e-t_s)", all_iteration, o.bin_ns).c_str());
    std::printf("(p50 and p99 are the upper edges of their bins)\n");
    if (ranks <= 16) {
        std::printf("\n%s%s%s%s%s\n", pad("process  node", 30).c_str(),
                    lpad("w+δ mean", 13).c_str(), lpad("w+δ p99", 12).c_str(),
                    lpad("barrier mean", 14).c_str(), lpad("θ mean", 13).c_str());
        for (int r = 0; r < ranks; ++r) {
            const auto i = static_cast<std::size_t>(r);
            std::string who = lpad(std::to_string(r), 7) + "  " + nodes[i];
            std::printf("%s%s%s%s%s\n", pad(who, 30).c_str(),
                        lpad(format_seconds(works[i].mean_s()), 12).c_str(),
                        lpad(format_seconds(works[i].quantile_s(0.99, o.bin_ns)), 12).c_str(),
                        lpad(format_seconds(barriers[i].mean_s()), 14).c_str(),
                        lpad(format_seconds(iterations[i].mean_s()), 12).c_str());
        }
    }
    std::printf("\nwrote %s (w + δ), %s (barrier), %s (iteration)\n", o.out.c_str(),
                o.barrier_out.c_str(), o.iteration_out.c_str());
    if (!write_ok) {
        std::fprintf(stderr, "%s: error: --out: writing the histogram files failed\n", kProgram);
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return run_program(kProgram, argc, argv,
                       [&](int rank) { return gargde_main(rank, argc, argv); });
}
