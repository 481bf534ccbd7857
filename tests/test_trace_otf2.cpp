// The OTF2 reader (traces/otf2_reader.cpp) on the Score-P trace in
// ../shared/external/otf2-scorep-sst-macro (10 ranks; the expected figures were counted with
// `otf2-print traces.otf2 | awk`), and the OTF2 writer (traces/otf2_writer.cpp): native ->
// OTF2 -> native keeps every record and timestamp, and otf2-print reads what it writes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include <otf2/otf2.h>

#include "simulator/error.hpp"
#include "trace_fixtures.hpp"
#include "traces/otf2.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim;
using namespace clustersim::traces;
using namespace clustersim::traces::testing;
namespace fs = std::filesystem;

const std::string kDir = std::string(CLUSTERSIM_SHARED_DIR) + "/external/otf2-scorep-sst-macro";
const std::string kAnchor = kDir + "/traces.otf2";

const TraceReader& otf2_reader() {
    static const auto r = make_otf2_reader();
    return *r;
}

Trace read_scorep(ReadReport& report) {
    return read_with(otf2_reader(), kAnchor, report);
}

std::string temp(const std::string& name) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path d =
        fs::path(::testing::TempDir()) /
        (std::string("clustersim_otf2_") + info->name() + "_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return (d / name).string();
}

TEST(Otf2Reader, ScorepRecordCountsPerRankAndKind) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read_scorep(report);
    ASSERT_EQ(t.ranks(), 10u);
    // Per rank (otf2-print -L R | awk: every rank has the same calls): 144 MPI_Isend and
    // MPI_Irecv, 48 MPI_Waitall (6 requests each), 36 of each blocking collective of the
    // size sweep, 3 rooted ones each, 2 MPI_Comm_split; the nonblocking collectives carry no
    // events in this Score-P version, so they and their 108 MPI_Wait are unmodeled, with
    // MPI_Init 1, MPI_Initialized 2, MPI_Comm_rank 11, MPI_Comm_size 10, MPI_Comm_free 2,
    // MPI_Finalize 1: 243 unmodeled calls.
    const std::map<std::string, int> expected{
        {"isend", 144},    {"irecv", 144},   {"waitall", 48},   {"allgather", 36},
        {"allreduce", 36}, {"alltoall", 36}, {"gather", 3},     {"bcast", 3},
        {"reduce", 3},     {"scatter", 3},   {"comm_split", 2}, {"unmodeled", 243}};
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        EXPECT_EQ(kinds(t, r, false), expected) << "rank " << r;
        // 2,218 events per location: 701 ENTER/LEAVE pairs are 701 calls, each preceded by
        // a compute gap (none is zero-length in this trace)
        EXPECT_EQ(kinds(t, r).at("compute"), 701) << "rank " << r;
    }
    EXPECT_EQ(report.unmodeled.at("MPI_Wait"), 1080u);
    EXPECT_EQ(report.unmodeled.at("MPI_Iallreduce"), 360u);
    EXPECT_EQ(report.unmodeled.at("MPI_Comm_rank"), 110u);
    EXPECT_EQ(report.unmodeled.at("MPI_Comm_free"), 20u);
    std::uint64_t unmodeled = 0;
    for (const auto& [name, n] : report.unmodeled) unmodeled += n;
    EXPECT_EQ(unmodeled, 2430u);
    bool noted = false;
    for (const auto& n : report.notes)
        noted |= n.find("1080 nonblocking") != std::string::npos ||
                 n.find("nonblocking collective") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(Otf2Reader, ScorepBytesSentEqualBytesReceived) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read_scorep(report);
    // otf2-print | awk: MPI_ISEND lengths and MPI_IRECV lengths both sum to 23,592,600 B
    std::uint64_t sent = 0, received = 0;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> world_pairs;
    for (std::uint32_t r = 0; r < t.ranks(); ++r)
        for (const Record& rec : records(t, r)) {
            if (rec.kind == mpi::OpKind::Isend) {
                sent += rec.bytes;
                if (rec.comm == 0)
                    world_pairs[{r, static_cast<std::uint32_t>(rec.peer)}] += rec.bytes;
            }
            if (rec.kind == mpi::OpKind::Irecv) {
                EXPECT_GE(rec.peer, 0) << "every Irecv completed with its sender";
                received += rec.bytes;
                if (rec.comm == 0)
                    world_pairs[{static_cast<std::uint32_t>(rec.peer), r}] -= rec.bytes;
            }
        }
    EXPECT_EQ(sent, 23'592'600u);
    EXPECT_EQ(received, 23'592'600u);
    for (const auto& [pair, diff] : world_pairs)
        EXPECT_EQ(diff, 0u) << "rank " << pair.first << " -> " << pair.second;
}

