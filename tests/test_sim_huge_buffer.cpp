// HugeBuffer (simulator/huge_buffer.hpp): a zero-filled mapping that starts on a 2 MiB
// boundary, keeps what is written, moves without copying and frees on destruction.
#include <cstdint>
#include <numeric>
#include <utility>

#include <gtest/gtest.h>

#include "simulator/huge_buffer.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

TEST(SimHugeBuffer, IsZeroFilledAlignedAndKeepsItsBytes) {
    const std::size_t n = HugeBuffer::kPage + 12345;  // two huge pages, the second partly
    HugeBuffer b(n);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(b.size(), n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % HugeBuffer::kPage, 0u);
    EXPECT_EQ(std::accumulate(b.data(), b.data() + n, std::uint64_t{0}), 0u);
    for (std::size_t i = 0; i < n; ++i) b.data()[i] = static_cast<std::uint8_t>(i * 7);
    HugeBuffer moved(std::move(b));
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(b.size(), 0u);
    ASSERT_EQ(moved.size(), n);
    for (std::size_t i = 0; i < n; i += 4099)
        ASSERT_EQ(moved.data()[i], static_cast<std::uint8_t>(i * 7)) << "byte " << i;
    EXPECT_EQ(moved.data()[n - 1], static_cast<std::uint8_t>((n - 1) * 7));
    HugeBuffer other(10);
    other = std::move(moved);  // the 10-byte mapping is freed, the large one taken over
    EXPECT_EQ(other.size(), n);
    EXPECT_EQ(other.data()[n - 1], static_cast<std::uint8_t>((n - 1) * 7));
}

TEST(SimHugeBuffer, EmptyMapsNothing) {
    HugeBuffer b(0);
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(b.size(), 0u);
    HugeBuffer d;
    EXPECT_EQ(d.data(), nullptr);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
