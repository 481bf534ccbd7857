#include "simulator/huge_buffer.hpp"

#include <sys/mman.h>

#include <new>

namespace clustersim {

HugeBuffer::HugeBuffer(std::size_t bytes) {
    if (bytes == 0) return;
    const std::size_t mapped = (bytes + kPage - 1) / kPage * kPage;
    // One page more than needed, so the buffer can start on a 2 MiB boundary.
    void* raw =
        mmap(nullptr, mapped + kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<std::uint8_t*>(raw);
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t lead = (kPage - addr % kPage) % kPage;
    if (lead != 0) munmap(base, lead);
    if (kPage - lead != 0) munmap(base + lead + mapped, kPage - lead);
    data_ = base + lead;
    size_ = bytes;
    mapped_ = mapped;
    madvise(data_, mapped_, MADV_HUGEPAGE);  // a hint: failure leaves ordinary pages
}

void HugeBuffer::release() noexcept {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = 0;
}

}  // namespace clustersim
