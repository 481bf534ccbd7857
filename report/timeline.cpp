#include "report/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/stats.hpp"
#include "simulator/error.hpp"

namespace clustersim::traces {

namespace {

using Text = fmt::memory_buffer;

void put(Text& out, std::string_view s) {
    out.append(s.data(), s.data() + s.size());
}

// Exact decimal microseconds of an integer picosecond count ("1.5", "0.000001", "12").
void put_micros(Text& out, std::int64_t ps) {
    std::uint64_t v = static_cast<std::uint64_t>(ps);
    if (ps < 0) {
        out.push_back('-');
        v = ~v + 1;
    }
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v / 1'000'000);
    std::uint64_t frac = v % 1'000'000;
    if (frac == 0) return;
    char digits[6];
    for (int i = 5; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
    int n = 6;
    while (digits[n - 1] == '0') --n;
    out.push_back('.');
    out.append(digits, digits + n);
}

std::string quote(const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One complete ("X") event; `quoted_name` is a JSON string, `args` a JSON object.
void put_complete(Text& out, int pid, std::int64_t tid, std::int64_t start, std::int64_t end,
                  std::string_view quoted_name, const char* cat, std::string_view args) {
    put(out, R"({"name":)");
    put(out, quoted_name);
    fmt::format_to(std::back_inserter(out),
                   FMT_COMPILE(R"(,"cat":"{}","ph":"X","pid":{},"tid":{},"ts":)"), cat, pid, tid);
    put_micros(out, start);
    put(out, R"(,"dur":)");
    put_micros(out, end - start);
    put(out, R"(,"args":)");
    put(out, args);
    out.push_back('}');
}

struct Event {
    int pid = 0;
    std::int64_t tid = 0;
    std::int64_t start = 0, end = 0;  // ps
    int nested = 0;                   // 1: a wait inside the preceding operation
    std::size_t order = 0;            // creation order: ties stay deterministic
    std::string text;
};

class Builder {
  public:
    void metadata(int pid, std::int64_t tid, const char* name, const std::string& args) {
        meta_.push_back(
            fmt::format(R"({{"name":"{}","ph":"M","pid":{},"tid":{},"ts":0,"args":{}}})", name, pid,
                        tid, args));
    }
    void complete(int pid, std::int64_t tid, std::int64_t start, std::int64_t end, int nested,
                  const std::string& name, const char* cat, std::string_view args) {
        complete_quoted(pid, tid, start, end, nested, quote(name), cat, args);
    }
    // complete() with the name already a JSON string.
    void complete_quoted(int pid, std::int64_t tid, std::int64_t start, std::int64_t end,
                         int nested, std::string_view quoted_name, const char* cat,
                         std::string_view args) {
        Event e;
        e.pid = pid;
        e.tid = tid;
        e.start = start;
        e.end = end;
        e.nested = nested;
        e.order = events_.size();
        Text t;
        put_complete(t, pid, tid, start, end, quoted_name, cat, args);
        e.text = fmt::to_string(t);
        events_.push_back(std::move(e));
    }
    void sort() {
        std::sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
            return std::tie(a.pid, a.tid, a.start, a.nested, a.end, a.order) <
                   std::tie(b.pid, b.tid, b.start, b.nested, b.end, b.order);
        });
    }
    const std::vector<std::string>& meta() const { return meta_; }
    const std::vector<Event>& events() const { return events_; }
    std::string finish(const std::string& other) {
        sort();
        std::string out =
            R"({"displayTimeUnit":"ns","otherData":)" + other + ",\"traceEvents\":[\n";
        bool first = true;
        auto line = [&](const std::string& text) {
            if (!first) out += ",\n";
            first = false;
            out += text;
        };
        for (const auto& m : meta_) line(m);
        for (const auto& e : events_) line(e.text);
        out += "\n]}\n";
        return out;
    }

