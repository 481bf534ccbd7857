// The native trace formats: the record encoding (every kind, every field), text <-> binary
// losslessness on fixtures, bad inputs (truncated and corrupt binaries, bad text lines) and
// the reader registry's detection.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "traces/reader.hpp"
#include "traces/replay.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::string kData = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/";

std::string temp_path(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / "clustersim_trace_native";
    fs::create_directories(dir);
    return (dir / name).string();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

std::vector<Record> records(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    Record r;
    auto c = t.cursor(rank);
    while (c.next(r)) out.push_back(r);
    return out;
}

void expect_same(const Trace& a, const Trace& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.traced_speed, b.traced_speed);
    EXPECT_EQ(a.strings, b.strings);
    EXPECT_EQ(a.count_lists, b.count_lists);
    ASSERT_EQ(a.files.size(), b.files.size());
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        EXPECT_EQ(a.files[i].name, b.files[i].name);
        EXPECT_EQ(a.files[i].size, b.files[i].size);
        EXPECT_EQ(a.files[i].stripe, b.files[i].stripe);
    }
    ASSERT_EQ(a.ranks(), b.ranks());
    for (std::uint32_t r = 0; r < a.ranks(); ++r) {
        EXPECT_EQ(a.events(r), b.events(r)) << "rank " << r;
        EXPECT_EQ(a.stream(r), b.stream(r)) << "rank " << r;
    }
}

// Every kind the trace can hold: the non-collective OpKinds and each collective, blocking
// and nonblocking.
std::vector<Record> every_kind() {
    std::vector<Record> kinds;
    for (int k = 0; k < mpi::kOpKinds; ++k) {
        Record r;
        r.kind = static_cast<mpi::OpKind>(k);
        if (r.kind != mpi::OpKind::Collective) {
            kinds.push_back(r);
            continue;
        }
        for (int c = 0; c < mpi::kCollOps; ++c) {
            for (bool nb : {false, true}) {
                r.coll = static_cast<mpi::CollOp>(c);
                r.nonblocking = nb;
                kinds.push_back(r);
            }
        }
    }
    return kinds;
}

// `r` with every field non-default; `seed` varies the values (small, large, negative).
Record all_fields(Record r, std::int64_t seed) {
    const bool big = seed % 2 == 1;
    r.instructions = big ? UINT64_MAX : 1'000'000 + static_cast<std::uint64_t>(seed);
    r.compute_time = Time::ps(big ? INT64_MAX : 1'500'000'000 + seed);
    r.peer = big ? INT32_MIN : mpi::kAnySource;
    r.tag = big ? INT32_MAX : mpi::kAnyTag;
    r.comm = 3;
    r.bytes = big ? UINT64_MAX : 128;
    r.peer2 = -7;
    r.tag2 = 99;
    r.bytes2 = 1ULL << 40;
    r.handle = big ? UINT32_MAX : 17;
    r.count = 4;
    r.root = big ? INT32_MIN : 5;
    r.counts = 2;
    r.color = mpi::kUndefined;
    r.key = -1;
    r.newcomm = 9;
    r.file = big ? UINT32_MAX : 1;
    r.path = 0;
    r.offset = 3ULL << 30;
    r.view_block = 65536;
    r.view_stride = big ? UINT64_MAX : 262144;
    r.whence = big ? mpi::kSeekCur : mpi::kSeekEnd;  // only 0..2 are valid (issue 18)
    r.timed = true;
    // Starts move backwards on odd seeds: the delta is negative (zigzag).
    r.start = Time::ps(big ? 5 : 1'000'000 * seed);
    r.end = r.start + Time::ps(big ? 0 : 777);
    return r;
}

TEST(TraceNative, EveryKindWithEveryFieldRoundTripsThroughCursor) {
    Trace t;
    t.resize(3);
    std::vector<Record> expected;
    std::int64_t seed = 0;
    for (const Record& kind : every_kind()) {
        expected.push_back(kind);  // all defaults
        expected.push_back(all_fields(kind, ++seed));
        expected.push_back(all_fields(kind, ++seed));
        Record one = kind;  // a single field, untimed, between timed records
        one.bytes = 42;
        expected.push_back(one);
    }
    for (const Record& r : expected) t.append(1, r);
    EXPECT_EQ(t.events(0), 0u);
    EXPECT_EQ(t.events(1), expected.size());
    EXPECT_EQ(t.total_events(), expected.size());
    const auto got = records(t, 1);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], expected[i]) << "record " << i << " (" << record_name(expected[i]) << ")";
    EXPECT_TRUE(records(t, 0).empty());

    // The same bytes through set_stream (validated), then appending continues the deltas.
    Trace u;
    u.resize(1);
    u.set_stream(0, t.stream(1), t.events(1));
    const Record last = all_fields(expected.front(), 12345);
    u.append(0, last);
    const auto again = records(u, 0);
    ASSERT_EQ(again.size(), expected.size() + 1);
    EXPECT_EQ(again.back(), last);
}

