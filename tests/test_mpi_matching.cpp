// The runtime's matching (mpi/matching.hpp) driven directly, without an engine, network or
// CPU model: posted receives and unexpected messages paired by source, tag and context
// with kAnySource and kAnyTag, the earliest posted (or arrived) match first, messages of a
// pair matched in their sending order (non-overtaking), communicators kept apart, and
// withdrawn receives and messages matching nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "mpi/matching.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using mpi::kAnySource;
using mpi::kAnyTag;
using mpi::p2p::kNil;

// A few ranks' matching state, as the runtime keeps it, and the matches made so far.
struct Ranks {
    explicit Ranks(int n) : queues(n), early(n), posts(n, 0) {}
    mpi::p2p::Matching m;
    std::vector<mpi::p2p::RankQueues> queues;
    std::vector<mpi::p2p::EarlyMessages> early;
    std::vector<std::uint32_t> posts;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> matched;  // (message, receive)

    // `rank` posts a receive from `src` (or kAnySource) with `tag` (or kAnyTag).
    std::uint32_t recv(std::int32_t rank, std::int32_t src, std::int32_t tag,
                       std::int32_t context = 0) {
        const std::uint32_t req = m.requests.acquire(
            mpi::p2p::Request{.rank = rank, .peer = src, .tag = tag, .context = context});
        m.requests[req].order = posts[static_cast<std::size_t>(rank)]++;
        const std::uint32_t msg = m.post_recv(queues[static_cast<std::size_t>(rank)], req,
                                              src == kAnySource ? kNil : m.pair(src, rank));
        if (msg != kNil) matched.emplace_back(msg, req);
        return req;
    }
    // `src` sends a message to `dst` (numbered in its pair's order); it has not arrived yet.
    std::uint32_t send(std::int32_t src, std::int32_t dst, std::int32_t tag,
                       std::int32_t context = 0) {
        const std::uint32_t pair = m.pair(src, dst);
        const std::uint64_t seq = m.pairs[pair].next_send++;
        return m.msgs.acquire(mpi::p2p::Msg{.kind = mpi::p2p::MsgKind::Eager,
                                            .src = src,
                                            .dst = dst,
                                            .tag = tag,
                                            .context = context,
                                            .bytes = 0,
                                            .seq = seq,
                                            .send_req = kNil,
                                            .recv_req = kNil,
                                            .send_done = false,
                                            .recv_done = false,
                                            .posted = Time::zero(),
                                            .pair = pair});
    }
    // Message `msg`'s envelope arrives at its receiver.
    void arrive(std::uint32_t msg) {
        const auto dst = static_cast<std::size_t>(m.msgs[msg].dst);
        m.arrive_in_order(early[dst], msg, [&](std::uint32_t x) {
            const std::uint32_t req = m.arrive(queues[dst], x);
            if (req != kNil) matched.emplace_back(x, req);
        });
    }
    // The receive message `msg` was matched with (kNil: none yet).
    std::uint32_t receive_of(std::uint32_t msg) const {
        for (const auto& [x, req] : matched)
            if (x == msg) return req;
        return kNil;
    }
};

TEST(MatchingQueues, PostedReceivesMatchInPostingOrder) {
    Ranks r(2);
    const std::uint32_t first = r.recv(1, 0, 5);
    const std::uint32_t second = r.recv(1, 0, 5);
    const std::uint32_t a = r.send(0, 1, 5);
    const std::uint32_t b = r.send(0, 1, 5);
    r.arrive(a);
    r.arrive(b);
    EXPECT_EQ(r.receive_of(a), first);
    EXPECT_EQ(r.receive_of(b), second);
}

TEST(MatchingQueues, ArrivalTakesTheEarlierPostedOfNamedAndAnySourceReceives) {
    Ranks r(2);
    // Any-source posted first: it wins over the later receive naming the source.
    const std::uint32_t any = r.recv(1, kAnySource, 5);
    const std::uint32_t named = r.recv(1, 0, 5);
    const std::uint32_t a = r.send(0, 1, 5);
    r.arrive(a);
    EXPECT_EQ(r.receive_of(a), any);
    // Now the named one is the earliest left; a second any-source one posted after it.
    const std::uint32_t any2 = r.recv(1, kAnySource, kAnyTag);
    const std::uint32_t b = r.send(0, 1, 5);
    const std::uint32_t c = r.send(0, 1, 9);
    r.arrive(b);
    r.arrive(c);
    EXPECT_EQ(r.receive_of(b), named);
    EXPECT_EQ(r.receive_of(c), any2);
}

TEST(MatchingQueues, TagsAndSourcesSelectAmongPostedReceives) {
    Ranks r(3);
    const std::uint32_t tag7 = r.recv(2, 0, 7);
    const std::uint32_t from1 = r.recv(2, 1, kAnyTag);
    const std::uint32_t any_tag3 = r.recv(2, kAnySource, 3);
    const std::uint32_t a = r.send(0, 2, 3);  // not tag 7, not from 1: the any-source tag 3
    const std::uint32_t b = r.send(1, 2, 7);  // from 1, any tag
    const std::uint32_t c = r.send(0, 2, 7);
    r.arrive(a);
    r.arrive(b);
    r.arrive(c);
    EXPECT_EQ(r.receive_of(a), any_tag3);
    EXPECT_EQ(r.receive_of(b), from1);
    EXPECT_EQ(r.receive_of(c), tag7);
}

