// Jitter trace files: the registry of formats and its built-ins, jitSim text, jitSim binary
// and LogGOPSim noise (see jitter_io.hpp).
#include "traces/jitter_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "traces/text.hpp"

namespace clustersim::traces {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr char kJitterMagic[8] = {'C', 'S', 'J', 'T', 'R', '\0', '\0', '\1'};
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

std::string read_jitter_file(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the jitter trace for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, "cannot read the jitter trace");
    return ss.str();
}

bool is_separator(char c) {
    return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\v' || c == '\f';
}

// Splits a data line into fields separated by runs of spaces, tabs or commas.
std::vector<std::string_view> fields_of(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_separator(line[i])) ++i;
        if (i >= line.size()) break;
        const std::size_t b = i;
        while (i < line.size() && !is_separator(line[i])) ++i;
        out.push_back(line.substr(b, i - b));
    }
    return out;
}

// The data part of a line: everything before a '#' (the rest is a comment).
std::string_view data_part(std::string_view line) {
    const std::size_t hash = line.find('#');
    return trim(hash == std::string_view::npos ? line : line.substr(0, hash));
}

// Iterates over the lines of `text`, calling f(line_number, line) (line without '\n').
template <typename F>
int for_each_line(const std::string& text, F f) {
    int number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        ++number;
        f(number, std::string_view(text).substr(pos, end - pos));
        pos = end + 1;
    }
    return number;
}

std::uint64_t parse_cycles(std::string_view field, const std::string& name, int line,
                           const char* what) {
    if (!field.empty() && field.front() == '-')
        throw InputError(name, line,
                         fmt::format("expected a non-negative whole number of cycles for the {}, "
                                     "got negative '{}'",
                                     what, field));
    std::uint64_t v = 0;
    for (const char c : field) {
        if (c < '0' || c > '9')
            throw InputError(name, line,
                             fmt::format("expected a non-negative whole number of cycles for the "
                                         "{}, got '{}'",
                                         what, field));
        if (v > (kMax64 - static_cast<std::uint64_t>(c - '0')) / 10)
            throw InputError(name, line,
                             fmt::format("the {} '{}' does not fit in 64 bits", what, field));
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return v;
}

// "2.4GHz", "2.4G", "2400000000Hz" or a plain whole number of Hz ("2400000000").
double parse_frequency(std::string_view text, const std::string& name, int line) {
    text = trim(text);
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
    try {
        const std::uint64_t hz = plain ? parse_count(text) : parse_speed(text);
        if (hz == 0) throw UnitError("expected a positive frequency");
        return static_cast<double>(hz);
    } catch (const UnitError& e) {
        throw InputError(name, line,
                         fmt::format("expected '# frequency: <clock>' with a clock such as 2.4GHz "
                                     "or 2400000000 (Hz): {}",
                                     e.what()));
    }
}

// Rejects a trace with no tuples or no compute cycles (and overflow of the total length).
void check_trace(const jitter::JitterTrace& t, const std::string& name, int line) {
    if (t.jitter.empty())
        throw InputError(name, line,
                         "expected at least one '<jitter_cycles> <cycles_to_next>' tuple; the "
                         "jitter trace is empty");
    u128 total = 0;
    std::uint64_t compute = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        total += static_cast<u128>(t.jitter[i]) + t.compute[i];
        compute |= t.compute[i];
    }
    if (total > kMax64) throw InputError(name, line, "the jitter trace is longer than 2^64 cycles");
    if (compute == 0)
        throw InputError(name, line,
                         "expected some compute cycles (cycles_to_next_jitter > 0); the trace is "
                         "all jitter");
}

void apply_frequency(jitter::JitterTrace& t, double frequency_hz) {
    if (frequency_hz > 0) t.frequency_hz = frequency_hz;
}

// ---- binary --------------------------------------------------------------------------------

void put_u64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const std::string& in, std::size_t at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
    return v;
}

