// The HDTrace reader: a project file (.proj) naming the application, its files, the rank
// topology and the communicators, plus one XML trace (.trc) per rank written by HDTrace's
// MPI wrapper. Semantics and every choice made are documented in traces/README.md ("HDTrace traces and PIOsimHD models");
// the short version:
//
//  - Only top-level calls are replayed. A <Nested> block holds the calls its following
//    top-level call made internally (ROMIO's Bcast inside File_open, MPICH's Sendrecv inside
//    Allgather); they are that call's implementation, so they are skipped (as PIOsimHD's own
//    trace reader does).
//  - Times are `timeAdjustment` + `time` / `end` (HDTrace adds the adjustment to every
//    timestamp), exact decimals in picoseconds. The origin (time 0) is the earliest start of
//    a top-level call over all ranks.
//  - The time between two replayed calls becomes a Compute record of that duration; local
//    calls (Init, Finalize, Type_*, File_get_position, ...) become Compute records of their
//    own duration, so a rank's records tile [0, last end] without gaps.
//  - Ranks in the trace (toRank, fromRank, rootRank, root) are world ranks; records carry
//    ranks within the call's communicator, mapped with the project's communicator list.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/piosimhd_units.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;
__extension__ typedef __int128 Ps;  // picoseconds since the epoch: wider than int64

// ---- numbers ---------------------------------------------------------------------------------

// "[+-]digits[.digits]" seconds -> picoseconds, exactly. Digits below a picosecond must be 0.
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

struct Communicator {
    std::string name;
    int line = 0;
    std::map<std::int32_t, std::int32_t> local_of;  // world rank -> rank in the communicator
    std::vector<std::int32_t> world_of;             // rank in the communicator -> world rank
};

struct RankTrace {
    std::string file;  // full path of the .trc
    int line = 0;      // line of its topology leaf in the .proj
};

struct Project {
    std::string name;
    std::vector<io::FileDecl> files;
    std::vector<RankTrace> ranks;
    std::map<std::int32_t, Communicator> comms;  // cid -> members
    std::int32_t world_cid = 0;
    pugi::xml_node datatypes;  // <Datatypes>, read when a file view needs it
};

