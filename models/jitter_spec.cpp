#include "models/jitter_spec.hpp"

#include <fmt/format.h>

#include "simulator/units.hpp"

namespace clustersim::jitter {

namespace {

void read_jitter(const topo::PartContext& x_, pugi::xml_node n, const topo::NodeTypeInfo& t,
                 std::vector<JitterSpec>& out) {
    x_.check_attributes(n, {"core", "trace", "generator", "length", "seed", "frequency", "policy",
                            "window-high", "window-low", "start-index"});
    x_.check_empty(n);
    JitterSpec j;
    j.node_type = std::string(t.name);
    j.line = x_.line_of(n);
    const std::uint64_t cores = t.cores;
    if (const auto v = x_.optional(n, "core")) {
        const std::uint64_t c = x_.with_unit(n, "core", *v, parse_count);
        if (c >= cores)
            x_.fail(n, fmt::format("<jitter> attribute 'core': core {} is beyond node-type '{}', "
                                   "which has {} core(s) (0 to {}, sockets in order)",
                                   c, t.name, cores, cores - 1));
        j.core = static_cast<std::int32_t>(c);
    }
    const auto trace = x_.optional(n, "trace");
    const auto generator = x_.optional(n, "generator");
    if (trace.has_value() == generator.has_value())
        x_.fail(n,
                "<jitter> needs exactly one of the attributes 'trace' (a jitter trace file) and "
                "'generator' (a synthetic noise spec, e.g. periodic:period=10ms,duration=50us)");
    if (trace) {
        if (trace->empty()) x_.fail(n, "<jitter> attribute 'trace' must not be empty");
        if (x_.optional(n, "length"))
            x_.fail(n,
                    "<jitter> attribute 'length' applies to a generator only; a trace file has "
                    "its own length");
        const std::string path(*trace);
        const auto slash = x_.file().find_last_of('/');
        j.trace = path.front() == '/' || slash == std::string::npos
                      ? path
                      : x_.file().substr(0, slash + 1) + path;
    } else {
        if (generator->empty()) x_.fail(n, "<jitter> attribute 'generator' must not be empty");
        j.generator = std::string(*generator);
        if (const auto v = x_.optional(n, "length")) {
            j.length = x_.with_unit(n, "length", *v, parse_time);
            if (j.length <= Time::zero())
                x_.fail(n, "<jitter> attribute 'length': expected a positive time (e.g. 1s)");
        }
    }
    if (const auto v = x_.optional(n, "frequency")) {
        const std::uint64_t hz = x_.with_unit(n, "frequency", *v, [](std::string_view s) {
            try {
                return parse_speed(s);
            } catch (const UnitError& e) {
                throw UnitError(std::string(e.what()) + " (a clock frequency, e.g. 2.4GHz)");
            }
        });
        if (hz == 0)
            x_.fail(n, "<jitter> attribute 'frequency': expected a positive clock frequency");
        j.frequency_hz = static_cast<double>(hz);
    }
    if (const auto v = x_.optional(n, "seed")) {
        j.seed = x_.with_unit(n, "seed", *v, parse_count);
        j.has_seed = true;
    }
    const auto policy = x_.optional(n, "policy");
    const auto indices = x_.optional(n, "start-index");
    if (policy && indices)
        x_.fail(n, "<jitter> takes either 'policy' or 'start-index' (an explicit start), not both");
    if (policy) {
        if (*policy == "unsynchronized")
            j.start = JitterSpec::Start::Unsynchronized;
        else if (*policy == "synchronized")
            j.start = JitterSpec::Start::Synchronized;
        else if (*policy == "coscheduled")
            j.start = JitterSpec::Start::Coscheduled;
        else
            x_.fail(n, fmt::format("<jitter> attribute 'policy': '{}' is not valid; expected "
                                   "unsynchronized, synchronized or coscheduled",
                                   *policy));
    }
    const bool windows = x_.optional(n, "window-high") || x_.optional(n, "window-low");
    if (j.start == JitterSpec::Start::Coscheduled) {
        j.window_high = x_.time_attr(n, "window-high");
        j.window_low = x_.time_attr(n, "window-low");
        if (j.window_high <= Time::zero())
            x_.fail(n, "<jitter> attribute 'window-high': expected a positive time");
    } else if (windows) {
        x_.fail(n,
                "<jitter> attributes 'window-high' and 'window-low' need policy=\"coscheduled\"");
    }
    if (indices) {
        j.start = JitterSpec::Start::Explicit;
        std::size_t pos = 0;
        const std::string_view list = *indices;
        while (true) {
            const std::size_t comma = list.find(',', pos);
            const std::string_view item =
                list.substr(pos, comma == std::string_view::npos ? list.npos : comma - pos);
            try {
                j.start_indices.push_back(parse_count(item));
            } catch (const UnitError&) {
                x_.fail(n, fmt::format("<jitter> attribute 'start-index': '{}' is not valid; "
                                       "expected tuple indices (whole numbers from 0) separated by "
                                       "commas",
                                       list));
            }
            if (comma == std::string_view::npos) break;
            pos = comma + 1;
        }
    }
    for (const JitterSpec& other : out) {
        if (other.node_type == t.name && other.core == j.core) {
            x_.fail(n, fmt::format("node-type '{}' already has a <jitter> for {} (line {}); "
                                   "expected one per core",
                                   t.name,
                                   j.core < 0 ? std::string("all its cores")
                                              : fmt::format("core {}", j.core),
                                   other.line));
        }
    }
    out.push_back(std::move(j));
}

}  // namespace

topo::SchemaPart jitter_part(std::vector<JitterSpec>& out) {
    topo::SchemaPart part;
    part.name = "jitter";
    part.node_type_elements = {"jitter"};
    part.read_node_type = [&out](pugi::xml_node type, const topo::NodeTypeInfo& info,
                                 const topo::PartContext& ctx) {
        for (pugi::xml_node c = type.child("jitter"); c; c = c.next_sibling("jitter"))
            read_jitter(ctx, c, info, out);
    };
    return part;
}

}  // namespace clustersim::jitter