jitter::JitterTrace parse_binary(const std::string& data, const std::string& path) {
    constexpr std::size_t kHeader = 8 + 8 + 8;
    if (data.size() < kHeader || std::memcmp(data.data(), kJitterMagic, 8) != 0) {
        if (data.size() >= 8 && std::memcmp(data.data(), kJitterMagic, 8) != 0)
            throw InputError(path, 0,
                             "expected a binary jitter trace starting with the magic CSJTR");
        throw InputError(path, 0,
                         fmt::format("truncated binary jitter trace: expected a {}-byte header, "
                                     "the file has {} bytes",
                                     kHeader, data.size()));
    }
    const std::uint64_t bits = get_u64(data, 8);
    double frequency = 0;
    std::memcpy(&frequency, &bits, sizeof frequency);
    if (!std::isfinite(frequency) || frequency < 0)
        throw InputError(
            path, 0, fmt::format("expected a frequency >= 0 Hz in the header, got {}", frequency));
    const std::uint64_t count = get_u64(data, 16);
    const std::uint64_t body = data.size() - kHeader;
    if (count > body / 16 || body != count * 16) {
        if (count <= body / 16)
            throw InputError(path, 0,
                             fmt::format("expected {} tuples ({} bytes) after the header, found "
                                         "{} bytes: trailing garbage",
                                         count, count * 16, body));
        throw InputError(path, 0,
                         fmt::format("truncated binary jitter trace: expected {} tuples after the "
                                     "header, the file holds {} bytes of them",
                                     count, body));
    }
    jitter::JitterTrace t;
    t.frequency_hz = frequency;
    t.source = path;
    t.jitter.resize(count);
    t.compute.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        t.jitter[i] = get_u64(data, kHeader + 16 * i);
        t.compute[i] = get_u64(data, kHeader + 16 * i + 8);
    }
    check_trace(t, path, 0);
    return t;
}

// ---- LogGOPSim -----------------------------------------------------------------------------

// A non-negative decimal number of nanoseconds, kept exact: mantissa * 10^-scale.
struct Decimal {
    u128 mantissa = 0;
    int scale = 0;
};

Decimal parse_ns(std::string_view field, const std::string& name, int line, const char* what) {
    const auto bad = [&](const char* why) {
        return InputError(name, line,
                          fmt::format("expected the {} in nanoseconds as a non-negative number, "
                                      "got '{}'{}",
                                      what, field, why));
    };
    if (!field.empty() && field.front() == '-') throw bad(" (negative)");
    Decimal d;
    bool digits = false, dot = false;
    for (const char c : field) {
        if (c == '.' && !dot) {
            dot = true;
        } else if (c >= '0' && c <= '9') {
            digits = true;
            if (d.mantissa > static_cast<u128>(kMax64) * 1000) throw bad(" (too large)");
            if (dot && d.scale >= 12) continue;  // below a femtosecond: ignored
            d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
            if (dot) ++d.scale;
        } else {
            throw bad("");
        }
    }
    if (!digits) throw bad("");
    return d;
}

u128 pow10(int n) {
    u128 v = 1;
    for (int i = 0; i < n; ++i) v *= 10;
    return v;
}

// Cycles at `hz` for d ns, rounded to nearest: d.mantissa * hz / (10^9 * 10^scale).
std::uint64_t ns_to_cycles(const Decimal& d, std::uint64_t hz, const std::string& name, int line) {
    const u128 den = pow10(9 + d.scale);
    // mantissa < 2^64 * 10^4 and hz <= 10^12 (checked by the caller); splitting into whole
    // and fractional nanoseconds keeps both products below 10^34 < 2^128.
    const u128 q = d.mantissa / den, r = d.mantissa % den;
    const u128 whole = q * hz;
    const u128 frac = (r * hz + den / 2) / den;
    const u128 v = whole + frac;
    if (v > kMax64) throw InputError(name, line, "the time does not fit in 2^64 cycles");
    return static_cast<std::uint64_t>(v);
}

