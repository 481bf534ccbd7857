// SimGrid time-independent (TI) traces (traces/README.md, "SimGrid time-independent traces"): lines
// `<rank> <action> <args...>`, either one file holding every rank's lines, or an index file naming
// one action file per rank. Actions follow SimGrid's SMPI replay
// (src/smpi/internals/smpi_replay.cpp): sizes are counts of an MPI datatype (MPI_BYTE, or
// MPI_DOUBLE after `init <x>`, or an explicit datatype id), compute amounts are flops (=
// instructions here).
//
// The file(s) are read twice: the first pass checks the rank fields, counts the ranks and
// keeps the lines of the v-collectives (alltoallv, gatherv, allgatherv, scatterv), whose
// counts must be assembled from every rank's k-th call; the second pass maps every action to
// records and appends them to the Trace as it goes, so memory stays that of the encoded trace.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

namespace {

namespace fs = std::filesystem;
using mpi::CollOp;
using mpi::OpKind;

constexpr std::array<std::string_view, 31> kActions{
    "init",     "finalize",  "comm_size",  "comm_split",    "comm_dup", "send",    "isend",
    "recv",     "irecv",     "test",       "wait",          "waitall",  "barrier", "bcast",
    "reduce",   "allreduce", "alltoall",   "alltoallv",     "gather",   "gatherv", "scatter",
    "scatterv", "allgather", "allgatherv", "reducescatter", "compute",  "sleep",   "location",
    "scan",     "exscan",    "sendrecv"};
// The S4U actor-replay examples' I/O actions (examples/cpp/replay-io): recognised so the
// error says why they are refused.
constexpr std::array<std::string_view, 4> kIoActions{"open", "read", "write", "close"};

bool known_action(std::string_view word) {
    const std::string w = ascii_lower(word);
    return std::find(kActions.begin(), kActions.end(), w) != kActions.end();
}

bool io_action(std::string_view word) {
    return std::find(kIoActions.begin(), kIoActions.end(), word) != kIoActions.end();
}

std::vector<std::string_view> split(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_ascii_space(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_ascii_space(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

bool parse_rank_field(std::string_view tok, std::int64_t& out) {
    if (tok.empty()) return false;
    for (char c : tok)
        if (c < '0' || c > '9') return false;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
    return ec == std::errc() && p == tok.data() + tok.size() && out <= (1 << 24);
}

// An S4U actor-replay actor name: `p<N>` (SimGrid's examples/cpp/replay-comm), rank N.
bool parse_actor_field(std::string_view tok, std::int64_t& out) {
    return tok.size() >= 2 && tok[0] == 'p' && parse_rank_field(tok.substr(1), out);
}

// True if the line is `<int> <known action> ...` (SMPI) or `p<int> <action> ...` (S4U).
bool looks_like_action(std::string_view line) {
    const auto toks = split(line);
    std::int64_t r = 0;
    if (toks.size() < 2) return false;
    if (parse_rank_field(toks[0], r)) return known_action(toks[1]);
    return parse_actor_field(toks[0], r) && (known_action(toks[1]) || io_action(toks[1]));
}

// The first line of `text` that is neither empty nor a comment.
std::string_view first_content_line(std::string_view text) {
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = trim(text.substr(0, nl));
        if (!line.empty() && line.front() != '#') return line;
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return {};
}

std::string read_head(const fs::path& p, std::size_t bytes = 4096) {
    refuse_non_file(p.string());
    std::ifstream in(p, std::ios::binary);
    if (!in) return {};
    std::string head(bytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

bool regular_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// An index entry: relative to the index file's folder, else to that folder's parent (as
// SimGrid's own split_traces lists them); absolute paths as they are.
struct Resolved {
    fs::path path;
    std::vector<fs::path> tried;
};
Resolved resolve_entry(const fs::path& index, std::string_view entry) {
    Resolved r;
    const fs::path e{std::string(entry)};
    if (e.is_absolute()) {
        r.tried.push_back(e);
        if (regular_file(e)) r.path = e;
        return r;
    }
    const fs::path dir = index.parent_path();
    for (const fs::path& base : {dir, dir.parent_path()}) {
        const fs::path candidate = base / e;
        r.tried.push_back(candidate);
        if (regular_file(candidate)) {
            r.path = candidate;
            return r;
        }
    }
    return r;
}

std::string trace_name(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    for (const std::string_view ext : {std::string_view(".txt"), std::string_view(".index")}) {
        if (name.size() > ext.size() && name.ends_with(ext)) name.resize(name.size() - ext.size());
    }
    return name.empty() ? std::string("simgrid_ti") : name;
}

// Sizes of SimGrid's predefined datatypes by id (smpi_datatype.cpp; x86-64 sizes).
constexpr std::array<std::uint8_t, 38> kDatatypeSizes{8,  4,  1, 2, 8, 4,  1,  8, 1, 1, 2,  4, 8,
                                                      8,  16, 4, 1, 1, 2,  4,  8, 1, 2, 4,  8, 8,
                                                      16, 32, 8, 8, 8, 16, 16, 8, 8, 8, 16, 16};

// A v-collective whose counts come from every rank's k-th call of it.
enum VKind : std::uint8_t { VAlltoallv, VGatherv, VAllgatherv, VScatterv, kVKinds };
bool v_kind(std::string_view action, VKind& k) {
    if (action == "alltoallv")
        k = VAlltoallv;
    else if (action == "gatherv")
        k = VGatherv;
    else if (action == "allgatherv")
        k = VAllgatherv;
    else if (action == "scatterv")
        k = VScatterv;
    else
        return false;
    return true;
}

// One line of an action file, tokenized.
struct Line {
    const std::string* file = nullptr;
    int number = 0;
    std::int32_t rank = 0;
    std::string action;                  // lower case
    std::vector<std::string_view> args;  // after the action
};

// What a rank contributes to a v-collective's counts, in bytes: alltoallv its send counts
// (one row of the matrix), gatherv/allgatherv its send size, scatterv its receive size. `own`
// is the rank's own view of the whole vector (fallback when the ranks' calls do not match).
struct Contribution {
    bool valid = false;
    std::vector<std::uint64_t> row;  // alltoallv: size entries; others: one entry
    std::vector<std::uint64_t> own;  // alltoallv: own column (receive counts); others: size
};

// Raw v-collective lines kept by the first pass: (text, file index, line number, dtype).
struct RawV {
    std::string text;
    std::size_t file = 0;
    int number = 0;
    std::uint64_t default_dtype = 1;
};

// The outstanding nonblocking requests of one rank.
struct Request {
    std::int32_t src = 0, dst = 0, tag = 0;
    std::uint32_t handle = 0;
};

struct RankState {
    std::uint64_t dtype = 1;           // MPI_BYTE until `init <x>`
    std::vector<Request> outstanding;  // in order of posting
    std::set<std::uint32_t> free_handles;
    std::uint32_t next_handle = 0;
    std::array<std::uint32_t, kVKinds> v_seen{};
};

class Parser {
  public:
    Parser(const std::string& source, const ReadOptions& options, ReadReport& report)
        : source_(source), options_(options), report_(report) {}

    Trace read();

  private:
    // ---- input -----------------------------------------------------------------------------
    void open_inputs();
    template <class F>
    void for_each_line(F&& f);
    void first_pass();

    // ---- argument parsing ------------------------------------------------------------------
    [[noreturn]] void fail(const Line& l, const std::string& what) const {
        throw InputError(*l.file, l.number, what);
    }
    void arity(const Line& l, std::size_t min, std::size_t max, const char* usage) const;
    std::int64_t integer(const Line& l, std::size_t i, const char* what) const;
    std::int32_t rank_arg(const Line& l, std::size_t i, const char* what, bool any = false) const;
    std::int32_t tag_arg(const Line& l, std::size_t i, bool any) const;
    double real(const Line& l, std::size_t i, const char* what) const;
    std::uint64_t amount(const Line& l, std::size_t i, const char* what) const;
    std::uint64_t dtype(const Line& l, std::size_t i, std::uint64_t fallback) const;
    std::uint64_t bytes(const Line& l, std::uint64_t count, std::uint64_t dtype_size) const;

    // ---- mapping ---------------------------------------------------------------------------
    void map(const Line& l);
    void p2p(const Line& l, bool send, bool nonblocking);
    void sendrecv(const Line& l);
    void reduction_compute(const Line& l, std::size_t i);
    bool s4u(const Line& l);
    std::int32_t actor_arg(const Line& l, std::size_t i, const char* what) const;
    void wait(const Line& l);
    void wait_all(std::int32_t rank);
    void collective(const Line& l, CollOp op, std::uint64_t bytes, std::int32_t root = 0,
                    std::int32_t counts = kNone);
    void v_collective(const Line& l, VKind kind);
    Contribution contribution(const Line& l, VKind kind, std::uint64_t default_dtype) const;
    std::int32_t v_counts(const Line& l, VKind kind, std::uint32_t k, const Contribution& own,
                          std::int32_t root);
    void append(std::int32_t rank, const Record& r) {
        trace_.append(static_cast<std::uint32_t>(rank), r);
    }
    void note(const std::string& key, const std::string& text) {
        if (noted_.insert(key).second) report_.notes.push_back(text);
    }
    std::uint32_t take_handle(RankState& s) {
        if (!s.free_handles.empty()) {
            const std::uint32_t h = *s.free_handles.begin();
            s.free_handles.erase(s.free_handles.begin());
            return h;
        }
        return s.next_handle++;
    }

    const std::string& source_;
    const ReadOptions& options_;
    ReadReport& report_;
    bool index_ = false;
    bool actors_ = false;  // S4U actor-replay form: `p<N> <action> ...`
    int pass_ = 1;
    std::uint64_t foreign_lines_ = 0;  // index: lines of another rank, skipped (as SimGrid)
    // S4U form: the sizes of each (sender, receiver) pair's sends, in order; a `recv <src>`
    // names no size and takes the next one.
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::uint64_t>> s4u_sends_;
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> s4u_taken_;
    std::vector<std::string> files_;  // index mode: rank i's file; else the one file
    std::int32_t ranks_ = 0;
    std::int64_t comm_size_ = 0;  // the largest comm_size seen
    std::vector<RankState> state_;
    // First pass: raw v-collective lines per kind, per rank, in order.
    // Keyed by rank: what is allocated follows the lines, not the rank numbers they name.
    std::array<std::map<std::size_t, std::vector<RawV>>, kVKinds> raw_;
    std::array<std::vector<std::vector<Contribution>>, kVKinds> contrib_;
    std::map<std::pair<int, std::uint32_t>, std::int32_t> v_cache_;
    std::set<std::string> noted_;
    std::uint64_t unmatched_waits_ = 0, zero_computes_ = 0, tests_ = 0, end_waits_ = 0;
    bool double_default_ = false;
    Trace trace_;
};

void Parser::open_inputs() {
    const std::string head = read_head(source_);
    const std::string_view first = first_content_line(head);
    if (first.empty()) throw InputError(source_, 0, "empty SimGrid TI trace: no actions");
    // An action file starts with `<rank> <action>`; an index with the path of an existing
    // file, or a single word (a missing file, reported below).
    const auto toks = split(first);
    std::int64_t rank = 0;
    if (toks.size() >= 2 && parse_actor_field(toks[0], rank) &&
        resolve_entry(source_, first).path.empty()) {
        actors_ = true;  // S4U: `p0 recv p1`
        files_.push_back(source_);
        return;
    }
    if ((toks.size() >= 2 && parse_rank_field(toks[0], rank)) ||
        (toks.size() >= 2 && resolve_entry(source_, first).path.empty())) {
        files_.push_back(source_);
        return;
    }
    // An index file: one action file per line, rank = position.
    index_ = true;
    refuse_non_file(source_);
    std::ifstream in(source_);
    if (!in) throw InputError(source_, 0, "cannot read file");
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string_view entry = trim(line);
        if (entry.empty() || entry.front() == '#') continue;
        const Resolved r = resolve_entry(source_, entry);
        if (r.path.empty()) {
            std::string tried;
            for (const auto& t : r.tried)
                tried += fmt::format("{}'{}'", tried.empty() ? "" : " and ", t.string());
            throw InputError(source_, number,
                             fmt::format("rank {}: cannot open '{}' (looked in {})", files_.size(),
                                         entry, tried));
        }
        files_.push_back(r.path.string());
        report_.inputs.push_back(r.path.string());
    }
    if (files_.empty()) throw InputError(source_, 0, "empty SimGrid TI index: no trace files");
    // smpirun -replay: an index of one line is one trace shared by every process (each takes
    // the lines of its rank); more lines give rank i the i-th file.
    if (files_.size() == 1) index_ = false;
    const auto first_toks = split(first_content_line(read_head(files_[0])));
    std::int64_t r = 0;
    if (!first_toks.empty() && parse_actor_field(first_toks[0], r)) actors_ = true;
}

// Calls f(line) for every action line of every input, in order (index: rank by rank).
template <class F>
void Parser::for_each_line(F&& f) {
    Line l;
    std::string text;
    for (std::size_t fi = 0; fi < files_.size(); ++fi) {
        const std::string& file = files_[fi];
        refuse_non_file(file);
        std::ifstream in(file, std::ios::binary);
        if (!in) throw InputError(file, 0, "cannot read file");
        l.file = &file;
        l.number = 0;
        while (std::getline(in, text)) {
            ++l.number;
            const std::string_view t = trim(text);
            if (t.empty() || t.front() == '#') continue;
            const auto toks = split(t);
            std::int64_t rank = 0;
            if (actors_ ? !parse_actor_field(toks[0], rank) : !parse_rank_field(toks[0], rank))
                fail(l, actors_ ? fmt::format("expected '<actor> <action> [<arguments>]' with "
                                              "actors named p0, p1, ..., got '{}' ('{}' is not "
                                              "such a name)",
                                              t, toks[0])
                                : fmt::format("expected '<rank> <action> [<arguments>]', got "
                                              "'{}' ('{}' is not a rank number)",
                                              t, toks[0]));
            if (toks.size() < 2)
                fail(l,
                     fmt::format("rank {}: expected an action after the rank, got nothing", rank));
            if (index_ && rank != static_cast<std::int64_t>(fi)) {
                // SimGrid's replay_runner: "Ignore trace element not for me".
                if (pass_ == 1) ++foreign_lines_;
                continue;
            }
            l.rank = static_cast<std::int32_t>(rank);
            l.action = ascii_lower(toks[1]);
            l.args.assign(toks.begin() + 2, toks.end());
            f(l, fi, text);
        }
    }
}

void Parser::first_pass() {
    std::int64_t max_rank = -1, max_peer = -1;
    std::map<std::size_t, std::uint64_t> dtype;  // ranks with an init line
    std::vector<bool> acting;                    // ranks with actions (a bit each)
    std::int64_t acting_ranks = 0;
    for_each_line([&](const Line& l, std::size_t fi, const std::string& text) {
        max_rank = std::max<std::int64_t>(max_rank, l.rank);
        const auto r = static_cast<std::size_t>(l.rank);
        if (acting.size() <= r) acting.resize(r + 1, false);
        if (!acting[r]) {
            acting[r] = true;
            ++acting_ranks;
        }
        if (!index_ && !l.args.empty() &&
            (l.action == "send" || l.action == "isend" || l.action == "recv" ||
             l.action == "irecv")) {
            // A per-rank file read on its own: its peers are ranks too.
            std::int64_t peer = 0;
            if (actors_ ? parse_actor_field(l.args[0], peer) : parse_rank_field(l.args[0], peer))
                max_peer = std::max(max_peer, peer);
        }
        if (actors_ && l.action == "send" && l.args.size() == 2) {
            // Its size is read here (a recv of another actor, read earlier, takes it), so a
            // malformed size is this line's error, as the second pass would word it.
            std::int64_t dst = 0;
            if (parse_actor_field(l.args[0], dst))
                s4u_sends_[{l.rank, static_cast<std::int32_t>(dst)}].push_back(
                    amount(l, 1, "size"));
        }
        if (l.action == "init") {
            dtype[r] = l.args.empty() ? 1 : 8;
        } else if (l.action == "comm_size" && l.args.size() == 1) {
            std::int64_t n = 0;
            if (parse_rank_field(l.args[0], n)) comm_size_ = std::max(comm_size_, n);
        } else if (VKind k; v_kind(l.action, k)) {
            const auto d = dtype.find(r);
            raw_[k][r].push_back(RawV{text, fi, l.number, d == dtype.end() ? 1 : d->second});
        }
    });
    if (max_rank < 0) throw InputError(source_, 0, "empty SimGrid TI trace: no actions");
    std::int64_t n = index_ ? static_cast<std::int64_t>(files_.size()) : max_rank + 1;
    if (!index_ && max_peer >= n) {
        note("peers", fmt::format("{} named as peer{} but without actions (a per-rank file "
                                  "read on its own?)",
                                  n == max_peer ? fmt::format("rank {} is", n)
                                                : fmt::format("ranks {}..{} are", n, max_peer),
                                  n == max_peer ? "" : "s"));
        n = max_peer + 1;
    }
    if (comm_size_ > 0 && comm_size_ != n) {
        if (!index_ && comm_size_ > n) {
            note("comm_size", fmt::format("comm_size {} but the highest rank with actions is "
                                          "{}: the trace has {} ranks, some without actions",
                                          comm_size_, max_rank, comm_size_));
            n = comm_size_;
        } else {
            note("comm_size", fmt::format("comm_size {} does not match the {} ranks of the "
                                          "trace; the trace's {} ranks are used",
                                          comm_size_, n, n));
        }
    }
    // Ranks cost memory in the replay whether they act or not: a few lines naming rank
    // 16,777,215 must not make 16 million ranks (docs/limits.md).
    if (n - acting_ranks > kMaxIdleRanks)
        throw InputError(source_, 0,
                         fmt::format("the trace names {} ranks but only {} have actions; at most "
                                     "{} ranks without actions (docs/limits.md)",
                                     n, acting_ranks, kMaxIdleRanks));
    ranks_ = static_cast<std::int32_t>(n);
    // Now that the communicator size is known, parse the v-collectives' contributions.
    for (int k = 0; k < kVKinds; ++k) {
        contrib_[k].resize(raw_[k].empty() ? 0 : raw_[k].rbegin()->first + 1);
        for (const auto& [r, raws] : raw_[k]) {
            for (const RawV& raw : raws) {
                const auto toks = split(raw.text);
                Line l;
                l.file = &files_[raw.file];
                l.number = raw.number;
                l.rank = static_cast<std::int32_t>(r);
                l.action = ascii_lower(toks[1]);
                l.args.assign(toks.begin() + 2, toks.end());
                Contribution c;
                try {
                    c = contribution(l, static_cast<VKind>(k), raw.default_dtype);
                } catch (const InputError&) {
                    c.valid = false;  // the second pass reports it, in order
                }
                contrib_[k][r].push_back(std::move(c));
            }
        }
        raw_[k].clear();
    }
}

// ---- arguments ---------------------------------------------------------------------------------

void Parser::arity(const Line& l, std::size_t min, std::size_t max, const char* usage) const {
    if (l.args.size() < min || l.args.size() > max) {
        fail(l, fmt::format("rank {}: {}: expected '{}', got {} argument{}", l.rank, l.action,
                            usage, l.args.size(), l.args.size() == 1 ? "" : "s"));
    }
}

std::int64_t Parser::integer(const Line& l, std::size_t i, const char* what) const {
    const std::string_view t = l.args[i];
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || t.empty())
        fail(l, fmt::format("rank {}: {}: malformed {} '{}'; expected a whole number", l.rank,
                            l.action, what, t));
    return v;
}

std::int32_t Parser::rank_arg(const Line& l, std::size_t i, const char* what, bool any) const {
    const std::int64_t v = integer(l, i, what);
    if (any && (v == -1 || v == -555)) return mpi::kAnySource;
    if (v < 0 || v >= ranks_)
        fail(l, fmt::format("rank {}: {}: {} {} is out of range; expected 0..{} ({} ranks)", l.rank,
                            l.action, what, v, ranks_ - 1, ranks_));
    return static_cast<std::int32_t>(v);
}

std::int32_t Parser::tag_arg(const Line& l, std::size_t i, bool any) const {
    const std::int64_t v = integer(l, i, "tag");
    if (any && (v == -1 || v == -444)) return mpi::kAnyTag;
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max())
        fail(l, fmt::format("rank {}: {}: tag {} is out of range; expected 0..{}", l.rank, l.action,
                            v, std::numeric_limits<std::int32_t>::max()));
    return static_cast<std::int32_t>(v);
}

double Parser::real(const Line& l, std::size_t i, const char* what) const {
    const std::string t(l.args[i]);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v < 0)
        fail(l, fmt::format("rank {}: {}: malformed {} '{}'; expected a non-negative number "
                            "(e.g. 1e6)",
                            l.rank, l.action, what, t));
    return v;
}

std::uint64_t Parser::amount(const Line& l, std::size_t i, const char* what) const {
    const double v = real(l, i, what);
    if (v != std::floor(v) || v > 1e18)
        fail(l, fmt::format("rank {}: {}: malformed {} '{}'; expected a non-negative whole "
                            "number (e.g. 1e6)",
                            l.rank, l.action, what, l.args[i]));
    return static_cast<std::uint64_t>(v);
}

// Datatype argument i (if present) as its size in bytes; "-1" (MPI_DATATYPE_NULL) and an
// absent argument give `fallback`.
std::uint64_t Parser::dtype(const Line& l, std::size_t i, std::uint64_t fallback) const {
    if (i >= l.args.size()) return fallback;
    const std::int64_t id = integer(l, i, "datatype id");
    if (id == -1) return fallback;
    if (id < 0 || id >= static_cast<std::int64_t>(kDatatypeSizes.size()))
        fail(l, fmt::format("rank {}: {}: unknown datatype id {}; expected a SimGrid predefined "
                            "datatype id 0..{} (0 MPI_DOUBLE, 1 MPI_INT, 2 MPI_CHAR, 3 "
                            "MPI_SHORT, 4 MPI_LONG, 5 MPI_FLOAT, 6 MPI_BYTE, ...)",
                            l.rank, l.action, id, kDatatypeSizes.size() - 1));
    return kDatatypeSizes[static_cast<std::size_t>(id)];
}

std::uint64_t Parser::bytes(const Line& l, std::uint64_t count, std::uint64_t dtype_size) const {
    if (count > std::numeric_limits<std::uint64_t>::max() / 64)
        fail(l, fmt::format("rank {}: {}: size {} is too large", l.rank, l.action, count));
    return count * dtype_size;
}

// ---- v-collectives -----------------------------------------------------------------------------

Contribution Parser::contribution(const Line& l, VKind kind, std::uint64_t dt) const {
    const auto n = static_cast<std::size_t>(ranks_);
    Contribution c;
    switch (kind) {
        case VAlltoallv: {
            arity(l, 2 * n + 2, 2 * n + 4,
                  "alltoallv <send-size> <send-counts x ranks> <recv-size> <recv-counts x ranks> "
                  "[<send-datatype> [<recv-datatype>]]");
            amount(l, 0, "send buffer size");
            amount(l, n + 1, "receive buffer size");
            const std::uint64_t dt1 = dtype(l, 2 * n + 2, dt), dt2 = dtype(l, 2 * n + 3, dt1);
            for (std::size_t j = 0; j < n; ++j) {
                c.row.push_back(bytes(l, amount(l, 1 + j, "send count"), dt1));
                c.own.push_back(bytes(l, amount(l, n + 2 + j, "receive count"), dt2));
            }
            break;
        }
        case VGatherv:
        case VAllgatherv: {
            const bool gatherv = kind == VGatherv;
            arity(l, n + 1, gatherv ? n + 4 : 2 * n + 2,
                  gatherv ? "gatherv <send-size> <recv-counts x ranks> [<root> [<send-datatype> "
                            "[<recv-datatype>]]]"
                          : "allgatherv <send-size> <recv-counts x ranks> [<datatype> "
                            "[<displacements x ranks>]]");
            std::uint64_t dt1 = dt, dt2 = dt;
            const std::size_t extra = l.args.size() - (n + 1);
            if (gatherv) {
                if (extra >= 1) rank_arg(l, n + 1, "root");
                dt1 = dtype(l, n + 2, dt);
                dt2 = dtype(l, n + 3, dt1);
            } else if (extra >= 1 && (extra <= 2 || extra > n)) {
                // SimGrid: one datatype for both sides, optionally followed by displacements;
                // exactly `ranks` extra values (more than two) are displacements alone.
                dt1 = dt2 = dtype(l, n + 1, dt);
            }
            c.row.push_back(bytes(l, amount(l, 0, "send size"), dt1));
            for (std::size_t j = 0; j < n; ++j)
                c.own.push_back(bytes(l, amount(l, 1 + j, "receive count"), dt2));
            break;
        }
        case VScatterv: {
            arity(l, n + 1, n + 4,
                  "scatterv <send-counts x ranks> <recv-size> [<root> [<send-datatype> "
                  "[<recv-datatype>]]]");
            if (l.args.size() > n + 1) rank_arg(l, n + 1, "root");
            const std::uint64_t dt1 = dtype(l, n + 2, dt), dt2 = dtype(l, n + 3, dt1);
            c.row.push_back(bytes(l, amount(l, n, "receive size"), dt2));
            for (std::size_t j = 0; j < n; ++j)
                c.own.push_back(bytes(l, amount(l, j, "send count"), dt1));
            break;
        }
        default:
            break;
    }
    c.valid = true;
    return c;
}

// The count list of the k-th call of `kind`: from every rank's contribution when every rank
// made that call, else from the calling rank's own line.
std::int32_t Parser::v_counts(const Line& l, VKind kind, std::uint32_t k, const Contribution& own,
                              std::int32_t root) {
    const auto n = static_cast<std::size_t>(ranks_);
    const auto key = std::pair<int, std::uint32_t>(kind, k);
    if (const auto it = v_cache_.find(key); it != v_cache_.end()) return it->second;
    const auto& per_rank = contrib_[kind];
    bool complete = per_rank.size() == n;
    for (std::size_t r = 0; complete && r < n; ++r)
        complete = per_rank[r].size() > k && per_rank[r][k].valid;
    static const char* kNames[kVKinds] = {"alltoallv", "gatherv", "allgatherv", "scatterv"};
    if (!complete) {
        note(std::string("v-partial-") + kNames[kind],
             fmt::format(
                 "{}: call {} of rank {} has no matching call on every rank; its counts "
                 "come from the rank's own line{}",
                 kNames[kind], k + 1, l.rank,
                 kind == VAlltoallv ? " (its send row and receive column; the rest 0)" : ""));
        if (kind != VAlltoallv) return trace_.add_counts(own.own);
        std::vector<std::uint64_t> m(n * n, 0);
        const auto r = static_cast<std::size_t>(l.rank);
        for (std::size_t j = 0; j < n; ++j) {
            m[r * n + j] = own.row[j];
            m[j * n + r] = own.own[j];
        }
        return trace_.add_counts(std::move(m));
    }
    std::vector<std::uint64_t> counts;
    bool mismatch = false;
    if (kind == VAlltoallv) {
        counts.resize(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                counts[i * n + j] = per_rank[i][k].row[j];
                if (per_rank[j][k].own[i] != counts[i * n + j]) mismatch = true;
            }
    } else {
        counts.resize(n);
        for (std::size_t i = 0; i < n; ++i) counts[i] = per_rank[i][k].row[0];
        // gatherv: the root's receive counts; allgatherv: every rank's; scatterv: the root's
        // send counts should equal what the ranks send or receive.
        for (std::size_t r = 0; r < n && !mismatch; ++r) {
            if (kind == VAllgatherv || r == static_cast<std::size_t>(root))
                mismatch = per_rank[r][k].own != counts;
        }
    }
    if (mismatch) {
        note(std::string("v-mismatch-") + kNames[kind],
             fmt::format("{}: the receive counts of a call (e.g. call {}) differ from what the "
                         "peers {}; the {} sizes are used",
                         kNames[kind], k + 1, kind == VScatterv ? "receive" : "send",
                         kind == VScatterv ? "receivers'" : "senders'"));
    }
    const std::int32_t index = trace_.add_counts(std::move(counts));
    v_cache_.emplace(key, index);
    return index;
}

void Parser::v_collective(const Line& l, VKind kind) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const Contribution c = contribution(l, kind, s.dtype);  // checks the line, in order
    const std::uint32_t k = s.v_seen[kind]++;
    static constexpr CollOp kOps[kVKinds] = {CollOp::Alltoallv, CollOp::Gatherv, CollOp::Allgatherv,
                                             CollOp::Scatterv};
    std::int32_t root = 0;
    const auto n = static_cast<std::size_t>(ranks_);
    if ((kind == VGatherv || kind == VScatterv) && l.args.size() > n + 1)
        root = rank_arg(l, n + 1, "root");
    collective(l, kOps[kind], c.row.size() == 1 ? c.row[0] : 0, root,
               v_counts(l, kind, k, c, root));
}

// ---- actions -----------------------------------------------------------------------------------

void Parser::collective(const Line& l, CollOp op, std::uint64_t bytes, std::int32_t root,
                        std::int32_t counts) {
    Record r;
    r.kind = OpKind::Collective;
    r.coll = op;
    r.bytes = bytes;
    r.root = root;
    r.counts = counts;
    append(l.rank, r);
}

void Parser::p2p(const Line& l, bool send, bool nonblocking) {
    // send <dst> <tag> <size> [<datatype>] (SimGrid >= 3.20); older: send <dst> <size>.
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const char* usage =
        send ? "<dst> [<tag>] <size> [<datatype>]" : "<src> [<tag>] <size> [<datatype>]";
    if (l.args.size() < 2 || l.args.size() > 4)
        fail(l, fmt::format("rank {}: {}: expected '{} {}', got {} argument{}", l.rank, l.action,
                            l.action, usage, l.args.size(), l.args.size() == 1 ? "" : "s"));
    const bool tagged = l.args.size() >= 3;
    const std::int32_t peer = rank_arg(l, 0, send ? "destination" : "source", !send);
    const std::int32_t tag = tagged ? tag_arg(l, 1, !send) : 0;
    const std::size_t size_at = tagged ? 2 : 1;
    const std::uint64_t count = amount(l, size_at, "size");
    Record r;
    r.kind = send ? (nonblocking ? OpKind::Isend : OpKind::Send)
                  : (nonblocking ? OpKind::Irecv : OpKind::Recv);
    r.peer = peer;
    r.tag = tag;
    r.bytes = bytes(l, count, dtype(l, 3, s.dtype));
    if (nonblocking) {
        r.handle = take_handle(s);
        s.outstanding.push_back(Request{send ? l.rank : peer, send ? peer : l.rank, tag, r.handle});
    }
    append(l.rank, r);
}

void Parser::wait(const Line& l) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    if (!l.args.empty() && l.args.size() != 3)
        fail(l, fmt::format("rank {}: wait: expected 'wait' or 'wait <src> <dst> <tag>', got {} "
                            "arguments",
                            l.rank, l.args.size()));
    if (s.outstanding.empty())
        fail(l, fmt::format("rank {}: wait without an outstanding isend or irecv", l.rank));
    std::size_t at = s.outstanding.size() - 1;  // old traces: the most recent request
    if (l.args.size() == 3) {
        const auto src = integer(l, 0, "source"), dst = integer(l, 1, "destination"),
                   tag = integer(l, 2, "tag");
        at = s.outstanding.size();
        for (std::size_t i = 0; i < s.outstanding.size(); ++i) {
            const Request& q = s.outstanding[i];
            if (q.src == src && q.dst == dst && q.tag == tag) {
                at = i;
                break;
            }
        }
        if (at == s.outstanding.size()) {
            ++unmatched_waits_;  // SimGrid: completed by an earlier test; nothing to wait for
            return;
        }
    }
    Record r;
    r.kind = OpKind::Wait;
    r.handle = s.outstanding[at].handle;
    s.free_handles.insert(r.handle);
    s.outstanding.erase(s.outstanding.begin() + static_cast<std::ptrdiff_t>(at));
    append(l.rank, r);
}

