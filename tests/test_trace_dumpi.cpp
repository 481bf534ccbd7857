// The DUMPI reader (traces/dumpi_reader.cpp): rank 0 of the SST trace in
// ../shared/external/dumpi-sst-dumpi decoded call by call against testtrace-0000.txt (what
// SST's own dumpi2ascii prints), the four ranks' records, and a hand-encoded trace with the
// calls the shared one lacks (communicator split, Waitall, v-collectives, MPI-IO).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "simulator/error.hpp"
#include "trace_fixtures.hpp"
#include "traces/dumpi.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim;
using namespace clustersim::traces;
using namespace clustersim::traces::testing;
namespace fs = std::filesystem;

const std::string kDir = std::string(CLUSTERSIM_SHARED_DIR) + "/external/dumpi-sst-dumpi";

const TraceReader& dumpi_reader() {
    static const auto r = make_dumpi_reader();
    return *r;
}

std::string temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path d =
        fs::path(::testing::TempDir()) /
        (std::string("clustersim_dumpi_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

// "1296777956.737669000" -> nanoseconds
std::int64_t ns(const std::string& s) {
    const auto dot = s.find('.');
    std::string frac = s.substr(dot + 1);
    frac.resize(9, '0');
    return std::stoll(s.substr(0, dot)) * 1'000'000'000 + std::stoll(frac);
}

struct TextCall {
    std::string name;
    std::int64_t wall_start = 0, wall_end = 0, cpu_start = 0, cpu_end = 0;
    int thread = -1;
    std::vector<std::pair<std::string, std::int64_t>> args;  // scalar arguments
    std::vector<std::string> argv;
    std::vector<std::int64_t> status_bytes;
};

// Parses dumpi2ascii's output: "<call> entering at walltime W, cputime C seconds in thread T.",
// argument lines "<type> <name>=<value> [(<symbol>)]", "<call> returning at walltime ...".
std::vector<TextCall> parse_dumpi2ascii(const std::string& path) {
    std::ifstream in(path);
    const std::regex enter(
        R"(^(MPI_\w+) entering at walltime ([0-9.]+), cputime ([0-9.]+) seconds in thread (\d+)\.$)");
    const std::regex leave(
        R"(^(MPI_\w+) returning at walltime ([0-9.]+), cputime ([0-9.]+) seconds in thread (\d+)\.$)");
    const std::regex scalar(R"(^(int|MPI_Datatype|MPI_Comm|MPI_Op) (\w+)=(-?\d+)( \(.*\))?$)");
    const std::regex request(R"(^MPI_Request (\w+)=\[(\d+)\]$)");
    const std::regex argv(R"(^string argv\[\d+\]=\[(.*)\]$)");
    const std::regex status(R"(bytes=(-?\d+))");
    std::vector<TextCall> out;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_match(line, m, enter)) {
            TextCall c;
            c.name = m[1];
            c.wall_start = ns(m[2]);
            c.cpu_start = ns(m[3]);
            c.thread = std::stoi(m[4]);
            out.push_back(c);
        } else if (std::regex_match(line, m, leave)) {
            EXPECT_EQ(out.back().name, m[1].str());
            out.back().wall_end = ns(m[2]);
            out.back().cpu_end = ns(m[3]);
        } else if (out.empty() || out.back().wall_end != 0) {
            continue;  // the footer's call counts
        } else if (std::regex_match(line, m, scalar)) {
            out.back().args.emplace_back(m[2], std::stoll(m[3]));
        } else if (std::regex_match(line, m, request)) {
            out.back().args.emplace_back(m[1], std::stoll(m[2]));
        } else if (std::regex_match(line, m, argv)) {
            std::string a = m[1];
            out.back().argv.push_back(a.substr(1, a.size() - 2));  // strip the quotes
        } else if (line.rfind("MPI_Status", 0) == 0) {
            for (auto it = std::sregex_iterator(line.begin(), line.end(), status);
                 it != std::sregex_iterator(); ++it)
                out.back().status_bytes.push_back(std::stoll((*it)[1]));
        } else {
            ADD_FAILURE() << "unparsed dumpi2ascii line: " << line;
        }
    }
    return out;
}

