// The network models a run can use, by name: the graph models (packet, cut-through, fluid)
// and one analytic model per registered communication model (models/comm_model.hpp). Each
// entry documents its parameters; `--network NAME[:key=value,...]` (choose_network) is
// parsed against them once, and simulate() builds the chosen model through the entry.
//
// Adding a network model is one class implementing net::Transport plus one registration:
//     run::network_models().add({"mine", "one line of help", {/* ParamInfo... */},
//                                /* select: */ nullptr,
//                                [](const run::TransportContext& c) {
//                                    return std::make_unique<Mine>(c.engine, c.topology, ...);
//                                }});
// Adding an analytic communication model is one CommModel class plus one
// comm::comm_models().add(...): it is a network model at once, with the analytic parameters.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/comm_spec.hpp"
#include "models/transport.hpp"
#include "simulator/engine.hpp"
#include "simulator/params.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace clustersim::run {

// What a network model is built from.
struct TransportContext {
    Engine& engine;
    const topo::Topology& topology;
    const comm::CommModelSpec& comm;  // the model's <comm-model> (analytic models)
    topo::Router& router;
    net::NetworkClient& client;  // told about injected and delivered messages
    std::uint64_t seed;          // random choices (Valiant routing)
    // --network's key=value parameters, each checked against the entry's (empty when the
    // model comes from the model file; the built-in models read theirs from the topology,
    // where their `select` put them).
    std::vector<KeyValue> params = {};
};

// What a network model does, declared by it, so that the run, its report and its timeline ask
// the model rather than test which one it is.
struct NetworkCapabilities {
    // What its NetworkStats::packets and ::packet_hops count, as the summary names them:
    // "packets" and "packet hops" (the packet models), "flows" and "rate recomputations" (the
    // fluid model); empty: it counts neither (the analytic models, a model registered later
    // that does not say).
    std::string units, work;
    // It records each link's busy intervals (SimulationOptions::link_activity;
    // `--timeline-detail hardware`).
    bool link_activity = false;
    // An analytic communication model (models/comm_model.hpp): its summary line names the
    // <comm-model> and how collectives are timed.
    bool analytic = false;
};

struct NetworkModelEntry {
    std::string name;
    std::string doc;  // one line
    std::vector<ParamInfo> params;
    // Makes the network settings (and the analytic model's <comm-model> settings) select this
    // model, with --network's parameters (each key already checked against `params`). Empty:
    // the model needs no setting of its own.
    std::function<void(topo::NetworkSettings&, comm::CommModelSpec&, const std::vector<KeyValue>&)>
        select;
    std::function<std::unique_ptr<net::Transport>(const TransportContext&)> make;
    NetworkCapabilities caps = {};
};

class NetworkModelRegistry {
  public:
    // Throws std::logic_error if the name is empty or taken (by a network or a communication
    // model), or the factory is missing.
    void add(NetworkModelEntry entry);
    // The graph models first (packet, cut-through, fluid, then models added later), then one
    // analytic entry per communication model.
    std::vector<NetworkModelEntry> entries() const;
    std::optional<NetworkModelEntry> find(std::string_view name) const;
    std::vector<std::string> names() const;

  private:
    std::vector<NetworkModelEntry> entries_;
};
NetworkModelRegistry& network_models();

// The capabilities of the network model a run builds: `chosen` ("NAME[:key=value,...]" as
// choose_network() accepted it), or if it is empty the one the settings select. A name no
// entry has (an unknown <comm-model>, refused when the run builds it): none.
NetworkCapabilities capabilities_of(const topo::NetworkSettings& settings,
                                    const comm::CommModelSpec& comm, const std::string& chosen);

// The name of the network model the settings select: packet, cut-through, fluid or the
// <comm-model>'s model.
std::string network_model_of(const topo::NetworkSettings& settings,
                             const comm::CommModelSpec& comm);

// Builds the network model `chosen` names ("NAME[:key=value,...]" as choose_network()
// accepted it), or if it is empty the one network_model_of() names. Throws InputError
// naming the <comm-model> element (or --network) for an unknown name.
std::unique_ptr<net::Transport> make_transport(TransportContext context,
                                               const std::string& chosen = "");

}  // namespace clustersim::run
