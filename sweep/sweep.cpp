#include "sweep/sweep.hpp"
#include "sweep/json_depth.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// The line of a key path in the file's text: each key is looked for after the previous one
// ("axes", then "size"). Good enough to point at the right place; 0 when not found.
int line_of(const std::string& text, std::initializer_list<std::string> keys) {
    std::size_t pos = 0;
    for (const auto& k : keys) {
        const std::size_t at = text.find("\"" + k + "\"", pos);
        if (at == std::string::npos) return 0;
        pos = at + 1;
    }
    return 1 +
           static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

struct Ctx {
    const std::string& text;
    const std::string& file;
    [[noreturn]] void fail(std::initializer_list<std::string> keys, const std::string& msg) const {
        throw InputError(file, line_of(text, keys), msg);
    }
};

bool is_scalar(const ojson& v) {
    return v.is_string() || v.is_number_integer() || v.is_number_unsigned() ||
           (v.is_number_float() && std::isfinite(v.get<double>()));
}

std::string scalar_text(const ojson& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    return fmt::format("{:g}", v.get<double>());
}

// A scalar, or a list of scalars when `list_ok`.
std::vector<std::string> strings_of(const Ctx& c, std::initializer_list<std::string> keys,
                                    const ojson& v, bool list_ok, const std::string& what) {
    if (is_scalar(v)) return {scalar_text(v)};
    if (list_ok && v.is_array() && !v.empty()) {
        std::vector<std::string> out;
        for (const auto& e : v) {
            if (!is_scalar(e)) c.fail(keys, fmt::format("{}: expected strings or numbers", what));
            out.push_back(scalar_text(e));
        }
        return out;
    }
    c.fail(keys, fmt::format("{}: expected a string or number{}", what,
                             list_ok ? ", or a list of them" : ""));
}

std::string absolute(const std::string& dir, const std::string& path) {
    fs::path p(path);
    if (p.is_relative()) p = fs::path(dir) / p;
    // The non-throwing forms: a name the system refuses (longer than PATH_MAX, say) is then
    // "no file" at its line, not a filesystem_error escaping as an internal error.
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal().string() : canonical.string();
}

bool is_file(const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

// Sets one parameter of an app spec "name:k=v,k=v".
std::string set_param(const std::string& spec, const std::string& key, const std::string& value) {
    const std::size_t colon = spec.find(':');
    if (colon == std::string::npos) return spec + ":" + key + "=" + value;
    std::vector<std::string> parts;
    std::stringstream ss(spec.substr(colon + 1));
    std::string item;
    bool replaced = false;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        if (item.substr(0, item.find('=')) == key) {
            item = key + "=" + value;
            replaced = true;
        }
        parts.push_back(item);
    }
    if (!replaced) parts.push_back(key + "=" + value);
    std::string out = spec.substr(0, colon + 1);
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
    return out;
}

std::string param_of(const std::string& spec, const std::string& key) {
    const std::size_t colon = spec.find(':');
    if (colon == std::string::npos) return {};
    std::stringstream ss(spec.substr(colon + 1));
    std::string item;
    while (std::getline(ss, item, ','))
        if (item.substr(0, item.find('=')) == key && item.find('=') != std::string::npos)
            return item.substr(item.find('=') + 1);
    return {};
}

// "bcast=binomial" replaces the base's "bcast=..." override.
void set_algorithm(std::vector<std::string>& list, const std::string& override_) {
    const std::string op = override_.substr(0, override_.find('='));
    for (auto& a : list)
        if (a.substr(0, a.find('=')) == op) {
            a = override_;
            return;
        }
    list.push_back(override_);
}

AxisKind kind_of(const std::string& name, std::string& param) {
    static const std::map<std::string, AxisKind> fixed = {{"app", AxisKind::App},
                                                          {"trace", AxisKind::Trace},
                                                          {"model", AxisKind::Model},
                                                          {"topology", AxisKind::Topology},
                                                          {"algorithm", AxisKind::Algorithm},
                                                          {"network", AxisKind::Network},
                                                          {"ranks", AxisKind::Ranks},
                                                          {"placement", AxisKind::Placement},
                                                          {"cache", AxisKind::Cache},
                                                          {"seed", AxisKind::Seed}};
    if (auto it = fixed.find(name); it != fixed.end()) return it->second;
    const auto& gen = generator_flags();
    if (std::find(gen.begin(), gen.end(), name) != gen.end()) {
        param = name;
        return AxisKind::Generator;
    }
    param = name.rfind("app.", 0) == 0 ? name.substr(4) : name;
    return AxisKind::AppParam;
}

}  // namespace

