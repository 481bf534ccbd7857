// Writing a trace as GOAL (traces/goal.hpp: write_goal). Each rank's records in order become
// operations l1, l2, ... whose dependencies keep the program order a replay follows:
//  - a blocking call (send, recv, compute, each half of a sendrecv) requires every operation
//    the rank had to have completed before it (the previous blocking call and the requests
//    waited for since), and irequires the nonblocking call just before it, if any;
//  - a nonblocking call (isend, irecv) the same, and nothing waits for it until a wait names
//    its request: from then on it is among what the next calls require;
//  - a wait or waitall writes nothing itself.
// Compute is `calc` in nanoseconds: its traced time, or its instructions at the trace's traced
// speed, or else its recorded interval (a run's simulated trace). GOAL has no communicators,
// collectives, files or windows: such records are refused.
#include <fstream>
#include <unordered_map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/goal.hpp"

namespace clustersim::traces {

namespace {

class GoalWriter {
  public:
    explicit GoalWriter(const Trace& trace) : trace_(trace) {}

    template <class Sink>
    void write(Sink&& sink) {
        out_ += fmt::format(
            "// GOAL schedule written by clustersim convert from {} ({}): calc in ns; each rank's "
            "program order kept as requires/irequires\n",
            trace_.source.empty() ? std::string("a trace") : trace_.source,
            trace_.format.empty() ? std::string("native") : trace_.format);
        if (trace_.traced_speed != 0)
            out_ += fmt::format(
                "// traced speed {}: run with --traced-speed {} to project calcs as the trace's "
                "compute is\n",
                canonical_speed(trace_.traced_speed), canonical_speed(trace_.traced_speed));
        out_ += fmt::format("num_ranks {}\n", trace_.ranks());
        for (std::uint32_t r = 0; r < trace_.ranks(); ++r) {
            rank(r, sink);
            if (out_.size() >= kFlush) {
                sink(out_);
                out_.clear();
            }
        }
        sink(out_);
        out_.clear();
    }

  private:
    static constexpr std::size_t kFlush = 1u << 20;

    [[noreturn]] void refuse(std::uint32_t rank, std::uint64_t record, const Record& r,
                             const std::string& why) const {
        throw InputError(trace_.source, 0,
                         fmt::format("rank {}, record {} ({}): {}; GOAL cannot express it", rank,
                                     record, record_name(r), why));
    }

    // `label: what` and its dependencies on what came before.
    std::uint64_t emit(const std::string& what) {
        const std::uint64_t label = ++label_;
        out_ += fmt::format("l{}: {}\n", label, what);
        for (const std::uint64_t q : required_) out_ += fmt::format("l{} requires l{}\n", label, q);
        if (posted_ != 0) out_ += fmt::format("l{} irequires l{}\n", label, posted_);
        return label;
    }
    void blocking_done(std::initializer_list<std::uint64_t> labels) {
        required_.assign(labels.begin(), labels.end());
        posted_ = 0;
        ++generation_;
    }

    std::string p2p(const Record& r, bool send, std::uint32_t rank, std::uint64_t n) {
        if (r.comm != 0)
            refuse(rank, n, r,
                   fmt::format("communicator {} (GOAL has only MPI_COMM_WORLD)", r.comm));
        const std::int32_t peer = r.peer;
        if (peer < (send ? 0 : -1) ||
            (peer >= 0 && static_cast<std::uint32_t>(peer) >= trace_.ranks()))
            refuse(rank, n, r, fmt::format("peer {}", peer));
        if (r.tag < (send ? 0 : -1)) refuse(rank, n, r, fmt::format("tag {}", r.tag));
        return fmt::format("{} {}b {} {} tag {}", send ? "send" : "recv", r.bytes,
                           send ? "to" : "from", peer, r.tag);
    }

