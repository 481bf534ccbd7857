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
// collectives, files or windows: a collective on MPI_COMM_WORLD is expanded into its
// algorithm's schedule (expand, below), the others are refused.
//
// A collective's schedule (collectives/collective.hpp) is a list of steps; the executor
// (mpi/coll_executor.cpp) posts step k's transfers in order once step k-1 is complete, or,
// for a transfer whose `after` names one transfer of step k-1 or nothing, once that
// transfer is complete and step k-2 is, and runs step k's reduction once its transfers are
// complete and step k-1 is. expand writes exactly that graph: done(k), the labels whose
// completion means step k is complete, is what the next steps require; each transfer
// irequires the one posted before it (the executor's posting order).
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/goal.hpp"

namespace clustersim::traces {

namespace {

class GoalWriter {
  public:
    GoalWriter(const Trace& trace, const GoalCollectives& coll) : trace_(trace), coll_(coll) {}
    const GoalWriteReport& report() const { return report_; }

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
        for (const std::string& note : coll_.notes) out_ += fmt::format("// {}\n", note);
        if (coll_.selection != nullptr) {
            scan_tags();
            resolve_comms();
        }
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
    std::uint64_t emit(const std::string& what) { return emit(what, required_, posted_); }
    // `label: what` requiring `req` and irequiring `ireq` (0: none).
    std::uint64_t emit(const std::string& what, const std::vector<std::uint64_t>& req,
                       std::uint64_t ireq) {
        const std::uint64_t label = ++label_;
        out_ += fmt::format("l{}: {}\n", label, what);
        for (const std::uint64_t q : req) out_ += fmt::format("l{} requires l{}\n", label, q);
        if (ireq != 0) out_ += fmt::format("l{} irequires l{}\n", label, ireq);
        return label;
    }
    void blocking_done(std::initializer_list<std::uint64_t> labels) {
        blocking_done(std::vector<std::uint64_t>(labels));
    }
    void blocking_done(std::vector<std::uint64_t> labels) {
        required_ = std::move(labels);
        posted_ = 0;
        ++generation_;
    }
    static std::uint64_t to_ns(Time t) { return static_cast<std::uint64_t>((t.ps() + 500) / 1000); }

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
        coll_seq_.clear();
        handles_.clear();
        handles_[0] = 0;
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
                    requests_[r.handle] = {{l}, generation_};
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
                    expand(rank, n, r);
                    break;
                case K::CommDup:
                case K::CommSplit:
                    if (coll_.selection == nullptr) refuse(rank, n, r, "a communicator");
                    created(rank, n, r);
                    break;
                case K::CommFree:
                    if (coll_.selection == nullptr) refuse(rank, n, r, "a communicator");
                    handles_.erase(r.comm);
                    break;
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

    // Before a trace with collectives is written: the collectives' tags go above every tag
    // of its point-to-point calls, and a receive of any tag would take their messages too
    // (MPI keeps them apart in the collective context; GOAL has one tag space).
    void scan_tags() {
        std::int64_t top = -1;
        bool collectives = false;
        std::uint32_t any_rank = 0;
        std::uint64_t any_record = 0;
        Record any;
        for (std::uint32_t rank = 0; rank < trace_.ranks(); ++rank) {
            Trace::Cursor c = trace_.cursor(rank);
            Record r;
            for (std::uint64_t n = 1; c.next(r); ++n) {
                using K = mpi::OpKind;
                if (r.kind == K::Collective) collectives = true;
                if (r.kind != K::Send && r.kind != K::Recv && r.kind != K::Isend &&
                    r.kind != K::Irecv && r.kind != K::Sendrecv)
                    continue;
                top = std::max<std::int64_t>(top, r.tag);
                if (r.kind == K::Sendrecv) top = std::max<std::int64_t>(top, r.tag2);
                const bool any_tag =
                    ((r.kind == K::Recv || r.kind == K::Irecv) && r.tag == mpi::kAnyTag) ||
                    (r.kind == K::Sendrecv && r.tag2 == mpi::kAnyTag);
                if (any_tag && any_record == 0) any_rank = rank, any_record = n, any = r;
            }
        }
        if (collectives && any_record != 0)
            refuse(any_rank, any_record, any,
                   "a receive of any tag (MPI_ANY_TAG) in a trace with collectives: the "
                   "collectives' messages, which MPI keeps in their own context, share GOAL's one "
                   "tag space and it could take one of them");
        tag_base_ = top + 1;
    }