  private:
    std::vector<std::string> meta_;  // already in (pid, tid) order
    std::vector<Event> events_;
};

const char* category(int kind) {
    if (is_compute_kind(kind)) return "compute";
    if (is_io_kind(kind)) return "io";
    return "mpi";
}

// Process and rank thread metadata; returns the number of rank threads.
std::size_t add_run_header(Builder& b, int pid, const std::string& label, const RunLog& log,
                           std::size_t nranks) {
    b.metadata(pid, 0, "process_name", fmt::format(R"({{"name":{}}})", quote(label)));
    b.metadata(pid, 0, "process_sort_index", fmt::format(R"({{"sort_index":{}}})", pid));
    nranks = std::max(nranks, log.ranks.size());
    for (const auto& e : log.ops)
        if (e.rank >= 0) nranks = std::max(nranks, static_cast<std::size_t>(e.rank) + 1);
    for (std::size_t r = 0; r < nranks; ++r) {
        std::string name;
        if (r < log.ranks.size()) {
            const RankInfo& info = log.ranks[r];
            name = fmt::format("rank {} (app {} rank {}) on {}", r, info.app, info.app_rank,
                               info.node);
        } else {
            name = fmt::format("rank {}", r);
        }
        const auto tid = static_cast<std::int64_t>(r);
        b.metadata(pid, tid, "thread_name", fmt::format(R"({{"name":{}}})", quote(name)));
        b.metadata(pid, tid, "thread_sort_index", fmt::format(R"({{"sort_index":{}}})", tid));
    }
    return nranks;
}

// JSON-quoted operation names by statistics kind, made once per kind (the writers emit
// millions of operations of a handful of kinds).
class QuotedNames {
  public:
    const std::string& of(int kind) {
        if (kind < 0 || kind >= kMaxCached) {
            other_ = quote(mpi::stat_name(kind));
            return other_;
        }
        const auto k = static_cast<std::size_t>(kind);
        if (k >= names_.size()) names_.resize(k + 1);
        if (names_[k].empty()) names_[k] = quote(mpi::stat_name(kind));
        return names_[k];
    }

  private:
    static constexpr int kMaxCached = 4096;
    std::vector<std::string> names_;  // "" until made (a quoted name is never empty)
    std::string other_;
};

// One operation of a rank (in the rank's (start, end) order; `cursor`: where the rank's
// previous operation ended) as its complete event and, if it waited, the nested wait event:
// emit(start, end, nested, quoted name, category, args), the args a JSON object in `args`.
template <class Emit>
void op_events(const mpi::OpEvent& e, Time effective_wait, std::int64_t& cursor, QuotedNames& names,
               Text& args, Emit&& emit) {
    const std::int64_t start = std::max(e.start.ps(), cursor);
    const std::int64_t end = std::max(e.end.ps(), start);
    cursor = end;
    const std::int64_t wait = std::min(effective_wait.ps(), end - start);
    args.clear();
    auto to = std::back_inserter(args);
    fmt::format_to(to, FMT_COMPILE(R"({{"bytes":{})"), e.bytes);
    if (e.peer >= 0) fmt::format_to(to, FMT_COMPILE(R"(,"peer":{})"), e.peer);
    if (is_collective_kind(e.kind) ||
        (e.kind < mpi::kOpKinds && mpi::creates_comm(static_cast<mpi::OpKind>(e.kind))))
        fmt::format_to(to, FMT_COMPILE(R"(,"comm":{},"seq":{})"), e.comm, e.seq);
    if (e.algorithm != nullptr)
        fmt::format_to(to, FMT_COMPILE(R"(,"algorithm":"{}")"), e.algorithm);
    put(args, R"(,"wait_us":)");
    put_micros(args, std::max<std::int64_t>(wait, 0));
    args.push_back('}');
    emit(start, end, 0, std::string_view(names.of(e.kind)), category(e.kind),
         std::string_view(args.data(), args.size()));
    if (wait > 0) emit(start, start + wait, 1, std::string_view(R"("wait")"), "wait", "{}");
}

void add_run_ops(Builder& b, int pid, const RunLog& log, std::size_t nranks) {
    // Operations, per rank in start order. A rank runs one operation at a time; should a
    // producer report overlapping ones, a later one is clipped to start where the earlier
    // ended, so that the thread stays a clean sequence.
    const std::vector<Time> waits = effective_waits(log);
    QuotedNames names;
    Text args;
    std::vector<std::vector<std::size_t>> by_rank(nranks);
    for (std::size_t i = 0; i < log.ops.size(); ++i)
        if (log.ops[i].rank >= 0) by_rank[static_cast<std::size_t>(log.ops[i].rank)].push_back(i);
    for (std::size_t r = 0; r < nranks; ++r) {
        auto& idx = by_rank[r];
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t c) {
            return std::tie(log.ops[a].start, log.ops[a].end) <
                   std::tie(log.ops[c].start, log.ops[c].end);
        });
        std::int64_t cursor = INT64_MIN;
        const auto tid = static_cast<std::int64_t>(r);
        for (std::size_t i : idx)
            op_events(log.ops[i], waits[i], cursor, names, args,
                      [&](std::int64_t start, std::int64_t end, int nested,
                          std::string_view quoted_name, const char* cat, std::string_view a) {
                          b.complete_quoted(pid, tid, start, end, nested, quoted_name, cat, a);
                      });
    }
}