jitter::JitterTrace parse_loggopsim(const std::string& text, const std::string& name,
                                    double frequency_hz) {
    const double f = frequency_hz > 0 ? frequency_hz : 1e9;
    const std::uint64_t hz = static_cast<std::uint64_t>(std::llround(f));
    if (hz == 0 || hz > 1'000'000'000'000ULL)
        throw InputError(name, 0,
                         fmt::format("expected a frequency between 1 Hz and 1 THz, got {} Hz", f));
    struct Event {
        std::uint64_t start, end;
        int line;
    };
    std::vector<Event> events;
    std::uint64_t end_mark = 0;  // the largest time named in the file, cycles
    Decimal prev_start;
    bool have_prev = false;
    std::uint64_t prev_end = 0;
    const int last_line = for_each_line(text, [&](int line, std::string_view raw) {
        const std::string_view data = data_part(raw);
        if (data.empty()) return;
        const auto fields = fields_of(data);
        if (fields.size() < 2)
            throw InputError(name, line,
                             "expected '<start>\\t<duration>' in nanoseconds, found one field");
        if (fields.size() > 2)
            throw InputError(name, line,
                             fmt::format("expected '<start>\\t<duration>' in nanoseconds, found "
                                         "extra field '{}'",
                                         fields[2]));
        const Decimal start = parse_ns(fields[0], name, line, "start");
        const Decimal duration = parse_ns(fields[1], name, line, "duration");
        // Exact comparison of the starts (common scale).
        if (have_prev) {
            const int s = std::max(start.scale, prev_start.scale);
            if (start.mantissa * pow10(s - start.scale) <
                prev_start.mantissa * pow10(s - prev_start.scale))
                throw InputError(name, line,
                                 "expected events sorted by start time; this one starts before "
                                 "the previous one");
        }
        // The end is start + duration, exact at the common scale, then rounded to cycles.
        const int s = std::max(start.scale, duration.scale);
        const Decimal end{
            start.mantissa * pow10(s - start.scale) + duration.mantissa * pow10(s - duration.scale),
            s};
        const std::uint64_t sc = ns_to_cycles(start, hz, name, line);
        const std::uint64_t ec = ns_to_cycles(end, hz, name, line);
        if (have_prev && sc < prev_end)
            throw InputError(name, line,
                             "expected events that do not overlap; this one starts before the "
                             "previous one ends");
        prev_start = start;
        have_prev = true;
        end_mark = std::max(end_mark, ec);
        if (ec > sc) {
            events.push_back({sc, ec, line});
            prev_end = ec;
        }
    });
    jitter::JitterTrace t;
    t.frequency_hz = f;
    t.source = name;
    const int at = std::max(last_line, 1);
    if (events.empty())
        throw InputError(name, at,
                         "expected at least one '<start>\\t<duration>' noise event with a "
                         "duration of at least one cycle; the trace is empty");
    if (events.front().start > 0) {
        t.jitter.push_back(0);
        t.compute.push_back(events.front().start);
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::uint64_t next = i + 1 < events.size() ? events[i + 1].start : end_mark;
        t.jitter.push_back(events[i].end - events[i].start);
        t.compute.push_back(next - events[i].end);
    }
    check_trace(t, name, at);
    return t;
}

std::string format_ps_as_ns(u128 ps) {
    const std::uint64_t whole = static_cast<std::uint64_t>(ps / 1000);
    const unsigned frac = static_cast<unsigned>(ps % 1000);
    if (frac == 0) return fmt::format("{}", whole);
    std::string s = fmt::format("{}.{:03}", whole, frac);
    while (s.back() == '0') s.pop_back();
    return s;
}

std::string write_loggopsim(const jitter::JitterTrace& trace, const std::string& path) {
    if (!(trace.frequency_hz > 0))
        throw InputError(path, 0,
                         "the LogGOPSim noise format is in nanoseconds: the trace needs a clock "
                         "frequency (a '# frequency:' header or --frequency)");
    const std::uint64_t hz = static_cast<std::uint64_t>(std::llround(trace.frequency_hz));
    if (hz == 0) throw InputError(path, 0, "the trace's clock frequency is below 1 Hz");
    const auto ps_of = [hz](u128 cycles) { return (cycles * 1'000'000'000'000ULL + hz / 2) / hz; };
    std::string out;
    u128 pos = 0;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        if (trace.jitter[i] > 0) {
            const u128 a = ps_of(pos), b = ps_of(pos + trace.jitter[i]);
            out += format_ps_as_ns(a);
            out += '\t';
            out += format_ps_as_ns(b - a);
            out += '\n';
        }
        pos += static_cast<u128>(trace.jitter[i]) + trace.compute[i];
    }
    // A zero-length event marks the end of the run, so the compute after the last event is kept.
    out += format_ps_as_ns(ps_of(pos));
    out += "\t0\n";
    return out;
}

