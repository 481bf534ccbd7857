#include "traces/distributions.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::traces {

namespace {

std::string_view trim_line(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t comma = line.find(',', pos);
        out.push_back(
            trim_line(line.substr(pos, comma == std::string_view::npos ? comma : comma - pos)));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return out;
}

// A plain decimal number (for counts and unit-less seconds); nullopt if it is not one.
std::optional<double> plain_number(std::string_view text) {
    double v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

struct Context {
    const std::string& name;
    int line;
    [[noreturn]] void fail(const std::string& what) const { throw InputError(name, line, what); }
};

// A time with a unit, or a plain number of seconds; non-negative and finite.
double seconds_field(const Context& c, const char* column, std::string_view text) {
    if (text.empty()) c.fail(fmt::format("empty {} field: expected a time (e.g. 1.25ms)", column));
    if (text.front() == '-')
        c.fail(fmt::format("{} '{}' is negative: expected a time of at least 0", column, text));
    if (const auto v = plain_number(text)) {
        if (!std::isfinite(*v))
            c.fail(fmt::format("{} '{}': expected a finite time", column, text));
        return *v;
    }
    try {
        return parse_time(text).seconds();
    } catch (const UnitError&) {
        c.fail(fmt::format(
            "{} '{}' is not a number: expected a time with a unit (e.g. 1.25ms, 830us) or "
            "plain seconds (e.g. 0.00125)",
            column, text));
    }
}

struct Entry {
    double lower, upper, count;
    int line;
};

struct Process {
    std::string node;
    int node_line = 0;
    std::vector<Entry> entries;
};

}  // namespace

std::vector<jitter::ProcessDistribution> parse_distributions(const std::string& text,
                                                             const std::string& name) {
    enum class Kind { Unknown, Samples, Histogram } kind = Kind::Unknown;
    std::map<std::uint32_t, Process> processes;
    std::istringstream in(text);
    std::string raw;
    int line_no = 0;
    int header_line = 0;
    while (std::getline(in, raw)) {
        ++line_no;
        const std::string_view line = trim_line(raw);
        if (line.empty() || line.front() == '#') continue;
        const Context c{name, line_no};
        const auto fields = split_fields(line);
        if (kind == Kind::Unknown) {
            header_line = line_no;
            std::vector<std::string> names(fields.begin(), fields.end());
            if (names == std::vector<std::string>{"process", "node", "value"})
                kind = Kind::Samples;
            else if (names ==
                     std::vector<std::string>{"process", "node", "lower", "upper", "count"})
                kind = Kind::Histogram;
            else
                c.fail(
                    fmt::format("unknown header '{}': expected 'process,node,value' (samples) or "
                                "'process,node,lower,upper,count' (histogram bins)",
                                line));
            continue;
        }
        const std::size_t want = kind == Kind::Samples ? 3 : 5;
        if (fields.size() != want)
            c.fail(fmt::format(
                "{} columns, expected {} ({})", fields.size(), want,
                kind == Kind::Samples ? "process,node,value" : "process,node,lower,upper,count"));
        std::uint64_t process = 0;
        try {
            process = parse_count(fields[0]);
        } catch (const UnitError&) {
            c.fail(fmt::format("process '{}': expected a whole number (the rank)", fields[0]));
        }
        if (process > UINT32_MAX) c.fail(fmt::format("process '{}': number too large", fields[0]));
        if (fields[1].empty()) c.fail("empty node field: expected the process's host name");
        Entry e{};
        e.line = line_no;
        if (kind == Kind::Samples) {
            e.lower = e.upper = seconds_field(c, "value", fields[2]);
            e.count = 1;
        } else {
            e.lower = seconds_field(c, "lower", fields[2]);
            e.upper = seconds_field(c, "upper", fields[3]);
            if (!(e.upper > e.lower))
                c.fail(fmt::format("upper {} must be larger than lower {}", fields[3], fields[2]));
            const auto count = plain_number(fields[4]);
            if (!count || !std::isfinite(*count))
                c.fail(fmt::format("count '{}' is not a number", fields[4]));
            if (*count <= 0) c.fail(fmt::format("count '{}': expected more than 0", fields[4]));
            e.count = *count;
        }
        Process& p = processes[static_cast<std::uint32_t>(process)];
        if (p.node.empty()) {
            p.node = std::string(fields[1]);
            p.node_line = line_no;
        } else if (p.node != fields[1]) {
            c.fail(fmt::format("process {} is on node '{}' here but on '{}' at line {}", process,
                               fields[1], p.node, p.node_line));
        }
        p.entries.push_back(e);
    }
    if (kind == Kind::Unknown)
        throw InputError(name, 0,
                         "empty distribution file: expected a header 'process,node,value' or "
                         "'process,node,lower,upper,count' and data lines");
    if (processes.empty()) throw InputError(name, header_line, "no data lines after the header");

    std::vector<jitter::ProcessDistribution> out;
    out.reserve(processes.size());
    for (auto& [id, p] : processes) {
        std::stable_sort(p.entries.begin(), p.entries.end(),
                         [](const Entry& a, const Entry& b) { return a.lower < b.lower; });
        jitter::ProcessDistribution d;
        d.process = id;
        d.node = p.node;
        for (std::size_t i = 0; i < p.entries.size(); ++i) {
            const Entry& e = p.entries[i];
            if (kind == Kind::Histogram && i > 0 && e.lower < p.entries[i - 1].upper)
                throw InputError(name, e.line,
                                 fmt::format("bin [{}, {}) s of process {} overlaps the bin at "
                                             "line {}",
                                             e.lower, e.upper, id, p.entries[i - 1].line));
            d.lower.push_back(e.lower);
            d.upper.push_back(e.upper);
            d.count.push_back(e.count);
        }
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<jitter::ProcessDistribution> read_distributions(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the distribution file");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_distributions(text.str(), path);
}

void write_distributions(const std::vector<jitter::ProcessDistribution>& dists,
                         const std::string& path) {
    bool samples = true;
    for (const auto& d : dists)
        for (std::size_t i = 0; i < d.lower.size(); ++i)
            if (d.lower[i] != d.upper[i] || d.count[i] != 1) samples = false;
    if (!samples)
        for (const auto& d : dists)
            for (std::size_t i = 0; i < d.lower.size(); ++i)
                if (!(d.upper[i] > d.lower[i]))
                    throw std::invalid_argument(fmt::format(
                        "write_distributions: process {} mixes samples and bins", d.process));
    std::ofstream out(path);
    if (!out) throw InputError(path, 0, "cannot write the distribution file");
    out << (samples ? "process,node,value\n" : "process,node,lower,upper,count\n");
    for (const auto& d : dists)
        for (std::size_t i = 0; i < d.lower.size(); ++i) {
            if (samples)
                out << fmt::format("{},{},{}\n", d.process, d.node, d.lower[i]);
            else
                out << fmt::format("{},{},{},{},{}\n", d.process, d.node, d.lower[i], d.upper[i],
                                   d.count[i]);
        }
    if (!out) throw InputError(path, 0, "cannot write the distribution file");
}

}  // namespace clustersim::traces
