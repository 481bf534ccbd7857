// SimGrid quantities (speeds, bandwidths, latencies, sharing policies, cores), attributes
// checked against what is mapped, and the names of the model's nodes and types.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "import/import.hpp"
#include "import/simgrid_importer.hpp"
#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces::simgrid_import {

namespace {

// ---- quantities ------------------------------------------------------------------------------

// Splits "12.5MBps" into 12.5 and "MBps"; false if there is no number.
bool number_and_unit(std::string_view text, long double& value, std::string& unit) {
    const std::string s(text);
    const char* begin = s.c_str();
    while (*begin == ' ' || *begin == '\t') ++begin;
    char* end = nullptr;
    value = std::strtold(begin, &end);
    if (end == begin || !std::isfinite(value)) return false;
    unit = end;
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\t')) unit.pop_back();
    while (!unit.empty() && (unit.front() == ' ' || unit.front() == '\t')) unit.erase(0, 1);
    return true;
}

// Decimal (k M G T P E) or binary (Ki Mi Gi Ti Pi Ei) prefix; false if unknown.
bool prefix_factor(std::string_view p, long double& f) {
    static const std::pair<std::string_view, long double> kPrefixes[] = {
        {"", 1.0L},
        {"k", 1e3L},
        {"K", 1e3L},
        {"M", 1e6L},
        {"G", 1e9L},
        {"T", 1e12L},
        {"P", 1e15L},
        {"E", 1e18L},
        {"Ki", 1024.0L},
        {"Mi", 1048576.0L},
        {"Gi", 1073741824.0L},
        {"Ti", 1099511627776.0L},
        {"Pi", 1125899906842624.0L},
        {"Ei", 1152921504606846976.0L}};
    for (const auto& [name, factor] : kPrefixes) {
        if (p == name) {
            f = factor;
            return true;
        }
    }
    return false;
}

}  // namespace

std::string sanitize(std::string_view s) {
    std::string out;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_';
        out += ok ? c : '_';
    }
    return out.empty() ? std::string("x") : out;
}

void split_on(std::string_view s, char sep, std::vector<std::string>& out) {
    out.clear();
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
}

std::uint64_t SimgridImporter::speed(pugi::xml_node n, const char* attr, const std::string& what,
                                     std::size_t pstate) {
    // SimGrid 3 platforms call it `power` (flops/s without a unit).
    const std::string list = !n.attribute(attr) && n.attribute("power")
                                 ? std::string(n.attribute("power").value())
                                 : required(n, attr);
    std::vector<std::string> states;
    split_on(list, ',', states);
    if (pstate >= states.size())
        fail(n, fmt::format("{} attribute 'pstate': power state {} of {} speeds ('{}'); SimGrid "
                            "refuses a pstate past the list",
                            what, pstate, states.size(), list));
    const std::string& text = states[pstate];  // number_and_unit skips blanks around it
    if (states.size() > 1)
        unmapped(n, fmt::format("{} speeds of the other power states ('{}')", what, list),
                 fmt::format("the engine keeps one speed per core (no power-state changes); "
                             "power state {}'s, the initial one, is used",
                             pstate));
    long double v = 0;
    std::string unit;
    long double f = 0;
    bool ok = number_and_unit(text, v, unit);
    if (ok) {
        std::string_view u = unit;
        if (u.ends_with("flops"))
            u.remove_suffix(5);
        else if (u.ends_with("f"))
            u.remove_suffix(1);
        else if (!u.empty())
            ok = false;
        ok = ok && prefix_factor(u, f);
    }
    const long double flops = ok ? std::roundl(v * f) : 0;
    if (!ok || flops < 1 || flops > 1.8e19L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a speed; expected flops per second "
                            "with a unit such as 1Gf, 98.095Mf or 2.5Gflops",
                            n.name(), attr, text));
    return static_cast<std::uint64_t>(flops);
}

std::uint64_t SimgridImporter::bandwidth(pugi::xml_node n, const char* attr,
                                         std::string_view text) {
    long double v = 0, f = 0;
    std::string unit;
    bool ok = number_and_unit(text, v, unit);
    long double scale = 1;
    if (ok) {
        std::string_view u = unit;
        if (u.ends_with("Bps")) {
            u.remove_suffix(3);
        } else if (u.ends_with("bps")) {
            u.remove_suffix(3);
            scale = 0.125L;
        } else if (!u.empty()) {
            ok = false;
        }
        ok = ok && prefix_factor(u, f);
    }
    const long double bps = ok ? std::roundl(v * f * scale) : 0;
    if (!ok || bps < 1 || bps > 1.8e19L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a bandwidth; expected a positive "
                            "rate such as 125MBps, 1.25GBps, 10Gbps or 1GiBps",
                            n.name(), attr, text));
    return static_cast<std::uint64_t>(bps);
}

