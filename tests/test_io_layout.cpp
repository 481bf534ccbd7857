// File views and the striping distribution: pure functions, checked by hand-computed cases
// and by invariants (every byte mapped once; objects add up to the file).
#include <gtest/gtest.h>

#include "iosys/layout.hpp"

namespace clustersim::io {
namespace CLUSTERSIM_TEST_FILE {

TEST(IoLayout, ContiguousViewIsOneExtentAfterTheDisplacement) {
    std::vector<Extent> out;
    view_extents(View{1000, 0, 0}, 24, 100, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], (Extent{1024, 100}));
}

TEST(IoLayout, VectorViewSkipsTheGaps) {
    // 10 bytes every 30 from 100: view bytes 5..34 are file 105..109, 130..139, 160..169,
    // 190..194.
    std::vector<Extent> out;
    view_extents(View{100, 10, 30}, 5, 30, out);
    const std::vector<Extent> want{{105, 5}, {130, 10}, {160, 10}, {190, 5}};
    EXPECT_EQ(out, want);
    // block == stride is contiguous.
    out.clear();
    view_extents(View{0, 8, 8}, 4, 20, out);
    EXPECT_EQ(out, (std::vector<Extent>{{4, 20}}));
}

TEST(IoLayout, ClipKeepsWhatIsBeforeTheEnd) {
    std::vector<Extent> e{{0, 10}, {20, 10}, {40, 10}};
    EXPECT_EQ(clip_extents(e, 25), 15u);
    EXPECT_EQ(e, (std::vector<Extent>{{0, 10}, {20, 5}}));
    EXPECT_EQ(clip_extents(e, 0), 0u);
    EXPECT_TRUE(e.empty());
}

TEST(IoLayout, MergeSortsAndJoinsTouchingOrOverlappingExtents) {
    std::vector<Extent> e{{50, 10}, {0, 10}, {10, 5}, {55, 20}, {100, 1}};
    merge_extents(e);
    EXPECT_EQ(e, (std::vector<Extent>{{0, 15}, {50, 25}, {100, 1}}));
}

TEST(IoLayout, StripingRoundRobinsChunksAndPacksEachServersShare) {
    const SimpleStriping s(64, 3);
    std::vector<Piece> p;
    s.map(Extent{32, 256}, p);  // chunks 0 (from 32), 1, 2, 3, 4 (to 288 = 4*64 + 32)
    ASSERT_EQ(p.size(), 5u);
    EXPECT_EQ(p[0].server, 0u);
    EXPECT_EQ(p[0].local, 32u);
    EXPECT_EQ(p[0].bytes, 32u);
    EXPECT_EQ(p[1].server, 1u);
    EXPECT_EQ(p[1].local, 0u);
    EXPECT_EQ(p[3].server, 0u);  // chunk 3: server 0, its second chunk
    EXPECT_EQ(p[3].local, 64u);
    EXPECT_EQ(p[4].server, 1u);
    EXPECT_EQ(p[4].local, 64u);
    EXPECT_EQ(p[4].bytes, 32u);
}

TEST(IoLayout, ObjectSizesAddUpToTheFileAndMatchTheMapping) {
    for (std::uint32_t n : {1u, 2u, 3u, 8u})
        for (std::uint64_t size : {0ull, 1ull, 63ull, 64ull, 65ull, 1000ull, 64ull * 8 * 5 + 7}) {
            const SimpleStriping s(64, n);
            std::vector<Piece> p;
            s.map(Extent{0, size}, p);
            std::vector<std::uint64_t> end(n, 0), sum(n, 0);
            for (const Piece& x : p) {
                EXPECT_EQ(x.local, end[x.server]) << "each object is filled without holes";
                end[x.server] = x.local + x.bytes;
                sum[x.server] += x.bytes;
            }
            std::uint64_t total = 0;
            for (std::uint32_t k = 0; k < n; ++k) {
                EXPECT_EQ(s.object_size(k, size), sum[k]) << n << " " << size << " " << k;
                total += s.object_size(k, size);
            }
            EXPECT_EQ(total, size);
        }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::io
