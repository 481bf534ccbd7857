// clustersim-bench: the communication benchmark set of PIOsimHD's validation (Kunkel,
// "Simulating parallel programs on application and system level", section 5.3): the
// collectives Barrier, Reduce, Allreduce, Bcast, Gather, Scatter, Allgather, Alltoall and the
// point-to-point patterns Ring, Paired, SendToRoot and SendrecvRoot, for payloads from 10 KiB
// to 100 MiB. It runs on a real machine (MPI's C API only) and under the PMPI tracer, whose
// traces `clustersim` replays.
//
// Payload P (one value of --sizes) is the data of ONE rank's whole buffer, with N ranks and
// the block b = floor(P / N):
//
//   barrier      no payload: one phase (payload 0 B), whatever --sizes says
//   bcast        rank 0 broadcasts P bytes (MPI_BYTE); every rank's buffer is P
//   reduce       every rank contributes floor(P / 8) doubles (MPI_DOUBLE, MPI_SUM) to rank 0
//   allreduce    as reduce, the sum arriving at every rank
//   gather       every rank sends b bytes; rank 0 receives N * b (about P)
//   scatter      rank 0 sends N blocks of b bytes (about P in all); every rank receives b
//   allgather    every rank contributes b bytes; every rank receives N * b (about P)
//   alltoall     every rank sends b bytes to every rank (itself included): about P out and
//                P in per rank
//   ring         every rank sends P bytes to rank + 1 and receives P bytes from rank - 1
//                (mod N): MPI_Irecv + MPI_Isend + MPI_Waitall
//   paired       rank 2k exchanges P bytes with rank 2k + 1 by MPI_Sendrecv (with N odd the
//                last rank idles)
//   sendtoroot   every rank but 0 sends P bytes to rank 0 (MPI_Send); rank 0 receives them
//                in rank order (MPI_Recv from 1, 2, ..., N - 1)
//   sendrecvroot every rank but 0 exchanges P bytes with rank 0 by MPI_Sendrecv; rank 0
//                calls MPI_Sendrecv with 1, 2, ..., N - 1 in rank order
//
// So a payload means the same volume per rank for every operation, and no rank ever holds
// more than 2 P of buffers (alltoall with P = 100 MiB needs 200 MiB per rank at any N). The
// simulator's built-in apps take what one rank passes to the call instead
// (`--app gather:size=…` is the block): this benchmark's gather at payload P on N ranks is
// `gather:size=floor(P/N)B`; bcast, reduce, allreduce and the point-to-point patterns pass P.
//
// A phase is one (benchmark, payload): allocate and fill (touch) the buffers, make the
// --warmup calls, MPI_Barrier, t0 = MPI_Wtime(), the R calls, t1 = MPI_Wtime(), then
// MPI_Reduce(MAX) of t1 - t0 to rank 0 (that reduce, the barrier and the warm-up calls are
// traced too, but lie outside the measured region). Time per call = max over ranks of
// (t1 - t0) / R. One extra MPI_Bcast at start-up tells every rank whether rank 0 could
// create the --csv file.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/mpi/program_common.hpp"