// HDTrace's file names keep letters, digits, '-' and '.' of each topology label.
std::string file_label(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') out += c;
    return out;
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

    // Communicators: every <Rank global local cid> entry, grouped by cid.
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

// ---- per-rank events before they become records ----------------------------------------------

enum class Fix : std::uint8_t { None, RecvBytes, SendrecvBytes, VCounts };

struct HdEvent {
    Record rec;
    Ps start = 0, end = 0;
    bool local = false;  // a local call: replayed as compute of its duration
    int line = 0;
    Fix fix = Fix::None;
    // p2p matching (world ranks): the send side, or the receive side to fill in
    std::int32_t cid = -1;  // the call's communicator (-1: none)
    std::int32_t src = -1, dst = -1, tag = 0;
    bool sends = false;
    // v-collectives: which occurrence on the communicator, and this rank's block(s)
    std::uint64_t occurrence = 0;
    std::vector<std::uint64_t> row;  // alltoallv: this rank's sends per communicator rank
};

struct ViewState {
    bool identity = true;     // view offsets are file offsets (no view, or disp 0 contiguous)
    std::uint64_t etype = 1;  // bytes per etype: *_at offsets and seeks count etypes
};

class HdRankReader {
  public:
    HdRankReader(const Project& p, const XmlFile& proj, const XmlFile& x, std::int32_t rank,
                 const ReadOptions& options, ReadReport& report)
        : p_(p), proj_(proj), x_(x), rank_(rank), options_(options), report_(report) {}

    std::vector<HdEvent> read(std::uint64_t& nested_skipped) {
        const pugi::xml_node program = x_.doc().child("Program");
        if (!program) x_.fail(x_.doc().first_child(), "expected an HDTrace trace: root <Program>");
        Ps adjust = 0;
        if (pugi::xml_attribute a = program.attribute("timeAdjustment")) {
            const auto v = parse_seconds(a.as_string());
            if (!v)
                x_.fail(program, fmt::format("timeAdjustment='{}': expected seconds as a decimal "
                                             "number (e.g. 1247131125.06)",
                                             a.as_string()));
            adjust = *v;
        }
        for (pugi::xml_node n : program.children()) {
            if (n.type() != pugi::node_element) continue;
            if (std::strcmp(n.name(), "Nested") == 0) {
                nested_skipped += count_calls(n);
                continue;
            }
            HdEvent e;
            e.line = x_.line(n);
            e.start = adjust + time(n, "time");
            e.end = adjust + time(n, "end");
            if (e.end < e.start)
                x_.fail(n, fmt::format("<{}> ends (end='{}') before it starts (time='{}')",
                                       n.name(), n.attribute("end").as_string(),
                                       n.attribute("time").as_string()));
            if (!convert(n, e)) {
                if (!options_.skip_unknown)
                    x_.fail(n, fmt::format("unsupported record <{}>", n.name()));
                ++report_.skipped[n.name()];
                continue;
            }
            events_.push_back(std::move(e));
        }
        return std::move(events_);
    }

  private:
    static std::uint64_t count_calls(pugi::xml_node nested) {
        std::uint64_t k = 0;
        for (pugi::xml_node c : nested.children())
            if (c.type() == pugi::node_element)
                k += std::strcmp(c.name(), "Nested") == 0 ? count_calls(c) : 1;
        return k;
    }

    Ps time(pugi::xml_node n, const char* attr) const {
        const pugi::xml_attribute a = n.attribute(attr);
        if (!a) x_.fail(n, fmt::format("<{}> needs attribute '{}' (seconds)", n.name(), attr));
        const auto v = parse_seconds(a.as_string());
        if (!v)
            x_.fail(n, fmt::format("<{}> {}='{}': expected seconds as a decimal number (e.g. "
                                   "1.034413), at most 12 decimals",
                                   n.name(), attr, a.as_string()));
        return *v;
    }
    std::int64_t integer(pugi::xml_node n, const char* attr) const {
        const pugi::xml_attribute a = n.attribute(attr);
        if (!a) x_.fail(n, fmt::format("<{}> needs attribute '{}'", n.name(), attr));
        const auto v = parse_int(a.as_string());
        if (!v)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a whole number", n.name(), attr,
                                   a.as_string()));
        return *v;
    }
    std::uint64_t bytes(pugi::xml_node n, const char* attr) const {
        const std::int64_t v = integer(n, attr);
        if (v < 0)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a size in bytes", n.name(), attr, v));
        return static_cast<std::uint64_t>(v);
    }
    std::uint32_t handle(pugi::xml_node n, const char* attr) const {
        const std::int64_t v = integer(n, attr);
        if (v < 0 || v > 0xffffffffLL)
            x_.fail(n, fmt::format("<{}> {}='{}': expected a non-negative id", n.name(), attr, v));
        return static_cast<std::uint32_t>(v);
    }

    // The communicator `cid` (required unless `optional`; absent: WORLD).
    std::int32_t cid_of(pugi::xml_node n, bool optional = false) const {
        if (optional && !n.attribute("cid")) return p_.world_cid;
        const std::int64_t cid = integer(n, "cid");
        const auto it = p_.comms.find(static_cast<std::int32_t>(cid));
        if (it == p_.comms.end())
            x_.fail(n,
                    fmt::format("cid {} is not in the communicator list of {}", cid, proj_.path()));
        if (!it->second.local_of.count(rank_))
            x_.fail(n, fmt::format("rank {} is not a member of communicator cid {}", rank_, cid));
        return static_cast<std::int32_t>(cid);
    }
    std::int32_t handle_of(std::int32_t cid) const {
        if (cid == p_.world_cid) return 0;
        return cid == 0 ? p_.world_cid : cid;
    }
    // A world rank attribute -> the rank in communicator `cid` (negative: a wildcard).
    std::int32_t local(pugi::xml_node n, const char* attr, std::int32_t cid,
                       std::int32_t wildcard) const {
        const std::int64_t w = integer(n, attr);
        if (w < 0) return wildcard;
        const Communicator& c = p_.comms.at(cid);
        const auto it = c.local_of.find(static_cast<std::int32_t>(w));
        if (it == c.local_of.end())
            x_.fail(n, fmt::format("<{}> {}='{}': world rank {} is not in communicator cid {}",
                                   n.name(), attr, w, w, cid));
        return it->second;
    }
    std::int32_t world(pugi::xml_node n, const char* attr) const {
        const std::int64_t w = integer(n, attr);
        return w < 0 ? -1 : static_cast<std::int32_t>(w);
    }
    std::int32_t tag(pugi::xml_node n, const char* attr) const {
        const std::int64_t t = integer(n, attr);
        return t < 0 ? mpi::kAnyTag : static_cast<std::int32_t>(t);
    }

    void collective(HdEvent& e, pugi::xml_node n, mpi::CollOp op, const char* size_attr,
                    const char* root_attr) {
        e.rec.kind = mpi::OpKind::Collective;
        e.rec.coll = op;
        e.cid = cid_of(n, op == mpi::CollOp::Barrier);
        e.rec.comm = handle_of(e.cid);
        if (size_attr != nullptr) e.rec.bytes = bytes(n, size_attr);
        if (root_attr != nullptr) {
            e.rec.root = local(n, root_attr, e.cid, -1);
            if (e.rec.root < 0)
                x_.fail(n, fmt::format("<{}> {}: expected a rank", n.name(), root_attr));
        }
    }
    void v_collective(HdEvent& e, pugi::xml_node n, mpi::CollOp op, const char* size_attr,
                      const char* root_attr) {
        collective(e, n, op, nullptr, root_attr);
        e.fix = Fix::VCounts;
        e.occurrence = occurrences_[{e.cid, static_cast<int>(op)}]++;
        if (size_attr != nullptr) e.row = {bytes(n, size_attr)};
    }

    ViewState& view(std::uint32_t file) { return views_[file]; }
    // The handle of the open file `fid` names.
    std::uint32_t open_file(pugi::xml_node n) const {
        const std::uint32_t fid = handle(n, "fid");
        const auto it = files_.find(fid);
        if (it == files_.end())
            x_.fail(n, fmt::format("<{}> fid='{}': the file is not open (no File_open with that "
                                   "fid before)",
                                   n.name(), fid));
        return it->second;
    }

    void file_io(HdEvent& e, pugi::xml_node n, mpi::OpKind at_kind, mpi::OpKind pointer_kind,
                 bool explicit_offset) {
        e.rec.file = open_file(n);
        e.rec.bytes = bytes(n, "size");
        const ViewState& v = view(e.rec.file);
        if (explicit_offset) {  // *_at: the offset argument, in etypes of the view
            e.rec.kind = at_kind;
            e.rec.offset = bytes(n, "offset") * v.etype;
        } else if (v.identity && n.attribute("offset")) {
            // File_write / File_read log the byte offset the call accessed; without a view
            // that is the view offset, so the call replays as its *_at form there.
            e.rec.kind = at_kind;
            e.rec.offset = bytes(n, "offset");
            used_offsets_ = true;
        } else {
            e.rec.kind = pointer_kind;  // the runtime keeps the individual file pointer
        }
    }

    // The size of datatype `tid` of this rank (0: unknown). Each type's size is computed once
    // (a STRUCT naming one type three times, 32 levels deep, took 3^32 steps); a type that
    // contains itself, or a size past 64 bits, is an error at the type's line.
    std::uint64_t type_size(std::int64_t tid) const {
        std::vector<std::int64_t> path;
        return type_size(tid, path);
    }
    std::uint64_t type_size(std::int64_t tid, std::vector<std::int64_t>& path) const {
        if (const auto it = type_sizes_.find(tid); it != type_sizes_.end()) return it->second;
        const pugi::xml_node t = type_node(tid);
        if (!t) return 0;
        if (std::find(path.begin(), path.end(), tid) != path.end())
            proj_.fail(t, fmt::format("datatype {} of rank {} contains itself", tid, rank_));
        if (path.size() >= kMaxTypeDepth)
            proj_.fail(t, fmt::format("datatype {} of rank {} is nested more than {} types deep",
                                      tid, rank_, kMaxTypeDepth));
        path.push_back(tid);
        const auto times = [&](std::uint64_t a, std::uint64_t b) {
            std::uint64_t r = 0;
            if (__builtin_mul_overflow(a, b, &r))
                proj_.fail(t, fmt::format("datatype {} of rank {}: its size passes 2^64 bytes", tid,
                                          rank_));
            return r;
        };
        const std::string kind = t.name();
        std::uint64_t size = 0;
        if (kind == "NAMED") {
            size = named_size(t.attribute("name").as_string());
        } else if (kind == "VECTOR" || kind == "HVECTOR") {
            size = times(
                times(t.attribute("count").as_ullong(), t.attribute("blocklength").as_ullong()),
                type_size(t.attribute("oldType").as_llong(), path));
        } else if (kind == "CONTIGUOUS") {
            size = times(t.attribute("count").as_ullong(),
                         type_size(t.attribute("oldType").as_llong(), path));
        } else if (kind == "STRUCT") {
            for (pugi::xml_node c : t.children("Type")) {
                const std::uint64_t part = times(c.attribute("blocklen").as_ullong(),
                                                 type_size(c.attribute("id").as_llong(), path));
                if (__builtin_add_overflow(size, part, &size))
                    proj_.fail(t, fmt::format("datatype {} of rank {}: its size passes 2^64 bytes",
                                              tid, rank_));
            }
        }
        path.pop_back();
        type_sizes_.emplace(tid, size);
        return size;
    }
    pugi::xml_node type_node(std::int64_t tid) const {
        for (pugi::xml_node r : p_.datatypes.children("Rank")) {
            if (r.attribute("name").as_llong(-1) != rank_) continue;
            for (pugi::xml_node t : r.children())
                if (t.attribute("id").as_llong(-1) == tid) return t;
        }
        return {};
    }
    void set_view(HdEvent& e, pugi::xml_node n) {
        e.rec.kind = mpi::OpKind::FileSetView;
        e.rec.file = open_file(n);
        e.rec.offset = bytes(n, "offset");
        ViewState& v = view(e.rec.file);
        v.etype = n.attribute("etid") ? type_size(integer(n, "etid")) : 1;
        if (v.etype == 0) {
            v.etype = 1;
            note(
                fmt::format("{}:{}: etype {} of File_set_view has no known size: offsets are "
                            "taken as bytes",
                            x_.path(), e.line, n.attribute("etid").as_string()));
        }
        bool contiguous = true;
        if (n.attribute("filetid")) {
            const pugi::xml_node ft = type_node(integer(n, "filetid"));
            const std::string kind = ft ? ft.name() : "";
            if (kind == "VECTOR" && ft.attribute("count").as_ullong() > 1 &&
                ft.attribute("stride").as_ullong() != ft.attribute("blocklength").as_ullong()) {
                const std::uint64_t el = type_size(ft.attribute("oldType").as_llong());
                e.rec.view_block = ft.attribute("blocklength").as_ullong() * el;
                e.rec.view_stride = ft.attribute("stride").as_ullong() * el;
                contiguous = e.rec.view_block == 0;
                if (contiguous) e.rec.view_stride = 0;
            } else if (kind != "NAMED" && kind != "CONTIGUOUS" && kind != "VECTOR") {
                note(
                    fmt::format("{}:{}: file type {} of File_set_view is not a vector: the "
                                "view is replayed as contiguous",
                                x_.path(), e.line, n.attribute("filetid").as_string()));
            }
        }
        v.identity = contiguous && e.rec.offset == 0 && v.etype == 1;
    }

    void note(std::string s) { report_.notes.push_back(std::move(s)); }

    // Fills `e` for element `n`; false if the element is not supported.
    bool convert(pugi::xml_node n, HdEvent& e) {
        const std::string name = n.name();
        Record& r = e.rec;
        using K = mpi::OpKind;
        using C = mpi::CollOp;
        if (is_local(name)) {
            e.local = true;
            return true;
        }
        if (name == "Send" || name == "Bsend" || name == "Ssend" || name == "Rsend" ||
            name == "Isend" || name == "Ibsend" || name == "Issend" || name == "Irsend") {
            const bool nb = name[0] == 'I';
            r.kind = nb ? K::Isend : K::Send;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "toRank", e.cid, -1);
            if (r.peer < 0) x_.fail(n, fmt::format("<{}> toRank: expected a rank", name));
            r.tag = static_cast<std::int32_t>(integer(n, "toTag"));
            r.bytes = bytes(n, "size");
            if (nb) r.handle = handle(n, "rid");
            e.sends = true;
            e.src = rank_;
            e.dst = world(n, "toRank");
            e.tag = r.tag;
            return true;
        }
        if (name == "Recv" || name == "Irecv") {
            r.kind = name == "Irecv" ? K::Irecv : K::Recv;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "fromRank", e.cid, mpi::kAnySource);
            r.tag = tag(n, "fromTag");
            if (name == "Irecv") r.handle = handle(n, "rid");
            if (n.attribute("size")) {
                r.bytes = bytes(n, "size");
            } else {
                e.fix = Fix::RecvBytes;
                e.src = world(n, "fromRank");
                e.dst = rank_;
                e.tag = r.tag;
            }
            return true;
        }
        if (name == "Sendrecv" || name == "Sendrecv_replace") {
            r.kind = K::Sendrecv;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            r.peer = local(n, "toRank", e.cid, -1);
            if (r.peer < 0) x_.fail(n, fmt::format("<{}> toRank: expected a rank", name));
            r.tag = static_cast<std::int32_t>(integer(n, "toTag"));
            r.bytes = bytes(n, name == "Sendrecv" ? "size" : "sendSize");
            r.peer2 = local(n, "fromRank", e.cid, mpi::kAnySource);
            r.tag2 = tag(n, "fromTag");
            if (name == "Sendrecv_replace") {
                r.bytes2 = r.bytes;  // one buffer: the same size comes back
            } else {
                e.fix = Fix::SendrecvBytes;
            }
            e.sends = true;
            e.src = world(n, "fromRank");  // receive side (the send side is rank_ -> dst)
            e.dst = world(n, "toRank");
            e.tag = r.tag;
            return true;
        }
        if (name == "Wait" || name == "Waitall") {
            std::vector<std::uint32_t> rids;
            for (pugi::xml_node f : n.children("For")) rids.push_back(handle(f, "rid"));
            if (rids.empty()) x_.fail(n, fmt::format("<{}> lists no <For rid=...>", name));
            std::vector<std::uint32_t> sorted = rids;
            std::sort(sorted.begin(), sorted.end());
            const bool contiguous =
                std::adjacent_find(sorted.begin(), sorted.end(),
                                   [](auto a, auto b) { return b != a + 1; }) == sorted.end();
            if (rids.size() == 1) {
                r.kind = K::Wait;
                r.handle = rids[0];
            } else if (contiguous) {
                r.kind = K::Waitall;
                r.handle = sorted.front();
                r.count = static_cast<std::uint32_t>(sorted.size());
            } else {  // one Wait per request: all but the last take no time
                for (std::size_t i = 0; i + 1 < rids.size(); ++i) {
                    HdEvent w = e;
                    w.rec.kind = K::Wait;
                    w.rec.handle = rids[i];
                    w.end = w.start;
                    events_.push_back(std::move(w));
                }
                r.kind = K::Wait;
                r.handle = rids.back();
            }
            return true;
        }
        if (name == "Barrier") return collective(e, n, C::Barrier, nullptr, nullptr), true;
        if (name == "Bcast") return collective(e, n, C::Bcast, "size", "rootRank"), true;
        if (name == "Reduce") return collective(e, n, C::Reduce, "size", "rootRank"), true;
        if (name == "Allreduce") return collective(e, n, C::Allreduce, "size", nullptr), true;
        if (name == "Gather") return collective(e, n, C::Gather, "size", "root"), true;
        if (name == "Scatter") return collective(e, n, C::Scatter, "recvSize", "root"), true;
        if (name == "Allgather") return collective(e, n, C::Allgather, "size", nullptr), true;
        if (name == "Alltoall") return collective(e, n, C::Alltoall, "size", nullptr), true;
        if (name == "Gatherv") return v_collective(e, n, C::Gatherv, "size", "root"), true;
        if (name == "Scatterv") return v_collective(e, n, C::Scatterv, "recvSize", "root"), true;
        if (name == "Allgatherv") return v_collective(e, n, C::Allgatherv, "size", nullptr), true;
        if (name == "Alltoallv") {
            v_collective(e, n, C::Alltoallv, nullptr, nullptr);
            const Communicator& c = p_.comms.at(e.cid);
            e.row.assign(c.world_of.size(), 0);
            for (pugi::xml_node s : n.children("Send"))
                e.row[static_cast<std::size_t>(local(s, "rank", e.cid, 0))] += bytes(s, "size");
            return true;
        }
        if (name == "Reduce_scatter") {
            collective(e, n, C::ReduceScatter, nullptr, nullptr);
            std::set<std::uint64_t> sizes;
            std::uint64_t own = 0;
            for (pugi::xml_node s : n.children("Recv")) {
                sizes.insert(bytes(s, "size"));
                if (world(s, "rank") == rank_) own = bytes(s, "size");
            }
            r.bytes = sizes.empty() ? 0 : *sizes.rbegin();
            if (sizes.size() > 1)
                note(
                    fmt::format("{}:{}: Reduce_scatter with unequal blocks (this rank {} B) is "
                                "replayed with the largest block, {} B, for every rank",
                                x_.path(), e.line, own, r.bytes));
            return true;
        }
        if (name == "File_open") {
            r.kind = K::FileOpen;
            e.cid = cid_of(n);
            r.comm = handle_of(e.cid);
            // A fresh handle per open (HDTrace reuses a file's fid when it is reopened).
            r.file = next_file_++;
            files_[handle(n, "fid")] = r.file;
            const pugi::xml_attribute fname = n.attribute("name");
            if (!fname) x_.fail(n, "<File_open> needs attribute 'name'");
            path_names_.push_back(fname.as_string());
            r.path = static_cast<std::int32_t>(path_names_.size() - 1);  // fixed up on emit
            views_[r.file] = ViewState{};
            return true;
        }
        if (name == "File_close") {
            r.kind = K::FileClose;
            r.file = open_file(n);
            files_.erase(handle(n, "fid"));
            return true;
        }
        if (name == "File_sync") {
            r.kind = K::FileSync;
            r.file = open_file(n);
            return true;
        }
        if (name == "File_write") return file_io(e, n, K::FileWriteAt, K::FileWrite, false), true;
        if (name == "File_read") return file_io(e, n, K::FileReadAt, K::FileRead, false), true;
        if (name == "File_write_all")
            return file_io(e, n, K::FileWriteAtAll, K::FileWriteAll, false), true;
        if (name == "File_read_all")
            return file_io(e, n, K::FileReadAtAll, K::FileReadAll, false), true;
        if (name == "File_write_at") return file_io(e, n, K::FileWriteAt, K::FileWrite, true), true;
        if (name == "File_read_at") return file_io(e, n, K::FileReadAt, K::FileRead, true), true;
        if (name == "File_write_at_all")
            return file_io(e, n, K::FileWriteAtAll, K::FileWriteAll, true), true;
        if (name == "File_read_at_all")
            return file_io(e, n, K::FileReadAtAll, K::FileReadAll, true), true;
        if (name == "File_set_view") return set_view(e, n), true;
        if (name == "File_seek") {
            r.kind = K::FileSeek;
            r.file = open_file(n);
            const ViewState& v = view(r.file);
            if (v.identity && n.attribute("offset")) {  // the resulting byte offset
                r.whence = mpi::kSeekSet;
                r.offset = bytes(n, "offset");
            } else {
                const std::string w = n.attribute("whence").as_string();
                r.whence = w == "SEEK_CUR"   ? mpi::kSeekCur
                           : w == "SEEK_END" ? mpi::kSeekEnd
                                             : mpi::kSeekSet;
                r.offset = bytes(n, "relative-offset") * v.etype;
            }
            return true;
        }
        return false;
    }

    static bool is_local(const std::string& name) {
        static const std::set<std::string> calls = {"Init",
                                                    "Init_thread",
                                                    "Finalize",
                                                    "Comm_free",
                                                    "Comm_rank",
                                                    "Comm_size",
                                                    "Comm_dup",
                                                    "Comm_split",
                                                    "Comm_create",
                                                    "Comm_group",
                                                    "Group_free",
                                                    "Group_incl",
                                                    "Get_count",
                                                    "Get_elements",
                                                    "Pcontrol",
                                                    "Wtime",
                                                    "Iprobe",
                                                    "Request_free",
                                                    "File_get_position",
                                                    "File_get_size",
                                                    "File_set_size",
                                                    "File_preallocate",
                                                    "File_set_info",
                                                    "File_get_info",
                                                    "File_set_atomicity",
                                                    "File_get_view",
                                                    "File_delete",
                                                    "Info_create",
                                                    "Info_set",
                                                    "Info_free",
                                                    "Abort"};
        return calls.count(name) != 0 || name.rfind("Type_", 0) == 0;
    }

  public:
    bool used_offsets() const { return used_offsets_; }
    const std::vector<std::string>& path_names() const { return path_names_; }

  private:
    static constexpr std::size_t kMaxTypeDepth = 64;
    mutable std::map<std::int64_t, std::uint64_t> type_sizes_;  // of this rank
    const Project& p_;
    const XmlFile& proj_;
    const XmlFile& x_;
    std::int32_t rank_;
    const ReadOptions& options_;
    ReadReport& report_;
    std::vector<HdEvent> events_;
    std::map<std::pair<std::int32_t, int>, std::uint64_t> occurrences_;
    std::map<std::uint32_t, ViewState> views_;      // file handle -> its view
    std::map<std::uint32_t, std::uint32_t> files_;  // open fid -> file handle
    std::uint32_t next_file_ = 0;
    std::vector<std::string> path_names_;
    bool used_offsets_ = false;
};

