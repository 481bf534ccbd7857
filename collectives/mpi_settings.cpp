#include "collectives/mpi_settings.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "collectives/coll_curve.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {

namespace {

constexpr std::array<std::string_view, 8> kOverheadChildren{
    "send", "recv", "post", "gap", "peer-setup", "fresh-send", "cold-send", "connect"};

// Reads <collectives> and <mpi-overhead> into `mpi_`.
class MpiReader {
  public:
    MpiReader(const topo::PartContext& ctx, MpiSettings& mpi) : x_(ctx), mpi_(mpi) {}
    void read_collectives(pugi::xml_node n);
    void read_mpi_overhead(pugi::xml_node n);

  private:
    OverheadSpec read_overhead(pugi::xml_node n, std::string_view extra = {}) const;
    CollectiveCurveSpec read_collective_curve(pugi::xml_node n) const;
    void read_peer_setup(pugi::xml_node n);
    void read_connect(pugi::xml_node n);
    void read_fresh_send(pugi::xml_node n);
    void read_cold_send(pugi::xml_node n);

    const topo::PartContext& x_;
    MpiSettings& mpi_;
};

void MpiReader::read_collectives(pugi::xml_node n) {
    x_.check_attributes(n, {"reduce-instructions-per-byte", "reduce-bandwidth", "copy-bandwidth",
                            "profile", "comm-create", "comm-free", "buffer-copies", "barrier",
                            "curves", "buffer-footprint", "first-topology"});
    MpiSettings& m = mpi_;
    if (const auto v = x_.yes_no(n, "buffer-footprint")) m.buffer_footprint = *v;
    if (const auto v = x_.yes_no(n, "buffer-copies")) m.buffer_copies = *v;
    if (const auto v = x_.optional(n, "profile")) {
        m.profile = *v;
        m.profile_line = x_.line_of(n);
    }
    if (const auto v = x_.optional(n, "reduce-instructions-per-byte"))
        m.reduce_instructions_per_byte =
            x_.with_unit(n, "reduce-instructions-per-byte", *v, parse_count);
    if (const auto v = x_.optional(n, "reduce-bandwidth"))
        m.reduce_bandwidth = x_.finite_bandwidth(n, "reduce-bandwidth", *v);
    if (const auto v = x_.optional(n, "copy-bandwidth"))
        m.copy_bandwidth = x_.finite_bandwidth(n, "copy-bandwidth", *v);
    if (const auto v = x_.optional(n, "comm-create")) {
        m.comm_create_modelled = true;
        m.comm_create_local = x_.with_unit(n, "comm-create", *v, parse_time);
        if (m.comm_create_local < Time::zero()) x_.fail(n, "comm-create: a negative time");
    }
    if (const auto v = x_.optional(n, "comm-free")) {
        m.comm_free = x_.with_unit(n, "comm-free", *v, parse_time);
        if (m.comm_free < Time::zero()) x_.fail(n, "comm-free: a negative time");
    }
    if (const auto v = x_.optional(n, "first-topology")) {
        if (!m.comm_create_modelled)
            x_.fail(n,
                    "<collectives> attribute 'first-topology' adds to communicator creation: "
                    "it needs comm-create");
        m.first_topology = x_.with_unit(n, "first-topology", *v, parse_time);
    }
    if (const auto v = x_.optional(n, "barrier")) {
        m.barrier_cost = x_.with_unit(n, "barrier", *v, parse_time);
        if (m.barrier_cost < Time::zero()) x_.fail(n, "barrier: a negative time");
    }
    if (const auto v = x_.optional(n, "curves")) {
        if (*v == "off")
            m.collective_curves_on = false;
        else if (*v != "on")
            // No suggestion: 'no' is one swap from 'on' and means the opposite.
            x_.fail(n, fmt::format("<collectives> attribute 'curves': '{}' is not valid; "
                                   "expected on or off",
                                   *v));
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() == pugi::node_element && std::strcmp(c.name(), "collective-curve") == 0) {
            CollectiveCurveSpec curve = read_collective_curve(c);
            for (const CollectiveCurveSpec& other : m.collective_curves)
                if (other.operation == curve.operation && other.ranks == curve.ranks &&
                    other.scope == curve.scope)
                    x_.fail(c, fmt::format("second <collective-curve> of {} on {} ranks {} (the "
                                           "first is on line {}); expected at most one",
                                           curve.operation, curve.ranks, curve.scope, other.line));
            m.collective_curves.push_back(std::move(curve));
            continue;
        }
        const bool rate =
            c.type() == pugi::node_element &&
            (std::strcmp(c.name(), "copy-rate") == 0 || std::strcmp(c.name(), "reduce-rate") == 0);
        if (rate) {
            // <copy-rate>/<reduce-rate>: the measured rate against the size (cache effects),
            // winning over the attribute.
            x_.check_attributes(c, {});
            auto& curve = std::strcmp(c.name(), "copy-rate") == 0 ? m.copy_curve : m.reduce_curve;
            if (!curve.empty())
                x_.fail(
                    c, fmt::format("second <{}> in <collectives>; expected at most one", c.name()));
            curve = x_.read_points(c, c.name());
            if (curve.empty())
                x_.fail(c,
                        fmt::format("<{}> without <point> elements; expected the measured points",
                                    c.name()));
            continue;
        }
        if (c.type() != pugi::node_element || std::strcmp(c.name(), "algorithm") != 0)
            x_.fail(
                c,
                "unexpected content in <collectives>; expected only <algorithm>, <copy-rate> and "
                "<reduce-rate> elements, and <collective-curve> ones");
        x_.check_attributes(c, {"operation", "name", "min-size", "max-size", "segment"});
        CollectiveRule rule;
        rule.operation = std::string(x_.required(c, "operation"));
        rule.algorithm = std::string(x_.required(c, "name"));
        if (const auto v = x_.optional(c, "min-size"))
            rule.min_bytes = x_.with_unit(c, "min-size", *v, parse_size);
        if (const auto v = x_.optional(c, "max-size"))
            rule.max_bytes = x_.with_unit(c, "max-size", *v, parse_size);
        if (const auto v = x_.optional(c, "segment")) {
            rule.segment = x_.with_unit(c, "segment", *v, parse_size);
            if (rule.segment == 0)
                x_.fail(c, "<algorithm> attribute 'segment': expected a positive size");
        }
        if (rule.min_bytes >= rule.max_bytes)
            x_.fail(c, fmt::format(
                           "<algorithm> size range [{}, {}) is empty; expected min-size < max-size",
                           rule.min_bytes, rule.max_bytes));
        rule.line = x_.line_of(c);
        m.collectives.push_back(std::move(rule));
    }
}

