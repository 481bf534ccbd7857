#include "topologies/forwarding.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::topo {

namespace {

// At most this many configured forwarding models (Forwarding is a signed byte).
constexpr std::size_t kMaxConfigured = 127;

Time whole_packet(const ForwardRule&, Time, Time, Time tail) {
    return tail;
}
Time head_after_latency(const ForwardRule&, Time start, Time latency, Time) {
    return start + latency;
}

std::string or_list(const std::vector<ForwardingEntry>& entries) {
    std::string out;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out += i + 1 == entries.size() ? " or " : ", ";
        out += entries[i].name;
    }
    return out;
}

}  // namespace

void ForwardingRegistry::add(ForwardingEntry entry) {
    if (entry.name.empty() || !entry.make)
        throw std::logic_error("a forwarding model needs a name and a factory");
    const std::lock_guard lock(mutex_);
    for (const ForwardingEntry& e : entries_)
        if (e.name == entry.name)
            throw std::logic_error(
                fmt::format("forwarding model '{}' is registered twice", entry.name));
    entries_.push_back(std::move(entry));
}

std::vector<ForwardingEntry> ForwardingRegistry::entries() const {
    const std::lock_guard lock(mutex_);
    return entries_;
}

Forwarding ForwardingRegistry::select(std::string_view text) {
    const std::lock_guard lock(mutex_);
    for (std::size_t id = 0; id < configured_.size(); ++id)
        if (configured_[id].spec == text) return static_cast<Forwarding>(id);
    const std::size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    const ForwardingEntry* entry = nullptr;
    for (const ForwardingEntry& e : entries_)
        if (e.name == name) entry = &e;
    if (entry == nullptr)
        throw std::invalid_argument(
            fmt::format("'{}' is not valid; expected {}", text, or_list(entries_)));
    std::vector<KeyValue> params;
    if (colon != std::string_view::npos) {
        for (const KeyValueItem& item : split_key_values(text.substr(colon + 1))) {
            if (!item.ok)
                throw std::invalid_argument(
                    fmt::format("'{}': '{}' is not key=value", text, item.kv.key));
            if (find_param(entry->params, item.kv.key) == nullptr)
                throw std::invalid_argument(
                    fmt::format("'{}': forwarding model '{}' has no parameter '{}'{}", text,
                                entry->name, item.kv.key,
                                entry->params.empty()
                                    ? ""
                                    : fmt::format("; expected {}", param_names(entry->params))));
            params.push_back(item.kv);
        }
    }
    if (configured_.size() >= kMaxConfigured)
        throw std::invalid_argument(
            fmt::format("'{}': more than {} different forwarding models", text, kMaxConfigured));
    ForwardRule rule;
    try {
        rule = entry->make(params);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("'{}': {}", text, e.what()));
    }
    if (rule.at == nullptr)
        throw std::logic_error(fmt::format("forwarding model '{}' made no rule", entry->name));
    configured_.push_back({std::string(text), rule});
    return static_cast<Forwarding>(configured_.size() - 1);
}

const char* ForwardingRegistry::spec(Forwarding id) const {
    const std::lock_guard lock(mutex_);
    const auto i = static_cast<std::size_t>(id);
    return id >= 0 && i < configured_.size() ? configured_[i].spec.c_str() : "?";
}

ForwardRule ForwardingRegistry::rule(Forwarding id) const {
    const std::lock_guard lock(mutex_);
    const auto i = static_cast<std::size_t>(id);
    if (id < 0 || i >= configured_.size())
        throw std::logic_error(fmt::format("forwarding model id {} was never selected", id));
    return configured_[i].rule;
}

ForwardingRegistry& forwarding_models() {
    static ForwardingRegistry registry;
    static const bool builtins = [] {
        ForwardingRegistry& r = registry;
        // Listed in this order, so the error of an unknown name reads "expected cut-through
        // or store-and-forward".
        r.add({"cut-through",
               "the next vertex forwards a packet's head after the link's latency",
               {},
               [](const std::vector<KeyValue>&) {
                   return ForwardRule{&head_after_latency, {}};
               }});
        r.add({"store-and-forward",
               "the next vertex forwards a packet once its last byte has arrived",
               {},
               [](const std::vector<KeyValue>&) {
                   return ForwardRule{&whole_packet, {}};
               }});
        // Their ids are kStoreAndForward and kCutThrough.
        r.select("store-and-forward");
        r.select("cut-through");
        return true;
    }();
    (void)builtins;
    return registry;
}

}  // namespace clustersim::topo
