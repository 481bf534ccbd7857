// Params: reading a component's parameters with units, and the errors for bad ones.
//
//   missing required   <file>:<line>: <disk model="hdd"> needs parameter 'rate' (sequential
//                      transfer rate)
//   bad unit           <file>:<line>: <disk model="hdd"> parameter 'rate': '50': missing unit...
//   unknown name       <file>:<line>: <disk model="hdd"> has no parameter 'rpmm'; valid: rate,
//                      average-seek, track-to-track, rpm, close
//   Params::fail(m)    <file>:<line>: <disk model="ssd">: m
#include "iosys/component.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "simulator/units.hpp"

namespace clustersim::io {
namespace {

std::string valid_list(const std::vector<ParamInfo>& docs) {
    if (docs.empty()) return "(none)";
    std::string out;
    for (const auto& d : docs) out += (out.empty() ? "" : ", ") + d.name;
    return out;
}

// Parses `text` with `parse`, turning a UnitError into an InputError naming the parameter.
template <class F>
auto parse_or_throw(F parse, const std::string& text, const std::string& file, int line,
                    const std::string& what, const std::string& name) {
    try {
        return parse(text);
    } catch (const UnitError& e) {
        throw InputError(file, line, what + " parameter '" + name + "': " + e.what());
    }
}

}  // namespace

std::string describe_io_param(const ParamInfo& p) {
    return fmt::format("{} ({}, {})", p.doc, p.type,
                       p.default_value.empty() ? "required" : "default " + p.default_value);
}

Params::Params(const io::ComponentSpec& spec, std::string file, std::string what,
               std::uint64_t node_memory)
    : Params(spec, std::move(file), std::move(what), node_memory, nullptr) {}

Params::Params(const io::ComponentSpec& spec, std::string file, std::string what,
               std::uint64_t node_memory, const std::vector<ParamInfo>* docs)
    : spec_(spec),
      file_(std::move(file)),
      what_(std::move(what)),
      node_memory_(node_memory),
      docs_(docs),
      used_(spec.params.size(), false) {}

const std::string* Params::find(const std::string& name) const {
    const std::string* found = nullptr;
    for (std::size_t i = 0; i < spec_.params.size(); ++i) {
        if (spec_.params[i].first != name) continue;
        used_[i] = true;
        if (found == nullptr) found = &spec_.params[i].second;
    }
    return found;
}

namespace {
// The error for a missing required parameter, with its meaning if documented.
[[noreturn]] void missing(const std::string& file, int line, const std::string& what,
                          const std::string& name, const std::vector<ParamInfo>* docs) {
    std::string message = what + " needs parameter '" + name + "'";
    if (docs != nullptr)
        if (const ParamInfo* d = find_param(*docs, name); d != nullptr && !d->doc.empty())
            message += " (" + d->doc + ")";
    throw InputError(file, line, message);
}
}  // namespace

const std::string& Params::given_or_default(const std::string& name) const {
    if (const std::string* v = find(name)) return *v;
    const ParamInfo* d = docs_ != nullptr ? find_param(*docs_, name) : nullptr;
    if (docs_ != nullptr && d == nullptr)
        throw std::logic_error(what_ + " reads parameter '" + name +
                               "', which it does not document");
    if (d == nullptr || d->default_value.empty()) missing(file_, spec_.line, what_, name, docs_);
    return d->default_value;
}

Time Params::time(const std::string& name) const {
    return parse_or_throw([](const std::string& s) { return parse_time(s); },
                          given_or_default(name), file_, spec_.line, what_, name);
}

Time Params::time(const std::string& name, Time fallback) const {
    const std::string* v = find(name);
    if (v == nullptr) return fallback;
    return parse_or_throw([](const std::string& s) { return parse_time(s); }, *v, file_, spec_.line,
                          what_, name);
}

Bandwidth Params::bandwidth(const std::string& name) const {
    return parse_or_throw([](const std::string& s) { return parse_bandwidth(s); },
                          given_or_default(name), file_, spec_.line, what_, name);
}

Bandwidth Params::bandwidth(const std::string& name, Bandwidth fallback) const {
    const std::string* v = find(name);
    if (v == nullptr) return fallback;
    return parse_or_throw([](const std::string& s) { return parse_bandwidth(s); }, *v, file_,
                          spec_.line, what_, name);
}

std::uint64_t Params::size(const std::string& name) const {
    return parse_or_throw([](const std::string& s) { return parse_size(s); },
                          given_or_default(name), file_, spec_.line, what_, name);
}

std::uint64_t Params::count(const std::string& name) const {
    return parse_or_throw([](const std::string& s) { return parse_count(s); },
                          given_or_default(name), file_, spec_.line, what_, name);
}

std::uint64_t Params::size(const std::string& name, std::uint64_t fallback) const {
    const std::string* v = find(name);
    if (v == nullptr) return fallback;
    return parse_or_throw([](const std::string& s) { return parse_size(s); }, *v, file_, spec_.line,
                          what_, name);
}

std::uint64_t Params::count(const std::string& name, std::uint64_t fallback) const {
    const std::string* v = find(name);
    if (v == nullptr) return fallback;
    return parse_or_throw([](const std::string& s) { return parse_count(s); }, *v, file_,
                          spec_.line, what_, name);
}

void Params::finish(const std::vector<ParamInfo>& docs) const {
    for (std::size_t i = 0; i < spec_.params.size(); ++i) {
        if (used_[i]) continue;
        throw InputError(file_, spec_.line,
                         what_ + " has no parameter '" + spec_.params[i].first +
                             "'; valid: " + valid_list(docs));
    }
}

void Params::check_known(const std::vector<ParamInfo>& docs) const {
    for (const auto& [name, value] : spec_.params) {
        bool known = false;
        for (const auto& d : docs) known = known || d.name == name;
        if (!known)
            throw InputError(
                file_, spec_.line,
                what_ + " has no parameter '" + name + "'; valid: " + valid_list(docs));
    }
}

void Params::fail(const std::string& message) const {
    throw InputError(file_, spec_.line, what_ + ": " + message);
}

}  // namespace clustersim::io
