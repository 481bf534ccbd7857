#include "topologies/generators.hpp"

#include <unistd.h>

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"

namespace clustersim::topo {

std::uint32_t NodeTemplate::find(std::string_view local_name) const {
    // `vertices` is only appended to: index the new ones, keeping the first of a name (as
    // the linear scan this replaces did; 60,000 vertices in one type took 8 s).
    for (; indexed_ < vertices.size(); ++indexed_)
        index_.emplace(vertices[indexed_].name, static_cast<std::uint32_t>(indexed_));
    const auto it = index_.find(std::string(local_name));
    return it == index_.end() ? kNone : it->second;
}

std::size_t NodeTemplate::num_sockets() const {
    std::size_t n = 0;
    for (const auto& v : vertices) n += v.kind == VertexKind::Socket;
    return n;
}

// ---------------------------------------------------------------------------------------
// ModelBuilder

namespace {

std::string where(int line) {
    return line > 0 ? fmt::format(" (line {})", line) : std::string();
}

}  // namespace

VertexId ModelBuilder::add_vertex(VertexProps props) {
    const auto next = static_cast<VertexId>(b_.num_vertices());
    const bool dotted = props.name.find('.') != std::string::npos;
    if (const VertexId v = dotted ? find_in_node(props.name) : kNoVertex; v != kNoVertex) {
        throw ModelError(fmt::format("vertex name '{}' is already used{}", props.name,
                                     where(b_.vertex(v).line)));
    }
    auto [it, inserted] = vertices_.try_emplace(props.name, next);
    if (!inserted) {
        throw ModelError(fmt::format("vertex name '{}' is already used{}", props.name,
                                     where(b_.vertex(it->second).line)));
    }
    dotted_ += dotted;
    return b_.add_vertex(std::move(props));
}

VertexId ModelBuilder::find_in_node(std::string_view name) const {
    const auto dot = name.rfind('.');
    if (dot == std::string_view::npos) return kNoVertex;
    const auto it = nodes_.find(name.substr(0, dot));
    if (it == nodes_.end()) return kNoVertex;
    const NodeVertices& nv = node_vertices_[it->second];
    for (VertexId v = nv.first; v < nv.first + nv.count; ++v)
        if (b_.vertex(v).name == name) return v;
    return kNoVertex;
}

VertexId ModelBuilder::find(std::string_view name) const {
    if (const VertexId v = find_in_node(name); v != kNoVertex) return v;
    auto it = vertices_.find(name);
    return it == vertices_.end() ? kNoVertex : it->second;
}

void ModelBuilder::reserve(const NodeTemplate& type, std::uint64_t nodes) {
    // The nodes' own vertices and edges, and a cable (two edges) per node to the fabric: a
    // star's exact count, a lower bound for the others.
    b_.reserve(nodes * type.vertices.size(), nodes * (type.edges.size() + 2));
    nodes_.reserve(nodes_.size() + nodes);
    node_vertices_.reserve(node_vertices_.size() + nodes);
    b_.nodes().reserve(b_.nodes().size() + nodes);
}

std::uint32_t ModelBuilder::add_node(const NodeTemplate& type, const std::string& name, int line) {
    auto& nodes = b_.nodes();
    if (nodes.size() >= kMaxNodes)
        throw ModelError(fmt::format("too many nodes: at most {} are supported", kMaxNodes));
    const auto index = static_cast<std::uint32_t>(nodes.size());
    auto [it, inserted] = nodes_.try_emplace(name, index);
    if (!inserted) {
        throw ModelError(
            fmt::format("node name '{}' is already used{}", name, where(nodes[it->second].line)));
    }
    const NetworkSettings& net = b_.settings();
    NodeInfo info;
    info.name = name;
    info.type = type.name;
    info.memory = type.memory;
    info.nic_model = type.nic_model.value_or(net.nic_model);
    info.granularity = type.granularity.value_or(net.granularity);
    info.line = line;
    info.sockets.reserve(type.num_sockets());

    const auto first = static_cast<VertexId>(b_.num_vertices());
    std::string full;
    for (const TemplateVertex& tv : type.vertices) {
        full.assign(name);
        full += '.';
        full += tv.name;
        VertexProps p;
        p.name = full;
        p.kind = tv.kind;
        p.relay = tv.relay;
        p.local = tv.local;
        p.forwarding = tv.forwarding;
        p.node = static_cast<std::int32_t>(index);
        if (tv.kind == VertexKind::Socket)
            p.socket = static_cast<std::int32_t>(info.sockets.size());
        p.line = tv.line;
        // Unique by construction (see NodeVertices) unless a dotted top-level name was added.
        if (dotted_ != 0) {
            if (const auto top = vertices_.find(full); top != vertices_.end()) {
                nodes_.erase(it);
                throw ModelError(fmt::format("vertex name '{}' is already used{}", full,
                                             where(b_.vertex(top->second).line)));
            }
        }
        const VertexId v = b_.add_vertex(std::move(p));
        if (tv.kind == VertexKind::Socket)
            info.sockets.push_back(SocketInfo{v, tv.cores, tv.speed});
    }
    if (type.nic != NodeTemplate::kNone) info.nic = first + type.nic;
    for (const TemplateEdge& e : type.edges)
        b_.add_edge(first + e.from, first + e.to, e.latency, e.bandwidth, e.line);
    nodes.push_back(std::move(info));
    node_vertices_.push_back(
        NodeVertices{first, static_cast<std::uint32_t>(b_.num_vertices() - first)});
    return index;
}

// ---------------------------------------------------------------------------------------
// Generators

namespace {

void require_nic(const NodeTemplate& type, const char* generator) {
    if (type.nic == NodeTemplate::kNone) {
        throw ModelError(fmt::format(
            "node-type '{}' has no <nic>; expected one, the {} links attach to the nodes' NICs",
            type.name, generator));
    }
}

void check_node_count(std::uint64_t nodes, const char* what) {
    if (nodes == 0) throw ModelError(fmt::format("{}: expected at least 1 node", what));
    if (nodes > kMaxNodes)
        throw ModelError(
            fmt::format("{}: {} nodes, at most {} are supported", what, nodes, kMaxNodes));
}

// Adds nodes "<prefix>0" .. "<prefix>N-1" and returns their NIC vertices.
std::vector<VertexId> add_nodes(ModelBuilder& mb, const NodeTemplate& type,
                                const std::string& prefix, std::uint64_t count, int line) {
    // A model costs about 192 bytes per vertex and per one-way edge once built (1,048,576
    // star nodes of 3 vertices and 2 cables each: 1.7 GiB). Refuse before allocating what
    // this machine cannot hold (2^24 such nodes took 8 GiB, then more).
    const std::uint64_t items = type.vertices.size() + type.edges.size() * 2 + 2;
    const std::uint64_t need = count * items * 192;
    const auto pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 &&
        need > static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page))
        throw ModelError(fmt::format(
            "{} nodes of type '{}' need about {} once built (192 B per vertex and edge) but "
            "this machine has {} of memory (docs/limits.md)",
            count, type.name, format_size(need),
            format_size(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page))));
    mb.reserve(type, count);
    std::vector<VertexId> nics;
    nics.reserve(count);
    std::string name;
    for (std::uint64_t i = 0; i < count; ++i) {
        name.assign(prefix);
        name += std::to_string(i);
        const std::uint32_t node = mb.add_node(type, name, line);
        nics.push_back(mb.builder().nodes()[node].nic);
    }
    return nics;
}

