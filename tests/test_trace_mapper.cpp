// The call-to-record mapper the MPI trace readers share (traces/call_mapper.hpp): its request
// table (lowest free handle, a request id reused after completion, a waitall over several,
// tests and cancels, an unknown request), errors through the decoder's location, its communicator
// table (creation, binding, free) and the records it makes of a call stream (compute gaps,
// waits, unmodeled calls, shared v-collective count lists), against records worked out by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "simulator/error.hpp"
#include "traces/call_mapper.hpp"
#include "traces/trace.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim;
using namespace clustersim::traces;
using K = mpi::OpKind;

std::vector<Record> records(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    Record r;
    for (auto c = t.cursor(rank); c.next(r);) out.push_back(r);
    return out;
}

// A call of `kind` on communicator `comm` (the format's id), untimed.
MpiCall call(K kind, std::int64_t comm = 0, std::string_view name = "MPI_X") {
    MpiCall c;
    c.rec.kind = kind;
    c.comm = comm;
    c.name = name;
    return c;
}
MpiCall wait_for(std::vector<std::int64_t> requests, bool all) {
    MpiCall c = call(K::Wait);
    c.completes = std::move(requests);
    c.all = all;
    return c;
}
MpiCall isend(std::int64_t request, std::int32_t peer, std::uint64_t bytes) {
    MpiCall c = call(K::Isend);
    c.request = request;
    c.rec.peer = peer;
    c.rec.bytes = bytes;
    return c;
}

struct Fixture {
    Trace trace;
    ReadReport report;
    SharedCountLists lists{trace};
    Fixture(std::uint32_t ranks = 1) {
        trace.resize(ranks);
        trace.source = "t.trace";
    }
};

TEST(RequestTable, TakesTheLowestFreeHandleAndReusesACompletedRequestId) {
    RequestTable q;
    EXPECT_EQ(q.open(1000), 0u);
    EXPECT_EQ(q.open(2000), 1u);
    EXPECT_EQ(q.open(3000), 2u);
    EXPECT_EQ(q.open_requests(), 3u);
    // 2000 completes: handle 1 is free again and is the next one taken
    EXPECT_EQ(q.complete({2000}), std::vector<std::uint32_t>{1u});
    EXPECT_FALSE(q.find(2000));
    // the MPI library hands out id 2000 again: a new request, the lowest free handle
    EXPECT_EQ(q.open(2000), 1u);
    EXPECT_EQ(q.open(4000), 3u);
    // unknown ids (MPI_REQUEST_NULL, a request from before the trace) are skipped
    EXPECT_EQ(q.complete({-1, 3000, 77, 1000}), (std::vector<std::uint32_t>{2u, 0u}));
    EXPECT_EQ(q.open_requests(), 2u);
    EXPECT_EQ(q.take(), 0u);  // both 0 and 2 free: the lowest first
    EXPECT_EQ(q.take(), 2u);
    EXPECT_EQ(q.take(), 4u);
    // close() forgets the id but keeps the handle in use until released
    EXPECT_EQ(q.close(2000), std::optional<std::uint32_t>(1u));
    EXPECT_EQ(q.take(), 5u);
    q.release(1);
    EXPECT_EQ(q.take(), 1u);
}

TEST(PushWaits, OneWaitallForConsecutiveHandlesElseOneWaitEachTheLastMarked) {
    std::vector<std::pair<Record, bool>> out;
    auto push = [&](const Record& r, bool last) { out.emplace_back(r, last); };
    push_waits({5, 3, 4}, true, push);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].first.kind, K::Waitall);
    EXPECT_EQ(out[0].first.handle, 3u);
    EXPECT_EQ(out[0].first.count, 3u);
    EXPECT_TRUE(out[0].second);
    out.clear();
    push_waits({5, 3}, true, push);  // a gap (4): one Wait each, in the call's order
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].first.kind, K::Wait);
    EXPECT_EQ(out[0].first.handle, 5u);
    EXPECT_FALSE(out[0].second);
    EXPECT_EQ(out[1].first.handle, 3u);
    EXPECT_TRUE(out[1].second);
    out.clear();
    push_waits({3, 4}, false, push);  // not a waitall (waitsome): one Wait each
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].first.kind, K::Wait);
    out.clear();
    push_waits({7}, true, push);  // one request: a Wait
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].first.kind, K::Wait);
    EXPECT_EQ(out[0].first.count, 0u);
}