namespace {

using namespace clustersim::mpiprog;

constexpr const char* kProgram = "clustersim-bench";

enum class Bench {
    Barrier,
    Reduce,
    Allreduce,
    Bcast,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    Ring,
    Paired,
    SendToRoot,
    SendrecvRoot
};

struct BenchInfo {
    const char* name;
    Bench kind;
};

constexpr BenchInfo kBenchmarks[] = {{"barrier", Bench::Barrier},
                                     {"reduce", Bench::Reduce},
                                     {"allreduce", Bench::Allreduce},
                                     {"bcast", Bench::Bcast},
                                     {"gather", Bench::Gather},
                                     {"scatter", Bench::Scatter},
                                     {"allgather", Bench::Allgather},
                                     {"alltoall", Bench::Alltoall},
                                     {"ring", Bench::Ring},
                                     {"paired", Bench::Paired},
                                     {"sendtoroot", Bench::SendToRoot},
                                     {"sendrecvroot", Bench::SendrecvRoot}};

std::string benchmark_names() {
    std::string out;
    for (const auto& b : kBenchmarks) out += (out.empty() ? "" : ", ") + std::string(b.name);
    return out;
}

const BenchInfo* find_benchmark(const std::string& name) {
    for (const auto& b : kBenchmarks)
        if (name == b.name) return &b;
    return nullptr;
}

const BenchInfo& parse_benchmark(const std::string& flag, const std::string& name) {
    const BenchInfo* b = find_benchmark(name);
    if (b == nullptr)
        throw UsageError(flag + ": unknown benchmark '" + name +
                         "', expected one of: " + benchmark_names());
    return *b;
}

// The largest payload: MPI counts are ints.
constexpr std::uint64_t kMaxPayload = 0x7fffffff;

std::uint64_t parse_payload(const std::string& flag, const std::string& text) {
    const std::uint64_t p = parse_size(flag, text);
    if (p > kMaxPayload)
        throw UsageError(flag + ": '" + text +
                         "' is larger than one MPI call can pass, expected at most 2147483647B");
    return p;
}

struct Phase {
    const BenchInfo* bench;
    std::uint64_t payload;  // bytes; 0 for barrier
};

struct Options {
    std::vector<Phase> phases;
    int repeats = 4;
    int small_repeats = 32;
    int warmup = 1;
    std::string csv;
    bool list = false;
};

constexpr std::uint64_t kSmallPayload = 1ULL << 20;  // below: --small-repeats

Options parse_options(int argc, char** argv, bool& help, std::string& usage) {
    const Flags flags(
        {{"--benchmarks", "LIST", "comma-separated benchmarks (default all): " + benchmark_names()},
         {"--sizes", "LIST",
          "comma-separated payloads with units (default 10KiB,100KiB,1MiB,10MiB,100MiB)"},
         {"--only", "BENCH:SIZE",
          "run one phase alone (`barrier` takes no size); excludes --benchmarks and --sizes"},
         {"--repeats", "N", "calls per phase for payloads of 1 MiB and more (default 4)"},
         {"--small-repeats", "N",
          "calls per phase for payloads under 1 MiB and for barrier (default 32)"},
         {"--warmup", "N", "untimed calls before each phase's barrier (default 1)"},
         {"--csv", "FILE",
          "also write benchmark,payload_bytes,ranks,repeats,seconds_per_call rows"},
         {"--list", "", "print the phases (as --only arguments), one a line, and exit"}},
        argc, argv);
    help = flags.help();
    usage = flags.usage(kProgram,
                        "PIOsimHD's MPI benchmark set: collectives and point-to-point patterns; "
                        "prints the time per call (max over ranks).");
    Options o;
    if (flags.has("--only") && (flags.has("--benchmarks") || flags.has("--sizes")))
        throw UsageError(std::string("--only: cannot be combined with ") +
                         (flags.has("--benchmarks") ? "--benchmarks" : "--sizes") +
                         ", expected one or the other");
    if (flags.has("--only")) {
        const std::string v = flags.get("--only", "");
        const auto colon = v.find(':');
        const BenchInfo& b = parse_benchmark("--only", v.substr(0, colon));
        if (b.kind == Bench::Barrier) {
            if (colon != std::string::npos)
                throw UsageError("--only: '" + v +
                                 "': barrier takes no payload, expected 'barrier'");
            o.phases.push_back({&b, 0});
        } else {
            if (colon == std::string::npos)
                throw UsageError("--only: '" + v + "': expected BENCH:SIZE (e.g. " +
                                 std::string(b.name) + ":10KiB)");
            o.phases.push_back({&b, parse_payload("--only", v.substr(colon + 1))});
        }
    } else {
        std::vector<const BenchInfo*> benches;
        if (flags.has("--benchmarks")) {
            for (const auto& name : split_list("--benchmarks", flags.get("--benchmarks", "")))
                benches.push_back(&parse_benchmark("--benchmarks", name));
        } else {
            for (const auto& b : kBenchmarks) benches.push_back(&b);
        }
        std::vector<std::uint64_t> sizes;
        for (const auto& s :
             split_list("--sizes", flags.get("--sizes", "10KiB,100KiB,1MiB,10MiB,100MiB")))
            sizes.push_back(parse_payload("--sizes", s));
        for (const BenchInfo* b : benches) {
            if (b->kind == Bench::Barrier) {
                o.phases.push_back({b, 0});
                continue;
            }
            for (std::uint64_t s : sizes) o.phases.push_back({b, s});
        }
    }
    if (flags.has("--repeats"))
        o.repeats = static_cast<int>(parse_count("--repeats", flags.get("--repeats", ""), 1));
    if (flags.has("--small-repeats"))
        o.small_repeats =
            static_cast<int>(parse_count("--small-repeats", flags.get("--small-repeats", ""), 1));
    if (flags.has("--warmup"))
        o.warmup = static_cast<int>(parse_count("--warmup", flags.get("--warmup", ""), 0));
    if (flags.has("--csv")) {
        o.csv = flags.get("--csv", "");
        if (o.csv.empty()) throw UsageError("--csv: empty path, expected a file name");
    }
    o.list = flags.has("--list");
    return o;
}

// Buffers of a phase, doubles so that reduce's data is aligned; filled before timing.
struct Buffers {
    std::vector<double> send, recv;
    void* s() { return send.data(); }
    void* r() { return recv.data(); }
};

std::vector<double> filled(std::uint64_t bytes, unsigned char byte, double value) {
    std::vector<double> v((bytes + 7) / 8);
    if (value != 0) {
        for (auto& x : v) x = value;
    } else if (!v.empty()) {
        std::memset(v.data(), byte, v.size() * sizeof(double));
    }
    return v;
}

// The fill byte of rank r's byte payloads.
unsigned char mark(int r) {
    return static_cast<unsigned char>(r % 251 + 1);
}

class Runner {
  public:
    Runner(int rank, int ranks) : rank_(rank), n_(ranks) {}

