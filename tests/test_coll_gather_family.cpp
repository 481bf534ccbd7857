// Gather, scatter, allgather, alltoall and reduce-scatter algorithms, and their v-variants,
// against closed forms on the uniform star (coll_fixtures.hpp): T(m) = 2L + 2m/B for an
// uncontended message, S(m) = m/B on one link. Eager sends complete when their last byte
// has left the sender (S after they start on a free up-link); receives when the data has
// arrived; messages into one rank serialize on its down-link.
//
// Uniform blocks get closed forms written out below. Where blocks are uneven (the
// v-variants) or ranks start at different times (the folds for p not a power of two), the
// exact time is evaluated from the schedule with the same rules, written independently of
// the algorithms: a round schedule taken message by message in order of arrival at the
// switch (rounds_time), a binomial tree recurrence, or a single-server queue on the
// receiver's down-link (last_arrival).
//
// Every rank's bytes sent and received are checked against formulas from MPI's definition
// (what a rank must get) and the schedule (what it forwards).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

#include "coll_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;

const std::vector<int> kRanks{2, 3, 4, 5, 7, 8, 13, 16};
constexpr std::uint64_t kM = 1 << 20;  // block of the regular operations

int mod(int x, int p) {
    return ((x % p) + p) % p;
}
int lowbit(int v) {
    return v & -v;
}
bool pow2(int p) {
    return (p & (p - 1)) == 0;
}
int floor_pow2(int p) {
    int x = 1;
    while (2 * x <= p) x *= 2;
    return x;
}

std::vector<int> roots_for(int p) {
    std::vector<int> roots{0, p - 1};
    if (p > 2) roots.push_back(p / 2);
    return roots;
}

// Uneven blocks for the v-variants.
std::vector<std::uint64_t> v_counts(int p) {
    std::vector<std::uint64_t> c(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i)
        c[static_cast<std::size_t>(i)] = 1000 * (1 + static_cast<std::uint64_t>(i % 4));
    return c;
}
std::vector<std::uint64_t> alltoallv_counts(int p) {
    std::vector<std::uint64_t> c(static_cast<std::size_t>(p * p));
    for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j)
            c[static_cast<std::size_t>(i * p + j)] =
                1000 * (1 + static_cast<std::uint64_t>((i + j) % 4));
    return c;
}

// Rank r's block: counts[r] (v-variants) or the call's bytes.
struct Blocks {
    int p;
    const std::vector<std::uint64_t>* counts;  // nullptr: every block is kM
    std::uint64_t operator()(int r) const {
        return counts ? (*counts)[static_cast<std::size_t>(mod(r, p))] : kM;
    }
    std::uint64_t pair(int from, int to) const {  // alltoall(v)
        return counts ? (*counts)[static_cast<std::size_t>(from * p + to)] : kM;
    }
    // Blocks of ranks first, first+1, ... first+n-1 (mod p).
    std::uint64_t range(int first, int n) const {
        std::uint64_t s = 0;
        for (int i = 0; i < n; ++i) s += (*this)(first + i);
        return s;
    }
    std::uint64_t total() const { return range(0, p); }
};

// The regular operation (uniform kM blocks) and its v-variant (uneven counts).
struct Variant {
    CollOp op;
    bool v;
};

mpi::SimulationResult run(int p, CollOp op, const std::string& alg, int root,
                          const std::vector<std::uint64_t>* counts, std::uint64_t reduce_ipb = 0) {
    return run_collective(p, {op, alg, counts ? 0 : kM, root, counts}, reduce_ipb);
}

// Checks every rank's bytes against the expectations and the totals against each other.
void expect_bytes(const mpi::SimulationResult& res, const std::vector<std::uint64_t>& sent,
                  const std::vector<std::uint64_t>& received) {
    std::uint64_t total_sent = 0, total_received = 0;
    for (std::size_t r = 0; r < res.ranks.size(); ++r) {
        EXPECT_EQ(res.ranks[r].bytes_sent, sent[r]) << "rank " << r;
        EXPECT_EQ(res.ranks[r].bytes_received, received[r]) << "rank " << r;
        total_sent += res.ranks[r].bytes_sent;
        total_received += res.ranks[r].bytes_received;
    }
    EXPECT_EQ(total_sent, total_received);
    EXPECT_EQ(res.network.bytes_sent, total_sent);
}

// ---- timing helpers (the star's rules, independent of the algorithm code) -------------