// a * b, or 0 if it exceeds `limit` (all operands are >= 1, so 0 flags the overflow).
std::uint64_t mul_capped(std::uint64_t a, std::uint64_t b, std::uint64_t limit) {
    if (a != 0 && b > limit / a) return 0;
    const std::uint64_t r = a * b;
    return r > limit ? 0 : r;
}

}  // namespace

void expand_star(ModelBuilder& mb, const NodeTemplate& type, const StarSpec& spec, int line) {
    require_nic(type, "star");
    check_node_count(spec.nodes, "<star> attribute 'nodes'");
    VertexProps sw;
    sw.name = spec.switch_name.empty() ? spec.prefix + "sw" : spec.switch_name;
    sw.kind = VertexKind::Switch;
    sw.relay = spec.switch_bandwidth;
    sw.line = line;
    const VertexId hub = mb.add_vertex(std::move(sw));
    const std::vector<VertexId> nics = add_nodes(mb, type, spec.prefix, spec.nodes, line);
    for (VertexId nic : nics)
        mb.builder().add_cable(nic, hub, spec.link.latency, spec.link.bandwidth, line);
}

FatTreeShape fat_tree_shape(const std::vector<std::uint64_t>& down,
                            const std::vector<std::uint64_t>& up,
                            const std::vector<std::uint64_t>& parallel) {
    const std::size_t h = down.size();
    if (h == 0) throw ModelError("a fat tree needs at least 1 level");
    if (up.size() != h) {
        throw ModelError(
            fmt::format("a fat tree with {} levels needs {} 'up' values, got {}", h, h, up.size()));
    }
    if (!parallel.empty() && parallel.size() != h) {
        throw ModelError(fmt::format("a fat tree with {} levels needs {} 'parallel' values, got {}",
                                     h, h, parallel.size()));
    }
    for (std::size_t i = 0; i < h; ++i) {
        if (down[i] == 0 || up[i] == 0 || (!parallel.empty() && parallel[i] == 0))
            throw ModelError("fat-tree 'down', 'up' and 'parallel' values must be at least 1");
    }
    constexpr std::uint64_t kMaxCables = 1ULL << 28;
    FatTreeShape s;
    s.nodes = 1;
    for (std::uint64_t d : down) {
        s.nodes = mul_capped(s.nodes, d, kMaxNodes);
        if (s.nodes == 0) {
            throw ModelError(
                fmt::format("the fat tree has more than {} nodes (product of 'down')", kMaxNodes));
        }
    }
    // Level l holds prod_{i>l} d_i * prod_{i<=l} u_i vertices (level 0: the nodes).
    std::uint64_t below = s.nodes;  // vertices at level l-1
    std::uint64_t total = 0;
    for (std::size_t l = 1; l <= h; ++l) {
        const std::uint64_t p = parallel.empty() ? 1 : parallel[l - 1];
        const std::uint64_t links =
            mul_capped(mul_capped(below, up[l - 1], kMaxCables), p, kMaxCables);
        const std::uint64_t level = mul_capped(below / down[l - 1], up[l - 1], kMaxNodes);
        total += level;
        if (links == 0 || level == 0 || total > kMaxNodes)
            throw ModelError("the fat tree is too large (too many switches or cables)");
        s.switches.push_back(level);
        s.cables.push_back(links);
        below = level;
    }
    return s;
}