// Waits for every outstanding request of `rank`: one Waitall per run of consecutive handles.
void Parser::wait_all(std::int32_t rank) {
    RankState& s = state_[static_cast<std::size_t>(rank)];
    std::vector<std::uint32_t> handles;
    for (const Request& q : s.outstanding) handles.push_back(q.handle);
    std::sort(handles.begin(), handles.end());
    for (std::size_t i = 0; i < handles.size();) {
        std::size_t j = i + 1;
        while (j < handles.size() && handles[j] == handles[j - 1] + 1) ++j;
        Record r;
        r.kind = j - i == 1 ? OpKind::Wait : OpKind::Waitall;
        r.handle = handles[i];
        r.count = j - i == 1 ? 0 : static_cast<std::uint32_t>(j - i);
        append(rank, r);
        i = j;
    }
    for (const std::uint32_t h : handles) s.free_handles.insert(h);
    s.outstanding.clear();
}

// SimGrid's replay runs a reduction's flops on each rank after the collective (an exec of
// `comp_size` flops): a Compute record right after it, one flop an instruction.
void Parser::reduction_compute(const Line& l, std::size_t i) {
    const double flops = std::round(real(l, i, "flop count"));
    if (flops > 1.8e19)
        fail(l, fmt::format("rank {}: {}: {} flops is too large", l.rank, l.action, l.args[i]));
    if (flops == 0) return;
    note("comp",
         "reduce/allreduce/reducescatter/scan/exscan: the reduction's flops run as a compute "
         "after the collective, as SimGrid's replay does; under --mpi simgrid the collective "
         "itself charges nothing more (reduce-instructions-per-byte 0), under other profiles "
         "the model's reduce-instructions-per-byte is charged as well");
    Record r;
    r.kind = OpKind::Compute;
    r.instructions = static_cast<std::uint64_t>(flops);
    append(l.rank, r);
}