TEST(CallMapper, RequestsThroughIsendWaitallTestAndCancel) {
    Fixture f;
    CallMapper m(f.trace, f.report, 0, f.lists);
    m.comms().bind(91, 0);  // the format's MPI_COMM_WORLD
    for (std::int64_t q : {10, 11, 12}) {
        MpiCall c = isend(q, 1, 64);
        c.comm = 91;
        ASSERT_EQ(m.map(c), CallMapper::Mapped::Yes);
    }
    // a test that completed request 11 (the decoder saw flag = 1): a wait on it
    EXPECT_EQ(m.map(wait_for({11}, false)), CallMapper::Mapped::Yes);
    // a waitall over all three: 11 is done already, 10 and 12 are not consecutive handles
    EXPECT_EQ(m.map(wait_for({10, 11, 12}, true)), CallMapper::Mapped::Yes);
    // nothing open any more: a completion of nothing pushes nothing
    EXPECT_EQ(m.map(wait_for({10, 12}, true)), CallMapper::Mapped::NoneOpen);
    // request 11's id again, then three more: handles 0, 1, 2, 3 (the lowest free ones)
    for (std::int64_t q : {11, 20, 21, 22}) {
        MpiCall c = isend(q, 1, 8);
        c.comm = 91;
        m.map(c);
    }
    // a cancel names the request's handle; its wait follows
    Record cancel;
    cancel.kind = K::Cancel;
    cancel.handle = *m.requests().find(20);
    m.push(cancel);
    EXPECT_EQ(m.map(wait_for({20, 21, 22, 11}, true)), CallMapper::Mapped::Yes);

    const auto r = records(f.trace, 0);
    ASSERT_EQ(r.size(), 12u);
    for (int i : {0, 1, 2}) {
        EXPECT_EQ(r[i].kind, K::Isend);
        EXPECT_EQ(r[i].handle, static_cast<std::uint32_t>(i));
        EXPECT_EQ(r[i].comm, 0);
        EXPECT_EQ(r[i].bytes, 64u);
    }
    EXPECT_EQ(r[3].kind, K::Wait);
    EXPECT_EQ(r[3].handle, 1u);
    EXPECT_EQ(r[4].kind, K::Wait);  // handles 0 and 2: two waits
    EXPECT_EQ(r[4].handle, 0u);
    EXPECT_EQ(r[5].kind, K::Wait);
    EXPECT_EQ(r[5].handle, 2u);
    for (int i : {6, 7, 8, 9}) EXPECT_EQ(r[i].handle, static_cast<std::uint32_t>(i - 6));
    EXPECT_EQ(r[10].kind, K::Cancel);
    EXPECT_EQ(r[10].handle, 1u);
    EXPECT_EQ(r[11].kind, K::Waitall);  // handles 1, 2, 3 and 0: consecutive
    EXPECT_EQ(r[11].handle, 0u);
    EXPECT_EQ(r[11].count, 4u);
    EXPECT_EQ(m.requests().open_requests(), 0u);
}

TEST(CallMapper, AnUnknownRequestIsNoneOpenAndErrorsNameTheDecodersRecord) {
    Fixture f(4);  // the mapper of rank 3
    CallMapper m(f.trace, f.report, 3, f.lists);
    int record = 17;
    m.on_failure([&](const std::string& what) {
        return InputError("trace.bin", 0, "record " + std::to_string(record) + ": " + what);
    });
    m.comms().bind(0, 0);
    ASSERT_EQ(m.map(isend(5, 0, 1)), CallMapper::Mapped::Yes);
    EXPECT_EQ(m.map(wait_for({5}, false)), CallMapper::Mapped::Yes);
    // completed already, or never started: nothing is pushed, the decoder decides (DUMPI and
    // OTF2 keep the call as unmodeled, OTF2 counts it in a note)
    EXPECT_EQ(m.map(wait_for({5}, false)), CallMapper::Mapped::NoneOpen);
    EXPECT_EQ(m.map(wait_for({99, -1}, true)), CallMapper::Mapped::NoneOpen);
    EXPECT_EQ(f.trace.events(3), 2u);
    // an error the mapper raises is the decoder's, naming its record
    record = 18;
    try {
        m.fail("datatype 9 has no size");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "trace.bin: record 18: datatype 9 has no size");
    }
    // without a decoder's error: the trace's source and the rank
    CallMapper plain(f.trace, f.report, 3, f.lists);
    try {
        plain.fail("request 1 is not open");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "t.trace: rank 3: request 1 is not open");
    }
}