// <mpi-overhead>: the MPI library's per-message software costs (LogGP's o), each child at
// most once: <send> (o_s), <recv> (o_r), <post> (posting a receive), <gap> (LogGP's g: a
// send completes no earlier than this after its message left), <peer-setup> (the lazy set-up
// of a connection to a peer), <fresh-send> (a send of a buffer its rank has just written),
// <cold-send> (a fresh send after compute long enough to have replaced the cache).
void MpiReader::read_mpi_overhead(pugi::xml_node n) {
    MpiSettings& m = mpi_;
    if (m.overhead_line != 0)
        x_.fail(n, fmt::format("second <mpi-overhead> element (the first is on line {}); expected "
                               "at most one",
                               m.overhead_line));
    m.overhead_line = x_.line_of(n);
    x_.check_attributes(n, {});
    std::array<int, 8> seen{};
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element || !topo::has_name(kOverheadChildren, c.name()))
            x_.fail(c, fmt::format("unexpected content in <mpi-overhead>; expected only {}",
                                   topo::join_names(kOverheadChildren)));
        const std::size_t which = std::strcmp(c.name(), "send") == 0         ? 0
                                  : std::strcmp(c.name(), "recv") == 0       ? 1
                                  : std::strcmp(c.name(), "post") == 0       ? 2
                                  : std::strcmp(c.name(), "gap") == 0        ? 3
                                  : std::strcmp(c.name(), "peer-setup") == 0 ? 4
                                  : std::strcmp(c.name(), "fresh-send") == 0 ? 5
                                  : std::strcmp(c.name(), "cold-send") == 0  ? 6
                                                                             : 7;
        if (seen[which] != 0)
            x_.fail(c, fmt::format("second <{}> in <mpi-overhead> (the first is on line {}); "
                                   "expected at most one",
                                   c.name(), seen[which]));
        seen[which] = x_.line_of(c);
        if (which == 4) {
            read_peer_setup(c);
            continue;
        }
        if (which == 5) {
            read_fresh_send(c);
            continue;
        }
        if (which == 6) {
            read_cold_send(c);
            continue;
        }
        if (which == 7) {
            read_connect(c);
            continue;
        }
        OverheadSpec o = read_overhead(c);
        (which == 0   ? m.send_overhead
         : which == 1 ? m.recv_overhead
         : which == 2 ? m.post_overhead
                      : m.send_gap) = std::move(o);
    }
    if (seen[6] != 0 && seen[5] == 0)
        x_.fail(n.child("cold-send"),
                "<cold-send> prices a fresh send colder: it needs <fresh-send> in the same "
                "<mpi-overhead>");
}

