// Saved measurements: a `Measured` as JSON (--save-measured) and back (--from), so that the
// derivation and the writers can be rerun on a measurement without MPI. Doubles are written
// in the shortest form that reads back to the same bits (nlohmann's), non-finite ones as the
// strings "inf", "-inf" and "nan"; so a model derived from the file is byte for byte the one
// the measuring run wrote.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/json_depth.hpp"
#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "clustersim-calibrate measurements";
// Version 2 (issue 23) adds "barrier" (optional); version 1 files read as without it.
// Version 3 (issue 23) adds "stream" to every size of a measured class (the time per call of
// a stream of blocking sends); older files read as without it. A size entry's "concurrent"
// (issue 23, optional in every version) is the group of kConcurrent messages; files without
// it read as not measured. "peer_setup" (issue 23, optional in every version: the class of
// ranks 0 and 1 and their kSetupRoundTrips round trips) is the lazy peer set-up; files
// without it read as not measured. "fresh_send" (issue 23, optional in every version: the
// class measured and per size the untouched, written and write Stats) is the fresh send
// buffers' measurement (FreshResult); files without it read as not measured. "cold_send"
// (issue 23, optional in every version: the class measured, the core's cache bytes, the
// eviction's Stats and per size the fresh and cold Stats) is the cold fresh sends'
// measurement (ColdResult); files without it read as not measured. "first_use" (issue 23,
// optional in every version: four times in seconds) is FirstUse; files without it read as
// not measured. The I/O's "sync_apart" (issue 23, optional in every version: Stats in
// seconds) is IoMeasured::sync_apart; files without it read as not measured.
constexpr int kVersion = 3;

json num(double v) {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

json stats(const Stats& s) {
    return {{"value", num(s.value)},     {"median_all", num(s.median_all)},
            {"min", num(s.min)},         {"p10", num(s.p10)},
            {"p90", num(s.p90)},         {"max", num(s.max)},
            {"samples", num(s.samples)}, {"passes", num(s.passes)}};
}

json pair(const Pair& p) {
    return {{"present", p.present},
            {"a", p.a},
            {"b", p.b},
            {"shared_cpu", p.shared_cpu},
            {"absent", p.absent}};
}

json eager(const Eager& e) {
    return {{"bytes", e.bytes}, {"at_least", e.at_least}, {"probes", e.probes}};
}

json rates(const std::vector<std::pair<std::uint64_t, double>>& v) {
    json a = json::array();
    for (const auto& [bytes, rate] : v) a.push_back({bytes, num(rate)});
    return a;
}

// A field's reader: names the file and the field's path in every error.
class Reader {
  public:
    Reader(const json& j, std::string path, const std::string& file)
        : j_(j), path_(std::move(path)), file_(file) {}

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw BadMeasured(file_ + ": field '" + field + "': " + what);
    }
    std::string at_path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
    const json& get(const char* key) const {
        if (!j_.is_object()) fail(path_, "expected an object");
        const auto it = j_.find(key);
        if (it == j_.end()) fail(at_path(key), "missing");
        return *it;
    }
    Reader obj(const char* key) const {
        const json& v = get(key);
        if (!v.is_object()) fail(at_path(key), "expected an object");
        return Reader(v, at_path(key), file_);
    }
    std::vector<Reader> arr(const char* key) const {
        const json& v = get(key);
        if (!v.is_array()) fail(at_path(key), "expected an array");
        std::vector<Reader> out;
        for (std::size_t i = 0; i < v.size(); ++i)
            out.emplace_back(v[i], at_path(key) + "[" + std::to_string(i) + "]", file_);
        return out;
    }
    double number(const char* key) const { return as_number(get(key), at_path(key)); }
    double as_number(const json& v, const std::string& field) const {
        if (v.is_number()) return v.get<double>();
        if (v == "inf") return std::numeric_limits<double>::infinity();
        if (v == "-inf") return -std::numeric_limits<double>::infinity();
        if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
        fail(field, "expected a number");
    }
    std::uint64_t u64(const char* key) const {
        const json& v = get(key);
        if (!v.is_number_unsigned()) fail(at_path(key), "expected a whole number >= 0");
        return v.get<std::uint64_t>();
    }
    int integer(const char* key, long long lo, long long hi) const {
        const json& v = get(key);
        if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
            fail(at_path(key), "expected a whole number from " + std::to_string(lo) + " to " +
                                   std::to_string(hi));
        return static_cast<int>(v.get<long long>());
    }
    bool boolean(const char* key) const {
        const json& v = get(key);
        if (!v.is_boolean()) fail(at_path(key), "expected true or false");
        return v.get<bool>();
    }
    std::string str(const char* key, std::size_t max = 4096) const {
        const json& v = get(key);
        if (!v.is_string()) fail(at_path(key), "expected a string");
        std::string s = v.get<std::string>();
        if (s.size() > max) fail(at_path(key), "longer than " + std::to_string(max) + " bytes");
        return s;
    }
    const json& raw() const { return j_; }
    const std::string& path() const { return path_; }

  private:
    const json& j_;
    std::string path_;
    const std::string& file_;
};