    // The communicators the trace's MPI_Comm_dup and MPI_Comm_split calls make, before the
    // ranks are written: each rank's records are scanned up to a creation on a communicator
    // whose own creation other ranks have not reached yet; a creation is resolved once every
    // member of its parent has made it (the k-th creation on a communicator by each member is
    // one call, as MPI orders them), its members ordered as MPI_Comm_split orders them
    // (colour, then key, then rank in the parent).
    void resolve_comms() {
        const std::uint32_t p = trace_.ranks();
        struct Scan {
            Trace::Cursor c;
            Record r;
            std::uint64_t n = 0;
            bool held = false, done = false;
            std::unordered_map<std::uint32_t, std::uint32_t> h{{0, 0}};
            std::unordered_map<std::uint32_t, std::uint64_t> calls;
        };
        struct Entry {
            std::int32_t color, key, parent_rank;
            std::uint32_t rank, newcomm;
            std::uint64_t record;
            mpi::OpKind kind;
        };
        std::vector<Scan> scans(p);
        for (std::uint32_t r = 0; r < p; ++r) scans[r].c = trace_.cursor(r);
        std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<Entry>> calls;
        made_.assign(p, {});
        using K = mpi::OpKind;
        for (bool progress = true; progress;) {
            progress = false;
            for (std::uint32_t rank = 0; rank < p; ++rank) {
                Scan& s = scans[rank];
                while (!s.done) {
                    if (!s.held && !s.c.next(s.r)) {
                        s.done = true;
                        break;
                    }
                    s.n += s.held ? 0 : 1;
                    s.held = false;
                    const Record& r = s.r;
                    if (r.kind == K::CommFree) s.h.erase(r.comm);
                    if (!mpi::creates_comm(r.kind)) continue;
                    if (r.kind != K::CommDup && r.kind != K::CommSplit)
                        refuse(rank, s.n, r,
                               "a communicator with a process topology (convert expands "
                               "collectives on MPI_COMM_WORLD and on communicators from "
                               "MPI_Comm_dup and MPI_Comm_split)");
                    const auto it = s.h.find(r.comm);
                    if (it == s.h.end() || it->second == kNullComm)
                        refuse(rank, s.n, r,
                               fmt::format("communicator {} is not one the rank created", r.comm));
                    if (it->second == kPendingComm) {  // made by a call others have not reached
                        s.held = true;
                        break;
                    }
                    const std::uint32_t parent = it->second;
                    const std::int32_t me = comm_rank(parent, rank);
                    const bool split = r.kind == K::CommSplit;
                    calls[{parent, s.calls[parent]++}].push_back(Entry{
                        split ? r.color : 0, split ? r.key : me, me, rank, r.newcomm, s.n, r.kind});
                    s.h[r.newcomm] = kPendingComm;
                    progress = true;
                }
            }
            for (auto it = calls.begin(); it != calls.end();) {
                const std::uint32_t parent = it->first.first;
                std::vector<Entry>& e = it->second;
                if (e.size() < (parent == 0 ? p : comms_[parent].size())) {
                    ++it;
                    continue;
                }
                std::sort(e.begin(), e.end(), [](const Entry& x, const Entry& y) {
                    return std::tie(x.color, x.key, x.parent_rank) <
                           std::tie(y.color, y.key, y.parent_rank);
                });
                for (std::size_t i = 0, j = 0; i < e.size(); i = j) {
                    while (j < e.size() && e[j].color == e[i].color) ++j;
                    std::uint32_t id = kNullComm;
                    if (e[i].color != mpi::kUndefined) {
                        id = static_cast<std::uint32_t>(comms_.size());
                        comms_.emplace_back();
                        rank_of_.emplace_back();
                        for (std::size_t k = i; k < j; ++k) {
                            rank_of_.back().emplace_back(
                                static_cast<std::int32_t>(e[k].rank),
                                static_cast<std::int32_t>(comms_.back().size()));
                            comms_.back().push_back(static_cast<std::int32_t>(e[k].rank));
                        }
                        std::sort(rank_of_.back().begin(), rank_of_.back().end());
                    }
                    for (std::size_t k = i; k < j; ++k) {
                        made_[e[k].rank][e[k].record] = id;
                        scans[e[k].rank].h[e[k].newcomm] = id;
                    }
                }
                it = calls.erase(it);
                progress = true;
            }
        }
        if (!calls.empty()) {
            const Entry& e = calls.begin()->second.front();
            Record r;
            r.kind = e.kind;
            refuse(e.rank, e.record, r,
                   "a communicator creation that not every member of its communicator makes");
        }
    }
    // The rank's number in communicator `comm` (0: MPI_COMM_WORLD).
    std::int32_t comm_rank(std::uint32_t comm, std::uint32_t rank) const {
        if (comm == 0) return static_cast<std::int32_t>(rank);
        const auto& v = rank_of_[comm];
        const auto it = std::lower_bound(
            v.begin(), v.end(),
            std::pair<std::int32_t, std::int32_t>(static_cast<std::int32_t>(rank), -1));
        return it->second;
    }
    // A creating record in the rank's order: its handle names what resolve_comms made. GOAL
    // has no such call: nothing is written (its synchronisation is not kept).
    void created(std::uint32_t rank, std::uint64_t n, const Record& r) {
        const std::uint32_t id = made_[rank].at(n);
        handles_[r.newcomm] = id;
        out_ += id == kNullComm ? fmt::format("// {}: MPI_COMM_NULL\n", record_name(r))
                                : fmt::format("// {}: communicator {} of {} ranks\n",
                                              record_name(r), id, comms_[id].size());
    }