TEST(Dumpi, RankZeroDecodesLikeDumpi2asciiCallByCall) {
    SKIP_WITHOUT_EXTERNAL();
    const auto expected = parse_dumpi2ascii(kDir + "/testtrace-0000.txt");
    ASSERT_EQ(expected.size(), 9u);  // Init, Comm_rank, Comm_size, Barrier, Isend, Recv, Wait,
                                     // Allreduce, Finalize
    const DumpiFile f = read_dumpi_file(kDir + "/testtrace-0000.bin");
    EXPECT_EQ(f.version[0], 1);
    EXPECT_EQ(f.hostname, "hadalst-mbp.ca.sandia.gov");  // as testtrace.meta says
    ASSERT_EQ(f.calls.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const TextCall& e = expected[i];
        const DumpiCall& c = f.calls[i];
        SCOPED_TRACE("call " + std::to_string(i) + " " + e.name);
        EXPECT_EQ(c.name, e.name);
        ASSERT_TRUE(c.has_wall);
        ASSERT_TRUE(c.has_cpu);
        EXPECT_EQ(c.wall_start, e.wall_start);
        EXPECT_EQ(c.wall_end, e.wall_end);
        EXPECT_EQ(c.cpu_start, e.cpu_start);
        EXPECT_EQ(c.cpu_end, e.cpu_end);
        EXPECT_EQ(c.thread, e.thread);
        for (const auto& [name, value] : e.args) {
            ASSERT_TRUE(c.has(name)) << name;
            EXPECT_EQ(c.arg(name), value) << name;
        }
        // every scalar argument dumpi2ascii printed, and no other
        EXPECT_EQ(c.args.size(), e.args.size());
        std::vector<std::string> argv;
        for (const auto& [k, v] : c.strings)
            if (k == "argv") argv.push_back(v);
        EXPECT_EQ(argv, e.argv);
        std::vector<std::int64_t> statuses(c.status_bytes.begin(), c.status_bytes.end());
        EXPECT_EQ(statuses, e.status_bytes);
    }
}

TEST(Dumpi, FourRanksRecordsBytesAndTimes) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read_with(dumpi_reader(), kDir + "/testtrace.meta", report);
    ASSERT_EQ(t.ranks(), 4u);
    EXPECT_EQ(t.name, "testtrace");
    std::uint64_t sent = 0, received = 0;
    for (std::uint32_t r = 0; r < 4; ++r) {
        // a ring: Isend to r+1, Recv from r-1, Wait, Allreduce of one MPI_INT (4 B)
        const std::map<std::string, int> expected{{"barrier", 1},   {"isend", 1},
                                                  {"recv", 1},      {"wait", 1},
                                                  {"allreduce", 1}, {"unmodeled", 4}};
        EXPECT_EQ(kinds(t, r, false), expected) << "rank " << r;
        Time prev;
        for (const Record& rec : records(t, r)) {
            ASSERT_TRUE(rec.timed);
            EXPECT_EQ(rec.start, prev) << "rank " << r << ": records tile the timeline";
            prev = rec.end;
            if (rec.kind == mpi::OpKind::Isend) {
                EXPECT_EQ(rec.peer, static_cast<std::int32_t>((r + 1) % 4));
                EXPECT_EQ(rec.tag, 1337);
                sent += rec.bytes;
            }
            if (rec.kind == mpi::OpKind::Recv) {
                EXPECT_EQ(rec.peer, static_cast<std::int32_t>((r + 3) % 4));
                received += rec.bytes;
            }
            if (rec.kind == mpi::OpKind::Collective) {
                EXPECT_EQ(rec.bytes, rec.coll == mpi::CollOp::Barrier ? 0u : 4u);
            }
        }
    }
    EXPECT_EQ(sent, 16u);
    EXPECT_EQ(received, 16u);
    EXPECT_EQ(report.unmodeled.at("MPI_Init"), 4u);
    EXPECT_EQ(report.unmodeled.at("MPI_Finalize"), 4u);
    // rank 0's barrier: 1296777956.737712 s to .739659 s, the origin being the earliest call
    // start of all ranks (rank 0's MPI_Init at .737669)
    const auto r0 = records(t, 0);
    const auto barrier = std::find_if(
        r0.begin(), r0.end(), [](const Record& r) { return r.kind == mpi::OpKind::Collective; });
    EXPECT_EQ(barrier->start, Time::us(43));
    EXPECT_EQ(barrier->end, Time::us(1990));
}