// sendRecv <send-count> <dst> <recv-count> <src> [<send-datatype> [<recv-datatype>]]
// (SimGrid's SendRecvParser; both directions with tag 0).
void Parser::sendrecv(const Line& l) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    arity(l, 4, 6,
          "sendrecv <send-size> <dst> <recv-size> <src> [<send-datatype> [<recv-datatype>]]");
    const std::uint64_t send = amount(l, 0, "send size");
    const std::int32_t dst = rank_arg(l, 1, "destination");
    const std::uint64_t recv = amount(l, 2, "receive size");
    const std::int32_t src = rank_arg(l, 3, "source", true);
    const std::uint64_t dt1 = dtype(l, 4, s.dtype), dt2 = dtype(l, 5, dt1);
    Record r;
    r.kind = OpKind::Sendrecv;
    r.peer = dst;
    r.bytes = bytes(l, send, dt1);
    r.peer2 = src;
    r.bytes2 = bytes(l, recv, dt2);
    append(l.rank, r);
}

std::int32_t Parser::actor_arg(const Line& l, std::size_t i, const char* what) const {
    std::int64_t v = 0;
    if (!parse_actor_field(l.args[i], v))
        fail(l, fmt::format("rank {}: {}: malformed {} '{}'; expected an actor name p0, p1, ...",
                            l.rank, l.action, what, l.args[i]));
    if (v >= ranks_)
        fail(l, fmt::format("rank {}: {}: {} p{} is out of range; expected p0..p{} ({} actors)",
                            l.rank, l.action, what, v, ranks_ - 1, ranks_));
    return static_cast<std::int32_t>(v);
}

