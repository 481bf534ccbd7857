// CPU cores with processor sharing: the processes with work on one core share it equally.
// A core runs at a fixed number of instructions per second; with n jobs each progresses at
// speed/n. Remaining work is kept as picoseconds of dedicated-core time, so completion
// times are exact integers while the job set does not change.
//
// OS jitter (issue 6): a core may carry a noise timeline (jitter::Timeline in picoseconds)
// and a start offset; at simulated time t the core is at trace position offset + t.ps. Jobs
// progress only in the timeline's compute segments: over [t0, t1) the n jobs share the
// compute picoseconds available(pos(t0), t1 - t0) equally, and the next completion is
// run(pos(now), least_remaining * n).elapsed away. Every job is told the jitter it met (the
// part of its time on the core that fell into jitter segments).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/jitter.hpp"
#include "simulator/engine.hpp"

namespace clustersim::cpu {

class CpuClient {
  public:
    virtual ~CpuClient() = default;
    // The job `cookie` is done; `jitter` is the OS jitter it met (zero without noise).
    virtual void compute_done(std::uint64_t cookie, Time jitter) = 0;
    // Names the job `cookie` for an error ("rank 3 in Compute"): a compute that would end
    // past the simulated-time horizon is reported with it.
    virtual std::string describe_job(std::uint64_t cookie) const {
        return "job " + std::to_string(cookie);
    }
};

class Cpus : public Component {
  public:
    Cpus(Engine& engine, CpuClient& client);
    // Adds a core; returns its index.
    std::uint32_t add_core(std::uint64_t instructions_per_second);
    // Gives `core` OS noise: `timeline` is in picoseconds (Timeline::in_picoseconds) and must
    // outlive this object; the core is at position `offset` at time 0. Before any work.
    void set_noise(std::uint32_t core, const jitter::Timeline* timeline, std::uint64_t offset);
    // Starts `instructions` of work on `core`; the client is told `cookie` when it is done.
    void start(std::uint32_t core, std::uint64_t instructions, std::uint64_t cookie);
    // Work in dedicated-core time (already converted, e.g. by a CPU-speed ratio).
    void start_time(std::uint32_t core, Time work, std::uint64_t cookie);

    std::size_t cores() const { return cores_.size(); }
    std::uint64_t speed(std::uint32_t core) const { return cores_[core].speed; }
    Time busy_time(std::uint32_t core) const { return cores_[core].busy; }
    // Time the core spent in jitter segments while it had work.
    Time jitter_time(std::uint32_t core) const { return cores_[core].jitter; }

    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "cpus"; }

  private:
    struct Job {
        std::int64_t remaining_ps;  // dedicated-core time still to run
        std::uint64_t cookie;
        std::int64_t jitter_ps = 0;  // jitter met so far
    };
    struct Core {
        std::uint64_t speed = 0;
        std::vector<Job> jobs;
        Time last_update;
        Time busy;                                // time with at least one job
        Time jitter;                              // time in jitter segments with at least one job
        std::uint32_t generation = 0;             // invalidates stale completion events
        const jitter::Timeline* noise = nullptr;  // picoseconds; null: no jitter
        std::uint64_t offset = 0;                 // trace position at time 0
        std::uint32_t hint = 0;                   // tuple last looked at (speeds up look-ups)
        std::uint64_t position(Time t) const { return offset + static_cast<std::uint64_t>(t.ps()); }
    };
    void advance(Core& core);
    void reschedule(std::uint32_t index);
    [[noreturn]] void beyond_horizon(std::uint32_t index, std::uint64_t cookie) const;

    Engine& engine_;
    CpuClient& client_;
    ComponentId id_;
    std::vector<Core> cores_;
    std::vector<Job> done_;  // scratch: jobs finished in one step
};

}  // namespace clustersim::cpu
