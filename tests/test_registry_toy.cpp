// Adding a model is one class and one registration line: this file registers a toy network
// model, a toy NIC model, a toy switch forwarding model, a toy CPU model and a toy analytic
// communication model from here, through the registries alone (no edit anywhere else), and runs
// them through the `clustersim` command line in this process (tools/cli.hpp's main), checking the
// simulated times against closed forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inprocess_cli.hpp"
#include "models/comm_model.hpp"
#include "models/cpu.hpp"
#include "models/transport.hpp"
#include "run/network_models.hpp"
#include "simulator/engine.hpp"
#include "simulator/units.hpp"
#include "tools/cli.hpp"
#include "topologies/forwarding.hpp"
#include "topologies/nic_models.hpp"

namespace CLUSTERSIM_TEST_FILE {

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
// packet's last byte has arrived (store_and_forward plus a fixed processing time).
Time toy_forward_at(const topo::ForwardRule& rule, Time, Time, Time tail) {
    return tail + rule.k[0];
}

// A toy CPU model: every job runs alone (as if each had a core of its own) at 1/slowdown of
// its core's speed: done `slowdown` x its dedicated-core time after it started. No OS jitter.
class ToyCpu final : public Component, public cpu::CpuModel {
  public:
    ToyCpu(Engine& engine, cpu::CpuClient& client, std::int64_t slowdown)
        : engine_(engine), client_(client), slowdown_(slowdown) {
        id_ = engine_.add(*this);
    }
    std::uint32_t add_core(std::uint64_t instructions_per_second) override {
        speeds_.push_back(instructions_per_second);
        busy_.push_back(Time::zero());
        return static_cast<std::uint32_t>(speeds_.size() - 1);
    }
    void set_noise(std::uint32_t, const jitter::Timeline*, std::uint64_t) override {
        throw std::invalid_argument("the CPU model toy_cpu has no OS jitter");
    }
    void start_time(std::uint32_t core, Time work, std::uint64_t cookie) override {
        const Time span = Time::ps(work.ps() * slowdown_);
        busy_[core] += span;  // an upper bound when jobs overlap; the toy does not merge them
        engine_.schedule_in(span, id_, 0, cookie);
    }
    std::size_t cores() const override { return speeds_.size(); }
    std::uint64_t speed(std::uint32_t core) const override { return speeds_[core]; }
    Time busy_time(std::uint32_t core) const override { return busy_[core]; }
    Time jitter_time(std::uint32_t) const override { return Time::zero(); }
    void handle(Engine&, const Event& e) override { client_.compute_done(e.data, Time::zero()); }
    std::string name() const override { return "toy cpu"; }

