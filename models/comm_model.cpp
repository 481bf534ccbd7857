#include "models/comm_model.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::comm {

const char* to_string(Scaling s) {
    switch (s) {
        case Scaling::Constant:
            return "constant";
        case Scaling::Linear:
            return "linear";
        case Scaling::Logarithmic:
            return "logarithmic";
    }
    return "?";
}

bool parse_scaling(std::string_view text, Scaling& out) {
    if (text == "constant")
        out = Scaling::Constant;
    else if (text == "linear")
        out = Scaling::Linear;
    else if (text == "logarithmic")
        out = Scaling::Logarithmic;
    else
        return false;
    return true;
}

double scaling_factor(Scaling s, std::uint32_t ranks) {
    if (ranks <= 1) return 0;
    switch (s) {
        case Scaling::Constant:
            return 1;
        case Scaling::Linear:
            return static_cast<double>(ranks - 1);
        case Scaling::Logarithmic:
            return static_cast<double>(std::bit_width(ranks - 1));  // ceil(log2 ranks)
    }
    return 1;
}

Scaling default_scaling(std::string_view op) {
    if (op == "gather" || op == "scatter" || op == "gatherv" || op == "scatterv" ||
        op.starts_with("neighbor_"))  // one round of messages whatever the size
        return Scaling::Constant;
    return Scaling::Logarithmic;
}

// ---- the fitted curve ---------------------------------------------------------------------

FittedCurve::FittedCurve(std::vector<std::pair<std::uint64_t, double>> points)
    : points_(std::move(points)) {
    if (points_.empty()) throw std::invalid_argument("a bandwidth curve needs at least one point");
    for (std::size_t i = 0; i < points_.size(); ++i) {
        const auto [size, bw] = points_[i];
        if (size == 0)
            throw std::invalid_argument(
                fmt::format("point {}: size 0; expected a positive size", i + 1));
        if (!(bw > 0) || !std::isfinite(bw))
            throw std::invalid_argument(
                fmt::format("point {}: expected a positive, finite bandwidth", i + 1));
        if (i > 0 && size <= points_[i - 1].first)
            throw std::invalid_argument(
                fmt::format("point {}: size {} B does not rise above the previous point's {} B",
                            i + 1, size, points_[i - 1].first));
        x_.push_back(std::log(static_cast<double>(size)));
        y_.push_back(std::log(bw));
    }
    const std::size_t n = x_.size();
    m_.assign(n, 0.0);
    if (n == 1) return;
    std::vector<double> d(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) d[k] = (y_[k + 1] - y_[k]) / (x_[k + 1] - x_[k]);
    m_[0] = d[0];
    m_[n - 1] = d[n - 2];
    for (std::size_t k = 1; k + 1 < n; ++k)
        m_[k] = d[k - 1] * d[k] <= 0 ? 0.0 : (d[k - 1] + d[k]) / 2;
    // Fritsch-Carlson: flat intervals get flat tangents; elsewhere the tangents are scaled
    // into the circle of radius 3, which keeps each cubic piece monotone.
    for (std::size_t k = 0; k + 1 < n; ++k) {
        if (d[k] == 0) {
            m_[k] = m_[k + 1] = 0;
            continue;
        }
        const double a = m_[k] / d[k], b = m_[k + 1] / d[k];
        const double r = a * a + b * b;
        if (r > 9) {
            const double tau = 3 / std::sqrt(r);
            m_[k] = tau * a * d[k];
            m_[k + 1] = tau * b * d[k];
        }
    }
}

double FittedCurve::bandwidth(double bytes) const {
    if (x_.size() == 1) return points_[0].second;
    const double x = std::log(std::max(bytes, 1.0));
    if (x <= x_.front()) return points_.front().second;
    if (x >= x_.back()) return points_.back().second;
    const std::size_t k =
        static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
    const double h = x_[k + 1] - x_[k];
    const double t = (x - x_[k]) / h;
    const double t2 = t * t, t3 = t2 * t;
    const double y = (2 * t3 - 3 * t2 + 1) * y_[k] + (t3 - 2 * t2 + t) * h * m_[k] +
                     (-2 * t3 + 3 * t2) * y_[k + 1] + (t3 - t2) * h * m_[k + 1];
    return std::exp(y);
}

