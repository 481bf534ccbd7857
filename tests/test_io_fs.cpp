// The file system end to end: clients, striping, servers, caches and disks driven by the
// MPI runtime over the packet network, checked against closed forms and invariants.
#include <gtest/gtest.h>

#include <map>

#include "io_fixtures.hpp"
#include "run/report.hpp"
#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

using mpi::OpKind;
constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
const std::string kFile = "data.bin";

// One rank opens the file, writes `bytes` from offset 0 in `transfer` calls, closes it.
std::vector<mpi::Op> sequential_write(std::uint64_t bytes, std::uint64_t transfer) {
    std::vector<mpi::Op> ops{file_open(0, &kFile)};
    for (std::uint64_t off = 0; off < bytes; off += transfer)
        ops.push_back(file_op(OpKind::FileWrite)), ops.back().bytes = transfer;
    ops.push_back(file_op(OpKind::FileClose));
    return ops;
}

double rel_err(double got, double want) {
    return std::abs(got - want) / want;
}

// hdd: one average access (10 ms seek + half a rotation at 7,200 rpm) before the first byte.
constexpr double kAccess = 0.010 + 30.0 / 7200.0;

TEST(IoFs, DiskBoundWriteTakesSizeOverDiskRatePlusOneAccess) {
    // 1 GB/s network, 50 MB/s disk: the disk is the bottleneck; data streams in chunks, so
    // the network only adds the first chunk's trip.
    const auto t = io_model(
        2, "1GB/s", R"(<io-server node="n1"><disk model="hdd" rate="50MB/s"/></io-server>)");
    ScriptProgram p({sequential_write(GiB, GiB)});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    const double want = static_cast<double>(GiB) / 50e6 + kAccess;
    EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.01) << res.simulated.seconds();
    EXPECT_GE(res.simulated.seconds(), want);
    ASSERT_EQ(res.io.servers.size(), 1u);
    EXPECT_EQ(res.io.servers[0].average_seeks, 1u);
    EXPECT_EQ(res.io.servers[0].track_seeks, 0u);
    EXPECT_EQ(res.io.servers[0].disk_bytes_written, GiB);
    EXPECT_EQ(res.ranks[0].io_bytes_written, GiB);
}

TEST(IoFs, NetworkBoundWhenTheDiskIsFaster) {
    // 100 MB/s links, a 1 GB/s disk: the network paces the write.
    const auto t = io_model(
        2, "100MB/s", R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    ScriptProgram p({sequential_write(GiB, GiB)});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    const double want = static_cast<double>(GiB) / 100e6;
    EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.01) << res.simulated.seconds();
    EXPECT_GE(res.simulated.seconds(), want);
}

TEST(IoFs, WriteBehindFitsAtNetworkSpeedAndPaysDiskSpeedForTheExcess) {
    const std::string server = R"(<io-server node="n1"><cache model="write_behind" memory="256MiB"/>
        <disk model="hdd" rate="50MB/s"/></io-server>)";
    const auto t = io_model(2, "1GB/s", server);
    {  // 128 MiB fits in the 256 MiB cache: network speed
        ScriptProgram p({sequential_write(128 * MiB, 128 * MiB)});
        const auto res = simulate_io(t, ranks_on(t, 1), p);
        const double want = static_cast<double>(128 * MiB) / 1e9;
        EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.02) << res.simulated.seconds();
    }
    {  // 1 GiB through 256 MiB: memory fills while the disk drains at its rate, then the
       // client waits for the disk; the write ends after (W - M) / disk rate.
        ScriptProgram p({sequential_write(GiB, GiB)});
        const auto res = simulate_io(t, ranks_on(t, 1), p);
        const double want = static_cast<double>(GiB - 256 * MiB) / 50e6 + kAccess;
        EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.01) << res.simulated.seconds();
        EXPECT_GT(res.io.servers[0].write_stalls, 0u);
    }
}

// A cached write costs size / copy-rate more (issue 23): one chunk (up to the 1 MiB
// granularity) is acknowledged after its copy into server memory; 160 B and 1 MiB at 1 GB/s.
TEST(IoFs, WriteBehindCopyRateAddsSizeOverRate) {
    const auto model = [](const std::string& copy) {
        return io_model(2, "1GB/s",
                        R"(<io-server node="n1"><cache model="write_behind" memory="1GiB")" + copy +
                            R"(/><disk model="simple" rate="50MB/s"/></io-server>)");
    };
    for (const std::uint64_t bytes : {std::uint64_t{160}, MiB}) {
        ScriptProgram a({sequential_write(bytes, bytes)});
        const auto plain = simulate_io(model(""), ranks_on(model(""), 1), a);
        const auto t = model(R"( copy-rate="1GB/s")");
        ScriptProgram b({sequential_write(bytes, bytes)});
        const auto copied = simulate_io(t, ranks_on(t, 1), b);
        EXPECT_EQ(copied.simulated - plain.simulated, Time::ns(static_cast<std::int64_t>(bytes)))
            << bytes;
        EXPECT_EQ(copied.ranks[0].io_bytes_written, bytes);
    }
}

