// A pool of values addressed by dense 32-bit indices, with a free list: released slots are
// reused, so a steady-state simulation allocates nothing for its packets, messages or
// requests once the pool has grown to the peak number alive at once.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace clustersim {

template <typename T>
class Pool {
  public:
    std::uint32_t acquire(const T& value) {
        if (!free_.empty()) {
            const std::uint32_t i = free_.back();
            free_.pop_back();
            items_[i] = value;
            return i;
        }
        items_.push_back(value);
        return static_cast<std::uint32_t>(items_.size() - 1);
    }
    // acquire(make()), with the value made in its slot: `make` returns a T (a prvalue, so it
    // is built where it goes). acquire(T{...}) writes the T into a temporary field by field
    // and then copies it with wide loads, which stall on the narrow stores just made (the
    // store buffer cannot forward them): in the fluid model's 1,024-rank ring allgather
    // those copies (requests, messages, flows) took about an eighth of the samples.
    template <typename Make>
    std::uint32_t acquire_made(Make&& make) {
        static_assert(std::is_trivially_destructible_v<T>, "made over a released value");
        if (!free_.empty()) {
            const std::uint32_t i = free_.back();
            free_.pop_back();
            ::new (static_cast<void*>(std::addressof(items_[i]))) T(make());
            return i;
        }
        items_.push_back(make());
        return static_cast<std::uint32_t>(items_.size() - 1);
    }
    void release(std::uint32_t i) { free_.push_back(i); }
    // Room for n items without moving them: address space only until they are acquired
    // (the pages are touched by acquire), so a pool sized from the rank count at start
    // neither copies its items on growth nor holds twice their size while it does.
    void reserve(std::size_t n) { items_.reserve(n); }
    T& operator[](std::uint32_t i) { return items_[i]; }
    const T& operator[](std::uint32_t i) const { return items_[i]; }
    std::size_t capacity() const { return items_.size(); }
    std::size_t live() const { return items_.size() - free_.size(); }

  private:
    std::vector<T> items_;
    std::vector<std::uint32_t> free_;
};

}  // namespace clustersim