TEST(CallMapper, CommunicatorsAreNumberedInCreationOrderAndFreedIdsComeBack) {
    Fixture f;
    CallMapper m(f.trace, f.report, 0, f.lists);
    m.comms().bind(2, 0);
    MpiCall split = call(K::CommSplit, 2);
    split.rec.color = 1;
    split.newcomm = 40;
    ASSERT_EQ(m.map(split), CallMapper::Mapped::Yes);
    MpiCall dup = call(K::CommDup, 40);
    dup.newcomm = 41;
    ASSERT_EQ(m.map(dup), CallMapper::Mapped::Yes);
    // a split this rank is not in (MPI_COMM_NULL): a handle is used, no id bound
    MpiCall none = call(K::CommSplit, 2);
    none.rec.color = mpi::kUndefined;
    ASSERT_EQ(m.map(none), CallMapper::Mapped::Yes);
    // a collective on 41, then 41 freed: calls on it are unknown until an id 41 is made again
    MpiCall bcast = call(K::Collective, 41);
    bcast.rec.coll = mpi::CollOp::Bcast;
    bcast.rec.bytes = 100;
    ASSERT_EQ(m.map(bcast), CallMapper::Mapped::Yes);
    ASSERT_EQ(m.map(call(K::CommFree, 41)), CallMapper::Mapped::Yes);
    EXPECT_EQ(m.map(bcast), CallMapper::Mapped::UnknownComm);
    MpiCall again = call(K::CommDup, 2);
    again.newcomm = 41;
    ASSERT_EQ(m.map(again), CallMapper::Mapped::Yes);
    ASSERT_EQ(m.map(bcast), CallMapper::Mapped::Yes);
    m.comms().reserve(9);  // a handle the trace chose: the next one comes after it
    EXPECT_EQ(m.comms().create(), 10u);

    const auto r = records(f.trace, 0);
    ASSERT_EQ(r.size(), 7u);
    EXPECT_EQ(r[0].kind, K::CommSplit);
    EXPECT_EQ(r[0].comm, 0);
    EXPECT_EQ(r[0].newcomm, 1u);
    EXPECT_EQ(r[0].color, 1);
    EXPECT_EQ(r[1].kind, K::CommDup);
    EXPECT_EQ(r[1].comm, 1);  // id 40 is handle 1
    EXPECT_EQ(r[1].newcomm, 2u);
    EXPECT_EQ(r[2].newcomm, 3u);
    EXPECT_EQ(r[3].comm, 2);  // the bcast on id 41
    EXPECT_EQ(r[4].kind, K::CommFree);
    EXPECT_EQ(r[4].comm, 2);
    EXPECT_EQ(r[5].newcomm, 4u);
    EXPECT_EQ(r[6].comm, 4);  // id 41 is now the new communicator
}

TEST(CallMapper, TimedCallsGetTheComputeBetweenThemAndWaitsEndAtTheCallsStart) {
    Fixture f;
    CallMapper m(f.trace, f.report, 0, f.lists);
    m.comms().bind(0, 0);
    auto timed = [&](MpiCall c, std::int64_t s, std::int64_t e) {
        c.timed = true;
        c.start = Time::ps(s);
        c.end = Time::ps(e);
        m.timed_call(c.start, c.end);
        return m.map(c);
    };
    timed(isend(1, 1, 10), 100, 150);                   // compute [0, 100) first
    timed(isend(2, 1, 10), 150, 180);                   // back to back: no compute
    timed(isend(3, 1, 10), 400, 420);                   // compute [180, 400)
    EXPECT_EQ(timed(wait_for({1, 3}, true), 500, 900),  // [420, 500), then handles 0 and 2:
              CallMapper::Mapped::Yes);                 // two waits
    // an unmodeled call overlapping the last end: no compute before it
    MpiCall probe = call(K::Unmodeled, 0, "MPI_Iprobe");
    probe.timed = true;
    probe.start = Time::ps(850);
    probe.end = Time::ps(1000);
    m.timed_call(probe.start, probe.end);
    m.map_unmodeled(probe);
    m.timed_call(Time::ps(950), Time::ps(960));  // inside the previous one: no compute either
    m.timed_call(Time::ps(1100), Time::ps(1200));

    const auto r = records(f.trace, 0);
    ASSERT_EQ(r.size(), 10u);
    auto compute = [](const Record& x, std::int64_t s, std::int64_t e) {
        EXPECT_EQ(x.kind, K::Compute);
        EXPECT_EQ(x.compute_time, Time::ps(e - s));
        EXPECT_EQ(x.start, Time::ps(s));
        EXPECT_EQ(x.end, Time::ps(e));
    };
    compute(r[0], 0, 100);
    EXPECT_EQ(r[1].kind, K::Isend);
    EXPECT_EQ(r[2].kind, K::Isend);
    compute(r[3], 180, 400);
    EXPECT_EQ(r[4].kind, K::Isend);
    compute(r[5], 420, 500);
    EXPECT_EQ(r[6].kind, K::Wait);
    EXPECT_EQ(r[6].handle, 0u);
    EXPECT_EQ(r[6].start, Time::ps(500));
    EXPECT_EQ(r[6].end, Time::ps(500));  // all but the last wait take no time
    EXPECT_EQ(r[7].kind, K::Wait);
    EXPECT_EQ(r[7].handle, 2u);
    EXPECT_EQ(r[7].end, Time::ps(900));
    EXPECT_EQ(r[8].kind, K::Unmodeled);
    EXPECT_EQ(r[8].compute_time, Time::ps(150));
    EXPECT_EQ(f.trace.strings[static_cast<std::size_t>(r[8].path)], "MPI_Iprobe");
    compute(r[9], 1000, 1100);  // from the latest end, not the last call's
    EXPECT_EQ(f.report.unmodeled.at("MPI_Iprobe"), 1u);
    // the records tile the rank's time: each starts where an earlier one ended or later
    for (std::size_t i = 1; i < r.size(); ++i) EXPECT_GE(r[i].start, r[i - 1].start);
}

