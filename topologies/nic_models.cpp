#include "topologies/nic_models.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::topo {

namespace {

class PacketNic final : public NicBehaviour {
  public:
    void inject(NicPort& port, std::uint32_t pkt) const override { port.hop_by_hop(pkt); }
};

class AnalyticalNic final : public NicBehaviour {
  public:
    void inject(NicPort& port, std::uint32_t pkt) const override { port.reserve_route(pkt); }
};

// At most this many configured NIC models (NicModel is one byte).
constexpr std::size_t kMaxConfigured = 256;

}  // namespace

void NicModelRegistry::add(NicModelEntry entry) {
    if (entry.name.empty() || !entry.make)
        throw std::logic_error("a NIC model needs a name and a factory");
    const std::lock_guard lock(mutex_);
    for (const NicModelEntry& e : entries_)
        if (e.name == entry.name)
            throw std::logic_error(fmt::format("NIC model '{}' is registered twice", entry.name));
    entries_.push_back(std::move(entry));
}

std::vector<NicModelEntry> NicModelRegistry::entries() const {
    const std::lock_guard lock(mutex_);
    return entries_;
}

std::string NicModelRegistry::names() const {
    const std::lock_guard lock(mutex_);
    std::string out;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (i > 0) out += i + 1 == entries_.size() ? " or " : ", ";
        out += entries_[i].name;
    }
    return out;
}

NicModel NicModelRegistry::select(std::string_view text) {
    const std::lock_guard lock(mutex_);
    for (std::size_t id = 0; id < configured_.size(); ++id)
        if (configured_[id].spec == text) return static_cast<NicModel>(id);
    const std::size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    const NicModelEntry* entry = nullptr;
    for (const NicModelEntry& e : entries_)
        if (e.name == name) entry = &e;
    if (entry == nullptr) {
        std::string all;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (i > 0) all += i + 1 == entries_.size() ? " or " : ", ";
            all += entries_[i].name;
        }
        throw std::invalid_argument(fmt::format("'{}' is not valid; expected {}", text, all));
    }
    std::vector<KeyValue> params;
    if (colon != std::string_view::npos) {
        for (const KeyValueItem& item : split_key_values(text.substr(colon + 1))) {
            if (!item.ok)
                throw std::invalid_argument(
                    fmt::format("'{}': '{}' is not key=value", text, item.kv.key));
            if (find_param(entry->params, item.kv.key) == nullptr)
                throw std::invalid_argument(fmt::format(
                    "'{}': NIC model '{}' has no parameter '{}'{}", text, entry->name, item.kv.key,
                    entry->params.empty()
                        ? ""
                        : fmt::format("; expected {}", param_names(entry->params))));
            params.push_back(item.kv);
        }
    }
    if (configured_.size() >= kMaxConfigured)
        throw std::invalid_argument(
            fmt::format("'{}': more than {} different NIC models", text, kMaxConfigured));
    std::shared_ptr<const NicBehaviour> behaviour;
    try {
        behaviour = entry->make(params);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("'{}': {}", text, e.what()));
    }
    configured_.push_back({std::string(text), std::move(behaviour)});
    return static_cast<NicModel>(configured_.size() - 1);
}

const char* NicModelRegistry::spec(NicModel id) const {
    const std::lock_guard lock(mutex_);
    const auto i = static_cast<std::size_t>(id);
    return i < configured_.size() ? configured_[i].spec.c_str() : "?";
}

std::shared_ptr<const NicBehaviour> NicModelRegistry::behaviour(NicModel id) const {
    const std::lock_guard lock(mutex_);
    const auto i = static_cast<std::size_t>(id);
    if (i >= configured_.size())
        throw std::logic_error(fmt::format("NIC model id {} was never selected", i));
    return configured_[i].behaviour;
}

NicModelRegistry& nic_models() {
    static NicModelRegistry registry;
    static const bool builtins = [] {
        NicModelRegistry& r = registry;
        r.add({"packet",
               "every packet is routed hop by hop: two events per packet per hop",
               {},
               [](const std::vector<KeyValue>&) { return std::make_shared<PacketNic>(); }});
        r.add({"analytical",
               "the route is reserved once per packet at injection: one event per packet",
               {},
               [](const std::vector<KeyValue>&) { return std::make_shared<AnalyticalNic>(); }});
        // Their ids are NicModel::Packet and NicModel::Analytical.
        r.select("packet");
        r.select("analytical");
        return true;
    }();
    (void)builtins;
    return registry;
}

}  // namespace clustersim::topo