// ---- the reader --------------------------------------------------------------------------------

std::string find_project(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return path;
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.path().extension() == ".proj") found.push_back(entry.path().string());
    if (found.size() != 1)
        throw InputError(path, 0,
                         fmt::format("expected exactly one HDTrace project (.proj) in the folder, "
                                     "found {}",
                                     found.size()));
    return found[0];
}

Time to_time(Ps v, const std::string& file) {
    if (v > static_cast<Ps>(Time::max().ps()))
        throw InputError(file, 0, "the trace spans more than 106 days of simulated time");
    return Time::ps(static_cast<std::int64_t>(v));
}

class HdtraceReader final : public TraceReader {
  public:
    std::string name() const override { return "hdtrace"; }
    std::string description() const override {
        return "HDTrace project (.proj, or its folder) with one XML .trc per rank (PIOsimHD)";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            int n = 0;
            for (const auto& entry : fs::directory_iterator(path, ec))
                n += entry.path().extension() == ".proj";
            return n == 1;
        }
        if (fs::path(path).extension() == ".proj") return true;
        return head.find("<Application") != std::string::npos &&
               head.find("<FileList") != std::string::npos;
    }
    Trace read(const std::string& path, const ReadOptions& options,
               ReadReport& report) const override {
        const XmlFile proj(find_project(path));
        const Project p = read_project(proj);
        const auto ranks = static_cast<std::uint32_t>(p.ranks.size());

        // Pass 1: every rank's top-level calls.
        std::vector<std::vector<HdEvent>> events(ranks);
        std::vector<std::vector<std::string>> paths(ranks);
        std::uint64_t nested = 0;
        bool offsets = false;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            std::error_code ec;
            if (!fs::exists(p.ranks[r].file, ec))
                throw InputError(proj.path(), p.ranks[r].line,
                                 fmt::format("rank {}: trace file '{}' not found", r,
                                             fs::path(p.ranks[r].file).filename().string()));
            const XmlFile trc(p.ranks[r].file);
            report.inputs.push_back(p.ranks[r].file);
            HdRankReader rr(p, proj, trc, static_cast<std::int32_t>(r), options, report);
            events[r] = rr.read(nested);
            paths[r] = rr.path_names();
            offsets = offsets || rr.used_offsets();
        }

        Trace t;
        t.name = p.name;
        t.source = path;
        t.format = "hdtrace";
        t.traced_speed = 0;
        t.files = p.files;
        for (const auto& f : p.files) t.intern(f.name);
        t.resize(ranks);

        // Pass 2a: receive sizes from the matching sends (MPI's non-overtaking order per
        // sender, receiver, communicator and tag); wildcard receives keep 0 bytes.
        using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
        std::map<Key, std::vector<std::uint64_t>> sent;
        for (std::uint32_t r = 0; r < ranks; ++r)
            for (const HdEvent& e : events[r])
                if (e.sends)
                    sent[{static_cast<std::int32_t>(r), e.dst, e.cid, e.rec.tag}].push_back(
                        e.rec.bytes);
        std::map<Key, std::size_t> taken;
        std::uint64_t unmatched = 0;
        for (std::uint32_t r = 0; r < ranks; ++r)
            for (HdEvent& e : events[r]) {
                if (e.fix != Fix::RecvBytes && e.fix != Fix::SendrecvBytes) continue;
                const std::int32_t tag = e.fix == Fix::RecvBytes ? e.rec.tag : e.rec.tag2;
                std::uint64_t b = 0;
                if (e.src >= 0 && tag >= 0) {
                    const Key k{e.src, static_cast<std::int32_t>(r), e.cid, tag};
                    const auto it = sent.find(k);
                    std::size_t& i = taken[k];
                    if (it != sent.end() && i < it->second.size()) {
                        b = it->second[i++];
                    } else {
                        ++unmatched;
                    }
                }
                (e.fix == Fix::RecvBytes ? e.rec.bytes : e.rec.bytes2) = b;
            }

        // Pass 2b: v-collective counts from the k-th call of every member.
        using VKey = std::tuple<std::int32_t, int, std::uint64_t>;
        std::map<VKey, std::vector<std::uint64_t>> counts;
        std::map<VKey, std::int32_t> index;
        for (std::uint32_t r = 0; r < ranks; ++r)
            for (const HdEvent& e : events[r]) {
                if (e.fix != Fix::VCounts) continue;
                const Communicator& c = p.comms.at(e.cid);
                const std::size_t n = c.world_of.size();
                const bool all = e.rec.coll == mpi::CollOp::Alltoallv;
                auto& v = counts[{e.cid, static_cast<int>(e.rec.coll), e.occurrence}];
                v.resize(all ? n * n : n, 0);
                const std::size_t me =
                    static_cast<std::size_t>(c.local_of.at(static_cast<std::int32_t>(r)));
                if (all) {
                    std::copy(e.row.begin(), e.row.end(), v.begin() + static_cast<long>(me * n));
                } else {
                    v[me] = e.row.empty() ? 0 : e.row[0];
                }
            }
        for (auto& [k, v] : counts) index[k] = t.add_counts(std::move(v));

        // Communicators the replayed calls use, created up front by every rank.
        std::set<std::int32_t> used;
        for (const auto& evs : events)
            for (const HdEvent& e : evs)
                if (!e.local && e.cid >= 0 && e.cid != p.world_cid) used.insert(e.cid);

        // Pass 3: the time origin, then the records.
        std::optional<Ps> origin;
        for (const auto& evs : events)
            if (!evs.empty() && (!origin || evs.front().start < *origin))
                origin = evs.front().start;
        std::uint64_t clamped = 0;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            for (std::int32_t cid : used) {
                const Communicator& c = p.comms.at(cid);
                const auto it = c.local_of.find(static_cast<std::int32_t>(r));
                Record s;
                s.kind = mpi::OpKind::CommSplit;
                s.comm = 0;
                s.color = it != c.local_of.end() ? cid : mpi::kUndefined;
                s.key = it != c.local_of.end() ? it->second : 0;
                s.newcomm = static_cast<std::uint32_t>(cid == 0 ? p.world_cid : cid);
                s.timed = true;
                t.append(r, s);
            }
            Ps cursor = 0;
            auto compute = [&](Ps from, Ps to) {
                if (to <= from) return;
                Record c;
                c.kind = mpi::OpKind::Compute;
                c.compute_time = to_time(to - from, p.ranks[r].file);
                c.timed = true;
                c.start = to_time(from, p.ranks[r].file);
                c.end = to_time(to, p.ranks[r].file);
                t.append(r, c);
            };
            for (HdEvent& e : events[r]) {
                Ps s = e.start - *origin;
                Ps end = e.end - *origin;
                if (s < cursor) {
                    ++clamped;
                    s = cursor;
                    end = std::max(end, cursor);
                }
                compute(cursor, s);
                if (e.local) {
                    compute(s, end);
                } else {
                    Record rec = e.rec;
                    if (rec.kind == mpi::OpKind::FileOpen)
                        rec.path = t.intern(paths[r][static_cast<std::size_t>(rec.path)]);
                    if (e.fix == Fix::VCounts)
                        rec.counts = index.at({e.cid, static_cast<int>(rec.coll), e.occurrence});
                    rec.timed = true;
                    rec.start = to_time(s, p.ranks[r].file);
                    rec.end = to_time(end, p.ranks[r].file);
                    t.append(r, rec);
                }
                cursor = end;
            }
        }

        if (origin) {
            const Ps sec = *origin / 1'000'000'000'000;
            const Ps frac = *origin % 1'000'000'000'000;
            report.notes.push_back(fmt::format(
                "time origin: {}.{:012d} s (timeAdjustment + time of the earliest top-level "
                "call over all ranks); every rank's records start there",
                static_cast<std::int64_t>(sec), static_cast<std::int64_t>(frac)));
        }
        report.notes.push_back(fmt::format(
            "{} nested calls skipped: they implement the top-level call that follows them",
            nested));
        report.notes.push_back(
            "compute bursts are recorded durations (the traced CPU speed is unknown): replay "
            "keeps them as times");
        if (!used.empty())
            report.notes.push_back(
                fmt::format("{} communicators created up front with comm_split (cids {})",
                            used.size(), fmt::join(used, ", ")));
        if (offsets)
            report.notes.push_back(
                "File_write/File_read without a file view log the byte offset they accessed: "
                "replayed as their *_at forms at that offset");
        if (unmatched != 0)
            report.notes.push_back(fmt::format(
                "{} receives have no matching send in the traces: replayed with 0 bytes",
                unmatched));
        if (clamped != 0)
            report.notes.push_back(fmt::format(
                "{} calls started before the previous call of their rank ended: moved to its end",
                clamped));
        return t;
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_hdtrace_reader() {
    return std::make_unique<HdtraceReader>();
}

}  // namespace clustersim::traces
