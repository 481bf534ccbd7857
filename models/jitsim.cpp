#include "models/jitsim.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace clustersim::jitter {

namespace {

__extension__ typedef unsigned __int128 u128;

// Below this many tasks a range is processed on the calling thread: a thread start costs
// more than the work of a few thousand tasks.
constexpr std::uint64_t kGrain = 1u << 14;

// Runs fn(lo, hi, slot) over [begin, end) split into `threads` contiguous chunks (chunk
// `slot` on its own thread, slot 0 on the caller). Exceptions are rethrown on the caller.
template <class Fn>
void parallel_for(unsigned threads, std::uint64_t begin, std::uint64_t end, Fn&& fn) {
    const std::uint64_t n = end - begin;
    if (threads <= 1 || n < kGrain) {
        fn(begin, end, 0u);
        return;
    }
    const std::uint64_t parts = std::min<std::uint64_t>(threads, n / (kGrain / 2));
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(parts);
    auto bound = [&](std::uint64_t p) { return begin + n * p / parts; };
    pool.reserve(parts - 1);
    for (std::uint64_t p = 1; p < parts; ++p)
        pool.emplace_back([&, p] {
            try {
                fn(bound(p), bound(p + 1), static_cast<unsigned>(p));
            } catch (...) {
                errors[p] = std::current_exception();
            }
        });
    try {
        fn(bound(0), bound(1), 0u);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

// The k-ary tree over tasks 0 … n-1 in index order.
struct Tree {
    std::uint64_t n = 0;
    std::uint64_t k = 2;
    std::vector<std::uint64_t> level_first;  // first task of each level, then n

    Tree(std::uint64_t tasks, std::uint32_t arity) : n(tasks), k(arity) {
        std::uint64_t first = 0;
        for (;;) {
            level_first.push_back(first);
            if (n < 2 || first > (n - 2) / k) break;  // no task beyond this level
            first = k * first + 1;
        }
        level_first.push_back(n);
    }
    std::size_t levels() const { return level_first.size() - 1; }
    // Children of i: [child_begin, child_end).
    std::uint64_t child_begin(std::uint64_t i) const {
        if (n < 2 || i > (n - 2) / k) return n;
        return k * i + 1;
    }
    std::uint64_t child_end(std::uint64_t i) const {
        const std::uint64_t b = child_begin(i);
        return b >= n ? n : std::min(n, b + k);
    }
};

struct Latency {
    std::uint64_t shm, net, cpn;
    std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
        return a / cpn == b / cpn ? shm : net;
    }
};

std::uint64_t add_checked(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t s = a + b;
    if (s < a) throw std::overflow_error("jitsim: time beyond 2^64 cycles");
    return s;
}

// The phase time with no jitter: one post-barrier from the root, the compute, one
// pre-barrier, evaluated along the tree (parents come before their children in index
// order). f and m are scratch arrays of n entries.
std::uint64_t noiseless_tree(const Tree& tree, const BarrierSpec& b, std::uint64_t work,
                             std::vector<std::uint64_t>& f, std::vector<std::uint64_t>& m) {
    const Latency lat{b.shm_latency, b.network_latency, b.cores_per_node};
    const std::uint64_t n = tree.n;
    for (std::uint64_t i = 0; i < n; ++i) {  // post-barrier, then compute
        std::uint64_t t = i == 0 ? 0 : add_checked(m[i], b.recv);
        for (std::uint64_t c = tree.child_begin(i); c < tree.child_end(i); ++c) {
            t = add_checked(t, b.send);
            m[c] = add_checked(t, lat(i, c));
        }
        f[i] = add_checked(t, work);
    }
    for (std::uint64_t i = n; i-- > 0;) {  // pre-barrier, leaves first
        std::uint64_t t = f[i];
        for (std::uint64_t c = tree.child_begin(i); c < tree.child_end(i); ++c)
            t = add_checked(std::max(t, add_checked(f[c], lat(i, c))), b.recv);
        f[i] = i == 0 ? t : add_checked(t, b.send);
    }
    return f[0];
}

}  // namespace

std::uint32_t tree_depth(std::uint64_t task, std::uint32_t arity) {
    if (arity < 1) throw std::invalid_argument("tree arity must be at least 1");
    std::uint32_t d = 0;
    while (task > 0) {
        task = (task - 1) / arity;
        ++d;
    }
    return d;
}

Prediction predict(const std::vector<const Timeline*>& timelines, std::uint64_t tasks,
                   const PredictConfig& config) {
    const BarrierSpec& b = config.barrier;
    if (timelines.empty()) throw std::invalid_argument("jitter prediction: no trace given");
    for (const Timeline* tl : timelines)
        if (tl == nullptr) throw std::invalid_argument("jitter prediction: a null trace");
    if (tasks == 0) throw std::invalid_argument("jitter prediction: the task count must be > 0");
    if (config.work == 0)
        throw std::invalid_argument("jitter prediction: the work quantum must be > 0 cycles");
    if (config.phases == 0)
        throw std::invalid_argument("jitter prediction: the number of phases must be > 0");
    if (b.kind == BarrierSpec::Kind::Tree && b.arity < 1)
        throw std::invalid_argument("jitter prediction: the tree arity must be at least 1");
    if (b.cores_per_node == 0)
        throw std::invalid_argument("jitter prediction: cores per node must be > 0");
    for (const Timeline* tl : timelines) {
        if (config.work > tl->compute_total())
            throw std::invalid_argument(fmt::format(
                "jitter prediction: the work quantum of {} cycles is larger than all the "
                "compute cycles of trace {} ({} cycles): one phase would cover the whole "
                "trace; use a longer trace or a smaller quantum",
                config.work, tl->source(), tl->compute_total()));
        check_start(*tl, config.start);
    }

    const unsigned threads =
        config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t n = tasks;
    const bool tree_barrier = b.kind == BarrierSpec::Kind::Tree;
    const std::size_t ntl = timelines.size();
    const std::uint64_t cpn = b.cores_per_node;
    auto timeline_of = [&](std::uint64_t k) -> const Timeline& {
        return ntl == 1 ? *timelines[0] : *timelines[(k % cpn) % ntl];
    };

    Prediction out;
    out.tasks = n;
    out.phase_cycles.reserve(config.phases);

    // Structure of arrays, one entry per task.
    std::vector<std::uint64_t> start(n), t(n, 0), jit(n, 0), wait(n, 0);
    std::vector<std::uint32_t> hint(n, 0);
    std::vector<std::uint64_t> msg(tree_barrier ? n : 0);  // arrival of the parent's message

    const Tree tree(n, tree_barrier ? b.arity : 2);
    if (tree_barrier) {
        out.noiseless_phase = noiseless_tree(tree, b, config.work, t, msg);
        std::fill(t.begin(), t.end(), 0);
    } else {
        out.noiseless_phase = config.work;
    }

    parallel_for(threads, 0, n, [&](std::uint64_t lo, std::uint64_t hi, unsigned) {
        for (std::uint64_t k = lo; k < hi; ++k)
            start[k] = start_position(timeline_of(k), config.start, k);
    });

    // `cost` cycles of CPU work for task k from its current time, stretched by jitter.
    auto work_on = [&](std::uint64_t k, std::uint64_t cost) {
        if (cost == 0) return;
        const Timeline& tl = timeline_of(k);
        std::uint64_t pos = start[k] + t[k];
        if (pos < start[k]) pos = start[k] % tl.length() + t[k] % tl.length();
        const Timeline::Step s = tl.run(pos, cost, hint[k]);
        t[k] = add_checked(t[k], s.elapsed);
        jit[k] += s.jitter;
    };
    auto wait_until = [&](std::uint64_t k, std::uint64_t when) {
        if (when > t[k]) {
            wait[k] += when - t[k];
            t[k] = when;
        }
    };

    std::vector<std::uint64_t> slot_max(threads);
    std::uint64_t end = 0;  // end of the previous phase
    if (!tree_barrier) {
        for (std::uint32_t j = 0; j < config.phases; ++j) {
            std::fill(slot_max.begin(), slot_max.end(), 0);
            const std::uint64_t release = end;
            parallel_for(threads, 0, n, [&](std::uint64_t lo, std::uint64_t hi, unsigned slot) {
                std::uint64_t mx = 0;
                for (std::uint64_t k = lo; k < hi; ++k) {
                    wait_until(k, release);  // the previous phase's barrier
                    work_on(k, config.work);
                    mx = std::max(mx, t[k]);
                }
                slot_max[slot] = std::max(slot_max[slot], mx);
            });
            const std::uint64_t e = *std::max_element(slot_max.begin(), slot_max.end());
            out.phase_cycles.push_back(e - end);
            end = e;
        }
    } else {
        const Latency lat{b.shm_latency, b.network_latency, cpn};
        const std::size_t levels = tree.levels();
        for (std::uint32_t j = 0; j < config.phases; ++j) {
            // Post-barrier (the root's start message percolates down), then the compute.
            for (std::size_t d = 0; d < levels; ++d)
                parallel_for(threads, tree.level_first[d], tree.level_first[d + 1],
                             [&](std::uint64_t lo, std::uint64_t hi, unsigned) {
                                 for (std::uint64_t i = lo; i < hi; ++i) {
                                     if (i != 0) {
                                         wait_until(i, msg[i]);
                                         work_on(i, b.recv);
                                     }
                                     const std::uint64_t ce = tree.child_end(i);
                                     for (std::uint64_t c = tree.child_begin(i); c < ce; ++c) {
                                         work_on(i, b.send);
                                         msg[c] = add_checked(t[i], lat(i, c));
                                     }
                                     work_on(i, config.work);
                                 }
                             });
            // Pre-barrier: leaves first; a task receives from its children in index order,
            // then notifies its parent.
            for (std::size_t d = levels; d-- > 0;)
                parallel_for(threads, tree.level_first[d], tree.level_first[d + 1],
                             [&](std::uint64_t lo, std::uint64_t hi, unsigned) {
                                 for (std::uint64_t i = lo; i < hi; ++i) {
                                     const std::uint64_t ce = tree.child_end(i);
                                     for (std::uint64_t c = tree.child_begin(i); c < ce; ++c) {
                                         wait_until(i, add_checked(t[c], lat(i, c)));
                                         work_on(i, b.recv);
                                     }
                                     if (i != 0) work_on(i, b.send);
                                 }
                             });
            out.phase_cycles.push_back(t[0] - end);
            end = t[0];
        }
    }

    // Every task's run ends with the last barrier (None: when the slowest task finished;
    // Tree: when the root has heard from every task): the rest is wait.
    const std::uint64_t run_end = end;
    // Coverage sums in integers per trace, so the result does not depend on how the tasks
    // were split among threads.
    std::vector<std::vector<u128>> cycles_sum(threads, std::vector<u128>(ntl, 0));
    std::vector<double> cov_max(threads, 0.0);
    if (config.per_task) out.per_task.resize(n);
    parallel_for(threads, 0, n, [&](std::uint64_t lo, std::uint64_t hi, unsigned slot) {
        std::vector<u128>& sums = cycles_sum[slot];
        double mx = 0;
        for (std::uint64_t k = lo; k < hi; ++k) {
            wait_until(k, run_end);
            const std::size_t which = ntl == 1 ? 0 : (k % cpn) % ntl;
            sums[which] += t[k];
            mx = std::max(mx, 100.0 * static_cast<double>(t[k]) /
                                  static_cast<double>(timelines[which]->length()));
            if (config.per_task) {
                std::uint64_t per_phase = config.work;
                if (tree_barrier) {
                    const std::uint64_t msgs =
                        (tree.child_end(k) - std::min(tree.child_end(k), tree.child_begin(k))) +
                        (k != 0 ? 1 : 0);
                    per_phase += msgs * (b.send + b.recv);
                }
                TaskTotals& tt = out.per_task[k];
                tt.compute = per_phase * config.phases;
                tt.jitter = jit[k];
                tt.wait = wait[k];
                tt.total = t[k];
            }
        }
        cov_max[slot] = std::max(cov_max[slot], mx);
    });
    double cov_sum = 0;
    for (std::size_t w = 0; w < ntl; ++w) {
        u128 s = 0;
        for (const auto& sums : cycles_sum) s += sums[w];
        cov_sum += 100.0 * static_cast<double>(s) / static_cast<double>(timelines[w]->length());
    }
    for (double m : cov_max) out.coverage_max_percent = std::max(out.coverage_max_percent, m);
    out.coverage_percent = cov_sum / static_cast<double>(n);
    out.mean_phase = static_cast<double>(run_end) / static_cast<double>(config.phases);
    out.slowdown_percent =
        100.0 * (out.mean_phase / static_cast<double>(out.noiseless_phase) - 1.0);
    return out;
}

}  // namespace clustersim::jitter
