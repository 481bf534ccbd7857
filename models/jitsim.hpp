// The fast jitter predictor (jitSim, De & Mann §3.3–3.6): N tasks run `phases` compute
// phases over a jitter trace, each from its own start position, with a synchronization at
// the end of every phase; out come the mean phase time, the slowdown against the noiseless
// run, and how much of the trace each task covered. Units are the trace's cycles.
//
// A task's position in the trace is its start position plus the cycles elapsed since the
// run began: it moves on while the task computes, meets jitter and waits.
//
// Barriers:
//  - None: an ideal barrier with no communication cost (jitSim Fig. 3): every task starts
//    phase j+1 when the slowest one has finished phase j. Early tasks wait.
//  - Tree: a complete k-ary tree over the tasks in index order (task 0 the root, children of
//    i are k*i+1 … k*i+k), the barrier of jitSim §3.6 / Garg & De §2.1: a pre-barrier stage
//    (completion messages go up) succeeded by a post-barrier stage (the root's
//    start-compute-phase message percolates down to the leaves). An iteration is
//    post-barrier → compute → pre-barrier (Garg & De's θ_j: from the root's start of one
//    post-barrier to its start of the next); the run opens with the root's start message at
//    time 0, so every phase has the same noiseless structure.
//    Post-barrier: the root sends to each child in index order; a task receives from its
//    parent, then sends to each of its children in order, and starts its compute after its
//    last send (a leaf: after its receive; the root: after its last send).
//    Pre-barrier: a task that has finished its compute receives from each child in index
//    order, then (not the root) sends to its parent. A receive starts when the message has
//    arrived and the task is free; time spent before the message arrives is wait. Every
//    send costs `send` and every receive `recv` cycles of CPU work, stretched by the jitter
//    it meets (counted as compute, jitter met as jitter). A message sent (send finished) at
//    t arrives at t + latency: shm_latency when both tasks are on one node (tasks fill the
//    cores of a node, then the next node: node = task / cores_per_node), else
//    network_latency. With every cost zero the tree is the ideal barrier.
//
// Phase j ends at end_j: None, when the last task has finished its compute; Tree, when the
// root has received from all its children (the pre-barrier is over: every task has
// finished phase j; the root then starts phase j+1's post-barrier). phase_cycles[j] =
// end_j − end_{j−1} (end_{−1} = 0). The run ends at end_{phases−1}; a task that finished
// its part earlier waits until then (so every task's total is the run's end). The
// noiseless phase time is the same schedule with no jitter: None, the work; Tree, the work
// plus the tree's critical path (one pass down and one up the tree with the costs and
// latencies above); every noiseless phase takes exactly that.
#pragma once

#include <cstdint>
#include <vector>

#include "models/jitter.hpp"

namespace clustersim::jitter {

struct BarrierSpec {
    enum class Kind { None, Tree };
    Kind kind = Kind::None;
    std::uint32_t arity = 2;            // Tree: children per task (2 = binary tree)
    std::uint64_t send = 0;             // cycles of CPU work per send
    std::uint64_t recv = 0;             // cycles of CPU work per receive
    std::uint64_t network_latency = 0;  // cycles in flight between nodes (one hop)
    std::uint64_t shm_latency = 0;      // cycles in flight within a node
    std::uint32_t cores_per_node = 1;   // tasks per node, placed sequentially
};

struct PredictConfig {
    std::uint64_t work = 0;  // compute cycles per phase (work quantum × frequency)
    std::uint32_t phases = 1;
    BarrierSpec barrier;
    StartSpec start;
    unsigned threads = 0;   // 0: std::thread::hardware_concurrency()
    bool per_task = false;  // fill Prediction::per_task
};

struct TaskTotals {             // one task, summed over all phases, cycles
    std::uint64_t compute = 0;  // work plus send/receive CPU cost
    std::uint64_t jitter = 0;   // jitter met while computing, sending or receiving
    std::uint64_t wait = 0;     // waiting at the barrier (the trace moves on meanwhile)
    std::uint64_t total = 0;    // compute + jitter + wait = the end of the run (the last phase)
};

struct Prediction {
    std::uint64_t tasks = 0;
    std::vector<std::uint64_t> phase_cycles;  // per phase, see above
    double mean_phase = 0;                    // mean of phase_cycles
    std::uint64_t noiseless_phase = 0;        // phase time without jitter
    double slowdown_percent = 0;              // 100 × (mean_phase / noiseless_phase − 1)
    // Trace coverage: cycles of trace a task passed through (its total) / trace length, %;
    // mean over tasks and the largest.
    double coverage_percent = 0;
    double coverage_max_percent = 0;
    std::vector<TaskTotals> per_task;  // when PredictConfig::per_task
};

// Task k uses timelines[(k % cores_per_node) % timelines.size()] (one trace per core of a
// node, or one for all) and starts at start_position(that timeline, config.start, k).
// Throws std::invalid_argument (message says what) when: timelines is empty, work is 0,
// phases is 0, tasks is 0, arity < 1, cores_per_node is 0, the work of one phase exceeds
// the compute cycles of a whole trace (a phase would see all of it: an error, not a wrap;
// runs longer than the trace wrap around and show coverage > 100 %), or check_start fails.
// Deterministic for a seed, whatever the number of threads.
Prediction predict(const std::vector<const Timeline*>& timelines, std::uint64_t tasks,
                   const PredictConfig& config);

// Depth of task `task` in the k-ary tree (root 0).
std::uint32_t tree_depth(std::uint64_t task, std::uint32_t arity);

}  // namespace clustersim::jitter
