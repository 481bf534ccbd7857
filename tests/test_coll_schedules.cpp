// Every registered collective algorithm's schedule, checked without the engine.
//
// The data-movement check runs each schedule symbolically on block identities: every rank
// holds a copy of the operation's data space (collective.hpp: data_space), each unit of it
// either absent or holding a set of contributions (reductions: which ranks' values were
// combined into it; other operations: present or not). The ranks' steps run as the runtime
// runs them (two steps in flight, transfers posted in order as their dependencies allow:
// collective.hpp, Transfer::after), with rendezvous semantics (a transfer completes when it
// is matched, per ordered pair in posting order, as MPI's non-overtaking rule matches them;
// a step ends when all its transfers have), so a schedule that would deadlock does here
// too. A send carries its sender's units as they are when it is posted; a receive lands when
// it is matched, written over the receiver's units, or, in a step that reduces, when its
// step ends, combined into them (the sets must be disjoint: every contribution counted
// once; a send may not depend on units its previous step has still to combine). Every
// message also carries whom its sender has heard from (transitively). At the end each
// operation's postcondition must hold (bcast: everyone holds the root's buffer; reduce: the
// root holds every contribution exactly once; alltoall: the transpose; scan: prefixes;
// barrier: everyone has heard from everyone; ...). Also checked: sends match receives in
// bytes, nothing is left unmatched, a rank never sends data it does not hold, never
// overwrites in one step data it sends in that step, and a step's reduce_bytes is what it
// combines (a step without receives may reduce: local work).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "collectives/collective.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using mpi::CollArgs;
using mpi::CollOp;

bool reduction(CollOp op) {
    return op == CollOp::Reduce || op == CollOp::Allreduce || op == CollOp::Scan ||
           op == CollOp::Exscan || op == CollOp::ReduceScatter || op == CollOp::ReduceScatterBlock;
}

// A set of ranks (contributions or "heard from").
using Bits = std::vector<std::uint64_t>;

class DataFlow {
  public:
    // `rank_counts`: each rank's own counts (neighbourhood v-forms: MPI's local view).
    DataFlow(const mpi::Algorithm& alg, CollArgs args,
             const std::vector<std::vector<std::uint64_t>>* rank_counts = nullptr)
        : alg_(alg), args_(args), rank_counts_(rank_counts) {
        p_ = args.size;
        red_ = reduction(args.op);
        ident_ = mpi::is_neighbor(args.op);
        w_ = red_ ? static_cast<std::size_t>((p_ + 63) / 64) : 1;
        d_ = mpi::data_space(args);
        hw_ = static_cast<std::size_t>((p_ + 63) / 64);
        ranks_.resize(static_cast<std::size_t>(p_));
        sends_.resize(static_cast<std::size_t>(p_) * static_cast<std::size_t>(p_));
        recvs_.resize(sends_.size());
        for (std::int32_t r = 0; r < p_; ++r) init(r);
    }

    // Runs the schedule; an empty string when it ends with the postcondition.
    std::string run() {
        for (bool progress = true; progress;) {
            progress = false;
            for (std::int32_t r = 0; r < p_; ++r) {
                bool changed = false;
                if (std::string e = advance(r, changed); !e.empty()) return e;
                progress = progress || changed;
            }
        }
        for (std::int32_t r = 0; r < p_; ++r) {
            const Rank& x = ranks_[static_cast<std::size_t>(r)];
            if (!x.ended || x.slots[0].valid || x.slots[1].valid)
                return fmt::format("deadlock: rank {} never finishes step {}", r,
                                   x.slots[x.front].k);
        }
        for (std::size_t pair = 0; pair < sends_.size(); ++pair)
            if (!sends_[pair].empty())
                return fmt::format("rank {} sends rank {} a message never received",
                                   pair / static_cast<std::size_t>(p_),
                                   pair % static_cast<std::size_t>(p_));
        return postcondition();
    }

    std::uint64_t messages() const { return messages_; }

  private:
    struct Msg {
        std::uint64_t bytes = 0;
        std::vector<std::uint64_t> data;  // bytes units of w_ words
        Bits heard;
    };
    struct Slot {  // one step in flight
        mpi::Step step;
        std::uint32_t k = 0;  // its number
        bool valid = false;
        std::uint32_t posted = 0, matched = 0;
        std::vector<std::int64_t> msg_of;     // per transfer: its message, -1 while unmatched
        std::vector<std::uint64_t> sent;      // units its sends name
        std::vector<std::uint64_t> combined;  // units its receives combine
        // The same as bit sets over the d_ units (a look-up per landed unit); only the bits
        // of the lists are set, so a new step clears them in the lists' time.
        std::vector<std::uint64_t> sent_bits, combined_bits;
        static bool has(const std::vector<std::uint64_t>& bits, std::uint64_t u) {
            return ((bits[u / 64] >> (u % 64)) & 1) != 0;
        }
        void mark(std::vector<std::uint64_t>& bits, const std::vector<std::uint64_t>& units,
                  bool on) {
            for (std::uint64_t u : units) {
                const std::uint64_t bit = std::uint64_t{1} << (u % 64);
                bits[u / 64] = on ? bits[u / 64] | bit : bits[u / 64] & ~bit;
            }
        }
    };
    struct Rank {
        std::vector<std::uint64_t> units;  // d_ units of w_ words
        Bits heard;
        std::array<Slot, 2> slots;
        std::uint8_t front = 0;  // the older step's slot
        std::uint32_t k = 0;     // steps generated
        bool ended = false;
    };
    struct Pending {  // a transfer waiting for its match
        std::int32_t rank;
        std::uint8_t slot;
        std::size_t index;
        std::int64_t msg;  // sends: the message
    };