void add_run_hardware(Builder& b, int pid, const RunLog& log, std::size_t nranks) {
    // Hardware: one thread per track (by name); spans that overlap on a track (a link
    // carrying several messages) go to extra lanes "track (2)", "track (3)", ...
    std::map<std::string, std::vector<const HardwareSpan*>> tracks;
    for (const auto& s : log.hardware) tracks[s.track].push_back(&s);
    auto tid = static_cast<std::int64_t>(nranks);
    for (auto& [track, spans] : tracks) {
        std::stable_sort(spans.begin(), spans.end(),
                         [](const HardwareSpan* a, const HardwareSpan* c) {
                             return std::tie(a->start, a->end) < std::tie(c->start, c->end);
                         });
        std::vector<std::int64_t> lane_end;  // per lane: when its last span ended
        std::vector<std::int64_t> lane_tid;
        for (const HardwareSpan* s : spans) {
            const std::int64_t start = s->start.ps();
            const std::int64_t end = std::max(s->end.ps(), start);
            std::size_t lane = 0;
            while (lane < lane_end.size() && lane_end[lane] > start) ++lane;
            if (lane == lane_end.size()) {
                lane_end.push_back(end);
                lane_tid.push_back(tid);
                const std::string name =
                    lane == 0 ? track : fmt::format("{} ({})", track, lane + 1);
                b.metadata(pid, tid, "thread_name", fmt::format(R"({{"name":{}}})", quote(name)));
                b.metadata(pid, tid, "thread_sort_index",
                           fmt::format(R"({{"sort_index":{}}})", tid));
                ++tid;
            }
            lane_end[lane] = end;
            b.complete(pid, lane_tid[lane], start, end, 0, s->what.empty() ? track : s->what,
                       "hardware", fmt::format(R"({{"track":{}}})", quote(track)));
        }
    }
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw InputError(path, 0, "cannot write the timeline");
    out << text;
    out.flush();
    if (!out) throw InputError(path, 0, "cannot write the timeline");
}

nlohmann::json run_info(int pid, const std::string& label, const RunLog& log) {
    return {{"pid", pid},
            {"label", label},
            {"title", log.title},
            {"simulated_us", static_cast<double>(log.simulated.ps()) / 1e6}};
}

}  // namespace

void write_timeline_sorted(const RunLog& header, std::size_t nranks, const OpSource& next,
                           const std::string& path) {
    const std::string label = header.title.empty() ? std::string("run") : header.title;
    constexpr int pid = 1;
    Builder b;  // metadata and hardware spans (the operations go straight to the file)
    nranks = add_run_header(b, pid, label, header, nranks);
    add_run_hardware(b, pid, header, nranks);
    b.sort();
    nlohmann::json other = {{"generator", "clustersim"}, {"runs", nlohmann::json::array()}};
    other["runs"].push_back(run_info(pid, label, header));

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, "cannot write the timeline");
    // The events are made in `text` and written in pieces of about 1 MiB.
    constexpr std::size_t kFlushAt = std::size_t{1} << 20;
    Text text;
    auto flush = [&] {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
    };
    put(text, R"({"displayTimeUnit":"ns","otherData":)");
    put(text, other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    put(text, ",\"traceEvents\":[\n");
    bool first = true;
    auto separate = [&] {
        if (!first) put(text, ",\n");
        first = false;
    };
    for (const auto& m : b.meta()) {
        separate();
        put(text, m);
    }
    mpi::OpEvent e;
    Time wait;
    std::int32_t rank = -1;
    std::int64_t cursor = INT64_MIN;
    QuotedNames names;
    Text args;
    while (next(e, wait)) {
        if (e.rank < 0) continue;
        if (e.rank != rank) {
            rank = e.rank;
            cursor = INT64_MIN;
        }
        const auto tid = static_cast<std::int64_t>(rank);
        op_events(e, wait, cursor, names, args,
                  [&](std::int64_t start, std::int64_t end, int, std::string_view quoted_name,
                      const char* cat, std::string_view a) {
                      separate();
                      put_complete(text, pid, tid, start, end, quoted_name, cat, a);
                  });
        if (text.size() >= kFlushAt) flush();
    }
    for (const auto& h : b.events()) {
        separate();
        put(text, h.text);
        if (text.size() >= kFlushAt) flush();
    }
    put(text, "\n]}\n");
    flush();
    out.flush();
    if (!out) throw InputError(path, 0, "cannot write the timeline");
}

std::string timeline_json(const std::vector<std::pair<std::string, const RunLog*>>& runs) {
    Builder b;
    nlohmann::json other = {{"generator", "clustersim"}, {"runs", nlohmann::json::array()}};
    int pid = 1;
    for (const auto& [label, log] : runs) {
        if (log == nullptr) continue;
        const std::size_t nranks = add_run_header(b, pid, label, *log, 0);
        add_run_ops(b, pid, *log, nranks);
        add_run_hardware(b, pid, *log, nranks);
        other["runs"].push_back(run_info(pid, label, *log));
        ++pid;
    }
    return b.finish(other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void write_timelines(const std::vector<std::pair<std::string, const RunLog*>>& runs,
                     const std::string& path) {
    write_text(path, timeline_json(runs));
}

void write_timeline(const RunLog& log, const std::string& path) {
    write_timelines({{log.title.empty() ? std::string("run") : log.title, &log}}, path);
}

}  // namespace clustersim::traces