// <peer-setup after="16" time="10us"/>: both attributes required; after a whole number
// >= 1, time a duration >= 0 with its unit.
void MpiReader::read_peer_setup(pugi::xml_node n) {
    x_.check_attributes(n, {"after", "time"});
    x_.check_empty(n);
    const std::string_view after = x_.required(n, "after");
    const std::uint64_t count = x_.with_unit(n, "after", after, parse_count);
    if (count < 1 || count > UINT32_MAX)
        x_.fail(n, fmt::format("<peer-setup> attribute 'after': '{}' is not valid; expected a "
                               "message count from 1 to {}",
                               after, UINT32_MAX));
    const Time t = x_.time_attr(n, "time");
    if (t < Time::zero()) x_.fail(n, "<peer-setup> attribute 'time': a negative time");
    mpi_.peer_setup_after = static_cast<std::uint32_t>(count);
    mpi_.peer_setup_time = t;
}

// <connect round-trips="2"/>: round-trips required, a whole number >= 1.
void MpiReader::read_connect(pugi::xml_node n) {
    x_.check_attributes(n, {"round-trips"});
    x_.check_empty(n);
    const std::string_view trips = x_.required(n, "round-trips");
    const std::uint64_t count = x_.with_unit(n, "round-trips", trips, parse_count);
    if (count < 1 || count > 64)
        x_.fail(n, fmt::format("<connect> attribute 'round-trips': '{}' is not valid; expected "
                               "a whole number from 1 to 64",
                               trips));
    mpi_.connect_round_trips = static_cast<std::uint32_t>(count);
}

// <fresh-send write-rate="20GB/s"> with the extra time of a fresh send as <send>'s (a
// constant plus size / bandwidth, or points): write-rate required, finite.
void MpiReader::read_fresh_send(pugi::xml_node n) {
    mpi_.fresh_write_rate = x_.finite_bandwidth(n, "write-rate", x_.required(n, "write-rate"));
    mpi_.fresh_send = read_overhead(n, "write-rate");
}

// <cold-send after="100us"> with the extra time of a cold fresh send as <send>'s (a constant
// plus size / bandwidth, or points): after required, a duration with its unit (no sign).
void MpiReader::read_cold_send(pugi::xml_node n) {
    mpi_.cold_after = x_.time_attr(n, "after");
    mpi_.cold_send = read_overhead(n, "after");
}

