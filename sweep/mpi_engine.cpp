#include "sweep/mpi_engine.hpp"

#include <mpi.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "simulator/error.hpp"

namespace clustersim::sweep {
namespace {

// Messages (JSON text as MPI_CHAR):
//   worker -> 0  kReady   {"slots": J}                   once, at start
//   worker -> 0  kResult  {"index": i, outcome fields}   a point finished
//   0 -> worker  kAssign  {"index": i, "args": [...], "cwd": DIR, "wall_s": x, "memory": n}
//   0 -> worker  kStop    {}                             no more points for it
// Workers are stateless: every assignment carries the full command line, so only the
// output folder (the generated models) must be on a file system the nodes share.
enum Tag : int { kReady = 1, kResult = 2, kAssign = 3, kStop = 4 };

// stderr beyond this is cut from the front before it travels (the error is its last line).
constexpr std::size_t kMaxErr = 16384;

// A blocking MPI_Probe spins in Open MPI, taking a core from the points; waiting is an
// MPI_Iprobe every 100 us instead (about 1 % of a core, at most 0.1 ms of latency).
void idle_probe(int source, int tag, MPI_Status& st) {
    int flag = 0;
    while (true) {
        MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
        if (flag) return;
        const timespec pause{0, 100'000};
        ::nanosleep(&pause, nullptr);
    }
}

void send(int dest, int tag, const nlohmann::json& j) {
    const std::string s = j.dump();
    MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

nlohmann::json recv(int source, int tag, MPI_Status& st) {
    idle_probe(source, tag, st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string s(static_cast<std::size_t>(n), '\0');
    MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return s.empty() ? nlohmann::json::object() : nlohmann::json::parse(s);
}

nlohmann::json outcome_json(std::size_t index, const Outcome& o) {
    return {{"index", index},
            {"exit_code", o.exit_code},
            {"signal", o.signal},
            {"timed_out", o.timed_out},
            {"out", o.out},
            {"err", o.err.size() > kMaxErr ? o.err.substr(o.err.size() - kMaxErr) : o.err},
            {"wall_s", o.wall_s},
            {"peak_memory_bytes", o.peak_memory_bytes},
            {"spawn_error", o.spawn_error}};
}

Outcome outcome_of(const nlohmann::json& j) {
    Outcome o;
    o.exit_code = j.at("exit_code").get<int>();
    o.signal = j.at("signal").get<int>();
    o.timed_out = j.at("timed_out").get<bool>();
    o.out = j.at("out").get<std::string>();
    o.err = j.at("err").get<std::string>();
    o.wall_s = j.at("wall_s").get<double>();
    o.peak_memory_bytes = j.at("peak_memory_bytes").get<std::uint64_t>();
    o.spawn_error = j.at("spawn_error").get<std::string>();
    return o;
}

int worker(const SweepOptions& o) {
    const std::size_t slots = std::max<std::size_t>(1, o.jobs);
    send(0, kReady, {{"slots", slots}});
    Pool pool(slots);
    bool stopped = false;
    while (!stopped || pool.running() > 0) {
        // Take every message waiting; block for one when nothing runs here.
        while (!stopped) {
            int flag = 0;
            MPI_Status st;
            if (pool.running() == 0) {
                idle_probe(0, MPI_ANY_TAG, st);
                flag = 1;
            } else {
                MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            }
            if (!flag) break;
            const nlohmann::json m = recv(0, st.MPI_TAG, st);
            if (st.MPI_TAG == kStop) {
                stopped = true;
                break;
            }
            Limits limits;
            limits.wall_s = m.at("wall_s").get<double>();
            limits.memory_bytes = m.at("memory").get<std::uint64_t>();
            pool.start(m.at("index").get<std::size_t>(), m.at("clustersim").get<std::string>(),
                       m.at("args").get<std::vector<std::string>>(), m.at("cwd").get<std::string>(),
                       limits);
        }
        if (pool.running() == 0) continue;
        // Assignments only answer results: with no free slot (or after the stop) nothing can
        // arrive, so wait for a child alone; else look at MPI every millisecond.
        const int timeout = stopped || pool.free_slots() == 0 ? -1 : 1;
        for (auto& [index, outcome] : pool.wait(timeout))
            send(0, kResult, outcome_json(index, outcome));
    }
    return 0;
}

int master(const SweepOptions& o, int size) {
    const auto t0 = std::chrono::steady_clock::now();
    Prepared p;
    std::string error;
    try {
        p = prepare(o, true);
    } catch (const InputError& e) {
        error = e.what();
    }
    if (!error.empty()) {
        // Release the workers, then report.
        for (int w = 1; w < size; ++w) {
            MPI_Status st;
            recv(MPI_ANY_SOURCE, kReady, st);
            send(st.MPI_SOURCE, kStop, nlohmann::json::object());
        }
        std::cerr << "clustersim: error: " << error << "\n";
        return 2;
    }
    Journal journal(p.out + "/journal.jsonl");
    std::map<std::string, nlohmann::json> fresh;
    Progress progress(p.todo.size(), o.progress, o.progress_lines);
    std::deque<std::size_t> queue(p.todo.begin(), p.todo.end());  // longest first
    std::size_t ran = 0;
    auto record = [&](nlohmann::json r) {
        const bool failed = record_failed(r);
        journal.append(r);
        const std::string hash = r["hash"].get<std::string>();
        fresh[hash] = std::move(r);
        ++ran;
        progress.point_done(failed);
    };
    // The next point to run anywhere; points whose model failed are recorded on the spot.
    auto next_point = [&]() -> const Point* {
        while (!queue.empty()) {
            const Point& pt = p.points[queue.front()];
            queue.pop_front();
            if (auto e = p.model_errors.find(pt.model_key);
                !pt.model_key.empty() && e != p.model_errors.end()) {
                record(model_failure_record(pt, e->second));
                continue;
            }
            return &pt;
        }
        return nullptr;
    };
    std::vector<std::size_t> outstanding(static_cast<std::size_t>(size), 0);
    std::vector<std::size_t> ran_by(static_cast<std::size_t>(size), 0);  // points per rank
    std::vector<bool> active(static_cast<std::size_t>(size), false);
    int waiting_ready = size - 1, workers_active = 0;
    auto assign = [&](int w) {
        const Point* pt = next_point();
        if (pt == nullptr) return false;
        send(w, kAssign,
             {{"index", pt->index},
              {"clustersim", o.clustersim},
              {"args", pt->run_args},
              {"cwd", p.out},
              {"wall_s", p.limits.wall_s},
              {"memory", p.limits.memory_bytes}});
        ++outstanding[static_cast<std::size_t>(w)];
        return true;
    };
    auto stop_if_idle = [&](int w) {
        if (outstanding[static_cast<std::size_t>(w)] == 0 && active[static_cast<std::size_t>(w)]) {
            send(w, kStop, nlohmann::json::object());
            active[static_cast<std::size_t>(w)] = false;
            --workers_active;
        }
    };
    // Rank 0 runs points too, in its own slots.
    Pool pool(std::max<std::size_t>(1, o.jobs));
    while (waiting_ready > 0 || workers_active > 0 || pool.running() > 0 || !queue.empty()) {
        while (pool.free_slots() > 0) {
            const Point* pt = next_point();
            if (pt == nullptr) break;
            pool.start(pt->index, o.clustersim, pt->run_args, p.out, p.limits);
        }
        // Messages: block for one when rank 0 has nothing running.
        while (waiting_ready > 0 || workers_active > 0) {
            int flag = 0;
            MPI_Status st;
            if (pool.running() == 0) {
                idle_probe(MPI_ANY_SOURCE, MPI_ANY_TAG, st);
                flag = 1;
            } else {
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            }
            if (!flag) break;
            const int w = st.MPI_SOURCE;
            const nlohmann::json m = recv(w, st.MPI_TAG, st);
            if (st.MPI_TAG == kReady) {
                --waiting_ready;
                active[static_cast<std::size_t>(w)] = true;
                ++workers_active;
                const auto slots = m.at("slots").get<std::size_t>();
                for (std::size_t i = 0; i < slots; ++i)
                    if (!assign(w)) break;
            } else if (st.MPI_TAG == kResult) {
                --outstanding[static_cast<std::size_t>(w)];
                const auto index = m.at("index").get<std::size_t>();
                record(make_record(p, p.points[index], outcome_of(m)));
                ++ran_by[static_cast<std::size_t>(w)];
                assign(w);
            }
            stop_if_idle(w);
            if (pool.running() == 0 && pool.free_slots() > 0 && !queue.empty()) break;
        }
        if (pool.running() > 0)
            for (auto& [index, outcome] : pool.wait(1)) {
                record(make_record(p, p.points[index], outcome));
                ++ran_by[0];
            }
    }
    progress.finish();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string per_rank;
    for (std::size_t r = 0; r < ran_by.size(); ++r)
        per_rank += fmt::format("{}{}", r == 0 ? "" : " ", ran_by[r]);
    return finish(p, fresh, ran, wall,
                  fmt::format("MPI, {} ranks x {} job{}; points run by rank 0..{}: {}", size,
                              o.jobs, o.jobs == 1 ? "" : "s", size - 1, per_rank));
}

}  // namespace

int run_mpi(const SweepOptions& o) {
    MPI_Init(nullptr, nullptr);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int code = 0;
    try {
        code = rank == 0 ? master(o, size) : worker(o);
    } catch (const InputError& e) {
        std::cerr << "clustersim: error: " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 2);
    } catch (const std::exception& e) {
        std::cerr << "clustersim: internal error: " << e.what() << " (please report it)\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}

}  // namespace clustersim::sweep
