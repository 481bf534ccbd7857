// The HDTrace project file and the reader's numbers (hdtrace_project.hpp).
#include "traces/hdtrace_project.hpp"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/piosimhd_units.hpp"
#include "traces/text.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;

// HDTrace's file names keep letters, digits, '-' and '.' of each topology label.
std::string file_label(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') out += c;
    return out;
}

}  // namespace

namespace hdtrace_in {

// ---- numbers ---------------------------------------------------------------------------------

std::optional<Ps> parse_seconds(std::string_view s) {
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    Ps whole = 0;
    std::size_t digits = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++digits) {
        whole = whole * 10 + (s[i] - '0');
        if (digits > 20) return std::nullopt;  // beyond any epoch
    }
    Ps frac = 0;
    int frac_digits = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++digits) {
            if (frac_digits < 12) {
                frac = frac * 10 + (s[i] - '0');
                ++frac_digits;
            } else if (s[i] != '0') {
                return std::nullopt;  // finer than a picosecond
            }
        }
    }
    if (digits == 0 || i != s.size()) return std::nullopt;
    for (int k = frac_digits; k < 12; ++k) frac *= 10;
    const Ps v = whole * 1'000'000'000'000 + frac;
    return negative ? -v : v;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
    std::int64_t v = 0;
    if (s.empty()) return std::nullopt;
    const char* b = s.data();
    if (*b == '+') ++b;
    const auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

// ---- the project file ------------------------------------------------------------------------

// The <CommunicatorList>: every <Rank global local cid> entry, grouped by cid; without one,
// WORLD is every rank in order.
static void read_communicators(const XmlFile& x, pugi::xml_node app, Project& p) {
    bool world_found = false;
    for (pugi::xml_node c : app.child("CommunicatorList").children("Communicator")) {
        const std::string cname = c.attribute("name").as_string();
        for (pugi::xml_node r : c.children("Rank")) {
            const auto g = parse_int(r.attribute("global").as_string());
            const auto l = parse_int(r.attribute("local").as_string());
            const auto cid = parse_int(r.attribute("cid").as_string());
            if (!g || !l || !cid || *g < 0 || *l < 0 || *cid < 0)
                x.fail(r, "<Rank> needs whole numbers 'global', 'local' and 'cid'");
            if (*g >= static_cast<std::int64_t>(p.ranks.size()))
                x.fail(r, fmt::format("global rank {} is not in the topology (ranks 0..{})", *g,
                                      p.ranks.size() - 1));
            Communicator& comm = p.comms[static_cast<std::int32_t>(*cid)];
            if (comm.line == 0) {
                comm.line = x.line(c);
                comm.name = cname;
            }
            comm.local_of[static_cast<std::int32_t>(*g)] = static_cast<std::int32_t>(*l);
            if (cname == "WORLD" && !world_found) {
                p.world_cid = static_cast<std::int32_t>(*cid);
                world_found = true;
            }
        }
    }
    for (auto& [cid, comm] : p.comms) {
        comm.world_of.assign(comm.local_of.size(), -1);
        for (auto [g, l] : comm.local_of) {
            if (l >= static_cast<std::int32_t>(comm.world_of.size()) || comm.world_of[l] != -1)
                throw InputError(x.path(), comm.line,
                                 fmt::format("communicator cid {}: local ranks must be 0..{} "
                                             "once each",
                                             cid, comm.world_of.size() - 1));
            comm.world_of[l] = g;
        }
    }
    if (!p.comms.count(p.world_cid)) {  // no list: WORLD is every rank in order
        Communicator& w = p.comms[p.world_cid];
        w.name = "WORLD";
        for (std::int32_t r = 0; r < static_cast<std::int32_t>(p.ranks.size()); ++r) {
            w.local_of[r] = r;
            w.world_of.push_back(r);
        }
    }
}