    std::uint64_t* unit(std::int32_t r, std::uint64_t u) {
        return &ranks_[static_cast<std::size_t>(r)].units[(u % d_) * w_];
    }
    bool empty(const std::uint64_t* x) const {
        for (std::size_t i = 0; i < w_; ++i)
            if (x[i] != 0) return false;
        return true;
    }
    void mark(std::int32_t r, std::uint64_t first, std::uint64_t n, std::int32_t who) {
        for (std::uint64_t u = first; u < first + n; ++u) {
            std::uint64_t* x = unit(r, u);
            if (red_)
                x[static_cast<std::size_t>(who) / 64] |= std::uint64_t{1}
                                                         << (static_cast<unsigned>(who) % 64);
            else
                x[0] = present(u);
        }
    }
    // A present unit's content: 1, or (neighbourhood collectives, whose receive blocks must
    // get the right sender's right block) the unit's own number + 1, checked where it lands.
    std::uint64_t present(std::uint64_t u) const { return ident_ && d_ > 0 ? u % d_ + 1 : 1; }
    void init(std::int32_t r) {
        Rank& x = ranks_[static_cast<std::size_t>(r)];
        x.units.assign(d_ * w_, 0);
        x.heard.assign(hw_, 0);
        x.heard[static_cast<std::size_t>(r) / 64] |= std::uint64_t{1}
                                                     << (static_cast<unsigned>(r) % 64);
        for (Slot& slot : x.slots) {
            slot.step.describe = true;
            slot.sent_bits.assign((d_ + 63) / 64, 0);
            slot.combined_bits.assign((d_ + 63) / 64, 0);
        }
        const CollArgs& a = args_;
        const std::uint64_t m = a.bytes;
        switch (a.op) {
            case CollOp::Barrier:
                break;
            case CollOp::Bcast:
            case CollOp::Scatter:
            case CollOp::Scatterv:
                if (r == a.root) mark(r, 0, d_, r);
                break;
            case CollOp::Reduce:
            case CollOp::Allreduce:
            case CollOp::ReduceScatter:
            case CollOp::ReduceScatterBlock:
                mark(r, 0, d_, r);
                break;
            case CollOp::Scan:
                mark(r, 0, 2 * m, r);
                break;
            case CollOp::Exscan:
                mark(r, m, m, r);
                break;
            case CollOp::Gather:
            case CollOp::Gatherv:
            case CollOp::Allgather:
            case CollOp::Allgatherv:
                mark(r, a.displ(r), a.displ(r + 1) - a.displ(r), r);
                break;
            case CollOp::Alltoall:
            case CollOp::Alltoallv:
            case CollOp::Alltoallw:
                mark(r, a.displ(r, 0), a.displ(r * p_ + p_) - a.displ(r, 0), r);
                break;
            case CollOp::NeighborAllgather:
            case CollOp::NeighborAllgatherv:
                mark(r, mpi::neighbor_displ(a, r),
                     mpi::neighbor_displ(a, r + 1) - mpi::neighbor_displ(a, r), r);
                break;
            case CollOp::NeighborAlltoall:
            case CollOp::NeighborAlltoallv:
            case CollOp::NeighborAlltoallw: {
                const auto out =
                    static_cast<std::uint32_t>(a.topo->out[static_cast<std::size_t>(r)].size());
                mark(r, mpi::neighbor_displ(a, r, 0),
                     mpi::neighbor_displ(a, r, out) - mpi::neighbor_displ(a, r, 0), r);
                break;
            }
        }
    }

    // The units a transfer names, in message order (k slices of t.bytes).
    // Into `out` (a buffer reused across calls: the checker runs millions of transfers).
    void units_of(const mpi::Step& s, const mpi::Transfer& t,
                  std::vector<std::uint64_t>& out) const {
        out.clear();
        if (t.pieces == 0) {
            for (std::uint64_t i = 0; i < t.bytes; ++i) out.push_back(t.offset + i);
        } else {
            for (std::uint32_t i = t.piece; i < t.piece + t.pieces; ++i)
                for (std::uint64_t j = 0; j < s.piece_list[i].bytes; ++j)
                    out.push_back(s.piece_list[i].offset + j);
        }
        if (d_ > 0)
            for (auto& u : out) u %= d_;
    }