    // A collective as its algorithm's schedule (the file's header comment), on its
    // communicator's members.
    void expand(std::uint32_t rank, std::uint64_t n, const Record& r) {
        if (coll_.selection == nullptr)
            refuse(rank, n, r,
                   "a collective (GOAL has only sends, receives and calcs; convert expands "
                   "collectives into their algorithms' schedules only when it writes GOAL)");
        const auto h = handles_.find(r.comm);
        if (h == handles_.end() || h->second == kNullComm)
            refuse(rank, n, r,
                   fmt::format("communicator {} is not one the rank created (or it is freed, or "
                               "MPI_COMM_NULL)",
                               r.comm));
        const std::uint32_t comm = h->second;
        if (mpi::is_neighbor(r.coll))
            refuse(rank, n, r, "a neighbourhood collective (its communicator has no topology)");
        mpi::CollArgs a;
        a.op = r.coll;
        a.rank = comm_rank(comm, rank);
        a.size = comm == 0 ? static_cast<std::int32_t>(trace_.ranks())
                           : static_cast<std::int32_t>(comms_[comm].size());
        a.root = r.root;
        a.bytes = r.bytes;
        if (r.counts != kNone) a.counts = &trace_.count_lists[static_cast<std::size_t>(r.counts)];
        if (a.root < 0 || a.root >= a.size)
            refuse(rank, n, r, fmt::format("root {} of {} ranks", a.root, a.size));
        const auto size = static_cast<std::size_t>(a.size);
        const std::size_t need = mpi::is_pairwise_v(a.op) ? size * size : size;
        std::uint64_t choice_size = a.bytes;
        if (mpi::is_v(a.op)) {
            if (a.counts == nullptr || a.counts->size() != need)
                refuse(rank, n, r,
                       fmt::format("{} counts where the collective needs {}",
                                   a.counts == nullptr ? 0 : a.counts->size(), need));
            std::uint64_t sum = 0;
            for (const std::uint64_t x : *a.counts) sum += x;
            choice_size = sum / need;  // as the runtime chooses (collective_args)
        }
        const mpi::Choice choice = coll_.selection->choose(a.op, choice_size, a.size);
        if (choice.segment != 0) a.segment = choice.segment;
        const std::string name = fmt::format("{}/{}", mpi::to_string(a.op), choice.name);
        if (choice.algorithm->global_view())
            refuse(rank, n, r,
                   fmt::format("{} completes once every rank has entered, without messages", name));
        // One tag per call and communicator: the rank's calls on it so far, interleaved
        // with the other communicators'.
        const std::int64_t tag = tag_base_ +
                                 static_cast<std::int64_t>(coll_seq_[comm]++) *
                                     static_cast<std::int64_t>(comms_.size()) +
                                 comm;
        if (tag > std::numeric_limits<std::int32_t>::max())
            refuse(rank, n, r, fmt::format("its messages' tag {} is beyond 2^31 - 1", tag));
        if (rank == 0) ++report_.collectives[name];
        out_ += fmt::format(
            "// {}{} {} B{}: {}, tag {}\n", r.nonblocking ? "nonblocking " : "",
            mpi::to_string(a.op), a.bytes,
            comm == 0 ? std::string()
                      : fmt::format(" on communicator {} (rank {} of {})", comm, a.rank, a.size),
            name, tag);
        const Steps done = steps(a, *choice.algorithm, tag, comm);
        if (r.nonblocking) {
            // The call returns once its first operations are posted: what follows irequires
            // the first; a wait on its request requires its last step.
            requests_[r.handle] = {done.done, generation_};
            if (done.first != 0) posted_ = done.first;
        } else if (done.first != 0) {
            blocking_done(done.done);
        }
    }

