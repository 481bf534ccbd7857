// Adding one more of a kind is one class and one registration line, for the kinds kept in
// simulator/registry.hpp's NamedRegistry: this file registers a toy of each kind (collective
// algorithm, app, disk model, cache layer, decision profile, run output, trace reader and
// writer, importer, jitter trace format) from here, through their registries alone (no edit
// anywhere else), lists them with `clustersim list` or `--help`, selects each by name through
// the `clustersim` command line in this process (tools/cli.hpp's main) and checks a number
// each one causes against its closed form. tests/test_registry_toy.cpp
// does the same for the network, NIC, forwarding, CPU and analytic communication models.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collectives/apps.hpp"
#include "collectives/collective.hpp"
#include "collectives/selection.hpp"
#include "import/import.hpp"
#include "inprocess_cli.hpp"
#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "report/outputs.hpp"
#include "simulator/units.hpp"
#include "tools/cli.hpp"
#include "traces/jitter_io.hpp"
#include "traces/reader.hpp"
#include "traces/writer.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim;

// A toy bcast: the root sends its buffer to rank 1, which sends it back (an echo), then the
// root sends it to every other rank in turn. On two ranks it is one round trip.
class ToyEchoBcast final : public mpi::Algorithm {
  public:
    bool step(const mpi::CollArgs& a, std::uint32_t k, mpi::Step& s) const override {
        const std::int32_t vr = a.relative(a.rank);
        if (vr == 0) {  // send, receive the echo, send to the rest
            if (k == 0) s.send(a.absolute(1), a.bytes);
            if (k == 1) s.recv(a.absolute(1), a.bytes);
            if (k == 2)
                for (std::int32_t r = 2; r < a.size; ++r) s.send(a.absolute(r), a.bytes);
            return k < 2 || (k == 2 && a.size > 2);
        }
        if (vr == 1) {  // receive, echo
            if (k == 0) s.recv(a.root, a.bytes);
            if (k == 1) s.send(a.root, a.bytes);
            return k < 2;
        }
        if (k == 0) s.recv(a.root, a.bytes);
        return k == 0;
    }
};

// A toy app: rank 0 sends `size` to rank 1, which sends it back, `bounces` times.
class ToyBounce final : public mpi::App {
  public:
    ToyBounce(std::uint64_t size, std::uint64_t bounces, std::uint32_t ranks)
        : size_(size), bounces_(bounces), step_(ranks, 0) {}
    bool next(std::int32_t rank, mpi::Op& op) override {
        if (rank > 1) return false;
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        if (k == 2 * bounces_) return false;
        op = mpi::Op{};
        op.kind = (k % 2 == 0) == (rank == 0) ? mpi::OpKind::Send : mpi::OpKind::Recv;
        op.peer = 1 - rank;
        op.bytes = size_;
        ++k;
        return true;
    }

  private:
    std::uint64_t size_, bounces_;
    std::vector<std::uint64_t> step_;
};

// A toy disk: every request takes `time`, whatever its size and position.
class ToyFixedDisk final : public io::Disk {
  public:
    explicit ToyFixedDisk(Time time) : time_(time) {}
    Time service(const io::DiskRequest& r) override {
        count(r, time_);
        return time_;
    }

  private:
    Time time_;
};

// A toy cache layer: arrival order, and every chunk goes to the disk `copies` times (a
// mirrored write, a verified read) before it is done.
class ToyCopiesLayer final : public io::CacheLayer {
  public:
    explicit ToyCopiesLayer(std::uint64_t copies) : copies_(copies) {}
    void submit(const io::Chunk& c) override {
        if (!c.write) ++stats_.misses;
        for (std::uint64_t i = 0; i < copies_; ++i) queue_.push_back(c);
        left_[c.id] = copies_;
        host().wake();
    }
    bool next(io::DiskRequest& out, std::uint64_t& token) override {
        if (queue_.empty()) return false;
        const io::Chunk c = queue_.front();
        queue_.pop_front();
        out = io::DiskRequest{c.file, c.offset, c.bytes, c.write};
        token = next_token_++;
        in_service_.emplace(token, c.id);
        return true;
    }
    void disk_done(std::uint64_t token) override {
        const auto it = in_service_.find(token);
        const std::uint64_t id = it->second;
        in_service_.erase(it);
        if (--left_[id] == 0) {
            left_.erase(id);
            host().chunk_done(id);
        }
    }