constexpr int kIntMax = std::numeric_limits<int>::max();

Stats read_stats(const Reader& r) {
    return Stats{r.number("value"),   r.number("median_all"), r.number("min"),
                 r.number("p10"),     r.number("p90"),        r.number("max"),
                 r.number("samples"), r.number("passes")};
}

// A measured time in seconds: its figures at most kMaxSeconds (a finite one beyond that is no
// measurement of this tool's, and would overflow the model's picoseconds when written).
constexpr double kMaxSeconds = 1e6;
Stats read_time(const Reader& r) {
    const Stats s = read_stats(r);
    const std::pair<const char*, double> figures[] = {
        {"value", s.value}, {"median_all", s.median_all},
        {"min", s.min},     {"p10", s.p10},
        {"p90", s.p90},     {"max", s.max}};
    for (const auto& [key, v] : figures)
        if (std::isfinite(v) && std::abs(v) > kMaxSeconds)
            r.fail(r.at_path(key), "expected a time of at most 1e6 s");
    return s;
}

Pair read_pair(const Reader& r, int world) {
    Pair p;
    p.present = r.boolean("present");
    p.a = r.integer("a", p.present ? 0 : -1, world - 1);
    p.b = r.integer("b", p.present ? 0 : -1, world - 1);
    p.shared_cpu = r.boolean("shared_cpu");
    p.absent = r.str("absent");
    return p;
}

Eager read_eager(const Reader& r) {
    return Eager{r.u64("bytes"), r.boolean("at_least"), r.integer("probes", 0, kIntMax)};
}

std::vector<std::pair<std::uint64_t, double>> read_rates(const Reader& r, const char* key) {
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const Reader& e : r.arr(key)) {
        const json& v = e.raw();
        if (!v.is_array() || v.size() != 2 || !v[0].is_number_unsigned())
            e.fail(e.path(), "expected [bytes, bytes per second]");
        out.emplace_back(v[0].get<std::uint64_t>(), e.as_number(v[1], e.path() + "[1]"));
    }
    return out;
}

// "collective_curves" (issue 23; optional: files saved before have none, and no curve in the
// model): [{"operation": "allreduce", "points": [{"bytes": 1024, "time": {stats}}, ...]}, ...].
json coll_curves_json(const Measured& m) {
    json a = json::array();
    for (const CollCurveMeasured& c : m.coll_curves) {
        json points = json::array();
        for (const auto& [bytes, s] : c.points)
            points.push_back({{"bytes", bytes}, {"time", stats(s)}});
        a.push_back({{"operation", c.operation}, {"points", points}});
    }
    return a;
}