// Open and close by P ranks cost open + (P - 1) open-per-rank and close + (P - 1)
// close-per-rank; with collective-close="yes" the close waits for the last rank like the open.
TEST(IoFs, MetadataGrowsWithTheCommunicatorAndCloseCanSynchronize) {
    const auto model = [](const std::string& extra) {
        return io_model(4, "1GB/s",
                        R"(<io-server node="n3"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system open="10us" close="4us" open-per-rank="2us" close-per-rank="1us" )" +
                            extra + "/>");
    };
    for (const int p : {1, 2, 3}) {
        const auto t = model("");
        std::vector<std::vector<mpi::Op>> script(static_cast<std::size_t>(p));
        for (auto& ops : script) ops = {file_open(0, &kFile), file_op(OpKind::FileClose)};
        ScriptProgram prog(script);
        const auto res = simulate_io(t, ranks_on(t, p), prog);
        EXPECT_EQ(res.simulated, Time::us(10 + 2 * (p - 1)) + Time::us(4 + (p - 1))) << p;
    }
    // Rank 1 computes 1 ms (1,000,000 instructions at 1 G/s) before its close.
    std::vector<std::vector<mpi::Op>> script = {
        {file_open(0, &kFile), file_op(OpKind::FileClose)},
        {file_open(0, &kFile), compute(1'000'000), file_op(OpKind::FileClose)}};
    const Time open = Time::us(12), close = Time::us(5);
    {
        const auto t = model("");
        ScriptProgram prog(script);
        const auto res = simulate_io(t, ranks_on(t, 2), prog);
        EXPECT_EQ(res.ranks[0].finish, open + close);  // alone
        EXPECT_EQ(res.ranks[1].finish, open + Time::ms(1) + close);
    }
    {
        const auto t = model(R"(collective-close="yes")");
        ScriptProgram prog(script);
        const auto res = simulate_io(t, ranks_on(t, 2), prog);
        EXPECT_EQ(res.ranks[0].finish, open + Time::ms(1) + close);  // waited for rank 1
        EXPECT_EQ(res.ranks[1].finish, open + Time::ms(1) + close);
    }
}

// request-overhead: an independent write to n servers costs n times it more.
TEST(IoFs, RequestOverheadPerServerRequest) {
    const auto model = [](const std::string& extra) {
        return io_model(3, "1GB/s",
                        R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>
        <io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system stripe="64KiB" )" +
                            extra + "/>");
    };
    for (const std::uint64_t bytes : {std::uint64_t{160}, 128 * KiB}) {
        const int requests = bytes > 64 * KiB ? 2 : 1;
        ScriptProgram a({sequential_write(bytes, bytes)});
        const auto t0 = model("");
        const auto plain = simulate_io(t0, ranks_on(t0, 1), a);
        ScriptProgram b({sequential_write(bytes, bytes)});
        const auto t1 = model(R"(request-overhead="7us")");
        const auto charged = simulate_io(t1, ranks_on(t1, 1), b);
        EXPECT_EQ(charged.simulated - plain.simulated, requests * Time::us(7)) << bytes;
    }
}

// The PVFS2 request path (issue 23 part 4). A 256-byte control message from a rank (n0's
// socket) to a server (n1's) crosses 6 links of 1 us and 1 GB/s (s0-mem0, mem0-nic,
// nic-switch and back), store and forward: one way 6 (1 us + 256 ns).
constexpr Time kControlOneWay = 6 * (Time::us(1) + Time::ns(256));

// open-requests="N": once all ranks have entered, the first rank makes N request/response
// round trips to the metadata server before the open's cost: N round trips more, exactly.
TEST(IoFs, OpenRequestsCostRoundTripsToTheMetadataServer) {
    const auto model = [](const std::string& extra) {
        return io_model(3, "1GB/s",
                        R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system open="10us" )" +
                            extra + "/>");
    };
    for (const int ranks : {1, 2}) {
        std::vector<std::vector<mpi::Op>> script(static_cast<std::size_t>(ranks));
        for (auto& ops : script) ops = {file_open(0, &kFile), file_op(OpKind::FileClose)};
        ScriptProgram a(script);
        const auto t0 = model("");
        const auto plain = simulate_io(t0, ranks_on(t0, ranks), a);
        EXPECT_EQ(plain.simulated, Time::us(10)) << ranks;
        for (const std::uint32_t n : {1u, 3u}) {
            ScriptProgram b(script);
            const auto t = model(fmt::format(R"(open-requests="{}")", n));
            const auto res = simulate_io(t, ranks_on(t, ranks), b);
            EXPECT_EQ(res.simulated - plain.simulated,
                      static_cast<std::int64_t>(2 * n) * kControlOneWay)
                << ranks << " ranks, " << n << " round trips";
            for (const auto& r : res.ranks) EXPECT_EQ(r.finish, res.simulated);
        }
    }
}