  private:
    Engine& engine_;
    cpu::CpuClient& client_;
    std::int64_t slowdown_;
    ComponentId id_ = 0;
    std::vector<std::uint64_t> speeds_;
    std::vector<Time> busy_;
};

// The registration lines.
const bool registered = [] {
    cpu::cpu_models().add(
        {"toy_cpu",
         "toy: every job alone, at 1/slowdown of its core's speed",
         {{"slowdown", "count", "", "2", "how many times longer than on a dedicated core"}},
         [](const std::vector<KeyValue>& params) -> cpu::CpuModelFactory {
             std::int64_t slowdown = 2;
             for (const KeyValue& kv : params)
                 if (kv.key == "slowdown") {
                     const std::uint64_t n = parse_count(kv.value);
                     if (n == 0 || n > 1000)
                         throw std::invalid_argument("slowdown: expected 1 to 1000");
                     slowdown = static_cast<std::int64_t>(n);
                 }
             return [slowdown](Engine& engine, cpu::CpuClient& client) {
                 return std::make_unique<ToyCpu>(engine, client, slowdown);
             };
         }});
    topo::forwarding_models().add(
        {"toy_fwd",
         "toy: store_and_forward plus a fixed processing delay",
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

using clustersim::testing::CliResult;

// `clustersim ARGS...` in this process, where the toy models are registered.
CliResult clustersim(std::vector<std::string> args) {
    return clustersim::testing::clustersim_in_process(std::move(args));
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
    // store_and_forward copies of 1 us): 12 us one way, 120 us, both the same here.
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
             {"store_and_forward", 120'000'000},
             {"toy_fwd:delay=2us", 140'000'000},
             {"toy_fwd", 130'000'000},  // its default delay, 1 us
             // Cut-through: the switch sends the head on once it has crossed its 1 us link, so
             // the copy into the switch overlaps the copy out: 11 us one way.
             {"cut_through", 110'000'000}}) {
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
                         "is not valid; expected cut_through, store_and_forward or toy_fwd"),
              std::string::npos)
        << u.err;
    EXPECT_THROW(topo::forwarding_models().add({"toy_fwd", "again", {}, nullptr}),
                 std::logic_error);
}

// `clustersim run ARGS... --json` on two-nodes.xml (or `model`), parsed.
nlohmann::json run_args_json(std::vector<std::string> args, const std::string& model = kModel) {
    args.insert(args.begin(), {"run", model});
    args.push_back("--json");
    const CliResult r = clustersim(args);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

double compute_seconds(const nlohmann::json& j) {
    return j["operations"]["Compute"]["time_s"].get<double>();
}

// A map file putting ranks 0 and 1 on n0's one core.
std::string one_core_map() {
    const std::string path =
        (std::filesystem::temp_directory_path() / "toy-cpu-one-core.map").string();
    std::ofstream(path) << "0 n0 0 0\n1 n0 0 0\n";
    return path;
}

TEST(RegistryToy, ToyCpuModelRunsThroughTheCommandLine) {
    ASSERT_TRUE(registered);
    // barrier_loop: each rank computes 10 us (10^4 instructions at 1G/s) then a barrier, 3
    // times; one rank per node. The toy stretches each compute by `slowdown`; the barriers
    // are the same, so the run is 3 x (slowdown - 1) x 10 us longer than processor sharing.
    const std::vector<std::string> app = {"--app", "barrier_loop:work=10us,iterations=3", "--ranks",
                                          "2"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> args = app;
        args.insert(args.end(), more.begin(), more.end());
        return run_args_json(args);
    };
    const nlohmann::json ps = with({});
    const nlohmann::json toy3 = with({"--cpu", "toy_cpu:slowdown=3"});
    const nlohmann::json toy = with({"--cpu", "toy_cpu"});  // its default: 2
    ASSERT_FALSE(ps.is_null() || toy3.is_null() || toy.is_null());
    const std::int64_t base = ps["simulated_time_ps"].get<std::int64_t>();
    EXPECT_EQ(toy3["simulated_time_ps"].get<std::int64_t>() - base, 3 * 2 * 10'000'000);
    EXPECT_EQ(toy["simulated_time_ps"].get<std::int64_t>() - base, 3 * 1 * 10'000'000);
    EXPECT_DOUBLE_EQ(compute_seconds(ps), 6 * 10e-6);
    EXPECT_DOUBLE_EQ(compute_seconds(toy3), 6 * 30e-6);
    // Two ranks on one core: processor sharing makes each compute 20 us, the toy lets both
    // run alone (30 us each at slowdown 3).
    const std::vector<std::string> one_core = {"--placement", "map:" + one_core_map(),
                                               "--oversubscribe"};
    std::vector<std::string> shared = one_core;
    shared.insert(shared.end(), {"--cpu", "toy_cpu:slowdown=3"});
    const nlohmann::json toy_shared = with(shared);
    ASSERT_FALSE(toy_shared.is_null());
    EXPECT_DOUBLE_EQ(compute_seconds(toy_shared), 6 * 30e-6);
    // The model XML selects it too: <network cpu="...">.
    std::ifstream in(kModel);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    xml.replace(xml.find(R"(nic="packet")"), 12, R"(nic="packet" cpu="toy_cpu:slowdown=3")");
    const std::string model = (std::filesystem::temp_directory_path() / "toy-cpu.xml").string();
    std::ofstream(model) << xml;
    const nlohmann::json from_xml = run_args_json(app, model);
    ASSERT_FALSE(from_xml.is_null());
    EXPECT_EQ(from_xml["simulated_time_ps"], toy3["simulated_time_ps"]);
    // --cpu wins over the model's.
    std::vector<std::string> over = app;
    over.insert(over.end(), {"--cpu", "processor_sharing"});
    const nlohmann::json overridden = run_args_json(over, model);
    ASSERT_FALSE(overridden.is_null());
    EXPECT_EQ(overridden["simulated_time_ps"], ps["simulated_time_ps"]);
}

TEST(RegistryToy, ToyCpuParametersAreCheckedAgainstTheRegistry) {
    const CliResult r = clustersim(
        {"run", kModel, "--app", "barrier_loop", "--cpu", "toy_cpu:colour=red", "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--cpu: 'toy_cpu:colour=red': CPU model 'toy_cpu' has no parameter "
                         "'colour'; expected slowdown"),
              std::string::npos)
        << r.err;
    const CliResult zero = clustersim(
        {"run", kModel, "--app", "barrier_loop", "--cpu", "toy_cpu:slowdown=0", "--json"});
    EXPECT_EQ(zero.code, 2);
    EXPECT_NE(zero.err.find("--cpu: 'toy_cpu:slowdown=0': slowdown: expected 1 to 1000"),
              std::string::npos)
        << zero.err;
    const CliResult unknown =
        clustersim({"run", kModel, "--app", "barrier_loop", "--cpu", "toy_cpx", "--json"});
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("--cpu: 'toy_cpx': expected processor_sharing, run_to_completion "
                               "or toy_cpu"),
              std::string::npos)
        << unknown.err;
    // In the model XML: the file and the <network> element's line, also for `validate`.
    std::ifstream in(kModel);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    xml.replace(xml.find(R"(nic="packet")"), 12, R"(nic="packet" cpu="toy_cpu:colour=red")");
    const std::string model = (std::filesystem::temp_directory_path() / "toy-cpu-bad.xml").string();
    std::ofstream(model) << xml;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", model, "--app", "barrier_loop"},
          std::vector<std::string>{"validate", model}}) {
        const CliResult x = clustersim(args);
        EXPECT_EQ(x.code, 2) << args[0];
        EXPECT_NE(x.err.find("toy-cpu-bad.xml:10: <network> attribute 'cpu': "
                             "'toy_cpu:colour=red': CPU model 'toy_cpu' has no parameter "
                             "'colour'; expected slowdown"),
                  std::string::npos)
            << x.err;
    }
    // A model without OS jitter refuses a <jitter>, at its line.
    const std::string jittery =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/jitter-8.xml";
    const CliResult j = clustersim({"run", jittery, "--app", "loop:work=1ms,iterations=2",
                                    "--ranks", "2", "--cpu", "toy_cpu"});
    EXPECT_EQ(j.code, 2);
    EXPECT_NE(j.err.find("jitter-8.xml:20: <jitter>: the CPU model toy_cpu has no OS jitter"),
              std::string::npos)
        << j.err;
    EXPECT_THROW(cpu::cpu_models().add({"toy_cpu", "again", {}, nullptr}), std::logic_error);
}

