// The native text trace format (traces/README.md, "Native trace format"): a header, then
// one `rank N` line per rank followed by its records, one per line, only non-default fields.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

namespace {

constexpr const char* kHeader = "clustersim-trace";

// ---- strings: percent-encoded single tokens ------------------------------------------------
// '%', '#', '"', space, control characters and DEL become %XX; the empty string is "".
std::string encode_token(const std::string& s) {
    if (s.empty()) return "\"\"";
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f || c == '%' || c == '#' || c == '"')
            out += fmt::format("%{:02X}", c);
        else
            out += ch;
    }
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// ---- fields of a record line ----------------------------------------------------------------
enum TextField : std::uint8_t {
    TFile,
    TPath,
    TInstructions,
    TTime,
    TPeer,
    TTag,
    TBytes,
    TPeer2,
    TTag2,
    TBytes2,
    TComm,
    TRoot,
    TCounts,
    THandle,
    TCount,
    TColor,
    TKey,
    TNewcomm,
    TOffset,
    TViewBlock,
    TViewStride,
    TWhence,
    TStart,
    TEnd,
    // topology constructors: their arguments (kept as a count list, see encode_topo_spec)
    TDims,
    TPeriods,
    TReorder,
    TSources,
    TDestinations,
    TWin,  // one-sided: the window handle
    kTextFields
};

constexpr std::array<const char*, kTextFields> kFieldNames{
    "file", "path",    "instructions", "time",       "peer",         "tag",    "bytes", "peer2",
    "tag2", "bytes2",  "comm",         "root",       "counts",       "handle", "count", "color",
    "key",  "newcomm", "offset",       "view_block", "view_stride",  "whence", "start", "end",
    "dims", "periods", "reorder",      "sources",    "destinations", "win"};

std::string field_list() {
    std::string s;
    for (const char* n : kFieldNames) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

// Times: canonical (exact) forms, with a sign for the (invalid but representable) negatives.
void put_time(std::string& out, std::int64_t ps) {
    if (ps < 0) {
        out += '-';
        if (ps == std::numeric_limits<std::int64_t>::min()) {
            out += "9223372036854775808ps";
            return;
        }
        ps = -ps;
    }
    out += canonical_time(Time::ps(ps));
}

void put_any(std::string& out, std::int32_t v) {
    if (v == mpi::kAnySource)
        out += "any";
    else
        fmt::format_to(std::back_inserter(out), "{}", v);
}

// "4x4" / "1,2,3" of a list.
template <class T>
void put_list(std::string& out, const std::vector<T>& v, char sep) {
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += sep;
        fmt::format_to(std::back_inserter(out), "{}", static_cast<std::int64_t>(v[i]));
    }
}