void expand_fat_tree(ModelBuilder& mb, const NodeTemplate& type, const FatTreeSpec& spec,
                     int line) {
    require_nic(type, "fat-tree");
    const FatTreeShape shape = fat_tree_shape(spec.down, spec.up, spec.parallel);
    const std::string sw_prefix =
        spec.switch_prefix.empty() ? spec.prefix + "sw" : spec.switch_prefix;
    std::vector<VertexId> below = add_nodes(mb, type, spec.prefix, shape.nodes, line);
    Fabric fabric;
    fabric.kind = Fabric::Kind::FatTree;
    fabric.dims = spec.down;
    fabric.up = spec.up;
    fabric.parallel =
        spec.parallel.empty() ? std::vector<std::uint64_t>(spec.down.size(), 1) : spec.parallel;
    fabric.nics = below;
    fabric.line = line;
    std::vector<VertexId> level;
    std::uint64_t u_below = 1;  // prod_{i<l} u_i: the radix of the b-part of level l-1 labels
    for (std::size_t l = 1; l <= spec.down.size(); ++l) {
        const std::uint64_t d = spec.down[l - 1], u = spec.up[l - 1];
        const std::uint64_t p = spec.parallel.empty() ? 1 : spec.parallel[l - 1];
        level.clear();
        level.reserve(shape.switches[l - 1]);
        for (std::uint64_t i = 0; i < shape.switches[l - 1]; ++i) {
            VertexProps sw;
            sw.name = fmt::format("{}{}_{}", sw_prefix, l, i);
            sw.kind = VertexKind::Switch;
            sw.relay = spec.switch_bandwidth;
            sw.line = line;
            level.push_back(mb.add_vertex(std::move(sw)));
        }
        // Index of a level-l label (a_{l+1}..a_h ; b_1..b_l) = a_part * U_l + b_part, with
        // a_{l+1} and b_1 the least significant digits. A child at level l-1 with
        // index x = a_part' * U_{l-1} + b_part' (a_part' = a_l + d_l * a_part) connects to
        // the parents a_part * U_l + b_part' + b_l * U_{l-1} for b_l in [0, u_l).
        const std::uint64_t u_level = u_below * u;
        for (std::uint64_t x = 0; x < below.size(); ++x) {
            const std::uint64_t b_part = x % u_below;
            const std::uint64_t a_part = x / u_below / d;
            for (std::uint64_t b = 0; b < u; ++b) {
                const VertexId parent = level[a_part * u_level + b_part + b * u_below];
                for (std::uint64_t k = 0; k < p; ++k)
                    mb.builder().add_cable(below[x], parent, spec.link.latency, spec.link.bandwidth,
                                           line);
            }
        }
        fabric.levels.push_back(level);
        below.swap(level);
        u_below = u_level;
    }
    mb.builder().fabrics().push_back(std::move(fabric));
}