const std::vector<std::string>& generator_flags() {
    static const std::vector<std::string> flags = {"nodes",
                                                   "sockets",
                                                   "cores",
                                                   "cpu-speed",
                                                   "link-bandwidth",
                                                   "link-latency",
                                                   "switch-bandwidth",
                                                   "memory-bandwidth",
                                                   "memory-latency",
                                                   "granularity",
                                                   "forwarding",
                                                   "nic",
                                                   "routing",
                                                   "memory",
                                                   "eager-threshold",
                                                   "down",
                                                   "up",
                                                   "dims",
                                                   "groups",
                                                   "routers",
                                                   "nodes-per-router",
                                                   "global-links",
                                                   "local-latency",
                                                   "local-bandwidth",
                                                   "global-latency",
                                                   "global-bandwidth"};
    return flags;
}

std::string fnv1a_hex(const std::string& data) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return fmt::format("{:016x}", h);
}

std::string value_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_float()) return fmt::format("{:g}", v.get<double>());
    if (v.is_array()) {
        std::string out;
        for (const auto& e : v) out += (out.empty() ? "" : "+") + value_text(e);
        return out;
    }
    return v.dump();
}

SweepSpec load_sweep(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "cannot read the sweep file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_sweep(ss.str(), path);
}

namespace {

// The document, or an InputError at the line of its first syntax error.
ojson parse_document(const std::string& text, const std::string& path) {
    ojson doc;
    try {
        doc = clustersim::sweep::parse_json_input<ojson>(text, path);
    } catch (const ojson::parse_error& e) {
        const std::size_t upto = std::min<std::size_t>(e.byte, text.size());
        const int line = 1 + static_cast<int>(std::count(
                                 text.begin(), text.begin() + static_cast<long>(upto), '\n'));
        std::string msg = e.what();
        if (auto p = msg.find(": "); p != std::string::npos) msg = msg.substr(p + 2);
        if (auto p = msg.find(": "); p != std::string::npos && msg.rfind("line", 0) == 0)
            msg = msg.substr(p + 2);
        throw InputError(path, line, "not valid JSON: " + msg);
    } catch (const ojson::exception& e) {  // a number out of range: 1e999
        std::string msg = e.what();
        if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
        throw InputError(path, 0, "not valid JSON: " + msg);
    }
    return doc;
}

// "base": the model (a file or a generator), the apps and traces, and the run's flags.
void parse_base(const Ctx& c, const ojson& doc, SweepSpec& s) {
    const ojson base = doc.value("base", ojson::object());
    if (!base.is_object()) c.fail({"base"}, "base: expected an object");
    for (const auto& [key, v] : base.items()) {
        const auto k = {std::string("base"), key};
        if (key == "model") {
            if (!v.is_string()) c.fail(k, "base.model: expected a file name");
            s.model = absolute(s.dir, v.get<std::string>());
            if (!is_file(s.model)) c.fail(k, fmt::format("base.model: no file '{}'", s.model));
        } else if (key == "generate") {
            if (!v.is_object()) c.fail(k, "base.generate: expected an object of generator flags");
            for (const auto& [flag, fv] : v.items()) {
                const auto fk = {std::string("base"), std::string("generate"), flag};
                if (!is_scalar(fv))
                    c.fail(fk, fmt::format("base.generate.{}: expected a string or number", flag));
                if (flag == "topology") {
                    s.generate_kind = scalar_text(fv);
                    continue;
                }
                const auto& gen = generator_flags();
                if (std::find(gen.begin(), gen.end(), flag) == gen.end())
                    c.fail(fk, fmt::format("base.generate: unknown generator flag '{}'", flag));
                s.generate_flags.emplace_back(flag, scalar_text(fv));
            }
            if (s.generate_kind.empty())
                c.fail(k, "base.generate: needs \"topology\": star, fat-tree, torus or dragonfly");
        } else if (key == "app") {
            s.apps = strings_of(c, k, v, true, "base.app");
        } else if (key == "trace") {
            for (const auto& t : strings_of(c, k, v, true, "base.trace"))
                s.apps.push_back("trace:" + absolute(s.dir, t));
        } else if (key == "ranks") {
            s.ranks = strings_of(c, k, v, true, "base.ranks");
        } else if (key == "algorithm") {
            s.algorithms = strings_of(c, k, v, true, "base.algorithm");
        } else if (key == "network") {
            s.network = strings_of(c, k, v, false, "base.network")[0];
        } else if (key == "placement") {
            s.placement = strings_of(c, k, v, false, "base.placement")[0];
        } else if (key == "cache") {
            s.cache = strings_of(c, k, v, false, "base.cache")[0];
        } else if (key == "seed") {
            s.seed = strings_of(c, k, v, false, "base.seed")[0];
        } else if (key == "oversubscribe") {
            if (!v.is_boolean()) c.fail(k, "base.oversubscribe: expected true or false");
            s.oversubscribe = v.get<bool>();
        } else if (key == "flags") {
            s.flags = strings_of(c, k, v, true, "base.flags");
            for (const auto& f : s.flags)
                if (f == "--json" || f == "--out" || f == "--per-rank")
                    c.fail(k, fmt::format("base.flags: '{}' is set by the sweep itself", f));
        } else {
            c.fail(k, fmt::format("base: unknown key '{}'; expected model, generate, app, trace, "
                                  "ranks, algorithm, network, placement, cache, seed, "
                                  "oversubscribe or flags",
                                  key));
        }
    }
    if (!s.model.empty() && !s.generate_kind.empty())
        c.fail({"base", "generate"}, "base: give either model or generate, not both");
}

// "axes": each axis's values; a generator axis needs a generated base model.
void parse_axes(const Ctx& c, const ojson& doc, SweepSpec& s) {
    const std::string& text = c.text;
    const ojson axes = doc.value("axes", ojson::object());
    if (!axes.is_object()) c.fail({"axes"}, "axes: expected an object of name: [values]");
    std::set<std::string> app_params;
    for (const auto& [name, v] : axes.items()) {
        const auto k = {std::string("axes"), name};
        Axis a;
        a.name = name;
        a.line = line_of(text, k);
        a.kind = kind_of(name, a.param);
        if (a.kind == AxisKind::Seed && (v.is_number_unsigned() || v.is_number_integer())) {
            const std::int64_t n = v.get<std::int64_t>();
            if (n < 1 || n > 100000) c.fail(k, "axes.seed: expected a count from 1 to 100000");
            for (std::int64_t i = 1; i <= n; ++i) a.values.emplace_back(i);
        } else {
            if (!v.is_array() || v.empty())
                c.fail(k, fmt::format("axes.{}: expected a non-empty list of values", name));
            const bool list_values = a.kind == AxisKind::App || a.kind == AxisKind::Algorithm ||
                                     a.kind == AxisKind::Ranks;
            for (const auto& e : v) {
                auto strs = strings_of(c, k, e, list_values, "axes." + name);
                if (a.kind == AxisKind::Model || a.kind == AxisKind::Trace) {
                    std::string p = absolute(s.dir, strs[0]);
                    if (a.kind == AxisKind::Model && !is_file(p))
                        c.fail(k, fmt::format("axes.model: no file '{}'", p));
                    a.values.emplace_back(p);
                } else if (e.is_array()) {
                    a.values.emplace_back(strs);
                } else {
                    a.values.push_back(nlohmann::json::parse(e.dump()));
                }
            }
        }
        if ((a.kind == AxisKind::Generator || a.kind == AxisKind::Topology) &&
            s.generate_kind.empty())
            c.fail(k, fmt::format("axes.{}: a generator parameter needs base.generate (the "
                                  "model file's parameters are not swept; see sweep/README.md)",
                                  name));
        if (a.kind == AxisKind::Model && !s.generate_kind.empty())
            c.fail(k, "axes.model: the base model is generated (base.generate)");
        if (a.kind == AxisKind::AppParam && !app_params.insert(a.param).second)
            c.fail(k, fmt::format("axes: app parameter '{}' given twice", a.param));
        s.axes.push_back(std::move(a));
    }
}

// Zip groups: listed axes advance together; every other axis is a group of its own. The
// groups are ordered by their first axis in file order; at most 200,000 points.
void parse_zip(const Ctx& c, const ojson& doc, SweepSpec& s) {
    std::vector<int> group_of(s.axes.size(), -1);
    if (doc.contains("zip")) {
        const ojson& zip = doc["zip"];
        if (!zip.is_array()) c.fail({"zip"}, "zip: expected a list of lists of axis names");
        for (const auto& g : zip) {
            if (!g.is_array() || g.size() < 2)
                c.fail({"zip"}, "zip: each entry must list at least two axis names");
            std::vector<std::size_t> members;
            for (const auto& n : g) {
                if (!n.is_string()) c.fail({"zip"}, "zip: axis names are strings");
                const std::string name = n.get<std::string>();
                auto it = std::find_if(s.axes.begin(), s.axes.end(),
                                       [&](const Axis& a) { return a.name == name; });
                if (it == s.axes.end())
                    c.fail({"zip", name}, fmt::format("zip: '{}' is not an axis", name));
                const auto i = static_cast<std::size_t>(it - s.axes.begin());
                if (group_of[i] != -1)
                    c.fail({"zip", name}, fmt::format("zip: axis '{}' is zipped twice", name));
                if (!members.empty() && s.axes[i].values.size() != s.axes[members[0]].values.size())
                    c.fail({"zip", name},
                           fmt::format("zip: axes '{}' ({} values) and '{}' ({} values) differ "
                                       "in length",
                                       s.axes[members[0]].name, s.axes[members[0]].values.size(),
                                       name, s.axes[i].values.size()));
                group_of[i] = static_cast<int>(s.groups.size());
                members.push_back(i);
            }
            s.groups.push_back(members);
        }
    }
    // Order the groups by their first axis in file order.
    std::vector<std::vector<std::size_t>> ordered;
    for (std::size_t i = 0; i < s.axes.size(); ++i) {
        if (group_of[i] == -1) {
            ordered.push_back({i});
            continue;
        }
        auto g = s.groups[static_cast<std::size_t>(group_of[i])];
        std::sort(g.begin(), g.end());
        if (g[0] == i) ordered.push_back(g);
    }
    s.groups = ordered;
    double total = 1;
    for (const auto& g : s.groups) total *= static_cast<double>(s.axes[g[0]].values.size());
    if (total > 200000)
        c.fail({"axes"},
               fmt::format("axes: {:g} points; at most 200,000 per sweep (split it into several)",
                           total));
}

// "limits": wall_time and memory of one point.
void parse_limits(const Ctx& c, const ojson& doc, SweepSpec& s) {
    if (doc.contains("limits")) {
        const ojson& l = doc["limits"];
        if (!l.is_object())
            c.fail({"limits"}, "limits: expected {\"wall_time\": ..., \"memory\": ...}");
        for (const auto& [key, v] : l.items()) {
            const auto k = {std::string("limits"), key};
            if (!v.is_string())
                c.fail(k, fmt::format("limits.{}: expected a quantity with its unit", key));
            try {
                if (key == "wall_time")
                    s.limits.wall_s = parse_time(v.get<std::string>()).seconds();
                else if (key == "memory")
                    s.limits.memory_bytes = parse_size(v.get<std::string>());
                else
                    c.fail(k, fmt::format("limits: unknown key '{}'; expected wall_time or memory",
                                          key));
            } catch (const UnitError& e) {
                c.fail(k, fmt::format("limits.{}: {}", key, e.what()));
            }
        }
    }
}

// "plots": the figures `sweep` draws once every point has run.
void parse_plots(const Ctx& c, const ojson& doc, SweepSpec& s) {
    if (doc.contains("plots")) {
        const ojson& plots = doc["plots"];
        if (!plots.is_array())
            c.fail({"plots"}, "plots: expected a list of {\"x\": ..., \"y\": ...}");
        for (const auto& pl : plots) {
            if (!pl.is_object()) c.fail({"plots"}, "plots: each entry is an object");
            for (const auto& [key, v] : pl.items()) {
                const auto k = {std::string("plots"), key};
                static const std::set<std::string> text = {"x",     "y",      "series", "facet",
                                                           "title", "output", "table"};
                static const std::set<std::string> flags = {"log_x", "log_y", "speedup",
                                                            "maximize"};
                if (text.count(key)) {
                    if (!v.is_string()) c.fail(k, fmt::format("plots.{}: expected a string", key));
                } else if (flags.count(key)) {
                    if (!v.is_boolean())
                        c.fail(k, fmt::format("plots.{}: expected true or false", key));
                } else {
                    c.fail(k, fmt::format("plots: unknown key '{}'; expected x, y, series, facet, "
                                          "log_x, log_y, speedup, maximize, title, output, table",
                                          key));
                }
            }
            if (!pl.contains("x") || !pl.contains("y") || !pl.contains("output"))
                c.fail({"plots"}, "plots: each entry needs \"x\", \"y\" and \"output\"");
            s.plots.push_back(nlohmann::json::parse(pl.dump()));
        }
    }
}

}  // namespace

