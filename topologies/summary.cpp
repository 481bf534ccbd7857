#include "topologies/summary.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "simulator/text.hpp"
#include "simulator/units.hpp"

namespace clustersim::topo {
namespace {

constexpr std::uint32_t kUnset = UINT32_MAX;

// Strongly connected components (Tarjan, iterative: chains of vertices can be long).
// Returns the component of every vertex; ids are dense from 0.
std::vector<std::uint32_t> strong_components(const Topology& t, std::uint32_t& count) {
    const std::size_t n = t.num_vertices();
    std::vector<std::uint32_t> index(n, kUnset), low(n, 0), comp(n, kUnset);
    std::vector<VertexId> stack;
    std::vector<std::pair<VertexId, EdgeId>> call;  // vertex, next out-edge to look at
    std::uint32_t clock = 0;
    count = 0;
    auto visit = [&](VertexId v) {
        index[v] = low[v] = clock++;
        stack.push_back(v);
        call.emplace_back(v, t.out_edge_range(v).first);
    };
    for (VertexId s = 0; s < n; ++s) {
        if (index[s] != kUnset) continue;
        visit(s);
        while (!call.empty()) {
            const VertexId v = call.back().first;
            const EdgeId e = call.back().second;
            if (e < t.out_edge_range(v).second) {
                ++call.back().second;
                const VertexId w = t.target_of(e);
                if (index[w] == kUnset) {
                    visit(w);
                } else if (comp[w] == kUnset) {  // on the stack
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            if (low[v] == index[v]) {
                VertexId w = kNoVertex;
                do {
                    w = stack.back();
                    stack.pop_back();
                    comp[w] = count;
                } while (w != v);
                ++count;
            }
            call.pop_back();
            if (!call.empty()) {
                const VertexId u = call.back().first;
                low[u] = std::min(low[u], low[v]);
            }
        }
    }
    return comp;
}

VertexId find_root(std::vector<VertexId>& parent, VertexId v) {
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

struct SocketGroup {
    VertexId representative = kNoVertex;
    std::uint64_t sockets = 0;
    std::uint32_t component = 0;  // strong component
};

// Which network links the routes between sockets use (ModelSummary::links_used): every
// ordered pair up to 262,144 pairs, else each source to an evenly spaced subset of the
// destinations (about 262,144 pairs in all).
void path_diversity(const Topology& t, Router& router, ModelSummary& s) {
    if (!fixed_path(t.settings.routing)) return;
    auto network_link = [&](EdgeId e) {
        const VertexProps &a = t.vertex(t.source_of(e)), &b = t.vertex(t.target_of(e));
        return a.node != b.node || a.node < 0;
    };
    for (EdgeId e = 0; e < t.num_edges(); ++e) s.network_links += network_link(e) ? 1 : 0;
    if (s.network_links == 0) return;
    std::vector<VertexId> sockets;
    for (const NodeInfo& node : t.nodes)
        for (const SocketInfo& k : node.sockets) sockets.push_back(k.vertex);
    const std::uint64_t n = sockets.size();
    if (n < 2) return;
    constexpr std::uint64_t kBudget = 262'144;
    const std::uint64_t per_source =
        std::min<std::uint64_t>(n - 1, std::max<std::uint64_t>(1, kBudget / n));
    s.diversity_sampled = per_source < n - 1;
    std::vector<char> used(t.num_edges(), 0);
    std::vector<EdgeId> path;
    for (std::uint64_t i = 0; i < n; ++i) {
        for (std::uint64_t k = 1; k <= per_source; ++k) {
            // Destinations evenly spaced around the ring of sockets from i + 1 on.
            const std::uint64_t j = (i + 1 + (k - 1) * (n - 1) / per_source) % n;
            if (j == i) continue;
            path.clear();
            if (!router.append_path(sockets[i], sockets[j], path)) continue;
            ++s.diversity_pairs;
            for (const EdgeId e : path) used[e] = 1;
        }
    }
    for (EdgeId e = 0; e < t.num_edges(); ++e) s.links_used += used[e] && network_link(e) ? 1 : 0;
}

// Ordered socket pairs with a route.
std::uint64_t count_routes(const Topology& t, Router& router) {
    std::uint32_t ncomp = 0;
    const std::vector<std::uint32_t> comp = strong_components(t, ncomp);
    // Pairs a complete <routes> table leaves unrouted (SimGrid's Full zone), among sockets
    // the graph joins (counted as routed below): taken off at the end.
    std::uint64_t unrouted = 0;
    for (std::size_t i = 0; i < t.route_tables.size(); ++i) {
        const RouteTable& table = t.route_tables[i];
        if (!table.complete) continue;
        std::set<std::pair<std::uint32_t, std::uint32_t>> given;
        for (const GivenRoute& g : t.given_routes)
            if (g.table == static_cast<std::int32_t>(i)) given.emplace(g.from, g.to);
        for (const std::uint32_t a : table.nodes)
            for (const std::uint32_t b : table.nodes) {
                if (a == b || given.count({a, b})) continue;
                for (const SocketInfo& sa : t.nodes[a].sockets)
                    for (const SocketInfo& sb : t.nodes[b].sockets)
                        unrouted += comp[sa.vertex] == comp[sb.vertex] ? 1 : 0;
            }
    }

    // Sockets grouped by strong component: every ordered pair inside a group is routable
    // (a directed path exists, and the router finds a fewest-hop path whenever one does).
    std::vector<std::uint32_t> group_of_comp(ncomp, kUnset);
    std::vector<SocketGroup> groups;
    for (const NodeInfo& node : t.nodes) {
        for (const SocketInfo& s : node.sockets) {
            const std::uint32_t c = comp[s.vertex];
            if (group_of_comp[c] == kUnset) {
                group_of_comp[c] = static_cast<std::uint32_t>(groups.size());
                groups.push_back(SocketGroup{s.vertex, 0, c});
            }
            ++groups[group_of_comp[c]].sockets;
        }
    }
    std::uint64_t routed = 0;
    for (const SocketGroup& g : groups) routed += g.sockets * (g.sockets - 1);
    if (groups.size() < 2) return routed - unrouted;

    // Between groups: only groups of one weakly connected piece can reach each other.
    std::vector<VertexId> parent(t.num_vertices());
    std::iota(parent.begin(), parent.end(), VertexId{0});
    for (EdgeId e = 0; e < t.num_edges(); ++e) {
        const VertexId a = find_root(parent, t.source_of(e)), b = find_root(parent, t.target_of(e));
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
    std::unordered_map<VertexId, std::vector<std::uint32_t>> pieces;
    for (std::uint32_t g = 0; g < groups.size(); ++g)
        pieces[find_root(parent, groups[g].representative)].push_back(g);

    // Few groups in a piece (the usual case: a connected cluster is one strong component):
    // ask the router about one representative pair per ordered pair of groups. Many groups
    // (one-way chains): breadth-first search over the condensation instead.
    constexpr std::uint64_t kRouterBudget = 4096;
    std::vector<std::vector<std::uint32_t>> dag;  // condensation, built on demand
    std::vector<std::uint32_t> seen;
    std::uint32_t stamp = 0;
    for (const auto& [root, members] : pieces) {
        const std::uint64_t k = members.size();
        if (k < 2) continue;
        if (k * (k - 1) <= kRouterBudget) {
            for (std::uint32_t a : members) {
                for (std::uint32_t b : members) {
                    if (a != b &&
                        router.reachable(groups[a].representative, groups[b].representative))
                        routed += groups[a].sockets * groups[b].sockets;
                }
            }
            continue;
        }
        if (dag.empty()) {
            dag.resize(ncomp);
            for (EdgeId e = 0; e < t.num_edges(); ++e) {
                const std::uint32_t a = comp[t.source_of(e)], b = comp[t.target_of(e)];
                if (a != b) dag[a].push_back(b);
            }
            seen.assign(ncomp, 0);
        }
        std::vector<std::uint32_t> frontier;
        for (std::uint32_t a : members) {
            ++stamp;
            frontier.assign(1, groups[a].component);
            seen[groups[a].component] = stamp;
            while (!frontier.empty()) {
                const std::uint32_t c = frontier.back();
                frontier.pop_back();
                if (const std::uint32_t g = group_of_comp[c]; g != kUnset && g != a)
                    routed += groups[a].sockets * groups[g].sockets;
                for (std::uint32_t d : dag[c]) {
                    if (seen[d] != stamp) {
                        seen[d] = stamp;
                        frontier.push_back(d);
                    }
                }
            }
        }
    }
    return routed - unrouted;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "2 servers (n0: cache write_behind, disk hdd; n1: ...), stripe 64 KiB over n0 n1,
// 1 forwarder"; beyond kListed servers, counts per cache and disk model instead of names.
std::string format_io(const ModelSummary& s) {
    constexpr std::size_t kListed = 4;
    std::string out = s.io_servers.empty() ? std::string("no servers")
                                           : plural(s.io_servers.size(), "server", "servers");
    if (s.io_servers.size() <= kListed) {
        std::string list;
        for (const ModelSummary::IoServer& server : s.io_servers) {
            list += fmt::format("{}{}: cache {}, disk {}", list.empty() ? "" : "; ", server.node,
                                server.cache, server.disk);
        }
        if (!list.empty()) out += " (" + list + ")";
    } else {
        // Counts per model name, in order of first use.
        auto counts = [&](std::string ModelSummary::IoServer::*model) {
            std::vector<std::pair<std::string, std::size_t>> seen;
            for (const ModelSummary::IoServer& server : s.io_servers) {
                auto it = std::find_if(seen.begin(), seen.end(),
                                       [&](const auto& p) { return p.first == server.*model; });
                if (it == seen.end())
                    seen.emplace_back(server.*model, 1);
                else
                    ++it->second;
            }
            std::string text;
            for (const auto& [name, n] : seen)
                text += fmt::format("{}{} x {}", text.empty() ? "" : ", ", n, name);
            return text;
        };
        out += fmt::format(" (cache: {}; disk: {})", counts(&ModelSummary::IoServer::cache),
                           counts(&ModelSummary::IoServer::disk));
    }
    if (s.stripe > 0) {
        out += fmt::format(", stripe {} over ", format_size(s.stripe));
        if (s.stripe_servers.size() <= kListed) {
            for (std::size_t i = 0; i < s.stripe_servers.size(); ++i)
                out += (i == 0 ? "" : " ") + s.stripe_servers[i];
        } else if (s.stripe_all) {
            out += fmt::format("all {} servers", s.stripe_servers.size());
        } else {
            out += plural(s.stripe_servers.size(), "server", "servers");
        }
    }
    if (s.io_forwarders > 0) out += ", " + plural(s.io_forwarders, "forwarder", "forwarders");
    return out;
}

}  // namespace

ModelSummary summarize(const Topology& t, Router& router) {
    ModelSummary s;
    s.name = t.name;
    s.source = t.source;
    s.nodes = t.nodes.size();
    s.vertices = t.num_vertices();
    s.edges = t.num_edges();
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        switch (t.vertex(v).kind) {
            case VertexKind::Socket:
                ++s.sockets;
                break;
            case VertexKind::MemoryNode:
                ++s.memory_nodes;
                break;
            case VertexKind::Switch:
                ++s.switches;
                if (t.vertex(v).node >= 0) ++s.node_switches;
                break;
            case VertexKind::Nic:
                ++s.nics;
                break;
        }
    }
    s.routing = t.settings.routing;
    // As a run names it (run::network_model_of): the packet model with cut-through switches
    // is cut_through.
    s.network = t.settings.model == NetworkModel::Packet && t.settings.forwarding == kCutThrough
                    ? "cut_through"
                    : to_string(t.settings.model);
    s.nic_model = t.settings.nic_model;
    s.granularity = t.settings.granularity;
    s.eager_threshold = t.settings.eager_threshold;
    std::unordered_map<std::string, std::size_t> type_slot;
    for (const NodeInfo& node : t.nodes) {
        for (const SocketInfo& sock : node.sockets) s.cores += sock.cores;
        s.memory += node.memory;
        if (node.nic_model == NicModel::Packet) ++s.packet_nic_nodes;
        if (node.nic_model == NicModel::Analytical) ++s.analytical_nic_nodes;
        auto nic = std::find_if(s.nic_nodes.begin(), s.nic_nodes.end(),
                                [&](const auto& c) { return c.first == node.nic_model; });
        if (nic == s.nic_nodes.end())
            s.nic_nodes.emplace_back(node.nic_model, 1);
        else
            ++nic->second;
        if (node.granularity != t.settings.granularity) ++s.granularity_overrides;
        auto [it, inserted] = type_slot.try_emplace(node.type, s.node_types.size());
        if (inserted) s.node_types.emplace_back(node.type, 0);
        ++s.node_types[it->second].second;
    }
    std::sort(s.nic_nodes.begin(), s.nic_nodes.end());  // by id: packet, analytical, others
    s.socket_pairs = static_cast<std::uint64_t>(s.sockets) * (s.sockets == 0 ? 0 : s.sockets - 1);
    s.routed_pairs = count_routes(t, router);
    s.router_core = router.core_size();
    s.forwarding = forwarding_name(t.settings.forwarding);
    s.nic_forwarding = nic_forwarding(t);
    path_diversity(t, router, s);
    return s;
}

std::string forwarding_name(Forwarding f) {
    return f == kForwardingUnset ? "store_and_forward" : forwarding_models().spec(f);
}

std::string nic_forwarding(const Topology& t) {
    std::vector<std::pair<Forwarding, std::size_t>> count;  // by id, in order of appearance
    for (const NodeInfo& node : t.nodes) {
        if (node.nic == kNoVertex) continue;
        Forwarding f = t.vertex(node.nic).forwarding;
        if (f == kForwardingUnset) f = kStoreAndForward;
        auto it =
            std::find_if(count.begin(), count.end(), [f](const auto& c) { return c.first == f; });
        if (it == count.end())
            count.emplace_back(f, 1);
        else
            ++it->second;
    }
    if (count.size() == 1) return forwarding_name(count[0].first);
    std::string out;
    for (const auto& [f, n] : count)
        out += fmt::format("{}{} on {}", out.empty() ? "mixed (" : ", ", forwarding_name(f),
                           plural(n, "node", "nodes"));
    return out.empty() ? out : out + ")";
}

std::string format_summary(const ModelSummary& s) {
    auto granularity = [](std::uint64_t g) {
        return g == 0 ? std::string("whole messages") : format_size(g) + " packets";
    };
    std::string types;
    for (const auto& [type, count] : s.node_types)
        types += fmt::format("{}{} x {}", types.empty() ? "" : ", ", count, type);
    std::string out;
    out += fmt::format("model '{}'{}\n", s.name, s.source.empty() ? "" : " from " + s.source);
    auto row = [&out](const char* key, const std::string& value) {
        out += fmt::format("  {:<17}{}\n", key, value);
    };
    row("nodes", fmt::format("{}{}", s.nodes, types.empty() ? "" : " (" + types + ")"));
    row("sockets", fmt::format("{} ({})", s.sockets, plural(s.cores, "core", "cores")));
    row("memory nodes", fmt::format("{}", s.memory_nodes));
    std::string switches = fmt::format("{}", s.switches);
    if (s.node_switches > 0) {
        switches += fmt::format(" ({} inside nodes, {} in the network)", s.node_switches,
                                s.switches - s.node_switches);
    }
    row("switches", switches);
    row("NICs", fmt::format("{}", s.nics));
    row("links", fmt::format("{} one-way edges between {} vertices", s.edges, s.vertices));
    row("node memory", format_size(s.memory) + " in total");
    row("network model", s.network);
    row("routing", to_string(s.routing));
    row("forwarding", s.forwarding + " switches" +
                          (s.nic_forwarding.empty() ? "" : ", " + s.nic_forwarding + " NICs") +
                          " (packet model)");
    std::string nic = to_string(s.nic_model);
    if (s.nic_nodes.size() > 1) {
        nic += " by default; ";
        for (std::size_t i = 0; i < s.nic_nodes.size(); ++i)
            nic += fmt::format("{}{} on {}", i == 0 ? "" : ", ", to_string(s.nic_nodes[i].first),
                               plural(s.nic_nodes[i].second, "node", "nodes"));
    } else {
        nic = s.nic_nodes.empty() ? "packet" : to_string(s.nic_nodes[0].first);
        if (s.nodes > 1) nic += fmt::format(" (all {} nodes)", s.nodes);
    }
    row("NIC model", nic);
    std::string gran = granularity(s.granularity);
    if (s.granularity_overrides > 0) {
        gran += fmt::format(" by default; {} set by their node-type",
                            plural(s.granularity_overrides, "node", "nodes"));
    }
    row("granularity", gran);
    row("eager threshold", format_size(s.eager_threshold));
    if (!s.overheads.empty()) row("MPI overheads", s.overheads);
    std::string routes =
        fmt::format("{} of {} ordered socket pairs", s.routed_pairs, s.socket_pairs);
    if (s.socket_pairs > 0) {
        routes += fmt::format(" ({:.4g}%)", 100.0 * static_cast<double>(s.routed_pairs) /
                                                static_cast<double>(s.socket_pairs));
    }
    if (s.routed_pairs < s.socket_pairs) routes += "; some sockets cannot reach each other";
    row("routes", routes);
    if (s.diversity_pairs > 0) {
        std::string d = fmt::format(
            "{} of {} network links carry a route ({:.3g}%){}", with_commas(s.links_used),
            with_commas(s.network_links),
            100.0 * static_cast<double>(s.links_used) / static_cast<double>(s.network_links),
            s.diversity_sampled
                ? fmt::format(", {} sampled socket pairs", with_commas(s.diversity_pairs))
                : std::string());
        if (s.links_used < s.network_links)
            d += fmt::format(
                "; warning: {} links no route takes (parallel links the routing "
                "leaves idle? a fat tree's d_mod_k or adaptive_up, a torus's "
                "dimension_order_balanced or round_robin spread over them)",
                s.network_links - s.links_used);
        row("path diversity", d);
    }
    row("router core",
        plural(s.router_core, "vertex", "vertices") + " (the rest hang off it as trees)");
    if (!s.io_servers.empty() || s.io_forwarders > 0) row("I/O", format_io(s));
    return out;
}

}  // namespace clustersim::topo