void put_record(std::string& out, const Record& r, const Trace& t) {
    out += record_name(r);
    auto field = [&](TextField f) {
        out += ' ';
        out += kFieldNames[f];
        out += '=';
    };
    auto num = [&](TextField f, auto v) {
        field(f);
        fmt::format_to(std::back_inserter(out), "{}", v);
    };
    auto size = [&](TextField f, std::uint64_t v) {
        field(f);
        out += canonical_size(v);
    };
    if (r.file != 0) num(TFile, r.file);
    if (r.path != kNone) num(TPath, r.path);
    if (r.instructions != 0) num(TInstructions, r.instructions);
    if (r.compute_time != Time::zero()) {
        field(TTime);
        put_time(out, r.compute_time.ps());
    }
    if (r.peer != 0) {
        field(TPeer);
        put_any(out, r.peer);
    }
    if (r.tag != 0) {
        field(TTag);
        put_any(out, r.tag);
    }
    if (r.bytes != 0) size(TBytes, r.bytes);
    if (r.peer2 != 0) {
        field(TPeer2);
        put_any(out, r.peer2);
    }
    if (r.tag2 != 0) {
        field(TTag2);
        put_any(out, r.tag2);
    }
    if (r.bytes2 != 0) size(TBytes2, r.bytes2);
    if (r.comm != 0) num(TComm, r.comm);
    if (r.root != 0) num(TRoot, r.root);
    mpi::TopoSpec spec;
    if (r.counts != kNone && mpi::creates_topology(r.kind) &&
        static_cast<std::size_t>(r.counts) < t.count_lists.size() &&
        mpi::decode_topo_spec(r.kind, t.count_lists[static_cast<std::size_t>(r.counts)], spec)
            .empty()) {
        // the topology's arguments by name
        if (r.kind == mpi::OpKind::CartCreate) {
            field(TDims);
            put_list(out, spec.dims, 'x');
            field(TPeriods);
            put_list(out, spec.periods, 'x');
        } else {  // both, empty or not: the record says it is a graph's
            field(TSources);
            put_list(out, spec.sources, ',');
            field(TDestinations);
            put_list(out, spec.destinations, ',');
        }
        if (spec.reorder) num(TReorder, 1);
    } else if (r.counts != kNone) {
        num(TCounts, r.counts);
    }
    if (r.handle != 0) num(THandle, r.handle);
    if (r.count != 0) num(TCount, r.count);
    if (r.color != 0) {
        field(TColor);
        if (r.color == mpi::kUndefined)
            out += "undefined";
        else
            fmt::format_to(std::back_inserter(out), "{}", r.color);
    }
    if (r.key != 0) num(TKey, r.key);
    if (r.newcomm != 0) num(TNewcomm, r.newcomm);
    if (r.offset != 0) size(TOffset, r.offset);
    if (r.view_block != 0) size(TViewBlock, r.view_block);
    if (r.view_stride != 0) size(TViewStride, r.view_stride);
    if (r.whence != mpi::kSeekSet) {
        field(TWhence);
        if (r.whence == mpi::kSeekCur)
            out += "cur";
        else if (r.whence == mpi::kSeekEnd)
            out += "end";
        else
            fmt::format_to(std::back_inserter(out), "{}", r.whence);
    }
    if (r.win != 0) num(TWin, r.win);
    if (r.timed) {
        field(TStart);
        put_time(out, r.start.ps());
        field(TEnd);
        put_time(out, r.end.ps());
    }
    out += '\n';
}

// ---- reading ----------------------------------------------------------------------------

// Splits a line (comment removed) into whitespace-separated tokens.
void tokenize(std::string_view line, std::vector<std::string_view>& tokens) {
    tokens.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size()) break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        tokens.push_back(line.substr(i, j - i));
        i = j;
    }
}

class TextReader {
  public:
    TextReader(const std::string& path, const ReadOptions& options, ReadReport& report)
        : path_(path), options_(options), report_(report) {}

    Trace read() {
        const std::string text = read_whole_file(path_);
        trace_.source = path_;
        std::vector<std::string_view> tokens;
        std::size_t pos = 0;
        while (pos < text.size()) {
            std::size_t eol = text.find('\n', pos);
            if (eol == std::string::npos) eol = text.size();
            std::string_view line(text.data() + pos, eol - pos);
            pos = eol + 1;
            ++line_;
            if (const auto hash = line.find('#'); hash != std::string_view::npos)
                line = line.substr(0, hash);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            tokenize(line, tokens);
            if (tokens.empty()) continue;
            this->line(tokens);
        }
        if (!header_)
            throw InputError(path_, 1,
                             fmt::format("expected '{} 1' (the native text trace header), got "
                                         "an empty file",
                                         kHeader));
        return std::move(trace_);
    }