TEST(Otf2Reader, ScorepCommunicatorsReconstructedFromTheDefinitions) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read_scorep(report);
    // The definitions: COMM 1..4 = {0,6}, {1,7}, {2,8}, {3,9} split from MPI_COMM_WORLD; ranks
    // 4 and 5 got a communicator of their own (COMM_SELF group), as every rank did from the
    // second split.
    std::vector<std::vector<Record>> splits(t.ranks());
    for (std::uint32_t r = 0; r < t.ranks(); ++r)
        for (const Record& rec : records(t, r))
            if (rec.kind == mpi::OpKind::CommSplit) splits[r].push_back(rec);
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        ASSERT_EQ(splits[r].size(), 2u) << r;
        EXPECT_EQ(splits[r][0].comm, 0);
        EXPECT_EQ(splits[r][0].newcomm, 1u);
        EXPECT_EQ(splits[r][1].newcomm, 2u);
    }
    for (std::uint32_t r = 0; r < 4; ++r) {
        EXPECT_EQ(splits[r][0].color, splits[r + 6][0].color) << r;
        EXPECT_EQ(splits[r][0].key, 0);
        EXPECT_EQ(splits[r + 6][0].key, 1);
    }
    std::set<std::int32_t> first, second;
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        first.insert(splits[r][0].color);
        second.insert(splits[r][1].color);
    }
    EXPECT_EQ(first.size(), 6u);    // four pairs, ranks 4 and 5 alone
    EXPECT_EQ(second.size(), 10u);  // every rank alone
    // Point-to-point on the new communicators names ranks within them.
    for (std::uint32_t r = 0; r < t.ranks(); ++r)
        for (const Record& rec : records(t, r)) {
            if (rec.kind != mpi::OpKind::Isend && rec.kind != mpi::OpKind::Irecv) continue;
            const int size = rec.comm == 0 ? 10 : rec.comm == 2 || r == 4 || r == 5 ? 1 : 2;
            EXPECT_LT(rec.peer, size) << "rank " << r << " comm " << rec.comm;
        }
}

TEST(Otf2Reader, ScorepTimestampsKeepTheRecordedTimeline) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read_scorep(report);
    // Clock: 1,995,386,627 ticks/s, global offset 3,971,700,851,734,240; rank 1's last LEAVE
    // (MPI_Finalize) is at tick 3,971,703,341,782,773: 2,490,048,533 ticks after the offset
    // = 1,247,902,787,012 ps (nearest).
    const auto r1 = records(t, 1);
    EXPECT_EQ(r1.back().end.ps(), 1'247'902'787'012);
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        const auto recs = records(t, r);
        Time prev;
        for (const Record& rec : recs) {
            ASSERT_TRUE(rec.timed);
            EXPECT_EQ(rec.start, prev) << "rank " << r << ": records tile the timeline";
            EXPECT_GE(rec.end, rec.start);
            prev = rec.end;
        }
    }
}