// open-collectives="yes": ROMIO's broadcast of the handle and allreduce of the result, as
// binomial trees of 256-byte messages between the ranks (rank to rank: the same 6 links).
// 2 ranks: broadcast, reduce, broadcast = 3 one-way trips. 4 ranks: the broadcast reaches
// rank 3 through rank 1 (2 trips), the reduce comes back the same way (2), the broadcast
// again (2): 6 trips; the root's second message of each broadcast leaves 256 ns after its
// first and is not on the longest path. The metadata round trips come first.
TEST(IoFs, OpenCollectivesCostTheirTreesOneWayTrips) {
    const auto model = [](const std::string& extra) {
        return io_model(5, "1GB/s",
                        R"(<io-server node="n4"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system open="10us" open-collectives="yes" )" +
                            extra + "/>");
    };
    for (const auto& [ranks, requests, trips] :
         {std::tuple{1, 0, 0}, std::tuple{2, 0, 3}, std::tuple{4, 0, 6}, std::tuple{4, 1, 8}}) {
        std::vector<std::vector<mpi::Op>> script(static_cast<std::size_t>(ranks));
        for (auto& ops : script) ops = {file_open(0, &kFile), file_op(OpKind::FileClose)};
        ScriptProgram prog(script);
        const auto t = model(fmt::format(R"(open-requests="{}")", requests));
        const auto res = simulate_io(t, ranks_on(t, ranks), prog);
        EXPECT_EQ(res.simulated, Time::us(10) + trips * kControlOneWay)
            << ranks << " ranks, " << requests << " metadata round trips";
        for (const auto& r : res.ranks) EXPECT_EQ(r.finish, res.simulated);
    }
}

// handshake="yes": a write share above small-io waits for the server's response before its
// data leaves; one at or below it goes with the request as before. One rank, one server,
// write-behind (acknowledged on arrival): the data of a 128 KiB write starts one round trip
// later instead of behind the 256-byte request on the first link, so it ends exactly
// 2 one-way trips less 256 ns later; a 4 KiB write (small I/O) costs the same.
TEST(IoFs, HandshakeDelaysTheDataByTheRequestsRoundTrip) {
    const auto model = [](const std::string& extra) {
        return io_model(2, "1GB/s",
                        R"(<io-server node="n1"><cache model="write_behind" memory="1GiB"/>
        <disk model="simple" rate="1GB/s"/></io-server>
        <file-system small-io="16KiB" )" +
                            extra + "/>");
    };
    for (const std::uint64_t bytes : {4 * KiB, 16 * KiB, 128 * KiB, 3 * MiB}) {
        ScriptProgram a({sequential_write(bytes, bytes)});
        const auto t0 = model("");
        const auto plain = simulate_io(t0, ranks_on(t0, 1), a);
        ScriptProgram b({sequential_write(bytes, bytes)});
        const auto t1 = model(R"(handshake="yes")");
        const auto shaken = simulate_io(t1, ranks_on(t1, 1), b);
        const Time want = bytes > 16 * KiB ? 2 * kControlOneWay - Time::ns(256) : Time::zero();
        EXPECT_EQ(shaken.simulated - plain.simulated, want) << bytes;
        EXPECT_EQ(shaken.ranks[0].io_bytes_written, bytes);
        EXPECT_EQ(shaken.io.servers[0].bytes_written, bytes);
    }
}

// connect-round-trips="N": a client connects to a server on its first message to it (PVFS2's
// BMI over TCP). An empty message from n0's socket to n1's crosses the same 6 links of 1 us:
// 6 us one way. One write (small I/O or not, with or without the handshake) ends exactly
// 2·N·6 us later; a second write to the same server pays nothing more; an open's lookup
// (open-requests) is a first message too.
TEST(IoFs, ConnectRoundTripsDelayAClientsFirstMessageToAServer) {
    constexpr Time kEmptyOneWay = 6 * Time::us(1);
    const auto model = [](const std::string& extra) {
        return io_model(2, "1GB/s",
                        R"(<io-server node="n1"><cache model="write_behind" memory="1GiB"/>
        <disk model="simple" rate="1GB/s"/></io-server>
        <file-system small-io="16KiB" open="10us" )" +
                            extra + "/>");
    };
    for (const std::string shake : {"", R"(handshake="yes" )"})
        for (const std::uint64_t bytes : {4 * KiB, 128 * KiB})
            for (const int writes : {1, 2})
                for (const std::uint32_t n : {1u, 2u}) {
                    const auto ops = sequential_write(bytes * writes, bytes);
                    ScriptProgram a({ops});
                    const auto t0 = model(shake);
                    const auto plain = simulate_io(t0, ranks_on(t0, 1), a);
                    ScriptProgram b({ops});
                    const auto t1 = model(shake + fmt::format(R"(connect-round-trips="{}")", n));
                    const auto res = simulate_io(t1, ranks_on(t1, 1), b);
                    EXPECT_EQ(res.simulated - plain.simulated,
                              static_cast<std::int64_t>(2 * n) * kEmptyOneWay)
                        << shake << bytes << " B, " << writes << " writes, " << n;
                    EXPECT_EQ(res.io.servers[0].bytes_written, bytes * writes);
                }
    std::vector<std::vector<mpi::Op>> script = {{file_open(0, &kFile), file_op(OpKind::FileClose)}};
    ScriptProgram a(script), b(script);
    const auto t0 = model(R"(open-requests="1")");
    const auto t1 = model(R"(open-requests="1" connect-round-trips="1")");
    EXPECT_EQ(simulate_io(t1, ranks_on(t1, 1), b).simulated,
              simulate_io(t0, ranks_on(t0, 1), a).simulated + 2 * kEmptyOneWay);
}