Time FittedCurve::time(std::uint64_t bytes) const {
    const std::uint64_t size = std::max(bytes, points_.front().first);
    const double seconds = static_cast<double>(size) / bandwidth(static_cast<double>(size));
    return rounded_ps(seconds * 1e12);
}

Time FittedCurve::time_within(std::uint64_t bytes, std::uint64_t buffer) const {
    if (buffer <= bytes) return time(bytes);
    const std::uint64_t size = std::max(bytes, points_.front().first);
    const double b =
        std::min(bandwidth(static_cast<double>(size)), bandwidth(static_cast<double>(buffer)));
    return rounded_ps(static_cast<double>(size) / b * 1e12);
}

// ---- the interface's shared parts ---------------------------------------------------------

const CollectiveRule* CommModel::rule(std::string_view operation) const {
    for (const CollectiveRule& r : rules_)
        if (r.operation == operation) return &r;
    return nullptr;
}

FittedCurve FittedCurve::from(const std::vector<std::pair<std::uint64_t, Bandwidth>>& points) {
    if (points.empty()) return FittedCurve{};
    std::vector<std::pair<std::uint64_t, double>> v;
    v.reserve(points.size());
    for (const auto& [size, bw] : points) v.emplace_back(size, static_cast<double>(bw.bytes_per_s));
    return FittedCurve(std::move(v));
}

Time Message::transfer() const {
    if (curve != nullptr && bytes > 0) return curve->time_within(bytes, buffer);
    return transfer_time(bytes, cost.bandwidth);
}

Time CommModel::scaled_time(const CollectiveCall& call) const {
    const CollectiveRule* r = rule(call.operation);
    const Scaling s = r != nullptr ? r->scaling : default_scaling(call.operation);
    if (call.ranks <= 1) return Time::zero();
    const double f = scaling_factor(s, call.ranks);
    return rounded_ps(f * static_cast<double>(call.cost.latency.ps())) +
           (call.curve != nullptr && call.volume > 0
                ? call.curve->time(call.volume)
                : transfer_time(call.volume, call.cost.bandwidth));
}

Time CommModel::collective_time(const CollectiveCall& call) const {
    return scaled_time(call);
}

namespace {

// PSINS's simple model: infinite resources, latency + size / bandwidth; a lower bound.
class SimpleModel final : public CommModel {
  public:
    std::string_view name() const override { return "simple"; }
    Plan plan(const Message& m, const Resources&) const override {
        Plan p;
        p.transfer = m.transfer();
        p.latency = m.cost.latency;
        return p;
    }
};

// PSINS's resource contention models: a message between nodes needs one unit of each of
// the chosen resources (a bus, an outgoing link of its source node, an incoming link of its
// destination node) for its whole transfer, and waits until all of them are free.
class ContentionModel final : public CommModel {
  public:
    ContentionModel(std::string_view name, bool bus, bool out, bool in)
        : name_(name), bus_(bus), out_(out), in_(in) {}
    std::string_view name() const override { return name_; }
    Plan plan(const Message& m, const Resources& state) const override {
        Plan p;
        p.transfer = m.transfer();
        p.latency = m.cost.latency;
        if (m.src_node == m.dst_node) return p;
        auto need = [&](std::uint32_t pool) {
            p.pools[p.num_pools++] = pool;
            if (!state.free(pool)) p.start = false;
        };
        if (bus_) need(Resources::bus());
        if (out_) need(Resources::out_link(m.src_node));
        if (in_) need(Resources::in_link(m.dst_node));
        return p;
    }
    bool anything_free(const Resources& state) const override {
        return !bus_ || state.free(Resources::bus());
    }