// Messages reaching the switch at a_i (seconds) with b_i bytes, all for one receiver: its
// down-link serves them one at a time without idling while any waits, so the last one
// leaves it at max_i (a_i + sum_{j : a_j >= a_i} S(b_j)) whatever the order, and arrives L
// later.
double last_arrival(const std::vector<std::pair<double, std::uint64_t>>& at_switch) {
    double done = 0;
    for (const auto& [a, b] : at_switch) {
        double t = a;
        for (const auto& [a2, b2] : at_switch)
            if (a2 >= a) t += S(static_cast<double>(b2));
        done = std::max(done, t);
    }
    return done + kL;
}

// A schedule in rounds: in one round a rank sends at most one message and receives at most
// one; a rank with nothing to do in a round skips it (empty steps take no time).
struct Msg {
    int from, to;
    std::uint64_t bytes;
};
struct Round {
    std::vector<Msg> msgs;
    std::vector<std::uint64_t> reduce;  // bytes reduced by each rank after the round (or empty)
};

// The time of a round schedule under the star's rules. A rank's round starts when its
// previous busy round ended. Its message leaves its up-link S(b) later (the link is free:
// the previous send had left before the previous round ended), reaches the switch L after
// that, waits for the receiver's down-link, crosses it (S(b)) and arrives L later. A
// down-link serves messages in the order they reach the switch (round_robin between streams
// is that order here: the messages queued at a receiver come from distinct senders, or all
// from one; ties go to the earlier-started send, then the lower rank, as ranks start in rank
// order). A round ends when its send has left and its message has arrived (never before
// it began: an early message waits for its receive), then the reduction runs (reduce_ipb
// instructions per byte at 1 G instructions/s).
// Messages are taken in order of reaching the switch; every message a rank sends later
// reaches it later still, so each down-link's order is known when a message is taken.
double rounds_time(int p, const std::vector<Round>& rounds, std::uint64_t reduce_ipb = 0) {
    struct Busy {
        int send = -1, recv = -1;  // message indices
        double reduce = 0;         // seconds
    };
    const auto n = static_cast<std::size_t>(p);
    std::vector<Msg> msgs;
    std::vector<std::vector<Busy>> plan(n);
    for (const Round& round : rounds) {
        std::vector<Busy> busy(n);
        for (const Msg& m : round.msgs) {
            auto& sender = busy[static_cast<std::size_t>(m.from)];
            auto& receiver = busy[static_cast<std::size_t>(m.to)];
            EXPECT_TRUE(sender.send < 0 && receiver.recv < 0)
                << "one send and one receive per rank per round";
            sender.send = receiver.recv = static_cast<int>(msgs.size());
            msgs.push_back(m);
        }
        for (std::size_t r = 0; r < n; ++r) {
            if (busy[r].send < 0 && busy[r].recv < 0) continue;
            if (!round.reduce.empty())
                busy[r].reduce = static_cast<double>(round.reduce[r] * reduce_ipb) / 1e9;
            plan[r].push_back(busy[r]);
        }
    }
    std::vector<double> delivered(msgs.size(), -1), ready(n, 0), down_free(n, 0);
    std::vector<std::size_t> at(n, 0);  // the rank's current busy round
    // (reaches the switch, send started, sender, message), smallest first.
    using Key = std::tuple<double, double, int, int>;
    std::priority_queue<Key, std::vector<Key>, std::greater<>> in_flight;
    auto bytes = [&](int m) {
        return static_cast<double>(msgs[static_cast<std::size_t>(m)].bytes);
    };
    auto start = [&](std::size_t r) {  // r's current round begins at ready[r]: its send goes
        if (at[r] < plan[r].size() && plan[r][at[r]].send >= 0) {
            const int m = plan[r][at[r]].send;
            in_flight.emplace(ready[r] + S(bytes(m)) + kL, ready[r], static_cast<int>(r), m);
        }
    };
    auto advance = [&](std::size_t r) {  // ends r's rounds until one waits for a message
        while (at[r] < plan[r].size()) {
            const Busy& b = plan[r][at[r]];
            if (b.recv >= 0 && delivered[static_cast<std::size_t>(b.recv)] < 0) return;
            double end = ready[r];
            if (b.send >= 0) end = std::max(end, ready[r] + S(bytes(b.send)));
            if (b.recv >= 0) end = std::max(end, delivered[static_cast<std::size_t>(b.recv)]);
            ready[r] = end + b.reduce;
            ++at[r];
            start(r);
        }
    };
    for (std::size_t r = 0; r < n; ++r) start(r);
    for (std::size_t r = 0; r < n; ++r) advance(r);
    while (!in_flight.empty()) {
        const auto [at_switch, started, from, m] = in_flight.top();
        in_flight.pop();
        const Msg& msg = msgs[static_cast<std::size_t>(m)];
        const auto to = static_cast<std::size_t>(msg.to);
        down_free[to] = std::max(at_switch, down_free[to]) + S(static_cast<double>(msg.bytes));
        delivered[static_cast<std::size_t>(m)] = down_free[to] + kL;
        advance(to);
    }
    for (std::size_t r = 0; r < n; ++r)
        EXPECT_EQ(at[r], plan[r].size()) << "rank " << r << " never finished";
    return *std::max_element(ready.begin(), ready.end());
}

