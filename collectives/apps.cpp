#include "collectives/apps.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "collectives/motifs.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {
namespace {

std::string app_name(const std::string& spec) {
    return spec.substr(0, spec.find(':'));
}

[[noreturn]] void fail(const std::string& spec, const std::string& what) {
    throw InputError("--app", 0, fmt::format("'{}': {}", spec, what));
}

// ---------------------------------------------------------------------------------------
// pingpong: rank 0 and rank 1 exchange a message back and forth `iterations` times.
class PingPong final : public App {
  public:
    PingPong(std::uint64_t size, std::uint64_t iterations, std::uint32_t ranks)
        : size_(size), iterations_(iterations), step_(ranks, 0) {}
    bool next(std::int32_t rank, Op& op) override {
        if (rank > 1) return false;
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        if (k == 2 * iterations_) return false;
        const bool sends = (k % 2 == 0) == (rank == 0);
        op = Op{};
        op.kind = sends ? OpKind::Send : OpKind::Recv;
        op.peer = 1 - rank;
        op.bytes = size_;
        ++k;
        return true;
    }
    std::vector<AppResult> summarize(Time t) const override {
        if (iterations_ == 0) return {};
        const Time round = Time::ps(t.ps() / static_cast<std::int64_t>(iterations_));
        const Time one_way = Time::ps(t.ps() / static_cast<std::int64_t>(2 * iterations_));
        std::vector<AppResult> out{
            {"round trip", format_time(round), "round_trip_s", round.seconds()},
            {"one-way time", format_time(one_way), "one_way_time_s", one_way.seconds()}};
        if (size_ > 0 && one_way.ps() > 0) {
            const Bandwidth b{
                static_cast<std::uint64_t>(static_cast<double>(size_) / one_way.seconds())};
            out.push_back({"one-way bandwidth", format_bandwidth(b),
                           "one_way_bandwidth_bytes_per_s", static_cast<double>(b.bytes_per_s)});
        }
        return out;
    }

  private:
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (std::size_t r = 0; r < step_.size() && r < 2; ++r)
            p.done += step_[r], p.total += 2 * iterations_;
        return p;
    }

    std::uint64_t size_, iterations_;
    std::vector<std::uint64_t> step_;
};

// stream: rank 0 sends one message of `size` to rank 1.
class Stream final : public App {
  public:
    Stream(std::uint64_t size, std::uint32_t ranks) : size_(size), done_(ranks, false) {}
    bool next(std::int32_t rank, Op& op) override {
        if (rank > 1 || done_[static_cast<std::size_t>(rank)]) return false;
        done_[static_cast<std::size_t>(rank)] = true;
        op = Op{};
        op.kind = rank == 0 ? OpKind::Send : OpKind::Recv;
        op.peer = 1 - rank;
        op.bytes = size_;
        return true;
    }
    std::vector<AppResult> summarize(Time t) const override {
        if (size_ == 0 || t.ps() == 0) return {};
        const Bandwidth b{static_cast<std::uint64_t>(static_cast<double>(size_) / t.seconds())};
        return {{"throughput", format_bandwidth(b), "throughput_bytes_per_s",
                 static_cast<double>(b.bytes_per_s)}};
    }

  private:
    std::uint64_t size_;
    std::vector<bool> done_;
};

