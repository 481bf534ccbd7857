// Adding a model is one class and one registration line: this file registers a toy network
// model, a toy NIC model, a toy switch forwarding model and a toy analytic communication model from
// here, through the registries alone (no edit anywhere else), and runs them through the
// `clustersim` command line in this process (tools/cli.hpp's main), checking the simulated times
// against closed forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/comm_model.hpp"
#include "models/transport.hpp"
#include "run/network_models.hpp"
#include "simulator/engine.hpp"
#include "simulator/units.hpp"
#include "tools/cli.hpp"
#include "topologies/forwarding.hpp"
#include "topologies/nic_models.hpp"

namespace {

using namespace clustersim;

// A toy network: every message takes latency + bytes / bandwidth, whatever the route and
// whatever else is in flight (no contention). It has left its sender after bytes / bandwidth.
class ToyWire final : public Component, public net::Transport {
  public:
    ToyWire(Engine& engine, net::NetworkClient& client, Time latency, Bandwidth bandwidth)
        : engine_(engine), client_(client), latency_(latency), bandwidth_(bandwidth) {
        id_ = engine_.add(*this);
    }
    void send(net::VertexId, net::VertexId, std::uint64_t bytes, std::uint64_t cookie,
              bool notify_injected) override {
        const Time transfer = transfer_time(bytes, bandwidth_);
        ++stats_.messages_sent;
        stats_.bytes_sent += bytes;
        if (notify_injected) engine_.schedule_in(transfer, id_, kInjected, cookie);
        engine_.schedule_in(transfer + latency_, id_, kDelivered, cookie);
        bytes_in_flight_.emplace(cookie, bytes);
    }
    const net::NetworkStats& stats() const override { return stats_; }
    std::vector<std::uint64_t> edge_bytes() const override { return {}; }
    void handle(Engine&, const Event& e) override {
        if (e.kind == kInjected) {
            client_.message_injected(e.data);
            return;
        }
        ++stats_.messages_delivered;
        const auto it = bytes_in_flight_.find(e.data);
        stats_.bytes_delivered += it->second;
        bytes_in_flight_.erase(it);
        client_.message_delivered(e.data);
    }
    std::string name() const override { return "toy wire"; }

  private:
    enum : std::uint32_t { kInjected, kDelivered };
    Engine& engine_;
    net::NetworkClient& client_;
    Time latency_;
    Bandwidth bandwidth_;
    ComponentId id_ = 0;
    net::NetworkStats stats_;
    std::unordered_multimap<std::uint64_t, std::uint64_t> bytes_in_flight_;  // cookie -> bytes
};

// A toy analytic model: a message's transfer takes twice the pair's bandwidth time, then its
// latency; no resources held.
class ToyDouble final : public comm::CommModel {
  public:
    std::string_view name() const override { return "toy_double"; }
    comm::Plan plan(const comm::Message& m, const comm::Resources&) const override {
        comm::Plan p;
        p.transfer = m.transfer() + m.transfer();
        p.latency = m.cost.latency;
        return p;
    }
};

// A toy NIC: each packet leaves its node after bytes / rate and arrives `latency` later,
// past the graph's links (no route, no contention).
class ToyNic final : public topo::NicBehaviour {
  public:
    ToyNic(Time latency, Bandwidth rate) : latency_(latency), rate_(rate) {}
    void inject(topo::NicPort& port, std::uint32_t pkt) const override {
        const Time left = port.now() + transfer_time(port.packet(pkt).bytes, rate_);
        port.deliver_at(pkt, left, left + latency_);
    }

