// The global operator new and delete (simulator/large_blocks.hpp): a block of at least 2 MiB
// starts on a 2 MiB boundary in a mapping advised for huge pages, keeps its bytes and is
// unmapped by delete; smaller blocks, and a malloc block that happens to be 2 MiB-aligned,
// stay malloc's; the table of large blocks survives growth and deletion in any order.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "simulator/large_blocks.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// The VmFlags of the mapping of /proc/self/smaps that holds p ("" if none does).
std::string vm_flags_of(const void* p) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        const auto dash = line.find('-');
        const auto space = line.find(' ');
        if (dash != std::string::npos && space != std::string::npos && dash < space &&
            line.find(':') > space) {  // a mapping's header: start-end perms ...
            const auto start = std::stoull(line.substr(0, dash), nullptr, 16);
            const auto end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
            inside = start <= addr && addr < end;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line + " ";
        }
    }
    return "";
}

constexpr std::uintptr_t kTwoMiB = std::uintptr_t{2} << 20;

TEST(SimLargeBlocks, ALargeVectorStartsOnAHugePageBoundaryInAnAdvisedMappingAndKeepsItsValues) {
    if (!large_blocks_on_huge_pages()) GTEST_SKIP() << "the runtime's own allocator in this build";
    const std::size_t before = large_blocks_live();
    {
        std::vector<std::uint64_t> v((3 << 20) / 8 +
                                     5);  // 3 MiB and 40 B: one huge page and part of one
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kTwoMiB, 0u);
        EXPECT_EQ(large_blocks_live(), before + 1);
        EXPECT_NE(vm_flags_of(v.data()).find(" hg "), std::string::npos)
            << "not advised MADV_HUGEPAGE: " << vm_flags_of(v.data());
        EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::uint64_t x) { return x == 0; }));
        std::iota(v.begin(), v.end(), std::uint64_t{7});
        v.push_back(1);  // grows into a new large block, the old one unmapped
        EXPECT_EQ(large_blocks_live(), before + 1);
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kTwoMiB, 0u);
        for (std::size_t i = 0; i + 1 < v.size(); ++i) ASSERT_EQ(v[i], i + 7) << "element " << i;
        EXPECT_EQ(v.back(), 1u);
    }
    EXPECT_EQ(large_blocks_live(), before);
    std::vector<char> small(kTwoMiB - 1);  // one byte short: malloc's
    EXPECT_EQ(large_blocks_live(), before);
}

TEST(SimLargeBlocks, OverAlignedTypesTakeTheSamePathAndSmallOnesKeepTheirAlignment) {
    if (!large_blocks_on_huge_pages()) GTEST_SKIP() << "the runtime's own allocator in this build";
    struct alignas(64) Line {
        std::uint64_t word[8];
    };
    const std::size_t before = large_blocks_live();
    {
        std::vector<Line> lines(kTwoMiB / sizeof(Line) + 1);  // operator new(size, align_val_t)
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(lines.data()) % kTwoMiB, 0u);
        EXPECT_EQ(large_blocks_live(), before + 1);
        EXPECT_NE(vm_flags_of(lines.data()).find(" hg "), std::string::npos);
        lines.back().word[7] = 42;
        EXPECT_EQ(lines.back().word[7], 42u);
        std::vector<Line> few(3);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(few.data()) % 64, 0u);
        EXPECT_EQ(large_blocks_live(), before + 1);
    }
    EXPECT_EQ(large_blocks_live(), before);
}

TEST(SimLargeBlocks, ManyBlocksFreedInAnyOrderAndAnAlignedMallocBlockStayApart) {
    if (!large_blocks_on_huge_pages()) GTEST_SKIP() << "the runtime's own allocator in this build";
    const std::size_t before = large_blocks_live();
    // 1,500 blocks (3 GiB of address space, none of it touched): the table grows past its
    // first 1,024 slots, and frees in a random order shift its probe runs back.
    std::vector<void*> blocks;
    std::mt19937_64 rng(25);
    for (int i = 0; i < 1500; ++i) {
        void* p = ::operator new(kTwoMiB + (rng() % 3) * 4096);
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % kTwoMiB, 0u);
        blocks.push_back(p);
    }
    EXPECT_EQ(large_blocks_live(), before + 1500);
    std::vector<void*> sorted = blocks;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    // A malloc block on a 2 MiB boundary is no large block: delete gives it back to free.
    // (Through a volatile, so the compiler does not see the malloc block meet operator delete.)
    void* volatile from_malloc = std::aligned_alloc(kTwoMiB, 64);
    void* aligned = from_malloc;
    ASSERT_NE(aligned, nullptr);
    bool aligned_freed = false;
    std::shuffle(blocks.begin(), blocks.end(), rng);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        ::operator delete(blocks[i]);
        if (i % 3 == 0) blocks.push_back(::operator new(kTwoMiB));  // reuse among frees
        if (i == 700) {
            ::operator delete(aligned);
            aligned_freed = true;
        }
        ASSERT_LE(large_blocks_live(), before + 1500);
    }
    EXPECT_TRUE(aligned_freed);
    EXPECT_EQ(large_blocks_live(), before);
}

TEST(SimLargeBlocks, AnImpossibleSizeThrowsBadAllocOrGivesNullWithNothrow) {
    if (!large_blocks_on_huge_pages()) GTEST_SKIP() << "the runtime's own allocator in this build";
    const std::size_t before = large_blocks_live();
    // Sizes through a volatile, so the compiler cannot see them exceed any object's.
    for (volatile std::size_t n : {std::size_t{SIZE_MAX - 100}, std::size_t{1} << 62}) {
        EXPECT_THROW(
            {
                void* p = ::operator new(n);
                ::operator delete(p);
            },
            std::bad_alloc);
        EXPECT_EQ(::operator new(n, std::nothrow), nullptr);
    }
    EXPECT_EQ(large_blocks_live(), before);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