// ---------------------------------------------------------------------------------------
// Every collective: `iterations` calls of the operation with `size` (what one rank passes)
// and `root`; the nonblocking forms (ibcast, ...) post the call and wait for it.
// v-variants: rank i's block is size * (1 + i mod 4) / 4 (alltoallv: block i -> j is
// size * (1 + (i + j) mod 4) / 4), so blocks differ between ranks.
class CollectiveApp final : public App {
  public:
    CollectiveApp(CollOp op, bool nonblocking, std::uint64_t size, std::uint64_t iterations,
                  std::int32_t root, std::uint32_t ranks)
        : op_(op),
          nonblocking_(nonblocking),
          size_(size),
          iterations_(iterations),
          root_(root),
          step_(ranks, 0) {
        const std::size_t p = ranks;
        if (op == CollOp::Gatherv || op == CollOp::Scatterv || op == CollOp::Allgatherv) {
            for (std::size_t i = 0; i < p; ++i) counts_.push_back(size * (1 + i % 4) / 4);
        } else if (is_pairwise_v(op)) {
            for (std::size_t i = 0; i < p; ++i)
                for (std::size_t j = 0; j < p; ++j) counts_.push_back(size * (1 + (i + j) % 4) / 4);
        }
    }
    bool next(std::int32_t rank, Op& op) override {
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        const std::uint64_t per_iteration = nonblocking_ ? 2 : 1;
        if (k == iterations_ * per_iteration) return false;
        op = Op{};
        if (nonblocking_ && k % 2 == 1) {
            op.kind = OpKind::Wait;
            op.handle = 0;
        } else {
            op.kind = OpKind::Collective;
            op.coll = op_;
            op.nonblocking = nonblocking_;
            op.bytes = op_ == CollOp::Barrier ? 0 : size_;
            op.root = root_;
            op.handle = 0;
            op.counts = counts_.empty() ? nullptr : &counts_;
        }
        ++k;
        return true;
    }

    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += k;
        p.total = step_.size() * iterations_ * (nonblocking_ ? 2 : 1);
        return p;
    }

    // The least any algorithm moves, per call: the buffer to or from each non-root rank
    // (bcast, reduce, scans, allreduce, gather, scatter and their v-forms at the average
    // block), a block between every ordered pair (allgather, alltoall, reduce_scatter).
    std::uint64_t traffic_hint() const override {
        const std::uint64_t p = step_.size();
        if (p < 2) return 0;
        std::uint64_t block = size_;
        if (!counts_.empty()) {
            std::uint64_t sum = 0;
            for (const std::uint64_t c : counts_) sum += c;
            block = sum / counts_.size();
        }
        std::uint64_t call = 0;
        switch (op_) {
            case CollOp::Allgather:
            case CollOp::Allgatherv:
            case CollOp::Alltoall:
            case CollOp::Alltoallv:
            case CollOp::ReduceScatter:
            case CollOp::ReduceScatterBlock:
                call = p * (p - 1) * block;
                break;
            case CollOp::Barrier:
                break;
            default:
                call = (p - 1) * block;
        }
        return call * iterations_;
    }

    // OSU-style figures (the OSU micro-benchmarks' osu_bcast, osu_allreduce, ...): each rank's
    // time per call (its finish / iterations: the ranks start together at 0), averaged, least
    // and most over the ranks; and NCCL-tests' bandwidths from the average: algbw = S / t,
    // busbw = algbw x the operation's bus factor (collectives/README.md, "Collective apps").
    std::vector<AppResult> summarize_ranks(Time, const std::vector<Time>& finish) const override {
        if (iterations_ == 0 || finish.empty()) return {};
        const auto calls = static_cast<std::int64_t>(iterations_);
        std::size_t lo = 0, hi = 0;
        double sum_s = 0;
        for (std::size_t r = 0; r < finish.size(); ++r) {
            if (finish[r] < finish[lo]) lo = r;
            if (finish[r] > finish[hi]) hi = r;
            sum_s += finish[r].seconds();
        }
        const double avg_s =
            sum_s / static_cast<double>(finish.size()) / static_cast<double>(calls);
        const Time avg = Time::ps(static_cast<std::int64_t>(avg_s * 1e12 + 0.5));
        const Time least = Time::ps(finish[lo].ps() / calls),
                   most = Time::ps(finish[hi].ps() / calls);
        std::vector<AppResult> out{
            {"latency avg",
             fmt::format("{} per call: each rank's time / {} call{}, averaged over {} ranks",
                         format_time(avg), iterations_, iterations_ == 1 ? "" : "s", finish.size()),
             "latency_avg_s", avg_s},
            {"latency min", fmt::format("{} (rank {})", format_time(least), lo), "latency_min_s",
             least.seconds()},
            {"latency max", fmt::format("{} (rank {})", format_time(most), hi), "latency_max_s",
             most.seconds()}};
        const BusFactor b = bus_factor(op_, finish.size());
        if (b.volume == 0 || size_ == 0 || avg_s <= 0) return out;
        const double bytes = static_cast<double>(size_) * static_cast<double>(b.volume);
        const double algbw = bytes / avg_s, busbw = algbw * b.factor;
        out.push_back({"algbw",
                       fmt::format("{}: S / latency avg, S = {} ({})",
                                   format_bandwidth(Bandwidth{static_cast<std::uint64_t>(algbw)}),
                                   format_size(static_cast<std::uint64_t>(bytes)), b.what),
                       "algbw_bytes_per_s", algbw});
        out.push_back(
            {"busbw",
             fmt::format("{}: algbw x {}",
                         format_bandwidth(Bandwidth{static_cast<std::uint64_t>(busbw)}), b.formula),
             "busbw_bytes_per_s", busbw});
        return out;
    }

  private:
    // NCCL-tests' definitions: S, the data size, as a multiple `volume` of what one rank
    // passes; busbw = algbw x `factor`. volume 0: no bandwidth (barrier, scans, v-forms, whose
    // blocks differ between ranks).
    struct BusFactor {
        std::uint64_t volume = 0;
        double factor = 0;
        std::string what, formula;
    };
    static BusFactor bus_factor(CollOp op, std::size_t ranks) {
        const auto n = static_cast<double>(ranks);
        switch (op) {
            case CollOp::Bcast:
                return {1, 1.0, "the root's buffer", "1"};
            case CollOp::Reduce:
                return {1, 1.0, "one rank's buffer", "1"};
            case CollOp::Allreduce:
                return {1, 2 * (n - 1) / n, "one rank's buffer",
                        fmt::format("2(n-1)/n, n = {}", ranks)};
            case CollOp::Allgather:
                return {ranks, (n - 1) / n, "n blocks: the gathered buffer",
                        fmt::format("(n-1)/n, n = {}", ranks)};
            case CollOp::Gather:
            case CollOp::Scatter:
                return {ranks, (n - 1) / n, "n blocks: the root's buffer",
                        fmt::format("(n-1)/n, n = {}", ranks)};
            case CollOp::ReduceScatter:
            case CollOp::ReduceScatterBlock:
                return {ranks, (n - 1) / n, "n blocks: the reduced vector",
                        fmt::format("(n-1)/n, n = {}", ranks)};
            case CollOp::Alltoall:
                return {ranks, (n - 1) / n, "n blocks: one rank's send buffer",
                        fmt::format("(n-1)/n, n = {}", ranks)};
            default:
                return {};
        }
    }

    CollOp op_;
    bool nonblocking_;
    std::uint64_t size_, iterations_;
    std::int32_t root_;
    std::vector<std::uint64_t> counts_;
    std::vector<std::uint64_t> step_;
};