TEST(IoFs, BadMetadataAttributesNameTheLine) {
    for (const std::string bad :
         {R"(collective-close="maybe")", R"(open-per-rank="3")", R"(request-overhead="-1us")",
          R"(handshake="sometimes")", R"(small-io="-1KiB")", R"(open-requests="1001")",
          R"(open-requests="two")", R"(open-collectives="1")", R"(connect-round-trips="0")",
          R"(connect-round-trips="65")", R"(connect-round-trips="yes")"}) {
        try {
            (void)io_model(2, "1GB/s",
                           R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>
            <file-system )" + bad +
                               "/>");
            ADD_FAILURE() << "accepted " << bad;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("io-test.xml:"), std::string::npos) << e.what();
        }
    }
}

TEST(IoFs, SyncWaitsForWriteBehindToReachTheDisk) {
    const std::string server = R"(<io-server node="n1"><cache model="write_behind" memory="1GiB"/>
        <disk model="hdd" rate="50MB/s"/></io-server>
        <file-system sync="1ms"/>)";
    const auto t = io_model(2, "1GB/s", server);
    auto ops = sequential_write(100 * MiB, 100 * MiB);
    ops.insert(ops.end() - 1, file_op(OpKind::FileSync));
    ScriptProgram p({ops});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    // Written at network speed, but the sync returns after the disk has it all plus 1 ms.
    const double want = static_cast<double>(100 * MiB) / 50e6 + kAccess + 0.001;
    EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.01) << res.simulated.seconds();
}

// Write-behind data still cached when the last rank finishes is written after the run: the
// disk (simple, 50 MB/s, no access time) takes W / rate from the first chunk's arrival, the
// run ends after W / network rate; what the disk had not written by then is reported as drained
// after the run, and a sync before close leaves nothing to drain.
TEST(IoFs, WriteBehindReportsWhatTheDisksWriteAfterTheRun) {
    const std::string server = R"(<io-server node="n1"><cache model="write_behind" memory="1GiB"/>
        <disk model="simple" rate="50MB/s"/></io-server>)";
    const auto t = io_model(2, "1GB/s", server);
    const std::uint64_t w = 128 * MiB;
    ScriptProgram p({sequential_write(w, w)});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    ASSERT_EQ(res.io.servers.size(), 1u);
    const auto& s = res.io.servers[0];
    EXPECT_EQ(s.disk_bytes_written, w);
    const double net = static_cast<double>(w) / 1e9, disk = static_cast<double>(w) / 50e6;
    EXPECT_LT(rel_err(res.simulated.seconds(), net), 0.02) << res.simulated.seconds();
    // By the end of the run the disk finished at most net * 50 MB/s of it (a request in
    // flight still counts as cached), and at least its first 1 MiB chunk.
    ASSERT_LT(s.drained_bytes, w);
    const double written_by_end = static_cast<double>(w - s.drained_bytes);
    EXPECT_LE(written_by_end, net * 50e6);
    EXPECT_GE(written_by_end, static_cast<double>(MiB));
    EXPECT_LT(rel_err(s.drain_end.seconds(), disk), 0.01) << s.drain_end.seconds();
    EXPECT_GT(s.drain_end, res.simulated);

    auto synced = sequential_write(w, w);
    synced.insert(synced.end() - 1, file_op(OpKind::FileSync));
    ScriptProgram q({synced});
    const auto res2 = simulate_io(t, ranks_on(t, 1), q);
    EXPECT_EQ(res2.io.servers[0].drained_bytes, 0u);
    EXPECT_EQ(res2.io.servers[0].disk_bytes_written, w);
    EXPECT_LT(rel_err(res2.simulated.seconds(), disk), 0.01) << res2.simulated.seconds();
}