    // Generates rank r's next step into slot s (or notes the schedule's end).
    std::string generate(std::int32_t r, std::uint8_t s) {
        Rank& x = ranks_[static_cast<std::size_t>(r)];
        Slot& slot = x.slots[s];
        CollArgs a = args_;
        a.rank = r;
        if (rank_counts_ != nullptr) a.counts = &(*rank_counts_)[static_cast<std::size_t>(r)];
        slot.step.clear();
        if (x.k > 100 + 20 * static_cast<std::uint32_t>(p_))
            return fmt::format("rank {}: schedule does not end", r);
        if (!alg_.step(a, x.k, slot.step)) {
            x.ended = true;
            return "";
        }
        slot.k = x.k++;
        slot.valid = true;
        slot.posted = slot.matched = 0;
        slot.msg_of.assign(slot.step.transfers.size(), -1);
        slot.mark(slot.sent_bits, slot.sent, false);
        slot.mark(slot.combined_bits, slot.combined, false);
        slot.sent.clear();
        slot.combined.clear();
        const bool combine = slot.step.reduce_bytes > 0;
        if (combine && !red_)
            return fmt::format("rank {} step {}: reduces in a {}", r, slot.k,
                               mpi::to_string(args_.op));
        for (std::size_t i = 0; i < slot.step.transfers.size(); ++i) {
            const mpi::Transfer& t = slot.step.transfers[i];
            // Formatted only for an error: the checker runs millions of transfers.
            const auto where = [&] {
                return fmt::format("rank {} step {} transfer {}", r, slot.k, i);
            };
            if (t.peer < 0 || t.peer >= p_ || t.peer == r)
                return fmt::format("{}: peer {} is out of range or itself", where(), t.peer);
            if (t.after >= 0 && slot.k == 0)
                return fmt::format("{}: depends on a transfer of no previous step", where());
            auto& us = generate_units_;
            units_of(slot.step, t, us);
            if (d_ == 0 ? !us.empty()
                        : us.size() % std::max<std::uint64_t>(t.bytes, 1) != 0 ||
                              (t.bytes == 0 && !us.empty()) || (t.bytes > 0 && us.empty()))
                return fmt::format("{}: {} bytes but {} units described", where(), t.bytes,
                                   us.size());
            auto& into = t.send ? slot.sent : slot.combined;
            if (t.send || combine) into.insert(into.end(), us.begin(), us.end());
        }
        slot.mark(slot.sent_bits, slot.sent, true);
        slot.mark(slot.combined_bits, slot.combined, true);
        return "";
    }

    // Lands the message of receive `i` of rank r's slot s (written over its units).
    std::string land(std::int32_t r, std::uint8_t s, std::size_t i, bool combine) {
        Rank& x = ranks_[static_cast<std::size_t>(r)];
        const Slot& slot = x.slots[s];
        const mpi::Transfer& t = slot.step.transfers[i];
        const Msg& m = msgs_[static_cast<std::size_t>(slot.msg_of[i])];
        const auto where = [&] { return fmt::format("rank {} step {} receive {}", r, slot.k, i); };
        if (m.bytes != t.bytes)
            return fmt::format("{}: {} bytes from rank {}, which sent {}", where(), t.bytes, t.peer,
                               m.bytes);
        for (std::size_t b = 0; b < hw_; ++b) x.heard[b] |= m.heard[b];
        auto& us = land_units_;
        units_of(slot.step, t, us);
        for (std::size_t j = 0; j < us.size(); ++j) {
            std::uint64_t* dst = unit(r, us[j]);
            const std::uint64_t* src = &m.data[(j % t.bytes) * w_];
            if (combine) {
                for (std::size_t b = 0; b < w_; ++b) {
                    if ((dst[b] & src[b]) != 0)
                        return fmt::format("{}: unit {} gets a contribution twice", where(), us[j]);
                    dst[b] |= src[b];
                }
            } else {
                if (Slot::has(slot.sent_bits, us[j]))
                    return fmt::format("{}: overwrites unit {} its step sends", where(), us[j]);
                if (ident_ && src[0] != present(us[j]))
                    return fmt::format("{}: unit {} gets rank {}'s unit {}", where(), us[j], t.peer,
                                       src[0] - 1);
                std::copy(src, src + w_, dst);
            }
        }
        return "";
    }

    // Transfer i of rank r's slot s has its match (message `msg`).
    std::string matched(std::int32_t r, std::uint8_t s, std::size_t i, std::int64_t msg) {
        Slot& slot = ranks_[static_cast<std::size_t>(r)].slots[s];
        slot.msg_of[i] = msg;
        ++slot.matched;
        if (!slot.step.transfers[i].send && slot.step.reduce_bytes == 0)
            return land(r, s, i, false);
        return "";
    }