TEST(MatchingQueues, UnexpectedMessagesWaitAndMatchInArrivalOrder) {
    Ranks r(3);
    const std::uint32_t from2 = r.send(2, 1, 4);
    const std::uint32_t from0 = r.send(0, 1, 4);
    const std::uint32_t from0_tag8 = r.send(0, 1, 8);
    r.arrive(from2);
    r.arrive(from0);
    r.arrive(from0_tag8);
    EXPECT_TRUE(r.matched.empty());  // no receive posted: all three unexpected
    // A receive naming the source and tag takes its message, skipping earlier ones.
    const std::uint32_t tag8 = r.recv(1, 0, 8);
    EXPECT_EQ(r.receive_of(from0_tag8), tag8);
    // Any source takes the earliest arrival of all, whatever its pair.
    const std::uint32_t any = r.recv(1, kAnySource, kAnyTag);
    EXPECT_EQ(r.receive_of(from2), any);
    const std::uint32_t named = r.recv(1, 0, kAnyTag);
    EXPECT_EQ(r.receive_of(from0), named);
    // Nothing is left: the next receive waits.
    const std::uint32_t waiting = r.recv(1, kAnySource, kAnyTag);
    EXPECT_EQ(r.matched.size(), 3u);
    const std::uint32_t late = r.send(2, 1, 0);
    r.arrive(late);
    EXPECT_EQ(r.receive_of(late), waiting);
}

TEST(MatchingQueues, AnySourceWithATagSkipsEarlierMessagesOfOtherTags) {
    Ranks r(3);
    const std::uint32_t a = r.send(0, 1, 1);
    const std::uint32_t b = r.send(2, 1, 2);
    const std::uint32_t c = r.send(0, 1, 2);
    r.arrive(a);
    r.arrive(b);
    r.arrive(c);
    const std::uint32_t first = r.recv(1, kAnySource, 2);
    const std::uint32_t second = r.recv(1, kAnySource, 2);
    EXPECT_EQ(r.receive_of(b), first);
    EXPECT_EQ(r.receive_of(c), second);
    EXPECT_EQ(r.receive_of(a), kNil);
}

TEST(MatchingQueues, MessagesOfAPairAreMatchedInSendingOrder) {
    Ranks r(2);
    const std::uint32_t first = r.send(0, 1, 0);
    const std::uint32_t second = r.send(0, 1, 0);
    // The second overtakes the first in the network: it is held back, matching nothing.
    const std::uint32_t req = r.recv(1, 0, kAnyTag);
    r.arrive(second);
    EXPECT_TRUE(r.matched.empty());
    EXPECT_EQ(r.early[1].size(), 1u);
    // The first arrives: it takes the receive, then the second follows as unexpected.
    r.arrive(first);
    EXPECT_EQ(r.receive_of(first), req);
    EXPECT_TRUE(r.early[1].empty());
    const std::uint32_t req2 = r.recv(1, 0, kAnyTag);
    EXPECT_EQ(r.receive_of(second), req2);
}

TEST(MatchingQueues, HeldBackMessagesFollowInOrderOnceTheGapCloses) {
    Ranks r(2);
    std::vector<std::uint32_t> msgs;
    for (int i = 0; i < 4; ++i) msgs.push_back(r.send(0, 1, 0));
    std::vector<std::uint32_t> reqs;
    for (int i = 0; i < 4; ++i) reqs.push_back(r.recv(1, kAnySource, kAnyTag));
    r.arrive(msgs[3]);
    r.arrive(msgs[1]);
    r.arrive(msgs[2]);
    EXPECT_TRUE(r.matched.empty());
    r.arrive(msgs[0]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.receive_of(msgs[i]), reqs[i]) << i;
}

TEST(MatchingQueues, CommunicatorsAreKeptApart) {
    Ranks r(2);
    // Context 2 * comm: user messages of communicator 1; 2 * comm + 1: collectives' own.
    const std::uint32_t in_comm1 = r.send(0, 1, 3, 2);
    const std::uint32_t coll = r.send(0, 1, 3, 1);
    r.arrive(in_comm1);
    r.arrive(coll);
    const std::uint32_t world = r.recv(1, kAnySource, kAnyTag, 0);
    EXPECT_TRUE(r.matched.empty());  // neither is the world's
    const std::uint32_t comm1 = r.recv(1, 0, kAnyTag, 2);
    EXPECT_EQ(r.receive_of(in_comm1), comm1);
    const std::uint32_t coll_recv = r.recv(1, 0, 3, 1);
    EXPECT_EQ(r.receive_of(coll), coll_recv);
    const std::uint32_t user = r.send(0, 1, 3, 0);
    r.arrive(user);
    EXPECT_EQ(r.receive_of(user), world);
}

TEST(MatchingQueues, WithdrawnReceivesAndMessagesMatchNothing) {
    Ranks r(2);
    const std::uint32_t named = r.recv(1, 0, 1);
    const std::uint32_t any = r.recv(1, kAnySource, 1);
    EXPECT_TRUE(r.m.withdraw_recv(r.queues[1], named, r.m.pair(0, 1)));
    EXPECT_FALSE(r.m.withdraw_recv(r.queues[1], named, r.m.pair(0, 1)));  // gone already
    const std::uint32_t a = r.send(0, 1, 1);
    r.arrive(a);
    EXPECT_EQ(r.receive_of(a), any);
    EXPECT_FALSE(r.m.withdraw_recv(r.queues[1], any, kNil));  // matched: not withdrawn
    // An unexpected message withdrawn by its sender is no longer there to match.
    const std::uint32_t b = r.send(0, 1, 2);
    const std::uint32_t c = r.send(0, 1, 2);
    r.arrive(b);
    r.arrive(c);
    EXPECT_TRUE(r.m.withdraw_unexpected(r.queues[1], b));
    EXPECT_FALSE(r.m.withdraw_unexpected(r.queues[1], b));
    const std::uint32_t req = r.recv(1, kAnySource, 2);
    EXPECT_EQ(r.receive_of(c), req);
    EXPECT_EQ(r.receive_of(b), kNil);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
