// The registry every kind is kept in: named entries (a name, a one-line doc, documented
// parameters as ParamInfo, and what the kind needs: a factory, an algorithm, a reader),
// registered by any translation unit, in or outside the tree, with one `add` line, and read
// by the command line's `list` and `--help` and by whoever builds a run.
//
// One registry per kind, each a function-local static reached through its kind's accessor
// (`mpi::collective_algorithms()`, `mpi::apps()`, `io::disk_models()`, ...), filled with its
// built-ins on first use: no static-initialisation order to get wrong, no object file of a
// static library the linker could drop, and no folder has to name every other folder's kinds
// (DESIGN.md, "Adding one more of a kind"). ConfiguredRegistry
// (simulator/configured_registry.hpp) keeps its entries in one and adds the "NAME:k=v" texts.
//
// Thread-safe: `add`, `find` and `entries` lock. Entries are never removed or changed once
// added, so the pointer `find` returns stays valid for the program's life; hot paths look an
// entry up once, at set-up, and keep the pointer or a copy.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"

namespace clustersim {

// The key of an entry: its name (a kind keyed otherwise, e.g. collective algorithms by
// operation and name, passes its own KeyOf).
struct KeyIsName {
    template <typename Entry>
    std::string operator()(const Entry& e) const {
        return e.name;
    }
};

template <typename Entry, typename KeyOf = KeyIsName>
class NamedRegistry {
  public:
    // `kind` names the entries in errors ("disk model", "collective algorithm").
    explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}
    NamedRegistry(const NamedRegistry&) = delete;
    NamedRegistry& operator=(const NamedRegistry&) = delete;

    // Throws std::logic_error if the key is empty or already registered (a programming
    // error of the one registering, not an input error).
    void add(Entry entry) {
        const std::string key = KeyOf{}(entry);
        if (key.empty()) throw std::logic_error(fmt::format("a {} needs a name", kind_));
        const std::lock_guard lock(mutex_);
        for (const Entry& e : entries_)
            if (KeyOf{}(e) == key)
                throw std::logic_error(fmt::format("{} '{}' is registered twice", kind_, key));
        entries_.push_back(std::move(entry));
    }

    // Every entry, in registration order (built-ins first).
    std::vector<Entry> entries() const {
        const std::lock_guard lock(mutex_);
        return {entries_.begin(), entries_.end()};
    }

    // The entry keyed `key`, else the one equal up to '-'/'_' (noted, simulator/spelling.hpp);
    // nullptr if none. The pointer stays valid for the program's life.
    const Entry* find(std::string_view key) const {
        const std::lock_guard lock(mutex_);
        return find_named(entries_, key, [](const Entry& e) { return KeyOf{}(e); });
    }

    // The keys in registration order.
    std::vector<std::string> keys() const {
        const std::lock_guard lock(mutex_);
        std::vector<std::string> out;
        for (const Entry& e : entries_) out.push_back(KeyOf{}(e));
        return out;
    }

    // "a, b or c" (one: "a").
    std::string names() const { return or_names(keys()); }

    // "unknown disk model 'hdx' (did you mean 'hdd'?); expected simple, hdd or ssd"'s tail:
    // " (did you mean 'hdd'?)" when a key is close to `given`, else "".
    std::string did_you_mean_key(std::string_view given) const {
        return did_you_mean(given, keys());
    }

    const std::string& kind() const { return kind_; }

  private:
    const std::string kind_;
    mutable std::mutex mutex_;
    std::deque<Entry> entries_;  // a deque: add() never moves an entry find() gave out
};

}  // namespace clustersim