  private:
    Time latency_;
    Bandwidth rate_;
};

// A toy switch forwarding model: a vertex forwards a packet `k[0]` (its `delay`) after the
// packet's last byte has arrived (store-and-forward plus a fixed processing time).
Time toy_forward_at(const topo::ForwardRule& rule, Time, Time, Time tail) {
    return tail + rule.k[0];
}

// The registration lines.
const bool registered = [] {
    topo::forwarding_models().add(
        {"toy_fwd",
         "toy: store-and-forward plus a fixed processing delay",
         {{"delay", "time", "s", "1us", "from a packet's last byte in to its forwarding"}},
         [](const std::vector<KeyValue>& params) {
             topo::ForwardRule rule{&toy_forward_at, {parse_time("1us"), Time::zero()}};
             for (const KeyValue& kv : params)
                 if (kv.key == "delay") rule.k[0] = parse_time(kv.value);
             return rule;
         }});
    topo::nic_models().add({"toy_nic",
                            "toy: size / rate to leave the node, then a fixed latency",
                            {{"latency", "time", "s", "1us", "from leaving the node to arrival"},
                             {"rate", "bandwidth", "B/s", "1GB/s", "rate the packet leaves at"}},
                            [](const std::vector<KeyValue>& params) {
                                Time latency = parse_time("1us");
                                Bandwidth rate = parse_bandwidth("1GB/s");
                                for (const KeyValue& kv : params) {
                                    if (kv.key == "latency") latency = parse_time(kv.value);
                                    if (kv.key == "rate") rate = parse_bandwidth(kv.value);
                                }
                                return std::make_shared<ToyNic>(latency, rate);
                            }});
    run::network_models().add(
        {"toy_wire",
         "toy: latency + size / bandwidth per message, no route, no contention",
         {{"latency", "time", "s", "1us", "one-way latency"},
          {"bandwidth", "bandwidth", "B/s", "1GB/s", "transfer rate"}},
         nullptr,
         [](const run::TransportContext& c) -> std::unique_ptr<net::Transport> {
             Time latency = parse_time("1us");
             Bandwidth bandwidth = parse_bandwidth("1GB/s");
             for (const KeyValue& kv : c.params) {
                 if (kv.key == "latency") latency = parse_time(kv.value);
                 if (kv.key == "bandwidth") bandwidth = parse_bandwidth(kv.value);
             }
             return std::make_unique<ToyWire>(c.engine, c.client, latency, bandwidth);
         }});
    comm::comm_models().add({"toy_double", "toy: analytic, twice the bandwidth time",
                             [] { return std::make_unique<ToyDouble>(); }});
    return true;
}();

struct CliResult {
    int code = -1;
    std::string out, err;
};

// `clustersim ARGS...` in this process, where the toy models are registered.
CliResult clustersim(std::vector<std::string> args) {
    args.insert(args.begin(), "clustersim");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    CliResult r;
    r.code = cli::main(static_cast<int>(args.size()), argv.data());
    r.out = ::testing::internal::GetCapturedStdout();
    r.err = ::testing::internal::GetCapturedStderr();
    return r;
}

const std::string kModel =
    std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/two-nodes.xml";

nlohmann::json run_json(const std::string& network, const std::string& app) {
    const CliResult r = clustersim({"run", kModel, "--app", app, "--network", network, "--json"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(RegistryToy, ToyNetworkModelRunsThroughTheCommandLine) {
    ASSERT_TRUE(registered);
    // 5 round trips of 1000 B, one way = 3 us + 1000 B / (10^9 B/s) = 4 us: 40 us.
    const nlohmann::json j =
        run_json("toy_wire:latency=3us,bandwidth=1GB/s", "pingpong:size=1000B,iterations=5");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["simulated_time_ps"].get<std::int64_t>(), 40'000'000);
    EXPECT_EQ(j["network"]["model"], "toy_wire:latency=3us,bandwidth=1GB/s");
    EXPECT_EQ(j["network"]["messages"].get<std::uint64_t>(), 10u);
    EXPECT_EQ(j["network"]["bytes_sent"], j["network"]["bytes_delivered"]);
    EXPECT_EQ(j["network"]["bytes_delivered"].get<std::uint64_t>(), 10'000u);
    // Its defaults (1 us, 1 GB/s): one way 2 us, 20 us in all.
    const nlohmann::json d = run_json("toy_wire", "pingpong:size=1000B,iterations=5");
    ASSERT_FALSE(d.is_null());
    EXPECT_EQ(d["simulated_time_ps"].get<std::int64_t>(), 20'000'000);
}

TEST(RegistryToy, ToyCommModelIsANetworkModelWithTheAnalyticParameters) {
    // One way = 2 x 1000 B / (10^9 B/s) + 3 us = 5 us; 5 round trips: 50 us.
    const nlohmann::json j =
        run_json("toy_double:latency=3us,bandwidth=1GB/s", "pingpong:size=1000B,iterations=5");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["simulated_time_ps"].get<std::int64_t>(), 50'000'000);
    EXPECT_EQ(j["network"]["messages"].get<std::uint64_t>(), 10u);
    // The same run under `simple` (one bandwidth time): 4 us one way, 40 us.
    const nlohmann::json s =
        run_json("simple:latency=3us,bandwidth=1GB/s", "pingpong:size=1000B,iterations=5");
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["simulated_time_ps"].get<std::int64_t>(), 40'000'000);
}

// two-nodes.xml with every node's NIC model set to `nic` (the <network> default), written
// next to the test's other temporary files.
std::string two_nodes_with_nic(const std::string& nic, const std::string& file) {
    std::ifstream in(kModel);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = R"(nic="packet")";
    const std::size_t at = xml.find(from);
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) xml.replace(at, from.size(), "nic=\"" + nic + "\"");
    const std::string path = (std::filesystem::temp_directory_path() / file).string();
    std::ofstream(path) << xml;
    return path;
}

nlohmann::json run_model_json(const std::string& model, const std::string& app) {
    const CliResult r = clustersim({"run", model, "--app", app, "--json"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(RegistryToy, ToyNicModelRunsThroughTheCommandLine) {
    ASSERT_TRUE(registered);
    const std::string app = "pingpong:size=1000B,iterations=5";
    // Whole messages, one packet each. One way = 1000 B / (0.5 * 10^9 B/s) + 3 us = 5 us;
    // 5 round trips: 50 us.
    const nlohmann::json j = run_model_json(
        two_nodes_with_nic("toy_nic:latency=3us,rate=0.5GB/s", "toy-nic-3us.xml"), app);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["simulated_time_ps"].get<std::int64_t>(), 50'000'000);
    EXPECT_EQ(j["network"]["model"], "packet");
    EXPECT_EQ(j["network"]["messages"].get<std::uint64_t>(), 10u);
    EXPECT_EQ(j["network"]["packets"].get<std::uint64_t>(), 10u);
    EXPECT_EQ(j["network"]["packet_hops"].get<std::uint64_t>(), 0u);  // no link was taken
    EXPECT_EQ(j["network"]["bytes_sent"], j["network"]["bytes_delivered"]);
    EXPECT_EQ(j["network"]["bytes_delivered"].get<std::uint64_t>(), 10'000u);
    // Its defaults (1 us, 1 GB/s): one way 2 us, 20 us in all.
    const nlohmann::json d =
        run_model_json(two_nodes_with_nic("toy_nic", "toy-nic-defaults.xml"), app);
    ASSERT_FALSE(d.is_null());
    EXPECT_EQ(d["simulated_time_ps"].get<std::int64_t>(), 20'000'000);
    // The built-in NICs on the same model route through the 6 edges (6 us of latency, 6
    // store-and-forward copies of 1 us): 12 us one way, 120 us, both the same here.
    for (const std::string nic : {"packet", "analytical"}) {
        const nlohmann::json b =
            run_model_json(two_nodes_with_nic(nic, "toy-nic-builtin.xml"), app);
        ASSERT_FALSE(b.is_null());
        EXPECT_EQ(b["simulated_time_ps"].get<std::int64_t>(), 120'000'000) << nic;
    }
    // `generate --nic` selects it too, and writes it into the model.
    const CliResult g =
        clustersim({"generate", "star", "--nodes", "2", "--nic", "toy_nic:rate=2GB/s"});
    EXPECT_EQ(g.code, 0) << g.err;
    EXPECT_NE(g.out.find(R"(nic="toy_nic:rate=2GB/s")"), std::string::npos) << g.out;
}

TEST(RegistryToy, ToyNicParametersAreCheckedAgainstTheRegistry) {
    const std::string model = two_nodes_with_nic("toy_nic:colour=red", "toy-nic-bad.xml");
    const CliResult r = clustersim({"run", model, "--app", "pingpong:size=1000B", "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("toy-nic-bad.xml:10: <network> attribute 'nic': 'toy_nic:colour=red': "
                         "NIC model 'toy_nic' has no parameter 'colour'; expected latency or rate"),
              std::string::npos)
        << r.err;
    const CliResult g = clustersim({"generate", "star", "--nodes", "2", "--nic", "toy_nik"});
    EXPECT_EQ(g.code, 2);
    EXPECT_NE(g.err.find("--nic: 'toy_nik': expected packet, analytical or toy_nic"),
              std::string::npos)
        << g.err;
    EXPECT_THROW(topo::nic_models().add({"toy_nic",
                                         "again",
                                         {},
                                         [](const std::vector<KeyValue>&) {
                                             return std::shared_ptr<const topo::NicBehaviour>();
                                         }}),
                 std::logic_error);
}

// two-nodes.xml with the <network>'s forwarding (that of its one switch, "sw") set to `spec`.
std::string two_nodes_with_forwarding(const std::string& spec, const std::string& file) {
    std::ifstream in(kModel);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = R"(nic="packet")";
    const std::size_t at = xml.find(from);
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos)
        xml.replace(at, from.size(), R"(nic="packet" forwarding=")" + spec + "\"");
    const std::string path = (std::filesystem::temp_directory_path() / file).string();
    std::ofstream(path) << xml;
    return path;
}

TEST(RegistryToy, ToyForwardingModelRunsThroughTheCommandLine) {
    ASSERT_TRUE(registered);
    const std::string app = "pingpong:size=1000B,iterations=5";
    // Store-and-forward (the default): 6 edges of 1 us latency + 1 us copy each, 12 us one
    // way, 10 one-way trips: 120 us. The toy's switch waits `delay` more: 12 us + 2 us one
    // way, 140 us.
    for (const auto& [spec, ps] : std::vector<std::pair<std::string, std::int64_t>>{
             {"store-and-forward", 120'000'000},
             {"toy_fwd:delay=2us", 140'000'000},
             {"toy_fwd", 130'000'000},  // its default delay, 1 us
             // Cut-through: the switch sends the head on once it has crossed its 1 us link, so
             // the copy into the switch overlaps the copy out: 11 us one way.
             {"cut-through", 110'000'000}}) {
        const nlohmann::json j =
            run_model_json(two_nodes_with_forwarding(spec, "toy-fwd.xml"), app);
        ASSERT_FALSE(j.is_null()) << spec;
        EXPECT_EQ(j["simulated_time_ps"].get<std::int64_t>(), ps) << spec;
        EXPECT_EQ(j["network"]["bytes_sent"], j["network"]["bytes_delivered"]) << spec;
        EXPECT_EQ(j["network"]["bytes_delivered"].get<std::uint64_t>(), 10'000u) << spec;
    }
}

TEST(RegistryToy, ToyForwardingParametersAreCheckedAgainstTheRegistry) {
    const std::string model = two_nodes_with_forwarding("toy_fwd:colour=red", "toy-fwd-bad.xml");
    const CliResult r = clustersim({"run", model, "--app", "pingpong:size=1000B", "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("toy-fwd-bad.xml:10: <network> attribute 'forwarding': "
                         "'toy_fwd:colour=red': forwarding model 'toy_fwd' has no parameter "
                         "'colour'; expected delay"),
              std::string::npos)
        << r.err;
    const std::string unknown = two_nodes_with_forwarding("wormhole", "toy-fwd-unknown.xml");
    const CliResult u = clustersim({"run", unknown, "--app", "pingpong:size=1000B", "--json"});
    EXPECT_EQ(u.code, 2);
    EXPECT_NE(u.err.find("toy-fwd-unknown.xml:10: <network> attribute 'forwarding': 'wormhole' "
                         "is not valid; expected cut-through, store-and-forward or toy_fwd"),
              std::string::npos)
        << u.err;
    EXPECT_THROW(topo::forwarding_models().add({"toy_fwd", "again", {}, nullptr}),
                 std::logic_error);
}

TEST(RegistryToy, ListShowsTheToysWithTheirParameters) {
    const CliResult r = clustersim({"list", "models"});
    ASSERT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("toy_wire"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("latency    time (s), default 1us: one-way latency"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("toy_double"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("  toy_nic     toy: size / rate to leave the node, then a fixed latency\n"
                   "    latency  time (s), default 1us: from leaving the node to arrival\n"
                   "    rate     bandwidth (B/s), default 1GB/s: rate the packet leaves at\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(
        r.out.find("  toy_fwd            toy: store-and-forward plus a fixed processing delay\n"
                   "    delay  time (s), default 1us: from a packet's last byte in to its "
                   "forwarding\n"),
        std::string::npos)
        << r.out;
    const CliResult nets = clustersim({"list", "networks"});
    EXPECT_NE(nets.out.find("toy_wire"), std::string::npos) << nets.out;
}

TEST(RegistryToy, ToyParametersAreCheckedAgainstTheRegistry) {
    const CliResult r = clustersim({"run", kModel, "--app", "pingpong:size=1000B", "--network",
                                    "toy_wire:colour=red", "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--network: 'toy_wire:colour=red': unknown parameter 'colour'; expected "
                         "latency or bandwidth"),
              std::string::npos)
        << r.err;
    const CliResult twice = clustersim(
        {"run", kModel, "--app", "pingpong:size=1000B", "--network", "toy_doubel", "--json"});
    EXPECT_EQ(twice.code, 2);
    EXPECT_NE(twice.err.find("did you mean 'toy_double'?"), std::string::npos) << twice.err;
    EXPECT_THROW(run::network_models().add({"toy_double",
                                            "again",
                                            {},
                                            nullptr,
                                            [](const run::TransportContext&) {
                                                return std::unique_ptr<net::Transport>();
                                            }}),
                 std::logic_error);
}

}  // namespace

namespace {

// The run layer's error mapping: an error of one rank's operation (collectives/rank_error.hpp)
// names the trace and the record, counted from 1 among that rank's records. every-kind.trace's
// rank 1 uses communicator 2 in its third record; after a 2-rank pingpong it is world rank 3.
TEST(RunLayer, RankErrorNamesTheTraceAndRecord) {
    const std::string trace =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/every-kind.trace";
    const std::string model =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/figure5-io-8.xml";
    const CliResult r =
        clustersim({"run", model, "--app", "pingpong:size=1KiB", "--app", "trace:" + trace});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("every-kind.trace: rank 3 uses communicator 2 that it does not have "
                         "(record 3 of rank 1)"),
              std::string::npos)
        << r.err;
}

}  // namespace
