// Components of the I/O system chosen by name in the model XML (disk models, cache layers),
// with their parameters. A registry entry documents every parameter as ParamInfo; `Params`
// reads them with units, takes the documented default for one left out, and rejects unknown
// or misspelt ones with the file, line and valid names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "iosys/io_settings.hpp"
#include "simulator/error.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/time.hpp"
#include "topologies/topology.hpp"

namespace clustersim::io {

// "sequential transfer rate (bandwidth, required)", "largest merged flush (size, default
// 10MiB)": a parameter as `clustersim list models` prints it.
std::string describe_io_param(const ParamInfo& p);

// Reads the parameters of one ComponentSpec against the entry's documentation (ParamInfo:
// name, type, unit, default, meaning). Every getter marks its parameter as used; finish()
// throws InputError naming the first parameter no getter asked for, and lists the valid ones.
class Params {
  public:
    Params(const io::ComponentSpec& spec, std::string file, std::string what,
           std::uint64_t node_memory);
    // With the model's documentation: a getter without a fallback takes a parameter left out
    // from its documented default (ParamInfo::default_value, parsed like a given value), so
    // the documentation and the model cannot disagree; one documented with an empty default
    // is required, and its error says what it means (ParamInfo::doc).
    Params(const io::ComponentSpec& spec, std::string file, std::string what,
           std::uint64_t node_memory, const std::vector<ParamInfo>* docs);
    // Given, else documented default, else InputError (required). A documented default that
    // does not parse, or a name not documented, is a programming error (std::logic_error).
    Time time(const std::string& name) const;
    Bandwidth bandwidth(const std::string& name) const;
    std::uint64_t size(const std::string& name) const;
    std::uint64_t count(const std::string& name) const;
    // With a fallback the code computes, for a default that is not a value (another
    // parameter's value, the node's memory, "none"); the documentation says it in words.
    Time time(const std::string& name, Time fallback) const;
    Bandwidth bandwidth(const std::string& name, Bandwidth fallback) const;
    std::uint64_t size(const std::string& name, std::uint64_t fallback) const;
    std::uint64_t count(const std::string& name, std::uint64_t fallback) const;
    std::uint64_t node_memory() const { return node_memory_; }  // bytes of the server's node
    // Throws InputError if a parameter was given that no getter read.
    void finish(const std::vector<ParamInfo>& docs) const;
    // Throws the same InputError as finish() if a parameter was given that `docs` does not
    // name (Registry::make checks this before building, so a misspelt name is reported
    // rather than the required parameter it was meant to be).
    void check_known(const std::vector<ParamInfo>& docs) const;
    [[noreturn]] void fail(const std::string& message) const;  // "<file>:<line>: <what>: message"

  private:
    const std::string* find(const std::string& name) const;
    // The value given for `name`, else its documented default; throws when it is required.
    const std::string& given_or_default(const std::string& name) const;
    const io::ComponentSpec& spec_;
    std::string file_;
    std::string what_;  // "<disk model=\"hdd\">"
    std::uint64_t node_memory_;
    const std::vector<ParamInfo>* docs_ = nullptr;
    mutable std::vector<bool> used_;
};

// One registry entry: a named model with its documentation and factory.
template <class T>
struct Entry {
    std::string name;
    std::string doc;
    std::vector<ParamInfo> params;
    std::function<std::unique_ptr<T>(const Params&)> make;
};

// Registry of named models of one component kind (Disk, CacheLayer), built on NamedRegistry
// (simulator/registry.hpp). The kinds' own are disk_models() and cache_models()
// (iosys/disk.hpp, iosys/cache.hpp); one made here is a list of one's own.
template <class T>
class Registry {
  public:
    explicit Registry(std::string kind) : entries_(kind), kind_(std::move(kind)) {}
    // Throws std::logic_error for an empty or taken name or a missing factory.
    void add(Entry<T> e) {
        if (!e.make) throw std::logic_error("a " + kind_ + " model needs a factory");
        entries_.add(std::move(e));
    }
    // nullptr if unknown (a name with '-' for '_' finds the registered one).
    const Entry<T>* find(const std::string& name) const { return entries_.find(name); }
    std::vector<Entry<T>> entries() const { return entries_.entries(); }
    std::string names_list() const {  // "simple, hdd, ssd"
        std::string out;
        for (const std::string& n : entries_.keys()) out += (out.empty() ? "" : ", ") + n;
        return out;
    }
    // Builds the model `spec` names; InputError (file, spec.line) listing the valid names if
    // it is unknown, or naming a bad parameter.
    std::unique_ptr<T> make(const io::ComponentSpec& spec, const std::string& file,
                            std::uint64_t node_memory) const;
    const std::string& kind() const { return kind_; }

  private:
    NamedRegistry<Entry<T>> entries_;
    std::string kind_;  // "disk", "cache"
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