// ---- a hand-encoded trace: the layout as sst-dumpi documents it ------------------------------

class Encoder {
  public:
    void u8(std::uint64_t v) { b_.push_back(static_cast<char>(v & 0xff)); }
    void u16(std::uint64_t v) { put(v, 2); }
    void u32(std::uint64_t v) { put(v, 4); }
    void u64(std::uint64_t v) { put(v, 8); }
    void put(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) b_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    }
    void text(const std::string& s) {
        u32(s.size());
        b_ += s;
    }
    // label, mask (thread id + wall times + statuses), thread 0, wall start/stop (us)
    void call(std::uint16_t label, std::uint32_t start_us, std::uint32_t end_us) {
        u16(label);
        u8(0x40 | 0x08 | 0x03);
        u16(0);
        u16(start_us / 1'000'000);
        u32((start_us % 1'000'000) * 1000);
        u16(end_us / 1'000'000);
        u32((end_us % 1'000'000) * 1000);
    }
    std::size_t size() const { return b_.size(); }
    std::string& bytes() { return b_; }

  private:
    std::string b_;
};

constexpr std::uint64_t kMagic = 0xffaadd44554d5049ULL;

std::string finish(Encoder& e, std::size_t body);

// One rank's file of the synthetic 2-rank trace (labels from dumpi/common/funclabels.h).
std::string encode_rank(int rank) {
    Encoder e;
    e.u64(kMagic);
    const std::size_t body = e.size();
    e.u32(0);    // cpu second offset
    e.u32(100);  // wall second offset
    std::uint32_t t = 10;
    auto next = [&](std::uint16_t label) {
        e.call(label, t, t + 5);
        t += 10;
    };
    next(86);  // MPI_Comm_split(WORLD, color 7, key -rank, newcomm 4)
    e.u16(2);
    e.u32(7);
    e.u32(static_cast<std::uint32_t>(-rank));
    e.u16(4);
    next(53);  // MPI_Bcast(3 x MPI_DOUBLE, root 1, comm 4)
    e.u32(3);
    e.u16(1);
    e.u32(1);
    e.u16(4);
    next(rank == 0 ? 8 : 12);  // Isend to 1 / Irecv from 0: 5 x MPI_INT, tag 9, request 77
    e.u32(5);
    e.u16(0);
    e.u32(rank == 0 ? 1 : 0);
    e.u32(9);
    e.u16(2);
    e.u32(77);
    next(rank == 0 ? 8 : 12);  // a second one, request 78
    e.u32(5);
    e.u16(0);
    e.u32(rank == 0 ? 1 : 0);
    e.u32(9);
    e.u16(2);
    e.u32(78);
    next(18);  // MPI_Waitall(2, [77, 78], statuses: none written)
    e.u32(2);
    e.u32(2);
    e.u32(77);
    e.u32(78);
    e.u32(0);
    next(55);  // MPI_Gatherv: rank 1 sends 2 x MPI_INT to root 0 of WORLD; root gets [3, 2]
    e.u32(rank);
    e.u32(2);
    e.u32(rank == 0 ? 3 : 2);
    e.u16(0);
    e.u32(0);
    e.u16(2);
    if (rank == 0) {
        e.u32(2);  // recvcounts
        e.u32(3);
        e.u32(2);
        e.u32(2);  // displs
        e.u32(0);
        e.u32(3);
    }
    e.u16(0);   // recvtype
    next(230);  // MPI_File_open(WORLD, "out.dat", mode, info, file 5)
    e.u16(2);
    e.text("out.dat");
    e.u8(1);
    e.u16(0);
    e.u16(5);
    next(244);  // MPI_File_write_at(file 5, offset 4096, 8 x MPI_DOUBLE, status)
    e.u16(5);
    e.u64(4096);
    e.u32(8);
    e.u16(1);
    e.u32(0);
    next(231);  // MPI_File_close(5)
    e.u16(5);
    next(82);  // MPI_Comm_rank(4, rank)
    e.u16(4);
    e.u32(1 - rank);
    next(40);  // MPI_Type_struct: before 0.6.9 one int stands for the displacements
    e.u32(2);
    e.u32(2);  // lengths
    e.u32(1);
    e.u32(2);
    e.u32(0);  // displacements (one int)
    e.u32(2);  // old types (u16 each)
    e.u16(0);
    e.u16(1);
    e.u16(20);  // new type
    next(291);  // a profiled user function's entry marker: no record
    e.u64(0x400123);
    return finish(e, body);
}