// The S4U actor-replay form (SimGrid's examples/cpp/replay-comm): `send <dst> <bytes>` (a
// mailbox put: blocking), `recv <src>` (the size is the matching send's), `compute <flops>`
// and `sleep <s>` as in SMPI traces. True if the line was handled here.
bool Parser::s4u(const Line& l) {
    const std::string& a = l.action;
    if (a == "compute" || a == "sleep") return false;
    if (a == "send") {
        arity(l, 2, 2, "send <dst> <bytes>");
        const std::int32_t dst = actor_arg(l, 0, "destination");
        Record r;
        r.kind = OpKind::Send;
        r.peer = dst;
        r.bytes = amount(l, 1, "size");
        append(l.rank, r);
        return true;
    }
    if (a == "recv") {
        arity(l, 1, 1, "recv <src>");
        const std::int32_t src = actor_arg(l, 0, "source");
        const auto key = std::pair<std::int32_t, std::int32_t>(src, l.rank);
        const auto it = s4u_sends_.find(key);
        std::size_t& taken = s4u_taken_[key];
        if (it == s4u_sends_.end() || taken >= it->second.size())
            fail(l, fmt::format("rank {}: recv: p{} sends p{} only {} message{}; this is receive "
                                "{} (an S4U recv takes the size of the matching send)",
                                l.rank, src, l.rank, taken, taken == 1 ? "" : "s", taken + 1));
        Record r;
        r.kind = OpKind::Recv;
        r.peer = src;
        r.bytes = it->second[taken++];
        append(l.rank, r);
        return true;
    }
    if (io_action(a))
        fail(l, fmt::format("rank {}: S4U I/O action '{}' is not supported: it acts on a host's "
                            "local disk (examples/cpp/replay-io), which clustersim's MPI-IO "
                            "file system has no counterpart for",
                            l.rank, a));
    fail(l, fmt::format("rank {}: unsupported S4U replay action '{}'; expected one of: compute, "
                        "sleep, send, recv",
                        l.rank, a));
}