// ---- gather / gatherv -------------------------------------------------------------------

// Linear gather: every other rank's block leaves at once, reaches the switch at S(b_i) + L
// and queues on the root's down-link. Uniform: the last is served at S + L + (p-1) S and
// arrives L later: (p-1) m/B + (2L + m/B), the "(p-1) m/beta + alpha".
TEST(Gather, LinearIsLimitedByTheRootsDownLink) {
    for (const Variant var : {Variant{CollOp::Gather, false}, Variant{CollOp::Gatherv, true}}) {
        for (int p : kRanks) {
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            for (int root : roots_for(p)) {
                SCOPED_TRACE(fmt::format("{} p={} root={}", mpi::to_string(var.op), p, root));
                const auto res = run(p, var.op, "linear", root, blk.counts);
                std::vector<std::pair<double, std::uint64_t>> at_switch;
                for (int r = 0; r < p; ++r)
                    if (r != root)
                        at_switch.emplace_back(S(static_cast<double>(blk(r))) + kL, blk(r));
                const double expected = last_arrival(at_switch);
                if (!var.v) {
                    EXPECT_NEAR(expected, (p - 1) * S(kM) + S(kM) + 2 * kL, 1e-12);
                }
                EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
                // The root receives every other block; each other rank sends its own.
                std::vector<std::uint64_t> sent(static_cast<std::size_t>(p)),
                    received(static_cast<std::size_t>(p));
                for (int r = 0; r < p; ++r) {
                    sent[static_cast<std::size_t>(r)] = r == root ? 0 : blk(r);
                    received[static_cast<std::size_t>(r)] = r == root ? blk.total() - blk(root) : 0;
                }
                expect_bytes(res, sent, received);
            }
        }
    }
}

// Blocks of the subtree of relative rank vr in the binomial tree rooted at root: relative
// ranks [vr, vr + min(lowbit(vr), p - vr)) (the root's subtree is everything).
std::uint64_t subtree(const Blocks& blk, int root, int vr) {
    const int n = vr == 0 ? blk.p : std::min(lowbit(vr), blk.p - vr);
    return blk.range(vr + root, n);
}

// Binomial gather in rounds: in round j (mask 2^j) every vr whose lowest set bit is mask
// sends its subtree to vr - mask.
std::vector<Round> binomial_gather_rounds(const Blocks& blk, int root) {
    const int p = blk.p;
    std::vector<Round> rounds;
    for (int mask = 1; mask < p; mask <<= 1) {
        Round round;
        for (int vr = 1; vr < p; ++vr)
            if (lowbit(vr) == mask)
                round.msgs.push_back(
                    {mod(vr + root, p), mod(vr - mask + root, p), subtree(blk, root, vr)});
        rounds.push_back(round);
    }
    return rounds;
}