// The replay path decodes straight into an mpi::Op: the same Op to_op makes of the
// Record (instructions for Compute only), with a Compute record's traced duration aside.
TEST(TraceNative, EveryKindDecodesIntoTheOpThatToOpMakes) {
    Trace t;
    t.resize(1);
    t.add_counts({1, 2});
    t.add_counts({3});
    t.add_counts({4, 5, 6});
    t.intern("out.dat");
    std::vector<Record> expected;
    std::int64_t seed = 0;
    for (const Record& kind : every_kind()) {
        expected.push_back(kind);
        expected.push_back(all_fields(kind, ++seed));
        expected.push_back(all_fields(kind, ++seed));
    }
    for (const Record& r : expected) t.append(0, r);
    auto c = t.cursor(0);
    mpi::Op op;
    Time compute_time = Time::us(1);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_TRUE(c.next(op, compute_time)) << "record " << i;
        const Record& r = expected[i];
        const bool compute = r.kind == mpi::OpKind::Compute || r.kind == mpi::OpKind::Unmodeled;
        const mpi::Op want = to_op(t, r, compute ? r.instructions : 0);
        EXPECT_EQ(compute_time, compute ? r.compute_time : Time::zero()) << "record " << i;
        EXPECT_EQ(op.kind, want.kind) << "record " << i;
        EXPECT_EQ(op.peer, want.peer) << "record " << i;
        EXPECT_EQ(op.tag, want.tag) << "record " << i;
        EXPECT_EQ(op.comm, want.comm) << "record " << i;
        EXPECT_EQ(op.bytes, want.bytes) << "record " << i;
        EXPECT_EQ(op.peer2, want.peer2) << "record " << i;
        EXPECT_EQ(op.tag2, want.tag2) << "record " << i;
        EXPECT_EQ(op.bytes2, want.bytes2) << "record " << i;
        EXPECT_EQ(op.instructions, want.instructions) << "record " << i;
        EXPECT_EQ(op.handle, want.handle) << "record " << i;
        EXPECT_EQ(op.count, want.count) << "record " << i;
        EXPECT_EQ(op.coll, want.coll) << "record " << i;
        EXPECT_EQ(op.nonblocking, want.nonblocking) << "record " << i;
        EXPECT_EQ(op.root, want.root) << "record " << i;
        EXPECT_EQ(op.counts, want.counts) << "record " << i;
        EXPECT_EQ(op.color, want.color) << "record " << i;
        EXPECT_EQ(op.key, want.key) << "record " << i;
        EXPECT_EQ(op.newcomm, want.newcomm) << "record " << i;
        EXPECT_EQ(op.file, want.file) << "record " << i;
        EXPECT_EQ(op.path, want.path) << "record " << i;
        EXPECT_EQ(op.offset, want.offset) << "record " << i;
        EXPECT_EQ(op.view_block, want.view_block) << "record " << i;
        EXPECT_EQ(op.view_stride, want.view_stride) << "record " << i;
        EXPECT_EQ(op.whence, want.whence) << "record " << i;
    }
    EXPECT_FALSE(c.next(op, compute_time));
}

// TraceProgram hands out Ops and still knows each rank's current record; compute bursts
// given as times become instructions at the traced speed.
TEST(TraceNative, TraceProgramKeepsTheCurrentRecord) {
    Trace t;
    t.resize(2);
    std::vector<Record> recs;
    for (const Record& kind : every_kind()) recs.push_back(all_fields(kind, 2));
    Record burst;
    burst.compute_time = Time::us(3);
    recs.push_back(burst);
    for (const Record& r : recs) t.append(1, r);
    t.add_counts({1, 2, 3});
    t.add_counts({1});
    t.add_counts({4, 5});
    t.intern("f");
    TraceProgram program(t, {1'000'000'000, 2'000'000'000});
    EXPECT_EQ(program.current(1), Record{});  // nothing handed out yet
    mpi::Op op;
    EXPECT_FALSE(program.next(0, op));
    for (std::size_t i = 0; i < recs.size(); ++i) {
        ASSERT_TRUE(program.next(1, op)) << "record " << i;
        EXPECT_EQ(program.current(1), recs[i]) << "record " << i;
        EXPECT_EQ(op.kind, recs[i].kind) << "record " << i;
    }
    EXPECT_EQ(op.instructions, 6000u);  // 3 us at 2 * 10^9 instructions/s
    EXPECT_FALSE(program.next(1, op));
    EXPECT_EQ(program.current(1), recs.back());
    EXPECT_EQ(program.consumed(), recs.size());
}