void expand_torus(ModelBuilder& mb, const NodeTemplate& type, const TorusSpec& spec, int line) {
    require_nic(type, "torus");
    if (spec.dims.empty()) throw ModelError("a torus needs at least 1 dimension");
    std::uint64_t nodes = 1;
    for (std::uint64_t d : spec.dims) {
        if (d == 0) throw ModelError("torus dimensions must be at least 1");
        nodes = mul_capped(nodes, d, kMaxNodes);
        if (nodes == 0)
            throw ModelError(fmt::format("the torus has more than {} nodes", kMaxNodes));
    }
    const std::vector<VertexId> nics = add_nodes(mb, type, spec.prefix, nodes, line);
    // Row-major: the last dimension varies fastest.
    std::vector<std::uint64_t> stride(spec.dims.size());
    std::uint64_t s = 1;
    for (std::size_t k = spec.dims.size(); k-- > 0;) {
        stride[k] = s;
        s *= spec.dims[k];
    }
    for (std::uint64_t i = 0; i < nodes; ++i) {
        for (std::size_t k = 0; k < spec.dims.size(); ++k) {
            const std::uint64_t d = spec.dims[k];
            const std::uint64_t c = (i / stride[k]) % d;
            if (d == 1) continue;  // no link (SimGrid: a self-link no route uses)
            if (d == 2 && c == 1 && !spec.per_node_links) continue;  // the pair's one cable
            const std::uint64_t next = (c + 1) % d;
            const std::uint64_t j = i - c * stride[k] + next * stride[k];
            mb.builder().add_cable(nics[i], nics[j], spec.link.latency, spec.link.bandwidth, line);
        }
    }
    Fabric fabric;
    fabric.kind = Fabric::Kind::Torus;
    fabric.dims.assign(spec.dims.rbegin(), spec.dims.rend());
    fabric.nics = nics;
    fabric.line = line;
    mb.builder().fabrics().push_back(std::move(fabric));
}

DragonflyShape dragonfly_shape(std::uint64_t groups, std::uint64_t routers,
                               std::uint64_t nodes_per_router, std::uint64_t global_links) {
    if (groups == 0 || routers == 0 || nodes_per_router == 0 || global_links == 0) {
        throw ModelError(
            "dragonfly groups, routers, nodes-per-router and global-links must be at least 1");
    }
    constexpr std::uint64_t kMaxCables = 1ULL << 28;
    const std::uint64_t ports = mul_capped(routers, global_links, kMaxCables);  // per group
    if (ports == 0) {
        throw ModelError(
            fmt::format("the dragonfly has more than {} global ports per group "
                        "(routers x global-links)",
                        kMaxCables));
    }
    if (groups - 1 > ports) {
        throw ModelError(
            fmt::format("{} groups cannot all be joined by global cables: a group has routers x "
                        "global-links = {} x {} = {} global ports; expected groups <= {} + 1 = {}",
                        groups, routers, global_links, ports, ports, ports + 1));
    }
    DragonflyShape s;
    s.routers = mul_capped(groups, routers, kMaxNodes);
    s.nodes = s.routers == 0 ? 0 : mul_capped(s.routers, nodes_per_router, kMaxNodes);
    if (s.nodes == 0) {
        throw ModelError(fmt::format(
            "the dragonfly has more than {} nodes (groups x routers x nodes-per-router)",
            kMaxNodes));
    }
    // routers <= 2^24 here, so a(a-1)/2 and g * ports / 2 cannot overflow 64 bits.
    s.local_cables = groups * (routers * (routers - 1) / 2);
    if (groups > 1) {
        const std::uint64_t m = groups - 1;
        const std::uint64_t rest = ports % m;
        s.cables_per_pair = ports / m;
        s.global_cables = s.cables_per_pair * (groups * m / 2) + rest * (rest + 1) / 2;
    }
    if (s.local_cables + s.global_cables > kMaxCables) {
        throw ModelError(
            fmt::format("the dragonfly has more than {} router-to-router cables", kMaxCables));
    }
    return s;
}

DragonflySize balanced_dragonfly(std::uint64_t nodes) {
    if (nodes == 0) throw ModelError("a dragonfly needs at least 1 node");
    if (nodes > kMaxNodes)
        throw ModelError(fmt::format("{} nodes, at most {} are supported", nodes, kMaxNodes));
    DragonflySize best;
    std::uint64_t best_total = UINT64_MAX;
    for (std::uint64_t p = 1;; ++p) {
        const std::uint64_t per_group = 2 * p * p;  // a * p with a = 2p
        const std::uint64_t groups = (nodes + per_group - 1) / per_group;
        if (groups <= per_group + 1 && groups * per_group < best_total) {  // a * h + 1 = 2p^2 + 1
            best = DragonflySize{groups, 2 * p, p, p};
            best_total = groups * per_group;
        }
        if (groups == 1) break;  // a larger p only adds nodes
    }
    return best;
}