// Binomial gather, p = 2^k, uniform blocks: a subtree of 2^j ranks is complete at
// sum_{i<j} T(2^i m) and its message of 2^j m takes T(2^j m) (the parent's previous child
// has left its down-link long before), so the whole takes
//   sum_{j<k} T(2^j m) = 2 L log2 p + 2 (p-1) m / B.
// Otherwise the rounds recurrence evaluates the tree.
TEST(Gather, BinomialFollowsItsTree) {
    for (const Variant var : {Variant{CollOp::Gather, false}, Variant{CollOp::Gatherv, true}}) {
        for (int p : kRanks) {
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            for (int root : roots_for(p)) {
                SCOPED_TRACE(fmt::format("{} p={} root={}", mpi::to_string(var.op), p, root));
                const auto res = run(p, var.op, "binomial", root, blk.counts);
                const double expected = rounds_time(p, binomial_gather_rounds(blk, root));
                if (!var.v && pow2(p)) {
                    EXPECT_NEAR(expected, 2 * kL * ceil_log2(p) + 2.0 * (p - 1) * S(kM), 1e-12);
                }
                if (!var.v && p == 5 && root == 0) {
                    // By hand: rank 4 (a subtree of one) sends at once; its block and rank 1's
                    // reach the switch at S + L and are at rank 0 by 3S + 2L, before rank 2's
                    // two blocks (ready at T(m)) reach it: T(m) + T(2m), as for p = 4.
                    EXPECT_NEAR(expected, T(kM) + T(2.0 * kM), 1e-12);
                }
                EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
                // A rank forwards its whole subtree and received all of it but its own block.
                std::vector<std::uint64_t> sent(static_cast<std::size_t>(p)),
                    received(static_cast<std::size_t>(p));
                for (int r = 0; r < p; ++r) {
                    const int vr = mod(r - root, p);
                    sent[static_cast<std::size_t>(r)] = vr == 0 ? 0 : subtree(blk, root, vr);
                    received[static_cast<std::size_t>(r)] = subtree(blk, root, vr) - blk(r);
                }
                EXPECT_EQ(received[static_cast<std::size_t>(root)], blk.total() - blk(root));
                expect_bytes(res, sent, received);
            }
        }
    }
}

// ---- scatter / scatterv -----------------------------------------------------------------

// Linear scatter: the root's sends leave its up-link one after another in relative rank
// order; the j-th has left at P_j = sum_{i<=j} S(b_i) and arrives S(b_j) + 2L later
// (every receiver's down-link is free). Uniform: (p-1) S + S + 2L, like linear bcast.
TEST(Scatter, LinearIsLimitedByTheRootsUpLink) {
    for (const Variant var : {Variant{CollOp::Scatter, false}, Variant{CollOp::Scatterv, true}}) {
        for (int p : kRanks) {
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            for (int root : roots_for(p)) {
                SCOPED_TRACE(fmt::format("{} p={} root={}", mpi::to_string(var.op), p, root));
                const auto res = run(p, var.op, "linear", root, blk.counts);
                double left = 0, expected = 0;
                for (int vr = 1; vr < p; ++vr) {
                    const double b = static_cast<double>(blk(vr + root));
                    left += S(b);
                    expected = std::max(expected, left + S(b) + 2 * kL);
                }
                if (!var.v) {
                    EXPECT_NEAR(expected, (p - 1) * S(kM) + S(kM) + 2 * kL, 1e-12);
                }
                EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
                std::vector<std::uint64_t> sent(static_cast<std::size_t>(p)),
                    received(static_cast<std::size_t>(p));
                for (int r = 0; r < p; ++r) {
                    sent[static_cast<std::size_t>(r)] = r == root ? blk.total() - blk(root) : 0;
                    received[static_cast<std::size_t>(r)] = r == root ? 0 : blk(r);
                }
                expect_bytes(res, sent, received);
            }
        }
    }
}

// Binomial scatter: binomial bcast's tree carrying subtrees. A rank's j-th send starts when
// its previous ones have left, so arrival(v) = arrival(parent) + sum of S(subtree) of the
// siblings sent before v + T(subtree(v)); every rank receives once (no queueing). For
// p = 2^k and uniform blocks the chain of first sends (p/2 m, p/4 m, ... m) is critical:
// sum_{j<k} T(2^j m) = 2 L log2 p + 2 (p-1) m / B.
double binomial_scatter_time(const Blocks& blk, int root) {
    const int p = blk.p;
    std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
    double worst = 0;
    for (int v = 1; v < p; ++v) {
        const int low = lowbit(v), parent = v - low;
        int parent_low = parent == 0 ? 1 : lowbit(parent);
        if (parent == 0)
            while (parent_low < p) parent_low <<= 1;
        double wait = 0;  // siblings served before v (larger subtrees first)
        for (int c = parent_low >> 1; c > low; c >>= 1)
            if (parent + c < p) wait += S(static_cast<double>(subtree(blk, root, parent + c)));
        arrival[static_cast<std::size_t>(v)] = arrival[static_cast<std::size_t>(parent)] + wait +
                                               T(static_cast<double>(subtree(blk, root, v)));
        worst = std::max(worst, arrival[static_cast<std::size_t>(v)]);
    }
    return worst;
}