// <send time="…" [bandwidth="…"]/> (a constant plus size / bandwidth) or
// <send><point size="…" time="…"/>…</send> (interpolated; sizes strictly rising). `extra`:
// one more attribute the element may carry (read by the caller).
OverheadSpec MpiReader::read_overhead(pugi::xml_node n, std::string_view extra) const {
    if (extra.empty())
        x_.check_attributes(n, {"time", "bandwidth"});
    else
        x_.check_attributes(n, std::vector<std::string_view>{"time", "bandwidth", extra});
    OverheadSpec o;
    const bool has_points = static_cast<bool>(n.child("point"));
    if (has_points) {
        if (x_.optional(n, "time") || x_.optional(n, "bandwidth"))
            x_.fail(n, fmt::format("<{}> has both attributes and <point> elements; expected either "
                                   "time (and bandwidth) or points",
                                   n.name()));
        pugi::xml_node previous;
        for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
            if (c.type() != pugi::node_element || std::strcmp(c.name(), "point") != 0)
                x_.fail(c, fmt::format("unexpected content in <{}>; expected only <point> elements",
                                       n.name()));
            x_.check_attributes(c, {"size", "time"});
            x_.check_empty(c);
            const std::string_view size_text = x_.required(c, "size");
            const std::uint64_t size = x_.with_unit(c, "size", size_text, parse_size);
            if (previous && size <= o.points.back().first)
                x_.fail(c, fmt::format("<point> attribute 'size': '{}' is not larger than the "
                                       "previous point's '{}' (line {}); expected sizes strictly "
                                       "rising",
                                       size_text, previous.attribute("size").value(),
                                       x_.line_of(previous)));
            o.points.emplace_back(size, x_.time_attr(c, "time"));
            previous = c;
        }
        return o;
    }
    x_.check_empty(n);
    o.time = x_.time_attr(n, "time");
    if (const auto v = x_.optional(n, "bandwidth"))
        o.bandwidth = x_.finite_bandwidth(n, "bandwidth", *v);
    return o;
}

// <collective-curve operation="allreduce" ranks="2" scope="intra-node"> with <point size="…"
// time="…"/> children (sizes strictly rising, times positive).
CollectiveCurveSpec MpiReader::read_collective_curve(pugi::xml_node n) const {
    x_.check_attributes(n, {"operation", "ranks", "scope"});
    CollectiveCurveSpec curve;
    curve.line = x_.line_of(n);
    curve.operation = std::string(x_.required(n, "operation"));
    CollOp op{};
    if (!parse_coll_op(curve.operation, op) || is_v(op) || is_neighbor(op) ||
        op == CollOp::ReduceScatter)
        x_.fail(n, fmt::format("<collective-curve> attribute 'operation': '{}' is not valid; "
                               "expected a collective whose members all pass one size (barrier, "
                               "bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
                               "reduce_scatter_block, scan, exscan)",
                               curve.operation));
    const std::uint64_t ranks = x_.with_unit(n, "ranks", x_.required(n, "ranks"), parse_count);
    if (ranks < 2 || ranks > UINT32_MAX)
        x_.fail(n, fmt::format("<collective-curve> attribute 'ranks': {} is not valid; expected "
                               "a communicator size from 2 to {}",
                               ranks, UINT32_MAX));
    curve.ranks = static_cast<std::uint32_t>(ranks);
    curve.scope = std::string(x_.required(n, "scope"));
    CurveScope scope{};
    if (!parse_curve_scope(curve.scope, scope))
        x_.fail(n, fmt::format("<collective-curve> attribute 'scope': {}",
                               not_one_of(curve.scope, {"intra_node", "inter_node"})));
    pugi::xml_node previous;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element || std::strcmp(c.name(), "point") != 0)
            x_.fail(c, "unexpected content in <collective-curve>; expected only <point> elements");
        x_.check_attributes(c, {"size", "time"});
        x_.check_empty(c);
        const std::string_view size_text = x_.required(c, "size");
        const std::uint64_t size = x_.with_unit(c, "size", size_text, parse_size);
        if (previous && size <= curve.points.back().first)
            x_.fail(c, fmt::format("<point> attribute 'size': '{}' is not larger than the previous "
                                   "point's '{}' (line {}); expected sizes strictly rising",
                                   size_text, previous.attribute("size").value(),
                                   x_.line_of(previous)));
        const Time t = x_.time_attr(c, "time");
        if (t <= Time::zero())
            x_.fail(c, fmt::format("<point> attribute 'time': '{}' is not valid; expected a "
                                   "positive time",
                                   c.attribute("time").value()));
        curve.points.emplace_back(size, t);
        previous = c;
    }
    if (curve.points.empty())
        x_.fail(n, "<collective-curve> without <point> elements; expected the measured points");
    return curve;
}

}  // namespace