    struct Steps {
        std::uint64_t first = 0;          // the first label written (0: none)
        std::vector<std::uint64_t> done;  // complete: the call is
    };
    // The schedule of `a` (its local work included) after what is required now.
    Steps steps(const mpi::CollArgs& a, const mpi::Algorithm& alg, std::int64_t tag,
                std::uint32_t comm) {
        Steps out;
        std::uint64_t last = posted_;  // the operation posted just before (irequires)
        const auto put = [&](const std::string& what, const std::vector<std::uint64_t>& req,
                             std::uint64_t ireq) {
            // Started before: implied when it is also required.
            if (std::find(req.begin(), req.end(), ireq) != req.end()) ireq = 0;
            const std::uint64_t l = emit(what, req, ireq);
            if (out.first == 0) out.first = l;
            return l;
        };
        std::vector<std::uint64_t> m2 = required_, m1 = required_;  // done(k-2), done(k-1)
        if (coll_.copy) {  // the own block's copy, and the algorithm's, before the first step
            const std::uint64_t bytes =
                own_block(a) + (coll_.buffer_copies ? alg.buffer_copies(a).before : 0);
            if (bytes > 0) {
                m2 = m1 = {put(fmt::format("calc {}", to_ns(coll_.copy(bytes))), m1, last)};
                last = 0;
            }
        }
        mpi::Step step;
        std::vector<std::uint64_t> prev, labels, req;
        for (std::uint32_t k = 0; alg.step(a, k, step); ++k) {
            labels.clear();
            bool whole = k == 0;  // a transfer waits for all of step k-1
            for (const mpi::Transfer& t : step.transfers) {
                if (k == 0 || t.after == mpi::kAfterStep) {
                    req = m1;
                    whole = true;
                } else {
                    req = m2;
                    if (t.after >= 0) req.push_back(prev.at(static_cast<std::size_t>(t.after)));
                }
                const std::int32_t peer = comm == 0 ? t.peer : comms_[comm][t.peer];
                last = put(fmt::format("{} {}b {} {} tag {}", t.send ? "send" : "recv", t.bytes,
                                       t.send ? "to" : "from", peer, tag),
                           req, last);
                labels.push_back(last);
            }
            std::vector<std::uint64_t> done;
            if (step.reduce_bytes > 0 && coll_.reduce) {
                req = labels;
                req.insert(req.end(), m1.begin(), m1.end());
                done = {
                    put(fmt::format("calc {}", to_ns(coll_.reduce(step.reduce_bytes))), req, 0)};
            } else if (labels.empty()) {
                done = m1;
            } else {
                done = labels;
                if (!whole)  // step k-1's own labels: nothing of step k implies them
                    for (const std::uint64_t l : m1)
                        if (std::find(m2.begin(), m2.end(), l) == m2.end()) done.push_back(l);
            }
            m2 = std::move(m1);
            m1 = std::move(done);
            prev = labels;
            step.clear();
        }
        Time work = a.op == mpi::CollOp::Barrier ? coll_.barrier_cost : Time::zero();
        if (coll_.copy && coll_.buffer_copies) {
            const std::uint64_t after = alg.buffer_copies(a).after;
            if (after > 0) work += coll_.copy(after);
        }
        if (work > Time::zero()) m1 = {put(fmt::format("calc {}", to_ns(work)), m1, 0)};
        out.done = std::move(m1);
        return out;
    }
    // What a rank copies from its send to its receive buffer itself (Runtime::own_block_copy).
    static std::uint64_t own_block(const mpi::CollArgs& a) {
        using C = mpi::CollOp;
        switch (a.op) {
            case C::Gather:
            case C::Gatherv:
            case C::Scatter:
            case C::Scatterv:
                return a.rank == a.root ? a.block(a.rank) : 0;
            case C::Allgather:
            case C::Allgatherv:
                return a.block(a.rank);
            case C::Alltoall:
            case C::Alltoallv:
            case C::Alltoallw:
                return a.block(a.rank, a.rank);
            default:
                return 0;
        }
    }