// The end of a rank's file after its calls: END_OF_STREAM, header, sizes and index.
std::string finish(Encoder& e, std::size_t body) {
    e.u16(293);  // END_OF_STREAM
    const std::size_t header = e.size();
    e.u8(0);  // version 0.6.3
    e.u8(6);
    e.u8(3);
    e.u64(100);
    e.u16(4);
    e.bytes() += "host";
    e.u16(4);
    e.bytes() += "user";
    e.u32(0);  // mesh
    e.u32(0);
    const std::size_t sizes = e.size();
    e.u32(3);  // datatype 0: MPI_INT 4 B, 1: MPI_DOUBLE 8 B, 2: 1 B
    e.u32(4);
    e.u32(8);
    e.u32(1);
    // index
    e.u64(kMagic);
    e.u64(sizes);
    e.u64(0);
    e.u64(0);
    e.u64(header);
    e.u64(body);
    e.u64(0);
    e.u64(0);
    return e.bytes();
}

std::string write_synthetic(const std::string& dir) {
    for (int r = 0; r < 2; ++r)
        std::ofstream(dir + "/syn-000" + std::to_string(r) + ".bin", std::ios::binary)
            << encode_rank(r);
    std::ofstream(dir + "/syn.meta") << "hostname=h\nnumprocs=2\nfileprefix=syn\nversion=0\n";
    return dir + "/syn.meta";
}

TEST(Dumpi, SplitWaitallVCollectivesAndMpiIoOfAHandEncodedTrace) {
    const std::string dir = temp_dir();
    ReadReport report;
    const Trace t = read_with(dumpi_reader(), write_synthetic(dir), report);
    ASSERT_EQ(t.ranks(), 2u);
    for (std::uint32_t r = 0; r < 2; ++r) {
        const auto recs = records(t, r);
        std::vector<Record> calls;
        for (const Record& x : recs)
            if (x.kind != mpi::OpKind::Compute) calls.push_back(x);
        ASSERT_EQ(calls.size(), 11u) << r;
        // communicator 4 of the trace is handle 1: the split and the bcast on it
        EXPECT_EQ(calls[0].kind, mpi::OpKind::CommSplit);
        EXPECT_EQ(calls[0].color, 7);
        EXPECT_EQ(calls[0].key, -static_cast<std::int32_t>(r));
        EXPECT_EQ(calls[0].newcomm, 1u);
        EXPECT_EQ(calls[1].coll, mpi::CollOp::Bcast);
        EXPECT_EQ(calls[1].comm, 1);
        EXPECT_EQ(calls[1].root, 1);
        EXPECT_EQ(calls[1].bytes, 24u);
        EXPECT_EQ(calls[2].kind, r == 0 ? mpi::OpKind::Isend : mpi::OpKind::Irecv);
        EXPECT_EQ(calls[2].bytes, 20u);
        EXPECT_EQ(calls[2].peer, r == 0 ? 1 : 0);
        EXPECT_EQ(calls[2].handle, 0u);
        EXPECT_EQ(calls[3].handle, 1u);
        EXPECT_EQ(calls[4].kind, mpi::OpKind::Waitall);
        EXPECT_EQ(calls[4].handle, 0u);
        EXPECT_EQ(calls[4].count, 2u);
        EXPECT_EQ(calls[5].coll, mpi::CollOp::Gatherv);
        ASSERT_GE(calls[5].counts, 0);
        // one count list for the call, from the root's recvcounts x MPI_INT
        EXPECT_EQ(t.count_lists[static_cast<std::size_t>(calls[5].counts)],
                  (std::vector<std::uint64_t>{12, 8}));
        EXPECT_EQ(calls[6].kind, mpi::OpKind::FileOpen);
        EXPECT_EQ(calls[6].file, 5u);
        EXPECT_EQ(t.strings[static_cast<std::size_t>(calls[6].path)], "out.dat");
        EXPECT_EQ(calls[7].kind, mpi::OpKind::FileWriteAt);
        EXPECT_EQ(calls[7].bytes, 64u);
        EXPECT_EQ(calls[7].offset, 4096u);
        EXPECT_EQ(calls[8].kind, mpi::OpKind::FileClose);
        EXPECT_EQ(calls[9].kind, mpi::OpKind::Unmodeled);
        // wall times: second offset 100 s; origin = the first call's start (100.000010 s)
        EXPECT_EQ(calls[0].start, Time::zero());
        EXPECT_EQ(calls[0].end, Time::us(5));
        EXPECT_EQ(calls[9].start, Time::us(90));
        EXPECT_EQ(calls[10].kind, mpi::OpKind::Unmodeled);
        EXPECT_EQ(t.strings[static_cast<std::size_t>(calls[10].path)], "MPI_Type_struct");
        EXPECT_EQ(calls[10].start, Time::us(100));
        // the marker at 110 us is part of the compute: the rank ends with Type_struct
        EXPECT_EQ(recs.back().kind, mpi::OpKind::Unmodeled);
    }
    EXPECT_EQ(report.unmodeled.at("MPI_Comm_rank"), 2u);
    EXPECT_EQ(report.unmodeled.at("MPI_Type_struct"), 2u);
}

