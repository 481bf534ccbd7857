// `compare --by-size` (issue 57): every MPI call lands in one message size class, the classes'
// bounds are where the documentation puts them, and the table per operation and size class
// adds up to the table per operation on both sides.
#include <gtest/gtest.h>

#include "mpi/runtime.hpp"
#include "report/compare.hpp"

namespace {

using namespace clustersim;
using traces::size_class_name;
using traces::size_class_of;

TEST(CompareBySize, ClassBoundsArePowersOfSixteenFrom64Bytes) {
    EXPECT_EQ(size_class_of(0), 0);
    EXPECT_EQ(size_class_of(1), 1);
    EXPECT_EQ(size_class_of(64), 1);
    EXPECT_EQ(size_class_of(65), 2);
    EXPECT_EQ(size_class_of(1024), 2);
    EXPECT_EQ(size_class_of(1025), 3);
    EXPECT_EQ(size_class_of(16 * 1024), 3);
    EXPECT_EQ(size_class_of(256 * 1024), 4);
    EXPECT_EQ(size_class_of(256 * 1024 + 1), 5);
    EXPECT_EQ(size_class_of(4ULL << 20), 5);
    EXPECT_EQ(size_class_of(64ULL << 20), 6);
    EXPECT_EQ(size_class_of((64ULL << 20) + 1), 7);
    EXPECT_EQ(size_class_of(~0ULL), traces::kSizeClasses - 1);
    EXPECT_EQ(size_class_name(0), "0 B");
    EXPECT_EQ(size_class_name(1), "(0 B, 64 B]");
    EXPECT_EQ(size_class_name(2), "(64 B, 1 KiB]");
    EXPECT_EQ(size_class_name(5), "(256 KiB, 4 MiB]");
    EXPECT_EQ(size_class_name(6), "(4 MiB, 64 MiB]");
    EXPECT_EQ(size_class_name(7), "> 64 MiB");
}

mpi::OpEvent sized_op(std::int32_t rank, int kind, std::uint64_t bytes, std::int64_t start_us,
                      std::int64_t end_us) {
    mpi::OpEvent e;
    e.rank = rank;
    e.kind = kind;
    e.bytes = bytes;
    e.start = Time::us(start_us);
    e.end = Time::us(end_us);
    return e;
}

TEST(CompareBySize, TheClassesAddUpToEachOperationOnBothSides) {
    traces::RunLog rec, sim;
    rec.ranks.resize(2);
    sim.ranks.resize(2);
    // Sends of three sizes, a barrier (no bytes) and compute (left out of the classes).
    const std::uint64_t sizes[] = {8, 8, 4096, 1 << 20, 0};
    std::int64_t t = 0;
    for (const std::uint64_t b : sizes) {
        const int kind = b == 0
                             ? mpi::stat_kind(mpi::OpKind::Collective, mpi::CollOp::Barrier, false)
                             : mpi::stat_kind(mpi::OpKind::Send, {}, false);
        rec.ops.push_back(sized_op(0, kind, b, t, t + 10));
        sim.ops.push_back(sized_op(0, kind, b, t, t + 7));
        const int compute = mpi::stat_kind(mpi::OpKind::Compute, {}, false);
        rec.ops.push_back(sized_op(1, compute, 0, t, t + 3));
        sim.ops.push_back(sized_op(1, compute, 0, t, t + 4));
        t += 20;
    }
    const traces::Comparison c = traces::compare_runs(rec, sim);
    // Send: 8 B twice, 4 KiB, 1 MiB; Barrier: 0 B. No compute row.
    ASSERT_EQ(c.by_size.size(), 4u);
    std::map<std::string, const traces::CompareRow*> by_name;
    for (const auto& r : c.by_size) by_name[r.name] = &r;
    ASSERT_TRUE(by_name.count("Send (0 B, 64 B]"));
    EXPECT_EQ(by_name["Send (0 B, 64 B]"]->count_recorded, 2u);
    EXPECT_EQ(by_name["Send (0 B, 64 B]"]->recorded, Time::us(20));
    EXPECT_EQ(by_name["Send (0 B, 64 B]"]->simulated, Time::us(14));
    EXPECT_TRUE(by_name.count("Send (1 KiB, 16 KiB]"));
    EXPECT_TRUE(by_name.count("Send (256 KiB, 4 MiB]"));
    EXPECT_TRUE(by_name.count("Barrier 0 B"));
    for (const auto& o : c.ops) {
        if (o.name == "Compute") continue;
        std::uint64_t calls_rec = 0, calls_sim = 0;
        Time time_rec, time_sim;
        for (const auto& r : c.by_size)
            if (r.name.rfind(o.name + " ", 0) == 0) {
                calls_rec += r.count_recorded;
                calls_sim += r.count_simulated;
                time_rec += r.recorded;
                time_sim += r.simulated;
            }
        EXPECT_EQ(calls_rec, o.count_recorded) << o.name;
        EXPECT_EQ(calls_sim, o.count_simulated) << o.name;
        EXPECT_EQ(time_rec, o.recorded) << o.name;
        EXPECT_EQ(time_sim, o.simulated) << o.name;
    }
    const std::string table = traces::format_comparison(c, 32, true);
    EXPECT_NE(table.find("Send (0 B, 64 B]"), std::string::npos) << table;
    // Per call: 20 us / 2 recorded, 14 us / 2 simulated.
    EXPECT_NE(table.find("10 us"), std::string::npos) << table;
    EXPECT_NE(table.find("7 us"), std::string::npos) << table;
    EXPECT_EQ(traces::format_comparison(c).find("size class"), std::string::npos);
}

}  // namespace