TEST(Scatter, BinomialFollowsItsTree) {
    for (const Variant var : {Variant{CollOp::Scatter, false}, Variant{CollOp::Scatterv, true}}) {
        for (int p : kRanks) {
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            for (int root : roots_for(p)) {
                SCOPED_TRACE(fmt::format("{} p={} root={}", mpi::to_string(var.op), p, root));
                const auto res = run(p, var.op, "binomial", root, blk.counts);
                const double expected = binomial_scatter_time(blk, root);
                if (!var.v && pow2(p)) {
                    EXPECT_NEAR(expected, 2 * kL * ceil_log2(p) + 2.0 * (p - 1) * S(kM), 1e-12);
                }
                EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
                // A rank receives its whole subtree and forwards all of it but its own block.
                std::vector<std::uint64_t> sent(static_cast<std::size_t>(p)),
                    received(static_cast<std::size_t>(p));
                for (int r = 0; r < p; ++r) {
                    const int vr = mod(r - root, p);
                    received[static_cast<std::size_t>(r)] = vr == 0 ? 0 : subtree(blk, root, vr);
                    sent[static_cast<std::size_t>(r)] = subtree(blk, root, vr) - blk(r);
                }
                EXPECT_EQ(sent[static_cast<std::size_t>(root)], blk.total() - blk(root));
                expect_bytes(res, sent, received);
            }
        }
    }
}

// ---- allgather / allgatherv -------------------------------------------------------------

// Ring: in round k rank r passes block (r-k) mod p to r+1. Uniform: every round is
// symmetric and takes T(m): (p-1) T(m) = (p-1)(alpha + m/beta) with alpha = 2L,
// beta = B/2. Every rank receives the p-1 blocks it lacks and sends all but block r+1's.
TEST(Allgather, RingTakesPMinusOneRounds) {
    for (const Variant var :
         {Variant{CollOp::Allgather, false}, Variant{CollOp::Allgatherv, true}}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("{} p={}", mpi::to_string(var.op), p));
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            std::vector<Round> rounds(static_cast<std::size_t>(p - 1));
            for (int k = 0; k < p - 1; ++k)
                for (int r = 0; r < p; ++r)
                    rounds[static_cast<std::size_t>(k)].msgs.push_back(
                        {r, mod(r + 1, p), blk(r - k)});
            const double expected = rounds_time(p, rounds);
            if (!var.v) {
                EXPECT_NEAR(expected, (p - 1) * T(kM), 1e-12);
            }
            const auto res = run(p, var.op, "ring", 0, blk.counts);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            std::vector<std::uint64_t> sent, received;
            for (int r = 0; r < p; ++r) {
                sent.push_back(blk.total() - blk(r + 1));
                received.push_back(blk.total() - blk(r));
            }
            expect_bytes(res, sent, received);
        }
    }
}

// Bruck: round k (d = 2^k) moves the n_k = min(d, p-d) blocks r .. r+n_k-1 to r-d. Uniform:
// symmetric rounds of T(n_k m), and sum_k n_k = p-1, so
//   ceil(log2 p) 2L + 2 (p-1) m / B.
TEST(Allgather, BruckTakesCeilLog2Rounds) {
    for (const Variant var :
         {Variant{CollOp::Allgather, false}, Variant{CollOp::Allgatherv, true}}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("{} p={}", mpi::to_string(var.op), p));
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            std::vector<Round> rounds;
            std::vector<std::uint64_t> sent(static_cast<std::size_t>(p), 0), received;
            for (int d = 1; d < p; d *= 2) {
                const int n = std::min(d, p - d);
                Round round;
                for (int r = 0; r < p; ++r) {
                    round.msgs.push_back({r, mod(r - d, p), blk.range(r, n)});
                    sent[static_cast<std::size_t>(r)] += blk.range(r, n);
                }
                rounds.push_back(round);
            }
            for (int r = 0; r < p; ++r) received.push_back(blk.total() - blk(r));
            const double expected = rounds_time(p, rounds);
            if (!var.v) {
                EXPECT_NEAR(expected, 2 * kL * ceil_log2(p) + 2.0 * (p - 1) * S(kM), 1e-12);
            }
            const auto res = run(p, var.op, "bruck", 0, blk.counts);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            if (!var.v) {
                for (auto s : sent) EXPECT_EQ(s, (p - 1) * kM);
            }
            expect_bytes(res, sent, received);
        }
    }
}

// Survivors of a fold (p = pof2 + rem): survivor s stands for ranks [first(s), first(s+1)),
// first(s) = 2s for s < rem, s + rem otherwise (first(pof2) = p), and is rank first(s+1)-1.
struct Fold {
    int p, pof2, rem;
    explicit Fold(int p_) : p(p_), pof2(floor_pow2(p_)), rem(p_ - floor_pow2(p_)) {}
    int first(int s) const { return s < rem ? 2 * s : s + rem; }
    int rank(int s) const { return first(s + 1) - 1; }
    int count(int g, int n) const {
        return first(g + n) - first(g);
    }  // ranks of survivors [g, g+n)
};