// MPI_Cart_create (DUMPI is MPI-2: the only topology constructor it records that the simulator
// models) becomes a cart_create record, and a call on the grid's communicator is modelled.
TEST(Dumpi, CartCreateIsATopology) {
    const std::string dir = temp_dir();
    for (int r = 0; r < 2; ++r) {
        Encoder e;
        e.u64(kMagic);
        const std::size_t body = e.size();
        e.u32(0);
        e.u32(100);
        e.call(99, 10, 15);  // MPI_Cart_create(WORLD, 1 dim, [2], [1], reorder 0, newcomm 6)
        e.u16(2);
        e.u32(1);
        e.u32(1);
        e.u32(2);
        e.u32(1);
        e.u32(1);
        e.u32(0);
        e.u16(6);
        e.call(53, 20, 25);  // MPI_Bcast(3 x MPI_DOUBLE, root 0, comm 6)
        e.u32(3);
        e.u16(1);
        e.u32(0);
        e.u16(6);
        std::ofstream(dir + "/cart-000" + std::to_string(r) + ".bin", std::ios::binary)
            << finish(e, body);
    }
    std::ofstream(dir + "/cart.meta") << "hostname=h\nnumprocs=2\nfileprefix=cart\nversion=0\n";
    ReadReport report;
    const Trace t = read_with(dumpi_reader(), dir + "/cart.meta", report);
    for (std::uint32_t r = 0; r < 2; ++r) {
        std::vector<Record> calls;
        for (const Record& x : records(t, r))
            if (x.kind != mpi::OpKind::Compute) calls.push_back(x);
        ASSERT_EQ(calls.size(), 2u);
        EXPECT_EQ(calls[0].kind, mpi::OpKind::CartCreate);
        ASSERT_GE(calls[0].counts, 0);
        EXPECT_EQ(t.count_lists[static_cast<std::size_t>(calls[0].counts)],
                  (std::vector<std::uint64_t>{1, 2, 1, 0}));
        EXPECT_EQ(calls[1].coll, mpi::CollOp::Bcast);
        EXPECT_EQ(calls[1].comm, static_cast<std::int32_t>(calls[0].newcomm));
    }
    EXPECT_TRUE(report.unmodeled.empty());
}