// ---------------------------------------------------------------------------------------
// neighbor_allgather, ..., ineighbor_alltoallw: MPI_Cart_create of a `dims` grid (periodic
// in every dimension or none), then `iterations` calls of the neighbourhood collective on it
// (ranks outside the grid get MPI_COMM_NULL and only create it). `size` is one block: the
// send block (allgather) or the block for one neighbour (alltoall). v/w-forms: rank r's block
// to its s-th out-neighbour (allgatherv: its send block) is size * (1 + (r + s) mod 4) / 4;
// each rank's receive counts are what its in-neighbours send it.
class NeighborApp final : public App {
  public:
    NeighborApp(CollOp op, bool nonblocking, std::uint64_t size, std::uint64_t iterations,
                const TopoSpec& spec, std::uint32_t ranks)
        : op_(op),
          nonblocking_(nonblocking),
          size_(size),
          iterations_(iterations),
          spec_(encode_topo_spec(OpKind::CartCreate, spec)),
          step_(ranks, 0) {
        const Topology t = cart_topology(spec.dims, spec.periods);
        grid_ = static_cast<std::uint32_t>(t.size());
        if (!is_v(op)) return;
        const bool gather = op == CollOp::NeighborAllgatherv;
        auto block = [&](std::size_t r, std::size_t s) { return size * (1 + (r + s) % 4) / 4; };
        counts_.resize(grid_);
        for (std::size_t r = 0; r < grid_; ++r) {
            if (gather)
                counts_[r].push_back(block(r, 0));
            else
                for (std::size_t s = 0; s < t.out[r].size(); ++s) counts_[r].push_back(block(r, s));
            for (const Neighbor& n : t.in[r])
                counts_[r].push_back(n.rank == kProcNull ? 0
                                     : gather ? block(static_cast<std::size_t>(n.rank), 0)
                                              : block(static_cast<std::size_t>(n.rank), n.slot));
        }
    }
    bool next(std::int32_t rank, Op& op) override {
        const auto r = static_cast<std::size_t>(rank);
        std::uint64_t& k = step_[r];
        const std::uint64_t calls = r < grid_ ? iterations_ * (nonblocking_ ? 2 : 1) : 0;
        if (k == 1 + calls) return false;
        op = Op{};
        if (k == 0) {
            op.kind = OpKind::CartCreate;
            op.newcomm = 1;
            op.counts = &spec_;
        } else if (nonblocking_ && k % 2 == 0) {
            op.kind = OpKind::Wait;
        } else {
            op.kind = OpKind::Collective;
            op.coll = op_;
            op.nonblocking = nonblocking_;
            op.comm = 1;
            op.bytes = size_;
            op.counts = counts_.empty() ? nullptr : &counts_[r];
        }
        ++k;
        return true;
    }
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += k;
        p.total = step_.size() + grid_ * iterations_ * (nonblocking_ ? 2 : 1);
        return p;
    }

  private:
    CollOp op_;
    bool nonblocking_;
    std::uint64_t size_, iterations_;
    std::vector<std::uint64_t> spec_;
    std::uint32_t grid_ = 0;
    std::vector<std::vector<std::uint64_t>> counts_;  // per rank of the grid (v/w-forms)
    std::vector<std::uint64_t> step_;
};

