#include "simulator/huge_buffer.hpp"

#include <new>

#include "simulator/large_blocks.hpp"

namespace clustersim {

HugeBuffer::HugeBuffer(std::size_t bytes) {
    if (bytes == 0) return;
    const std::size_t mapped = (bytes + kPage - 1) / kPage * kPage;
    void* block = map_huge_pages(mapped);
    if (block == nullptr) throw std::bad_alloc();
    data_ = static_cast<std::uint8_t*>(block);
    size_ = bytes;
    mapped_ = mapped;
}

void HugeBuffer::release() noexcept {
    unmap_huge_pages(data_, mapped_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = 0;
}

}  // namespace clustersim