TEST(Otf2Reader, DetectedByContentAndBadArchivesAreOneLineErrors) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    EXPECT_EQ(load_trace(kAnchor, "auto", {}, report).format, "otf2");
    EXPECT_EQ(load_trace(kDir, "otf2", {}, report).ranks(), 10u) << "a folder with one anchor";
    // a copy whose rank 3 events are cut in the middle
    const fs::path copy = fs::path(temp("cut"));
    fs::remove_all(copy);
    fs::create_directories(copy / "traces");
    for (const auto& e : fs::directory_iterator(kDir))
        if (e.is_regular_file()) fs::copy_file(e.path(), copy / e.path().filename());
    for (const auto& e : fs::directory_iterator(kDir + "/traces"))
        fs::copy_file(e.path(), copy / "traces" / e.path().filename());
    fs::resize_file(copy / "traces" / "3.evt", 10000);
    try {
        (void)read_with(otf2_reader(), (copy / "traces.otf2").string(), report);
        ADD_FAILURE() << "a truncated event file must not read";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("traces.otf2"), std::string::npos) << what;
        EXPECT_NE(what.find("rank 3"), std::string::npos) << what;
        EXPECT_NE(what.find("event "), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    // a missing event file
    fs::remove(copy / "traces" / "3.evt");
    EXPECT_THROW((void)read_with(otf2_reader(), (copy / "traces.otf2").string(), report),
                 InputError);
    // not an archive
    const std::string junk = temp("junk.otf2");
    std::ofstream(junk) << "not OTF2 at all";
    EXPECT_THROW((void)read_with(otf2_reader(), junk, report), InputError);
    EXPECT_THROW((void)load_trace(junk, "auto", {}, report), InputError);
}

OTF2_FlushType no_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp no_time(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}

// A one-rank archive whose events are `events(writer)`: region 0 is "MPI_Barrier". Its
// definitions announce `extra` events more than the event file holds (APEX's archives).
template <typename F>
std::string hand_written_archive(const std::string& name, F events, std::uint64_t extra = 0) {
    const fs::path dir = fs::path(temp(name));
    fs::remove_all(dir);
    fs::create_directories(dir);
    OTF2_Archive* a = OTF2_Archive_Open(
        dir.string().c_str(), "bad", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_FlushCallbacks flush{no_flush, no_time};
    OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 0);
    events(w);
    std::uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &n);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, 100, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(d, 0, "");
    OTF2_GlobalDefWriter_WriteString(d, 1, "MPI_Barrier");
    OTF2_GlobalDefWriter_WriteString(d, 2, "rank 0");
    OTF2_GlobalDefWriter_WriteRegion(d, 0, 1, 1, 0, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(d, 0, 2, OTF2_LOCATION_TYPE_CPU_THREAD, n + extra, 0);
    OTF2_Archive_CloseGlobalDefWriter(a, d);
    OTF2_Archive_Close(a);
    return (dir / "bad.otf2").string();
}