// A trace of more than 2 MiB is replayed from TraceProgram's copy on huge pages
// (HugeBuffer): every rank hands out exactly the records of its own stream, current() and
// record_number() name them, and the timed records' start deltas come out right across
// the copy.
TEST(TraceNative, TraceProgramReplaysALargeTraceFromItsCopy) {
    Trace t;
    t.resize(3);
    std::vector<Record> recs;
    for (std::int64_t seed = 2; seed < 6; ++seed)
        for (const Record& kind : every_kind()) recs.push_back(all_fields(kind, seed));
    t.add_counts({1, 2, 3});
    t.add_counts({1});
    t.add_counts({4, 5});
    t.intern("f");
    std::size_t per_rank = 0;
    while (t.stream(0).size() + t.stream(1).size() <= HugeBuffer::kPage) {
        for (std::uint32_t r = 0; r < 2; ++r) t.append(r, recs[per_rank % recs.size()]);
        ++per_rank;
    }
    TraceProgram program(t, {1'000'000'000, 1'000'000'000, 1'000'000'000});
    mpi::Op op;
    EXPECT_FALSE(program.next(2, op));  // an empty rank between the copies
    for (std::uint32_t r = 0; r < 2; ++r) {
        Trace::Cursor c = t.cursor(r);
        for (std::size_t i = 0; i < per_rank; ++i) {
            mpi::Op want;
            Time compute_time;
            ASSERT_TRUE(c.next(want, compute_time));
            ASSERT_TRUE(program.next(static_cast<std::int32_t>(r), op)) << "record " << i;
            ASSERT_EQ(op.kind, want.kind) << "rank " << r << " record " << i;
            ASSERT_EQ(op.bytes, want.bytes) << "rank " << r << " record " << i;
            ASSERT_EQ(op.peer, want.peer) << "rank " << r << " record " << i;
            ASSERT_EQ(op.offset, want.offset) << "rank " << r << " record " << i;
            if (i % 997 == 0) {
                ASSERT_EQ(program.current(static_cast<std::int32_t>(r)), recs[i % recs.size()]);
                ASSERT_EQ(program.record_number(static_cast<std::int32_t>(r)), i + 1);
            }
        }
        EXPECT_FALSE(program.next(static_cast<std::int32_t>(r), op));
        EXPECT_EQ(program.current(static_cast<std::int32_t>(r)),
                  recs[(per_rank - 1) % recs.size()]);
    }
    EXPECT_EQ(program.consumed(), 2 * per_rank);
}

TEST(TraceNative, EncodingIsCompact) {
    Trace t;
    t.resize(1);
    Record r;
    r.kind = mpi::OpKind::Collective;
    r.coll = mpi::CollOp::Allreduce;
    r.bytes = 8;
    t.append(0, r);  // kind, mask, bytes
    EXPECT_EQ(t.stream(0).size(), 3u);
    EXPECT_EQ(t.stream(0)[0], 0x40 + static_cast<int>(mpi::CollOp::Allreduce));
    r.nonblocking = true;
    r.handle = 1;
    t.append(0, r);
    EXPECT_EQ(t.stream(0)[3], 0x60 + static_cast<int>(mpi::CollOp::Allreduce));
    EXPECT_EQ(t.stream(0).size(), 7u);
    Record c;  // compute, timed: start 1 ms after the previous end, lasting 1 us
    c.instructions = 100;
    c.timed = true;
    c.start = Time::ms(1);
    c.end = c.start + Time::us(1);
    t.append(0, c);
    const std::size_t before = t.stream(0).size();
    c.start = c.end + Time::us(1);
    c.end = c.start + Time::us(1);
    t.append(0, c);
    // kind, mask, instructions (1 byte), start and end deltas of 1 us (10^6 ps, zigzag 2 * 10^6:
    // 3 bytes each).
    EXPECT_EQ(t.stream(0).size() - before, 1u + 1u + 1u + 3u + 3u);
}

TEST(TraceNative, RecordNamesRoundTrip) {
    for (const Record& kind : every_kind()) {
        const std::string name = record_name(kind);
        Record back;
        ASSERT_TRUE(parse_record_name(name, back)) << name;
        EXPECT_EQ(back.kind, kind.kind) << name;
        if (kind.kind == mpi::OpKind::Collective) {
            EXPECT_EQ(back.coll, kind.coll) << name;
            EXPECT_EQ(back.nonblocking, kind.nonblocking) << name;
        }
    }
    Record r;
    ASSERT_TRUE(parse_record_name("ibcast", r));
    EXPECT_EQ(r.kind, mpi::OpKind::Collective);
    EXPECT_EQ(r.coll, mpi::CollOp::Bcast);
    EXPECT_TRUE(r.nonblocking);
    ASSERT_TRUE(parse_record_name("irecv", r));
    EXPECT_EQ(r.kind, mpi::OpKind::Irecv);
    ASSERT_TRUE(parse_record_name("reduce_scatter", r));
    EXPECT_EQ(record_name(r), "reduce_scatter");
    ASSERT_TRUE(parse_record_name("file_write_at_all", r));
    EXPECT_EQ(r.kind, mpi::OpKind::FileWriteAtAll);
    EXPECT_FALSE(parse_record_name("frobnicate", r));
    EXPECT_FALSE(parse_record_name("collective", r));
    EXPECT_FALSE(parse_record_name("i", r));
    EXPECT_FALSE(parse_record_name("Send", r));
}

TEST(TraceNative, InternAndCountListsDeduplicate) {
    Trace t;
    EXPECT_EQ(t.intern("a"), 0);
    EXPECT_EQ(t.intern("b"), 1);
    EXPECT_EQ(t.intern("a"), 0);
    t.strings.push_back("c");  // changed directly: still found
    EXPECT_EQ(t.intern("c"), 2);
    EXPECT_EQ(t.add_counts({1, 2}), 0);
    EXPECT_EQ(t.add_counts({1, 2, 3}), 1);
    EXPECT_EQ(t.add_counts({1, 2}), 0);
    EXPECT_EQ(t.count_lists.size(), 2u);
}

TEST(TraceNative, FixtureReadsAsWritten) {
    const Trace t = read_text(kData + "every-kind.trace");
    EXPECT_EQ(t.name, "every kind");
    EXPECT_EQ(t.traced_speed, 2'800'000'000u);
    EXPECT_EQ(t.strings, (std::vector<std::string>{"pvfs2://pvfs2/checkpoint.1", "out put#.dat",
                                                   "MPI_Iprobe"}));
    ASSERT_EQ(t.count_lists.size(), 2u);
    EXPECT_EQ(t.count_lists[0], (std::vector<std::uint64_t>{1024, 2048, 0, 4}));
    ASSERT_EQ(t.files.size(), 2u);
    EXPECT_EQ(t.files[0].size, 5'235'848u);
    EXPECT_EQ(t.files[0].stripe, 65'536u);
    EXPECT_EQ(t.files[1].stripe, 0u);
    ASSERT_EQ(t.ranks(), 4u);
    EXPECT_EQ(t.events(2), 0u);
    const auto r0 = records(t, 0);
    // Every kind appears.
    std::set<std::string> names;
    for (const auto& r : r0) names.insert(record_name(r));
    for (const Record& kind : every_kind())
        EXPECT_TRUE(names.count(record_name(kind))) << record_name(kind);
    ASSERT_GE(r0.size(), 3u);
    EXPECT_EQ(r0[1].compute_time, Time::us(1500));
    EXPECT_TRUE(r0[1].timed);
    EXPECT_EQ(r0[1].start, Time::us(1'034'454));
    EXPECT_EQ(r0[2].end, Time::ps(1'036'012'345));
    EXPECT_EQ(r0[3].peer, mpi::kAnySource);
    EXPECT_EQ(r0[3].tag, mpi::kAnyTag);
    const auto r3 = records(t, 3);
    ASSERT_EQ(r3.size(), 1u);
    EXPECT_EQ(r3[0].end, Time::ps(1));
}

TEST(TraceNative, TextToBinaryToTextIsByteIdentical) {
    const std::string fixture = kData + "every-kind.trace";
    const Trace text = read_text(fixture);
    const std::string bin = temp_path("every-kind.cstb");
    write_binary(text, bin);
    const Trace binary = read_binary(bin);
    expect_same(text, binary);
    const std::string again = temp_path("every-kind-again.trace");
    write_text(binary, again);
    EXPECT_EQ(slurp(again), slurp(fixture));
}

TEST(TraceNative, BinaryToTextToBinaryIsByteIdentical) {
    // A trace built in memory, with the awkward values text must carry exactly.
    Trace t;
    t.name = "";  // empty names and strings survive too
    t.traced_speed = 1;
    t.strings = {"", "a b\tc%d#e\"f", "ünïcode"};
    t.count_lists = {{}, {UINT64_MAX, 0, 1}};
    t.files = {io::FileDecl{"x y", 0, 0}, io::FileDecl{"z", UINT64_MAX, 1}};
    t.resize(2);
    std::int64_t seed = 0;
    for (const Record& kind : every_kind()) {
        Record r = all_fields(kind, ++seed);
        r.path = static_cast<std::int32_t>(seed % 3);
        r.counts = static_cast<std::int32_t>(seed % 2);
        if (seed % 5 == 0) r.counts = kNone;
        t.append(static_cast<std::uint32_t>(seed % 2), r);
        t.append(0, kind);
    }
    const std::string bin = temp_path("built.cstb");
    const std::string text = temp_path("built.trace");
    const std::string bin2 = temp_path("built2.cstb");
    write_binary(t, bin);
    write_text(read_binary(bin), text);
    const Trace from_text = read_text(text);
    expect_same(t, from_text);
    write_binary(from_text, bin2);
    EXPECT_EQ(slurp(bin2), slurp(bin));
}

// Topology constructors name their arguments in text; the binary form keeps them as a count
// list; both round-trip; a malformed one is one line naming file and line.
TEST(TraceNative, TopologyRecordsNameTheirArguments) {
    const std::string text =
        "clustersim-trace 1\n"
        "rank 0\n"
        "cart_create newcomm=1 dims=2x3 periods=1x0\n"
        "dist_graph_create_adjacent newcomm=2 sources=1 destinations=1,1 reorder=1\n"
        "dist_graph_create newcomm=3 sources= destinations=\n"
        "neighbor_alltoallv comm=2 counts=0\n"
        "rank 1\n"
        "cart_create newcomm=1 dims=2x3 periods=1x0\n"
        "dist_graph_create_adjacent newcomm=2 sources=0,0 destinations=0\n"
        "dist_graph_create newcomm=3 sources=0,1 destinations=1,0\n";
    const std::string path = temp_path("topo.trace");
    spit(path, "clustersim-trace 1\ncounts 0 8B 16B 24B\n" + text.substr(19));
    const Trace t = read_text(path);
    const auto r0 = records(t, 0);
    ASSERT_EQ(r0.size(), 4u);
    EXPECT_EQ(r0[0].kind, mpi::OpKind::CartCreate);
    EXPECT_EQ(t.count_lists[static_cast<std::size_t>(r0[0].counts)],
              (std::vector<std::uint64_t>{2, 2, 3, 1, 0, 0}));
    mpi::TopoSpec spec;
    EXPECT_EQ(mpi::decode_topo_spec(r0[1].kind,
                                    t.count_lists[static_cast<std::size_t>(r0[1].counts)], spec),
              "");
    EXPECT_EQ(spec.sources, (std::vector<std::int32_t>{1}));
    EXPECT_EQ(spec.destinations, (std::vector<std::int32_t>{1, 1}));
    EXPECT_TRUE(spec.reorder);
    // text -> binary -> text: identical
    const std::string bin = temp_path("topo.cstb"), again = temp_path("topo-again.trace");
    write_binary(t, bin);
    write_text(read_binary(bin), again);
    const std::string out = slurp(again);
    EXPECT_NE(out.find("cart_create dims=2x3 periods=1x0 newcomm=1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("dist_graph_create sources= destinations= newcomm=3\n"), std::string::npos)
        << out;
    expect_same(t, read_text(again));
    for (const auto& [line, want] : std::vector<std::pair<std::string, std::string>>{
             {"cart_create dims=2x3 periods=1x2", "periods=1x2: expected 0 or 1"},
             {"cart_create dims=2x3 periods=1", "2 dims but 1 periods"},
             {"send peer=1 dims=2", "belong to cart_create"},
             {"dist_graph_create sources=1,2 destinations=0", "2 edge sources but 1"},
             {"cart_create dims=2x-1 periods=0x0", "dims"}}) {
        spit(path, "clustersim-trace 1\nrank 0\n" + line + "\n");
        const std::string e = error_of([&] { read_text(path); });
        EXPECT_NE(e.find(path + ":3:"), std::string::npos) << e;
        EXPECT_NE(e.find(want), std::string::npos) << e;
    }
}

TEST(TraceNative, HandWrittenTextWithCommentsAndUnits) {
    const Trace t = read_text(kData + "partdiff-small.trace");
    EXPECT_EQ(t.name, "partdiff-par");
    EXPECT_EQ(t.traced_speed, 2'800'000'000u);
    ASSERT_EQ(t.ranks(), 2u);
    const auto r0 = records(t, 0);
    ASSERT_EQ(r0.size(), 6u);
    EXPECT_EQ(r0[0].compute_time, Time::us(1500));
    EXPECT_EQ(r0[0].start, Time::us(1'034'454));
    EXPECT_EQ(r0[1].kind, mpi::OpKind::Send);
    EXPECT_EQ(r0[3].offset, 512u);
    EXPECT_EQ(r0[2].path, 0);
    EXPECT_EQ(r0[4].coll, mpi::CollOp::Allreduce);
    EXPECT_EQ(t.events(1), 6u);
}

TEST(TraceNative, TruncatedBinaryNamesFileAndOffset) {
    const std::string full = temp_path("full.cstb");
    write_binary(read_text(kData + "every-kind.trace"), full);
    const std::string bytes = slurp(full);
    const std::string cut = temp_path("cut.cstb");
    int checked = 0;
    for (std::size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 7)) {
        spit(cut, bytes.substr(0, n));
        const std::string e = error_of([&] { read_binary(cut); });
        EXPECT_THAT(e, HasSubstr(cut)) << "cut at " << n;
        if (n < 8) {
            EXPECT_THAT(e, HasSubstr("CSTRACE1")) << "cut at " << n;
        } else {
            EXPECT_THAT(e, HasSubstr("truncated: expected")) << "cut at " << n;
            EXPECT_THAT(e, HasSubstr("at byte offset")) << "cut at " << n;
        }
        ++checked;
    }
    EXPECT_GT(checked, 20);
    // A cut inside rank 0's records says so.
    spit(cut, bytes.substr(0, bytes.size() / 2));
    EXPECT_THAT(error_of([&] { read_binary(cut); }), HasSubstr("(rank 0)"));
    // Trailing bytes are an error too.
    spit(cut, bytes + "x");
    EXPECT_THAT(error_of([&] { read_binary(cut); }), HasSubstr("1 unexpected trailing bytes"));
}

TEST(TraceNative, CorruptBinary) {
    const std::string good = temp_path("good.cstb");
    write_binary(read_text(kData + "partdiff-small.trace"), good);
    std::string bytes = slurp(good);
    const std::string bad = temp_path("bad.cstb");

    std::string magic = bytes;
    magic[7] = '2';
    spit(bad, magic);
    const std::string e = error_of([&] { read_binary(bad); });
    EXPECT_THAT(e, HasSubstr(bad));
    EXPECT_THAT(e, HasSubstr("expected the magic 'CSTRACE1'"));
    EXPECT_THAT(e, HasSubstr("got 'CSTRACE2'"));

    // Rank 1's last record is file_close file=1: 0x0c, mask 0x02, 1. An unknown kind byte:
    std::string kind = bytes;
    kind[kind.size() - 3] = static_cast<char>(0xff);
    spit(bad, kind);
    EXPECT_THAT(error_of([&] { read_binary(bad); }),
                HasSubstr(": rank 1: unknown kind code at byte"));
    // The mask says more fields than the bytes hold.
    std::string mask = bytes;
    mask[mask.size() - 2] = 0x06;
    spit(bad, mask);
    EXPECT_THAT(error_of([&] { read_binary(bad); }),
                HasSubstr(": rank 1: truncated record at byte"));

    // set_stream itself: a count that does not match.
    Trace t;
    t.source = "mem";
    t.resize(1);
    Record r;
    r.instructions = 5;
    t.append(0, r);
    Trace u;
    u.source = "mem";
    u.resize(1);
    EXPECT_THAT(error_of([&] { u.set_stream(0, t.stream(0), 2); }),
                HasSubstr("mem: rank 0: 3 bytes hold 1 records, expected 2"));
    std::vector<std::uint8_t> half(t.stream(0).begin(), t.stream(0).end() - 1);
    EXPECT_THAT(
        error_of([&] { u.set_stream(0, half, 1); }),
        HasSubstr("mem: rank 0: truncated record at byte 0 (expected 1 records, decoded 0)"));
}

struct BadText {
    const char* name;
    const char* text;
    const char* error;  // expected substring (after "<file>:")
};

TEST(TraceNative, BadTextInputs) {
    const std::vector<BadText> cases = {
        {"missing-header", "rank 0\ncompute instructions=1\n",
         ":1: expected 'clustersim-trace 1' (the native text trace header), got 'rank 0'"},
        {"empty", "# nothing\n", ":1: expected 'clustersim-trace 1'"},
        {"wrong-version", "clustersim-trace 2\n", ":1: expected version 1"},
        {"record-before-rank", "clustersim-trace 1\ncompute instructions=1\n",
         ":2: expected 'rank 0' before the first record, got 'compute instructions=1'"},
        {"rank-out-of-order", "clustersim-trace 1\nrank 0\nrank 2\n",
         ":3: expected 'rank 1' (ranks in order from 0, each once), got 'rank 2'"},
        {"rank-duplicated", "clustersim-trace 1\nrank 0\nrank 0\n", ":3: expected 'rank 1'"},
        {"bad-unit", "clustersim-trace 1\nrank 0\nsend peer=1 bytes=12\n",
         ":3: bytes: '12': missing unit, expected a size with a unit"},
        {"bad-time-unit", "clustersim-trace 1\nrank 0\ncompute time=5 parsecs\n",
         ":3: time: '5': missing unit"},
        {"unknown-record", "clustersim-trace 1\nrank 0\ncompute instructions=1\nfrobnicate x=1\n",
         ":4: unknown record 'frobnicate'"},
        {"unknown-field", "clustersim-trace 1\nrank 0\nsend speed=1\n",
         ":3: unknown field 'speed' in 'send'; expected one of: file, path,"},
        {"not-a-field", "clustersim-trace 1\nrank 0\nsend 12\n",
         ":3: expected field=value, got '12'"},
        {"twice", "clustersim-trace 1\nrank 0\nsend peer=1 peer=2\n",
         ":3: field 'peer' given twice"},
        {"start-only", "clustersim-trace 1\nrank 0\nsend start=1s\n",
         ":3: expected both start= and end= (or neither) in 'send', got only start="},
        {"negative-handle", "clustersim-trace 1\nrank 0\nwait handle=-1\n",
         ":3: expected handle to be a non-negative integer, got '-1'"},
        {"big-peer", "clustersim-trace 1\nrank 0\nsend peer=3000000000\n",
         ":3: expected peer to be an integer in range, got '3000000000'"},
        {"bad-whence", "clustersim-trace 1\nrank 0\nfile_seek whence=middle\n",
         ":3: expected whence to be set, cur or end (or 0, 1, 2), got 'middle'"},
        {"whence-77", "clustersim-trace 1\nrank 0\nfile_seek whence=77\n",
         ":3: expected whence to be set, cur or end (or 0, 1, 2), got '77'"},
        {"missing-string", "clustersim-trace 1\nstring 0 a\nrank 0\nfile_open path=1\n",
         ":4: path=1: no such string (the trace has 1 'string' lines)"},
        {"missing-counts", "clustersim-trace 1\nrank 0\nalltoallv counts=0\n",
         ":3: counts=0: no such count list"},
        {"string-index", "clustersim-trace 1\nstring 1 a\n",
         ":2: expected 'string 0' (indices in order from 0), got 'string 1'"},
        {"header-after-rank", "clustersim-trace 1\nrank 0\nname x\n",
         ":3: expected a record, got 'name x' (header lines belong before the first 'rank' line)"},
        {"bad-header-line", "clustersim-trace 1\nranks 4\n",
         ":2: expected a header line (name, traced-speed, file, string, counts) or 'rank 0', got "
         "'ranks 4'"},
        {"bad-escape", "clustersim-trace 1\nname a%2\n", ":2: expected a %XX escape"},
        {"bad-speed", "clustersim-trace 1\ntraced-speed 0G\n",
         ":2: traced-speed: '0G': expected a positive speed"},
        {"bad-file", "clustersim-trace 1\nfile f size=1B size=2B\n",
         ":2: expected size= or stripe= (each once) in 'file', got 'size=2B'"},
    };
    for (const auto& c : cases) {
        const std::string path = temp_path(std::string(c.name) + ".trace");
        spit(path, c.text);
        EXPECT_THAT(error_of([&] { read_text(path); }), HasSubstr(path + c.error)) << c.name;
    }
}

TEST(TraceNative, UnknownRecordsSkippedWhenAsked) {
    const std::string path = temp_path("unknown.trace");
    spit(path,
         "clustersim-trace 1\nrank 0\ncompute instructions=1\nfrobnicate x=1\nmpi_foo\n"
         "frobnicate\nsend peer=1 bytes=1B\n");
    const auto reader = make_native_text_reader();
    ReadReport report;
    EXPECT_THAT(error_of([&] { reader->read(path, ReadOptions{}, report); }),
                HasSubstr(path + ":4: unknown record 'frobnicate'"));
    ReadOptions skip;
    skip.skip_unknown = true;
    const Trace t = reader->read(path, skip, report);
    EXPECT_EQ(t.events(0), 2u);
    EXPECT_EQ(report.skipped["frobnicate"], 2u);
    EXPECT_EQ(report.skipped["mpi_foo"], 1u);
}

TEST(TraceNative, ReadersDetectNativeFormats) {
    const std::string text = kData + "every-kind.trace";
    const std::string bin = temp_path("detect.cstb");
    write_binary(read_text(text), bin);
    const std::string commented = kData + "partdiff-small.trace";  // starts with comments

    ReaderRegistry registry;
    registry.add(make_native_binary_reader());
    registry.add(make_native_text_reader());
    EXPECT_EQ(registry.names(), "native_binary, native_text");
    EXPECT_EQ(registry.detect(text).name(), "native_text");
    EXPECT_EQ(registry.detect(commented).name(), "native_text");
    EXPECT_EQ(registry.detect(bin).name(), "native_binary");
    EXPECT_EQ(registry.find("native_text")->name(), "native_text");
    EXPECT_EQ(registry.find("nope"), nullptr);
    const std::string junk = temp_path("junk.bin");
    spit(junk, "\x01\x02 not a trace\n");
    EXPECT_THAT(error_of([&] { registry.detect(junk); }),
                HasSubstr(junk + ": not a trace clustersim can read; formats: native_binary, "
                                 "native_text"));

    ReadReport report;
    const Trace a = load_trace(text, "auto", ReadOptions{}, report);
    EXPECT_EQ(a.format, "native_text");
    EXPECT_EQ(a.source, text);
    const Trace b = load_trace(bin, "auto", ReadOptions{}, report);
    EXPECT_EQ(b.format, "native_binary");
    expect_same(a, b);
    EXPECT_EQ(load_trace(bin, "native_binary", ReadOptions{}, report).format, "native_binary");
    const std::string e = error_of([&] { load_trace(text, "vampir", ReadOptions{}, report); });
    EXPECT_THAT(e, HasSubstr("--format: unknown trace format 'vampir'; valid: auto, native_binary, "
                             "native_text, simgrid_ti, hdtrace"));
    EXPECT_THAT(
        error_of([&] { load_trace(temp_path("missing.trace"), "auto", ReadOptions{}, report); }),
        HasSubstr("missing.trace: cannot open"));
}

TEST(TraceNative, BinaryIsMuchSmallerThanText) {
    // 64 ranks x 1,000 records of a timed compute / sendrecv / allreduce loop.
    Trace t;
    t.name = "synthetic";
    t.traced_speed = 2'800'000'000;
    constexpr std::uint32_t kRanks = 64;
    t.resize(kRanks);
    for (std::uint32_t rank = 0; rank < kRanks; ++rank) {
        Time now = Time::ms(1) + Time::ns(rank * 37);
        for (int i = 0; i < 1000; ++i) {
            Record r;
            const int step = i % 3;
            const Time length =
                Time::ns(1000 + (rank * 7919 + static_cast<std::uint32_t>(i) * 104729) % 90'000);
            if (step == 0) {
                r.kind = mpi::OpKind::Compute;
                r.compute_time = length;
            } else if (step == 1) {
                r.kind = mpi::OpKind::Sendrecv;
                r.peer = static_cast<std::int32_t>((rank + 1) % kRanks);
                r.peer2 = static_cast<std::int32_t>((rank + kRanks - 1) % kRanks);
                r.tag = r.tag2 = 7;
                r.bytes = r.bytes2 = 8192 + static_cast<std::uint64_t>(i % 5) * 8;
            } else {
                r.kind = mpi::OpKind::Collective;
                r.coll = mpi::CollOp::Allreduce;
                r.bytes = 8;
            }
            r.timed = true;
            r.start = now + Time::ns(150);
            r.end = r.start + length;
            now = r.end;
            t.append(rank, r);
        }
    }
    const std::string text = temp_path("synthetic.trace");
    const std::string bin = temp_path("synthetic.cstb");
    write_text(t, text);
    write_binary(t, bin);
    const auto text_size = fs::file_size(text), bin_size = fs::file_size(bin);
    const double ratio = static_cast<double>(text_size) / static_cast<double>(bin_size);
    std::cout << "[ size ratio ] text " << text_size << " B, binary " << bin_size
              << " B: binary is " << ratio << "x smaller\n";
    EXPECT_GE(ratio, 3.0);
    expect_same(t, read_binary(bin));
    expect_same(t, read_text(text));
}

TEST(TraceNativeBad, BinaryRecordsMustReferToTheirTables) {
    // A record naming string 5 and count list 3 of a trace that has neither: the binary
    // reader rejects it in the same pass that decodes the records.
    Trace t;
    t.resize(1);
    Record open;
    open.kind = mpi::OpKind::FileOpen;
    open.path = 5;
    t.append(0, open);
    const std::string bin = temp_path("bad-path.cstb");
    write_binary(t, bin);
    EXPECT_EQ(error_of([&] { (void)read_binary(bin); }),
              bin + ": rank 0 record 0: path 5 is not in the string table (0 strings)");
    Trace u;
    u.resize(1);
    Record gv;
    gv.kind = mpi::OpKind::Collective;
    gv.coll = mpi::CollOp::Gatherv;
    gv.counts = 3;
    u.append(0, gv);
    write_binary(u, bin);
    EXPECT_EQ(error_of([&] { (void)read_binary(bin); }),
              bin + ": rank 0 record 0: counts 3 is not in the count lists (0 lists)");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
