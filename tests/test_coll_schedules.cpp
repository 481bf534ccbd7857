// Every registered collective algorithm's schedule, checked without the engine: for each
// ordered pair of ranks, the messages (count and bytes) one sends equal those the other
// receives, peers are in range, and every schedule ends. Runs over p = 1..17 and two roots.
#include <gtest/gtest.h>

#include <map>

#include <fmt/format.h>

#include "collectives/collective.hpp"

namespace clustersim {
namespace {

using mpi::CollArgs;
using mpi::CollOp;

bool is_v(CollOp op) {
    return op == CollOp::Gatherv || op == CollOp::Scatterv || op == CollOp::Allgatherv ||
           op == CollOp::Alltoallv;
}

TEST(Schedules, SendsMatchReceivesForEveryAlgorithm) {
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    ASSERT_FALSE(registry.all().empty());
    for (const auto& info : registry.all()) {
        if (info.impl->global_view()) continue;
        for (int p = 1; p <= 17; ++p) {
            std::vector<std::uint64_t> counts;
            if (info.op == CollOp::Alltoallv) {
                for (int i = 0; i < p * p; ++i)
                    counts.push_back(100 + 37 * static_cast<std::uint64_t>(i % 5));
            } else {
                for (int i = 0; i < p; ++i)
                    counts.push_back(100 + 37 * static_cast<std::uint64_t>(i % 5));
            }
            for (int root : {0, p - 1}) {
                SCOPED_TRACE(
                    fmt::format("{}/{} p={} root={}", mpi::to_string(info.op), info.name, p, root));
                // (from, to) -> {messages, bytes} as sent, and as received.
                std::map<std::pair<int, int>, std::pair<int, std::uint64_t>> sent, received;
                for (int r = 0; r < p; ++r) {
                    CollArgs a;
                    a.op = info.op;
                    a.rank = r;
                    a.size = p;
                    a.root = root;
                    a.bytes = 1000 + 7;  // not a multiple of p: uneven splits are exercised
                    a.segment = 300;
                    a.counts = is_v(info.op) ? &counts : nullptr;
                    mpi::Step s;
                    std::uint32_t k = 0;
                    for (;; ++k) {
                        s.clear();
                        if (!info.impl->step(a, k, s)) break;
                        ASSERT_LT(k, 100u + 10u * static_cast<std::uint32_t>(p))
                            << "schedule does not end";
                        for (const auto& t : s.transfers) {
                            ASSERT_GE(t.peer, 0);
                            ASSERT_LT(t.peer, p);
                            ASSERT_NE(t.peer, r) << "a rank transfers to itself";
                            auto& e = t.send ? sent[{r, t.peer}] : received[{t.peer, r}];
                            ++e.first;
                            e.second += t.bytes;
                        }
                    }
                }
                EXPECT_EQ(sent, received);
            }
        }
    }
}

TEST(Schedules, EveryOperationHasAlgorithms) {
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    for (int i = 0; i < mpi::kCollOps; ++i)
        EXPECT_FALSE(registry.names(static_cast<CollOp>(i)).empty())
            << mpi::to_string(static_cast<CollOp>(i));
}

}  // namespace
}  // namespace clustersim
