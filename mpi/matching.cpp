#include "mpi/matching.hpp"

#include <limits>

namespace clustersim::mpi::p2p {

namespace {
// An unexpected message sits in two intrusive doubly linked queues (its receiver's and its
// pair's), through the links `next`/`prev` or `pair_next`/`pair_prev`; the end of a queue is
// the largest index (kNil).
template <class Msgs, class Links>
void append(Msgs& msgs, Queue& q, std::uint32_t m, Links next, Links prev) {
    constexpr auto nil = std::numeric_limits<decltype(q.tail)>::max();
    msgs[m].*next = nil;
    msgs[m].*prev = q.tail;
    (q.tail == nil ? q.head : msgs[q.tail].*next) = m;
    q.tail = m;
}
template <class Msgs, class Links>
void unlink(Msgs& msgs, Queue& q, std::uint32_t m, Links next, Links prev) {
    constexpr auto nil = std::numeric_limits<decltype(q.tail)>::max();
    auto& msg = msgs[m];
    (msg.*prev == nil ? q.head : msgs[msg.*prev].*next) = msg.*next;
    (msg.*next == nil ? q.tail : msgs[msg.*next].*prev) = msg.*prev;
    msg.*next = msg.*prev = nil;
}
}  // namespace

std::uint32_t Matching::pair(std::int32_t src, std::int32_t dst) {
    const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                              static_cast<std::uint32_t>(dst);
    std::uint32_t i = pair_index_.find(key);
    if (i == net::SlotMap::kAbsent) {
        i = static_cast<std::uint32_t>(pairs.size());
        pairs.emplace_back();
        pair_index_.insert(key, i);
    }
    return i;
}

void Matching::push_unexpected(RankQueues& rq, std::uint32_t m) {
    const Msg& msg = msgs[m];
    append(msgs, rq.unexpected, m, &Msg::next, &Msg::prev);
    append(msgs, pairs[msg.pair].unexpected, m, &Msg::pair_next, &Msg::pair_prev);
}

void Matching::unlink_unexpected(RankQueues& rq, std::uint32_t m) {
    const Msg& msg = msgs[m];
    unlink(msgs, rq.unexpected, m, &Msg::next, &Msg::prev);
    unlink(msgs, pairs[msg.pair].unexpected, m, &Msg::pair_next, &Msg::pair_prev);
}

std::uint32_t Matching::find_posted(const Queue& q, const Msg& m, std::uint32_t& prev) const {
    prev = kNil;
    for (std::uint32_t req = q.head; req != kNil; prev = req, req = requests[req].next)
        if (matches(requests[req], m)) return req;
    return kNil;
}

std::uint32_t Matching::post_recv(RankQueues& rq, std::uint32_t req, std::uint32_t pair) {
    if (pair == kNil) {  // the earliest arrived match from anyone
        for (std::uint32_t m = rq.unexpected.head; m != kNil; m = msgs[m].next) {
            if (matches(requests[req], msgs[m])) {
                unlink_unexpected(rq, m);
                return m;
            }
        }
        rq.posted_any.push(requests, req);
        return kNil;
    }
    for (std::uint32_t m = pairs[pair].unexpected.head; m != kNil; m = msgs[m].pair_next) {
        if (matches(requests[req], msgs[m])) {
            unlink_unexpected(rq, m);
            return m;
        }
    }
    pairs[pair].posted.push(requests, req);
    return kNil;
}

std::uint32_t Matching::arrive(RankQueues& rq, std::uint32_t m) {
    Queue& named = pairs[msgs[m].pair].posted;
    std::uint32_t named_prev, any_prev;
    const std::uint32_t a = find_posted(named, msgs[m], named_prev);
    const std::uint32_t b = find_posted(rq.posted_any, msgs[m], any_prev);
    // Both match: the one posted first (orders are a rank's count; compared modulo 2^32).
    const bool take_named =
        a != kNil &&
        (b == kNil || static_cast<std::int32_t>(requests[a].order - requests[b].order) < 0);
    if (take_named) {
        named.unlink(requests, named_prev, a);
        return a;
    }
    if (b != kNil) {
        rq.posted_any.unlink(requests, any_prev, b);
        return b;
    }
    push_unexpected(rq, m);
    return kNil;
}

bool Matching::withdraw_recv(RankQueues& rq, std::uint32_t req, std::uint32_t pair) {
    Queue& posted = pair == kNil ? rq.posted_any : pairs[pair].posted;
    for (std::uint32_t prev = kNil, x = posted.head; x != kNil; prev = x, x = requests[x].next) {
        if (x != req) continue;
        posted.unlink(requests, prev, x);
        return true;
    }
    return false;
}

bool Matching::withdraw_unexpected(RankQueues& rq, std::uint32_t m) {
    for (std::uint32_t x = pairs[msgs[m].pair].unexpected.head; x != kNil; x = msgs[x].pair_next) {
        if (x != m) continue;
        unlink_unexpected(rq, m);
        return true;
    }
    return false;
}

}  // namespace clustersim::mpi::p2p