  private:
    [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, line_, what); }

    static std::string joined(const std::vector<std::string_view>& tokens) {
        std::string s;
        for (auto t : tokens) {
            if (!s.empty()) s += ' ';
            s += t;
        }
        return s;
    }

    std::string decode_token(std::string_view t) const {
        if (t == "\"\"") return {};
        std::string out;
        out.reserve(t.size());
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t[i] != '%') {
                out += t[i];
                continue;
            }
            const int hi = i + 1 < t.size() ? hex_digit(t[i + 1]) : -1;
            const int lo = i + 2 < t.size() ? hex_digit(t[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                fail(fmt::format("expected a %XX escape (two hex digits), got '{}'",
                                 t.substr(i, 3)));
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        return out;
    }

    template <class T>
    T integer(std::string_view name, std::string_view v) const {
        T x{};
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc() || p != v.data() + v.size() || v.empty() || v.front() == '+')
            fail(fmt::format("expected {} to be {} integer{}, got '{}'", name,
                             std::is_signed_v<T> ? "an" : "a non-negative",
                             ec == std::errc::result_out_of_range ? " in range" : "", v));
        return x;
    }

    std::int32_t any_integer(std::string_view name, std::string_view v) const {
        if (v == "any") return mpi::kAnySource;
        return integer<std::int32_t>(name, v);
    }

    template <class F>
    auto unit(std::string_view name, std::string_view v, F parse) const {
        try {
            return parse(v);
        } catch (const UnitError& e) {
            fail(fmt::format("{}: {}", name, e.what()));
        }
    }

    std::uint64_t size(std::string_view name, std::string_view v) const {
        return unit(name, v, [](std::string_view s) { return parse_size(s); });
    }

    Time time(std::string_view name, std::string_view v) const {
        const bool negative = !v.empty() && v.front() == '-';
        if (negative) v.remove_prefix(1);
        const Time t = unit(name, v, [](std::string_view s) { return parse_time(s); });
        return negative ? Time::zero() - t : t;
    }

    void line(const std::vector<std::string_view>& tokens) {
        const std::string_view key = tokens[0];
        if (!header_) {
            if (key != kHeader)
                fail(fmt::format("expected '{} 1' (the native text trace header), got '{}'",
                                 kHeader, joined(tokens)));
            if (tokens.size() != 2 || tokens[1] != "1")
                fail(fmt::format("expected version 1 ('{} 1'), got '{}'", kHeader, joined(tokens)));
            header_ = true;
            return;
        }
        if (key == "rank") return rank(tokens);
        if (key == "name" || key == "traced-speed" || key == "file" || key == "string" ||
            key == "counts" || key == kHeader) {
            if (rank_ >= 0)
                fail(
                    fmt::format("expected a record, got '{}' (header lines belong before "
                                "the first 'rank' line)",
                                joined(tokens)));
            return header(tokens);
        }
        Record r;
        const bool known = parse_record_name(key, r);
        if (rank_ < 0)
            fail(known ? fmt::format("expected 'rank 0' before the first record, got '{}'",
                                     joined(tokens))
                       : fmt::format("expected a header line (name, traced-speed, file, string, "
                                     "counts) or 'rank 0', got '{}'",
                                     joined(tokens)));
        if (!known) {
            if (options_.skip_unknown) {
                ++report_.skipped[std::string(key)];
                return;
            }
            fail(
                fmt::format("unknown record '{}' (expected compute, send, recv, isend, irecv, "
                            "wait, waitall, sendrecv, a collective such as bcast or its "
                            "nonblocking form ibcast, comm_dup, comm_split or file_*: see "
                            "traces/README.md)",
                            key));
        }
        record(tokens, r);
        trace_.append(static_cast<std::uint32_t>(rank_), r);
    }

    void rank(const std::vector<std::string_view>& tokens) {
        const std::int64_t expected = rank_ + 1;
        if (tokens.size() != 2)
            fail(fmt::format("expected 'rank {}', got '{}'", expected, joined(tokens)));
        std::int64_t n = 0;
        const auto [p, ec] =
            std::from_chars(tokens[1].data(), tokens[1].data() + tokens[1].size(), n);
        if (ec != std::errc() || p != tokens[1].data() + tokens[1].size() || n != expected)
            fail(fmt::format("expected 'rank {}' (ranks in order from 0, each once), got '{}'",
                             expected, joined(tokens)));
        rank_ = n;
        trace_.resize(static_cast<std::uint32_t>(n + 1));
    }

    void header(const std::vector<std::string_view>& tokens) {
        const std::string_view key = tokens[0];
        if (key == kHeader) fail(fmt::format("a second header line '{}'", joined(tokens)));
        if (key == "name") {
            if (tokens.size() != 2)
                fail(fmt::format("expected 'name NAME' (one token, %20 for spaces), got '{}'",
                                 joined(tokens)));
            trace_.name = decode_token(tokens[1]);
        } else if (key == "traced-speed") {
            if (tokens.size() != 2)
                fail(fmt::format("expected 'traced-speed SPEED' (e.g. 2.8G), got '{}'",
                                 joined(tokens)));
            trace_.traced_speed =
                unit("traced-speed", tokens[1], [](std::string_view s) { return parse_speed(s); });
        } else if (key == "file") {
            if (tokens.size() < 2)
                fail(fmt::format("expected 'file NAME size=SIZE [stripe=SIZE]', got '{}'",
                                 joined(tokens)));
            io::FileDecl f;
            f.name = decode_token(tokens[1]);
            bool have_size = false, have_stripe = false;
            for (std::size_t i = 2; i < tokens.size(); ++i) {
                const auto [name, value] = split_field(tokens[i]);
                if (name == "size" && !have_size) {
                    f.size = size(name, value);
                    have_size = true;
                } else if (name == "stripe" && !have_stripe) {
                    f.stripe = size(name, value);
                    have_stripe = true;
                } else {
                    fail(fmt::format("expected size= or stripe= (each once) in 'file', got '{}'",
                                     tokens[i]));
                }
            }
            trace_.files.push_back(std::move(f));
        } else if (key == "string") {
            if (tokens.size() != 3)
                fail(fmt::format("expected 'string {} TEXT' (one token, %20 for spaces), got '{}'",
                                 trace_.strings.size(), joined(tokens)));
            index(tokens[1], trace_.strings.size(), "string");
            trace_.strings.push_back(decode_token(tokens[2]));
        } else {  // counts
            if (tokens.size() < 2)
                fail(fmt::format("expected 'counts {} SIZE...', got '{}'",
                                 trace_.count_lists.size(), joined(tokens)));
            index(tokens[1], trace_.count_lists.size(), "counts");
            std::vector<std::uint64_t> list;
            list.reserve(tokens.size() - 2);
            for (std::size_t i = 2; i < tokens.size(); ++i)
                list.push_back(size("counts", tokens[i]));
            trace_.count_lists.push_back(std::move(list));
        }
    }

    void index(std::string_view token, std::size_t expected, const char* what) const {
        std::size_t n = 0;
        const auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), n);
        if (ec != std::errc() || p != token.data() + token.size() || n != expected)
            fail(fmt::format("expected '{} {}' (indices in order from 0), got '{} {}'", what,
                             expected, what, token));
    }

    std::pair<std::string_view, std::string_view> split_field(std::string_view token) const {
        const auto eq = token.find('=');
        if (eq == std::string_view::npos || eq == 0)
            fail(fmt::format("expected field=value, got '{}'", token));
        return {token.substr(0, eq), token.substr(eq + 1)};
    }

    // "4x4", "1,2,3": integers >= 0 (at most INT32_MAX) joined by `sep`; "" is empty.
    std::vector<std::int32_t> int_list(std::string_view name, std::string_view v, char sep) const {
        std::vector<std::int32_t> out;
        if (v.empty()) return out;
        for (std::size_t pos = 0;;) {
            const std::size_t end = std::min(v.find(sep, pos), v.size());
            out.push_back(integer<std::int32_t>(name, v.substr(pos, end - pos)));
            if (out.back() < 0)
                fail(fmt::format("{}={}: expected integers >= 0 joined by '{}'", name, v, sep));
            if (end == v.size()) return out;
            pos = end + 1;
        }
    }

    // Field `f` (`name`=`v`) of record `r` (a topology's fields into `spec`).
    void set_field(TextField f, std::string_view name, std::string_view v, Record& r,
                   mpi::TopoSpec& spec) {
        switch (f) {
            case TFile:
                r.file = integer<std::uint32_t>(name, v);
                break;
            case TInstructions:
                r.instructions = integer<std::uint64_t>(name, v);
                break;
            case TPeer:
                r.peer = any_integer(name, v);
                break;
            case TTag:
                r.tag = any_integer(name, v);
                break;
            case TBytes:
                r.bytes = size(name, v);
                break;
            case TPeer2:
                r.peer2 = any_integer(name, v);
                break;
            case TTag2:
                r.tag2 = any_integer(name, v);
                break;
            case TBytes2:
                r.bytes2 = size(name, v);
                break;
            case TComm:
                r.comm = integer<std::int32_t>(name, v);
                break;
            case TRoot:
                r.root = integer<std::int32_t>(name, v);
                break;
            case THandle:
                r.handle = integer<std::uint32_t>(name, v);
                break;
            case TCount:
                r.count = integer<std::uint32_t>(name, v);
                break;
            case TColor:
                r.color = v == "undefined" ? mpi::kUndefined : integer<std::int32_t>(name, v);
                break;
            case TKey:
                r.key = integer<std::int32_t>(name, v);
                break;
            case TNewcomm:
                r.newcomm = integer<std::uint32_t>(name, v);
                break;
            case TOffset:
                r.offset = size(name, v);
                break;
            case TViewBlock:
                r.view_block = size(name, v);
                break;
            case TViewStride:
                r.view_stride = size(name, v);
                break;
            case TWin:
                r.win = integer<std::uint32_t>(name, v);
                break;
            case TStart:
                r.start = time(name, v);
                break;
            case TEnd:
                r.end = time(name, v);
                break;
            case TDims:
                spec.dims = int_list(name, v, 'x');
                break;
            case TReorder:
                spec.reorder = integer<std::uint8_t>(name, v) != 0;
                break;
            case TSources:
                spec.sources = int_list(name, v, ',');
                break;
            case TDestinations:
                spec.destinations = int_list(name, v, ',');
                break;

            default:
                set_checked_field(f, name, v, r, spec);
                break;
        }
    }

    // The fields whose values are checked against the trace or a closed list.
    void set_checked_field(TextField f, std::string_view name, std::string_view v, Record& r,
                           mpi::TopoSpec& spec) {
        switch (f) {
            case TPath:
                r.path = integer<std::int32_t>(name, v);
                if (r.path != kNone &&
                    (r.path < 0 || static_cast<std::size_t>(r.path) >= trace_.strings.size()))
                    fail(
                        fmt::format("path={}: no such string (the trace has {} 'string' "
                                    "lines)",
                                    r.path, trace_.strings.size()));
                break;
            case TTime:
                r.compute_time = time(name, v);
                if (r.compute_time < Time::zero())
                    fail(
                        fmt::format("negative compute time '{}'; expected a duration of "
                                    "0 or more (e.g. 5us)",
                                    v));
                break;
            case TCounts:
                r.counts = integer<std::int32_t>(name, v);
                if (r.counts != kNone && (r.counts < 0 || static_cast<std::size_t>(r.counts) >=
                                                              trace_.count_lists.size()))
                    fail(
                        fmt::format("counts={}: no such count list (the trace has {} "
                                    "'counts' lines)",
                                    r.counts, trace_.count_lists.size()));
                break;
            case TWhence:
                if (v == "set")
                    r.whence = mpi::kSeekSet;
                else if (v == "cur")
                    r.whence = mpi::kSeekCur;
                else if (v == "end")
                    r.whence = mpi::kSeekEnd;
                else if (!v.empty() && v.front() >= '0' && v.front() <= '9' &&
                         integer<std::uint8_t>(name, v) <= mpi::kSeekEnd)
                    r.whence = integer<std::uint8_t>(name, v);
                else
                    fail(fmt::format("expected whence to be set, cur or end (or 0, 1, 2), got '{}'",
                                     v));
                break;
            case TPeriods:
                for (const std::int32_t x : int_list(name, v, 'x')) {
                    if (x > 1) fail(fmt::format("periods={}: expected 0 or 1 per dimension", v));
                    spec.periods.push_back(static_cast<std::uint8_t>(x));
                }
                break;
            default:
                break;
        }
    }

    void record(const std::vector<std::string_view>& tokens, Record& r) {
        std::uint32_t seen = 0;
        mpi::TopoSpec spec;
        for (std::size_t i = 1; i < tokens.size(); ++i) {
            const auto [name, v] = split_field(tokens[i]);
            const auto it = std::find(kFieldNames.begin(), kFieldNames.end(), name);
            if (it == kFieldNames.end())
                fail(fmt::format("unknown field '{}' in '{}'; expected one of: {}", name, tokens[0],
                                 field_list()));
            const auto f = static_cast<TextField>(it - kFieldNames.begin());
            if (seen & (1u << f)) fail(fmt::format("field '{}' given twice", name));
            seen |= 1u << f;
            set_field(f, name, v, r, spec);
        }
        constexpr std::uint32_t topo_fields =
            1u << TDims | 1u << TPeriods | 1u << TReorder | 1u << TSources | 1u << TDestinations;
        if ((seen & topo_fields) != 0) {
            if (!mpi::creates_topology(r.kind))
                fail(
                    fmt::format("dims, periods, reorder, sources and destinations belong to "
                                "cart_create and dist_graph_create(_adjacent), not {}",
                                tokens[0]));
            if ((seen & 1u << TCounts) != 0)
                fail(fmt::format("{}: counts= and the topology's fields together", tokens[0]));
            if (r.kind == mpi::OpKind::CartCreate && spec.periods.size() != spec.dims.size())
                fail(fmt::format("cart_create: {} dims but {} periods", spec.dims.size(),
                                 spec.periods.size()));
            if (r.kind == mpi::OpKind::DistGraphCreate &&
                spec.sources.size() != spec.destinations.size())
                fail(fmt::format("dist_graph_create: {} edge sources but {} destinations",
                                 spec.sources.size(), spec.destinations.size()));
            r.counts = trace_.add_counts(mpi::encode_topo_spec(r.kind, spec));
        }
        const bool start = seen & (1u << TStart), end = seen & (1u << TEnd);
        if (start != end)
            fail(fmt::format("expected both start= and end= (or neither) in '{}', got only {}=",
                             tokens[0], start ? "start" : "end"));
        r.timed = start;
    }

    const std::string& path_;
    const ReadOptions& options_;
    ReadReport& report_;
    Trace trace_;
    int line_ = 0;
    bool header_ = false;
    std::int64_t rank_ = -1;
};