void read_coll_curves(const Reader& r, Measured& m) {
    for (const Reader& x : r.arr("collective_curves")) {
        CollCurveMeasured c;
        c.operation = x.str("operation");
        if (std::find(kCurveOps.begin(), kCurveOps.end(), c.operation) == kCurveOps.end())
            x.fail(x.at_path("operation"), "expected barrier, bcast, reduce or allreduce");
        for (const Reader& p : x.arr("points")) {
            const std::uint64_t bytes = p.u64("bytes");
            if (!c.points.empty() && bytes <= c.points.back().first)
                p.fail(p.at_path("bytes"), "expected sizes in increasing order");
            const Stats s = read_time(p.obj("time"));
            if (!(s.value >= 0) || !std::isfinite(s.value))
                p.fail(p.at_path("time") + ".value", "expected a finite time >= 0");
            c.points.emplace_back(bytes, s);
        }
        m.coll_curves.push_back(std::move(c));
    }
}

// Fresh send buffers (FreshResult) as JSON, and back.
json fresh_json(const Measured& m) {
    json sizes = json::array();
    for (const FreshResult& f : m.fresh)
        sizes.push_back({{"bytes", f.bytes},
                         {"untouched", stats(f.untouched)},
                         {"fresh", stats(f.fresh)},
                         {"write", stats(f.write)}});
    return {{"class", m.fresh_class}, {"sizes", sizes}};
}

void read_fresh(const Reader& r, Measured& m) {
    const Reader f = r.obj("fresh_send");
    m.fresh_class = f.integer("class", 0, kClasses - 1);
    if (!m.classes[static_cast<std::size_t>(m.fresh_class)].pair.present)
        f.fail(f.at_path("class"), "expected a measured class");
    for (const Reader& x : f.arr("sizes")) {
        FreshResult one;
        one.bytes = x.u64("bytes");
        one.untouched = read_time(x.obj("untouched"));
        one.fresh = read_time(x.obj("fresh"));
        one.write = read_time(x.obj("write"));
        if (!m.fresh.empty() && one.bytes <= m.fresh.back().bytes)
            x.fail(x.at_path("bytes"), "expected sizes in increasing order");
        m.fresh.push_back(one);
    }
}

// Cold fresh sends (ColdResult) as JSON, and back.
json cold_json(const Measured& m) {
    json sizes = json::array();
    for (const ColdResult& c : m.cold)
        sizes.push_back({{"bytes", c.bytes}, {"fresh", stats(c.fresh)}, {"cold", stats(c.cold)}});
    return {{"class", m.cold_class},
            {"cache_bytes", m.cold_cache_bytes},
            {"evict", stats(m.cold_evict)},
            {"sizes", sizes}};
}

void read_cold(const Reader& r, Measured& m) {
    const Reader c = r.obj("cold_send");
    m.cold_class = c.integer("class", 0, kClasses - 1);
    if (!m.classes[static_cast<std::size_t>(m.cold_class)].pair.present)
        c.fail(c.at_path("class"), "expected a measured class");
    m.cold_cache_bytes = c.u64("cache_bytes");
    if (m.cold_cache_bytes == 0) c.fail(c.at_path("cache_bytes"), "expected a size > 0");
    m.cold_evict = read_time(c.obj("evict"));
    if (!(m.cold_evict.value > 0) || !std::isfinite(m.cold_evict.value))
        c.fail(c.at_path("evict") + ".value", "expected a finite time > 0");
    for (const Reader& x : c.arr("sizes")) {
        ColdResult one;
        one.bytes = x.u64("bytes");
        one.fresh = read_time(x.obj("fresh"));
        one.cold = read_time(x.obj("cold"));
        if (!m.cold.empty() && one.bytes <= m.cold.back().bytes)
            x.fail(x.at_path("bytes"), "expected sizes in increasing order");
        m.cold.push_back(one);
    }
}

}  // namespace