    // Posts rank r's slot s's transfers in order while their dependencies are complete.
    std::string post(std::int32_t r, std::uint8_t s, bool& changed) {
        for (;;) {
            Rank& x = ranks_[static_cast<std::size_t>(r)];
            Slot& slot = x.slots[s];
            if (slot.posted == slot.step.transfers.size()) return "";
            const std::size_t i = slot.posted;
            const mpi::Transfer& t = slot.step.transfers[i];
            const bool early = s != x.front;  // the previous step is still in flight
            const Slot& prev = x.slots[x.front];
            if (early) {
                if (t.after == mpi::kAfterStep) return "";
                if (t.after >= 0) {
                    if (static_cast<std::size_t>(t.after) >= prev.step.transfers.size())
                        return fmt::format(
                            "rank {} step {} transfer {}: depends on transfer {} "
                            "of a step of {}",
                            r, slot.k, i, t.after, prev.step.transfers.size());
                    if (prev.msg_of[static_cast<std::size_t>(t.after)] < 0) return "";
                }
            }
            ++slot.posted;
            changed = true;
            // Formatted only for an error: the checker runs millions of transfers.
            const auto where = [&] {
                return fmt::format("rank {} step {} transfer {}", r, slot.k, i);
            };
            if (!t.send) {  // matches the oldest unmatched send of the peer, if any
                auto& q = queue(sends_, t.peer, r);
                if (q.empty()) {
                    queue(recvs_, t.peer, r).push_back(Pending{r, s, i, -1});
                    continue;
                }
                const Pending snd = q.front();
                q.pop_front();
                if (std::string e = matched(snd.rank, snd.slot, snd.index, snd.msg); !e.empty())
                    return e;
                if (std::string e = matched(r, s, i, snd.msg); !e.empty()) return e;
                continue;
            }
            auto& us = post_units_;
            units_of(slot.step, t, us);
            Msg msg;
            msg.bytes = t.bytes;
            msg.heard = x.heard;
            msg.data.assign(t.bytes * w_, 0);
            for (std::size_t j = 0; j < us.size(); ++j) {
                if (early && Slot::has(prev.combined_bits, us[j]))
                    return fmt::format("{}: sends unit {} its previous step has still to combine",
                                       where(), us[j]);
                const std::uint64_t* src = unit(r, us[j]);
                if (empty(src))
                    return fmt::format("{}: sends unit {} it does not hold", where(), us[j]);
                std::uint64_t* dst = &msg.data[(j % t.bytes) * w_];
                for (std::size_t b = 0; b < w_; ++b) {
                    if (red_ && j >= t.bytes && (dst[b] & src[b]) != 0)
                        return fmt::format("{}: combines a contribution twice", where());
                    dst[b] |= src[b];
                }
            }
            const auto id = static_cast<std::int64_t>(msgs_.size());
            msgs_.push_back(std::move(msg));
            ++messages_;
            auto& q = queue(recvs_, r, t.peer);
            if (q.empty()) {
                queue(sends_, r, t.peer).push_back(Pending{r, s, i, id});
                continue;
            }
            const Pending rcv = q.front();
            q.pop_front();
            if (std::string e = matched(r, s, i, id); !e.empty()) return e;
            if (std::string e = matched(rcv.rank, rcv.slot, rcv.index, id); !e.empty()) return e;
        }
    }

    // The older step of rank r is complete: its combining receives land.
    std::string finish_step(std::int32_t r, std::uint8_t s) {
        Slot& slot = ranks_[static_cast<std::size_t>(r)].slots[s];
        std::uint64_t combined = 0;
        bool receives = false;
        if (slot.step.reduce_bytes > 0) {
            for (std::size_t i = 0; i < slot.step.transfers.size(); ++i) {
                const mpi::Transfer& t = slot.step.transfers[i];
                if (t.send) continue;
                if (std::string e = land(r, s, i, true); !e.empty()) return e;
                units_of(slot.step, t, land_units_);
                combined += land_units_.size();
                receives = true;
            }
        }
        // A step without receives may reduce: local work (exscan combines its own
        // contribution into what it passes on).
        if (receives && combined != slot.step.reduce_bytes)
            return fmt::format("rank {} step {}: reduces {} bytes but combines {}", r, slot.k,
                               slot.step.reduce_bytes, combined);
        slot.valid = false;
        return "";
    }

    // Does what rank r can do now, as the runtime's pump.
    std::string advance(std::int32_t r, bool& changed) {
        for (;;) {
            Rank& x = ranks_[static_cast<std::size_t>(r)];
            const std::uint8_t f = x.front;
            if (!x.slots[f].valid) {
                if (x.slots[f ^ 1].valid) {
                    x.front ^= 1;
                    changed = true;
                    continue;
                }
                if (x.ended) return "";
                if (std::string e = generate(r, f); !e.empty()) return e;
                changed = true;
                continue;
            }
            if (std::string e = post(r, f, changed); !e.empty()) return e;
            if (!x.slots[f ^ 1].valid && !x.ended) {
                if (std::string e = generate(r, f ^ 1); !e.empty()) return e;
                changed = true;
                continue;
            }
            if (x.slots[f ^ 1].valid)
                if (std::string e = post(r, f ^ 1, changed); !e.empty()) return e;
            const Slot& older = x.slots[f];
            if (older.posted < older.step.transfers.size() ||
                older.matched < older.step.transfers.size())
                return "";
            if (std::string e = finish_step(r, f); !e.empty()) return e;
            changed = true;
        }
    }

    // Whether rank r's units [first, first + n) hold exactly the contributions [lo, hi)
    // (non-reductions: are present).
    std::string holds(std::int32_t r, std::uint64_t first, std::uint64_t n, std::int32_t lo,
                      std::int32_t hi, const char* what) {
        Bits want(w_, 0);
        if (red_) {
            for (std::int32_t c = lo; c < hi; ++c)
                want[static_cast<std::size_t>(c) / 64] |= std::uint64_t{1}
                                                          << (static_cast<unsigned>(c) % 64);
        }
        for (std::uint64_t u = first; u < first + n; ++u) {
            if (!red_) want[0] = present(u);
            const std::uint64_t* x = unit(r, u);
            if (!std::equal(x, x + w_, want.begin()))
                return fmt::format("rank {} lacks {} (unit {})", r, what, u % d_);
        }
        return "";
    }