// Recursive doubling. p = 2^k, uniform: symmetric rounds of T(2^j m):
//   2 L log2 p + 2 (p-1) m / B.
// Other p: round 0 folds each even rank r < 2 rem into r+1; survivors then double over
// aligned groups (holding the blocks of the ranks they stand for); the last round hands
// r-1 the total less its own block. Survivors that were not paired start doubling at 0,
// so this is evaluated by the rounds recurrence.
// Bytes: every rank receives exactly total - block(r) (folded: in the last round; a paired
// survivor: block(r-1) + everything but its pair's two blocks). Survivor s sends, at each
// mask 2^j, the blocks of its aligned group of 2^j survivors; paired ones also
// total - block(r-1) at the end; folded ranks send their block.
TEST(Allgather, RecursiveDoublingFoldsOtherCounts) {
    for (const Variant var :
         {Variant{CollOp::Allgather, false}, Variant{CollOp::Allgatherv, true}}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("{} p={}", mpi::to_string(var.op), p));
            const auto counts = v_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            const Fold f(p);
            std::vector<Round> rounds;
            std::vector<std::uint64_t> sent(static_cast<std::size_t>(p), 0), received;
            if (f.rem > 0) {
                Round fold;
                for (int i = 0; i < f.rem; ++i) fold.msgs.push_back({2 * i, 2 * i + 1, blk(2 * i)});
                rounds.push_back(fold);
            }
            for (int mask = 1; mask < f.pof2; mask <<= 1) {
                Round round;
                for (int s = 0; s < f.pof2; ++s) {
                    const int g = s & ~(mask - 1);
                    round.msgs.push_back(
                        {f.rank(s), f.rank(s ^ mask), blk.range(f.first(g), f.count(g, mask))});
                }
                rounds.push_back(round);
            }
            if (f.rem > 0) {
                Round unfold;
                for (int i = 0; i < f.rem; ++i)
                    unfold.msgs.push_back({2 * i + 1, 2 * i, blk.total() - blk(2 * i)});
                rounds.push_back(unfold);
            }
            for (int r = 0; r < p; ++r) {
                received.push_back(blk.total() - blk(r));
                auto& s_r = sent[static_cast<std::size_t>(r)];
                if (r < 2 * f.rem && r % 2 == 0) {
                    s_r = blk(r);
                    continue;
                }
                const int s = r < 2 * f.rem ? r / 2 : r - f.rem;
                for (int mask = 1; mask < f.pof2; mask <<= 1) {
                    const int g = s & ~(mask - 1);
                    s_r += blk.range(f.first(g), f.count(g, mask));
                }
                if (r < 2 * f.rem) s_r += blk.total() - blk(r - 1);
            }
            const double expected = rounds_time(p, rounds);
            if (!var.v && pow2(p)) {
                EXPECT_NEAR(expected, 2 * kL * ceil_log2(p) + 2.0 * (p - 1) * S(kM), 1e-12);
                for (auto s : sent) EXPECT_EQ(s, (p - 1) * kM);
            }
            if (!var.v && p == 3) {
                // By hand: rank 0's block (fold) and rank 2's (its first doubling round, begun
                // at 0) both reach the switch at S + L and queue on rank 1's down-link: 0's
                // arrives at T(m), 2's at T(m) + S. Rank 1 then sends blocks 0, 1 (2m) to 2;
                // its round ends when they have left, at T(m) + 2S, and it sends blocks 1, 2
                // (2m) to 0, arriving T(2m) later: T(m) + 2 S(m) + T(2m) = 4L + 8 m/B.
                EXPECT_NEAR(expected, T(kM) + 2 * S(kM) + T(2.0 * kM), 1e-12);
            }
            const auto res = run(p, var.op, "recursive_doubling", 0, blk.counts);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            expect_bytes(res, sent, received);
        }
    }
}

// ---- alltoall / alltoallv ---------------------------------------------------------------