SweepSpec parse_sweep(const std::string& text, const std::string& path) {
    const Ctx c{text, path};
    const ojson doc = parse_document(text, path);
    if (!doc.is_object()) c.fail({}, "expected a JSON object with \"base\" and \"axes\"");
    SweepSpec s;
    s.file = path;
    s.dir = fs::absolute(fs::path(path)).parent_path().string();
    s.name = fs::path(path).stem().string();
    for (const auto& [key, v] : doc.items())
        if (key != "base" && key != "axes" && key != "zip" && key != "limits" &&
            key != "description" && key != "plots")
            c.fail({key}, fmt::format("unknown key '{}'; expected base, axes, zip, limits, plots "
                                      "or description",
                                      key));

    parse_base(c, doc, s);
    parse_axes(c, doc, s);
    bool has_model = !s.model.empty() || !s.generate_kind.empty();
    bool has_app = !s.apps.empty();
    for (const auto& a : s.axes) {
        has_model = has_model || a.kind == AxisKind::Model;
        has_app = has_app || a.kind == AxisKind::App || a.kind == AxisKind::Trace;
    }
    if (!has_model)
        c.fail({"base"}, "base: needs a model (base.model, base.generate or axes.model)");
    if (!has_app)
        c.fail({"base"}, "base: needs an app (base.app, base.trace, or an app or trace axis)");

    parse_zip(c, doc, s);
    parse_limits(c, doc, s);
    parse_plots(c, doc, s);
    return s;
}

