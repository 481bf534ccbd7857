// A large read-mostly byte buffer on transparent huge pages (issue 25).
//
// The simulator touches large arrays in an order no hardware prefetcher follows (a replay
// reads a thousand trace streams in turn): on a virtual machine every 4 KiB page touched
// for the first time in a while is a TLB miss with a two-dimensional page walk. A buffer of
// 2 MiB pages needs one TLB entry per 2 MiB. HugeBuffer maps anonymous memory rounded up to
// 2 MiB that asks for huge pages before the first touch (map_huge_pages, large_blocks.hpp),
// and unmaps it when destroyed; unlike a large block of operator new it does so in the
// sanitizer builds too. Where the kernel gives no huge pages it is ordinary memory: only the
// speed differs, never the contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace clustersim {

class HugeBuffer {
  public:
    static constexpr std::size_t kPage = std::size_t{2} << 20;

    HugeBuffer() = default;
    // Zero-filled `bytes` (none: empty). Throws std::bad_alloc if the mapping fails.
    explicit HugeBuffer(std::size_t bytes);
    HugeBuffer(HugeBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)),
          size_(std::exchange(o.size_, 0)),
          mapped_(std::exchange(o.mapped_, 0)) {}
    HugeBuffer& operator=(HugeBuffer&& o) noexcept {
        if (this != &o) {
            release();
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            mapped_ = std::exchange(o.mapped_, 0);
        }
        return *this;
    }
    HugeBuffer(const HugeBuffer&) = delete;
    HugeBuffer& operator=(const HugeBuffer&) = delete;
    ~HugeBuffer() { release(); }

    std::uint8_t* data() { return data_; }
    const std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }

  private:
    void release() noexcept;
    std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t mapped_ = 0;
};

}  // namespace clustersim