void Parser::map(const Line& l) {
    if (actors_ && s4u(l)) return;
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const std::string& a = l.action;
    const auto n = static_cast<std::size_t>(ranks_);
    if (a == "init") {
        arity(l, 0, 1, "init [<x>]");
        s.dtype = l.args.empty() ? 1 : 8;
        if (!l.args.empty()) double_default_ = true;
    } else if (a == "finalize") {
        // Outstanding requests are waited for at the end of the rank; the rank's recording is
        // whole (trace_warnings).
        report_.finalized.insert(static_cast<std::uint32_t>(l.rank));
    } else if (a == "comm_size") {
        arity(l, 1, 1, "comm_size <ranks>");
        integer(l, 0, "communicator size");
    } else if (a == "comm_split" || a == "comm_dup") {
        note("comm",
             "comm_split/comm_dup: ignored, as SimGrid's replay does (every replayed "
             "operation is on MPI_COMM_WORLD)");
    } else if (a == "location") {
        // source location of the next action: nothing to replay
    } else if (a == "compute") {
        arity(l, 1, 1, "compute <flops>");
        const double flops = std::round(real(l, 0, "flop count"));
        if (flops > 1.8e19)
            fail(l, fmt::format("rank {}: compute: {} flops is too large", l.rank, l.args[0]));
        if (flops == 0) {
            ++zero_computes_;
            return;
        }
        Record r;
        r.kind = OpKind::Compute;
        r.instructions = static_cast<std::uint64_t>(flops);
        append(l.rank, r);
    } else if (a == "sleep") {
        arity(l, 1, 1, "sleep <seconds>");
        const double sec = real(l, 0, "duration");
        if (Time::from_seconds(sec) == Time::max())
            fail(l, fmt::format("rank {}: sleep: {} s passes the simulated-time horizon (2^63-1 "
                                "ps, about {:.2f} days)",
                                l.rank, l.args[0], Time::horizon_days()));
        Record r;
        r.kind = OpKind::Compute;
        r.compute_time = Time::from_seconds(sec);
        if (r.compute_time == Time::zero()) {
            ++zero_computes_;
            return;
        }
        append(l.rank, r);
    } else if (a == "send" || a == "isend" || a == "recv" || a == "irecv") {
        p2p(l, a == "send" || a == "isend", a[0] == 'i');
    } else if (a == "test") {
        ++tests_;
    } else if (a == "wait") {
        wait(l);
    } else if (a == "waitall") {
        // SimGrid's TI writer (smpirun -trace-ti, 3.32 and later) writes the call's request
        // count, `waitall 6`; hand-written traces omit it. Its replay, like this one, waits for
        // every request the rank has outstanding: the count is checked as a count, not used.
        arity(l, 0, 1, "waitall [<count>]");
        if (!l.args.empty()) (void)amount(l, 0, "request count");
        wait_all(l.rank);
    } else if (a == "barrier") {
        arity(l, 0, 0, "barrier");
        collective(l, CollOp::Barrier, 0);
    } else if (a == "bcast") {
        arity(l, 1, 3, "bcast <size> [<root> [<datatype>]]");
        const std::uint64_t count = amount(l, 0, "size");
        const std::int32_t root = l.args.size() > 1 ? rank_arg(l, 1, "root") : 0;
        collective(l, CollOp::Bcast, bytes(l, count, dtype(l, 2, s.dtype)), root);
    } else if (a == "reduce") {
        arity(l, 2, 4, "reduce <size> <flops> [<root> [<datatype>]]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        const std::int32_t root = l.args.size() > 2 ? rank_arg(l, 2, "root") : 0;
        collective(l, CollOp::Reduce, bytes(l, count, dtype(l, 3, s.dtype)), root);
        reduction_compute(l, 1);
    } else if (a == "allreduce") {
        arity(l, 2, 3, "allreduce <size> <flops> [<datatype>]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        collective(l, CollOp::Allreduce, bytes(l, count, dtype(l, 2, s.dtype)));
        reduction_compute(l, 1);
    } else if (a == "scan" || a == "exscan") {
        arity(l, 2, 3,
              a == "scan" ? "scan <size> <flops> [<datatype>]"
                          : "exscan <size> <flops> [<datatype>]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        collective(l, a == "scan" ? CollOp::Scan : CollOp::Exscan,
                   bytes(l, count, dtype(l, 2, s.dtype)));
        reduction_compute(l, 1);
    } else if (a == "sendrecv") {
        sendrecv(l);
    } else if (a == "alltoall" || a == "allgather") {
        arity(l, 2, 4,
              a == "alltoall"
                  ? "alltoall <send-size> <recv-size> [<send-datatype> [<recv-datatype>]]"
                  : "allgather <send-size> <recv-size> [<send-datatype> "
                    "[<recv-datatype>]]");
        const std::uint64_t count = amount(l, 0, "send size");
        amount(l, 1, "receive size");
        const std::uint64_t dt1 = dtype(l, 2, s.dtype);
        dtype(l, 3, dt1);
        collective(l, a == "alltoall" ? CollOp::Alltoall : CollOp::Allgather, bytes(l, count, dt1));
    } else if (a == "gather" || a == "scatter") {
        arity(l, 2, 5,
              a == "gather"
                  ? "gather <send-size> <recv-size> [<root> [<send-datatype> [<recv-datatype>]]]"
                  : "scatter <send-size> <recv-size> [<root> [<send-datatype> "
                    "[<recv-datatype>]]]");
        const std::uint64_t send = amount(l, 0, "send size"), recv = amount(l, 1, "receive size");
        const std::int32_t root = l.args.size() > 2 ? rank_arg(l, 2, "root") : 0;
        const std::uint64_t dt1 = dtype(l, 3, s.dtype), dt2 = dtype(l, 4, dt1);
        // The block of one rank: what each rank sends (gather) or receives (scatter).
        if (a == "gather")
            collective(l, CollOp::Gather, bytes(l, send, dt1), root);
        else
            collective(l, CollOp::Scatter, bytes(l, recv, dt2), root);
    } else if (VKind k; v_kind(a, k)) {
        v_collective(l, k);
    } else if (a == "reducescatter") {
        arity(l, n + 1, n + 2, "reducescatter <recv-counts x ranks> <flops> [<datatype>]");
        std::uint64_t sum = 0;
        bool uniform = true;
        for (std::size_t j = 0; j < n; ++j) {
            const std::uint64_t c = amount(l, j, "receive count");
            if (j > 0 && c != amount(l, 0, "receive count")) uniform = false;
            sum += c;
        }
        real(l, n, "flop count");
        const std::uint64_t dt = dtype(l, n + 1, s.dtype);
        if (!uniform)
            note("reducescatter",
                 "reducescatter: unequal receive counts are replaced by their "
                 "mean (rounded up): clustersim's reduce_scatter gives every "
                 "rank the same block");
        collective(l, CollOp::ReduceScatter, bytes(l, (sum + n - 1) / n, dt));
        reduction_compute(l, n);
    } else if (options_.skip_unknown) {
        ++report_.skipped[a];
    } else {
        fail(l, fmt::format("rank {}: unsupported action '{}'; expected one of: init, finalize, "
                            "compute, sleep, send, isend, recv, irecv, test, wait, waitall, "
                            "sendrecv, barrier, bcast, reduce, allreduce, scan, exscan, "
                            "alltoall, alltoallv, gather, gatherv, allgather, allgatherv, "
                            "scatter, scatterv, reducescatter, comm_size, comm_split, comm_dup, "
                            "location",
                            l.rank, a));
    }
}

Trace Parser::read() {
    open_inputs();
    first_pass();
    trace_.name = trace_name(source_);
    trace_.source = source_;
    trace_.format = "simgrid_ti";
    trace_.traced_speed = 0;
    trace_.resize(static_cast<std::uint32_t>(ranks_));
    state_.assign(static_cast<std::size_t>(ranks_), RankState{});
    pass_ = 2;
    for_each_line([&](const Line& l, std::size_t, const std::string&) { map(l); });
    // SMPI writes `finalize` at the end of every rank's MPI trace: a rank without one was cut
    // (trace_warnings). The S4U actor form has no such action.
    report_.finalize_always = !actors_;
    for (std::int32_t r = 0; r < ranks_; ++r) {
        if (state_[static_cast<std::size_t>(r)].outstanding.empty()) continue;
        end_waits_ += state_[static_cast<std::size_t>(r)].outstanding.size();
        wait_all(r);
    }
    report_.notes.insert(report_.notes.begin(),
                         fmt::format("sizes are counts of {} unless an action names a datatype; "
                                     "compute flops are instructions",
                                     double_default_ ? "MPI_DOUBLE (8 B, 'init' with an argument)"
                                                     : "MPI_BYTE (1 B)"));
    if (foreign_lines_ > 0)
        report_.notes.push_back(fmt::format(
            "{} line{} of another rank skipped in the index's per-rank files (as SimGrid's replay "
            "does: \"Ignore trace element not for me\")",
            foreign_lines_, foreign_lines_ == 1 ? "" : "s"));
    if (actors_)
        report_.notes.push_back(
            "S4U actor-replay form: actor pN is rank N; send is a blocking send, recv takes "
            "the size of the matching send");
    if (tests_ > 0)
        report_.notes.push_back(
            fmt::format("{} test action{} ignored (a nonblocking check; the "
                        "later wait completes the request)",
                        tests_, tests_ == 1 ? "" : "s"));
    if (unmatched_waits_ > 0)
        report_.notes.push_back(
            fmt::format("{} wait{} without a matching isend/irecv ignored "
                        "(as SimGrid does: completed by an earlier test)",
                        unmatched_waits_, unmatched_waits_ == 1 ? "" : "s"));
    if (zero_computes_ > 0)
        report_.notes.push_back(fmt::format("{} compute/sleep action{} of zero length dropped",
                                            zero_computes_, zero_computes_ == 1 ? "" : "s"));
    if (end_waits_ > 0)
        report_.notes.push_back(
            fmt::format("{} request{} still outstanding at the end of a "
                        "rank: waited for there (as SimGrid does)",
                        end_waits_, end_waits_ == 1 ? "" : "s"));
    return std::move(trace_);
}

class SimgridTiReader final : public TraceReader {
  public:
    std::string name() const override { return "simgrid_ti"; }
    std::string description() const override {
        return "SimGrid time-independent trace: '<rank> <action> <args>' lines in one file, or "
               "an index file listing one action file per rank";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        const std::string_view first = first_content_line(head);
        if (first.empty()) return false;
        if (looks_like_action(first)) return true;
        // An index: its first entry names an existing file that holds TI actions.
        if (first.size() > 4096 || first.find('\0') != std::string_view::npos) return false;
        const Resolved r = resolve_entry(path, first);
        return !r.path.empty() && looks_like_action(first_content_line(read_head(r.path)));
    }
    Trace read(const std::string& path, const ReadOptions& options,
               ReadReport& report) const override {
        Parser p(path, options, report);
        return p.read();
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_simgrid_ti_reader() {
    return std::make_unique<SimgridTiReader>();
}

}  // namespace clustersim::traces
