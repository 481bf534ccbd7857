// CPU cores with processor sharing: the processes with work on one core share it equally.
// A core runs at a fixed number of instructions per second; with n jobs each progresses at
// speed/n. Remaining work is kept as picoseconds of dedicated-core time, so completion
// times are exact integers while the job set does not change.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/engine.hpp"

namespace clustersim::cpu {

class CpuClient {
  public:
    virtual ~CpuClient() = default;
    virtual void compute_done(std::uint64_t cookie) = 0;
};

class Cpus : public Component {
  public:
    Cpus(Engine& engine, CpuClient& client);
    // Adds a core; returns its index.
    std::uint32_t add_core(std::uint64_t instructions_per_second);
    // Starts `instructions` of work on `core`; the client is told `cookie` when it is done.
    void start(std::uint32_t core, std::uint64_t instructions, std::uint64_t cookie);
    // Work in dedicated-core time (already converted, e.g. by a CPU-speed ratio).
    void start_time(std::uint32_t core, Time work, std::uint64_t cookie);

    std::size_t cores() const { return cores_.size(); }
    std::uint64_t speed(std::uint32_t core) const { return cores_[core].speed; }
    Time busy_time(std::uint32_t core) const { return cores_[core].busy; }

    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "cpus"; }

  private:
    struct Job {
        std::int64_t remaining_ps;  // dedicated-core time still to run
        std::uint64_t cookie;
    };
    struct Core {
        std::uint64_t speed = 0;
        std::vector<Job> jobs;
        Time last_update;
        Time busy;                     // time with at least one job
        std::uint32_t generation = 0;  // invalidates stale completion events
    };
    void advance(Core& core);
    void reschedule(std::uint32_t index);

    Engine& engine_;
    CpuClient& client_;
    ComponentId id_;
    std::vector<Core> cores_;
    std::vector<std::uint64_t> done_;  // scratch: cookies finished in one step
};

}  // namespace clustersim::cpu