std::string read_error(const std::string& path) {
    ReadReport report;
    try {
        (void)read_with(otf2_reader(), path, report);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Otf2Reader, MalformedEventStreamsNameTheEvent) {
    // ENTER of a region the definitions do not have: the third event (OTF2 counts from 1)
    const std::string undefined = hand_written_archive("undefined", [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
        OTF2_EvtWriter_Enter(w, nullptr, 30, 7);
    });
    std::string m = read_error(undefined);
    EXPECT_NE(m.find("bad.otf2"), std::string::npos) << m;
    EXPECT_NE(m.find("rank 0) event 3: ENTER of region 7, which is not defined"), std::string::npos)
        << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    // LEAVE without ENTER
    m = read_error(hand_written_archive(
        "leave", [](OTF2_EvtWriter* w) { OTF2_EvtWriter_Leave(w, nullptr, 10, 0); }));
    EXPECT_NE(m.find("event 1: LEAVE without a matching ENTER"), std::string::npos) << m;
    // the events end inside the call
    m = read_error(hand_written_archive(
        "open", [](OTF2_EvtWriter* w) { OTF2_EvtWriter_Enter(w, nullptr, 10, 0); }));
    EXPECT_NE(m.find("the location ends inside MPI_Barrier"), std::string::npos) << m;
    // and a good one reads: a barrier, 10 ns of compute before it
    ReadReport report;
    const Trace t = read_with(otf2_reader(),
                              hand_written_archive("good",
                                                   [](OTF2_EvtWriter* w) {
                                                       OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
                                                       OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
                                                   }),
                              report);
    ASSERT_EQ(t.ranks(), 1u);
    EXPECT_EQ(kinds(t, 0), (std::map<std::string, int>{{"compute", 1}, {"unmodeled", 1}}))
        << "no MpiCollectiveEnd event: the barrier is unmodeled";
    EXPECT_EQ(records(t, 0).back().end, Time::ns(20));
}

TEST(Otf2Reader, DefinitionsAnnouncingMoreEventsThanTheFileHoldsReadWithOneWarning) {
    // Two barriers written, five events announced: the four events are read, one warning.
    auto two_barriers = [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
        OTF2_EvtWriter_Enter(w, nullptr, 50, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 80, 0);
    };
    const std::string path = hand_written_archive("apex", two_barriers, 1);
    ReadReport report;
    const Trace t = read_with(otf2_reader(), path, report);
    ASSERT_EQ(t.ranks(), 1u);
    EXPECT_EQ(kinds(t, 0), (std::map<std::string, int>{{"compute", 2}, {"unmodeled", 2}}));
    EXPECT_EQ(records(t, 0).back().end, Time::ns(80));
    ASSERT_EQ(report.warnings.size(), 1u);
    EXPECT_EQ(report.warnings[0],
              "1 of 1 location: the event file holds another number of events than the "
              "definitions announce (location 0 (rank 0): 4 of 5 events): read as far as the "
              "OTF2 library reads; the run replays what was read");
    // trace_warnings prints it first, as the run does, then the cut: no MPI_Finalize here.
    const std::string lines = trace_warnings(t, report, path);
    EXPECT_EQ(lines.substr(0, lines.find('\n') + 1),
              "clustersim: warning: " + path + ": " + report.warnings[0] + "\n");
    // The events end inside a call: that call was cut by the recording and is dropped.
    ReadReport open;
    const Trace o = read_with(otf2_reader(),
                              hand_written_archive(
                                  "apex-open",
                                  [](OTF2_EvtWriter* w) {
                                      OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
                                      OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
                                      OTF2_EvtWriter_Enter(w, nullptr, 50, 0);
                                  },
                                  3),
                              open);
    EXPECT_EQ(kinds(o, 0), (std::map<std::string, int>{{"compute", 1}, {"unmodeled", 1}}));
    ASSERT_EQ(open.warnings.size(), 1u);
    EXPECT_NE(open.warnings[0].find("(location 0 (rank 0): 3 of 6 events, its last call "
                                    "(MPI_Barrier) cut)"),
              std::string::npos)
        << open.warnings[0];
    // Counts that agree: no warning.
    ReadReport whole;
    (void)read_with(otf2_reader(), hand_written_archive("whole", two_barriers), whole);
    EXPECT_TRUE(whole.warnings.empty());
}

TEST(Otf2Reader, AnEventFileTheLibraryCannotReadIsStillAnError) {
    // A chunk cut in the middle of an event: the OTF2 library returns an error code, which
    // stays the one-line error naming the archive, the location and the event.
    const std::string path = hand_written_archive("broken", [](OTF2_EvtWriter* w) {
        for (int i = 0; i < 100; ++i) {
            OTF2_EvtWriter_Enter(w, nullptr, 10 + 20 * i, 0);
            OTF2_EvtWriter_Leave(w, nullptr, 20 + 20 * i, 0);
        }
    });
    const fs::path evt = fs::path(path).parent_path() / "bad" / "0.evt";
    fs::resize_file(evt, fs::file_size(evt) / 2);
    const std::string m = read_error(path);
    EXPECT_EQ(m.rfind(path + ": location 0 (rank 0) event ", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.find("announce"), std::string::npos) << m;
}

// Records of two traces are equal, counts and paths compared by content.
void expect_same_records(const Trace& a, const Trace& b) {
    ASSERT_EQ(a.ranks(), b.ranks());
    for (std::uint32_t r = 0; r < a.ranks(); ++r) {
        const auto ra = records(a, r), rb = records(b, r);
        ASSERT_EQ(ra.size(), rb.size()) << "rank " << r;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            Record x = ra[i], y = rb[i];
            if (x.counts >= 0) {
                ASSERT_GE(y.counts, 0);
                EXPECT_EQ(a.count_lists[static_cast<std::size_t>(x.counts)],
                          b.count_lists[static_cast<std::size_t>(y.counts)]);
                x.counts = y.counts = 0;
            }
            if (x.path >= 0) {
                ASSERT_GE(y.path, 0);
                EXPECT_EQ(a.strings[static_cast<std::size_t>(x.path)],
                          b.strings[static_cast<std::size_t>(y.path)]);
                x.path = y.path = 0;
            }
            EXPECT_EQ(x, y) << "rank " << r << " record " << i << ": " << record_name(x);
        }
    }
}

std::string text_of(const Trace& t, const std::string& path) {
    write_text(t, path);
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Otf2Writer, EveryKindFixtureRoundTripsByteForByte) {
    const std::string fixture =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/every-kind.trace";
    const Trace original = read_text(fixture);
    const std::string anchor = temp("every.otf2");
    write_otf2(original, anchor);
    ASSERT_TRUE(fs::exists(anchor));
    ASSERT_TRUE(fs::is_directory(fs::path(anchor).parent_path() / "every"));
    ReadReport report;
    const Trace back = read_with(otf2_reader(), anchor, report);
    expect_same_records(original, back);
    // name, traced speed, strings, count lists and files come back too: the text is identical
    EXPECT_EQ(text_of(back, temp("back.trace")), text_of(original, temp("orig.trace")));
    // writing again replaces the archive
    write_otf2(back, anchor);
    ReadReport again;
    expect_same_records(original, read_with(otf2_reader(), anchor, again));
    // but a folder of that name holding other files is not removed
    const fs::path other = fs::path(anchor).parent_path() / "mine";
    fs::create_directories(other);
    std::ofstream(other / "notes.txt") << "keep me";
    try {
        write_otf2(back, (fs::path(anchor).parent_path() / "mine.otf2").string());
        ADD_FAILURE() << "the folder 'mine' must not be replaced";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not replacing it"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::exists(other / "notes.txt"));
}

TEST(Otf2Writer, ScorepTraceRoundTripsThroughTheWriter) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace scorep = read_scorep(report);
    const std::string anchor = temp("scorep.otf2");
    write_otf2(scorep, anchor);
    ReadReport back_report;
    const Trace back = read_with(otf2_reader(), anchor, back_report);
    expect_same_records(scorep, back);
    EXPECT_EQ(back_report.unmodeled, report.unmodeled);
}

// Without clustersim's attributes the archive holds only standard OTF2 (what Score-P writes):
// the reader's own mapping must give the trace back. Split colors are the communicators' OTF2
// ids then, so they are compared as partitions of the ranks.
TEST(Otf2Writer, PlainArchiveOfTheScorepTraceReadsBackThroughTheStandardEvents) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace scorep = read_scorep(report);
    const std::string anchor = temp("plain.otf2");
    Otf2WriteOptions plain;
    plain.clustersim_extensions = false;
    write_otf2(scorep, anchor, plain);
    ReadReport back_report;
    const Trace back = read_with(otf2_reader(), anchor, back_report);
    EXPECT_EQ(back_report.unmodeled, report.unmodeled);
    ASSERT_EQ(back.ranks(), scorep.ranks());
    // k-th split: ranks grouped by color, in both traces
    std::map<int, std::map<std::int32_t, std::set<std::uint32_t>>> groups_a, groups_b;
    for (std::uint32_t r = 0; r < scorep.ranks(); ++r) {
        const auto ra = records(scorep, r), rb = records(back, r);
        ASSERT_EQ(ra.size(), rb.size()) << "rank " << r;
        int k = 0;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            Record x = ra[i], y = rb[i];
            if (x.kind == mpi::OpKind::CommSplit) {
                groups_a[k][x.color].insert(r);
                groups_b[k][y.color].insert(r);
                ++k;
                x.color = y.color = 0;
            }
            if (x.path >= 0 && y.path >= 0) {
                EXPECT_EQ(scorep.strings[static_cast<std::size_t>(x.path)],
                          back.strings[static_cast<std::size_t>(y.path)]);
                x.path = y.path = 0;
            }
            EXPECT_EQ(x, y) << "rank " << r << " record " << i << ": " << record_name(x);
        }
    }
    auto partition = [](const std::map<std::int32_t, std::set<std::uint32_t>>& g) {
        std::set<std::set<std::uint32_t>> p;
        for (const auto& [color, ranks] : g) p.insert(ranks);
        return p;
    };
    ASSERT_EQ(groups_a.size(), 2u);
    for (int k = 0; k < 2; ++k) EXPECT_EQ(partition(groups_a[k]), partition(groups_b[k])) << k;
}

