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
#include "traces/simgrid_ti_parser.hpp"
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

// True if the line is `<int> <known action> ...` (SMPI) or `p<int> <action> ...` (S4U).
bool looks_like_action(std::string_view line) {
    const auto toks = split(line);
    std::int64_t r = 0;
    if (toks.size() < 2) return false;
    if (parse_rank_field(toks[0], r)) return known_action(toks[1]);
    return simgrid_ti_in::parse_actor_field(toks[0], r) &&
           (known_action(toks[1]) || simgrid_ti_in::io_action(toks[1]));
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

}  // namespace

namespace simgrid_ti_in {

bool io_action(std::string_view word) {
    return std::find(kIoActions.begin(), kIoActions.end(), word) != kIoActions.end();
}

// An S4U actor-replay actor name: `p<N>` (SimGrid's examples/cpp/replay-comm), rank N.
bool parse_actor_field(std::string_view tok, std::int64_t& out) {
    return tok.size() >= 2 && tok[0] == 'p' && parse_rank_field(tok.substr(1), out);
}

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

}  // namespace simgrid_ti_in

namespace {

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
        simgrid_ti_in::Parser p(path, options, report);
        return p.read();
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_simgrid_ti_reader() {
    return std::make_unique<SimgridTiReader>();
}

}  // namespace clustersim::traces
