// SimGrid <cluster topology=FAT_TREE|TORUS|DRAGONFLY> as clustersim generators, one
// function per kind.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "import/import.hpp"
#include "import/simgrid_importer.hpp"
#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces::simgrid_import {

// FAT_TREE: "levels;down,...;up,...;parallel,..."; false (with `star_reason`) when the
// parameters do not describe the hosts.
bool SimgridImporter::fat_tree_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                       std::string& star_reason) {
    std::vector<std::string> parts;
    split_on(cl.params, ';', parts);
    std::vector<std::uint64_t> down, up, par;
    std::uint64_t levels = 0;
    bool good = parts.size() == 4 && parse_list(parts[0], down) && down.size() == 1;
    if (good) levels = down[0];
    good = good && parse_list(parts[1], down) && parse_list(parts[2], up) &&
           parse_list(parts[3], par) && down.size() == levels && up.size() == levels &&
           par.size() == levels;
    std::uint64_t nodes = 1;
    for (const std::uint64_t d : down) nodes *= d;
    if (!good) {
        star_reason = fmt::format(
            "topo_parameters '{}' are not 'levels;down,...;up,...;"
            "parallel,...'",
            cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else {
        const std::string p = node_prefix(cl.base, cl.id, cl.count);
        const std::string sw = unique(sanitize(cl.id) + "_sw");
        topo::XmlElement e = cluster_generator(n, cl, "fat-tree", p);
        e.text("switch-prefix", sw)
            .count("levels", levels)
            .list("down", down)
            .list("up", up)
            .list("parallel", par)
            .bandwidth_if_limited("switch-bandwidth", Bandwidth{cl.limiter})
            .link("link", cl.lat, Bandwidth{cl.bw});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, p);
        not_routable_router(cl, "the router of a FAT_TREE cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a FAT_TREE has no backbone");
        return true;
    }
    return false;
}

// TORUS: "a,b,...".
bool SimgridImporter::torus_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                    std::string& star_reason) {
    std::vector<std::uint64_t> dims;
    std::uint64_t nodes = 1;
    const bool good = parse_list(cl.params, dims);
    for (const std::uint64_t d : dims) nodes *= d;
    if (!good) {
        star_reason = fmt::format("topo_parameters '{}' are not dimensions 'a,b,...'", cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else {
        // SimGrid's first dimension varies fastest, clustersim's last: reverse them.
        const std::string p = node_prefix(cl.base, cl.id, cl.count);
        topo::XmlElement e = cluster_generator(n, cl, "torus", p);
        e.list("dims", std::vector<std::uint64_t>(dims.rbegin(), dims.rend()))
            .text("wiring", "simgrid")
            .link("link", cl.lat, Bandwidth{cl.bw});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, p);
        not_routable_router(cl, "the router of a TORUS cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a TORUS has no backbone");
        return true;
    }
    return false;
}

// DRAGONFLY: "groups,links;chassis,links;routers,links;nodes".
bool SimgridImporter::dragonfly_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                        std::string& star_reason) {
    // groups,blue-links;chassis,black-links;routers,green-links;nodes-per-router
    std::vector<std::string> parts;
    split_on(cl.params, ';', parts);
    std::vector<std::uint64_t> g, c, b, p;
    const bool good = parts.size() == 4 && parse_list(parts[0], g) && g.size() == 2 &&
                      parse_list(parts[1], c) && c.size() == 2 && parse_list(parts[2], b) &&
                      b.size() == 2 && parse_list(parts[3], p) && p.size() == 1;
    const std::uint64_t nodes = good ? g[0] * c[0] * b[0] * p[0] : 0;
    if (!good) {
        star_reason = fmt::format(
            "topo_parameters '{}' are not 'groups,links;chassis,links;"
            "routers,links;nodes'",
            cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else if (g[0] > b[0]) {
        fail(n, fmt::format("<cluster> attribute 'topo_parameters': '{}': {} groups but {} "
                            "routers per chassis; SimGrid's dragonfly reaches group j over "
                            "router j of each group, so it needs groups <= routers",
                            cl.params, g[0], b[0]));
    } else {
        // SimGrid's wiring (DragonflyZone): green links inside a chassis (x green count),
        // black links between chassis (x black count), one blue link per pair of groups
        // (x blue count); the limiter caps every router.
        const std::string px = node_prefix(cl.base, cl.id, cl.count);
        const std::string sw = unique(sanitize(cl.id) + "_df");
        topo::XmlElement e = cluster_generator(n, cl, "dragonfly", px);
        e.text("wiring", "simgrid")
            .text("switch-prefix", sw)
            .count("groups", g[0])
            .count("chassis", c[0])
            .count("routers", b[0])
            .count("nodes-per-router", p[0])
            .bandwidth_if_limited("router-bandwidth", Bandwidth{cl.limiter})
            .link("link", cl.lat, Bandwidth{cl.bw})
            .link("local", cl.lat, Bandwidth{cl.bw * b[1]})
            .link("chassis", cl.lat, Bandwidth{cl.bw * c[1]})
            .link("global", cl.lat, Bandwidth{cl.bw * g[1]});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, px);
        not_routable_router(cl, "the router of a DRAGONFLY cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a DRAGONFLY has no backbone");
        return true;
    }
    return false;
}

}  // namespace clustersim::traces::simgrid_import