TEST(Dumpi, BadFilesAreOneLineErrorsNamingFileAndOffset) {
    const std::string dir = temp_dir();
    const std::string meta = write_synthetic(dir);
    ReadReport report;
    auto message = [&](const std::string& path) -> std::string {
        try {
            (void)read_with(dumpi_reader(), path, report);
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    };
    // cut inside rank 1's records: the index is gone, so the file has no DUMPI index
    {
        std::string bytes = encode_rank(1);
        std::ofstream(dir + "/syn-0001.bin", std::ios::binary) << bytes.substr(0, 60);
        const std::string m = message(meta);
        EXPECT_NE(m.find("syn-0001.bin"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    // an array longer than the file: a truncation at a byte offset, the record named, and
    // nothing allocated for the billion requests it claims
    {
        Encoder e;
        e.u64(kMagic);
        e.u32(0);
        e.u32(100);
        e.call(18, 10, 15);  // MPI_Waitall
        e.u32(2);
        e.u32(1'000'000'000);
        for (int i = 0; i < 8; ++i) e.u64(i == 0 ? kMagic : i == 5 ? 8 : 0);
        std::ofstream(dir + "/syn-0001.bin", std::ios::binary) << e.bytes();
        const std::string m = message(meta);
        EXPECT_NE(m.find("syn-0001.bin"), std::string::npos) << m;
        EXPECT_NE(m.find("expected 4000000000 more bytes at byte offset"), std::string::npos) << m;
        EXPECT_NE(m.find("record 0, MPI_Waitall"), std::string::npos) << m;
    }
    // a call that returns before it starts
    {
        Encoder e;
        e.u64(kMagic);
        e.u32(0);
        e.u32(100);
        e.call(81, 20, 10);  // MPI_Comm_size, wall 100.000020 s to 100.000010 s
        e.u16(2);
        e.u32(2);
        for (int i = 0; i < 8; ++i) e.u64(i == 0 ? kMagic : i == 5 ? 8 : 0);
        std::ofstream(dir + "/syn-0001.bin", std::ios::binary) << e.bytes();
        const std::string m = message(meta);
        EXPECT_NE(m.find("the call returns at wall time 100000010000 ns, before it starts at "
                         "100000020000 ns"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("record 0, MPI_Comm_size"), std::string::npos) << m;
    }
    // a label without a known layout
    {
        Encoder e;
        e.u64(kMagic);
        e.u32(0);
        e.u32(100);
        e.call(128, 10, 15);  // MPI_Pcontrol: DUMPI never writes it
        for (int i = 0; i < 8; ++i) e.u64(i == 0 ? kMagic : i == 5 ? 8 : 0);
        std::ofstream(dir + "/syn-0001.bin", std::ios::binary) << e.bytes();
        const std::string m = message(meta);
        EXPECT_NE(m.find("label 128"), std::string::npos) << m;
    }
    // a rank file missing, a bad numprocs, not a DUMPI file
    fs::remove(dir + "/syn-0001.bin");
    EXPECT_NE(message(meta).find("rank 1"), std::string::npos);
    std::ofstream(dir + "/bad.meta") << "numprocs=two\nfileprefix=syn\n";
    EXPECT_NE(message(dir + "/bad.meta").find("numprocs"), std::string::npos);
    std::ofstream(dir + "/syn-0001.bin") << "hello";
    EXPECT_NE(message(meta).find("not a DUMPI trace"), std::string::npos);
}

TEST(Dumpi, DetectedByTheMetaFile) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    EXPECT_EQ(load_trace(kDir + "/testtrace.meta", "auto", {}, report).format, "dumpi");
    EXPECT_EQ(load_trace(kDir, "dumpi", {}, report).ranks(), 4u) << "a folder with one .meta";
    // one rank's file stands for the whole trace (its .meta beside it)
    EXPECT_EQ(load_trace(kDir + "/testtrace-0002.bin", "auto", {}, report).ranks(), 4u);
    const std::string dir = temp_dir();
    fs::copy_file(kDir + "/testtrace-0000.bin", dir + "/lonely-0000.bin");
    EXPECT_THROW((void)load_trace(dir + "/lonely-0000.bin", "auto", {}, report), InputError);
}

}  // namespace CLUSTERSIM_TEST_FILE
