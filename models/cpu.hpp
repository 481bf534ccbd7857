// CPU models: how the jobs started on a core (a rank's compute, its MPI overheads, reduction
// and copy work) share it. The runtime (mpi/runtime.hpp) holds a CpuModel and starts
// jobs on it; which model a run uses is chosen by name from cpu_models() (`<network
// cpu="NAME[:key=value,...]">` in the model XML, `clustersim run --cpu`); `clustersim list
// models` prints them. Built in:
//
// processor-sharing (Cpus, the default): the processes with work on one core share it
// equally. A core runs at a fixed number of instructions per second; with n jobs each
// progresses at speed/n. Remaining work is kept as picoseconds of dedicated-core time, so
// completion times are exact integers while the job set does not change.
//
// run-to-completion (RunToCompletion): a core runs one job at a time, to its end, in the
// order the jobs were started (FIFO); the others wait. An MPI rank pinned to its own core
// behaves so; with several ranks on a core (--oversubscribe), one waits for the other's
// compute instead of both slowing down.
//
// OS jitter (issue 6): a core may carry a noise timeline (jitter::Timeline in picoseconds)
// and a start offset; at simulated time t the core is at trace position offset + t.ps. Jobs
// progress only in the timeline's compute segments. Processor sharing: over [t0, t1) the n
// jobs share the compute picoseconds available(pos(t0), t1 - t0) equally, and the next
// completion is run(pos(now), least_remaining * n).elapsed away. Run to completion: the
// running job ends run(pos(its start), its work).elapsed after it started. Every job is told
// the jitter it met (the part of its time on the core that fell into jitter segments).
//
// Adding a CPU model is one CpuModel class plus one registration:
//     cpu::cpu_models().add({"mine", "one line of help", {/* ParamInfo... */},
//                            [](const std::vector<KeyValue>& params) -> cpu::CpuModelFactory {
//                                return [params](Engine& e, cpu::CpuClient& c) {
//                                    return std::make_unique<Mine>(e, c, params);
//                                };
//                            }});
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/jitter.hpp"
#include "simulator/configured_registry.hpp"
#include "simulator/engine.hpp"
#include "simulator/time.hpp"

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

// What the runtime needs of a CPU model: cores, each with a speed, on which jobs are started
// and reported done to the CpuClient (compute_done) when the model says so.
class CpuModel {
  public:
    virtual ~CpuModel() = default;
    // Adds a core running `instructions_per_second` when it is dedicated to one job; returns
    // its index (0, 1, ... in order).
    virtual std::uint32_t add_core(std::uint64_t instructions_per_second) = 0;
    // Gives `core` OS noise: `timeline` is in picoseconds (Timeline::in_picoseconds) and must
    // outlive this object; the core is at position `offset` at time 0. Before any work. A
    // model without OS jitter throws std::invalid_argument saying so.
    virtual void set_noise(std::uint32_t core, const jitter::Timeline* timeline,
                           std::uint64_t offset) = 0;
    // Starts `work` (dedicated-core time: instructions at the core's speed, or already
    // converted, e.g. by a CPU-speed ratio) on `core`; the client is told `cookie` when it is
    // done, never before now.
    virtual void start_time(std::uint32_t core, Time work, std::uint64_t cookie) = 0;
    // Starts `instructions` of work on `core`.
    void start(std::uint32_t core, std::uint64_t instructions, std::uint64_t cookie) {
        start_time(core, compute_time(instructions, speed(core)), cookie);
    }

    virtual std::size_t cores() const = 0;
    virtual std::uint64_t speed(std::uint32_t core) const = 0;
    // Time the core had at least one job.
    virtual Time busy_time(std::uint32_t core) const = 0;
    // Time the core spent in jitter segments while it had work.
    virtual Time jitter_time(std::uint32_t core) const = 0;
};

// A configured CPU model: builds the model for one run.
using CpuModelFactory = std::function<std::unique_ptr<CpuModel>(Engine&, CpuClient&)>;
// The registered CPU models; select("NAME[:key=value,...]") gives a CpuModelId (at most 256),
// made(id) its factory. Errors read "'x' is not valid; expected processor-sharing or
// run-to-completion", "'m:k=v': CPU model 'm' has no parameter 'k'...".
using CpuModelId = std::uint8_t;
inline constexpr CpuModelId kProcessorSharing = 0;  // the default
inline constexpr CpuModelId kRunToCompletion = 1;
using CpuModelEntry = ConfiguredEntry<CpuModelFactory>;
using CpuModelRegistry = ConfiguredRegistry<CpuModelFactory, CpuModelId>;
CpuModelRegistry& cpu_models();