// The run's one I/O throughput is the data over the slowest rank's time in MPI-IO calls
// (Darshan's agg_perf_by_slowest): two 100 MiB writes at 100 MB/s with 10 s of computation
// between them still give 100 MB/s, where data / run time would give a sixth of it.
TEST(IoFs, ThroughputIsDataOverTheSlowestRanksTimeInMpiIo) {
    const auto t = io_model(
        2, "100MB/s", R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    auto ops = sequential_write(100 * MiB, 100 * MiB);
    ops.insert(ops.end() - 1, compute(10'000'000'000ULL));  // 10 s at 1 G instructions/s
    ops.insert(ops.end() - 1, file_op(OpKind::FileWrite));
    ops[ops.size() - 2].bytes = 100 * MiB;
    ScriptProgram p({ops});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    const run::IoThroughput io = run::io_throughput(res);
    EXPECT_EQ(io.bytes, 200 * MiB);
    EXPECT_EQ(io.rank, 0);
    EXPECT_EQ(io.slowest, res.simulated - Time::s(10));  // all but the computation
    EXPECT_DOUBLE_EQ(io.bytes_per_s, static_cast<double>(200 * MiB) / io.slowest.seconds());
    EXPECT_LT(rel_err(io.bytes_per_s, 100e6), 0.01) << io.bytes_per_s;
}

TEST(IoFs, StripingSplitsDataEvenlyOverServers) {
    // Two servers, 64 KiB stripes: each holds half the file, contiguously in its object, so
    // each disk does one access and streams 512 MiB.
    const std::string servers =
        R"(<io-server nodes="n1 n2"><disk model="hdd" rate="50MB/s"/></io-server>)";
    const auto t = io_model(3, "1GB/s", servers);
    ScriptProgram p({sequential_write(GiB, 64 * MiB)});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    ASSERT_EQ(res.io.servers.size(), 2u);
    for (const auto& s : res.io.servers) {
        EXPECT_EQ(s.bytes_written, GiB / 2);
        EXPECT_EQ(s.disk_bytes_written, GiB / 2);
        EXPECT_EQ(s.average_seeks, 1u);
    }
    // Each call's 32 MiB per server queue behind the previous call's at the disk: the write
    // takes about half the one-server time.
    const double want = static_cast<double>(GiB / 2) / 50e6 + kAccess;
    EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.02) << res.simulated.seconds();
}

TEST(IoFs, BytesWrittenEqualBytesReceivedAndOnDisk) {
    const std::string servers =
        R"(<io-server nodes="n2 n3"><disk model="simple" rate="500MB/s"/></io-server>
           <file-system stripe="1MiB"/>)";
    const auto t = io_model(4, "1GB/s", servers);
    std::vector<std::vector<mpi::Op>> script(2);
    for (int r = 0; r < 2; ++r) {
        script[r].push_back(file_open(0, &kFile));
        for (int i = 0; i < 10; ++i)
            script[r].push_back(file_at(
                OpKind::FileWriteAt, (static_cast<std::uint64_t>(i) * 2 + r) * 3 * MiB, 3 * MiB));
        script[r].push_back(file_op(OpKind::FileClose));
    }
    ScriptProgram p(script);
    const auto res = simulate_io(t, ranks_on(t, 2), p);
    std::uint64_t received = 0, on_disk = 0;
    for (const auto& s : res.io.servers) {
        received += s.bytes_written;
        on_disk += s.disk_bytes_written;
    }
    EXPECT_EQ(res.io.bytes_written, 60 * MiB);
    EXPECT_EQ(received, 60 * MiB);
    EXPECT_EQ(on_disk, 60 * MiB);
    EXPECT_EQ(res.ranks[0].io_bytes_written + res.ranks[1].io_bytes_written, 60 * MiB);
}

TEST(IoFs, ReadPastTheEndIsShortNotACrash) {
    const auto t = io_model(
        2, "1GB/s", R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    ScriptProgram p({{file_open(0, &kFile), file_at(OpKind::FileWriteAt, 0, MiB),
                      file_at(OpKind::FileReadAt, 512 * KiB, 2 * MiB),  // 512 KiB left
                      file_at(OpKind::FileReadAt, 4 * MiB, MiB),        // nothing there
                      file_op(OpKind::FileClose)}});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    EXPECT_EQ(res.ranks[0].io_bytes_read, 512 * KiB);
    EXPECT_EQ(res.io.bytes_read, 512 * KiB);
    const int read_at = static_cast<int>(OpKind::FileReadAt);
    EXPECT_EQ(res.ranks[0].ops[read_at].count, 2u);
    EXPECT_EQ(res.ranks[0].ops[read_at].bytes, 512 * KiB);
}

TEST(IoFs, CloseFreesTheHandleForTheNextOpen) {
    const auto t = io_model(
        2, "1GB/s", R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    ScriptProgram p({{file_open(0, &kFile), file_at(OpKind::FileWriteAt, 0, MiB),
                      file_op(OpKind::FileClose), file_open(0, &kFile),
                      file_at(OpKind::FileReadAt, 0, 2 * MiB), file_op(OpKind::FileClose)}});
    const auto res = simulate_io(t, ranks_on(t, 1), p);
    EXPECT_EQ(res.ranks[0].io_bytes_read, MiB);  // the file kept its size across the reopen
}

TEST(IoFs, ReadOfADeclaredFileReturnsItsData) {
    const auto t = io_model(
        2, "1GB/s", R"(<io-server node="n1"><disk model="simple" rate="100MB/s"/></io-server>)");
    ScriptProgram p({{file_open(0, &kFile), file_at(OpKind::FileReadAt, 0, 100 * MiB),
                      file_op(OpKind::FileClose)}});
    const auto res = simulate_io(t, ranks_on(t, 1), p, {}, {io::FileDecl{kFile, 100 * MiB, 0}});
    EXPECT_EQ(res.ranks[0].io_bytes_read, 100 * MiB);
    const double want = static_cast<double>(100 * MiB) / 100e6;
    EXPECT_LT(rel_err(res.simulated.seconds(), want), 0.02) << res.simulated.seconds();
}

TEST(IoFs, ForwarderRelaysAllTrafficOfItsClients) {
    // n0 writes to the server on n2 through the forwarder n1: the data crosses n1's NIC
    // in and out; without the forwarder it does not touch n1.
    const std::string base =
        R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>)";
    const auto direct = io_model(3, "1GB/s", base);
    const auto forwarded = io_model(3, "1GB/s", base + R"(<io-forwarder node="n1" clients="n0"/>)");
    auto nic_in = [](const topo::Topology& t, const mpi::SimulationResult& res) {
        std::uint64_t b = 0;  // bytes that entered n1's NIC from the switch
        const topo::VertexId nic = t.nodes[1].nic;
        for (topo::EdgeId e = 0; e < t.num_edges(); ++e)
            if (t.target_of(e) == nic) b += res.edge_bytes[e];
        return b;
    };
    ScriptProgram p1({sequential_write(64 * MiB, 8 * MiB)});
    const auto r1 = simulate_io(direct, ranks_on(direct, 1), p1);
    ScriptProgram p2({sequential_write(64 * MiB, 8 * MiB)});
    const auto r2 = simulate_io(forwarded, ranks_on(forwarded, 1), p2);
    EXPECT_EQ(nic_in(direct.topology, r1), 0u);
    EXPECT_GE(nic_in(forwarded.topology, r2), 64 * MiB);
    EXPECT_GT(r2.simulated, r1.simulated);  // an extra store_and_forward hop per message
    EXPECT_EQ(r2.io.servers[0].bytes_written, 64 * MiB);
}

TEST(IoFs, VectorViewMapsToStridedFileExtents) {
    // Two ranks with interleaved views (block 1 MiB, stride 2 MiB) each write 8 MiB: the
    // file is 16 MiB, every byte written once.
    const auto t = io_model(
        3, "1GB/s", R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>)");
    std::vector<std::vector<mpi::Op>> script(2);
    for (int r = 0; r < 2; ++r) {
        script[r] = {file_open(0, &kFile), file_view(r * MiB, MiB, 2 * MiB)};
        mpi::Op w = file_op(OpKind::FileWrite);
        w.bytes = 8 * MiB;
        script[r].push_back(w);
        script[r].push_back(file_at(OpKind::FileReadAt, 0, 100 * MiB));  // short: 8 MiB
        script[r].push_back(file_op(OpKind::FileClose));
    }
    ScriptProgram p(script);
    const auto res = simulate_io(t, ranks_on(t, 2), p);
    EXPECT_EQ(res.io.bytes_written, 16 * MiB);
    // Each rank's view covers 8 MiB of the 16 MiB file (once both writes have finished; the
    // reads start after each rank's own write, so a read may see less if the other write
    // has not finished: both writes are the same size and start together, so both finish
    // before either read).
    EXPECT_EQ(res.ranks[0].io_bytes_read, 8 * MiB);
    EXPECT_EQ(res.ranks[1].io_bytes_read, 8 * MiB);
}

TEST(IoFs, TwoPhaseAsksForConcurrentRanksAndTurnsStridedBlocksIntoDomains) {
    // 4 ranks on 4 nodes each write 64 interleaved 64 KiB blocks (a vector view) in one
    // collective call to one hdd server. Independent: 256 requests of 64 KiB; the fair
    // network delivers them in file order, so the disk hardly seeks. Two-phase: 4
    // aggregators with a contiguous 4 MiB domain each write 1 MiB chunks concurrently, so the
    // disk jumps between domains: fewer, larger requests, but seeks.
    const std::string server =
        R"(<io-server node="n4"><disk model="hdd" rate="50MB/s"/></io-server>
           <file-system stripe="64KiB"/>)";
    const auto t = io_model(5, "1GB/s", server);
    auto run = [&](const std::string& alg) {
        std::vector<std::vector<mpi::Op>> script(4);
        for (int r = 0; r < 4; ++r) {
            script[r] = {file_open(0, &kFile), file_view(r * 64 * KiB, 64 * KiB, 256 * KiB)};
            mpi::Op w = file_op(OpKind::FileWriteAll);
            w.bytes = 64 * 64 * KiB;
            script[r].push_back(w);
            script[r].push_back(file_op(OpKind::FileClose));
        }
        ScriptProgram p(script);
        return simulate_io(t, ranks_on(t, 4), p, {"write_all=" + alg});
    };
    const auto ind = run("independent");
    const auto tp = run("two_phase");
    EXPECT_EQ(ind.io.bytes_written, 16 * MiB);
    EXPECT_EQ(tp.io.bytes_written, 16 * MiB);
    const auto& si = ind.io.servers[0];
    const auto& st = tp.io.servers[0];
    EXPECT_EQ(si.disk_requests, 256u);
    EXPECT_EQ(si.track_seeks + si.average_seeks, 1u);
    EXPECT_EQ(st.disk_requests, 16u);  // 4 domains x 4 chunks of 1 MiB
    EXPECT_GT(st.track_seeks + st.average_seeks, 4u);
    // Both move 16 MiB through one 50 MB/s disk: at least 0.3355 s.
    EXPECT_GE(ind.simulated.seconds(), static_cast<double>(16 * MiB) / 50e6);
    EXPECT_GE(tp.simulated.seconds(), static_cast<double>(16 * MiB) / 50e6);
}

// The scenario of iosys/README.md's scheduler table, scaled down: 8 ranks, 4 per node on
// two client nodes, write interleaved 64 KiB blocks of one shared file (IOR strided: one
// call per block) to 2 hdd servers. Ranks sharing a NIC reach the servers out of file order,
// so a FIFO server seeks; the schedulers that sort or merge must remove most seeks.
struct StridedCase {
    double seconds;
    std::uint64_t seeks, requests;
};
StridedCase strided_case(const std::string& cache, bool collective) {
    const std::string servers = fmt::format(R"(<io-server nodes="n2 n3"><cache model="{}"/>
        <disk model="hdd" rate="50MB/s"/></io-server><file-system stripe="64KiB"/>)",
                                            cache);
    const auto t = io_model(4, "117MB/s", servers);
    std::vector<mpi::RankLocation> ranks;
    for (std::uint32_t r = 0; r < 8; ++r)
        ranks.push_back(
            mpi::RankLocation{r / 4, 0, r % 4, t.topology.nodes[r / 4].sockets[0].vertex});
    std::vector<std::vector<mpi::Op>> script(8);
    for (int r = 0; r < 8; ++r) {
        script[r] = {file_open(0, &kFile), file_view(r * 64 * KiB, 64 * KiB, 8 * 64 * KiB)};
        for (int i = 0; i < 64; ++i) {
            mpi::Op w = file_op(collective ? OpKind::FileWriteAll : OpKind::FileWrite);
            w.bytes = 64 * KiB;
            script[r].push_back(w);
        }
        script[r].push_back(file_op(OpKind::FileClose));
    }
    ScriptProgram p(script);
    const auto res = simulate_io(t, ranks, p, {"write_all=two_phase"});
    StridedCase c{res.simulated.seconds(), 0, 0};
    for (const auto& s : res.io.servers) {
        c.seeks += s.track_seeks + s.average_seeks;
        c.requests += s.disk_requests;
        EXPECT_EQ(s.disk_bytes_written, 16 * MiB);
    }
    return c;
}