std::string measured_to_json(const Measured& m) {
    json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["command"] = m.command;
    j["date"] = m.date;
    j["mpi_library"] = m.mpi_library;
    j["world"] = m.world;
    j["passes"] = m.passes;
    json ranks = json::array();
    for (const RankInfo& r : m.ranks)
        ranks.push_back(
            {{"host", r.host},
             {"cpu_model", r.cpu_model},
             {"cpu", r.cpu},
             {"socket", r.socket},
             {"package", r.package},
             {"bound_cpus", r.bound_cpus},
             {"host_cpus", r.host_cpus},
             {"cores", std::vector<int>(r.cores, r.cores + std::clamp(r.sockets, 0, kMaxSockets))},
             {"topology_known", r.topology_known},
             {"memory", r.memory},
             {"load", num(r.load)}});
    j["ranks"] = ranks;
    json hosts = json::array();
    for (const Host& h : m.hosts)
        hosts.push_back({{"name", h.name},
                         {"cores", h.cores},
                         {"cpus", h.cpus},
                         {"memory", h.memory},
                         {"topology_known", h.topology_known},
                         {"cpu_model", h.cpu_model},
                         {"load", num(h.load)},
                         {"ranks", h.ranks}});
    j["hosts"] = hosts;
    json classes = json::array();
    for (const ClassResult& c : m.classes) {
        json sizes = json::array();
        for (const SizeResult& s : c.sizes) {
            json size = {{"bytes", s.bytes},
                         {"pingpong", stats(s.pingpong)},
                         {"sendrecv", stats(s.sendrecv)}};
            if (s.concurrent.samples > 0) size["concurrent"] = stats(s.concurrent);
            if (c.stream_measured) size["stream"] = stats(s.stream);
            sizes.push_back(size);
        }
        classes.push_back({{"pair", pair(c.pair)},
                           {"latency", stats(c.latency)},
                           {"sizes", sizes},
                           {"eager", eager(c.eager)},
                           {"eager_quiet", eager(c.eager_quiet)}});
    }
    j["classes"] = classes;
    json cpu = json::array();
    for (const Stats& s : m.cpu) cpu.push_back(stats(s));
    j["cpu"] = cpu;
    j["cpu_instructions"] = m.cpu_instructions;
    const IoMeasured& io = m.io;
    j["io"] = {{"measured", io.measured},
               {"error", io.error},
               {"dir", io.dir},
               {"fs", io.fs},
               {"size", io.size},
               {"transfer", io.transfer},
               {"open", stats(io.open)},
               {"write_cached", stats(io.write_cached)},
               {"close", stats(io.close)},
               {"write_small", stats(io.write_small)},
               {"sync_small", stats(io.sync_small)},
               {"synced_small", stats(io.synced_small)},
               {"write_synced", stats(io.write_synced)},
               {"sync", stats(io.sync)},
               {"synced", stats(io.synced)},
               {"small_write", stats(io.small_write)},
               {"world", io.world},
               {"open_world", stats(io.open_world)},
               {"close_world", stats(io.close_world)},
               {"late_close", stats(io.late_close)},
               {"sync_apart", stats(io.sync_apart)},
               {"dirty",
                {{"mem_total", io.dirty.mem_total},
                 {"dirtyable", io.dirty.dirtyable},
                 {"background", io.dirty.background},
                 {"limit", io.dirty.limit},
                 {"setpoint", io.dirty.setpoint},
                 {"rule", io.dirty.rule}}}};
    j["local"] = {{"copy", rates(m.local.copy)}, {"reduce", rates(m.local.reduce)}};
    j["overhead_class"] = m.overhead_class;
    j["overhead_bursts"] = m.overhead_bursts;
    json ov = json::array();
    for (const OverheadResult& o : m.overheads)
        ov.push_back({{"bytes", o.bytes},
                      {"send", stats(o.send)},
                      {"post", stats(o.post)},
                      {"recv", stats(o.recv)}});
    j["overheads"] = ov;
    j["comm_dup"] = num(m.comm_dup);
    j["agreement"] = num(m.agreement);
    if (m.comm_free > 0) j["comm_free"] = num(m.comm_free);
    if (m.barrier_measured) j["barrier"] = stats(m.barrier);
    if (!m.coll_curves.empty()) j["collective_curves"] = coll_curves_json(m);
    if (!m.setup_round_trips.empty()) {
        json rtt = json::array();
        for (const double t : m.setup_round_trips) rtt.push_back(num(t));
        j["peer_setup"] = {{"class", m.setup_class}, {"round_trips", rtt}};
    }
    if (!m.fresh.empty()) j["fresh_send"] = fresh_json(m);
    if (!m.cold.empty()) j["cold_send"] = cold_json(m);
    if (m.first_use.measured)
        j["first_use"] = {{"cart_first", num(m.first_use.cart_first)},
                          {"cart_second", num(m.first_use.cart_second)},
                          {"open_first", num(m.first_use.open_first)},
                          {"open_second", num(m.first_use.open_second)}};
    return j.dump(1) + "\n";
}