// A small timed program with MPI-IO, a split communicator and a v-collective, through an
// archive with standard events only.
TEST(Otf2Writer, PlainArchiveMapsMpiIoSplitsAndVCollectives) {
    Trace t;
    t.resize(2);
    const std::int32_t path = t.intern("out.dat");
    const std::int32_t counts = t.add_counts({16, 32});
    Time now = Time::us(5);
    auto add = [&](std::uint32_t rank, Record r, Time length) {
        r.timed = true;
        r.start = now + Time::us(1);  // 1 us of compute before every call
        r.end = r.start + length;
        t.append(rank, r);
    };
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
        now = Time::us(5);
        auto step = [&](Record r) {
            add(rank, r, Time::us(3));
            now = now + Time::us(4);
        };
        Record c;
        c.kind = mpi::OpKind::Compute;
        c.compute_time = Time::us(6);
        c.timed = true;
        c.start = Time::zero();
        c.end = Time::us(6);
        t.append(rank, c);
        now = Time::us(5);
        Record open;
        open.kind = mpi::OpKind::FileOpen;
        open.file = 1;
        open.path = path;
        Record write;
        write.kind = mpi::OpKind::FileWriteAll;
        write.file = 1;
        write.bytes = 4096;
        Record seek;
        seek.kind = mpi::OpKind::FileSeek;
        seek.file = 1;
        seek.offset = 100;
        seek.whence = mpi::kSeekCur;
        Record read;
        read.kind = mpi::OpKind::FileRead;
        read.file = 1;
        read.bytes = 512;
        Record sync;
        sync.kind = mpi::OpKind::FileSync;
        sync.file = 1;
        Record close;
        close.kind = mpi::OpKind::FileClose;
        close.file = 1;
        Record split;
        split.kind = mpi::OpKind::CommSplit;
        split.color = 5;
        split.key = -static_cast<std::int32_t>(rank);  // rank 1 first in the new communicator
        split.newcomm = 1;
        Record bcast;
        bcast.kind = mpi::OpKind::Collective;
        bcast.coll = mpi::CollOp::Bcast;
        bcast.comm = 1;
        bcast.root = 1;
        bcast.bytes = 8;
        Record gatherv;
        gatherv.kind = mpi::OpKind::Collective;
        gatherv.coll = mpi::CollOp::Gatherv;
        gatherv.counts = counts;
        for (const Record& r : {open, write, seek, read, sync, close, split, bcast, gatherv})
            step(r);
    }
    // records: compute [0, 6 us], then calls of 3 us at 6, 10, 14 ... us, 1 us apart
    const std::string anchor = temp("io.otf2");
    Otf2WriteOptions plain;
    plain.clustersim_extensions = false;
    write_otf2(t, anchor, plain);
    ReadReport report;
    const Trace back = read_with(otf2_reader(), anchor, report);
    ASSERT_EQ(back.ranks(), 2u);
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
        std::vector<Record> calls;
        for (const Record& r : records(back, rank))
            if (r.kind != mpi::OpKind::Compute) calls.push_back(r);
        ASSERT_EQ(calls.size(), 9u);
        EXPECT_EQ(calls[0].kind, mpi::OpKind::FileOpen);
        EXPECT_EQ(back.strings[static_cast<std::size_t>(calls[0].path)], "out.dat");
        EXPECT_EQ(calls[0].file, 1u);
        EXPECT_EQ(calls[1].kind, mpi::OpKind::FileWriteAll);
        EXPECT_EQ(calls[1].bytes, 4096u);
        EXPECT_EQ(calls[2].kind, mpi::OpKind::FileSeek);
        EXPECT_EQ(calls[2].offset, 100u);
        EXPECT_EQ(calls[2].whence, mpi::kSeekCur);
        EXPECT_EQ(calls[3].kind, mpi::OpKind::FileRead);
        EXPECT_EQ(calls[3].bytes, 512u);
        EXPECT_EQ(calls[4].kind, mpi::OpKind::FileSync);
        EXPECT_EQ(calls[5].kind, mpi::OpKind::FileClose);
        EXPECT_EQ(calls[5].file, 1u);
        EXPECT_EQ(calls[6].kind, mpi::OpKind::CommSplit);
        EXPECT_EQ(calls[6].key, rank == 1 ? 0 : 1) << "ranks within the new communicator";
        EXPECT_EQ(calls[7].coll, mpi::CollOp::Bcast);
        EXPECT_EQ(calls[7].comm, 1);
        EXPECT_EQ(calls[7].root, 1);
        EXPECT_EQ(calls[7].bytes, 8u);
        EXPECT_EQ(calls[8].coll, mpi::CollOp::Gatherv);
        ASSERT_GE(calls[8].counts, 0);
        EXPECT_EQ(back.count_lists[static_cast<std::size_t>(calls[8].counts)],
                  (std::vector<std::uint64_t>{16, 32}));
        // times: each call as written, the gaps as compute
        EXPECT_EQ(calls[0].start, Time::us(6));
        EXPECT_EQ(calls[8].end, Time::us(6 + 8 * 4 + 3));
    }
}

