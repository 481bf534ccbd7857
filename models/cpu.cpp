#include "models/cpu.hpp"

#include <algorithm>

namespace clustersim::cpu {

Cpus::Cpus(Engine& engine, CpuClient& client) : engine_(engine), client_(client) {
    id_ = engine_.add(*this);
}

std::uint32_t Cpus::add_core(std::uint64_t instructions_per_second) {
    Core c;
    c.speed = instructions_per_second;
    cores_.push_back(std::move(c));
    return static_cast<std::uint32_t>(cores_.size() - 1);
}

void Cpus::start(std::uint32_t core, std::uint64_t instructions, std::uint64_t cookie) {
    start_time(core, compute_time(instructions, cores_[core].speed), cookie);
}

void Cpus::advance(Core& core) {
    const Time now = engine_.now();
    const std::int64_t elapsed = (now - core.last_update).ps();
    if (!core.jobs.empty() && elapsed > 0) {
        const std::int64_t share = elapsed / static_cast<std::int64_t>(core.jobs.size());
        for (Job& j : core.jobs) j.remaining_ps = std::max<std::int64_t>(0, j.remaining_ps - share);
        core.busy += now - core.last_update;
    }
    core.last_update = now;
}

void Cpus::reschedule(std::uint32_t index) {
    Core& core = cores_[index];
    ++core.generation;
    if (core.jobs.empty()) return;
    std::int64_t least = INT64_MAX;
    for (const Job& j : core.jobs) least = std::min(least, j.remaining_ps);
    const Time at = engine_.now() + Time::ps(least * static_cast<std::int64_t>(core.jobs.size()));
    engine_.schedule(at, id_, 0, (static_cast<std::uint64_t>(index) << 32) | core.generation);
}

void Cpus::start_time(std::uint32_t index, Time work, std::uint64_t cookie) {
    Core& core = cores_[index];
    advance(core);
    core.jobs.push_back(Job{work.ps(), cookie});
    reschedule(index);
}

void Cpus::handle(Engine&, const Event& event) {
    const auto index = static_cast<std::uint32_t>(event.data >> 32);
    const auto generation = static_cast<std::uint32_t>(event.data);
    Core& core = cores_[index];
    if (generation != core.generation) return;  // the job set changed since
    advance(core);
    done_.clear();
    // Jobs finish in the order they started when they finish together: deterministic.
    auto finished = [](const Job& j) { return j.remaining_ps <= 0; };
    for (const Job& j : core.jobs)
        if (finished(j)) done_.push_back(j.cookie);
    core.jobs.erase(std::remove_if(core.jobs.begin(), core.jobs.end(), finished), core.jobs.end());
    reschedule(index);
    for (std::uint64_t cookie : done_) client_.compute_done(cookie);
}

}  // namespace clustersim::cpu