    // One phase; returns max over ranks of (t1 - t0) at rank 0 (other ranks: their own).
    double run(const Phase& ph, int repeats, int warmup, bool& data_ok) {
        const std::uint64_t p = ph.payload;
        const std::uint64_t block = p / static_cast<std::uint64_t>(n_);
        const std::uint64_t all = block * static_cast<std::uint64_t>(n_);
        Buffers b;
        switch (ph.bench->kind) {
            case Bench::Barrier:
                break;
            case Bench::Bcast:
                b.send = filled(p, rank_ == 0 ? mark(0) : 0xee, 0);
                break;
            case Bench::Reduce:
            case Bench::Allreduce:
                b.send = filled(p, 0, rank_ + 1.0);
                if (rank_ == 0 || ph.bench->kind == Bench::Allreduce) b.recv = filled(p, 0, -1.0);
                break;
            case Bench::Gather:
                b.send = filled(block, mark(rank_), 0);
                if (rank_ == 0) b.recv = filled(all, 0xee, 0);
                break;
            case Bench::Scatter:
                if (rank_ == 0) {
                    b.send = filled(all, 0, 0);
                    auto* bytes = reinterpret_cast<unsigned char*>(b.send.data());
                    for (int q = 0; q < n_; ++q)
                        std::memset(bytes + static_cast<std::uint64_t>(q) * block, mark(q), block);
                }
                b.recv = filled(block, 0xee, 0);
                break;
            case Bench::Allgather:
                b.send = filled(block, mark(rank_), 0);
                b.recv = filled(all, 0xee, 0);
                break;
            case Bench::Alltoall:
                b.send = filled(all, mark(rank_), 0);
                b.recv = filled(all, 0xee, 0);
                break;
            case Bench::Ring:
            case Bench::Paired:
            case Bench::SendrecvRoot:
                b.send = filled(p, mark(rank_), 0);
                b.recv = filled(p, 0xee, 0);
                break;
            case Bench::SendToRoot:
                if (rank_ == 0)
                    b.recv = filled(p, 0xee, 0);
                else
                    b.send = filled(p, mark(rank_), 0);
                break;
        }
        for (int i = 0; i < warmup; ++i) call(ph.bench->kind, p, block, b);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < repeats; ++i) call(ph.bench->kind, p, block, b);
        const double t1 = MPI_Wtime();
        data_ok = check(ph.bench->kind, p, block, b);
        const double mine = t1 - t0;
        double slowest = mine;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        return slowest;
    }

    // What one rank passes to the call, in bytes (the table's "block" column).
    std::uint64_t passed(Bench kind, std::uint64_t p) const {
        switch (kind) {
            case Bench::Barrier:
                return 0;
            case Bench::Reduce:
            case Bench::Allreduce:
                return p / 8 * 8;
            case Bench::Gather:
            case Bench::Scatter:
            case Bench::Allgather:
            case Bench::Alltoall:
                return p / static_cast<std::uint64_t>(n_);
            default:
                return p;
        }
    }

  private:
    static int count(std::uint64_t bytes) { return static_cast<int>(bytes); }