class NativeTextReader final : public TraceReader {
  public:
    std::string name() const override { return "native_text"; }
    std::string description() const override {
        return "clustersim's own text trace (first line 'clustersim-trace 1')";
    }
    bool sniff(const std::string&, const std::string& head) const override {
        std::size_t pos = 0;
        while (pos < head.size()) {
            std::size_t eol = head.find('\n', pos);
            if (eol == std::string::npos) eol = head.size();
            std::string_view line(head.data() + pos, eol - pos);
            pos = eol + 1;
            if (const auto hash = line.find('#'); hash != std::string_view::npos)
                line = line.substr(0, hash);
            const auto first = line.find_first_not_of(" \t\r");
            if (first == std::string_view::npos) continue;
            line.remove_prefix(first);
            const std::string_view h = kHeader;
            return line.substr(0, h.size()) == h &&
                   (line.size() == h.size() || line[h.size()] == ' ' || line[h.size()] == '\t' ||
                    line[h.size()] == '\r');
        }
        return false;
    }
    Trace read(const std::string& path, const ReadOptions& options,
               ReadReport& report) const override {
        return TextReader(path, options, report).read();
    }
};

}  // namespace

Trace read_text(const std::string& path) {
    ReadOptions options;
    ReadReport report;
    return TextReader(path, options, report).read();
}

