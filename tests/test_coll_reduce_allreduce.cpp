// Reduce and allreduce algorithms against closed forms on the uniform star
// (coll_fixtures.hpp: T(m) = 2L + 2m/B per uncontended message, S(m) = m/B per link; sends
// complete when their last byte has left). Reductions are free unless a test asks for a
// cost: at r instructions per byte on a 1G instr/s core, reducing m bytes takes
// R(m) = r m ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "coll_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;

const std::vector<int> kRanks{2, 3, 4, 5, 7, 8, 13, 16};
const std::uint64_t kM = 1 << 20;

double R(double m, double instructions_per_byte) {
    return m * instructions_per_byte / 1e9;
}

// Several m-byte messages sent to one rank at times `sent` (each from a different sender
// with a free up-link): each crosses its sender's up-link (S), waits L, then the
// receiver's down-link, which carries one whole message at a time (S), then L. With equal
// sizes the delivery times do not depend on which of two simultaneous messages goes first.
// Returns the last delivery.
double last_delivery(std::vector<double> sent, double m) {
    std::sort(sent.begin(), sent.end());
    double link_free = 0, last = 0;
    for (double t : sent) {
        link_free = std::max(t + S(m) + kL, link_free) + S(m);
        last = link_free + kL;
    }
    return last;
}

// Binomial tree over relative ranks (children of v: v + 2^i below v's lowest set bit,
// every power of two below p for the root).
std::vector<int> binomial_children(int v, int p) {
    std::vector<int> out;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (v & mask) break;
        if (v + mask < p) out.push_back(v + mask);
    }
    return out;
}

// ---- reduce ---------------------------------------------------------------------------

// Linear: the p-1 vectors leave at once and queue on the root's down-link; the last is in
// at S + L + (p-1) S + L = p S(m) + 2L; then the root reduces all (p-1) m bytes.
TEST(Reduce, LinearQueuesOnTheRootsDownLink) {
    for (int p : kRanks) {
        for (int root : {0, p - 1}) {
            for (std::uint64_t ipb : {0, 1}) {
                const auto res = run_collective(p, {CollOp::Reduce, "linear", kM, root}, ipb);
                EXPECT_NEAR(res.simulated.seconds(), p * S(kM) + 2 * kL + R((p - 1) * kM, ipb),
                            1e-9)
                    << p;
                for (int r = 0; r < p; ++r) {
                    EXPECT_EQ(res.ranks[r].bytes_sent, r == root ? 0 : kM);
                    EXPECT_EQ(res.ranks[r].bytes_received, r == root ? (p - 1) * kM : 0);
                }
            }
        }
    }
}

// Binomial (free reductions): a rank is ready to send once the vectors of all its children
// are in; ready(leaf) = 0 and ready(v) = last_delivery({ready(c)}) (a rank's children send
// once each, at their ready times; two children of equal subtree height send at the same
// instant and the second waits S(m) on v's down-link: that happens for p = 5, 13). The
// root is last: time = ready(0). For p = 2^k the child v + 2^i is ready at i T(m), so no
// two collide and the time is log2(p) T(m), the textbook ceil(log2 p)(alpha + m/beta).
double binomial_reduce_time(int p, double m) {
    std::vector<double> ready(static_cast<std::size_t>(p), 0.0);
    for (int v = p - 1; v >= 0; --v) {
        std::vector<double> sent;
        for (int c : binomial_children(v, p)) sent.push_back(ready[c]);
        if (!sent.empty()) ready[v] = last_delivery(sent, m);
    }
    return ready[0];
}