    void call(Bench kind, std::uint64_t p, std::uint64_t block, Buffers& b) {
        const int tag = 100 + static_cast<int>(kind);
        switch (kind) {
            case Bench::Barrier:
                MPI_Barrier(MPI_COMM_WORLD);
                break;
            case Bench::Bcast:
                MPI_Bcast(b.s(), count(p), MPI_BYTE, 0, MPI_COMM_WORLD);
                break;
            case Bench::Reduce:
                MPI_Reduce(b.s(), rank_ == 0 ? b.r() : nullptr, count(p / 8), MPI_DOUBLE, MPI_SUM,
                           0, MPI_COMM_WORLD);
                break;
            case Bench::Allreduce:
                MPI_Allreduce(b.s(), b.r(), count(p / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                break;
            case Bench::Gather:
                MPI_Gather(b.s(), count(block), MPI_BYTE, rank_ == 0 ? b.r() : nullptr,
                           count(block), MPI_BYTE, 0, MPI_COMM_WORLD);
                break;
            case Bench::Scatter:
                MPI_Scatter(rank_ == 0 ? b.s() : nullptr, count(block), MPI_BYTE, b.r(),
                            count(block), MPI_BYTE, 0, MPI_COMM_WORLD);
                break;
            case Bench::Allgather:
                MPI_Allgather(b.s(), count(block), MPI_BYTE, b.r(), count(block), MPI_BYTE,
                              MPI_COMM_WORLD);
                break;
            case Bench::Alltoall:
                MPI_Alltoall(b.s(), count(block), MPI_BYTE, b.r(), count(block), MPI_BYTE,
                             MPI_COMM_WORLD);
                break;
            case Bench::Ring: {
                MPI_Request req[2];
                MPI_Irecv(b.r(), count(p), MPI_BYTE, (rank_ - 1 + n_) % n_, tag, MPI_COMM_WORLD,
                          &req[0]);
                MPI_Isend(b.s(), count(p), MPI_BYTE, (rank_ + 1) % n_, tag, MPI_COMM_WORLD,
                          &req[1]);
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
                break;
            }
            case Bench::Paired: {
                const int partner = rank_ ^ 1;
                if (partner < n_)
                    MPI_Sendrecv(b.s(), count(p), MPI_BYTE, partner, tag, b.r(), count(p), MPI_BYTE,
                                 partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            }
            case Bench::SendToRoot:
                if (rank_ == 0) {
                    for (int q = 1; q < n_; ++q)
                        MPI_Recv(b.r(), count(p), MPI_BYTE, q, tag, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                } else {
                    MPI_Send(b.s(), count(p), MPI_BYTE, 0, tag, MPI_COMM_WORLD);
                }
                break;
            case Bench::SendrecvRoot:
                if (rank_ == 0) {
                    for (int q = 1; q < n_; ++q)
                        MPI_Sendrecv(b.s(), count(p), MPI_BYTE, q, tag, b.r(), count(p), MPI_BYTE,
                                     q, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Sendrecv(b.s(), count(p), MPI_BYTE, 0, tag, b.r(), count(p), MPI_BYTE, 0,
                                 tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                break;
        }
    }

    // Spot checks of the data that arrived (first and last byte of each block).
    bool check(Bench kind, std::uint64_t p, std::uint64_t block, Buffers& b) const {
        auto bytes = [](std::vector<double>& v) {
            return reinterpret_cast<const unsigned char*>(v.data());
        };
        auto block_is = [&](std::vector<double>& v, std::uint64_t offset, std::uint64_t len,
                            unsigned char want) {
            if (len == 0) return true;
            const unsigned char* d = bytes(v) + offset;
            return d[0] == want && d[len - 1] == want;
        };
        switch (kind) {
            case Bench::Barrier:
                return true;
            case Bench::Bcast:
                return block_is(b.send, 0, p, mark(0));
            case Bench::Reduce:
            case Bench::Allreduce: {
                if (b.recv.empty() || p < 8) return true;
                const double want = n_ * (n_ + 1) / 2.0;
                return b.recv.front() == want && b.recv[p / 8 - 1] == want;
            }
            case Bench::Gather:
            case Bench::Allgather:
            case Bench::Alltoall:
                if (b.recv.empty()) return true;
                for (int q = 0; q < n_; ++q)
                    if (!block_is(b.recv, static_cast<std::uint64_t>(q) * block, block, mark(q)))
                        return false;
                return true;
            case Bench::Scatter:
                return block_is(b.recv, 0, block, mark(rank_));
            case Bench::Ring:
                return block_is(b.recv, 0, p, mark((rank_ - 1 + n_) % n_));
            case Bench::Paired:
                return (rank_ ^ 1) >= n_ || block_is(b.recv, 0, p, mark(rank_ ^ 1));
            case Bench::SendToRoot:
                return rank_ != 0 || n_ == 1 || block_is(b.recv, 0, p, mark(n_ - 1));
            case Bench::SendrecvRoot:
                return n_ == 1 || block_is(b.recv, 0, p, mark(rank_ == 0 ? n_ - 1 : 0));
        }
        return true;
    }

    int rank_, n_;
};

int bench_main(int rank, int argc, char** argv) {
    bool help = false;
    std::string usage;
    const Options o = parse_options(argc, argv, help, usage);
    if (help) {
        if (rank == 0) std::fputs(usage.c_str(), stdout);
        return 0;
    }
    if (o.list) {
        if (rank == 0)
            for (const auto& ph : o.phases)
                std::printf("%s\n",
                            ph.bench->kind == Bench::Barrier
                                ? ph.bench->name
                                : (std::string(ph.bench->name) + ":" + canonical_bytes(ph.payload))
                                      .c_str());
        return 0;
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    // Rank 0 creates the CSV file now, so that a bad path fails before the first phase.
    std::FILE* csv = nullptr;
    if (!o.csv.empty()) {
        int ok = 1;
        std::string why;
        if (rank == 0) {
            csv = std::fopen(o.csv.c_str(), "w");
            if (csv == nullptr) {
                ok = 0;
                why = std::strerror(errno);
            }
        }
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!ok)
            throw UsageError("--csv: cannot write '" + o.csv + "'" +
                             (why.empty() ? "" : " (" + why + ")") + ", expected a writable file");
        if (csv != nullptr) {
            std::fprintf(csv, "benchmark,payload_bytes,ranks,repeats,seconds_per_call\n");
            std::fflush(csv);
        }
    }

    Runner runner(rank, ranks);
    const double start = MPI_Wtime();
    if (rank == 0) {
        std::printf(
            "%s: %d ranks, root 0, %d calls per phase (%d under 1 MiB and for barrier), %d "
            "warm-up call%s\n",
            kProgram, ranks, o.repeats, o.small_repeats, o.warmup, o.warmup == 1 ? "" : "s");
        std::printf(
            "payload: one rank's whole buffer; gather/scatter/allgather/alltoall pass a "
            "block of payload / ranks (column 'block')\n\n");
        std::printf("%s%s%s%s%s%s\n", pad("benchmark", 14).c_str(), lpad("payload", 10).c_str(),
                    lpad("block", 12).c_str(), lpad("ranks", 7).c_str(), lpad("repeats", 9).c_str(),
                    lpad("time per call", 16).c_str());
        std::fflush(stdout);
    }
    int bad = 0;
    for (const auto& ph : o.phases) {
        const int repeats = ph.bench->kind == Bench::Barrier || ph.payload < kSmallPayload
                                ? o.small_repeats
                                : o.repeats;
        bool ok = true;
        const double slowest = runner.run(ph, repeats, o.warmup, ok);
        if (!ok) {
            std::fprintf(stderr, "%s: rank %d: %s with payload %s: wrong data received\n", kProgram,
                         rank, ph.bench->name, format_bytes(ph.payload).c_str());
            bad = 1;
        }
        if (rank != 0) continue;
        const double per_call = slowest / repeats;
        const std::uint64_t passed = runner.passed(ph.bench->kind, ph.payload);
        std::printf("%s%s%s%s%s%s\n", pad(ph.bench->name, 14).c_str(),
                    lpad(format_bytes(ph.payload), 10).c_str(),
                    lpad(ph.bench->kind == Bench::Barrier ? "-" : format_bytes(passed), 12).c_str(),
                    lpad(std::to_string(ranks), 7).c_str(),
                    lpad(std::to_string(repeats), 9).c_str(),
                    lpad(format_seconds(per_call), 16).c_str());
        std::fflush(stdout);
        if (csv != nullptr) {
            std::fprintf(csv, "%s,%llu,%d,%d,%.9g\n", ph.bench->name,
                         static_cast<unsigned long long>(ph.payload), ranks, repeats, per_call);
            std::fflush(csv);
        }
    }
    if (rank == 0) {
        std::printf("\n%zu phase%s in %s wall time\n", o.phases.size(),
                    o.phases.size() == 1 ? "" : "s", format_seconds(MPI_Wtime() - start).c_str());
        if (csv != nullptr) {
            std::fclose(csv);
            std::printf("wrote %s\n", o.csv.c_str());
        }
    }
    return bad;
}

}  // namespace

int main(int argc, char** argv) {
    return run_program(kProgram, argc, argv,
                       [&](int rank) { return bench_main(rank, argc, argv); });
}