void write_text(const Trace& t, const std::string& path) {
    std::string out;
    out += fmt::format("{} 1\n", kHeader);
    if (!t.name.empty()) out += fmt::format("name {}\n", encode_token(t.name));
    if (t.traced_speed != 0)
        out += fmt::format("traced-speed {}\n", canonical_speed(t.traced_speed));
    for (const auto& f : t.files) {
        out += fmt::format("file {} size={}", encode_token(f.name), canonical_size(f.size));
        if (f.stripe != 0) out += fmt::format(" stripe={}", canonical_size(f.stripe));
        out += '\n';
    }
    for (std::size_t i = 0; i < t.strings.size(); ++i)
        out += fmt::format("string {} {}\n", i, encode_token(t.strings[i]));
    for (std::size_t i = 0; i < t.count_lists.size(); ++i) {
        fmt::format_to(std::back_inserter(out), "counts {}", i);
        for (const auto c : t.count_lists[i]) {
            out += ' ';
            out += canonical_size(c);
        }
        out += '\n';
    }
    Record r;
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        fmt::format_to(std::back_inserter(out), "rank {}\n", rank);
        auto c = t.cursor(rank);
        while (c.next(r)) put_record(out, r, t);
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(path, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    file.close();
    if (!file) throw InputError(path, 0, fmt::format("cannot write: {}", std::strerror(errno)));
}

std::unique_ptr<TraceReader> make_native_text_reader() {
    return std::make_unique<NativeTextReader>();
}

}  // namespace clustersim::traces
