// Schema check of a Chrome trace-event timeline as report/timeline.hpp writes it, for tests
// of hand-made and of real simulator output:
//   - an object with a "traceEvents" array;
//   - every event: ph "X" or "M", name a string, pid/tid integers, ts a number >= 0;
//     "X" events: dur a number >= 0;
//   - metadata ("M") first, then the "X" events sorted by (pid, tid, ts);
//   - per (pid, tid): the events not named "wait" do not overlap (end <= next start, with a
//     tolerance of 1e-6 us), every "wait" lies inside the operation it follows;
//   - every process has a process_name and every thread with events a thread_name.
// Reports at most 20 problems (then their count), so a broken large timeline stays readable.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

namespace clustersim {

inline void expect_valid_timeline(const nlohmann::json& doc) {
    constexpr double kTol = 1e-6;  // microseconds
    std::size_t problems = 0;
    auto fail = [&](std::size_t index, const std::string& what) {
        if (++problems <= 20) ADD_FAILURE() << "timeline event " << index << ": " << what;
    };

    ASSERT_TRUE(doc.is_object()) << "the timeline is not a JSON object";
    ASSERT_TRUE(doc.contains("traceEvents")) << "no traceEvents";
    const nlohmann::json& events = doc["traceEvents"];
    ASSERT_TRUE(events.is_array()) << "traceEvents is not an array";

    std::set<std::int64_t> named_processes;
    std::set<std::pair<std::int64_t, std::int64_t>> named_threads, used_threads;
    std::set<std::int64_t> used_processes;
    struct Open {
        double start = 0, end = 0;  // the last non-wait event of the thread
        bool any = false;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, Open> tracks;
    bool seen_complete = false;
    std::tuple<std::int64_t, std::int64_t, double> last_key{};

    for (std::size_t i = 0; i < events.size(); ++i) {
        const nlohmann::json& e = events[i];
        if (!e.is_object()) {
            fail(i, "not an object");
            continue;
        }
        const bool ok = e.contains("ph") && e["ph"].is_string() && e.contains("name") &&
                        e["name"].is_string() && e.contains("pid") &&
                        e["pid"].is_number_integer() && e.contains("tid") &&
                        e["tid"].is_number_integer() && e.contains("ts") && e["ts"].is_number();
        if (!ok) {
            fail(i, "needs ph, name (strings), pid, tid (integers) and ts (number): " + e.dump());
            continue;
        }
        const std::string ph = e["ph"].get<std::string>();
        const std::string name = e["name"].get<std::string>();
        const auto pid = e["pid"].get<std::int64_t>();
        const auto tid = e["tid"].get<std::int64_t>();
        const double ts = e["ts"].get<double>();
        if (ts < 0) fail(i, "negative ts: " + e.dump());
        if (ph == "M") {
            if (seen_complete) fail(i, "metadata after events: " + e.dump());
            const bool has_name = e.contains("args") && e["args"].is_object() &&
                                  e["args"].contains("name") && e["args"]["name"].is_string();
            if (name == "process_name") {
                if (!has_name) fail(i, "process_name without args.name");
                named_processes.insert(pid);
            } else if (name == "thread_name") {
                if (!has_name) fail(i, "thread_name without args.name");
                named_threads.insert({pid, tid});
            }
            continue;
        }
        if (ph != "X") {
            fail(i, "ph is neither X nor M: " + e.dump());
            continue;
        }
        if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
            fail(i, "X event without a number dur >= 0: " + e.dump());
            continue;
        }
        const double end = ts + e["dur"].get<double>();
        const std::tuple<std::int64_t, std::int64_t, double> key{pid, tid, ts};
        bool unsorted = false;  // reported once: no overlap report for the same event
        if (seen_complete) {
            const bool same_track = std::get<0>(key) == std::get<0>(last_key) &&
                                    std::get<1>(key) == std::get<1>(last_key);
            const bool sorted = same_track ? ts >= std::get<2>(last_key) - kTol : key > last_key;
            if (!sorted) {
                fail(i, "not sorted by (pid, tid, ts): " + e.dump());
                unsorted = true;
            }
        }
        seen_complete = true;
        last_key = key;
        used_processes.insert(pid);
        used_threads.insert({pid, tid});

        Open& open = tracks[{pid, tid}];
        if (name == "wait") {
            if (!open.any || ts < open.start - kTol || end > open.end + kTol)
                fail(i, "wait outside its operation: " + e.dump());
            continue;
        }
        if (open.any && !unsorted && ts < open.end - kTol)
            fail(i, "overlaps the previous event of its thread (ends at " +
                        std::to_string(open.end) + " us): " + e.dump());
        open = {ts, end, true};
    }
    for (std::int64_t pid : used_processes)
        if (!named_processes.contains(pid)) {
            ++problems;
            ADD_FAILURE() << "process " << pid << " has no process_name";
        }
    for (const auto& [pid, tid] : used_threads)
        if (!named_threads.contains({pid, tid})) {
            if (++problems <= 20)
                ADD_FAILURE() << "thread " << tid << " of process " << pid << " has no thread_name";
        }
    if (problems > 20) ADD_FAILURE() << problems << " problems in the timeline in all";
}

}  // namespace clustersim
