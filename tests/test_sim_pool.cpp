// Pool (simulator/pool.hpp): acquire_made gives the same indices and values as acquire (a
// released slot first, the last released first; else a new one at the end), and writes
// every field of a reused slot (nothing of the released value is left).
#include <cstdint>

#include <gtest/gtest.h>

#include "simulator/pool.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

struct Item {
    std::uint64_t a = 7;
    std::uint32_t b = 0;
    bool c = false;
    bool d = true;
};

TEST(SimPool, AcquireMadeReusesTheLastReleasedSlotAndWritesEveryField) {
    Pool<Item> copied, made;
    for (std::uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(copied.acquire(Item{.a = i, .b = 10 * i, .c = true, .d = false}), i);
        EXPECT_EQ(
            made.acquire_made([&] { return Item{.a = i, .b = 10 * i, .c = true, .d = false}; }), i);
    }
    for (Pool<Item>* p : {&copied, &made}) {
        p->release(1);
        p->release(3);
    }
    // The last released (3), then 1, then a new slot (4); defaults fill what is not named.
    EXPECT_EQ(copied.acquire(Item{.b = 5}), 3u);
    EXPECT_EQ(made.acquire_made([] { return Item{.b = 5}; }), 3u);
    EXPECT_EQ(made.acquire_made([] { return Item{.a = 9}; }), 1u);
    EXPECT_EQ(made.acquire_made([] { return Item{.a = 11, .b = 12}; }), 4u);
    EXPECT_EQ(made.capacity(), 5u);
    EXPECT_EQ(made.live(), 5u);
    EXPECT_EQ(made[3].a, 7u);  // the default, not the released item's 3
    EXPECT_EQ(made[3].b, 5u);
    EXPECT_FALSE(made[3].c);
    EXPECT_TRUE(made[3].d);
    EXPECT_EQ(made[1].a, 9u);
    EXPECT_EQ(made[1].b, 0u);  // not the released item's 10
    EXPECT_EQ(made[4].a, 11u);
    EXPECT_EQ(made[4].b, 12u);
    EXPECT_EQ(made[0].b, 0u);
    EXPECT_EQ(made[2].b, 20u);
    EXPECT_EQ(copied[3].a, made[3].a);
    EXPECT_EQ(copied[3].b, made[3].b);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