    std::string postcondition() {
        const CollArgs& a = args_;
        const std::uint64_t m = a.bytes;
        for (std::int32_t r = 0; r < p_; ++r) {
            std::string e;
            switch (a.op) {
                case CollOp::Barrier: {
                    for (std::int32_t q = 0; q < p_; ++q)
                        if ((ranks_[static_cast<std::size_t>(r)]
                                     .heard[static_cast<std::size_t>(q) / 64] >>
                                 (static_cast<unsigned>(q) % 64) &
                             1) == 0)
                            return fmt::format("rank {} leaves without hearing from rank {}", r, q);
                    break;
                }
                case CollOp::Bcast:
                case CollOp::Allgather:
                case CollOp::Allgatherv:
                    e = holds(r, 0, d_, 0, 0, "the result");
                    break;
                case CollOp::Gather:
                case CollOp::Gatherv:
                    if (r == a.root) e = holds(r, 0, d_, 0, 0, "the gathered blocks");
                    break;
                case CollOp::Scatter:
                case CollOp::Scatterv:
                    e = holds(r, a.displ(r), a.displ(r + 1) - a.displ(r), 0, 0, "its block");
                    break;
                case CollOp::Reduce:
                    if (r == a.root) e = holds(r, 0, d_, 0, p_, "the reduction");
                    break;
                case CollOp::Allreduce:
                    e = holds(r, 0, d_, 0, p_, "the reduction");
                    break;
                case CollOp::Scan:
                    e = holds(r, 0, m, 0, r + 1, "its prefix");
                    break;
                case CollOp::Exscan:
                    if (r > 0) e = holds(r, 0, m, 0, r, "its exclusive prefix");
                    break;
                case CollOp::ReduceScatter:
                case CollOp::ReduceScatterBlock:
                    e = holds(r, a.displ(r), a.displ(r + 1) - a.displ(r), 0, p_,
                              "its reduced block");
                    break;
                case CollOp::Alltoall:
                case CollOp::Alltoallv:
                case CollOp::Alltoallw:
                    for (std::int32_t i = 0; i < p_ && e.empty(); ++i)
                        e = holds(r, a.displ(i, r), a.displ(i * p_ + r + 1) - a.displ(i, r), 0, 0,
                                  "a block of the transpose");
                    break;
                case CollOp::NeighborAllgather:
                case CollOp::NeighborAllgatherv:
                case CollOp::NeighborAlltoall:
                case CollOp::NeighborAlltoallv:
                case CollOp::NeighborAlltoallw: {
                    // Each in-neighbour's block for this rank, in neighbour order.
                    const bool gather =
                        a.op == CollOp::NeighborAllgather || a.op == CollOp::NeighborAllgatherv;
                    for (const mpi::Neighbor& n : a.topo->in[static_cast<std::size_t>(r)]) {
                        if (n.rank == mpi::kProcNull || !e.empty()) continue;
                        const std::uint64_t first = gather ? mpi::neighbor_displ(a, n.rank)
                                                           : mpi::neighbor_displ(a, n.rank, n.slot);
                        const std::uint64_t end = gather
                                                      ? mpi::neighbor_displ(a, n.rank + 1)
                                                      : mpi::neighbor_displ(a, n.rank, n.slot + 1);
                        e = holds(r, first, end - first, 0, 0, "an in-neighbour's block");
                    }
                    break;
                }
            }
            if (!e.empty()) return e;
        }
        return "";
    }

    const mpi::Algorithm& alg_;
    CollArgs args_;
    const std::vector<std::vector<std::uint64_t>>* rank_counts_ = nullptr;
    std::int32_t p_ = 1;
    bool red_ = false;
    bool ident_ = false;
    std::size_t w_ = 1, hw_ = 1;
    std::uint64_t d_ = 0;
    std::vector<Rank> ranks_;
    std::vector<Msg> msgs_;
    std::vector<std::uint64_t> generate_units_, land_units_, post_units_;  // units_of's buffers
    // Unmatched sends and receives, first in first out, per (from, to) at from * p + to.
    struct Fifo {
        std::vector<Pending> items;
        std::size_t head = 0;
        bool empty() const { return head == items.size(); }
        const Pending& front() const { return items[head]; }
        void pop_front() {
            if (++head == items.size()) {
                items.clear();
                head = 0;
            }
        }
        void push_back(const Pending& p) { items.push_back(p); }
    };
    Fifo& queue(std::vector<Fifo>& queues, std::int32_t from, std::int32_t to) {
        return queues[static_cast<std::size_t>(from) * static_cast<std::size_t>(p_) +
                      static_cast<std::size_t>(to)];
    }
    std::vector<Fifo> sends_, recvs_;
    std::uint64_t messages_ = 0;
};

std::vector<int> rank_counts() {
    std::vector<int> ps;
#ifdef CLUSTERSIM_SANITIZED
    // The sanitizer pass checks the same code for memory errors, not more rank counts: the
    // full range (below) runs in the release pass; here 64 and 100 ranks took about 100 of
    // this test's 145 s (46 s without them, 40 ranks included). Kept: the small counts, powers of
    // two and their neighbours, and one count past the `big` threshold (fewer units per rank).
    for (int p : {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 32, 33, 40}) ps.push_back(p);
#else
    for (int p = 1; p <= 33; ++p) ps.push_back(p);
    for (int p : {48, 64, 100, 128}) ps.push_back(p);
#endif
    return ps;
}