// Pairwise: round k sends block(r, r+k) to r+k. Uniform: symmetric rounds of T(m):
// (p-1) T(m). Each rank sends sum_q block(r, q) and receives sum_q block(q, r), q != r.
std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> alltoall_bytes(
    const Blocks& blk) {
    std::vector<std::uint64_t> sent(static_cast<std::size_t>(blk.p), 0),
        received(static_cast<std::size_t>(blk.p), 0);
    for (int r = 0; r < blk.p; ++r)
        for (int q = 0; q < blk.p; ++q)
            if (q != r) {
                sent[static_cast<std::size_t>(r)] += blk.pair(r, q);
                received[static_cast<std::size_t>(r)] += blk.pair(q, r);
            }
    return {sent, received};
}

TEST(Alltoall, PairwiseTakesPMinusOneRounds) {
    for (const Variant var : {Variant{CollOp::Alltoall, false}, Variant{CollOp::Alltoallv, true}}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("{} p={}", mpi::to_string(var.op), p));
            const auto counts = alltoallv_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            std::vector<Round> rounds;
            for (int k = 1; k < p; ++k) {
                Round round;
                for (int r = 0; r < p; ++r)
                    round.msgs.push_back({r, mod(r + k, p), blk.pair(r, mod(r + k, p))});
                rounds.push_back(round);
            }
            const double expected = rounds_time(p, rounds);
            if (!var.v) {
                EXPECT_NEAR(expected, (p - 1) * T(kM), 1e-12);
            }
            const auto res = run(p, var.op, "pairwise", 0, blk.counts);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            const auto [sent, received] = alltoall_bytes(blk);
            expect_bytes(res, sent, received);
        }
    }
}

// Linear: rank i's sends to i+1, i+2, ... leave its up-link back to back; the one to i+k
// has left at P_i(k) = sum_{j<=k} S(block(i, i+j)) and reaches the switch L later. Each
// down-link then serves its p-1 messages (last_arrival). Uniform: the k-th messages reach
// the switch at k S + L, exactly one per receiver, each as the previous one is done, so
// the last arrives at (p-1) S + L + S + L = p m/B + 2L.
TEST(Alltoall, LinearPostsEverythingAtOnce) {
    for (const Variant var : {Variant{CollOp::Alltoall, false}, Variant{CollOp::Alltoallv, true}}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("{} p={}", mpi::to_string(var.op), p));
            const auto counts = alltoallv_counts(p);
            const Blocks blk{p, var.v ? &counts : nullptr};
            std::vector<std::vector<std::pair<double, std::uint64_t>>> at_switch(
                static_cast<std::size_t>(p));
            double expected = 0;
            for (int i = 0; i < p; ++i) {
                double left = 0;
                for (int k = 1; k < p; ++k) {
                    const int to = mod(i + k, p);
                    left += S(static_cast<double>(blk.pair(i, to)));
                    at_switch[static_cast<std::size_t>(to)].emplace_back(left + kL,
                                                                         blk.pair(i, to));
                }
                expected = std::max(expected, left);  // rank i's sends done
            }
            for (const auto& in : at_switch) expected = std::max(expected, last_arrival(in));
            if (!var.v) {
                EXPECT_NEAR(expected, p * S(kM) + 2 * kL, 1e-12);
            }
            const auto res = run(p, var.op, "linear", 0, blk.counts);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            const auto [sent, received] = alltoall_bytes(blk);
            expect_bytes(res, sent, received);
        }
    }
}

// ---- reduce_scatter -------------------------------------------------------------------

// Ring: p-1 symmetric rounds, each a T(m) exchange followed by reducing the m bytes
// received (R(m) = ipb m / 1 GHz): (p-1) (T(m) + R(m)). Every rank sends and receives
// (p-1) m: the p-1 partials it forwards / gets, one block each.
TEST(ReduceScatter, RingTakesPMinusOneRounds) {
    for (std::uint64_t ipb : {0, 2}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("p={} ipb={}", p, ipb));
            std::vector<Round> rounds(static_cast<std::size_t>(p - 1));
            for (auto& round : rounds) {
                for (int r = 0; r < p; ++r) round.msgs.push_back({r, mod(r + 1, p), kM});
                round.reduce.assign(static_cast<std::size_t>(p), kM);
            }
            const double R = static_cast<double>(ipb) * kM / 1e9;
            const double expected = rounds_time(p, rounds, ipb);
            EXPECT_NEAR(expected, (p - 1) * (T(kM) + R), 1e-12);
            const auto res = run(p, CollOp::ReduceScatter, "ring", 0, nullptr, ipb);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            expect_bytes(res, std::vector<std::uint64_t>(static_cast<std::size_t>(p), (p - 1) * kM),
                         std::vector<std::uint64_t>(static_cast<std::size_t>(p), (p - 1) * kM));
        }
    }
}