namespace {

// A dragonfly's routers, group by group (router r of group i is the (i * a + r)-th), named by
// `name(i, r)`, and its nodes in order group, router, slot (node x hangs off router x / p,
// which the caller cables), each node's vertices tagged with its group.
template <class Name>
std::vector<VertexId> add_dragonfly_routers(ModelBuilder& mb, const DragonflySpec& spec,
                                            std::uint64_t g, std::uint64_t a, Name&& name,
                                            int line) {
    std::vector<VertexId> routers;
    routers.reserve(g * a);
    for (std::uint64_t i = 0; i < g; ++i) {
        for (std::uint64_t r = 0; r < a; ++r) {
            VertexProps sw;
            sw.name = name(i, r);
            sw.kind = VertexKind::Switch;
            sw.relay = spec.router_bandwidth;
            sw.group = static_cast<std::int32_t>(i);
            sw.line = line;
            routers.push_back(mb.add_vertex(std::move(sw)));
        }
    }
    return routers;
}
std::vector<VertexId> add_dragonfly_nodes(ModelBuilder& mb, const NodeTemplate& type,
                                          const DragonflySpec& spec, std::uint64_t nodes,
                                          std::uint64_t per_group, int line) {
    TopologyBuilder& b = mb.builder();
    const std::size_t first_node = b.nodes().size();
    const VertexId first_vertex = static_cast<VertexId>(b.num_vertices());
    std::vector<VertexId> nics = add_nodes(mb, type, spec.prefix, nodes, line);
    for (VertexId v = first_vertex; v < b.num_vertices(); ++v) {
        const auto x = static_cast<std::uint64_t>(b.vertex(v).node) - first_node;
        b.vertex(v).group = static_cast<std::int32_t>(x / per_group);
    }
    return nics;
}

// SimGrid's DragonflyZone wiring (DragonflySpec::chassis > 0).
void expand_simgrid_dragonfly(ModelBuilder& mb, const NodeTemplate& type, const DragonflySpec& spec,
                              int line) {
    const std::uint64_t g = spec.groups, c = spec.chassis, bl = spec.routers,
                        p = spec.nodes_per_router;
    if (g == 0 || c == 0 || bl == 0 || p == 0)
        throw ModelError(
            "dragonfly groups, chassis, routers and nodes-per-router must be at least 1");
    if (g > bl)
        throw ModelError(fmt::format(
            "SimGrid's dragonfly wiring puts the global cable to group j on router j of chassis "
            "0: {} groups need at least {} routers per chassis, not {}",
            g, g, bl));
    const std::uint64_t a = mul_capped(c, bl, kMaxNodes);
    const std::uint64_t n_routers = a == 0 ? 0 : mul_capped(g, a, kMaxNodes);
    const std::uint64_t nodes = n_routers == 0 ? 0 : mul_capped(n_routers, p, kMaxNodes);
    if (nodes == 0)
        throw ModelError(fmt::format(
            "the dragonfly has more than {} nodes (groups x chassis x routers x nodes-per-router)",
            kMaxNodes));
    const std::string sw_prefix =
        spec.switch_prefix.empty() ? spec.prefix + "df" : spec.switch_prefix;
    TopologyBuilder& b = mb.builder();
    Fabric fabric;
    fabric.kind = Fabric::Kind::Dragonfly;
    fabric.dims = {g, c, bl, p};
    fabric.line = line;
    fabric.levels.push_back(add_dragonfly_routers(
        mb, spec, g, a,
        [&](std::uint64_t i, std::uint64_t r) {
            return fmt::format("{}g{}c{}r{}", sw_prefix, i, r / bl, r % bl);
        },
        line));
    const std::vector<VertexId>& routers = fabric.levels[0];
    fabric.nics = add_dragonfly_nodes(mb, type, spec, nodes, a * p, line);
    for (std::uint64_t x = 0; x < nodes; ++x)
        b.add_cable(fabric.nics[x], routers[x / p], spec.link.latency, spec.link.bandwidth, line);
    // Green: the routers of a chassis pairwise.
    for (std::uint64_t ch = 0; ch < g * c; ++ch)
        for (std::uint64_t j = 0; j < bl; ++j)
            for (std::uint64_t k = j + 1; k < bl; ++k)
                b.add_cable(routers[ch * bl + j], routers[ch * bl + k], spec.local.latency,
                            spec.local.bandwidth, line);
    // Black: the routers of one blade number in the chassis of a group pairwise.
    for (std::uint64_t i = 0; i < g; ++i)
        for (std::uint64_t j = 0; j < c; ++j)
            for (std::uint64_t k = j + 1; k < c; ++k)
                for (std::uint64_t l = 0; l < bl; ++l)
                    b.add_cable(routers[i * a + j * bl + l], routers[i * a + k * bl + l],
                                spec.chassis_link.latency, spec.chassis_link.bandwidth, line);
    // Blue: groups i < j, router j of group i to router i of group j.
    for (std::uint64_t i = 0; i < g; ++i)
        for (std::uint64_t j = i + 1; j < g; ++j)
            b.add_cable(routers[i * a + j], routers[j * a + i], spec.global.latency,
                        spec.global.bandwidth, line);
    b.fabrics().push_back(std::move(fabric));
}

}  // namespace

