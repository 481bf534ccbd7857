// Small helpers shared by the algorithm files. Each algorithm is a stateless class whose
// step(args, k, step) describes step k of one rank's schedule.
#pragma once

#include <algorithm>
#include <cstdint>

#include "collectives/collective.hpp"

namespace clustersim::mpi::alg {

inline bool power_of_two(std::int32_t p) {
    return p > 0 && (p & (p - 1)) == 0;
}
// Largest power of two <= p (p >= 1).
inline std::int32_t floor_pow2(std::int32_t p) {
    std::int32_t x = 1;
    while (x * 2 <= p) x *= 2;
    return x;
}
// ceil(log2 p) for p >= 1.
inline std::uint32_t ceil_log2(std::int32_t p) {
    std::uint32_t k = 0;
    while ((std::int64_t{1} << k) < p) ++k;
    return k;
}
// x mod p in [0, p) for any x, negative too (ring and shift offsets); p >= 1.
inline std::int32_t mod(std::int64_t x, std::int32_t p) {
    return static_cast<std::int32_t>(((x % p) + p) % p);
}

// MPICH's fold of p ranks onto pof2 = floor_pow2(p) survivors: with rem = p - pof2, the
// even ranks below 2 rem hand their data to the next odd rank and sit out; survivor s is
// rank 2s + 1 if s < rem, else s + rem, and stands for the ranks [first(s), first(s + 1)).
struct Fold {
    std::int32_t p, pof2, rem;
    explicit Fold(std::int32_t size)
        : p(size), pof2(floor_pow2(size)), rem(size - floor_pow2(size)) {}
    // First rank a survivor stands for; first(pof2) = p.
    std::int64_t first(std::int64_t s) const { return s < rem ? 2 * s : s + rem; }
    std::int32_t rank_of(std::int32_t s) const { return s < rem ? 2 * s + 1 : s + rem; }
    bool sits_out(std::int32_t r) const { return r < 2 * rem && r % 2 == 0; }
    std::int32_t survivor(std::int32_t r) const { return r < 2 * rem ? r / 2 : r - rem; }
};

}  // namespace clustersim::mpi::alg

namespace clustersim::mpi::alg {

// The recursive-doubling allgather over n members (MPICH's, folded as Fold when n is not
// a power of two), step k of member `me`: member i's block and those after it are described
// by range(first, count) -> Piece (the blocks of members first, first + 1, ... mod n, which
// lie contiguously, mod the data space, from the first one's offset); peer(i) is member
// i's rank in the communicator. Every member ends with every block. Used by allgather(v)
// (members = ranks) and by bcast/scatter_rd_allgather (members = relative ranks).
//   Step 0 (n not 2^j): each even member i < 2 rem sends its block to i + 1 and sits out.
//   The pof2 survivors (i + 1 of those pairs as survivor (i + 1) / 2, member i >= 2 rem as
//   survivor i - rem) exchange, for mask = 1, 2, ...: the members of their aligned group of
//   mask survivors with those of the partner's group (contiguous member ranges). Last, each
//   odd member i < 2 rem sends member i - 1 every block but its own.
template <class Range, class Peer>
bool rd_allgather_step(std::int32_t n, std::int32_t me, std::uint32_t k, Step& s,
                       const Range& range, const Peer& peer) {
    const Fold fold(n);
    const std::int32_t rem = fold.rem;
    const std::uint32_t rounds = ceil_log2(fold.pof2);
    auto put = [&](bool send, std::int32_t to, Piece x) {
        if (send)
            s.send(peer(to), x.bytes, x.offset);
        else
            s.recv(peer(to), x.bytes, x.offset);
    };
    if (fold.sits_out(me)) {  // folded: give the block, get everything else back
        if (k == 0)
            put(true, me + 1, range(me, 1));
        else if (k == 1)
            put(false, me + 1, range(me + 1, n - 1));
        else
            return false;
        return true;
    }
    const bool paired = me < 2 * rem;
    if (paired) {
        if (k == 0) {
            put(false, me - 1, range(me - 1, 1));
            return true;
        }
        --k;
    }
    if (k < rounds) {
        const std::int32_t sv = fold.survivor(me);
        const std::int32_t mask = std::int32_t{1} << k;
        const std::int32_t mine = sv & ~(mask - 1), theirs = mine ^ mask;
        auto group = [&](std::int32_t g) {
            const std::int64_t lo = fold.first(g), hi = fold.first(g + mask);
            return range(static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi - lo));
        };
        const std::int32_t partner = fold.rank_of(sv ^ mask);
        put(true, partner, group(mine));
        put(false, partner, group(theirs));
        return true;
    }
    if (paired && k == rounds) {
        put(true, me - 1, range(me, n - 1));
        return true;
    }
    return false;
}

// A buffer of `bytes` cut into segments of `segment` bytes (at least 1) for the segmented and
// pipelined algorithms: count() segments (one, empty, for an empty buffer), segment i of
// size(i) bytes at offset(i).
struct Segments {
    std::uint64_t bytes, seg;
    explicit Segments(const CollArgs& a)
        : bytes(a.bytes), seg(std::max<std::uint64_t>(a.segment, 1)) {}
    std::uint64_t count() const { return bytes == 0 ? 1 : (bytes + seg - 1) / seg; }
    std::uint64_t size(std::uint64_t i) const { return std::min(seg, bytes - i * seg); }
    std::uint64_t offset(std::uint64_t i) const { return i * seg; }
};

// k-nomial trees (relative ranks, root 0): the weight of vr's lowest non-zero base-`radix`
// digit, i.e. the level vr hangs at; >= p for the root.
inline std::int64_t knomial_level(std::int32_t vr, std::int32_t p, std::int32_t radix) {
    std::int64_t mask = 1;
    while (mask < p && (vr / mask) % radix == 0) mask *= radix;
    return mask;
}

}  // namespace clustersim::mpi::alg