std::vector<Point> expand(const SweepSpec& s) {
    std::size_t total = 1;
    for (const auto& g : s.groups) total *= s.axes[g[0]].values.size();
    std::map<std::string, std::string> model_hash;  // model file -> content hash
    auto content_hash = [&](const std::string& file) {
        auto it = model_hash.find(file);
        if (it != model_hash.end()) return it->second;
        std::ifstream in(file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return model_hash[file] = fnv1a_hex(ss.str());
    };
    std::vector<Point> points;
    points.reserve(total);
    std::vector<std::size_t> pick(s.groups.size(), 0);
    for (std::size_t index = 0; index < total; ++index) {
        // Row-major: the last group moves fastest.
        std::size_t rest = index;
        for (std::size_t g = s.groups.size(); g-- > 0;) {
            const std::size_t n = s.axes[s.groups[g][0]].values.size();
            pick[g] = rest % n;
            rest /= n;
        }
        Point p;
        p.index = index;
        std::string model = s.model, kind = s.generate_kind, network = s.network,
                    placement = s.placement, cache = s.cache, seed = s.seed;
        auto gen = s.generate_flags;
        auto apps = s.apps;
        auto ranks = s.ranks;
        auto algorithms = s.algorithms;
        std::vector<std::pair<std::string, std::string>> params;
        std::vector<std::size_t> value_of(s.axes.size());
        for (std::size_t g = 0; g < s.groups.size(); ++g)
            for (std::size_t ai : s.groups[g]) value_of[ai] = pick[g];
        for (std::size_t ai = 0; ai < s.axes.size(); ++ai) {
            const Axis& a = s.axes[ai];
            const nlohmann::json& v = a.values[value_of[ai]];
            p.axes.emplace_back(a.name, v);
            std::vector<std::string> list;
            if (v.is_array())
                for (const auto& e : v) list.push_back(value_text(e));
            else
                list.push_back(value_text(v));
            switch (a.kind) {
                case AxisKind::App: {
                    std::vector<std::string> traces;
                    for (const auto& x : apps)
                        if (x.rfind("trace:", 0) == 0) traces.push_back(x);
                    apps = list;
                    apps.insert(apps.end(), traces.begin(), traces.end());
                    break;
                }
                case AxisKind::Trace: {
                    std::erase_if(apps,
                                  [](const std::string& x) { return x.rfind("trace:", 0) == 0; });
                    apps.push_back("trace:" + list[0]);
                    break;
                }
                case AxisKind::AppParam:
                    params.emplace_back(a.param, list[0]);
                    break;
                case AxisKind::Model:
                    model = list[0];
                    break;
                case AxisKind::Topology:
                    kind = list[0];
                    break;
                case AxisKind::Generator: {
                    bool set = false;
                    for (auto& [f, val] : gen)
                        if (f == a.param) val = list[0], set = true;
                    if (!set) gen.emplace_back(a.param, list[0]);
                    break;
                }
                case AxisKind::Algorithm:
                    for (const auto& x : list) set_algorithm(algorithms, x);
                    break;
                case AxisKind::Network:
                    network = list[0];
                    break;
                case AxisKind::Ranks:
                    ranks = list;
                    break;
                case AxisKind::Placement:
                    placement = list[0];
                    break;
                case AxisKind::Cache:
                    cache = list[0];
                    break;
                case AxisKind::Seed:
                    seed = list[0];
                    break;
            }
        }
        for (auto& app : apps)
            if (app.rfind("trace:", 0) != 0)
                for (const auto& [k, val] : params) app = set_param(app, k, val);
        std::string model_arg;
        std::string identity = "clustersim-sweep-1";
        if (!kind.empty()) {
            p.generate_args = {"generate", kind};
            for (const auto& [f, val] : gen) {
                p.generate_args.push_back("--" + f);
                p.generate_args.push_back(val);
            }
            std::string key;
            for (const auto& x : p.generate_args) key += x + '\0';
            p.model_key = fnv1a_hex(key);
            model_arg = "models/" + p.model_key + ".xml";
        } else {
            model_arg = model;
            identity += '\0' + content_hash(model);
        }
        p.run_args = {"run", model_arg};
        for (const auto& app : apps) {
            p.run_args.push_back("--app");
            p.run_args.push_back(app);
        }
        for (const auto& r : ranks) {
            p.run_args.push_back("--ranks");
            p.run_args.push_back(r);
        }
        if (!placement.empty()) p.run_args.insert(p.run_args.end(), {"--placement", placement});
        for (const auto& x : algorithms) p.run_args.insert(p.run_args.end(), {"--algorithm", x});
        if (!network.empty()) p.run_args.insert(p.run_args.end(), {"--network", network});
        if (!cache.empty()) p.run_args.insert(p.run_args.end(), {"--cache", cache});
        if (!seed.empty()) p.run_args.insert(p.run_args.end(), {"--seed", seed});
        if (s.oversubscribe) p.run_args.push_back("--oversubscribe");
        p.run_args.insert(p.run_args.end(), s.flags.begin(), s.flags.end());
        p.run_args.push_back("--json");
        for (const auto& x : p.run_args) identity += '\0' + x;
        p.hash = fnv1a_hex(identity);
        // Cost estimate: ranks x iterations x (1 + size / 64 KiB), summed over the apps
        // (events grow with each; only an order for handing out points, never a result).
        double cost = 0;
        std::size_t builtin = 0;
        for (const auto& app : apps) {
            if (app.rfind("trace:", 0) == 0) {
                std::error_code ec;
                const auto bytes = fs::file_size(app.substr(6), ec);
                cost += ec ? 1.0 : 1.0 + static_cast<double>(bytes) / 1024.0;
                continue;
            }
            double r = 2, it = 1, size = 0;
            try {
                if (builtin < ranks.size()) r = static_cast<double>(parse_count(ranks[builtin]));
                if (auto t = param_of(app, "iterations"); !t.empty())
                    it = static_cast<double>(parse_count(t));
                if (auto t = param_of(app, "size"); !t.empty())
                    size = static_cast<double>(parse_size(t));
            } catch (const UnitError&) {
                // A bad parameter: the point will fail fast; cost stays small.
            }
            ++builtin;
            cost += r * it * (1.0 + size / 65536.0);
        }
        p.cost = cost;
        points.push_back(std::move(p));
    }
    return points;
}

}  // namespace clustersim::sweep
