// A registry of models chosen as "NAME[:key=value,...]" (NIC models, switch forwarding, CPU
// models), built on NamedRegistry (simulator/registry.hpp): each entry has a name, a one-line
// description, its documented parameters (ParamInfo) and a factory. select() parses a text once,
// checks every key against the entry's parameters, makes the model and interns the text to a small
// id (the same text, the same id); the hot paths then carry only the id and look the made model up
// once.
//
// One registry per kind of model, e.g.
//     using NicModelRegistry = ConfiguredRegistry<std::shared_ptr<const NicBehaviour>, NicModel>;
//     NicModelRegistry& nic_models() { static NicModelRegistry r("NIC model", 256); ... }
// A kind pins the ids of its built-ins by selecting them first, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"

namespace clustersim {

// One registered model; `make` gets the parameters, each key already checked against
// `params`, and throws std::invalid_argument("key: what was expected") for a bad value.
template <typename Made>
struct ConfiguredEntry {
    std::string name;
    std::string doc;  // one line
    std::vector<ParamInfo> params;
    std::function<Made(const std::vector<KeyValue>&)> make;
};

// "a, b or c" (one name: "a") of the entries' names.
template <typename Entry>
std::string or_list(const std::vector<Entry>& entries) {
    std::vector<std::string> names;
    for (const Entry& e : entries) names.push_back(e.name);
    return or_names(names);
}

// `Made`: what a configured model is (a behaviour pointer, a rule, a factory); it must be
// testable as a bool (false: the entry made nothing, a programming error). `Id`: an integer
// or enum type, the index of the configured text.
template <typename Made, typename Id>
class ConfiguredRegistry {
  public:
    using Entry = ConfiguredEntry<Made>;

    // `kind` names the models in errors ("NIC model"); at most `max_configured` texts.
    ConfiguredRegistry(std::string kind, std::size_t max_configured)
        : kind_(std::move(kind)), max_configured_(max_configured) {}

    // Throws std::logic_error if the name is empty or taken, or the factory is missing.
    void add(Entry entry) {
        if (entry.name.empty() || !entry.make)
            throw std::logic_error(fmt::format("a {} needs a name and a factory", kind_));
        entries_.add(std::move(entry));
    }

    std::vector<Entry> entries() const { return entries_.entries(); }

    // "packet or analytical", "packet, analytical or mine", in registration order.
    std::string names() const { return entries_.names(); }

    // The model "NAME[:key=value,...]" names, as an id (the same text, the same id). Throws
    // std::invalid_argument with the reason: "'x' is not valid; expected a or b",
    // "'m:k=v': NIC model 'm' has no parameter 'k'; expected ...", "'m:k': 'k' is not
    // key=value", "'m:k=v': k: <the factory's reason>", "'t': more than N different NIC
    // models".
    Id select(std::string_view text) {
        const std::lock_guard lock(mutex_);
        for (std::size_t id = 0; id < configured_.size(); ++id)
            if (configured_[id].spec == text) return static_cast<Id>(id);
        const std::size_t colon = text.find(':');
        const std::string_view name = text.substr(0, colon);
        const Entry* entry = entries_.find(name);
        if (entry == nullptr)
            throw std::invalid_argument(fmt::format("'{}' is not valid; expected {}{}", text,
                                                    entries_.names(),
                                                    entries_.did_you_mean_key(name)));
        std::vector<KeyValue> params;
        if (colon != std::string_view::npos) {
            for (const KeyValueItem& item : split_key_values(text.substr(colon + 1))) {
                if (const std::string problem = item.problem(); !problem.empty())
                    throw std::invalid_argument(fmt::format("'{}': {}", text, problem));
                if (find_param(entry->params, item.kv.key) == nullptr)
                    throw std::invalid_argument(fmt::format(
                        "'{}': {} '{}' has no parameter '{}'{}", text, kind_, entry->name,
                        item.kv.key,
                        entry->params.empty()
                            ? ""
                            : fmt::format("; expected {}", param_names(entry->params))));
                params.push_back(item.kv);
            }
        }
        if (configured_.size() >= max_configured_)
            throw std::invalid_argument(
                fmt::format("'{}': more than {} different {}s", text, max_configured_, kind_));
        Made made;
        try {
            made = entry->make(params);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("'{}': {}", text, e.what()));
        }
        if (!made) throw std::logic_error(fmt::format("{} '{}' made nothing", kind_, entry->name));
        configured_.push_back({std::string(text), std::move(made)});
        return static_cast<Id>(configured_.size() - 1);
    }

    // The text select() was given ("packet", "mine:rate=1GB/s"); stable for the program's
    // life. "?" for an id never given out.
    const char* spec(Id id) const {
        const std::lock_guard lock(mutex_);
        const std::int64_t i = index(id);
        return i >= 0 && static_cast<std::size_t>(i) < configured_.size()
                   ? configured_[static_cast<std::size_t>(i)].spec.c_str()
                   : "?";
    }

    // The model configured as `id`; throws std::logic_error for an id never given out.
    Made made(Id id) const {
        const std::lock_guard lock(mutex_);
        const std::int64_t i = index(id);
        if (i < 0 || static_cast<std::size_t>(i) >= configured_.size())
            throw std::logic_error(fmt::format("{} id {} was never selected", kind_, i));
        return configured_[static_cast<std::size_t>(i)].made;
    }

  private:
    static std::int64_t index(Id id) {
        if constexpr (std::is_enum_v<Id>)
            return static_cast<std::int64_t>(static_cast<std::underlying_type_t<Id>>(id));
        else
            return static_cast<std::int64_t>(id);
    }

    struct Configured {
        std::string spec;
        Made made;
    };
    const std::string kind_;
    const std::size_t max_configured_;
    mutable std::mutex mutex_;
    NamedRegistry<Entry> entries_{kind_};  // after kind_: built from it
    std::deque<Configured> configured_;    // index = id
};

// Selects the model `text` ("NAME[:key=value,...]") from a configured-model registry for
// `flag`, turning its std::invalid_argument into an InputError naming the flag:
// "--nic: 'x': expected packet or analytical".
template <typename Registry>
auto select_flag(const std::string& flag, Registry& registry, const std::string& text) {
    try {
        return registry.select(text);
    } catch (const std::invalid_argument& e) {
        // "'x' is not valid; expected a or b" -> "'x': expected a or b"
        std::string why = e.what();
        const std::string not_valid = fmt::format("'{}' is not valid; ", text);
        if (why.starts_with(not_valid))
            why = fmt::format("'{}': {}", text, why.substr(not_valid.size()));
        throw InputError(flag, 0, why);
    }
}

}  // namespace clustersim
