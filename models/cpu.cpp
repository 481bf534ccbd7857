#include "models/cpu.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::cpu {

void compute_beyond_horizon(const CpuClient& client, std::uint32_t index, std::uint64_t cookie,
                            Time now) {
    throw HorizonError(fmt::format(
        "simulated time passes the horizon: the compute of {} on core {} would end beyond "
        "2^63-1 ps (about {:.2f} days, the largest time int64 picoseconds hold) at simulated "
        "time {}",
        client.describe_job(cookie), index, Time::horizon_days(), format_time(now)));
}

// Brings the jobs up to now. Without noise each of the n jobs gets elapsed / n of dedicated
// time; with noise, (compute picoseconds available in the interval) / n, and each job meets
// the interval's jitter. The integer division drops at most n - 1 ps per job, the same way
// every time: deterministic.
void Cpus::advance(SharedCore& core) {
    const Time now = engine_.now();
    const std::int64_t elapsed = (now - core.last_update).ps();
    if (!core.jobs.empty() && elapsed > 0) {
        std::int64_t avail = elapsed;
        if (core.noise != nullptr) {
            avail = static_cast<std::int64_t>(core.noise->available(
                core.position(core.last_update), static_cast<std::uint64_t>(elapsed), core.hint));
            const std::int64_t jitter = elapsed - avail;
            core.jitter += Time::ps(jitter);
            for (SharedJob& j : core.jobs) j.jitter_ps += jitter;
        }
        const std::int64_t share = avail / static_cast<std::int64_t>(core.jobs.size());
        for (SharedJob& j : core.jobs)
            j.remaining_ps = std::max<std::int64_t>(0, j.remaining_ps - share);
        core.busy += now - core.last_update;
    }
    core.last_update = now;
}

void Cpus::reschedule(std::uint32_t index) {
    SharedCore& core = cores_[index];
    ++core.generation;
    if (core.jobs.empty()) return;
    std::int64_t least = INT64_MAX;
    const SharedJob* first = &core.jobs[0];  // the job that ends first (named if it never ends)
    for (const SharedJob& j : core.jobs)
        if (j.remaining_ps < least) {
            least = j.remaining_ps;
            first = &j;
        }
    const std::int64_t work = least * static_cast<std::int64_t>(core.jobs.size());
    std::int64_t span = work;
    if (core.noise != nullptr && work > 0) {
        // The time the core needs to offer `work` compute picoseconds from here on.
        const jitter::Timeline::Step step = core.noise->run(
            core.position(engine_.now()), static_cast<std::uint64_t>(work), core.hint);
        span = static_cast<std::int64_t>(step.elapsed);
    }
    const Time at = engine_.now() + Time::ps(span);
    if (at == Time::max()) [[unlikely]]
        compute_beyond_horizon(client_, index, first->cookie, engine_.now());
    engine_.schedule(at, id_, 0, (static_cast<std::uint64_t>(index) << 32) | core.generation);
}

void Cpus::start_time(std::uint32_t index, Time work, std::uint64_t cookie) {
    SharedCore& core = cores_[index];
    advance(core);
    core.jobs.push_back(SharedJob{work.ps(), cookie, 0});
    reschedule(index);
}

void Cpus::handle(Engine&, const Event& event) {
    const auto index = static_cast<std::uint32_t>(event.data >> 32);
    const auto generation = static_cast<std::uint32_t>(event.data);
    SharedCore& core = cores_[index];
    if (generation != core.generation) return;  // the job set changed since
    advance(core);
    if (core.jobs.size() == 1 && core.jobs[0].remaining_ps <= 0) {
        // The usual case, one job on the core and it is done: what the general path below
        // does, without the scratch list and the erase.
        const SharedJob j = core.jobs[0];
        core.jobs.clear();
        ++core.generation;  // reschedule() of an empty core
        client_.compute_done(j.cookie, Time::ps(j.jitter_ps));
        return;
    }
    done_.clear();
    // Jobs finish in the order they started when they finish together: deterministic.
    auto finished = [](const SharedJob& j) { return j.remaining_ps <= 0; };
    for (const SharedJob& j : core.jobs)
        if (finished(j)) done_.push_back(j);
    core.jobs.erase(std::remove_if(core.jobs.begin(), core.jobs.end(), finished), core.jobs.end());
    reschedule(index);
    for (const SharedJob& j : done_) client_.compute_done(j.cookie, Time::ps(j.jitter_ps));
}

void RunToCompletion::start_time(std::uint32_t index, Time work, std::uint64_t cookie) {
    QueueCore& core = cores_[index];
    core.queue.push_back(QueuedJob{work, cookie});
    if (core.queue.size() == 1) run_front(index);
}

// The front job runs from now for its work, stretched by the jitter segments it meets.
void RunToCompletion::run_front(std::uint32_t index) {
    QueueCore& core = cores_[index];
    const QueuedJob& job = core.queue.front();
    const Time now = engine_.now();
    Time span = job.work;
    core.running_jitter = Time::zero();
    if (core.noise != nullptr && job.work > Time::zero()) {
        const jitter::Timeline::Step step = core.noise->run(
            core.position(now), static_cast<std::uint64_t>(job.work.ps()), core.hint);
        span = Time::ps(static_cast<std::int64_t>(step.elapsed));
        core.running_jitter = span - job.work;
    }
    const Time at = now + span;  // clamps to Time::max()
    if (at == Time::max()) [[unlikely]]
        compute_beyond_horizon(client_, index, job.cookie, now);
    core.started = now;
    engine_.schedule(at, id_, 0, index);
}

void RunToCompletion::handle(Engine&, const Event& event) {
    const auto index = static_cast<std::uint32_t>(event.data);
    QueueCore& core = cores_[index];
    const QueuedJob done = core.queue.front();
    core.queue.pop_front();
    core.busy += engine_.now() - core.started;
    core.jitter += core.running_jitter;
    const Time jitter = core.running_jitter;
    if (!core.queue.empty()) run_front(index);
    client_.compute_done(done.cookie, jitter);
}

CpuModelRegistry& cpu_models() {
    static CpuModelRegistry registry("CPU model", 256);  // CpuModelId is one byte
    static const bool builtins = [] {
        CpuModelRegistry& r = registry;
        r.add({"processor_sharing",
               "the jobs on a core share it equally: n jobs each run at 1/n of its speed",
               {},
               [](const std::vector<KeyValue>&) -> CpuModelFactory {
                   return [](Engine& engine, CpuClient& client) {
                       return std::make_unique<Cpus>(engine, client);
                   };
               }});
        r.add({"run_to_completion",
               "a core runs one job at a time to its end, first started first; the others wait",
               {},
               [](const std::vector<KeyValue>&) -> CpuModelFactory {
                   return [](Engine& engine, CpuClient& client) {
                       return std::make_unique<RunToCompletion>(engine, client);
                   };
               }});
        // Their ids are kProcessorSharing and kRunToCompletion.
        r.select("processor_sharing");
        r.select("run_to_completion");
        return true;
    }();
    (void)builtins;
    return registry;
}

}  // namespace clustersim::cpu
