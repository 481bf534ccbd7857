// Child processes for sweep points: spawned with posix_spawn (safe inside an MPI process),
// limited with prlimit (address space, CPU time) and a wall-time deadline, their stdout and
// stderr captured through pipes, their peak memory read from wait4's rusage.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace clustersim::sweep {

struct Outcome {
    int exit_code = -1;                   // the exit status, or -1 when killed by a signal
    int signal = 0;                       // the signal that ended it (SIGKILL after the wall limit)
    bool timed_out = false;               // killed at the wall-time limit
    std::string out, err;                 // everything the child wrote
    double wall_s = 0;                    // spawn to reap
    std::uint64_t peak_memory_bytes = 0;  // the child's ru_maxrss
    std::string spawn_error;              // the program could not be started
};

// Runs up to `slots` children at once; each has a caller-chosen id.
class Pool {
  public:
    explicit Pool(std::size_t slots) : slots_(slots) {}
    // Binds the child of slot k to cpus[k] (sched_setaffinity), as mpirun binds ranks: a
    // child then keeps its core's caches instead of migrating. Needs cpus.size() >= slots.
    void pin(std::vector<int> cpus) { cpus_ = std::move(cpus); }
    ~Pool();
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    std::size_t free_slots() const { return slots_ - running_.size(); }
    std::size_t running() const { return running_.size(); }
    // Starts `exe args...` in `cwd` under `limits`. A spawn failure is reported by the next
    // wait() as a finished child with spawn_error set.
    void start(std::size_t id, const std::string& exe, const std::vector<std::string>& args,
               const std::string& cwd, const Limits& limits);
    // Waits up to timeout_ms (-1: until one finishes) and returns the children that finished.
    std::vector<std::pair<std::size_t, Outcome>> wait(int timeout_ms);

  private:
    struct Child {
        std::size_t id = 0, slot = 0;
        pid_t pid = -1;
        int out_fd = -1, err_fd = -1;
        std::chrono::steady_clock::time_point start, deadline;
        bool has_deadline = false, killed = false;
        Outcome outcome;
    };
    void reap(Child& c);
    std::size_t slots_;
    std::vector<int> cpus_;
    std::vector<Child> running_;
    std::vector<std::pair<std::size_t, Outcome>> failed_spawns_;
};

// Runs one child to completion.
Outcome run_process(const std::string& exe, const std::vector<std::string>& args,
                    const std::string& cwd, const Limits& limits);

// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> usable_cpus();

// The last non-empty line of a child's stderr (its one-line error).
std::string last_line(const std::string& text);

}  // namespace clustersim::sweep