TEST(Otf2Writer, Otf2PrintReadsTheWrittenArchive) {
    if (std::system("command -v otf2-print >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "otf2-print (Debian otf2-tools) is not installed";
    const Trace original =
        read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/every-kind.trace");
    const std::string anchor = temp("printed.otf2");
    write_otf2(original, anchor);
    const std::string out = temp("print.txt"), defs = temp("defs.txt");
    ASSERT_EQ(std::system(("otf2-print " + anchor + " >" + out + " 2>&1").c_str()), 0);
    ASSERT_EQ(std::system(("otf2-print -G " + anchor + " >" + defs + " 2>&1").c_str()), 0);
    std::ifstream in(out);
    std::uint64_t enters = 0, leaves = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("ENTER ", 0) == 0) ++enters;
        if (line.rfind("LEAVE ", 0) == 0) ++leaves;
    }
    // one region per record
    EXPECT_EQ(enters, original.total_events());
    EXPECT_EQ(leaves, original.total_events());
    std::ifstream d(defs);
    std::stringstream ds;
    ds << d.rdbuf();
    const std::string text = ds.str();
    EXPECT_NE(text.find("MPI_COMM_WORLD"), std::string::npos) << text;
    EXPECT_NE(text.find("LOCATION "), std::string::npos) << text;
}

}  // namespace CLUSTERSIM_TEST_FILE
