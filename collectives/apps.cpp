#include "collectives/apps.hpp"

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {
namespace {

std::string app_name(const std::string& spec) { return spec.substr(0, spec.find(':')); }

[[noreturn]] void fail(const std::string& spec, const std::string& what) {
    throw InputError("--app", 0, fmt::format("'{}': {}", spec, what));
}

// ---------------------------------------------------------------------------------------
// pingpong: rank 0 and rank 1 exchange a message back and forth `iterations` times.
class PingPong final : public App {
public:
    PingPong(std::uint64_t size, std::uint64_t iterations, std::uint32_t ranks)
        : size_(size), iterations_(iterations), step_(ranks, 0) {}
    bool next(std::int32_t rank, Op& op) override {
        if (rank > 1) return false;
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        if (k == 2 * iterations_) return false;
        const bool sends = (k % 2 == 0) == (rank == 0);
        op = Op{};
        op.kind = sends ? OpKind::Send : OpKind::Recv;
        op.peer = 1 - rank;
        op.bytes = size_;
        ++k;
        return true;
    }
    std::vector<std::pair<std::string, std::string>> summarize(Time t) const override {
        if (iterations_ == 0) return {};
        const Time one_way = Time::ps(t.ps() / static_cast<std::int64_t>(2 * iterations_));
        std::vector<std::pair<std::string, std::string>> out{
            {"round trip", format_time(Time::ps(t.ps() / static_cast<std::int64_t>(iterations_)))},
            {"one-way time", format_time(one_way)}};
        if (size_ > 0 && one_way.ps() > 0)
            out.emplace_back("one-way bandwidth",
                             format_bandwidth(Bandwidth{static_cast<std::uint64_t>(
                                 static_cast<double>(size_) / one_way.seconds())}));
        return out;
    }

private:
    std::uint64_t size_, iterations_;
    std::vector<std::uint64_t> step_;
};

// stream: rank 0 sends one message of `size` to rank 1.
class Stream final : public App {
public:
    Stream(std::uint64_t size, std::uint32_t ranks) : size_(size), done_(ranks, false) {}
    bool next(std::int32_t rank, Op& op) override {
        if (rank > 1 || done_[static_cast<std::size_t>(rank)]) return false;
        done_[static_cast<std::size_t>(rank)] = true;
        op = Op{};
        op.kind = rank == 0 ? OpKind::Send : OpKind::Recv;
        op.peer = 1 - rank;
        op.bytes = size_;
        return true;
    }
    std::vector<std::pair<std::string, std::string>> summarize(Time t) const override {
        if (size_ == 0 || t.ps() == 0) return {};
        return {{"throughput", format_bandwidth(Bandwidth{static_cast<std::uint64_t>(
                                   static_cast<double>(size_) / t.seconds())})}};
    }

private:
    std::uint64_t size_;
    std::vector<bool> done_;
};

}  // namespace

std::uint64_t AppArgs::size(const std::string& key) const {
    const std::string& v = values_.at(key);
    try {
        return parse_size(v);
    } catch (const UnitError& e) {
        fail(spec_, fmt::format("parameter '{}': {}", key, e.what()));
    }
}

std::uint64_t AppArgs::count(const std::string& key) const {
    const std::string& v = values_.at(key);
    try {
        return parse_count(v);
    } catch (const UnitError& e) {
        fail(spec_, fmt::format("parameter '{}': {}", key, e.what()));
    }
}

void AppRegistry::add(AppInfo info) { apps_.push_back(std::move(info)); }

std::string AppRegistry::names() const {
    std::string out;
    for (const auto& a : apps_) out += (out.empty() ? "" : ", ") + a.name;
    return out;
}

const AppInfo& AppRegistry::find(const std::string& spec) const {
    const std::string name = app_name(spec);
    for (const auto& a : apps_)
        if (a.name == name) return a;
    fail(spec, fmt::format("unknown app '{}', expected one of: {}", name, names()));
}

std::uint32_t AppRegistry::min_ranks(const std::string& spec) const { return find(spec).min_ranks; }

std::unique_ptr<App> AppRegistry::create(const std::string& spec, std::uint32_t ranks) const {
    const AppInfo& info = find(spec);
    std::map<std::string, std::string> values;
    const auto colon = spec.find(':');
    if (colon != std::string::npos) {
        std::string rest = spec.substr(colon + 1);
        std::size_t pos = 0;
        while (pos <= rest.size() && !rest.empty()) {
            const std::size_t comma = rest.find(',', pos);
            const std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
            const auto eq = item.find('=');
            if (item.empty() || eq == std::string::npos || eq == 0)
                fail(spec, fmt::format("expected key=value, got '{}'", item));
            const std::string key = item.substr(0, eq);
            bool known = false;
            for (const auto& p : info.params) known |= p.name == key;
            if (!known) {
                std::string valid;
                for (const auto& p : info.params) valid += (valid.empty() ? "" : ", ") + p.name;
                fail(spec, fmt::format("unknown parameter '{}' for app '{}', expected one of: {}", key, info.name,
                                       valid));
            }
            if (!values.emplace(key, item.substr(eq + 1)).second)
                fail(spec, fmt::format("parameter '{}' given twice", key));
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
    }
    for (const auto& p : info.params) {
        if (values.count(p.name)) continue;
        if (p.default_value.empty()) fail(spec, fmt::format("missing parameter '{}' ({})", p.name, p.help));
        values.emplace(p.name, p.default_value);
    }
    if (ranks < info.min_ranks)
        fail(spec, fmt::format("app '{}' needs at least {} ranks, got {}", info.name, info.min_ranks, ranks));
    return info.make(AppArgs(spec, std::move(values)), ranks);
}

void register_builtin_apps(AppRegistry& registry) {
    registry.add(AppInfo{
        "pingpong",
        "rank 0 sends `size` to rank 1, which sends it back; `iterations` round trips",
        {{"size", "size", "", "message size, e.g. 1MiB"},
         {"iterations", "count", "1", "number of round trips"}},
        2,
        [](const AppArgs& a, std::uint32_t ranks) {
            return std::make_unique<PingPong>(a.size("size"), a.count("iterations"), ranks);
        }});
    registry.add(AppInfo{"stream",
                         "rank 0 sends one message of `size` to rank 1",
                         {{"size", "size", "", "message size, e.g. 100GiB"}},
                         2,
                         [](const AppArgs& a, std::uint32_t ranks) {
                             return std::make_unique<Stream>(a.size("size"), ranks);
                         }});
}

}  // namespace clustersim::mpi