// Recursive halving. p = 2^k: symmetric rounds exchanging p/2, p/4, ... 1 blocks, each
// reduced: sum_j (T(2^j m) + R(2^j m)) = 2 L log2 p + (p-1) m (2/B + ipb / 1 GHz); every
// rank sends and receives (p-1) m.
// Other p: round 0 folds even r < 2 rem into r+1 (p m, reduced there); survivors halve over
// the blocks they own (survivor s owns the blocks of the ranks it stands for); the last
// round sends block r-1 to r-1. Bytes: a folded rank sends p m and receives m. Survivor s
// receives, at each level, the blocks owned by its half (its aligned group of mask
// survivors) and sends those of the other half; the halves it sends tile everything but
// its own, so it sends (p - owned(s)) m in the halving (telescoping); a paired survivor
// also receives p m and sends m.
TEST(ReduceScatter, RecursiveHalvingFoldsOtherCounts) {
    for (std::uint64_t ipb : {0, 2}) {
        for (int p : kRanks) {
            SCOPED_TRACE(fmt::format("p={} ipb={}", p, ipb));
            const Fold f(p);
            const auto n = static_cast<std::size_t>(p);
            std::vector<Round> rounds;
            std::vector<std::uint64_t> sent(n, 0), received(n, 0);
            if (f.rem > 0) {
                Round fold;
                fold.reduce.assign(n, 0);
                for (int i = 0; i < f.rem; ++i) {
                    fold.msgs.push_back({2 * i, 2 * i + 1, p * kM});
                    fold.reduce[static_cast<std::size_t>(2 * i + 1)] = p * kM;
                }
                rounds.push_back(fold);
            }
            for (int mask = f.pof2 / 2; mask >= 1; mask /= 2) {
                Round round;
                round.reduce.assign(n, 0);
                for (int s = 0; s < f.pof2; ++s) {
                    const int mine = s & ~(mask - 1), theirs = mine ^ mask;
                    round.msgs.push_back({f.rank(s), f.rank(s ^ mask), f.count(theirs, mask) * kM});
                    round.reduce[static_cast<std::size_t>(f.rank(s))] = f.count(mine, mask) * kM;
                    received[static_cast<std::size_t>(f.rank(s))] += f.count(mine, mask) * kM;
                }
                rounds.push_back(round);
            }
            if (f.rem > 0) {
                Round unfold;
                for (int i = 0; i < f.rem; ++i) unfold.msgs.push_back({2 * i + 1, 2 * i, kM});
                rounds.push_back(unfold);
            }
            for (int r = 0; r < p; ++r) {
                const auto i = static_cast<std::size_t>(r);
                if (r < 2 * f.rem && r % 2 == 0) {
                    sent[i] = p * kM;
                    received[i] = kM;
                    continue;
                }
                const int s = r < 2 * f.rem ? r / 2 : r - f.rem;
                sent[i] = (p - f.count(s, 1)) * kM;
                if (r < 2 * f.rem) {
                    sent[i] += kM;
                    received[i] += p * kM;
                }
            }
            const double expected = rounds_time(p, rounds, ipb);
            if (pow2(p)) {
                EXPECT_NEAR(expected,
                            2 * kL * ceil_log2(p) + (p - 1) * (2 * S(kM) + ipb * kM / 1e9), 1e-12);
                for (std::size_t i = 0; i < n; ++i) {
                    EXPECT_EQ(sent[i], (p - 1) * kM);
                    EXPECT_EQ(received[i], (p - 1) * kM);
                }
            }
            if (p == 3 && ipb == 0) {
                // By hand: rank 2 (survivor 1) starts halving at once and sends survivor 0's
                // blocks 0, 1 (2m) to rank 1; they reach the switch at 2S + L, before rank 0's
                // vector (3m, at 3S + L), which waits for rank 1's down-link until 4S + L and
                // arrives at 7S + 2L. Rank 1 then sends block 2 to rank 2 (it arrives at
                // 9S + 4L) and, once that has left (8S + 2L), block 0 to rank 0, arriving at
                // 10S + 4L: 4L + 10 m/B.
                EXPECT_NEAR(expected, 4 * kL + 10 * S(kM), 1e-12);
            }
            const auto res = run(p, CollOp::ReduceScatter, "recursive_halving", 0, nullptr, ipb);
            EXPECT_NEAR(res.simulated.seconds(), expected, 1e-9);
            expect_bytes(res, sent, received);
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