Time OverheadSpec::at(std::uint64_t bytes) const {
    if (points.empty()) return time + transfer_time(bytes, bandwidth);
    if (bytes <= points.front().first) return points.front().second;
    if (bytes >= points.back().first) return points.back().second;
    // The first point above `bytes`, and the one before it: interpolate in exact integers.
    const auto hi = std::upper_bound(points.begin(), points.end(), bytes,
                                     [](std::uint64_t b, const auto& p) { return b < p.first; });
    const auto lo = hi - 1;
    __extension__ typedef __int128 int128;
    const auto span = static_cast<int128>(hi->first - lo->first);
    const auto rise = static_cast<int128>(hi->second.ps()) - lo->second.ps();
    const auto step = rise * static_cast<int128>(bytes - lo->first) / span;
    return Time::ps(lo->second.ps() + static_cast<std::int64_t>(step));
}

topo::SchemaPart mpi_part(MpiSettings& out) {
    topo::SchemaPart part;
    part.name = "mpi";
    part.elements = {"collectives", "mpi-overhead"};
    part.stage = topo::ReadStage::WithNetwork;
    part.read = [&out](pugi::xml_node cluster, const topo::PartContext& ctx) {
        MpiReader reader(ctx, out);
        for (pugi::xml_node c = cluster.first_child(); c; c = c.next_sibling()) {
            if (std::strcmp(c.name(), "collectives") == 0) reader.read_collectives(c);
            if (std::strcmp(c.name(), "mpi-overhead") == 0) reader.read_mpi_overhead(c);
        }
    };
    return part;
}

std::string describe_overheads(const MpiSettings& mpi) {
    std::string out;
    for (const auto& [name, o] :
         {std::pair<const char*, const OverheadSpec*>{"o_s", &mpi.send_overhead},
          {"o_r", &mpi.recv_overhead},
          {"post", &mpi.post_overhead},
          {"g", &mpi.send_gap}}) {
        if (o->zero()) continue;
        std::string text;
        if (!o->points.empty())
            text = fmt::format(
                "{} at {} .. {} at {} ({} points)", format_time(o->points.front().second),
                format_size(o->points.front().first), format_time(o->points.back().second),
                format_size(o->points.back().first), o->points.size());
        else if (o->bandwidth.infinite())
            text = format_time(o->time);
        else
            text =
                fmt::format("{} + size / {}", format_time(o->time), format_bandwidth(o->bandwidth));
        out += fmt::format("{}{} {}", out.empty() ? "" : "; ", name, text);
    }
    if (!out.empty()) out += " per message, on the cores";
    if (mpi.peer_setup_after != 0)
        out += fmt::format("{}peer setup {} before a rank's message {} to each peer",
                           out.empty() ? "" : "; ", format_time(mpi.peer_setup_time),
                           mpi.peer_setup_after);
    if (mpi.connect_round_trips != 0)
        out += fmt::format(
            "{}a connection between two ranks costs {} round trip{} on its first "
            "message",
            out.empty() ? "" : "; ", mpi.connect_round_trips,
            mpi.connect_round_trips == 1 ? "" : "s");
    if (!mpi.fresh_send.zero())
        out += fmt::format(
            "{}a send of a buffer written in the compute before it (at most {}) "
            "leaves {} (at {}) later",
            out.empty() ? "" : "; ", format_bandwidth(mpi.fresh_write_rate),
            format_time(mpi.fresh_send.at(64 * 1024)), format_size(64 * 1024));
    if (!mpi.cold_send.zero())
        out += fmt::format("; one after at least {} of compute leaves {} (at {}) later still",
                           format_time(mpi.cold_after), format_time(mpi.cold_send.at(64 * 1024)),
                           format_size(64 * 1024));
    return out;
}

}  // namespace clustersim::mpi