std::string write_binary(const jitter::JitterTrace& trace) {
    std::string out;
    out.reserve(24 + 16 * trace.size());
    out.append(kJitterMagic, 8);
    std::uint64_t bits = 0;
    const double f = trace.frequency_hz > 0 ? trace.frequency_hz : 0.0;
    std::memcpy(&bits, &f, sizeof bits);
    put_u64(out, bits);
    put_u64(out, trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
        put_u64(out, trace.jitter[i]);
        put_u64(out, trace.compute[i]);
    }
    return out;
}

std::string write_text(const jitter::JitterTrace& trace) {
    std::string out;
    out.reserve(32 * trace.size() + 128);
    out += "# jitSim jitter trace: <jitter_cycles> <cycles_to_next_jitter> per line\n";
    if (!trace.source.empty() && trace.source.find('\n') == std::string::npos)
        out += fmt::format("# source: {}\n", trace.source);
    // The text header holds whole hertz (a fractional clock is rounded).
    if (trace.frequency_hz > 0)
        out += fmt::format("# frequency: {}Hz\n", std::llround(trace.frequency_hz));
    fmt::memory_buffer buf;
    for (std::size_t i = 0; i < trace.size(); ++i)
        fmt::format_to(std::back_inserter(buf), "{} {}\n", trace.jitter[i], trace.compute[i]);
    out.append(buf.data(), buf.size());
    return out;
}

void write_jitter_file(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, "cannot open the file for writing");
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) throw InputError(path, 0, "cannot write the file");
}

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

void add_builtin_jitter_formats(JitterFormatRegistry& r) {
    r.add({"text",
           "jitSim text (.jtr): '# frequency: 2.4GHz', then '<jitter_cycles> <cycles_to_next>' "
           "per line",
           {},
           {},       // what no other format's extension claims
           nullptr,  // what no other format's detect claims
           [](const std::string& data, const std::string& path, double hz) {
               jitter::JitterTrace t = parse_jitter_text(data, path);
               apply_frequency(t, hz);
               return t;
           },
           [](const jitter::JitterTrace& t, const std::string&) { return write_text(t); }});
    r.add({"binary",
           "jitSim binary (.jtb): magic CSJTR, frequency, count, then (jitter, compute) uint64 "
           "pairs",
           {},
           {".jtb"},
           [](const std::string&, std::string_view head) {
               return head.size() >= 8 && std::memcmp(head.data(), kJitterMagic, 8) == 0;
           },
           [](const std::string& data, const std::string& path, double hz) {
               jitter::JitterTrace t = parse_binary(data, path);
               apply_frequency(t, hz);
               return t;
           },
           [](const jitter::JitterTrace& t, const std::string&) { return write_binary(t); }});
    r.add({"loggopsim",
           "LogGOPSim noise (.noise): '<start>\\t<duration>' in ns per event",
           {},
           {".noise"},
           [](const std::string& path, std::string_view) { return ends_with(path, ".noise"); },
           &parse_loggopsim,
           &write_loggopsim});
}

// The registered entry of `format` (Auto already resolved by the caller); parse_jitter_format's
// InputError("--format") if none.
const JitterFormatEntry& entry_of(const JitterFormat& format) {
    if (const JitterFormatEntry* e = jitter_formats().find(format.name)) return *e;
    parse_jitter_format(format.name);  // throws for any name but "auto"
    throw InputError("--format", 0, "expected a jitter trace format, not 'auto', here");
}

}  // namespace

JitterFormatRegistry& jitter_formats() {
    static JitterFormatRegistry* registry = [] {
        auto* r = new JitterFormatRegistry("jitter trace format");
        add_builtin_jitter_formats(*r);
        return r;
    }();
    return *registry;
}

std::vector<std::string> jitter_format_names() {
    std::vector<std::string> names{"auto"};
    for (std::string& n : jitter_formats().keys()) names.push_back(std::move(n));
    return names;
}