TEST(Reduce, BinomialMirrorsTheBcastTree) {
    for (int p : {2, 4, 8, 16})
        EXPECT_NEAR(binomial_reduce_time(p, kM), ceil_log2(p) * T(kM), 1e-15);
    // p = 5: rank 4 and rank 1 (both leaves) send to the root at 0; rank 2 has rank 3's at T.
    EXPECT_NEAR(binomial_reduce_time(5, kM), 2 * T(kM), 1e-15);
    // p = 3: ranks 1 and 2 send to the root at 0: the second is in at T + S.
    EXPECT_NEAR(binomial_reduce_time(3, kM), T(kM) + S(kM), 1e-15);
    for (int p : kRanks) {
        for (int root : {0, p - 1}) {
            const auto res = run_collective(p, {CollOp::Reduce, "binomial", kM, root});
            EXPECT_NEAR(res.simulated.seconds(), binomial_reduce_time(p, kM), 1e-9)
                << p << " root " << root;
            // Every non-root sends its partial vector once; a rank receives one per child
            // (the root: ceil(log2 p) of them).
            std::uint64_t sent = 0, received = 0;
            for (int r = 0; r < p; ++r) {
                const int vr = (r - root + p) % p;
                EXPECT_EQ(res.ranks[r].bytes_sent, vr == 0 ? 0 : kM) << p << " rank " << r;
                EXPECT_EQ(res.ranks[r].bytes_received, binomial_children(vr, p).size() * kM)
                    << p << " rank " << r;
                sent += res.ranks[r].bytes_sent;
                received += res.ranks[r].bytes_received;
            }
            EXPECT_EQ(res.ranks[root].bytes_received, ceil_log2(p) * kM);
            EXPECT_EQ(sent, received);
        }
    }
}

// With a reduction cost R = R(m) after every receive, on p = 2^k ranks: the child v + 2^i
// is ready at i (T + R), its vector is in at i (T + R) + T (consecutive ones T + R > S
// apart: no queueing), and v's previous step ended at i (T + R), so step i ends at
// (i + 1)(T + R). The root: log2(p) (T(m) + R(m)): every reduction is on the critical path.
TEST(Reduce, BinomialReductionsAreOnTheCriticalPath) {
    for (std::uint64_t ipb : {1, 3}) {
        for (int p : {2, 4, 8, 16}) {
            for (int root : {0, p - 1}) {
                const auto res = run_collective(p, {CollOp::Reduce, "binomial", kM, root}, ipb);
                EXPECT_NEAR(res.simulated.seconds(), ceil_log2(p) * (T(kM) + R(kM, ipb)), 1e-9)
                    << p << " " << ipb;
            }
        }
    }
}

// Binary tree (heap order over relative ranks): a rank receives both children's vectors
// in one step, then sends; same recurrence as the binomial tree with children 2v+1, 2v+2,
// plus the reduction of both after the step. For a full tree of p = 2^d - 1 ranks the
// two children of a node always arrive together: (d - 1)(T + S + 2R).
double binary_tree_reduce_time(int p, double m, double reduce_per_child) {
    std::vector<double> ready(static_cast<std::size_t>(p), 0.0);
    for (int v = p - 1; v >= 0; --v) {
        std::vector<double> sent;
        for (int c : {2 * v + 1, 2 * v + 2})
            if (c < p) sent.push_back(ready[c]);
        if (!sent.empty()) ready[v] = last_delivery(sent, m) + sent.size() * reduce_per_child;
    }
    return ready[0];
}

TEST(Reduce, BinaryTreeChildrenShareTheParentsDownLink) {
    EXPECT_NEAR(binary_tree_reduce_time(15, kM, 0), 3 * (T(kM) + S(kM)), 1e-15);
    for (std::uint64_t ipb : {0, 1}) {
        for (int p : kRanks) {
            for (int root : {0, p / 2}) {
                const auto res = run_collective(p, {CollOp::Reduce, "binary_tree", kM, root}, ipb);
                EXPECT_NEAR(res.simulated.seconds(), binary_tree_reduce_time(p, kM, R(kM, ipb)),
                            1e-9)
                    << p << " root " << root << " ipb " << ipb;
                std::uint64_t sent = 0, received = 0;
                for (int r = 0; r < p; ++r) {
                    const int vr = (r - root + p) % p;
                    const std::uint64_t children =
                        (2 * vr + 1 < p ? 1u : 0u) + (2 * vr + 2 < p ? 1u : 0u);
                    EXPECT_EQ(res.ranks[r].bytes_sent, vr == 0 ? 0 : kM);
                    EXPECT_EQ(res.ranks[r].bytes_received, children * kM);
                    sent += res.ranks[r].bytes_sent;
                    received += res.ranks[r].bytes_received;
                }
                EXPECT_EQ(sent, received);
            }
        }
    }
}

