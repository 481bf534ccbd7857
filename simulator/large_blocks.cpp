// The global operator new and delete of every clustersim program: large blocks on their own
// huge-page mappings, the rest malloc's (large_blocks.hpp says why).
#include "simulator/large_blocks.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLUSTERSIM_OWN_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CLUSTERSIM_OWN_NEW 0
#endif
#endif
#ifndef CLUSTERSIM_OWN_NEW
#define CLUSTERSIM_OWN_NEW 1
#endif

namespace clustersim {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kSmallPage = 4096;
// The length of a mapping of n bytes: whole 4 KiB pages.
constexpr std::size_t mapped_length(std::size_t n) {
    return (n + kSmallPage - 1) / kSmallPage * kSmallPage;
}

// The live large blocks: their start (a multiple of 2 MiB, never 0) and mapped length, in an
// open-addressing table with linear probing, itself mapped directly (operator new cannot use
// itself). Guarded by `lock`; touched only by large blocks and by deleting a pointer that
// happens to be 2 MiB-aligned.
struct Entry {
    std::uintptr_t start;
    std::size_t length;
};

class Registry {
  public:
    bool insert(std::uintptr_t start, std::size_t length) {
        if ((live_ + 1) * 2 > capacity_ && !grow()) return false;
        std::size_t i = home(start);
        while (table_[i].start != 0) i = (i + 1) & (capacity_ - 1);
        table_[i] = Entry{start, length};
        ++live_;
        return true;
    }

    // The mapped length of the block at `start`, removed from the table; 0 if none is there.
    std::size_t erase(std::uintptr_t start) {
        if (capacity_ == 0) return 0;
        const std::size_t mask = capacity_ - 1;
        std::size_t i = home(start);
        while (table_[i].start != start) {
            if (table_[i].start == 0) return 0;
            i = (i + 1) & mask;
        }
        const std::size_t length = table_[i].length;
        // Backward-shift deletion: move up every later entry of the probe run whose home is
        // not in (i, j], so no lookup meets a hole before its key.
        std::size_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            if (table_[j].start == 0) break;
            const std::size_t k = home(table_[j].start);
            const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                table_[i] = table_[j];
                i = j;
            }
        }
        table_[i] = Entry{0, 0};
        --live_;
        return length;
    }

    std::size_t live() const { return live_; }

  private:
    std::size_t home(std::uintptr_t start) const {
        return static_cast<std::size_t>(((start >> 21) * 0x9E3779B97F4A7C15ULL) >> 20) &
               (capacity_ - 1);
    }

    bool grow() {
        const std::size_t capacity = capacity_ == 0 ? 1024 : capacity_ * 2;
        void* raw = mmap(nullptr, capacity * sizeof(Entry), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) return false;
        Entry* old = table_;
        const std::size_t old_capacity = capacity_;
        table_ = static_cast<Entry*>(raw);  // zero-filled: every slot empty
        capacity_ = capacity;
        live_ = 0;
        for (std::size_t i = 0; i < old_capacity; ++i) {
            if (old[i].start == 0) continue;
            std::size_t s = home(old[i].start);
            while (table_[s].start != 0) s = (s + 1) & (capacity_ - 1);
            table_[s] = old[i];
            ++live_;
        }
        if (old != nullptr) munmap(old, old_capacity * sizeof(Entry));
        return true;
    }

    Entry* table_ = nullptr;
    std::size_t capacity_ = 0;  // a power of two, or 0 before the first block
    std::size_t live_ = 0;
};

constinit std::mutex lock;
constinit Registry registry;

bool enabled() {
    static const bool on = [] {
        const char* v = std::getenv("CLUSTERSIM_HUGE_PAGES");
        return v == nullptr || std::strcmp(v, "off") != 0;
    }();
    return CLUSTERSIM_OWN_NEW != 0 && on;
}

#if CLUSTERSIM_OWN_NEW
// A large block: a huge-page mapping, recorded so delete can tell it from malloc's blocks;
// nullptr if the kernel refuses (the caller falls back to malloc).
void* map_large(std::size_t n) {
    void* block = map_huge_pages(n);
    if (block == nullptr) return nullptr;
    bool kept;
    {
        std::lock_guard<std::mutex> g(lock);
        kept = registry.insert(reinterpret_cast<std::uintptr_t>(block), mapped_length(n));
    }
    if (!kept) {
        unmap_huge_pages(block, n);
        return nullptr;
    }
    return block;
}