  private:
    std::uint64_t copies_;
    std::deque<io::Chunk> queue_;
    std::unordered_map<std::uint64_t, std::uint64_t> in_service_;  // token -> chunk id
    std::unordered_map<std::uint64_t, std::uint64_t> left_;        // chunk id -> copies to go
    std::uint64_t next_token_ = 1;
};

// A toy trace format: one line "TOYPP <bytes> <rounds>", a two-rank ping-pong.
class ToyPingPongReader final : public traces::TraceReader {
  public:
    std::string name() const override { return "toy_pingpong"; }
    std::string description() const override {
        return "toy: 'TOYPP BYTES ROUNDS', a two-rank ping-pong";
    }
    bool sniff(const std::string&, const std::string& head) const override {
        return head.starts_with("TOYPP ");
    }
    traces::Trace read(const std::string& path, const traces::ReadOptions&,
                       traces::ReadReport&) const override {
        std::ifstream in(path);
        std::string magic;
        std::uint64_t bytes = 0, rounds = 0;
        if (!(in >> magic >> bytes >> rounds) || magic != "TOYPP" || rounds > 1000)
            throw InputError(path, 1, "expected 'TOYPP BYTES ROUNDS' (at most 1000 rounds)");
        traces::Trace t;
        t.name = "toy";
        t.source = path;
        t.format = name();
        t.resize(2);
        for (std::uint64_t i = 0; i < rounds; ++i)
            for (std::uint32_t rank = 0; rank < 2; ++rank)
                for (const bool first : {true, false}) {
                    traces::Record r;
                    r.kind = first == (rank == 0) ? mpi::OpKind::Send : mpi::OpKind::Recv;
                    r.peer = static_cast<std::int32_t>(1 - rank);
                    r.bytes = bytes;
                    t.append(rank, r);
                }
        return t;
    }
};

// A toy decision profile: the toy echo for bcast, linear for everything else.
mpi::ProfileChoice toy_profile_choice(mpi::CollOp op, std::uint64_t, std::int32_t) {
    return {op == mpi::CollOp::Bcast ? "toy_echo" : "linear", 0};
}

// A toy jitter trace format: "TOYJ <jitter> <compute> <count>", one tuple repeated, in
// cycles (no clock). A trace that is not one tuple repeated cannot be written in it.
jitter::JitterTrace read_toy_periodic(const std::string& data, const std::string& path,
                                      double frequency_hz) {
    std::istringstream in(data);
    std::string magic, rest;
    std::uint64_t jitter = 0, compute = 0, count = 0;
    if (!(in >> magic >> jitter >> compute >> count) || magic != "TOYJ" || (in >> rest) ||
        count == 0 || count > 1'000'000 || compute == 0)
        throw InputError(path, 1,
                         "expected 'TOYJ JITTER COMPUTE COUNT' (cycles; compute above 0, "
                         "count 1 to 1000000)");
    jitter::JitterTrace t;
    t.frequency_hz = frequency_hz;
    t.jitter.assign(count, jitter);
    t.compute.assign(count, compute);
    return t;
}

std::string write_toy_periodic(const jitter::JitterTrace& t, const std::string& path) {
    for (std::size_t i = 1; i < t.size(); ++i)
        if (t.jitter[i] != t.jitter[0] || t.compute[i] != t.compute[0])
            throw InputError(path, 0,
                             fmt::format("toy_periodic holds one tuple repeated; tuple {} differs "
                                         "from the first",
                                         i));
    return fmt::format("TOYJ {} {} {}\n", t.jitter.at(0), t.compute.at(0), t.size());
}