// The topologies a neighbourhood collective is checked on: Cartesian grids in 1, 2 and 3
// dimensions, periodic and not, with dimensions of size 1 and 2 (where a rank's -1 and +1
// neighbours are the same rank, or itself), and random distributed graphs (self-loops,
// repeated edges, sources in any order) over the same rank counts as the other operations.
std::vector<std::pair<std::string, mpi::Topology>> neighbor_topologies() {
    std::vector<std::pair<std::string, mpi::Topology>> out;
    auto cart = [&](std::vector<std::int32_t> dims, std::vector<std::uint8_t> periods) {
        std::string name = "cart";
        for (std::size_t i = 0; i < dims.size(); ++i)
            name += fmt::format("{}{}{}", i == 0 ? " " : "x", dims[i], periods[i] ? "p" : "");
        out.emplace_back(name, mpi::cart_topology(dims, periods));
    };
    for (int p : rank_counts()) {
        cart({p}, {0});
        cart({p}, {1});
        std::int32_t a = 1;
        for (std::int32_t f = 1; f * f <= p; ++f)
            if (p % f == 0) a = f;
        cart({a, p / a}, {1, 0});
        cart({p / a, a}, {1, 1});
        // Random graphs: each rank 0-4 destinations (itself and repeats allowed); each rank's
        // sources in a shuffled order.
        std::mt19937 rng(static_cast<std::uint32_t>(p));
        std::vector<std::vector<std::int32_t>> srcs(static_cast<std::size_t>(p)),
            dsts(static_cast<std::size_t>(p));
        for (std::int32_t i = 0; i < p; ++i) {
            const auto n = rng() % 5;
            for (std::uint32_t k = 0; k < n; ++k) {
                const auto j = static_cast<std::int32_t>(rng() % static_cast<std::uint32_t>(p));
                dsts[static_cast<std::size_t>(i)].push_back(j);
                srcs[static_cast<std::size_t>(j)].push_back(i);
            }
        }
        for (auto& l : srcs) std::shuffle(l.begin(), l.end(), rng);
        mpi::Topology g;
        EXPECT_EQ(mpi::graph_topology(srcs, dsts, g), "");
        out.emplace_back(fmt::format("graph {}", p), std::move(g));
    }
    for (auto [dims, periods] :
         std::vector<std::pair<std::vector<std::int32_t>, std::vector<std::uint8_t>>>{
             {{1}, {1}},
             {{2}, {1}},
             {{2, 1}, {1, 1}},
             {{1, 2, 2}, {1, 1, 0}},
             {{2, 2, 2}, {1, 1, 1}},
             {{3, 1, 2}, {0, 1, 1}},
             {{2, 3, 4}, {1, 0, 1}},
             {{4, 4, 4}, {1, 1, 1}},
             {{1, 1, 1}, {0, 0, 0}}})
        cart(dims, periods);
    return out;
}

// The neighbourhood collectives' check: each topology, blocks of 3 and 0 bytes, and for the
// v/w-forms per-edge counts with zeros (each rank's own receive counts match its
// in-neighbours' send counts).
std::vector<std::string> check_neighbor(const mpi::AlgorithmInfo& info, std::uint64_t* runs) {
    std::vector<std::string> failures;
    const bool gather =
        info.op == CollOp::NeighborAllgather || info.op == CollOp::NeighborAllgatherv;
    for (const auto& [name, topo] : neighbor_topologies()) {
        const auto p = static_cast<std::size_t>(topo.size());
        // v: the send counts (per rank for allgatherv, per out-edge otherwise), then each
        // rank's local view.
        std::vector<std::uint64_t> send, displs{0};
        const std::size_t blocks = gather ? p : topo.edges();
        for (std::size_t i = 0; i < blocks; ++i) send.push_back((i * 7 + 3) % 5);
        for (std::uint64_t c : send) displs.push_back(displs.back() + c);
        std::vector<std::vector<std::uint64_t>> local(p);
        for (std::size_t r = 0; r < p; ++r) {
            if (gather)
                local[r].push_back(send[r]);
            else
                for (std::size_t s = 0; s < topo.out[r].size(); ++s)
                    local[r].push_back(send[topo.out_base[r] + s]);
            for (const mpi::Neighbor& n : topo.in[r])
                local[r].push_back(
                    n.rank == mpi::kProcNull ? 7  // never sent: any count
                    : gather                 ? send[static_cast<std::size_t>(n.rank)]
                             : send[topo.out_base[static_cast<std::size_t>(n.rank)] + n.slot]);
        }
        for (std::uint64_t bytes : {3u, 0u}) {
            CollArgs a;
            a.op = info.op;
            a.size = topo.size();
            a.bytes = bytes;
            a.topo = &topo;
            const bool v = mpi::is_v(info.op);
            if (v) {
                if (bytes == 0) continue;
                a.counts = &local[0];  // each rank's own in the run (DataFlow's rank_counts)
                a.displs = &displs;
            }
            DataFlow flow(*info.impl, a, v ? &local : nullptr);
            const std::string e = flow.run();
            ++*runs;
            if (!e.empty())
                failures.push_back(fmt::format("{}/{} {} bytes={}: {}", mpi::to_string(info.op),
                                               info.name, name, bytes, e));
            if (failures.size() > 3) return failures;
        }
    }
    return failures;
}