Measured measured_from_json(std::string_view text, const std::string& file) {
    json j;
    try {
        j = clustersim::sweep::parse_json_input(text, file);
    } catch (const clustersim::InputError& e) {  // nested too deep
        throw BadMeasured(e.what());
    } catch (const json::exception& e) {  // syntax, or a number out of range
        std::string what = e.what();
        for (char& c : what)
            if (static_cast<unsigned char>(c) < 0x20) c = ' ';
        throw BadMeasured(file + ": not JSON: " + what);
    }
    const Reader r(j, "", file);
    if (r.str("format") != kFormat)
        r.fail("format",
               std::string("expected \"") + kFormat + "\" (a file --save-measured wrote)");
    const int version = r.integer("version", 0, kIntMax);
    if (version < 1 || version > kVersion)
        r.fail("version", "expected 1 to " + std::to_string(kVersion));
    Measured m;
    m.command = r.str("command");
    m.date = r.str("date");
    m.mpi_library = r.str("mpi_library");
    m.world = r.integer("world", 1, 1 << 24);
    m.passes = r.integer("passes", 1, kIntMax);
    const std::vector<Reader> ranks = r.arr("ranks");
    if (ranks.size() != static_cast<std::size_t>(m.world))
        r.fail("ranks", "expected one entry per rank (world " + std::to_string(m.world) + ")");
    for (const Reader& x : ranks) {
        RankInfo i{};
        const std::string host = x.str("host", kHostNameMax);
        const std::string model = x.str("cpu_model", kCpuModelMax - 1);
        host.copy(i.host, host.size());
        model.copy(i.cpu_model, model.size());
        i.cpu = x.integer("cpu", -1, kIntMax);
        i.socket = x.integer("socket", 0, kMaxSockets - 1);
        i.package = x.integer("package", -1, kIntMax);
        i.bound_cpus = x.integer("bound_cpus", -1, kIntMax);
        i.host_cpus = x.integer("host_cpus", 0, kIntMax);
        const std::vector<Reader> cores = x.arr("cores");
        if (cores.size() > static_cast<std::size_t>(kMaxSockets))
            x.fail(x.at_path("cores"), "more than " + std::to_string(kMaxSockets) + " sockets");
        i.sockets = static_cast<std::int32_t>(cores.size());
        for (std::size_t k = 0; k < cores.size(); ++k) {
            const json& v = cores[k].raw();
            if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > kIntMax)
                cores[k].fail(cores[k].path(), "expected a whole number >= 0");
            i.cores[k] = static_cast<std::int32_t>(v.get<long long>());
        }
        i.topology_known = x.integer("topology_known", 0, 1);
        i.memory = x.u64("memory");
        i.load = x.number("load");
        m.ranks.push_back(i);
    }
    for (const Reader& x : r.arr("hosts")) {
        Host h;
        h.name = x.str("name", kHostNameMax);
        for (const Reader& c : x.arr("cores")) {
            if (!c.raw().is_number_integer() || c.raw().get<long long>() < 0 ||
                c.raw().get<long long>() > kIntMax)
                c.fail(c.path(), "expected a whole number >= 0");
            h.cores.push_back(static_cast<int>(c.raw().get<long long>()));
        }
        if (h.cores.empty() || h.cores.size() > static_cast<std::size_t>(kMaxSockets))
            x.fail(x.at_path("cores"), "expected 1 to " + std::to_string(kMaxSockets) + " sockets");
        h.cpus = x.integer("cpus", 0, kIntMax);
        h.memory = x.u64("memory");
        h.topology_known = x.boolean("topology_known");
        h.cpu_model = x.str("cpu_model", kCpuModelMax - 1);
        h.load = x.number("load");
        for (const Reader& k : x.arr("ranks")) {
            const json& v = k.raw();
            if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= m.world)
                k.fail(k.path(), "expected a rank from 0 to " + std::to_string(m.world - 1));
            h.ranks.push_back(static_cast<int>(v.get<long long>()));
        }
        if (h.ranks.empty()) x.fail(x.at_path("ranks"), "expected at least one rank");
        m.hosts.push_back(h);
    }
    if (m.hosts.empty()) r.fail("hosts", "expected at least one host");
    const std::vector<Reader> classes = r.arr("classes");
    if (classes.size() != static_cast<std::size_t>(kClasses))
        r.fail("classes", "expected " + std::to_string(kClasses) +
                              " entries (intra-socket, inter-socket, inter-node)");
    for (std::size_t c = 0; c < classes.size(); ++c) {
        const Reader& x = classes[c];
        ClassResult& cr = m.classes[c];
        cr.pair = read_pair(x.obj("pair"), m.world);
        cr.latency = read_time(x.obj("latency"));
        // Version 3: a class has a "stream" at every size or at none.
        std::size_t streams = 0;
        const std::vector<Reader> sizes = x.arr("sizes");
        for (const Reader& s : sizes) {
            SizeResult sr;
            sr.bytes = s.u64("bytes");
            sr.pingpong = read_time(s.obj("pingpong"));
            sr.sendrecv = read_time(s.obj("sendrecv"));
            if (s.raw().contains("concurrent")) {
                sr.concurrent = read_time(s.obj("concurrent"));
                if (!(sr.concurrent.samples > 0) || !(sr.concurrent.value > 0) ||
                    !std::isfinite(sr.concurrent.value))
                    s.fail(s.at_path("concurrent"),
                           "expected a finite time > 0 from at least one sample");
            }
            if (version >= 3 && s.raw().contains("stream")) {
                sr.stream = read_time(s.obj("stream"));
                if (!(sr.stream.value >= 0) || !std::isfinite(sr.stream.value))
                    s.fail(s.at_path("stream"), "expected a finite time >= 0 as its value");
                ++streams;
            }
            if (!cr.sizes.empty() && sr.bytes <= cr.sizes.back().bytes)
                s.fail(s.at_path("bytes"), "expected sizes in increasing order");
            cr.sizes.push_back(sr);
        }
        if (cr.pair.present && (cr.sizes.empty() || cr.sizes.back().bytes == 0))
            x.fail(x.at_path("sizes"), "expected a size above 0 B for a measured class");
        if (streams != 0 && streams != sizes.size())
            x.fail(x.at_path("sizes"), "expected a \"stream\" at every size or at none");
        cr.stream_measured = streams != 0;
        cr.eager = read_eager(x.obj("eager"));
        cr.eager_quiet = read_eager(x.obj("eager_quiet"));
    }
    for (const Reader& x : r.arr("cpu")) m.cpu.push_back(read_stats(x));
    if (m.cpu.size() != m.ranks.size())
        r.fail("cpu", "expected one entry per rank (world " + std::to_string(m.world) + ")");
    m.cpu_instructions = r.u64("cpu_instructions");
    {
        const Reader x = r.obj("io");
        IoMeasured& io = m.io;
        io.measured = x.boolean("measured");
        io.error = x.str("error");
        io.dir = x.str("dir");
        io.fs = x.str("fs");
        io.size = x.u64("size");
        io.transfer = x.u64("transfer");
        io.open = read_time(x.obj("open"));
        io.write_cached = read_time(x.obj("write_cached"));
        io.close = read_time(x.obj("close"));
        io.write_small = read_time(x.obj("write_small"));
        io.sync_small = read_time(x.obj("sync_small"));
        io.synced_small = read_time(x.obj("synced_small"));
        io.write_synced = read_time(x.obj("write_synced"));
        io.sync = read_time(x.obj("sync"));
        io.synced = read_time(x.obj("synced"));
        io.small_write = read_time(x.obj("small_write"));
        io.world = x.integer("world", 0, m.world);
        io.open_world = read_time(x.obj("open_world"));
        io.close_world = read_time(x.obj("close_world"));
        io.late_close = read_time(x.obj("late_close"));
        if (x.raw().contains("sync_apart")) io.sync_apart = read_time(x.obj("sync_apart"));
        const Reader d = x.obj("dirty");
        io.dirty.mem_total = d.u64("mem_total");
        io.dirty.dirtyable = d.u64("dirtyable");
        io.dirty.background = d.u64("background");
        io.dirty.limit = d.u64("limit");
        io.dirty.setpoint = d.u64("setpoint");
        io.dirty.rule = d.str("rule");
    }
    {
        const Reader x = r.obj("local");
        m.local.copy = read_rates(x, "copy");
        m.local.reduce = read_rates(x, "reduce");
        if (m.local.copy.size() != m.local.reduce.size())
            x.fail(x.at_path("reduce"), "expected as many sizes as copy");
    }
    m.overhead_class = r.integer("overhead_class", -1, kClasses - 1);
    if (m.overhead_class >= 0 &&
        !m.classes[static_cast<std::size_t>(m.overhead_class)].pair.present)
        r.fail("overhead_class", "expected a measured class or -1");
    m.overhead_bursts = r.integer("overhead_bursts", 0, kIntMax);
    for (const Reader& x : r.arr("overheads")) {
        OverheadResult o;
        o.bytes = x.u64("bytes");
        o.send = read_time(x.obj("send"));
        o.post = read_time(x.obj("post"));
        o.recv = read_time(x.obj("recv"));
        if (!m.overheads.empty() && o.bytes <= m.overheads.back().bytes)
            x.fail(x.at_path("bytes"), "expected sizes in increasing order");
        m.overheads.push_back(o);
    }
    m.comm_dup = r.number("comm_dup");
    m.agreement = r.number("agreement");
    // Files saved before MPI_Comm_free was timed have no "comm_free": none in the model.
    if (r.raw().contains("comm_free")) {
        m.comm_free = r.number("comm_free");
        if (!(m.comm_free >= 0) || !std::isfinite(m.comm_free))
            r.fail("comm_free", "expected a finite time >= 0");
    }
    // Version 1 files, saved before the barrier was measured, have no "barrier": none in the
    // model.
    if (version >= 2 && r.raw().contains("barrier")) {
        m.barrier = read_time(r.obj("barrier"));
        if (!(m.barrier.value >= 0) || !std::isfinite(m.barrier.value))
            r.fail("barrier.value", "expected a finite time >= 0");
        m.barrier_measured = true;
    }
    if (r.raw().contains("collective_curves")) read_coll_curves(r, m);
    if (r.raw().contains("fresh_send")) read_fresh(r, m);
    if (r.raw().contains("cold_send")) read_cold(r, m);
    if (r.raw().contains("first_use")) {
        const Reader f = r.obj("first_use");
        FirstUse& u = m.first_use;
        for (const auto& [key, v] : {std::pair<const char*, double*>{"cart_first", &u.cart_first},
                                     {"cart_second", &u.cart_second},
                                     {"open_first", &u.open_first},
                                     {"open_second", &u.open_second}}) {
            *v = f.number(key);
            if (!(*v >= 0) || !std::isfinite(*v))
                f.fail(f.at_path(key), "expected a finite time >= 0");
        }
        u.measured = true;
    }
    if (r.raw().contains("peer_setup")) {
        const Reader p = r.obj("peer_setup");
        m.setup_class = p.integer("class", 0, kClasses - 1);
        const std::vector<Reader> rtt = p.arr("round_trips");
        if (rtt.size() != static_cast<std::size_t>(kSetupRoundTrips))
            p.fail(p.at_path("round_trips"),
                   "expected " + std::to_string(kSetupRoundTrips) + " round trips");
        for (const Reader& t : rtt) {
            const double v = t.as_number(t.raw(), t.path());
            if (!(v >= 0) || !std::isfinite(v)) t.fail(t.path(), "expected a finite time >= 0");
            m.setup_round_trips.push_back(v);
        }
    }
    return m;
}

}  // namespace clustersim::calibrate
