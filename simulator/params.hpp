// Documented parameters of a model chosen by name (SST's ELI in small): each registered model
// (network models, analytic communication models, ...) lists its parameters with their type,
// unit, default and meaning; `clustersim list models` prints them, and the parsers of
// `--network NAME:key=value,...` check every key against the list. The I/O system's
// registries (iosys/component.hpp) document theirs the same way in ParamDoc.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

namespace clustersim {

struct ParamInfo {
    std::string name;           // "latency"
    std::string type;           // "time", "bandwidth", "count", "size", "choice", "text"
    std::string unit;           // "s", "B/s", "" (counts, choices)
    std::string default_value;  // "1", "the graph's"
    std::string doc;            // one line: what it means
};

// One "key=value" item of a parameter list, in the order given.
struct KeyValue {
    std::string key;
    std::string value;
};

// Splits "k=v,k=v" at commas (a value holds no comma). An item without '=' or with an empty
// key is returned with `value` empty and `key` holding the whole item, and `ok` false, so the
// caller names it in its own error. A key given a second time (`latency=1us,latency=1ms`:
// the last would win in silence) or with nothing after '=' (`latency=`) is `ok` too, with
// `problem` saying so: every caller refuses an item whose problem() is not empty, with it.
struct KeyValueItem {
    KeyValue kv;
    bool ok = false;
    bool duplicate = false;  // its key was given before in the same list
    // What is wrong with the item, "" when nothing: "'x' is not key=value", "'k' is given
    // twice", "'k' has no value".
    std::string problem() const {
        if (!ok) return fmt::format("'{}' is not key=value", kv.key);
        if (duplicate) return fmt::format("'{}' is given twice", kv.key);
        if (kv.value.empty()) return fmt::format("'{}' has no value", kv.key);
        return {};
    }
};
inline std::vector<KeyValueItem> split_key_values(std::string_view text) {
    std::vector<KeyValueItem> out;
    std::unordered_set<std::string_view> seen;  // keys so far (views into `text`): linear time
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string_view item = text.substr(pos, comma - pos);
        const std::size_t eq = item.find('=');
        KeyValueItem kv;
        if (eq == std::string_view::npos || eq == 0) {
            kv.kv.key = std::string(item);
        } else {
            kv.kv.key = std::string(item.substr(0, eq));
            kv.kv.value = std::string(item.substr(eq + 1));
            kv.ok = true;
            kv.duplicate = !seen.insert(item.substr(0, eq)).second;
        }
        out.push_back(std::move(kv));
        if (comma == text.size()) break;
        pos = comma + 1;
    }
    return out;
}

inline const ParamInfo* find_param(const std::vector<ParamInfo>& params, std::string_view name) {
    for (const ParamInfo& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

// "a, b or c" (one name: "a").
inline std::string param_names(const std::vector<ParamInfo>& params) {
    std::string out;
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (i > 0) out += i + 1 == params.size() ? " or " : ", ";
        out += params[i].name;
    }
    return out;
}

// "latency  time (s), default the graph's: the inter-node latency".
inline std::string describe_param(const ParamInfo& p) {
    std::string type = p.type;
    if (!p.unit.empty()) type += fmt::format(" ({})", p.unit);
    return fmt::format("{}, default {}: {}", type,
                       p.default_value.empty() ? "none" : p.default_value, p.doc);
}

}  // namespace clustersim