void expand_dragonfly(ModelBuilder& mb, const NodeTemplate& type, const DragonflySpec& spec,
                      int line) {
    require_nic(type, "dragonfly");
    if (spec.chassis > 0) {
        expand_simgrid_dragonfly(mb, type, spec, line);
        return;
    }
    const std::uint64_t g = spec.groups, a = spec.routers, p = spec.nodes_per_router,
                        h = spec.global_links;
    const DragonflyShape shape = dragonfly_shape(g, a, p, h);
    const std::string sw_prefix =
        spec.switch_prefix.empty() ? spec.prefix + "df" : spec.switch_prefix;
    TopologyBuilder& b = mb.builder();

    // Routers, group by group: router r of group i is routers[i * a + r].
    const std::vector<VertexId> routers = add_dragonfly_routers(
        mb, spec, g, a,
        [&](std::uint64_t i, std::uint64_t r) { return fmt::format("{}g{}r{}", sw_prefix, i, r); },
        line);

    // Nodes in order group, router, slot: node x hangs off routers[x / p].
    const std::vector<VertexId> nics =
        add_dragonfly_nodes(mb, type, spec, shape.nodes, a * p, line);
    for (std::uint64_t x = 0; x < shape.nodes; ++x)
        b.add_cable(nics[x], routers[x / p], spec.link.latency, spec.link.bandwidth, line);

    // Local cables: every pair of routers inside a group.
    for (std::uint64_t i = 0; i < g; ++i)
        for (std::uint64_t r = 0; r < a; ++r)
            for (std::uint64_t q = r + 1; q < a; ++q)
                b.add_cable(routers[i * a + r], routers[i * a + q], spec.local.latency,
                            spec.local.bandwidth, line);

    // Global cables (the arrangement is described in generators.hpp), each added once, from
    // its lower group i to group j > i, where i is the i-th of j's other groups.
    if (g > 1) {
        const std::uint64_t m = g - 1, ports = a * h;
        for (std::uint64_t i = 0; i < g; ++i) {
            for (std::uint64_t k = 0; k < ports; ++k) {
                const std::uint64_t t = k % m;
                if (t < i) continue;  // j = t < i: added from group j
                const std::uint64_t j = t + 1;
                const std::uint64_t back = k / m * m + i;  // the port of j, same round
                if (back >= ports) continue;  // partial round: j has no port left for i
                b.add_cable(routers[i * a + k / h], routers[j * a + back / h], spec.global.latency,
                            spec.global.bandwidth, line);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// generate_model_xml

namespace {

// The largest divisor of n not above sqrt(n).
std::uint32_t square_divisor(std::uint32_t n) {
    auto r = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(n)));
    while (r > 1 && static_cast<std::uint64_t>(r) * r > n) --r;
    while ((static_cast<std::uint64_t>(r) + 1) * (r + 1) <= n) ++r;
    for (; r > 1; --r)
        if (n % r == 0) return r;
    return 1;
}

void check_positive(Bandwidth bw, const char* what) {
    if (bw.infinite())
        throw InputError("", 0, fmt::format("{} must be a positive bandwidth", what));
}

}  // namespace

Routing natural_routing(const std::string& kind) {
    if (kind == "fat-tree") return Routing::DModK;
    if (kind == "torus") return Routing::DimensionOrderBalanced;
    if (kind == "dragonfly") return Routing::UgalL;
    return Routing::ShortestPath;  // star: one path
}

std::uint64_t default_packet_size(const std::string& kind) {
    (void)kind;  // the same MTU on every kind today; a kind may get its own
    return 4 * 1024;
}

Forwarding default_forwarding(const std::string& kind) {
    (void)kind;
    return kCutThrough;
}

std::string generate_model_xml(const GenerateOptions& options) {
    // The defaults that depend on other options, resolved once (GenerateOptions).
    GenerateOptions o = options;
    if (!o.routing) o.routing = natural_routing(o.kind);
    if (!o.granularity) o.granularity = default_packet_size(o.kind);
    if (!o.forwarding) o.forwarding = default_forwarding(o.kind);
    const std::string forwarding = forwarding_models().spec(*o.forwarding);
    if (!o.local_bandwidth) o.local_bandwidth = o.link_bandwidth;
    if (!o.global_bandwidth) o.global_bandwidth = o.link_bandwidth;
    if (!o.local_latency) o.local_latency = o.link_latency;
    if (!o.global_latency) o.global_latency = o.link_latency + o.link_latency;
    const Routing routing = *o.routing;
    if (o.kind != "star" && o.kind != "fat-tree" && o.kind != "torus" && o.kind != "dragonfly") {
        throw InputError("", 0,
                         fmt::format("unknown topology kind '{}'; expected star, "
                                     "fat-tree or torus, or dragonfly",
                                     o.kind));
    }
    if (needs_dragonfly(routing) && o.kind != "dragonfly") {
        throw InputError("", 0,
                         fmt::format("{} routing needs a dragonfly (it routes through a "
                                     "random other group); expected shortest_path or "
                                     "round_robin for a {}",
                                     to_string(routing), o.kind));
    }
    if ((needs_torus(routing) && o.kind != "torus") ||
        (needs_fat_tree(routing) && o.kind != "fat-tree")) {
        throw InputError("", 0,
                         fmt::format("{} routing needs a {}; expected shortest_path, round_robin "
                                     "or simgrid for a {}",
                                     to_string(routing),
                                     needs_fat_tree(routing) ? "fat-tree" : "torus", o.kind));
    }
    if (o.sockets == 0) throw InputError("", 0, "expected at least 1 socket per node");
    if (o.cores == 0) throw InputError("", 0, "expected at least 1 core per socket");
    if (o.cpu_speed == 0) throw InputError("", 0, "the CPU speed must be positive");
    check_positive(o.link_bandwidth, "the link bandwidth");
    check_positive(o.memory_bandwidth, "the memory bandwidth");
    if (o.sockets > 1) check_positive(o.inter_socket_bandwidth, "the inter-socket bandwidth");

    // The generator element is built before the document (it decides the cluster's name) and
    // adopted after the node type.
    std::string name;
    XmlElement generator("");
    auto check_list = [](const std::vector<std::uint32_t>& v, const char* what) {
        for (std::uint32_t x : v)
            if (x == 0) throw InputError("", 0, fmt::format("{} values must be at least 1", what));
    };
    auto wide = [](const std::vector<std::uint32_t>& v) {
        return std::vector<std::uint64_t>(v.begin(), v.end());
    };
    if (o.kind == "star") {
        if (o.nodes == 0) throw InputError("", 0, "expected at least 1 node");
        name = fmt::format("star-{}", o.nodes);
        generator = XmlElement("star");
        generator.text("type", "node")
            .count("nodes", o.nodes)
            .text("prefix", "n")
            .text("switch", "sw");
        generator.bandwidth_if_limited("switch-bandwidth", o.switch_bandwidth);
    } else if (o.kind == "fat-tree") {
        std::vector<std::uint32_t> down = o.down, up = o.up;
        if (down.empty()) {
            if (!up.empty()) throw InputError("", 0, "fat-tree 'up' given without 'down'");
            if (o.nodes == 0) throw InputError("", 0, "expected at least 1 node");
            const std::uint32_t d1 = square_divisor(o.nodes);
            down = {d1, o.nodes / d1};
            up = {1, d1};
        } else if (up.empty()) {
            up.push_back(1);
            for (std::size_t l = 1; l < down.size(); ++l) up.push_back(down[l - 1]);
        }
        check_list(down, "fat-tree 'down'");
        check_list(up, "fat-tree 'up'");
        if (up.size() != down.size()) {
            throw InputError("", 0,
                             fmt::format("fat-tree 'down' has {} values but 'up' has {}",
                                         down.size(), up.size()));
        }
        std::uint64_t nodes = 1;
        for (std::uint32_t d : down) nodes *= d;
        name = fmt::format("fat-tree-{}", nodes);
        generator = XmlElement("fat-tree");
        generator.text("type", "node")
            .count("levels", down.size())
            .list("down", wide(down))
            .list("up", wide(up))
            .text("prefix", "n")
            .bandwidth_if_limited("switch-bandwidth", o.switch_bandwidth);
    } else if (o.kind == "dragonfly") {
        std::uint64_t g = o.groups, a = o.routers, p = o.nodes_per_router, h = o.global_links;
        DragonflyShape shape;
        try {
            if (g == 0 && a == 0 && p == 0 && h == 0) {
                if (o.nodes == 0) throw InputError("", 0, "expected at least 1 node");
                const DragonflySize b = balanced_dragonfly(o.nodes);
                g = b.groups;
                a = b.routers;
                p = b.nodes_per_router;
                h = b.global_links;
            } else if (a == 0 || p == 0 || h == 0) {
                throw InputError("", 0,
                                 "a dragonfly shape needs routers, nodes per router and global "
                                 "links (at least 1 each), or none of them and no groups for a "
                                 "balanced dragonfly of the given number of nodes");
            } else if (g == 0) {
                g = a * h + 1;
            }
            shape = dragonfly_shape(g, a, p, h);
        } catch (const ModelError& e) {
            throw InputError("", 0, e.what());
        }
        check_positive(*o.local_bandwidth, "the local bandwidth");
        check_positive(*o.global_bandwidth, "the global bandwidth");
        name = fmt::format("dragonfly-{}", shape.nodes);
        generator = XmlElement("dragonfly");
        generator.text("type", "node")
            .count("groups", g)
            .count("routers", a)
            .count("nodes-per-router", p)
            .count("global-links", h)
            .text("prefix", "n")
            .bandwidth_if_limited("router-bandwidth", o.switch_bandwidth);
    } else {
        std::vector<std::uint32_t> dims = o.dims;
        if (dims.empty()) {
            if (o.nodes == 0) throw InputError("", 0, "expected at least 1 node");
            const std::uint32_t a = square_divisor(o.nodes);
            dims = a == 1 ? std::vector<std::uint32_t>{o.nodes}
                          : std::vector<std::uint32_t>{a, o.nodes / a};
        }
        check_list(dims, "torus dimension");
        name = fmt::format("torus-{}", fmt::join(dims, "x"));
        generator = XmlElement("torus");
        generator.text("type", "node").list("dims", wide(dims)).text("prefix", "n");
    }
    generator.link("link", o.link_latency, o.link_bandwidth);
    if (o.kind == "dragonfly") {
        generator.link("local", *o.local_latency, *o.local_bandwidth);
        generator.link("global", *o.global_latency, *o.global_bandwidth);
    }

    ModelDocument doc(name);
    doc.add_comment(fmt::format("Generated by `clustersim generate {}`{}.", o.kind,
                                o.command.empty() ? "" : "; the command line is below"));
    // The command line as given (an XML comment may not hold "--"; a processing instruction
    // may, and the model reader skips it), as clustersim-calibrate records its own.
    if (!o.command.empty()) doc.add_processing_instruction("clustersim-generate", o.command);
    XmlElement& cluster = doc.cluster();
    // The switches and the NICs forward alike: a NIC left unset would store and forward
    // each packet (topologies/topology.hpp, VertexProps::forwarding).
    cluster.add_network()
        .text("forwarding", forwarding)
        .size_or_message("granularity", *o.granularity)
        .text("routing", to_string(routing))
        .text("nic", to_string(o.nic))
        .size("eager-threshold", o.eager_threshold);
    XmlElement& type = cluster.add_node_type("node", o.memory);
    for (std::uint32_t i = 0; i < o.sockets; ++i)
        type.add_socket(fmt::format("s{}", i), o.cores, o.cpu_speed);
    for (std::uint32_t i = 0; i < o.sockets; ++i) {
        type.add_memory_node(fmt::format("mem{}", i))
            .bandwidth("bandwidth", o.memory_bandwidth)
            .bandwidth("local-bandwidth", o.memory_bandwidth);
    }
    if (o.sockets > 1) type.add_switch("qpi", o.inter_socket_bandwidth);
    type.add_nic("nic").text("forwarding", forwarding);
    for (std::uint32_t i = 0; i < o.sockets; ++i) {
        type.add_cable(fmt::format("s{}", i), fmt::format("mem{}", i), o.memory_latency,
                       o.memory_bandwidth);
    }
    if (o.sockets > 1) {
        for (std::uint32_t i = 0; i < o.sockets; ++i) {
            type.add_cable(fmt::format("mem{}", i), "qpi", o.inter_socket_latency,
                           o.inter_socket_bandwidth);
        }
        type.add_cable("nic", "qpi", o.inter_socket_latency, o.inter_socket_bandwidth);
    } else {
        type.add_cable("nic", "mem0", o.memory_latency, o.memory_bandwidth);
    }
    cluster.adopt(std::move(generator));
    return doc.str();
}

}  // namespace clustersim::topo
