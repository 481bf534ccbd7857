#include "run/network_models.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "collectives/collective.hpp"
#include "models/analytic.hpp"
#include "models/comm_model.hpp"
#include "models/fluid.hpp"
#include "models/network.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"

namespace clustersim::run {
namespace {

// The collective operations' names, for a suggestion.
std::vector<std::string> coll_op_names() {
    std::vector<std::string> names;
    for (int i = 0; i < mpi::kCollOps; ++i)
        names.emplace_back(mpi::to_string(static_cast<mpi::CollOp>(i)));
    return names;
}

// The model's analytic communication model, with its collective rules checked.
std::unique_ptr<net::Transport> make_analytic(const TransportContext& c) {
    const topo::Topology& t = c.topology;
    const comm::CommModelSpec& spec = c.comm;
    std::unique_ptr<comm::CommModel> model;
    try {
        model = comm::make_comm_model(spec.model);
    } catch (const std::invalid_argument& e) {
        throw InputError(spec.present ? t.source : "--network", spec.present ? spec.line : 0,
                         fmt::format("<comm-model> attribute 'model': {}", e.what()));
    }
    std::vector<comm::CollectiveRule> rules;
    for (const comm::CommCollectiveSpec& cs : spec.collectives) {
        mpi::CollOp op;
        if (!mpi::parse_coll_op(cs.operation, op))
            throw InputError(
                t.source, cs.line,
                fmt::format("<collective> operation '{}' is not an MPI "
                            "collective{}; expected e.g. barrier, bcast, allreduce, "
                            "alltoall",
                            cs.operation, did_you_mean(cs.operation, coll_op_names())));
        comm::CollectiveRule r;
        r.operation = mpi::to_string(op);
        r.scaling = comm::default_scaling(r.operation);
        if (!cs.scaling.empty() && !comm::parse_scaling(cs.scaling, r.scaling))
            throw InputError(
                t.source, cs.line,
                fmt::format("<collective> scaling {}",
                            not_one_of(cs.scaling, {"constant", "linear", "logarithmic"})));
        if (!cs.points.empty()) {
            try {
                r.curve = comm::FittedCurve::from(cs.points);
            } catch (const std::invalid_argument& e) {
                throw InputError(t.source, cs.line, fmt::format("<collective>: {}", e.what()));
            }
            r.ranks = cs.ranks;
        }
        rules.push_back(std::move(r));
    }
    model->set_rules(std::move(rules));
    net::AnalyticParams params;
    try {
        params = net::resolve_params(t, spec);
    } catch (const std::invalid_argument& e) {
        throw InputError(t.source, spec.line, e.what());
    }
    return std::make_unique<net::AnalyticNetwork>(c.engine, t, c.router, c.client, std::move(model),
                                                  std::move(params));
}

NetworkModelEntry analytic_entry(const comm::CommModelEntry& e) {
    const std::string name = e.name;
    return {e.name,
            e.doc,
            comm::analytic_params(),
            [name](topo::NetworkSettings& settings, comm::CommModelSpec& spec,
                   const std::vector<KeyValue>& values) {
                settings.model = topo::NetworkModel::Analytic;
                spec.model = name;
                for (const KeyValue& kv : values) {
                    try {
                        comm::set_attribute(spec, kv.key, kv.value);
                    } catch (const std::invalid_argument& err) {
                        throw std::invalid_argument(fmt::format("{}: {}", kv.key, err.what()));
                    }
                }
            },
            make_analytic,
            {"", "", false, true}};
}

std::unique_ptr<net::Transport> make_packet(const TransportContext& c) {
    return std::make_unique<net::Network>(c.engine, c.topology, c.router, c.client, c.seed);
}

}  // namespace

void NetworkModelRegistry::add(NetworkModelEntry entry) {
    if (entry.name.empty() || !entry.make)
        throw std::logic_error("a network model needs a name and a factory");
    if (find(entry.name))
        throw std::logic_error(fmt::format("network model '{}' is registered twice", entry.name));
    entries_.push_back(std::move(entry));
}

std::vector<NetworkModelEntry> NetworkModelRegistry::entries() const {
    std::vector<NetworkModelEntry> out = entries_;
    for (const comm::CommModelEntry& e : comm::comm_models().entries())
        out.push_back(analytic_entry(e));
    return out;
}

std::optional<NetworkModelEntry> NetworkModelRegistry::find(std::string_view name) const {
    for (const NetworkModelEntry& e : entries_)
        if (e.name == name) return e;
    if (const comm::CommModelEntry* e = comm::comm_models().find_exact(name))
        return analytic_entry(*e);
    if (const NetworkModelEntry* e =
            find_named(entries_, name, [](const NetworkModelEntry& x) { return x.name; }))
        return *e;
    if (const comm::CommModelEntry* e = comm::comm_models().find(name)) return analytic_entry(*e);
    return std::nullopt;
}

std::vector<std::string> NetworkModelRegistry::names() const {
    std::vector<std::string> out;
    for (const NetworkModelEntry& e : entries()) out.push_back(e.name);
    return out;
}

NetworkModelRegistry& network_models() {
    static NetworkModelRegistry registry = [] {
        NetworkModelRegistry r;
        r.add({"packet",
               "packets hop by hop through the graph, store-and-forward switches",
               {},
               [](topo::NetworkSettings& s, comm::CommModelSpec&, const std::vector<KeyValue>&) {
                   s.model = topo::NetworkModel::Packet;
                   s.forwarding = topo::kStoreAndForward;
               },
               make_packet,
               {"packets", "packet hops", true, false}});
        r.add({"cut_through",
               "the packet model with cut-through switches",
               {},
               [](topo::NetworkSettings& s, comm::CommModelSpec&, const std::vector<KeyValue>&) {
                   s.model = topo::NetworkModel::Packet;
                   s.forwarding = topo::kCutThrough;
               },
               make_packet,
               {"packets", "packet hops", true, false}});
        r.add({"fluid",
               "one flow per message, max-min fair shares of links and relays",
               {},
               [](topo::NetworkSettings& s, comm::CommModelSpec&, const std::vector<KeyValue>&) {
                   s.model = topo::NetworkModel::Fluid;
               },
               [](const TransportContext& c) -> std::unique_ptr<net::Transport> {
                   return std::make_unique<net::FluidNetwork>(c.engine, c.topology, c.router,
                                                              c.client, c.seed);
               },
               {"flows", "rate recomputations", false, false}});
        return r;
    }();
    return registry;
}

std::unique_ptr<net::Transport> make_transport(TransportContext c, const std::string& chosen) {
    const std::size_t colon = chosen.find(':');
    const std::string name =
        chosen.empty() ? network_model_of(c.topology.settings, c.comm) : chosen.substr(0, colon);
    if (colon != std::string::npos)
        for (const KeyValueItem& item : split_key_values(chosen.substr(colon + 1)))
            if (item.ok) c.params.push_back(item.kv);
    if (const auto entry = network_models().find(name)) return entry->make(c);
    // An unknown <comm-model model="...">: its error names the element's line.
    if (chosen.empty() && c.topology.settings.model == topo::NetworkModel::Analytic)
        return make_analytic(c);
    throw InputError("--network", 0, fmt::format("unknown network model '{}'", name));
}

NetworkCapabilities capabilities_of(const topo::NetworkSettings& settings,
                                    const comm::CommModelSpec& comm, const std::string& chosen) {
    const std::string name =
        chosen.empty() ? network_model_of(settings, comm) : chosen.substr(0, chosen.find(':'));
    if (const auto entry = network_models().find(name)) return entry->caps;
    return {};
}

std::string network_model_of(const topo::NetworkSettings& settings,
                             const comm::CommModelSpec& comm) {
    switch (settings.model) {
        case topo::NetworkModel::Packet:
            return settings.forwarding == topo::kCutThrough ? "cut_through" : "packet";
        case topo::NetworkModel::Fluid:
            return "fluid";
        case topo::NetworkModel::Analytic:
            return comm.model;
    }
    return "packet";
}

}  // namespace clustersim::run