// What every core of the built-in models keeps: its speed, the time it had work and the
// jitter it met meanwhile, and its OS noise.
struct CoreState {
    std::uint64_t speed = 0;
    Time busy;                                // time with at least one job
    Time jitter;                              // time in jitter segments with at least one job
    const jitter::Timeline* noise = nullptr;  // picoseconds; null: no jitter
    std::uint64_t offset = 0;                 // trace position at time 0
    std::uint32_t hint = 0;                   // tuple last looked at (speeds up look-ups)
    std::uint64_t position(Time t) const { return offset + static_cast<std::uint64_t>(t.ps()); }
};

// Throws the HorizonError of a compute of `cookie` on core `index` that would end beyond
// the simulated-time horizon.
[[noreturn]] void compute_beyond_horizon(const CpuClient& client, std::uint32_t index,
                                         std::uint64_t cookie, Time now);

// A CPU model keeping one `Core` (a CoreState with `bool idle() const`) per core: the
// bookkeeping both built-in models share. A model derives from it and implements
// start_time() and handle().
template <typename Core>
class PerCoreModel : public Component, public CpuModel {
  public:
    PerCoreModel(Engine& engine, CpuClient& client) : engine_(engine), client_(client) {
        id_ = engine_.add(*this);
    }
    std::uint32_t add_core(std::uint64_t instructions_per_second) override {
        Core c;
        c.speed = instructions_per_second;
        cores_.push_back(std::move(c));
        return static_cast<std::uint32_t>(cores_.size() - 1);
    }
    void set_noise(std::uint32_t index, const jitter::Timeline* timeline,
                   std::uint64_t offset) override {
        Core& core = cores_[index];
        if (!core.idle()) throw std::logic_error(name() + ": set_noise on a core that has work");
        core.noise = timeline;
        core.offset = offset;
        core.hint = 0;
    }
    std::size_t cores() const override { return cores_.size(); }
    std::uint64_t speed(std::uint32_t core) const override { return cores_[core].speed; }
    Time busy_time(std::uint32_t core) const override { return cores_[core].busy; }
    Time jitter_time(std::uint32_t core) const override { return cores_[core].jitter; }

  protected:
    Engine& engine_;
    CpuClient& client_;
    ComponentId id_;
    std::vector<Core> cores_;
};

struct SharedJob {
    std::int64_t remaining_ps;  // dedicated-core time still to run
    std::uint64_t cookie;
    std::int64_t jitter_ps = 0;  // jitter met so far
};
struct SharedCore : CoreState {
    std::vector<SharedJob> jobs;
    Time last_update;
    std::uint32_t generation = 0;  // invalidates stale completion events
    bool idle() const { return jobs.empty(); }
};

// Processor sharing ("processor-sharing").
class Cpus final : public PerCoreModel<SharedCore> {
  public:
    using PerCoreModel::PerCoreModel;
    void start_time(std::uint32_t core, Time work, std::uint64_t cookie) override;
    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "cpus"; }

  private:
    void advance(SharedCore& core);
    void reschedule(std::uint32_t index);

    std::vector<SharedJob> done_;  // scratch: jobs finished in one step
};

struct QueuedJob {
    Time work;  // dedicated-core time
    std::uint64_t cookie;
};
struct QueueCore : CoreState {
    std::deque<QueuedJob> queue;  // front: the running job
    Time started;                 // when the running job started
    Time running_jitter;          // jitter the running job meets
    bool idle() const { return queue.empty(); }
};

// Run to completion ("run-to-completion"): one job at a time per core, first started first.
class RunToCompletion final : public PerCoreModel<QueueCore> {
  public:
    using PerCoreModel::PerCoreModel;
    void start_time(std::uint32_t core, Time work, std::uint64_t cookie) override;
    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "cpus (run to completion)"; }

  private:
    // Starts the job at the front of `index`'s queue now.
    void run_front(std::uint32_t index);
};

}  // namespace clustersim::cpu