// ---- allreduce ------------------------------------------------------------------------

// The binomial bcast from rank 0 (as in test_coll_barrier_bcast.cpp): a rank's j-th send
// leaves j S(m) after its first, arrival(v) = arrival(parent) + j S(m) + T(m); each rank
// receives once.
double binomial_bcast_time(int p, double m) {
    std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
    double worst = 0;
    for (int v = 0; v < p; ++v) {
        const auto children = binomial_children(v, p);  // ascending; sent in descending order
        for (std::size_t i = 0; i < children.size(); ++i) {
            const auto j = static_cast<double>(children.size() - 1 - i);
            arrival[children[i]] = arrival[v] + j * S(m) + T(m);
            worst = std::max(worst, arrival[children[i]]);
        }
    }
    return worst;
}

// reduce_bcast: the bcast starts when rank 0 has the reduced vector; by then every reduce
// message has been delivered (each before its receiver is ready, and every ready time is
// at most the root's) and every rank waits in its bcast receive, so the two phases add up.
// Each rank receives a vector from each of its binomial children and sends one to each of
// them, plus one exchange with its parent both ways.
TEST(Allreduce, ReduceBcastIsTheSumOfItsPhases) {
    for (int p : {2, 4, 8, 16})
        EXPECT_NEAR(binomial_bcast_time(p, kM), ceil_log2(p) * T(kM), 1e-15);
    for (int p : kRanks) {
        const auto res = run_collective(p, {CollOp::Allreduce, "reduce_bcast", kM});
        EXPECT_NEAR(res.simulated.seconds(),
                    binomial_reduce_time(p, kM) + binomial_bcast_time(p, kM), 1e-9)
            << p;
        std::uint64_t sent = 0, received = 0;
        for (int r = 0; r < p; ++r) {
            const std::uint64_t moves = binomial_children(r, p).size() + (r == 0 ? 0 : 1);
            EXPECT_EQ(res.ranks[r].bytes_sent, moves * kM) << p << " rank " << r;
            EXPECT_EQ(res.ranks[r].bytes_received, moves * kM) << p << " rank " << r;
            sent += res.ranks[r].bytes_sent;
            received += res.ranks[r].bytes_received;
        }
        EXPECT_EQ(sent, received);
    }
}

// Recursive doubling, q = log2(pof2) rounds, rem = p - pof2. The odd ranks below 2 rem
// (newrank < rem) start the rounds at T(m) (the even neighbour's vector), the others at 0.
// In round k a rank's step ends at E_r(k) = max(E_r(k-1) + S(m), E_partner(k-1) + T(m)) (its
// send; the partner's vector, sent when the partner started the round). Unrolled over the
// hypercube, a chain from u to r must flip exactly the bits where they differ:
//     E_r = max over u of start(u) + h(u, r) T(m) + (q - h(u, r)) S(m)   (h: Hamming distance)
// The even ranks below 2 rem get the result one T(m) after their odd neighbour's E; the
// others finish at E (odd ones S(m) later, after the send back). No queueing delays the
// critical path: the even neighbour's vector and an early partner's round-0 vector reach
// an odd rank's down-link together (the neighbour's, posted first, goes first), so the
// partner's is in at T + S, exactly when the odd rank's own round-0 send ends.
// For p = 2^k: log2(p) T(m).
double recursive_doubling_time(int p, double m) {
    int pof2 = 1, q = 0;
    while (pof2 * 2 <= p) pof2 *= 2, ++q;
    const int rem = p - pof2;
    double worst = 0;
    for (int r = 0; r < pof2; ++r) {
        double e = 0;
        for (int u = 0; u < pof2; ++u) {
            int h = 0;
            for (int x = u ^ r; x > 0; x >>= 1) h += x & 1;
            e = std::max(e, (u < rem ? T(m) : 0) + h * T(m) + (q - h) * S(m));
        }
        worst = std::max(worst, r < rem ? e + T(m) : e);
    }
    return worst;
}