// The registration lines, one per kind.
const bool registered = [] {
    mpi::collective_algorithms().add({mpi::CollOp::Bcast, "toy_echo",
                                      "toy: the root's buffer to rank 1 and back, then to the rest",
                                      std::make_shared<ToyEchoBcast>()});
    mpi::apps().add(mpi::AppInfo{
        "toy_bounce",
        "toy: rank 0 sends `size` to rank 1 and back, `bounces` times",
        {mpi::app_param("size", "size", "", "message size"),
         mpi::app_param("bounces", "count", "2", "round trips")},
        2,
        [](const mpi::AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<mpi::App> {
            return std::make_unique<ToyBounce>(a.size("size"), a.count("bounces"), ranks);
        }});
    io::disk_models().add(
        io::Entry<io::Disk>{"toy_fixed",
                            "toy: every request takes `time`",
                            {{"time", "time", "s", "2ms", "service time of one request"}},
                            [](const io::Params& p) -> std::unique_ptr<io::Disk> {
                                return std::make_unique<ToyFixedDisk>(p.time("time"));
                            }});
    io::cache_models().add(io::Entry<io::CacheLayer>{
        "toy_copies",
        "toy: arrival order, every chunk served `copies` times by the disk",
        {{"copies", "count", "", "2", "disk requests per chunk"}},
        [](const io::Params& p) -> std::unique_ptr<io::CacheLayer> {
            const std::uint64_t copies = p.count("copies");
            if (copies == 0 || copies > 16) p.fail("parameter 'copies' must be 1 to 16");
            return std::make_unique<ToyCopiesLayer>(copies);
        }});
    mpi::mpi_profiles().add(mpi::ProfileEntry{"toy_profile",
                                              "toy: the toy echo for bcast, linear otherwise",
                                              {},
                                              &toy_profile_choice,
                                              {}});
    traces::run_outputs().add(traces::RunOutputEntry{"toy_records",
                                                     "toy: the simulated trace's ranks and records",
                                                     {},
                                                     "toy_records.txt",
                                                     [](const traces::OutputContext& c) {
                                                         std::ofstream(c.dir / "toy_records.txt")
                                                             << c.simulated.ranks() << " "
                                                             << c.simulated.total_events() << "\n";
                                                     }});
    traces::trace_readers().add(std::make_unique<ToyPingPongReader>());
    traces::trace_writers().add(
        traces::WriterEntry{"toy_count",
                            "toy: 'RANKS RECORDS', the trace's size",
                            {},
                            {".toycount"},
                            "",
                            [](const traces::Trace& t, const std::string& path) {
                                std::ofstream(path) << t.ranks() << " " << t.total_events() << "\n";
                            },
                            nullptr});
    traces::importers().add(traces::ImporterEntry{
        "toy_copy",
        "toy: FILE is a clustersim model already; copied as it is",
        {},
        [](const std::string& path, const traces::ImportOptions&) {
            std::ifstream in(path);
            traces::ImportResult r;
            r.xml.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            if (r.xml.empty()) throw InputError(path, 0, "cannot read, or empty");
            r.unmapped.push_back("toy: copied " + std::to_string(r.xml.size()) + " bytes");
            return r;
        }});
    traces::jitter_formats().add(traces::JitterFormatEntry{
        "toy_periodic",
        "toy: 'TOYJ JITTER COMPUTE COUNT', one tuple repeated",
        {},
        {".toyj"},
        [](const std::string&, std::string_view head) { return head.starts_with("TOYJ "); },
        &read_toy_periodic,
        &write_toy_periodic});
    return true;
}();

using clustersim::testing::CliResult;

// `clustersim ARGS...` in this process, where the toys are registered.
CliResult clustersim(std::vector<std::string> args) {
    return clustersim::testing::clustersim_in_process(std::move(args));
}

const std::string kExamples = std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/";
// One way = 3 us + 1000 B / (10^9 B/s) = 4 us on the analytic `simple` network.
const std::string kSimple = "simple:latency=3us,bandwidth=1GB/s";

nlohmann::json run_json(std::vector<std::string> args, const std::string& model) {
    args.insert(args.begin(), {"run", model});
    args.push_back("--json");
    const CliResult r = clustersim(args);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

std::int64_t simulated_ps(const nlohmann::json& j) {
    return j.is_null() ? -1 : j["simulated_time_ps"].get<std::int64_t>();
}

std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream(path) << text;
    return path;
}

TEST(RegistryKinds, ListShowsEveryToy) {
    ASSERT_TRUE(registered);
    const CliResult r = clustersim({"list", "apps", "algorithms", "formats", "caches", "disks",
                                    "writers", "importers", "profiles", "outputs", "jitter"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const std::string toy :
         {"toy_bounce:size=(size),bounces=2", "bcast=toy_echo", "toy_pingpong", "toy_copies",
          "toy_fixed", "toy_count", "toy_copy", "toy_profile", "toy_records", "toy_periodic"})
        EXPECT_NE(r.out.find(toy), std::string::npos) << toy << "\n" << r.out;
    // `list models` prints the I/O toys' parameters from their ParamInfo.
    const CliResult m = clustersim({"list", "models"});
    ASSERT_EQ(m.code, 0) << m.err;
    EXPECT_NE(m.out.find("    time  service time of one request (time, default 2ms)\n"),
              std::string::npos)
        << m.out;
    EXPECT_NE(m.out.find("    copies  disk requests per chunk (count, default 2)\n"),
              std::string::npos)
        << m.out;
    // `run --help` names them too.
    const CliResult h = clustersim({"run", "--help"});
    for (const std::string toy :
         {"toy_bounce", "bcast=toy_echo", "toy_pingpong", "toy_copies", "toy_profile"})
        EXPECT_NE(h.out.find(toy), std::string::npos) << toy << "\n" << h.out;
}

TEST(RegistryKinds, ToyCollectiveAlgorithmIsSelectedByName) {
    ASSERT_TRUE(registered);
    const std::string model = kExamples + "two-nodes.xml";
    // On the packet model (the analytic ones time a whole collective from the bytes it must
    // move, whatever the algorithm), one way is 6 edges of 1 us latency and a 1 us copy of
    // 1000 B at 1 GB/s: 12 us. Two ranks: linear is one message (12 us), the toy a round
    // trip (24 us).
    auto bcast = [&](const std::vector<std::string>& choice) {
        std::vector<std::string> args = {"--app", "bcast:size=1000B", "--ranks",
                                         "2",     "--network",        "packet"};
        args.insert(args.end(), choice.begin(), choice.end());
        return simulated_ps(run_json(args, model));
    };
    EXPECT_EQ(bcast({"--algorithm", "bcast=linear"}), 12'000'000);
    EXPECT_EQ(bcast({"--algorithm", "bcast=toy_echo"}), 24'000'000);
    // A decision profile may choose it: --mpi toy_profile picks it for bcast.
    EXPECT_EQ(bcast({"--mpi", "toy_profile"}), 24'000'000);
    EXPECT_THROW(mpi::collective_algorithms().add(
                     {mpi::CollOp::Bcast, "toy_echo", "again", std::make_shared<ToyEchoBcast>()}),
                 std::logic_error);
    // The key is the operation and the name: reduce has no toy_echo.
    EXPECT_NE(mpi::collective_algorithms().find("bcast=toy_echo"), nullptr);
    EXPECT_EQ(mpi::collective_algorithms().find("reduce=toy_echo"), nullptr);
}

TEST(RegistryKinds, ToyAppTakesItsDefaultFromItsDocumentation) {
    ASSERT_TRUE(registered);
    const std::string model = kExamples + "two-nodes.xml";
    // A round trip is 8 us: 3 bounces 24 us; the documented default, 2, 16 us.
    EXPECT_EQ(simulated_ps(run_json(
                  {"--app", "toy_bounce:size=1000B,bounces=3", "--network", kSimple}, model)),
              24'000'000);
    EXPECT_EQ(
        simulated_ps(run_json({"--app", "toy_bounce:size=1000B", "--network", kSimple}, model)),
        16'000'000);
    const CliResult missing = clustersim({"run", model, "--app", "toy_bounce"});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("missing parameter 'size' (message size)"), std::string::npos)
        << missing.err;
}

// io-strided.xml with its disk line replaced by `disk`.
std::string io_model(const std::string& disk, const std::string& file) {
    std::ifstream in(kExamples + "io-strided.xml");
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t at = xml.find("<disk model=\"hdd\"");
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) xml.replace(at, xml.find("/>", at) + 2 - at, disk);
    return temp_file(file, xml);
}