// Runs the data-movement check of one algorithm over every rank count, a few roots and
// sizes; returns the failures.
std::vector<std::string> check_algorithm(const mpi::AlgorithmInfo& info, std::uint64_t* runs) {
    if (mpi::is_neighbor(info.op)) return check_neighbor(info, runs);
    std::vector<std::string> failures;
    for (int p : rank_counts()) {
        const bool big = p > 33;
        // Sizes keep the symbolic state small: p ranks hold D units of (p / 64) words.
        std::vector<std::uint64_t> sizes;
        switch (info.op) {
            case CollOp::Alltoall:
            case CollOp::Alltoallv:
            case CollOp::Alltoallw:
                sizes = {big ? 1u : 3u, 0};
                break;
            case CollOp::Gather:
            case CollOp::Scatter:
            case CollOp::Allgather:
            case CollOp::Gatherv:
            case CollOp::Scatterv:
            case CollOp::Allgatherv:
            case CollOp::ReduceScatter:
            case CollOp::ReduceScatterBlock:
                sizes = {big ? 2u : 7u, 1, 0};
                break;
            default:  // one buffer: uneven splits, a size below p, empty
                sizes = {big ? 3u * static_cast<std::uint64_t>(p) + 5 : 1007u, 5, 1, 0};
                break;
        }
        std::vector<std::uint64_t> counts, displs;
        const std::size_t n = static_cast<std::size_t>(p) * (mpi::is_pairwise_v(info.op) ? p : 1);
        for (std::size_t i = 0; i < n; ++i) counts.push_back((i * 7 + 3) % 5);  // zeros too
        displs.push_back(0);
        for (std::uint64_t c : counts) displs.push_back(displs.back() + c);
        for (std::uint64_t bytes : sizes) {
            for (int root : {0, p - 1, p / 2}) {
                CollArgs a;
                a.op = info.op;
                a.size = p;
                a.root = root;
                a.bytes = bytes;
                a.segment = std::max<std::uint64_t>(1, bytes / 4 + 1);
                if (mpi::is_v(info.op)) {
                    a.counts = &counts;
                    a.displs = &displs;
                }
                DataFlow flow(*info.impl, a);
                const std::string e = flow.run();
                ++*runs;
                if (!e.empty())
                    failures.push_back(fmt::format("{}/{} p={} root={} bytes={}: {}",
                                                   mpi::to_string(info.op), info.name, p, root,
                                                   bytes, e));
                if (failures.size() > 3) return failures;
            }
        }
    }
    return failures;
}

TEST(Schedules, EveryAlgorithmMovesTheRightData) {
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    ASSERT_FALSE(registry.all().empty());
    std::uint64_t runs = 0;
    for (const auto& info : registry.all()) {
        if (info.impl->global_view()) continue;
        for (const auto& f : check_algorithm(info, &runs)) ADD_FAILURE() << f;
    }
    EXPECT_GT(runs, registry.all().size() * 37);
}

// The checker itself catches what it must: a broken schedule (a bcast whose root sends
// rank 1 twice and skips the last rank, an empty schedule, a reduce counting one contribution
// twice, a forward that does not wait for the data it forwards) fails.
class Broken final : public mpi::Algorithm {
  public:
    explicit Broken(int kind) : kind_(kind) {}
    bool step(const CollArgs& a, std::uint32_t k, mpi::Step& s) const override {
        if (kind_ == 0) return false;  // nothing at all
        if (kind_ == 3) {  // bcast from rank 2 via rank 0 to rank 1; rank 0 forwards early
            if (a.rank == 2) {
                if (k > 0) return false;
                s.send(0, a.bytes);
            } else if (a.rank == 0) {
                if (k > 1) return false;
                if (k == 0) s.recv(2, a.bytes);
                if (k == 1) {
                    s.send(1, a.bytes);
                    s.after(mpi::kAfterNothing);  // should be after(0): the receive
                }
            } else {
                if (k > 0) return false;
                s.recv(0, a.bytes);
            }
            return true;
        }
        if (k > 0) return false;
        if (kind_ == 1) {  // bcast: root sends everyone but the last rank, twice to rank 1
            if (a.rank == a.root) {
                for (std::int32_t r = 1; r < a.size - 1; ++r) s.send(r, a.bytes);
                s.send(1, a.bytes);
            } else {
                s.recv(a.root, a.bytes);
                if (a.rank == 1) s.recv(a.root, a.bytes);
            }
            if (a.rank == a.size - 1) s.transfers.clear();
        } else {  // reduce: rank 1's vector goes to the root twice
            if (a.rank == a.root) {
                for (std::int32_t r = 1; r < a.size; ++r) s.recv(r, a.bytes);
                s.recv(1, a.bytes);
                s.reduce_bytes = static_cast<std::uint64_t>(a.size) * a.bytes;
            } else {
                s.send(a.root, a.bytes);
                if (a.rank == 1) s.send(a.root, a.bytes);
            }
        }
        return true;
    }

  private:
    int kind_;
};