TEST(Allreduce, RecursiveDoublingOverTheHypercube) {
    for (int p : {2, 4, 8, 16})
        EXPECT_NEAR(recursive_doubling_time(p, kM), ceil_log2(p) * T(kM), 1e-15);
    // p = 3: rank 1 has rank 0's vector at T and rank 2's at T + S (queued behind it) and its
    // own send ends at T + S; rank 0 gets the result at T + S + T.
    EXPECT_NEAR(recursive_doubling_time(3, kM), 2 * T(kM) + S(kM), 1e-15);
    for (std::uint64_t m : {kM, std::uint64_t{1000}}) {
        for (int p : kRanks) {
            const auto res = run_collective(p, {CollOp::Allreduce, "recursive_doubling", m});
            EXPECT_NEAR(res.simulated.seconds(), recursive_doubling_time(p, m), 1e-9)
                << p << " m " << m;
            int pof2 = 1, q = 0;
            while (pof2 * 2 <= p) pof2 *= 2, ++q;
            const int rem = p - pof2;
            std::uint64_t sent = 0, received = 0;
            for (int r = 0; r < p; ++r) {
                // Sitting out: one vector out, the result in. Odd below 2 rem: the
                // neighbour's vector in, q exchanges, the result out. Others: q exchanges.
                const std::uint64_t moves = r < 2 * rem ? (r % 2 == 0 ? 1 : q + 1) : q;
                EXPECT_EQ(res.ranks[r].bytes_sent, moves * m) << p << " rank " << r;
                EXPECT_EQ(res.ranks[r].bytes_received, moves * m) << p << " rank " << r;
                sent += res.ranks[r].bytes_sent;
                received += res.ranks[r].bytes_received;
            }
            EXPECT_EQ(sent, received);
        }
    }
}

// Ring on m = p b: every step every rank sends one block to its successor and receives
// one from its predecessor, which started the step at the same instant: each step takes
// T(b) (plus R(b) of reduction in the reduce-scatter half), and a down-link only ever
// carries the predecessor's block. 2 (p-1) T(m/p) + (p-1) R(m/p).
TEST(Allreduce, RingIsTwoPMinusOneSteps) {
    const std::uint64_t b = 64 * 1024;
    for (std::uint64_t ipb : {0, 1}) {
        for (int p : kRanks) {
            const std::uint64_t m = p * b;
            const auto res = run_collective(p, {CollOp::Allreduce, "ring", m}, ipb);
            EXPECT_NEAR(res.simulated.seconds(), 2 * (p - 1) * T(b) + (p - 1) * R(b, ipb), 1e-9)
                << p << " " << ipb;
        }
    }
}

TEST(Allreduce, RingSendsAllButTwoBlocks) {
    // Uneven blocks: m = 1 MiB + 123, block i = m / p (+1 for i < m % p). Reduce-scatter:
    // rank r sends every block but (r+1)'s and receives every block but its own; allgather:
    // sends every block but (r+2)'s, receives every block but (r+1)'s (indices mod p).
    const std::uint64_t m = kM + 123;
    for (int p : kRanks) {
        auto block = [&](int i) {
            return m / p + (static_cast<std::uint64_t>(i % p) < m % p ? 1 : 0);
        };
        const auto res = run_collective(p, {CollOp::Allreduce, "ring", m});
        std::uint64_t sent = 0, received = 0;
        for (int r = 0; r < p; ++r) {
            EXPECT_EQ(res.ranks[r].bytes_sent, 2 * m - block(r + 1) - block(r + 2))
                << p << " rank " << r;
            EXPECT_EQ(res.ranks[r].bytes_received, 2 * m - block(r) - block(r + 1))
                << p << " rank " << r;
            sent += res.ranks[r].bytes_sent;
            received += res.ranks[r].bytes_received;
        }
        EXPECT_EQ(sent, received);
        EXPECT_EQ(sent, 2 * (p - 1) * m);
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