TEST(RegistryKinds, ToyDiskAndCacheAreSelectedByName) {
    ASSERT_TRUE(registered);
    const std::vector<std::string> app = {"--app", "io:size=1MiB,transfer=64KiB", "--ranks", "2"};
    auto servers = [&](const std::string& model, std::vector<std::string> more) {
        std::vector<std::string> args = app;
        args.insert(args.end(), more.begin(), more.end());
        const nlohmann::json j = run_json(args, model);
        return j.is_null() ? nlohmann::json::array() : j["io"]["servers"];
    };
    // Every request of the toy disk takes `time`: busy = requests x time, 3 ms given, the
    // documented 2 ms left out.
    for (const auto& [disk, each] : std::vector<std::pair<std::string, double>>{
             {R"(<disk model="toy_fixed" time="3ms"/>)", 3e-3},
             {R"(<disk model="toy_fixed"/>)", 2e-3}}) {
        const nlohmann::json s = servers(io_model(disk, "toy-disk.xml"), {"--cache", "none"});
        ASSERT_EQ(s.size(), 2u) << disk;
        std::uint64_t written = 0;
        for (const nlohmann::json& server : s) {
            EXPECT_EQ(server["disk"], "toy_fixed");
            const auto requests = server["disk_requests"].get<std::uint64_t>();
            EXPECT_GT(requests, 0u);
            EXPECT_NEAR(server["disk_busy_s"].get<double>(), static_cast<double>(requests) * each,
                        1e-12)
                << disk;
            written += server["disk_bytes_written"].get<std::uint64_t>();
        }
        EXPECT_EQ(written, 2u << 20) << disk;  // 2 ranks x 1 MiB
    }
    // The toy cache sends each chunk to the disk `copies` times: requests and bytes on disk
    // are that many times those of `none`.
    const std::string model = io_model(R"(<disk model="toy_fixed"/>)", "toy-cache.xml");
    const nlohmann::json none = servers(model, {"--cache", "none"});
    for (const auto& [cache, copies] :
         std::vector<std::pair<std::string, std::uint64_t>>{{"toy_copies", 2}}) {
        const nlohmann::json toy = servers(model, {"--cache", cache});
        ASSERT_EQ(toy.size(), none.size());
        for (std::size_t i = 0; i < toy.size(); ++i) {
            EXPECT_EQ(toy[i]["cache"], "toy_copies");
            EXPECT_EQ(toy[i]["disk_requests"].get<std::uint64_t>(),
                      copies * none[i]["disk_requests"].get<std::uint64_t>());
            EXPECT_EQ(toy[i]["disk_bytes_written"].get<std::uint64_t>(),
                      copies * none[i]["disk_bytes_written"].get<std::uint64_t>());
        }
    }
    // A bad parameter of a toy is refused at its line, like a built-in's.
    const std::string bad = io_model(R"(<disk model="toy_fixed" tme="3ms"/>)", "toy-disk-bad.xml");
    const CliResult r = clustersim({"validate", bad});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("<disk model=\"toy_fixed\"> has no parameter 'tme'; valid: time"),
              std::string::npos)
        << r.err;
}