// "4x4x2" -> {4, 4, 2}; "line" -> {ranks}.
std::vector<std::int32_t> parse_dims(const AppArgs& a, std::uint32_t ranks) {
    const std::string& text = a.values().at("dims");
    if (text == "line") return {static_cast<std::int32_t>(ranks)};
    std::vector<std::int32_t> dims;
    std::uint64_t product = 1;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('x', pos), text.size());
        const std::string part = text.substr(pos, end - pos);
        if (part.empty() || part.size() > 9 ||
            part.find_first_not_of("0123456789") != std::string::npos || std::stoul(part) == 0)
            fail(a.spec(), fmt::format("parameter 'dims' is '{}'; expected sizes >= 1 joined by "
                                       "'x', e.g. 4x4",
                                       text));
        dims.push_back(static_cast<std::int32_t>(std::stoul(part)));
        product *= static_cast<std::uint64_t>(dims.back());
        if (product > ranks)
            fail(a.spec(),
                 fmt::format("dims={} needs more ranks than the {} there are", text, ranks));
        pos = end + 1;
    }
    return dims;
}

// ---------------------------------------------------------------------------------------
// loop (barrier-loop): every rank computes `work` (dedicated-core time, turned into
// instructions at its core's speed) and then calls MPI_Barrier (the algorithm the model or
// --algorithm chooses), `iterations` times. The compute/barrier loop of the OS-jitter
// literature (jitSim, Garg-De): with noisy cores each phase lasts as long as its slowest rank.
class LoopApp final : public App {
  public:
    LoopApp(Time work, std::uint64_t iterations, std::uint32_t ranks)
        : work_(work), iterations_(iterations), step_(ranks, 0) {}
    void set_core_speeds(const std::vector<std::uint64_t>& speeds) override {
        if (speeds.size() != step_.size())
            throw std::logic_error(
                fmt::format("loop: {} core speeds for {} ranks", speeds.size(), step_.size()));
        instructions_.resize(speeds.size());
        __extension__ typedef unsigned __int128 u128;
        for (std::size_t r = 0; r < speeds.size(); ++r) {
            const u128 n = (static_cast<u128>(work_.ps()) * speeds[r] + 500'000'000'000ULL) /
                           1'000'000'000'000ULL;
            // More than 2^64 instructions is past the horizon at any speed: saturate, and the
            // engine stops the run there (never a wrapped, short compute).
            instructions_[r] = n > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(n);
        }
    }
    bool next(std::int32_t rank, Op& op) override {
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        if (k == 2 * iterations_) return false;
        if (instructions_.empty())
            throw std::logic_error(
                "loop: the ranks' core speeds are unknown (App::set_core_speeds not called)");
        op = Op{};
        if (k % 2 == 0) {
            op.kind = OpKind::Compute;
            op.instructions = instructions_[static_cast<std::size_t>(rank)];
        } else {
            op.kind = OpKind::Collective;
            op.coll = CollOp::Barrier;
        }
        ++k;
        return true;
    }
    std::vector<AppResult> summarize(Time t) const override {
        if (iterations_ == 0) return {};
        const Time per = Time::ps(t.ps() / static_cast<std::int64_t>(iterations_));
        std::vector<AppResult> out{
            {"iteration time", format_time(per), "iteration_time_s", per.seconds()},
            {"work per iteration", format_time(work_), "work_per_iteration_s", work_.seconds()}};
        if (work_.ps() > 0) {
            const double overhead =
                100.0 * (static_cast<double>(per.ps()) / static_cast<double>(work_.ps()) - 1.0);
            out.push_back({"overhead",
                           fmt::format("{:.2f}% over the work (barrier, jitter)", overhead),
                           "overhead_percent", overhead});
        }
        return out;
    }
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += k;
        p.total = step_.size() * 2 * iterations_;
        return p;
    }