    void waited(std::uint32_t rank, std::uint64_t n, const Record& r, std::uint32_t handle) {
        const auto it = requests_.find(handle);
        if (it == requests_.end())
            refuse(rank, n, r,
                   fmt::format("a wait for request {} that no isend/irecv started", handle));
        // Posted with what is required now: it requires all of it, so it alone will do.
        const std::vector<std::uint64_t>& labels = it->second.labels;
        if (it->second.generation == generation_)
            required_ = labels;
        else
            required_.insert(required_.end(), labels.begin(), labels.end());
        if (std::find(labels.begin(), labels.end(), posted_) != labels.end())
            posted_ = 0;  // required now: started too
        ++generation_;
        requests_.erase(it);
    }

    struct Posted {
        std::vector<std::uint64_t> labels;  // complete: the request is
        std::uint64_t generation = 0;
    };
    const Trace& trace_;
    const GoalCollectives& coll_;
    GoalWriteReport report_;
    std::int64_t tag_base_ = 0;  // the first collective's tag: above every tag of the trace
    // Communicators (resolve_comms): 0 is MPI_COMM_WORLD; every other one its members' world
    // ranks in communicator-rank order, and (rank_of_) the same sorted by world rank with each
    // one's communicator rank.
    static constexpr std::uint32_t kNullComm = ~0u, kPendingComm = ~0u - 1;
    std::vector<std::vector<std::int32_t>> comms_{{}};
    std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> rank_of_{{}};
    // Per rank: the communicator each of its creating records (by record number) made.
    std::vector<std::unordered_map<std::uint64_t, std::uint32_t>> made_;
    std::unordered_map<std::uint32_t, std::uint32_t> handles_;   // the rank's handle -> comm
    std::unordered_map<std::uint32_t, std::uint64_t> coll_seq_;  // comm -> the rank's calls
    std::string out_;
    std::uint64_t label_ = 0;
    std::vector<std::uint64_t> required_;  // what the next operation requires
    std::uint64_t posted_ = 0;             // the nonblocking call just before (0: none)
    std::uint64_t generation_ = 0;         // changes whenever required_ does
    std::unordered_map<std::uint32_t, Posted> requests_;  // open request handle -> its call
};

}  // namespace

std::string goal_text(const Trace& trace, const GoalCollectives& collectives) {
    std::string all;
    GoalWriter(trace, collectives).write([&](const std::string& s) { all += s; });
    return all;
}

GoalWriteReport write_goal(const Trace& trace, const std::string& path,
                           const GoalCollectives& collectives) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(path, 0, "cannot write the GOAL schedule");
    GoalWriter w(trace, collectives);
    w.write(
        [&](const std::string& s) { f.write(s.data(), static_cast<std::streamsize>(s.size())); });
    f.close();
    if (!f) throw InputError(path, 0, "cannot write the GOAL schedule");
    return w.report();
}

}  // namespace clustersim::traces
