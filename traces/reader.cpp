// The trace reader registry: formats by name (--format) or by content (sniff).
#include "traces/reader.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"

namespace clustersim::traces {

namespace {

// The first bytes of a file, enough for every reader's sniff().
constexpr std::size_t kHeadBytes = 4096;

std::string head_of(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError(path, 0, "cannot open: no such file or directory");
    if (std::filesystem::is_directory(path, ec)) return {};
    refuse_non_file(path);
    if (!std::ifstream(path, std::ios::binary))
        throw InputError(path, 0, "cannot open for reading");
    return read_head(path);
}

}  // namespace

std::string read_head(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(kHeadBytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

void ReaderRegistry::add(std::unique_ptr<TraceReader> reader) {
    std::string name = reader->name();
    std::string doc = reader->description();
    readers_.add(ReaderEntry{std::move(name), std::move(doc), {}, std::move(reader)});
}

const TraceReader* ReaderRegistry::find(const std::string& name) const {
    const ReaderEntry* e = readers_.find(name);
    return e != nullptr ? e->reader.get() : nullptr;
}

const TraceReader& ReaderRegistry::detect(const std::string& path) const {
    const std::string head = head_of(path);
    for (const ReaderEntry& e : readers_.entries())
        if (e.reader->sniff(path, head)) return *find(e.name);  // find's pointer stays valid
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(
            path, 0,
            fmt::format("is a directory that is not a trace project clustersim can read "
                        "(no HDTrace project, OTF2 archive or DUMPI .meta in it); "
                        "expected a trace file, an index or such a folder, or name "
                        "its format with --format ({})",
                        names()));
    throw InputError(path, 0,
                     fmt::format("not a trace clustersim can read; formats: {} (pick one with "
                                 "--format)",
                                 names()));
}

std::string ReaderRegistry::names() const {
    std::string s;
    for (const std::string& n : readers_.keys()) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

void register_builtin_readers(ReaderRegistry& registry) {
    registry.add(make_native_binary_reader());
    registry.add(make_native_text_reader());
    registry.add(make_simgrid_ti_reader());
    registry.add(make_hdtrace_reader());
    registry.add(make_otf2_reader());
    registry.add(make_dumpi_reader());
    registry.add(make_goal_reader());  // names the format only (traces/goal_source.cpp)
}

ReaderRegistry& trace_readers() {
    static ReaderRegistry registry;
    static const bool filled = (register_builtin_readers(registry), true);
    (void)filled;
    return registry;
}

namespace {
const TraceReader* reader_named(const ReaderRegistry& registry, const std::string& format) {
    const TraceReader* reader = registry.find(format);
    if (reader == nullptr)
        throw InputError("--format", 0,
                         fmt::format("unknown trace format '{}'{}; valid: auto, {}", format,
                                     did_you_mean(format, split_names("auto, " + registry.names())),
                                     registry.names()));
    return reader;
}
}  // namespace

std::string unmodeled_line(const ReadReport& report, const std::string& path) {
    if (report.unmodeled.empty()) return {};
    std::uint64_t total = 0;
    std::string list;
    for (const auto& [name, n] : report.unmodeled) {
        total += n;
        list += fmt::format("{}{} {}", list.empty() ? "" : ", ", name, n);
    }
    return fmt::format(
        "clustersim: {} MPI call(s) of {} not modeled, replayed as their recorded duration: "
        "{}\n",
        total, path, list);
}

std::string trace_warnings(const Trace& trace, const ReadReport& report, const std::string& path) {
    std::string out;
    for (const std::string& w : report.warnings)
        out += fmt::format("clustersim: warning: {}: {}\n", path, w);
    // Any MPI call the simulator models, on any rank: the first ones usually are.
    bool modelled = false;
    for (std::uint32_t r = 0; r < trace.ranks() && !modelled; ++r) {
        Trace::Cursor c = trace.cursor(r);
        for (Record rec; !modelled && c.next(rec);)
            modelled = rec.kind != mpi::OpKind::Compute && rec.kind != mpi::OpKind::Unmodeled;
    }
    if (!modelled && trace.total_events() > 0)
        out += fmt::format(
            "clustersim: warning: {}: no MPI call the simulator models ({} record{} of compute "
            "and unmodeled calls): the run replays their recorded durations and predicts "
            "nothing\n",
            path, trace.total_events(), trace.total_events() == 1 ? "" : "s");
    if (report.finalize_always || !report.finalized.empty()) {
        std::vector<std::uint32_t> cut;
        for (std::uint32_t r = 0; r < trace.ranks(); ++r)
            if (report.finalized.count(r) == 0) cut.push_back(r);
        if (!cut.empty()) {
            std::string list;
            for (std::size_t i = 0; i < cut.size() && i < 8; ++i)
                list += fmt::format("{}{}", i == 0 ? "" : ", ", cut[i]);
            if (cut.size() > 8) list += fmt::format(" and {} more", cut.size() - 8);
            out += fmt::format(
                "clustersim: warning: {}: {} of {} rank{} end{} before MPI_Finalize (rank{} {}): "
                "the recording was cut; the run replays what was recorded\n",
                path, cut.size(), trace.ranks(), trace.ranks() == 1 ? "" : "s",
                cut.size() == 1 ? "s" : "", cut.size() == 1 ? "" : "s", list);
        }
    }
    return out;
}

void check_trace_format(const std::string& format) {
    if (format == "auto") return;
    (void)reader_named(trace_readers(), format);
}

Trace load_trace(const std::string& path, const std::string& format, const ReadOptions& options,
                 ReadReport& report) {
    const ReaderRegistry& registry = trace_readers();
    const TraceReader* reader =
        format == "auto" ? &registry.detect(path) : reader_named(registry, format);
    Trace t = reader->read(path, options, report);
    std::int64_t idle = 0;
    for (std::uint32_t r = 0; r < t.ranks(); ++r) idle += t.events(r) == 0 ? 1 : 0;
    if (idle > kMaxIdleRanks)
        throw InputError(path, 0,
                         fmt::format("the trace has {} ranks, {} of them without records; at "
                                     "most {} ranks without records (docs/limits.md)",
                                     t.ranks(), idle, kMaxIdleRanks));
    t.format = reader->name();
    if (t.source.empty()) t.source = path;
    return t;
}

}  // namespace clustersim::traces