TEST(RegistryKinds, ToyTraceReaderIsDetectedAndNamed) {
    ASSERT_TRUE(registered);
    const std::string model = kExamples + "two-nodes.xml";
    const std::string trace = temp_file("toy.toypp", "TOYPP 1000 5\n");
    // 5 round trips of 8 us: 40 us, detected by content or named with --format.
    EXPECT_EQ(simulated_ps(run_json({"--app", "trace:" + trace, "--network", kSimple}, model)),
              40'000'000);
    EXPECT_EQ(
        simulated_ps(run_json(
            {"--app", "trace:" + trace, "--format", "toy_pingpong", "--network", kSimple}, model)),
        40'000'000);
    EXPECT_THROW(traces::trace_readers().add(std::make_unique<ToyPingPongReader>()),
                 std::logic_error);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(RegistryKinds, ToyTraceWriterIsChosenByNameOrExtension) {
    ASSERT_TRUE(registered);
    // The toy trace (5 rounds: 2 ranks, 10 records each) through the toy writer, chosen by
    // OUTPUT's extension or by --to.
    const std::string trace = temp_file("toy-w.toypp", "TOYPP 1000 5\n");
    const std::string by_ext = (std::filesystem::temp_directory_path() / "toy-w.toycount").string();
    const CliResult e = clustersim({"convert", trace, by_ext});
    EXPECT_EQ(e.code, 0) << e.err;
    EXPECT_EQ(slurp(by_ext), "2 20\n");
    const std::string named = (std::filesystem::temp_directory_path() / "toy-w.out").string();
    const CliResult n = clustersim({"convert", trace, named, "--to", "toy_count"});
    EXPECT_EQ(n.code, 0) << n.err;
    EXPECT_EQ(slurp(named), "2 20\n");
    EXPECT_NE(n.out.find("(toy_count format"), std::string::npos) << n.out;
    // Listed, offered in `convert --help`, named in the error for an unknown one.
    const CliResult l = clustersim({"list", "writers"});
    EXPECT_NE(l.out.find("toy_count"), std::string::npos) << l.out;
    const CliResult h = clustersim({"convert", "--help"});
    EXPECT_NE(h.out.find(".toycount = toy_count"), std::string::npos) << h.out;
    const CliResult bad = clustersim({"convert", trace, named, "--to", "toy_cont"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("--to: 'toy_cont' (did you mean 'toy_count'?): expected text, binary, "
                           "otf2, goal or toy_count"),
              std::string::npos)
        << bad.err;
}

TEST(RegistryKinds, ToyImporterIsChosenByName) {
    ASSERT_TRUE(registered);
    const std::string model = kExamples + "two-nodes.xml";
    const std::string text = slurp(model);
    const CliResult r = clustersim({"import", "toy_copy", model});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, text);
    EXPECT_NE(
        r.err.find("clustersim: import: toy: copied " + std::to_string(text.size()) + " bytes"),
        std::string::npos)
        << r.err;
    const CliResult l = clustersim({"list", "importers"});
    EXPECT_NE(l.out.find("toy_copy"), std::string::npos) << l.out;
    const CliResult h = clustersim({"import", "--help"});
    EXPECT_NE(h.out.find("piosimhd, simgrid or toy_copy"), std::string::npos) << h.out;
    const CliResult bad = clustersim({"import", "toy_cpy", model});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("'toy_cpy' (did you mean 'toy_copy'?): expected piosimhd, simgrid or "
                           "toy_copy"),
              std::string::npos)
        << bad.err;
}