TEST(IoFs, SchedulersThatSortOrMergeRemoveSeeksOfInterleavedClients) {
    const auto none = strided_case("none", false);
    const auto agg = strided_case("aggregation", false);
    const auto reo = strided_case("reorder", false);
    const auto tp = strided_case("none", true);
    EXPECT_EQ(none.requests, 512u);
    EXPECT_GT(none.seeks, 512u / 4);  // FIFO: a seek for most requests
    EXPECT_LT(agg.seeks * 10, none.seeks);
    EXPECT_LT(reo.seeks * 10, none.seeks);
    EXPECT_LT(agg.requests, none.requests);  // merged neighbours
    EXPECT_LT(agg.seconds * 2, none.seconds);
    EXPECT_LT(reo.seconds * 2, none.seconds);
    // Two-phase on a FIFO server: each call's 512 KiB is one contiguous range split over two
    // aggregators, so the disk sees it in order.
    EXPECT_LE(tp.seeks, 2u);
    EXPECT_LT(tp.seconds, none.seconds);
}

// Collective MPI-IO calls report the wait for the last member, like every other collective
// (issue 19: a File_write_at_all that waited 15.9 ms for the other rank showed no wait).
// Rank 1 computes 1 ms before each call; rank 0 waits about 1 ms in the open and in the
// two-phase write, rank 1 not at all. A rank that goes ahead with independent I/O waits for
// nobody, and close does not synchronise (ROMIO: each rank pays its close alone).
TEST(IoFs, CollectiveIoReportsTheWaitForTheLastMember) {
    struct Waits final : mpi::OpObserver {
        std::map<std::pair<std::string, int>, Time> waits;
        Time wait(const std::string& op, int rank) const {
            auto it = waits.find(std::make_pair(op, rank));
            return it == waits.end() ? Time::zero() : it->second;
        }
        void op_done(const mpi::OpEvent& e) override {
            waits[std::make_pair(mpi::stat_name(e.kind), e.rank)] += e.wait;
        }
    };
    const auto t = io_model(
        3, "1GB/s", R"(<io-server node="n2"><disk model="hdd" rate="50MB/s"/></io-server>)");
    auto run = [&](const std::string& alg, Waits& w) {
        std::vector<std::vector<mpi::Op>> script(2);
        for (int r = 0; r < 2; ++r) {
            auto delay = [&] {
                if (r == 1) script[r].push_back(compute(1'000'000));  // 1 ms at 1 G instr/s
            };
            delay();
            script[r].push_back(file_open(0, &kFile));
            delay();
            script[r].push_back(file_at(OpKind::FileWriteAtAll, r * 64 * KiB, 64 * KiB));
            delay();
            script[r].push_back(file_op(OpKind::FileClose));
        }
        ScriptProgram p(script);
        mpi::SimulationOptions o;
        o.algorithm_overrides = {"write_at_all=" + alg};
        o.io = io::io_factory(t.io, {});
        o.observer = &w;
        return mpi::simulate(t, ranks_on(t, 2), p, o);
    };
    Waits tp;
    run("two_phase", tp);
    for (const char* op : {"File_open", "File_write_at_all"}) {
        EXPECT_GE(tp.wait(op, 0), Time::us(990)) << op;
        EXPECT_LE(tp.wait(op, 0), Time::us(1010)) << op;
        EXPECT_EQ(tp.wait(op, 1), Time::zero()) << op;
    }
    Waits ind;
    run("independent", ind);
    EXPECT_EQ(ind.wait("File_write_at_all", 0), Time::zero());
    EXPECT_GE(ind.wait("File_open", 0), Time::us(990));
    for (const Waits* w : {&tp, &ind})
        for (int r : {0, 1}) EXPECT_EQ(w->wait("File_close", r), Time::zero());
}