Time SimgridImporter::latency(pugi::xml_node n, const char* attr, std::string_view text) {
    long double v = 0;
    std::string unit;
    bool ok = number_and_unit(text, v, unit);
    static const std::pair<std::string_view, long double> kUnits[] = {
        {"", 1e12L},  {"s", 1e12L},  {"ms", 1e9L},    {"us", 1e6L},     {"ns", 1e3L},
        {"ps", 1.0L}, {"m", 60e12L}, {"h", 3600e12L}, {"d", 86400e12L}, {"w", 604800e12L}};
    long double f = 0;
    if (ok) {
        ok = false;
        for (const auto& [name, factor] : kUnits)
            if (unit == name) {
                f = factor;
                ok = true;
            }
    }
    const long double ps = ok ? std::roundl(v * f) : -1;
    if (!ok || ps < 0 || ps > 9.2e18L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a latency; expected a time such "
                            "as 50us, 1.5ms or 0",
                            n.name(), attr, text));
    return Time::ps(static_cast<std::int64_t>(ps));
}

Policy SimgridImporter::policy(pugi::xml_node n, const char* attr, Policy fallback) {
    const pugi::xml_attribute a = n.attribute(attr);
    if (!a) return fallback;
    const std::string_view v = a.value();
    if (v == "SHARED") return Policy::Shared;
    if (v == "SPLITDUPLEX" || v == "FULLDUPLEX") return Policy::SplitDuplex;
    if (v == "FATPIPE") return Policy::Fatpipe;
    if (v == "WIFI")
        fail(n, fmt::format("<{}> attribute '{}': WIFI links have no meaning in clustersim (no "
                            "wireless model); the platform is not imported",
                            n.name(), attr));
    fail(n, fmt::format("<{}> attribute '{}': '{}' is not a sharing policy; expected SHARED, "
                        "SPLITDUPLEX, FATPIPE or WIFI",
                        n.name(), attr, v));
}

std::uint32_t SimgridImporter::cores(pugi::xml_node n) {
    const pugi::xml_attribute a = n.attribute("core");
    if (!a) return 1;
    const std::string v = a.value();
    char* end = nullptr;
    const long c = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || c < 1 || c > 1'000'000)
        fail(n, fmt::format("<{}> attribute 'core': '{}' is not a core count; expected a whole "
                            "number >= 1",
                            n.name(), v));
    return static_cast<std::uint32_t>(c);
}

void SimgridImporter::extra_attributes(pugi::xml_node n, const std::string& what,
                                       std::initializer_list<std::string_view> mapped) {
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::find(mapped.begin(), mapped.end(), std::string_view(a.name())) != mapped.end())
            continue;
        unmapped(n, fmt::format("{} attribute '{}'", what, a.name()),
                 "clustersim has no equivalent (ignored)");
    }
}

void SimgridImporter::refuse_profiles(pugi::xml_node n, const std::string& what) {
    for (const char* a :
         {"speed_file", "bandwidth_file", "latency_file", "state_file", "availability_file"}) {
        if (n.attribute(a))
            fail(n, fmt::format("{} attribute '{}': time-varying rates and availability "
                                "(SimGrid profiles) have no equivalent in clustersim, whose "
                                "engine keeps every rate constant; the platform is not imported",
                                what, a));
    }
}

void SimgridImporter::props(pugi::xml_node n, const std::string& owner) {
    for (pugi::xml_node p = n.child("prop"); p; p = p.next_sibling("prop")) {
        const std::string_view id = p.attribute("id").value();
        // SimGrid's energy plugins (host, link, CO2 emission) account for what was simulated
        // and change no time, so a platform that carries their figures is imported as timed.
        const bool energy = id.starts_with("wattage") || id == "watt_per_state" ||
                            id == "watt_off" || id == "carbon_intensity";
        unmapped(p, fmt::format("property '{}' of {}", id, owner),
                 energy ? "energy is not simulated (SimGrid's energy plugins only account "
                          "for it: the times are the same without it)"
                        : "properties have no meaning in clustersim");
    }
}

// ---- names and types ---------------------------------------------------------------------

std::string SimgridImporter::node_prefix(const std::string& wanted, const std::string& id,
                                         std::size_t n) {
    auto free = [&](const std::string& p) {
        if (used_.count(p) != 0) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (used_.count(p + std::to_string(i)) != 0) return false;
        return true;
    };
    std::string p = wanted;
    if (!free(p)) p = sanitize(id) + "-";
    for (int k = 2; !free(p); ++k) p = fmt::format("{}{}-", sanitize(id), k);
    used_.insert(p);
    for (std::size_t i = 0; i < n; ++i) used_.insert(p + std::to_string(i));
    return p;
}

std::string SimgridImporter::type_for(const TypeKey& k) {
    if (const auto it = types_.find(k); it != types_.end()) return it->second;
    const std::string name = unique(fmt::format("type{}", types_.size()));
    types_.emplace(k, name);
    return name;
}

}  // namespace clustersim::traces::simgrid_import