JitterFormat parse_jitter_format(const std::string& name) {
    if (name == "auto") return JitterFormat::Auto;
    if (const JitterFormatEntry* e = jitter_formats().find(name)) return JitterFormat{e->name};
    const std::vector<std::string> names = jitter_format_names();
    throw InputError("--format", 0,
                     fmt::format("unknown jitter trace format '{}'{}; expected one of {}", name,
                                 did_you_mean(name, names), fmt::join(names, ", ")));
}

JitterFormat detect_jitter_format(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the jitter trace for reading");
    char head[64] = {};
    in.read(head, sizeof head);
    const std::string_view h(head, static_cast<std::size_t>(in.gcount()));
    for (const JitterFormatEntry& e : jitter_formats().entries())
        if (e.detect && e.detect(path, h)) return JitterFormat{e.name};
    return JitterFormat::Text;
}

JitterFormat output_jitter_format(const std::string& name, const std::string& path) {
    if (!name.empty() && name != "auto") return parse_jitter_format(name);
    for (const JitterFormatEntry& e : jitter_formats().entries())
        for (const std::string& ext : e.extensions)
            if (ends_with(path, ext)) return JitterFormat{e.name};
    return JitterFormat::Text;
}

jitter::JitterTrace parse_jitter_text(const std::string& text, const std::string& name) {
    jitter::JitterTrace t;
    t.source = name;
    int frequency_line = 0;
    const int last_line = for_each_line(text, [&](int line, std::string_view raw) {
        const std::string_view s = trim(raw);
        if (s.empty()) return;
        if (s.front() == '#') {
            const std::string_view comment = trim(s.substr(1));
            constexpr std::string_view kKey = "frequency:";
            if (comment.size() >= kKey.size()) {
                std::string key(comment.substr(0, kKey.size()));
                std::transform(key.begin(), key.end(), key.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                if (key == kKey) {
                    if (frequency_line != 0)
                        throw InputError(name, line,
                                         fmt::format("expected one '# frequency:' header; the "
                                                     "first is on line {}",
                                                     frequency_line));
                    t.frequency_hz = parse_frequency(comment.substr(kKey.size()), name, line);
                    frequency_line = line;
                }
            }
            return;
        }
        const auto fields = fields_of(data_part(s));
        if (fields.size() < 2)
            throw InputError(name, line,
                             fmt::format("expected '<jitter_cycles> <cycles_to_next>', found {} "
                                         "field{}: the {} is missing",
                                         fields.size(), fields.size() == 1 ? "" : "s",
                                         fields.empty() ? "tuple" : "cycles_to_next"));
        if (fields.size() > 2)
            throw InputError(name, line,
                             fmt::format("expected '<jitter_cycles> <cycles_to_next>', found "
                                         "extra field '{}'",
                                         fields[2]));
        t.jitter.push_back(parse_cycles(fields[0], name, line, "jitter duration"));
        t.compute.push_back(parse_cycles(fields[1], name, line, "cycles to the next jitter"));
    });
    check_trace(t, name, std::max(last_line, 1));
    return t;
}

jitter::JitterTrace read_jitter_trace(const std::string& path, const JitterFormat& format,
                                      double frequency_hz) {
    if (frequency_hz < 0 || !std::isfinite(frequency_hz))
        throw InputError("--frequency", 0, "expected a positive clock frequency");
    const JitterFormat f = format == JitterFormat::Auto ? detect_jitter_format(path) : format;
    const JitterFormatEntry& e = entry_of(f);
    jitter::JitterTrace t = e.read(read_jitter_file(path), path, frequency_hz);
    t.source = path;
    return t;
}

void write_jitter_trace(const jitter::JitterTrace& trace, const std::string& path,
                        const JitterFormat& format) {
    if (trace.jitter.size() != trace.compute.size())
        throw InputError(path, 0,
                         fmt::format("cannot write a trace with {} jitter durations but {} "
                                     "compute segments",
                                     trace.jitter.size(), trace.compute.size()));
    const JitterFormatEntry& e =
        entry_of(format == JitterFormat::Auto ? JitterFormat::Text : format);
    write_jitter_file(path, e.write(trace, path));
}

}  // namespace clustersim::traces