TEST(IoFs, CollectiveWithAMissingRankIsADeadlockNamingIt) {
    const auto t = io_model(
        3, "1GB/s", R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>)");
    mpi::Op w = file_op(OpKind::FileWriteAtAll);
    w.bytes = MiB;
    // Rank 1 returns without the collective write (and without closing).
    ScriptProgram p(
        {{file_open(0, &kFile), w, file_op(OpKind::FileClose)}, {file_open(0, &kFile)}});
    try {
        simulate_io(t, ranks_on(t, 2), p);
        FAIL() << "expected a deadlock";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
        EXPECT_NE(m.find("rank 0 in File_write_at_all (waiting for 1 more rank(s)"),
                  std::string::npos)
            << m;
    }
}

TEST(IoFs, MismatchedCollectiveCallsAreAnError) {
    const auto t = io_model(
        3, "1GB/s", R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>)");
    mpi::Op w = file_op(OpKind::FileWriteAtAll);
    w.bytes = MiB;
    ScriptProgram p({{file_open(0, &kFile), w, file_op(OpKind::FileClose)},
                     {file_open(0, &kFile), file_op(OpKind::FileSync)}});
    try {
        simulate_io(t, ranks_on(t, 2), p);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("MPI_File_sync"), std::string::npos) << m;
        EXPECT_NE(m.find("MPI_File_write_at_all on another rank"), std::string::npos) << m;
    }
}