// The built-in run_to_completion model through the command line: two ranks on one core,
// barrier_loop with one iteration of 10 us. Processor sharing: both computes end at 20 us
// (40 us of Compute in all); run to completion: rank 0's at 10 us, rank 1's at 20 us (30 us).
// Either way the barrier ends when rank 1's message has crossed the memory node (2 us).
TEST(RegistryToy, RunToCompletionThroughTheCommandLine) {
    std::vector<std::string> args = {"--app",          "barrier_loop:work=10us,iterations=1",
                                     "--ranks",        "2",
                                     "--placement",    "map:" + one_core_map(),
                                     "--oversubscribe"};
    const nlohmann::json ps = run_args_json(args);
    args.insert(args.end(), {"--cpu", "run_to_completion"});
    const nlohmann::json rtc = run_args_json(args);
    ASSERT_FALSE(ps.is_null() || rtc.is_null());
    EXPECT_DOUBLE_EQ(compute_seconds(ps), 40e-6);
    EXPECT_DOUBLE_EQ(compute_seconds(rtc), 30e-6);
    EXPECT_EQ(ps["simulated_time_ps"].get<std::int64_t>(), 22'000'000);
    EXPECT_EQ(rtc["simulated_time_ps"].get<std::int64_t>(), 22'000'000);
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
        r.out.find("  toy_fwd            toy: store_and_forward plus a fixed processing delay\n"
                   "    delay  time (s), default 1us: from a packet's last byte in to its "
                   "forwarding\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("CPU models (<network cpu=...>, run --cpu; NAME[:key=value,...]):\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  toy_cpu            toy: every job alone, at 1/slowdown of its core's "
                         "speed\n"
                         "    slowdown  count, default 2: how many times longer than on a "
                         "dedicated core\n"),
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
}  // namespace CLUSTERSIM_TEST_FILE