  private:
    Time work_;
    std::uint64_t iterations_;
    std::vector<std::uint64_t> step_;
    std::vector<std::uint64_t> instructions_;  // per rank, per iteration
};

// PIOsimHD's point-to-point validation patterns (section 5.3), `iterations` times.
enum class Pattern { Ring, Paired, SendToRoot, SendrecvRoot };

class PatternApp final : public App {
  public:
    PatternApp(Pattern pattern, std::uint64_t size, std::uint64_t iterations, std::int32_t root,
               std::uint32_t ranks)
        : pattern_(pattern),
          size_(size),
          iterations_(iterations),
          root_(root),
          p_(static_cast<std::int32_t>(ranks)),
          script_(ranks) {}
    bool next(std::int32_t rank, Op& op) override {
        auto& st = script_[static_cast<std::size_t>(rank)];
        if (st.pos == st.ops.size()) {
            if (st.iteration == iterations_) return false;
            ++st.iteration;
            st.ops.clear();
            st.pos = 0;
            fill(rank, st.ops);
            if (st.ops.empty()) return false;
        }
        op = st.ops[st.pos++];
        return true;
    }
    // In iterations begun, over ranks.
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const Script& s : script_) p.done += s.iteration;
        p.total = script_.size() * iterations_;
        return p;
    }
    // Every rank but the root sends (ring: every rank; the exchanges both ways) per iteration.
    std::uint64_t traffic_hint() const override {
        const auto p = static_cast<std::uint64_t>(p_);
        const std::uint64_t sends = pattern_ == Pattern::Ring           ? p
                                    : pattern_ == Pattern::SendToRoot   ? p - 1
                                    : pattern_ == Pattern::SendrecvRoot ? 2 * (p - 1)
                                                                        : p / 2 * 2;
        return sends * size_ * iterations_;
    }

  private:
    struct Script {
        std::vector<Op> ops;
        std::size_t pos = 0;
        std::uint64_t iteration = 0;
    };
    Op make(OpKind kind, std::int32_t peer) const {
        Op op;
        op.kind = kind;
        op.peer = peer;
        op.bytes = size_;
        return op;
    }
    Op sendrecv(std::int32_t peer) const {
        Op op = make(OpKind::Sendrecv, peer);
        op.peer2 = peer;
        op.bytes2 = size_;
        return op;
    }
    void fill(std::int32_t r, std::vector<Op>& ops) const {
        switch (pattern_) {
            case Pattern::Ring: {  // send right, receive from the left
                Op s = make(OpKind::Isend, (r + 1) % p_);
                s.handle = 0;
                ops.push_back(s);
                ops.push_back(make(OpKind::Recv, (r - 1 + p_) % p_));
                Op w;
                w.kind = OpKind::Wait;
                w.handle = 0;
                ops.push_back(w);
                break;
            }
            case Pattern::Paired: {  // even rank exchanges with the next odd rank
                const std::int32_t partner = r % 2 == 0 ? r + 1 : r - 1;
                if (partner < p_) ops.push_back(sendrecv(partner));
                break;
            }
            case Pattern::SendToRoot:  // all send to root, which receives in rank order
                if (r == root_) {
                    for (std::int32_t q = 0; q < p_; ++q)
                        if (q != root_) ops.push_back(make(OpKind::Recv, q));
                } else {
                    ops.push_back(make(OpKind::Send, root_));
                }
                break;
            case Pattern::SendrecvRoot:  // every rank exchanges with root by Sendrecv
                if (r == root_) {
                    for (std::int32_t q = 0; q < p_; ++q)
                        if (q != root_) ops.push_back(sendrecv(q));
                } else {
                    ops.push_back(sendrecv(root_));
                }
                break;
        }
        // An idle rank still counts the iteration: a no-op keeps the loop going.
        if (ops.empty()) ops.push_back(Op{});
    }
    Pattern pattern_;
    std::uint64_t size_, iterations_;
    std::int32_t root_, p_;
    std::vector<Script> script_;
};

}  // namespace