TEST(Schedules, CheckerRejectsWrongSchedules) {
    for (int kind = 0; kind < 4; ++kind) {
        CollArgs a;
        a.op = kind == 2 ? CollOp::Reduce : CollOp::Bcast;
        a.size = kind == 3 ? 3 : 5;
        a.root = kind == 3 ? 2 : 0;
        a.bytes = 10;
        Broken alg(kind);
        DataFlow flow(alg, a);
        EXPECT_NE(flow.run(), "") << kind;
    }
    // And correct ones pass.
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    CollArgs a;
    a.op = CollOp::Bcast;
    a.size = 5;
    a.bytes = 10;
    DataFlow flow(*registry.find(CollOp::Bcast, "binomial"), a);
    EXPECT_EQ(flow.run(), "");
    EXPECT_EQ(flow.messages(), 4u);
    a.segment = 3;  // 4 segments down a pipeline of dependencies
    DataFlow piped(*registry.find(CollOp::Bcast, "pipeline"), a);
    EXPECT_EQ(piped.run(), "");
    EXPECT_EQ(piped.messages(), 16u);
}

// Neighbourhood alltoall posted naively (sends in out-neighbour order): right on a grid
// whose neighbours are distinct, wrong on a periodic dimension of size 2, where the -1 and
// +1 neighbours are the same rank and MPI's rule is that what a rank sends its -1 neighbour
// lands in that neighbour's +1 block.
class NaiveNeighbor final : public mpi::Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, mpi::Step& s) const override {
        if (k > 0) return false;
        const auto r = static_cast<std::size_t>(a.rank);
        for (const mpi::Neighbor& n : a.topo->in[r])
            if (n.rank != mpi::kProcNull && n.rank != a.rank)
                s.recv(n.rank, a.bytes, mpi::neighbor_displ(a, n.rank, n.slot));
        for (std::uint32_t o = 0; o < a.topo->out[r].size(); ++o)
            if (const mpi::Neighbor& n = a.topo->out[r][o];
                n.rank != mpi::kProcNull && n.rank != a.rank)
                s.send(n.rank, a.bytes, mpi::neighbor_displ(a, a.rank, o));
        return true;
    }
};

TEST(Schedules, CheckerTellsNeighbourBlocksApart) {
    NaiveNeighbor naive;
    for (auto [dims, periods, ok] :
         std::vector<std::tuple<std::vector<std::int32_t>, std::vector<std::uint8_t>, bool>>{
             {{4}, {1}, true},
             {{3, 4}, {0, 1}, true},
             {{2}, {1}, false},
             {{3, 2}, {0, 1}, false}}) {
        const mpi::Topology t = mpi::cart_topology(dims, periods);
        CollArgs a;
        a.op = CollOp::NeighborAlltoall;
        a.size = t.size();
        a.bytes = 2;
        a.topo = &t;
        DataFlow flow(naive, a);
        EXPECT_EQ(flow.run().empty(), ok) << dims.size() << " dims, first " << dims[0];
    }
}

// The topologies themselves: MPI_Cart_shift's neighbours, row-major ranks.
TEST(Schedules, CartesianNeighbours) {
    const mpi::Topology t = mpi::cart_topology({3, 4}, {0, 1});
    ASSERT_EQ(t.size(), 12);
    // rank 5 = (1, 1): dim 0 -> ranks 1 and 9, dim 1 (periodic) -> ranks 4 and 6
    const auto& in = t.in[5];
    ASSERT_EQ(in.size(), 4u);
    EXPECT_EQ(in[0].rank, 1);
    EXPECT_EQ(in[1].rank, 9);
    EXPECT_EQ(in[2].rank, 4);
    EXPECT_EQ(in[3].rank, 6);
    // rank 0 = (0, 0): no -1 neighbour in dim 0; dim 1 wraps to rank 3
    EXPECT_EQ(t.in[0][0].rank, mpi::kProcNull);
    EXPECT_EQ(t.in[0][1].rank, 4);
    EXPECT_EQ(t.in[0][2].rank, 3);
    EXPECT_EQ(t.in[0][3].rank, 1);
    // the -1 neighbour's block comes from its send to its +1 neighbour
    EXPECT_EQ(t.in[5][0].slot, 1u);
    EXPECT_EQ(t.in[5][3].slot, 2u);
    EXPECT_EQ(t.edges(), 48u);
    mpi::Topology g;
    EXPECT_NE(mpi::graph_topology({{1}, {}}, {{}, {}}, g), "");  // 1 names 0 as a source only
    EXPECT_EQ(mpi::graph_topology({{1, 1}, {}}, {{}, {0, 0}}, g), "");
    EXPECT_EQ(g.in[0][1].slot, 1u);
}

TEST(Schedules, EveryOperationHasAlgorithms) {
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    EXPECT_GE(registry.all().size(), 70u);
    // The README's count and its table list every (operation, algorithm) pair.
    std::ifstream in(std::string(CLUSTERSIM_SOURCE_DIR) + "/collectives/README.md");
    ASSERT_TRUE(in);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find(fmt::format("That is {} (operation, algorithm) pairs over {} "
                                          "operations",
                                          registry.all().size(), mpi::kCollOps)),
              std::string::npos)
        << registry.all().size() << " pairs";
    for (const auto& info : registry.all())
        EXPECT_NE(text.str().find(fmt::format("| `{}` |", info.name)), std::string::npos)
            << info.name;
    for (int i = 0; i < mpi::kCollOps; ++i)
        EXPECT_FALSE(registry.names(static_cast<CollOp>(i)).empty())
            << mpi::to_string(static_cast<CollOp>(i));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