TEST(RegistryKinds, ToyRunOutputIsWrittenWithTheOthers) {
    ASSERT_TRUE(registered);
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "toy-out";
    std::filesystem::remove_all(dir);
    const CliResult r = clustersim({"run", kExamples + "two-nodes.xml", "--app",
                                    "pingpong:size=1000B,iterations=5", "--out", dir.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    // Named after the built-ins in the "wrote" line.
    EXPECT_NE(r.out.find("OTF2 tools), toy_records.txt\n"), std::string::npos) << r.out;
    // Its figures are the simulated trace's, read back: 2 ranks, 10 operations each.
    traces::ReadReport report;
    const traces::Trace t =
        traces::load_trace((dir / "simulated.cstrace").string(), "auto", {}, report);
    EXPECT_EQ(t.ranks(), 2u);
    EXPECT_EQ(t.total_events(), 20u);
    EXPECT_EQ(slurp((dir / "toy_records.txt").string()), "2 20\n");
}

TEST(RegistryKinds, ToyJitterFormatIsWrittenAndReadThroughTheCommandLine) {
    ASSERT_TRUE(registered);
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const std::string toy = (dir / "toy-jitter.toyj").string();
    // Written by `jitter-trace generate`, chosen by the extension: 10 us of jitter every
    // 1 ms for 100 ms at 1 GHz is 100 tuples of (10,000, 990,000) cycles.
    CliResult r =
        clustersim({"jitter-trace", "generate", "--spec", "periodic:period=1ms,duration=10us",
                    "--length", "100ms", "--frequency", "1GHz", "--out", toy});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("(toy_periodic format): 100 tuples, 100,000,000 cycles"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(slurp(toy), "TOYJ 10000 990000 100\n");
    // Read back by `jitter`, detected by its content: one task starting at tuple 0 computes
    // 990,000 cycles, meets 10,000 of jitter, computes 990,000 more: 1,990,000 cycles.
    r = clustersim({"jitter", "--trace", toy, "--work", "1980000cycles", "--phases", "1", "--tasks",
                    "1", "--start-indices", "0", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_DOUBLE_EQ(j["curves"][0]["results"][0]["mean_phase_cycles"].get<double>(), 1'990'000.0);
    // Named with --format, and converted to it with --to.
    r = clustersim({"jitter-trace", "info", toy, "--format", "toy_periodic"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("100 tuples, 100,000,000 cycles, jitter 1.000 %"), std::string::npos)
        << r.out;
    const std::string text = (dir / "toy-jitter.jtr").string();
    const std::string again = (dir / "toy-jitter.out").string();
    ASSERT_EQ(clustersim({"jitter-trace", "convert", toy, text}).code, 0);
    r = clustersim({"jitter-trace", "convert", text, again, "--to", "toy_periodic"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(again), "TOYJ 10000 990000 100\n");
    // What it cannot hold is refused naming the file; an unknown name names the flag.
    const std::string uneven = temp_file("toy-uneven.jtr", "10 50\n5 30\n");
    r = clustersim({"jitter-trace", "convert", uneven, (dir / "toy-uneven.toyj").string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("toy-uneven.toyj: toy_periodic holds one tuple repeated; tuple 1 differs"),
              std::string::npos)
        << r.err;
    r = clustersim({"jitter-trace", "convert", text, again, "--to", "toy_periodc"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--to: unknown jitter trace format 'toy_periodc' (did you mean "
                         "'toy_periodic'?); expected one of auto, text, binary, loggopsim, "
                         "toy_periodic"),
              std::string::npos)
        << r.err;
    // Offered in the help.
    r = clustersim({"jitter-trace", "convert", "--help"});
    EXPECT_NE(r.out.find("text, binary, loggopsim or toy_periodic (default by OUT's extension: "
                         ".jtb binary, .noise loggopsim, .toyj toy_periodic, else text)"),
              std::string::npos)
        << r.out;
}

}  // namespace CLUSTERSIM_TEST_FILE