Project read_project(const XmlFile& x) {
    Project p;
    const pugi::xml_node app = x.doc().child("Application");
    if (!app) x.fail(x.doc().first_child(), "expected an HDTrace project: root <Application>");
    p.name = app.attribute("name").as_string();
    const std::string dir = fs::path(x.path()).parent_path().string();
    const std::string stem = fs::path(x.path()).stem().string();
    if (p.name.empty()) p.name = stem;

    // Files that exist before the run.
    for (pugi::xml_node f : app.child("FileList").children("File")) {
        io::FileDecl d;
        d.name = f.attribute("name").as_string();
        if (d.name.empty()) x.fail(f, "<File> needs attribute 'name'");
        if (pugi::xml_node sz = f.child("InitialSize")) {
            const auto v = parse_piosim_size(sz.text().as_string());
            if (!v)
                x.fail(sz, fmt::format("<InitialSize> '{}': expected a size in bytes",
                                       sz.text().as_string()));
            d.size = *v;
        }
        if (pugi::xml_node dist = f.child("Distribution")) {
            if (pugi::xml_node cs = dist.child("ChunkSize")) {
                const auto v = parse_piosim_size(cs.text().as_string());
                if (!v || *v == 0)
                    x.fail(cs, fmt::format("<ChunkSize> '{}': expected a size such as 64K",
                                           cs.text().as_string()));
                d.stripe = *v;
            }
        }
        p.files.push_back(std::move(d));
    }

    // Topology: <Level type=...> declarations name the depths; <Node> trees name the traces.
    const pugi::xml_node topo = app.child("Topology");
    if (!topo) x.fail(app, "the project has no <Topology>");
    std::vector<std::string> levels;
    for (pugi::xml_node l = topo.child("Level"); l; l = l.child("Level"))
        levels.push_back(ascii_lower(l.attribute("type").as_string()));
    const auto rank_level = std::find(levels.begin(), levels.end(), "rank");
    if (rank_level == levels.end())
        x.fail(topo, "the <Topology> declares no <Level type=\"Rank\">");
    const std::size_t rank_depth = static_cast<std::size_t>(rank_level - levels.begin());
    std::map<std::int64_t, RankTrace> by_rank;
    std::vector<std::string> labels;
    std::vector<pugi::xml_node> path;  // the <Node>s from the root to here
    std::function<void(pugi::xml_node)> walk = [&](pugi::xml_node n) {
        labels.push_back(n.attribute("name").as_string());
        path.push_back(n);
        bool leaf = true;
        for (pugi::xml_node c : n.children("Node")) {
            leaf = false;
            walk(c);
        }
        if (leaf) {
            if (labels.size() <= rank_depth)
                x.fail(n, "topology leaf above the Rank level: no rank to map a trace to");
            const auto r = parse_int(labels[rank_depth]);
            if (!r || *r < 0)
                x.fail(n, fmt::format("rank '{}': expected a whole number", labels[rank_depth]));
            std::string name = stem;
            for (const auto& l : labels) name += "_" + file_label(l);
            name += ".trc";
            if (auto it = by_rank.find(*r); it != by_rank.end())
                x.fail(n, fmt::format("rank {} has a second trace '{}' (first on line {}): one "
                                      "trace (thread) per rank is supported",
                                      *r, name, it->second.line));
            by_rank[*r] = RankTrace{(fs::path(dir) / name).string(), x.line(path[rank_depth])};
        }
        labels.pop_back();
        path.pop_back();
    };
    for (pugi::xml_node n : topo.children("Node")) walk(n);
    if (by_rank.empty()) x.fail(topo, "the <Topology> lists no ranks");
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(by_rank.size()); ++r)
        if (!by_rank.count(r))
            x.fail(topo,
                   fmt::format("ranks must be 0..{}; rank {} is missing", by_rank.size() - 1, r));
    for (auto& [r, t] : by_rank) {
        (void)r;
        p.ranks.push_back(t);
    }

    read_communicators(x, app, p);
    p.datatypes = app.child("Datatypes");
    return p;
}

// Size in bytes of an MPI named type (the traced machine's sizes are not recorded; these are
// the usual LP64 ones, and only file views use them).
std::uint64_t named_size(const std::string& n) {
    static const std::map<std::string, std::uint64_t> sizes = {{"MPI_CHAR", 1},
                                                               {"MPI_SIGNED_CHAR", 1},
                                                               {"MPI_UNSIGNED_CHAR", 1},
                                                               {"MPI_BYTE", 1},
                                                               {"MPI_PACKED", 1},
                                                               {"MPI_SHORT", 2},
                                                               {"MPI_UNSIGNED_SHORT", 2},
                                                               {"MPI_INT", 4},
                                                               {"MPI_UNSIGNED", 4},
                                                               {"MPI_FLOAT", 4},
                                                               {"MPI_LONG", 8},
                                                               {"MPI_UNSIGNED_LONG", 8},
                                                               {"MPI_LONG_LONG", 8},
                                                               {"MPI_LONG_LONG_INT", 8},
                                                               {"MPI_DOUBLE", 8},
                                                               {"MPI_LONG_DOUBLE", 16},
                                                               {"MPI_INTEGER", 4},
                                                               {"MPI_REAL", 4},
                                                               {"MPI_DOUBLE_PRECISION", 8}};
    const auto it = sizes.find(n);
    return it == sizes.end() ? 0 : it->second;
}

}  // namespace hdtrace_in
}  // namespace clustersim::traces