std::uint64_t AppArgs::size(const std::string& key) const {
    const std::string& v = values_.at(key);
    try {
        return parse_size(v);
    } catch (const UnitError& e) {
        fail(spec_, fmt::format("parameter '{}': {}", key, e.what()));
    }
}

std::uint64_t AppArgs::count(const std::string& key) const {
    const std::string& v = values_.at(key);
    try {
        return parse_count(v);
    } catch (const UnitError& e) {
        fail(spec_, fmt::format("parameter '{}': {}", key, e.what()));
    }
}

Time AppArgs::time(const std::string& key) const {
    const std::string& v = values_.at(key);
    try {
        return parse_time(v);
    } catch (const UnitError& e) {
        fail(spec_, fmt::format("parameter '{}': {}", key, e.what()));
    }
}

ParamInfo app_param(std::string name, std::string type, std::string default_value,
                    std::string doc) {
    std::string unit = type == "size" ? "B" : type == "time" ? "s" : "";
    return ParamInfo{std::move(name), std::move(type), std::move(unit), std::move(default_value),
                     std::move(doc)};
}

NamedRegistry<AppInfo>& apps() {
    static NamedRegistry<AppInfo> registry("app");
    static const bool filled = [] {
        AppRegistry builtins;
        register_builtin_apps(builtins);
        for (const AppInfo& a : builtins.apps()) registry.add(a);
        return true;
    }();
    (void)filled;
    return registry;
}

AppRegistry registered_apps() {
    AppRegistry out;
    for (AppInfo& a : apps().entries()) out.add(std::move(a));
    return out;
}

void AppRegistry::add(AppInfo info) {
    apps_.push_back(std::move(info));
}

std::string AppRegistry::names() const {
    std::string out;
    for (const auto& a : apps_) out += (out.empty() ? "" : ", ") + a.name;
    return out;
}

const AppInfo& AppRegistry::find(const std::string& spec) const {
    const std::string name = app_name(spec);
    if (const AppInfo* a = find_named(apps_, name, [](const AppInfo& x) { return x.name; }))
        return *a;
    fail(spec, fmt::format("unknown app '{}'{}, expected one of: {}", name,
                           did_you_mean(name, split_names(names())), names()));
}

std::uint32_t AppRegistry::min_ranks(const std::string& spec) const {
    return find(spec).min_ranks;
}