// Unmaps p if it is a large block; false if it is malloc's.
bool unmap_large(void* p) {
    std::size_t length;
    {
        std::lock_guard<std::mutex> g(lock);
        length = registry.erase(reinterpret_cast<std::uintptr_t>(p));
    }
    if (length == 0) return false;
    unmap_huge_pages(p, length);
    return true;
}

// `align`: 0 for operator new's own alignment, else the type's (a power of two).
void* allocate(std::size_t n, std::size_t align) {
    if (n >= kLargeBlockBytes && align <= kHugePage && enabled()) {
        if (void* p = map_large(n)) return p;
    }
    if (align > 0 && n > SIZE_MAX - align) throw std::bad_alloc();
    for (;;) {
        void* p = align == 0
                      ? std::malloc(n == 0 ? 1 : n)
                      // aligned_alloc wants a multiple of the alignment
                      : std::aligned_alloc(align, n == 0 ? align : (n + align - 1) / align * align);
        if (p != nullptr) return p;
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}

void* allocate_nothrow(std::size_t n, std::size_t align) noexcept {
    try {
        return allocate(n, align);
    } catch (...) {
        return nullptr;
    }
}

void release(void* p) noexcept {
    if (p == nullptr) return;
    // Only a 2 MiB-aligned pointer can be a large block; malloc's small blocks rarely are.
    if ((reinterpret_cast<std::uintptr_t>(p) & (kHugePage - 1)) == 0 && unmap_large(p)) return;
    std::free(p);
}

void release_sized(void* p, std::size_t n) noexcept {
    if (n < kLargeBlockBytes) {
        std::free(p);  // a block allocated with fewer bytes is never a large one
        return;
    }
    release(p);
}
#endif  // CLUSTERSIM_OWN_NEW

}  // namespace

void* map_huge_pages(std::size_t bytes) {
    if (bytes == 0 || bytes > SIZE_MAX - 2 * kHugePage) return nullptr;
    const std::size_t length = mapped_length(bytes);
    // 2 MiB more than needed, so the block can start on a boundary; the rest is unmapped.
    void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    auto* base = static_cast<std::uint8_t*>(raw);
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t lead = (kHugePage - addr % kHugePage) % kHugePage;
    if (lead != 0) munmap(base, lead);
    if (kHugePage - lead != 0) munmap(base + lead + length, kHugePage - lead);
    std::uint8_t* block = base + lead;
    madvise(block, length, MADV_HUGEPAGE);  // a hint: failure leaves ordinary pages
    return block;
}

void unmap_huge_pages(void* p, std::size_t bytes) noexcept {
    if (p != nullptr) munmap(p, mapped_length(bytes));
}

bool large_blocks_on_huge_pages() {
    return enabled();
}

std::size_t large_blocks_live() {
    std::lock_guard<std::mutex> g(lock);
    return registry.live();
}

}  // namespace clustersim

#if CLUSTERSIM_OWN_NEW
using clustersim::allocate;
using clustersim::allocate_nothrow;
using clustersim::release;
using clustersim::release_sized;
using Align = std::align_val_t;
using NoThrow = std::nothrow_t;

void* operator new(std::size_t n) {
    return allocate(n, 0);
}
void* operator new[](std::size_t n) {
    return allocate(n, 0);
}
void* operator new(std::size_t n, const NoThrow&) noexcept {
    return allocate_nothrow(n, 0);
}
void* operator new[](std::size_t n, const NoThrow&) noexcept {
    return allocate_nothrow(n, 0);
}
void* operator new(std::size_t n, Align a) {
    return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, Align a) {
    return allocate(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, Align a, const NoThrow&) noexcept {
    return allocate_nothrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, Align a, const NoThrow&) noexcept {
    return allocate_nothrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
    release(p);
}
void operator delete[](void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t n) noexcept {
    release_sized(p, n);
}
void operator delete[](void* p, std::size_t n) noexcept {
    release_sized(p, n);
}
void operator delete(void* p, const NoThrow&) noexcept {
    release(p);
}
void operator delete[](void* p, const NoThrow&) noexcept {
    release(p);
}
void operator delete(void* p, Align) noexcept {
    release(p);
}
void operator delete[](void* p, Align) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t n, Align) noexcept {
    release_sized(p, n);
}
void operator delete[](void* p, std::size_t n, Align) noexcept {
    release_sized(p, n);
}
void operator delete(void* p, Align, const NoThrow&) noexcept {
    release(p);
}
void operator delete[](void* p, Align, const NoThrow&) noexcept {
    release(p);
}
#endif