TEST(CallMapper, MpiFinalizeIsTheRanksAndBufferedRecordsWaitForFlush) {
    Fixture f(2);
    CallMapper m(f.trace, f.report, 1, f.lists, /*buffered=*/true);
    m.push(m.unmodeled("MPI_Finalize"));
    Record nameless = m.unmodeled("MPI_Comm_rank", false);
    EXPECT_EQ(nameless.path, kNone);
    m.push(nameless);
    EXPECT_EQ(f.trace.events(1), 0u);
    EXPECT_EQ(m.buffered(), 2u);
    m.record(1).compute_time = Time::ps(7);  // a decoder finishing a record
    m.flush();
    EXPECT_EQ(f.trace.events(1), 2u);
    EXPECT_EQ(m.buffered(), 0u);
    EXPECT_EQ(records(f.trace, 1)[1].compute_time, Time::ps(7));
    EXPECT_EQ(f.report.finalized, std::set<std::uint32_t>{1u});
}

TEST(SharedCountLists, TheKthCallOfOneVCollectiveOnOneCommunicatorIsOneList) {
    Fixture f(3);
    std::vector<CallMapper> ranks;
    ranks.reserve(3);
    for (std::uint32_t r = 0; r < 3; ++r) ranks.emplace_back(f.trace, f.report, r, f.lists);
    // every rank's two gathervs on comm 7 and one on comm 8, its own block in its slot
    std::vector<std::int32_t> first, second, other;
    for (std::uint32_t r = 0; r < 3; ++r) {
        first.push_back(ranks[r].count_list(7, mpi::CollOp::Gatherv, 3));
        ranks[r].counts(first.back())[r] = 10 * (r + 1);
        other.push_back(ranks[r].count_list(8, mpi::CollOp::Gatherv, 3));
        second.push_back(ranks[r].count_list(7, mpi::CollOp::Gatherv, 3));
        ranks[r].counts(second.back())[r] = r;
    }
    EXPECT_EQ(first, std::vector<std::int32_t>(3, first[0]));
    EXPECT_EQ(second, std::vector<std::int32_t>(3, second[0]));
    EXPECT_EQ(other, std::vector<std::int32_t>(3, other[0]));
    EXPECT_NE(first[0], second[0]);
    EXPECT_NE(first[0], other[0]);
    EXPECT_EQ(f.trace.count_lists.size(), 3u);
    EXPECT_EQ(f.trace.count_lists[static_cast<std::size_t>(first[0])],
              (std::vector<std::uint64_t>{10, 20, 30}));
    EXPECT_EQ(f.trace.count_lists[static_cast<std::size_t>(second[0])],
              (std::vector<std::uint64_t>{0, 1, 2}));
    // a different op on comm 7 is another list
    EXPECT_NE(ranks[0].count_list(7, mpi::CollOp::Scatterv, 3), first[0]);
}

}  // namespace CLUSTERSIM_TEST_FILE