std::unique_ptr<App> AppRegistry::create(const std::string& spec, std::uint32_t ranks) const {
    const AppInfo& info = find(spec);
    std::map<std::string, std::string> values;
    const auto colon = spec.find(':');
    if (colon != std::string::npos) {
        std::string rest = spec.substr(colon + 1);
        std::size_t pos = 0;
        while (pos <= rest.size() && !rest.empty()) {
            const std::size_t comma = rest.find(',', pos);
            const std::string item =
                rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
            const auto eq = item.find('=');
            if (item.empty() || eq == std::string::npos || eq == 0)
                fail(spec, fmt::format("expected key=value, got '{}'", item));
            const std::string key = item.substr(0, eq);
            bool known = false;
            for (const auto& p : info.params) known |= p.name == key;
            if (!known) {
                std::string valid;
                for (const auto& p : info.params) valid += (valid.empty() ? "" : ", ") + p.name;
                fail(spec,
                     fmt::format("unknown parameter '{}' for app '{}'{}, expected one of: {}", key,
                                 info.name, did_you_mean(key, split_names(valid)), valid));
            }
            if (!values.emplace(key, item.substr(eq + 1)).second)
                fail(spec, fmt::format("parameter '{}' given twice", key));
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
    }
    for (const auto& p : info.params) {
        if (values.count(p.name)) continue;
        if (p.default_value.empty())
            fail(spec, fmt::format("missing parameter '{}' ({})", p.name, p.doc));
        values.emplace(p.name, p.default_value);
    }
    if (ranks < info.min_ranks)
        fail(spec, fmt::format("app '{}' needs at least {} ranks, got {}", info.name,
                               info.min_ranks, ranks));
    return info.make(AppArgs(spec, std::move(values)), ranks);
}

void register_builtin_apps(AppRegistry& registry) {
    registry.add(
        AppInfo{"pingpong",
                "rank 0 sends `size` to rank 1, which sends it back; `iterations` round trips",
                {app_param("size", "size", "", "message size, e.g. 1MiB"),
                 app_param("iterations", "count", "1", "number of round trips")},
                2,
                [](const AppArgs& a, std::uint32_t ranks) {
                    return std::make_unique<PingPong>(a.size("size"), a.count("iterations"), ranks);
                }});
    registry.add(AppInfo{"stream",
                         "rank 0 sends one message of `size` to rank 1",
                         {app_param("size", "size", "", "message size, e.g. 100GiB")},
                         2,
                         [](const AppArgs& a, std::uint32_t ranks) {
                             return std::make_unique<Stream>(a.size("size"), ranks);
                         }});

    // Every collective, blocking and nonblocking.
    for (int i = 0; i < kCollOps; ++i) {
        const auto op = static_cast<CollOp>(i);
        if (is_neighbor(op)) {
            for (const bool nonblocking : {false, true}) {
                const std::string name = (nonblocking ? "i" : "") + std::string(to_string(op));
                registry.add(AppInfo{
                    name,
                    fmt::format("{}{} on an MPI_Cart_create grid, `iterations` times",
                                nonblocking ? "nonblocking " : "", to_string(op)),
                    {app_param("size", "size", "", "one block (per neighbour), e.g. 64KiB"),
                     app_param("iterations", "count", "1", "number of calls"),
                     app_param("dims", "AxBx...|line", "line",
                               "the grid, e.g. 4x4; line: all ranks in one dimension"),
                     app_param("periodic", "0|1", "0", "1: every dimension wraps around")},
                    1,
                    [op, nonblocking](const AppArgs& a,
                                      std::uint32_t ranks) -> std::unique_ptr<App> {
                        TopoSpec spec;
                        spec.dims = parse_dims(a, ranks);
                        const std::string& periodic = a.values().at("periodic");
                        if (periodic != "0" && periodic != "1")
                            fail(a.spec(), fmt::format("parameter 'periodic' is '{}'; expected 0 "
                                                       "or 1",
                                                       periodic));
                        spec.periods.assign(spec.dims.size(), periodic == "1" ? 1 : 0);
                        return std::make_unique<NeighborApp>(op, nonblocking, a.size("size"),
                                                             a.count("iterations"), spec, ranks);
                    }});
            }
            continue;
        }
        const bool rooted = is_rooted(op);
        for (const bool nonblocking : {false, true}) {
            const std::string name = (nonblocking ? "i" : "") + std::string(to_string(op));
            std::vector<ParamInfo> params;
            if (op != CollOp::Barrier)
                params.push_back(app_param("size", "size", "", "what one rank passes, e.g. 1MiB"));
            params.push_back(app_param("iterations", "count", "1", "number of calls"));
            if (rooted) params.push_back(app_param("root", "count", "0", "root rank"));
            registry.add(AppInfo{
                name,
                fmt::format("{} {} per rank, `iterations` times", nonblocking ? "nonblocking" : "",
                            to_string(op)),
                params, 1,
                [op, nonblocking, rooted](const AppArgs& a,
                                          std::uint32_t ranks) -> std::unique_ptr<App> {
                    const std::uint64_t root = rooted ? a.count("root") : 0;
                    if (root >= ranks)
                        fail(a.spec(), fmt::format("root {} is out of range for {} ranks (0..{})",
                                                   root, ranks, ranks - 1));
                    if (op == CollOp::Alltoallv && ranks > kMaxAlltoallvRanks)
                        fail(a.spec(),
                             fmt::format("alltoallv over {} ranks needs a {} x {} count matrix "
                                         "({}); at most {} ranks (docs/limits.md)",
                                         ranks, ranks, ranks,
                                         format_size(static_cast<std::uint64_t>(ranks) * ranks *
                                                     sizeof(std::uint64_t)),
                                         kMaxAlltoallvRanks));
                    return std::make_unique<CollectiveApp>(
                        op, nonblocking, op == CollOp::Barrier ? 0 : a.size("size"),
                        a.count("iterations"), static_cast<std::int32_t>(root), ranks);
                }});
        }
    }
    // The compute/barrier loop (OS jitter), under its short and its DESIGN.md name.
    for (const char* name : {"loop", "barrier_loop"}) {
        registry.add(AppInfo{
            name,
            "every rank computes `work` then calls MPI_Barrier, `iterations` times",
            {app_param("work", "time", "1ms",
                       "compute per iteration as dedicated-core time, e.g. 300us"),
             app_param("iterations", "count", "1", "number of compute + barrier iterations")},
            1,
            [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
                const Time work = a.time("work");
                if (work < Time::zero()) fail(a.spec(), "parameter 'work': expected a time >= 0");
                return std::make_unique<LoopApp>(work, a.count("iterations"), ranks);
            }});
    }
    // PIOsimHD's point-to-point patterns.
    const std::pair<const char*, Pattern> patterns[] = {{"ring", Pattern::Ring},
                                                        {"paired", Pattern::Paired},
                                                        {"sendtoroot", Pattern::SendToRoot},
                                                        {"sendrecvroot", Pattern::SendrecvRoot}};
    for (const auto& [name, pattern] : patterns) {
        const bool rooted = pattern == Pattern::SendToRoot || pattern == Pattern::SendrecvRoot;
        std::vector<ParamInfo> params{app_param("size", "size", "", "message size"),
                                      app_param("iterations", "count", "1", "repetitions")};
        if (rooted) params.push_back(app_param("root", "count", "0", "root rank"));
        registry.add(AppInfo{
            name, "PIOsimHD validation pattern", params, 2,
            // A copy: clang 14 cannot capture a structured binding (the fuzz build uses clang).
            [pattern = Pattern{pattern}, rooted](const AppArgs& a,
                                                 std::uint32_t ranks) -> std::unique_ptr<App> {
                const std::uint64_t root = rooted ? a.count("root") : 0;
                if (root >= ranks)
                    fail(a.spec(), fmt::format("root {} is out of range for {} ranks (0..{})", root,
                                               ranks, ranks - 1));
                return std::make_unique<PatternApp>(pattern, a.size("size"), a.count("iterations"),
                                                    static_cast<std::int32_t>(root), ranks);
            }});
    }
    register_motif_apps(registry);  // halo3d, cg, fft3d, ...: collectives/motifs.hpp
}

}  // namespace clustersim::mpi