  private:
    std::string_view name_;
    bool bus_, out_, in_;
};

// PSINS's PMaC model: nothing waits; a message between nodes shares the buses and its two
// nodes' links with the messages in flight when it starts, and its bandwidth is scaled by
// the most loaded of them: B * min(1, units / (in use + 1)) over the bus pool, the source's
// outgoing links and the destination's incoming links. Collectives with a measured curve
// take bytes / curve(bytes), scaled from the measured rank count by the operation's scaling.
class PmacModel final : public CommModel {
  public:
    std::string_view name() const override { return "pmac"; }
    Plan plan(const Message& m, const Resources& state) const override {
        Plan p;
        p.latency = m.cost.latency;
        if (m.src_node == m.dst_node || m.cost.bandwidth.infinite()) {
            p.transfer = m.transfer();
            return p;
        }
        p.pools = {Resources::bus(), Resources::out_link(m.src_node),
                   Resources::in_link(m.dst_node)};
        p.num_pools = 3;
        double share = 1;
        for (const std::uint32_t pool : p.pools) {
            const std::uint32_t users = state.in_use[pool] + 1;
            if (users > state.units[pool])
                share = std::min(share, static_cast<double>(state.units[pool]) / users);
        }
        if (m.curve != nullptr) {  // the measured transfer, slowed by the share
            p.transfer = rounded_ps(static_cast<double>(m.transfer().ps()) / share);
            return p;
        }
        const auto bw = static_cast<std::uint64_t>(
            std::max(1.0, std::floor(static_cast<double>(m.cost.bandwidth.bytes_per_s) * share)));
        p.transfer = transfer_time(m.bytes, Bandwidth{bw});
        return p;
    }
    Time collective_time(const CollectiveCall& call) const override {
        const CollectiveRule* r = rule(call.operation);
        if (r == nullptr || r->curve.empty() || call.bytes == 0) return scaled_time(call);
        const double f = scaling_factor(r->scaling, call.ranks);
        const double f0 = scaling_factor(r->scaling, r->ranks);
        const Time t = r->curve.time(call.bytes);
        if (f0 == 0) return call.ranks <= 1 ? Time::zero() : t;
        return rounded_ps(static_cast<double>(t.ps()) * f / f0);
    }
};

}  // namespace

void CommModelRegistry::add(CommModelEntry entry) {
    if (entry.name.empty() || !entry.make)
        throw std::logic_error("a communication model needs a name and a factory");
    if (find(entry.name) != nullptr)
        throw std::logic_error(
            fmt::format("communication model '{}' is registered twice", entry.name));
    entries_.push_back(std::move(entry));
}

const CommModelEntry* CommModelRegistry::find_exact(std::string_view name) const {
    for (const CommModelEntry& e : entries_)
        if (e.name == name) return &e;
    return nullptr;
}

const CommModelEntry* CommModelRegistry::find(std::string_view name) const {
    return find_named(entries_, name, [](const CommModelEntry& e) { return e.name; });
}

CommModelRegistry& comm_models() {
    static CommModelRegistry registry = [] {
        CommModelRegistry r;
        r.add({"simple", "analytic: latency + size / bandwidth per message, no contention",
               [] { return std::make_unique<SimpleModel>(); }});
        r.add({"bus_only", "analytic: messages wait for one of `buses` global buses",
               [] { return std::make_unique<ContentionModel>("bus_only", true, false, false); }});
        r.add({"incoming_link_only", "analytic: messages wait for one of a node's `in-links`", [] {
                   return std::make_unique<ContentionModel>("incoming_link_only", false, false,
                                                            true);
               }});
        r.add({"outgoing_link_only", "analytic: messages wait for one of a node's `out-links`", [] {
                   return std::make_unique<ContentionModel>("outgoing_link_only", false, true,
                                                            false);
               }});
        r.add({"contention", "analytic: buses, in-links and out-links together",
               [] { return std::make_unique<ContentionModel>("contention", true, true, true); }});
        r.add({"pmac", "analytic: collectives at measured bandwidths (PSINS's PMaC rules)",
               [] { return std::make_unique<PmacModel>(); }});
        return r;
    }();
    return registry;
}

std::vector<std::string> comm_model_names() {
    std::vector<std::string> names;
    for (const CommModelEntry& e : comm_models().entries()) names.push_back(e.name);
    return names;
}

std::unique_ptr<CommModel> make_comm_model(std::string_view name) {
    if (const CommModelEntry* e = comm_models().find(name)) return e->make();
    std::string list;
    for (const std::string& n : comm_model_names()) list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument(
        fmt::format("unknown communication model '{}'{}; expected one of: {}", name,
                    did_you_mean(name, comm_model_names()), list));
}

}  // namespace clustersim::comm