    template <class Sink>
    void rank(std::uint32_t rank, Sink&) {
        out_ += fmt::format("\nrank {} {{\n", rank);
        label_ = 0;
        required_.clear();
        posted_ = 0;
        requests_.clear();
        Trace::Cursor c = trace_.cursor(rank);
        Record r;
        std::uint64_t n = 0;
        while (c.next(r)) {
            ++n;
            using K = mpi::OpKind;
            switch (r.kind) {
                case K::Compute:
                case K::Unmodeled: {
                    std::uint64_t ns = 0;
                    if (r.compute_time.ps() > 0) {
                        ns = static_cast<std::uint64_t>((r.compute_time.ps() + 500) / 1000);
                    } else if (r.instructions != 0 && trace_.traced_speed == 0 && r.timed) {
                        // A run's simulated trace: instructions and the time they took.
                        ns = static_cast<std::uint64_t>(((r.end - r.start).ps() + 500) / 1000);
                    } else if (r.instructions != 0) {
                        if (trace_.traced_speed == 0)
                            refuse(rank, n, r,
                                   "compute given in instructions, without a recorded time, and "
                                   "the trace has no traced speed to turn them into nanoseconds");
                        ns = static_cast<std::uint64_t>(
                            (static_cast<uint128>(r.instructions) * 1'000'000'000u +
                             trace_.traced_speed / 2) /
                            trace_.traced_speed);
                    }
                    blocking_done({emit(fmt::format("calc {}", ns))});
                    break;
                }
                case K::Send:
                case K::Recv:
                    blocking_done({emit(p2p(r, r.kind == K::Send, rank, n))});
                    break;
                case K::Sendrecv: {
                    const std::uint64_t s = emit(p2p(r, true, rank, n));
                    Record back = r;
                    back.peer = r.peer2;
                    back.tag = r.tag2;
                    back.bytes = r.bytes2;
                    posted_ = s;  // the receive is posted after the send
                    const std::uint64_t v = emit(p2p(back, false, rank, n));
                    blocking_done({s, v});
                    break;
                }
                case K::Isend:
                case K::Irecv: {
                    const std::uint64_t l = emit(p2p(r, r.kind == K::Isend, rank, n));
                    requests_[r.handle] = {l, generation_};
                    posted_ = l;
                    break;
                }
                case K::Wait:
                    waited(rank, n, r, r.handle);
                    break;
                case K::Waitall:
                    for (std::uint64_t h = r.handle; h < std::uint64_t{r.handle} + r.count; ++h)
                        waited(rank, n, r, static_cast<std::uint32_t>(h));
                    break;
                case K::Collective:
                    refuse(rank, n, r,
                           "a collective (GOAL has only sends, receives and calcs; convert does "
                           "not expand collectives into point-to-point schedules)");
                case K::Cancel:
                    refuse(rank, n, r, "a cancelled request");
                default:
                    refuse(rank, n, r,
                           mpi::is_file_op(r.kind)     ? "MPI-IO"
                           : mpi::is_onesided(r.kind)  ? "one-sided communication"
                           : mpi::creates_comm(r.kind) ? "a communicator"
                                                       : "not a point-to-point call or compute");
            }
        }
        out_ += "}\n";
    }

    void waited(std::uint32_t rank, std::uint64_t n, const Record& r, std::uint32_t handle) {
        const auto it = requests_.find(handle);
        if (it == requests_.end())
            refuse(rank, n, r,
                   fmt::format("a wait for request {} that no isend/irecv started", handle));
        // Posted with what is required now: it requires all of it, so it alone will do.
        if (it->second.generation == generation_)
            required_.assign(1, it->second.label);
        else
            required_.push_back(it->second.label);
        if (posted_ == it->second.label) posted_ = 0;  // required now: started too
        ++generation_;
        requests_.erase(it);
    }

    struct Posted {
        std::uint64_t label = 0, generation = 0;
    };
    const Trace& trace_;
    std::string out_;
    std::uint64_t label_ = 0;
    std::vector<std::uint64_t> required_;  // what the next operation requires
    std::uint64_t posted_ = 0;             // the nonblocking call just before (0: none)
    std::uint64_t generation_ = 0;         // changes whenever required_ does
    std::unordered_map<std::uint32_t, Posted> requests_;  // open request handle -> its call
};

}  // namespace

std::string goal_text(const Trace& trace) {
    std::string all;
    GoalWriter(trace).write([&](const std::string& s) { all += s; });
    return all;
}

void write_goal(const Trace& trace, const std::string& path) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(path, 0, "cannot write the GOAL schedule");
    GoalWriter(trace).write(
        [&](const std::string& s) { f.write(s.data(), static_cast<std::streamsize>(s.size())); });
    f.close();
    if (!f) throw InputError(path, 0, "cannot write the GOAL schedule");
}

}  // namespace clustersim::traces
