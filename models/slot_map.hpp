// A flat open-addressing hash map from 64-bit keys to 32-bit values, for the network's
// per-(link, stream) queues: lookups and erasures on the per-packet hot path without a heap
// allocation (std::unordered_map allocates a node per insertion). Linear probing with
// backward-shift deletion, so there are no tombstones; grows by doubling at half load.
#pragma once

#include <cstdint>
#include <vector>

namespace clustersim::net {

class SlotMap {
  public:
    static constexpr std::uint32_t kAbsent = UINT32_MAX;

    SlotMap() {
        keys_.assign(16, kEmpty);
        values_.assign(16, 0);
    }

    std::uint32_t find(std::uint64_t key) const {
        for (std::size_t i = home(key);; i = (i + 1) & mask()) {
            if (keys_[i] == key) return values_[i];
            if (keys_[i] == kEmpty) return kAbsent;
        }
    }
    // key must not be present.
    void insert(std::uint64_t key, std::uint32_t value) {
        if ((size_ + 1) * 2 > keys_.size()) grow();
        std::size_t i = home(key);
        while (keys_[i] != kEmpty) i = (i + 1) & mask();
        keys_[i] = key;
        values_[i] = value;
        ++size_;
    }
    void erase(std::uint64_t key) {
        std::size_t i = home(key);
        while (keys_[i] != key) {
            if (keys_[i] == kEmpty) return;
            i = (i + 1) & mask();
        }
        // Backward-shift: move later entries of the probe run into the hole.
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & mask(); keys_[j] != kEmpty; j = (j + 1) & mask()) {
            const std::size_t h = home(keys_[j]);
            // Entry j may move into the hole if its home is not in (hole, j] cyclically.
            const bool between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!between) {
                keys_[hole] = keys_[j];
                values_[hole] = values_[j];
                hole = j;
            }
        }
        keys_[hole] = kEmpty;
        --size_;
    }
    std::size_t size() const { return size_; }

  private:
    static constexpr std::uint64_t kEmpty = UINT64_MAX;
    std::size_t mask() const { return keys_.size() - 1; }
    std::size_t home(std::uint64_t key) const {
        key ^= key >> 33;
        key *= 0xff51afd7ed558ccdULL;  // murmur3 finalizer
        key ^= key >> 33;
        return static_cast<std::size_t>(key) & mask();
    }
    void grow() {
        std::vector<std::uint64_t> keys(keys_.size() * 2, kEmpty);
        std::vector<std::uint32_t> values(keys.size(), 0);
        keys.swap(keys_);
        values.swap(values_);
        size_ = 0;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != kEmpty) insert(keys[i], values[i]);
    }
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> values_;
    std::size_t size_ = 0;
};

}  // namespace clustersim::net
