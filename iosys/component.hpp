// Components of the I/O system chosen by name in the model XML (disk models, cache layers),
// with their parameters. A registry entry documents every parameter; `Params` reads them
// with units and rejects unknown or misspelt ones with the file, line and valid names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "iosys/io_settings.hpp"
#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "simulator/time.hpp"
#include "topologies/topology.hpp"
#include "simulator/spelling.hpp"

namespace clustersim::io {

struct ParamDoc {
    std::string name;
    std::string meaning;  // with its unit and default, e.g. "sequential transfer rate (req)"
};

// Reads the parameters of one ComponentSpec. Every getter marks its parameter as used;
// finish() throws InputError naming the first parameter no getter asked for, and lists the
// valid ones.
class Params {
  public:
    Params(const io::ComponentSpec& spec, std::string file, std::string what,
           std::uint64_t node_memory);
    // With the model's documentation: a missing required parameter's error then says what it
    // means (the text of its ParamDoc::meaning before " (").
    Params(const io::ComponentSpec& spec, std::string file, std::string what,
           std::uint64_t node_memory, const std::vector<ParamDoc>* docs);
    // A required parameter throws InputError when missing.
    Time time(const std::string& name) const;
    Time time(const std::string& name, Time fallback) const;
    Bandwidth bandwidth(const std::string& name) const;
    Bandwidth bandwidth(const std::string& name, Bandwidth fallback) const;
    std::uint64_t size(const std::string& name) const;
    std::uint64_t size(const std::string& name, std::uint64_t fallback) const;
    std::uint64_t count(const std::string& name, std::uint64_t fallback) const;
    std::uint64_t node_memory() const { return node_memory_; }  // bytes of the server's node
    // Throws InputError if a parameter was given that no getter read.
    void finish(const std::vector<ParamDoc>& docs) const;
    // Throws the same InputError as finish() if a parameter was given that `docs` does not
    // name (Registry::make checks this before building, so a misspelt name is reported
    // rather than the required parameter it was meant to be).
    void check_known(const std::vector<ParamDoc>& docs) const;
    [[noreturn]] void fail(const std::string& message) const;  // "<file>:<line>: <what>: message"

  private:
    const std::string* find(const std::string& name) const;
    const io::ComponentSpec& spec_;
    std::string file_;
    std::string what_;  // "<disk model=\"hdd\">"
    std::uint64_t node_memory_;
    const std::vector<ParamDoc>* docs_ = nullptr;
    mutable std::vector<bool> used_;
};

// One registry entry: a named model with its documentation and factory.
template <class T>
struct Entry {
    std::string name;
    std::string doc;
    std::vector<ParamDoc> params;
    std::function<std::unique_ptr<T>(const Params&)> make;
};

// Registry of named models of one component kind (Disk, CacheLayer).
template <class T>
class Registry {
  public:
    explicit Registry(std::string kind) : kind_(std::move(kind)) {}
    void add(Entry<T> e) { entries_.push_back(std::move(e)); }
    const Entry<T>* find(const std::string& name) const {
        return find_named(entries_, name, [](const Entry<T>& e) { return e.name; });
    }
    const std::vector<Entry<T>>& entries() const { return entries_; }
    std::string names_list() const {
        std::string out;
        for (const auto& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
        return out;
    }
    // Builds the model `spec` names; InputError (file, spec.line) listing the valid names if
    // it is unknown, or naming a bad parameter.
    std::unique_ptr<T> make(const io::ComponentSpec& spec, const std::string& file,
                            std::uint64_t node_memory) const;
    const std::string& kind() const { return kind_; }

  private:
    std::string kind_;  // "disk", "cache"
    std::vector<Entry<T>> entries_;
};

template <class T>
std::unique_ptr<T> Registry<T>::make(const io::ComponentSpec& spec, const std::string& file,
                                     std::uint64_t node_memory) const {
    const Entry<T>* e = find(spec.model);
    if (e == nullptr)
        throw InputError(file, spec.line,
                         "unknown " + kind_ + " model '" + spec.model + "'" +
                             did_you_mean(spec.model, split_names(names_list())) +
                             "; valid: " + names_list());
    const Params params(spec, file, "<" + kind_ + " model=\"" + spec.model + "\">", node_memory,
                        &e->params);
    params.check_known(e->params);
    std::unique_ptr<T> made = e->make(params);
    params.finish(e->params);
    return made;
}

}  // namespace clustersim::io