TEST(IoFs, FileOperationWithoutAFileSystemIsAnError) {
    const auto t = io_model(2, "1GB/s", "");
    ScriptProgram p({{file_open(0, &kFile)}});
    try {
        simulate_io(t, ranks_on(t, 1), p);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no file system"), std::string::npos) << e.what();
    }
}

TEST(IoFs, UnknownCacheOrDiskModelListsTheValidNames) {
    const auto bad_cache = io_model(2, "1GB/s", R"(<io-server node="n1">
        <cache model="lru"/><disk model="simple" rate="1GB/s"/></io-server>)");
    ScriptProgram p({{file_open(0, &kFile)}});
    try {
        simulate_io(bad_cache, ranks_on(bad_cache, 1), p);
        FAIL();
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("io-test.xml:"), std::string::npos) << m;
        EXPECT_NE(m.find("none, write_behind, aggregation, reorder"), std::string::npos) << m;
    }
    const auto bad_disk =
        io_model(2, "1GB/s", R"(<io-server node="n1"><disk model="tape"/></io-server>)");
    try {
        simulate_io(bad_disk, ranks_on(bad_disk, 1), p);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("simple, hdd, ssd"), std::string::npos) << e.what();
    }
}

TEST(IoFs, UnknownCollectiveIoAlgorithmIsAnError) {
    const auto t = io_model(
        2, "1GB/s", R"(<io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    ScriptProgram p({{file_open(0, &kFile)}});
    try {
        simulate_io(t, ranks_on(t, 1), p, {"write_all=fast"});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("independent, two_phase"), std::string::npos)
            << e.what();
    }
}

TEST(IoFs, SameRunTwiceIsIdentical) {
    const std::string servers =
        R"(<io-server nodes="n2 n3"><cache model="reorder"/><disk model="hdd" rate="50MB/s"/></io-server>)";
    const auto t = io_model(4, "1GB/s", servers);
    auto once = [&] {
        std::vector<std::vector<mpi::Op>> script(2);
        for (int r = 0; r < 2; ++r) {
            script[r] = {file_open(0, &kFile), file_view(r * 64 * KiB, 64 * KiB, 128 * KiB)};
            for (int i = 0; i < 32; ++i) {
                mpi::Op w = file_op(OpKind::FileWrite);
                w.bytes = 64 * KiB;
                script[r].push_back(w);
            }
            script[r].push_back(file_op(OpKind::FileClose));
        }
        ScriptProgram p(script);
        return simulate_io(t, ranks_on(t, 2), p);
    };
    const auto a = once(), b = once();
    EXPECT_EQ(a.simulated, b.simulated);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.io.servers[1].track_seeks, b.io.servers[1].track_seeks);
}

// The yes/no attributes of <file-system> (ElementReader::yes_no): "yes" and "no" set and clear
// them; anything else is one line naming the file, the line and the attribute.
TEST(IoFs, YesNoAttributesTakeYesOrNoOnly) {
    const auto model = [](const std::string& attrs) {
        return io_model(2, "1GB/s", "<file-system " + attrs + R"(/>
        <io-server node="n1"><disk model="simple" rate="1GB/s"/></io-server>)");
    };
    const auto on = model(R"(collective-close="yes" handshake="yes" open-collectives="yes")");
    EXPECT_TRUE(on.io.fs.close_collective && on.io.fs.handshake && on.io.fs.open_collectives);
    const auto off = model(R"(collective-close="no" handshake="no" open-collectives="no")");
    EXPECT_FALSE(off.io.fs.close_collective || off.io.fs.handshake || off.io.fs.open_collectives);
    std::vector<std::pair<std::string, std::string>> bad;
    for (const char* attr : {"collective-close", "handshake", "open-collectives"})
        bad.emplace_back(fmt::format(R"({}="on")", attr),
                         fmt::format("<file-system> attribute '{}': 'on' is not valid; expected "
                                     "yes or no",
                                     attr));
    expect_input_errors(bad, "io-test.xml:11", [&](const std::string& a) { (void)model(a); });
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
