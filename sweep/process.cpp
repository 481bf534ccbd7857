#include "sweep/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace clustersim::sweep {
namespace {

// A child's output beyond this is read and dropped (a run's JSON is a few KiB).
constexpr std::size_t kMaxCapture = 64u << 20;

}  // namespace

std::vector<int> usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) out.push_back(c);
    return out;
}

std::string last_line(const std::string& text) {
    std::size_t end = text.size();
    while (end > 0) {
        while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' '))
            --end;
        if (end == 0) break;
        std::size_t begin = text.rfind('\n', end - 1);
        begin = begin == std::string::npos ? 0 : begin + 1;
        std::string line = text.substr(begin, end - begin);
        // A progress line ends in '\r' updates: keep what follows the last one.
        if (auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
        if (!line.empty()) return line;
        end = begin;
    }
    return {};
}

Pool::~Pool() {
    for (auto& c : running_) {
        ::kill(c.pid, SIGKILL);
        int status = 0;
        ::waitpid(c.pid, &status, 0);
        if (c.out_fd >= 0) ::close(c.out_fd);
        if (c.err_fd >= 0) ::close(c.err_fd);
    }
}

void Pool::start(std::size_t id, const std::string& exe, const std::vector<std::string>& args,
                 const std::string& cwd, const Limits& limits) {
    Child c;
    c.id = id;
    c.start = std::chrono::steady_clock::now();
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        c.outcome.spawn_error = fmt::format("pipe: {}", std::strerror(errno));
        failed_spawns_.emplace_back(id, c.outcome);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&c.pid, exe.c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(out[0]);
        ::close(err[0]);
        c.outcome.spawn_error = fmt::format("cannot start {}: {}", exe, std::strerror(rc));
        failed_spawns_.emplace_back(id, c.outcome);
        return;
    }
    // The lowest slot no running child holds.
    for (c.slot = 0; c.slot < slots_; ++c.slot)
        if (std::none_of(running_.begin(), running_.end(),
                         [&](const Child& r) { return r.slot == c.slot; }))
            break;
    if (c.slot < cpus_.size()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus_[c.slot], &set);
        ::sched_setaffinity(c.pid, sizeof set, &set);
    }
    // Limits on the running child (posix_spawn has no setrlimit; prlimit right after the
    // spawn applies them before the model is even read).
    if (limits.memory_bytes > 0) {
        const rlimit as{limits.memory_bytes, limits.memory_bytes};
        ::prlimit(c.pid, RLIMIT_AS, &as, nullptr);
    }
    if (limits.wall_s > 0) {
        // CPU time as a backstop to the wall-time kill below.
        const auto cpu = static_cast<rlim_t>(std::ceil(limits.wall_s)) + 1;
        const rlimit r{cpu, cpu + 1};
        ::prlimit(c.pid, RLIMIT_CPU, &r, nullptr);
        c.has_deadline = true;
        c.deadline =
            c.start + std::chrono::microseconds(static_cast<std::int64_t>(limits.wall_s * 1e6));
    }
    c.out_fd = out[0];
    c.err_fd = err[0];
    ::fcntl(c.out_fd, F_SETFL, O_NONBLOCK);
    ::fcntl(c.err_fd, F_SETFL, O_NONBLOCK);
    running_.push_back(std::move(c));
}

void Pool::reap(Child& c) {
    int status = 0;
    rusage ru{};
    while (::wait4(c.pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    auto& o = c.outcome;
    o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
    o.peak_memory_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
    if (WIFEXITED(status)) {
        o.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        o.exit_code = -1;
        o.signal = WTERMSIG(status);
    }
    o.timed_out = c.killed;
}

std::vector<std::pair<std::size_t, Outcome>> Pool::wait(int timeout_ms) {
    std::vector<std::pair<std::size_t, Outcome>> done = std::move(failed_spawns_);
    failed_spawns_.clear();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    char buf[65536];
    while (done.empty() && !running_.empty()) {
        const auto now = std::chrono::steady_clock::now();
        // Children past their wall time: killed; their pipes then close.
        // Rounded up: 0.9 ms left must sleep 1 ms in poll, not spin with poll(0).
        int wait_ms =
            timeout_ms < 0
                ? -1
                : static_cast<int>(std::max<std::int64_t>(
                      0, std::chrono::ceil<std::chrono::milliseconds>(until - now).count()));
        for (auto& c : running_) {
            if (!c.has_deadline || c.killed) continue;
            if (now >= c.deadline) {
                ::kill(c.pid, SIGKILL);
                c.killed = true;
                continue;
            }
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count() + 1;
            if (wait_ms < 0 || left < wait_ms) wait_ms = static_cast<int>(left);
        }
        std::vector<pollfd> fds;
        for (const auto& c : running_) {
            if (c.out_fd >= 0) fds.push_back({c.out_fd, POLLIN, 0});
            if (c.err_fd >= 0) fds.push_back({c.err_fd, POLLIN, 0});
        }
        const int n = ::poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) break;
        for (auto& c : running_) {
            for (int* fd : {&c.out_fd, &c.err_fd}) {
                if (*fd < 0) continue;
                std::string& sink = fd == &c.out_fd ? c.outcome.out : c.outcome.err;
                while (true) {
                    const ssize_t got = ::read(*fd, buf, sizeof buf);
                    if (got > 0) {
                        if (sink.size() < kMaxCapture)
                            sink.append(buf, static_cast<std::size_t>(got));
                        continue;
                    }
                    if (got < 0 && errno == EINTR) continue;
                    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                        ::close(*fd);
                        *fd = -1;
                    }
                    break;
                }
            }
        }
        for (auto it = running_.begin(); it != running_.end();) {
            if (it->out_fd < 0 && it->err_fd < 0) {
                reap(*it);
                done.emplace_back(it->id, std::move(it->outcome));
                it = running_.erase(it);
            } else {
                ++it;
            }
        }
        if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= until) break;
    }
    return done;
}

Outcome run_process(const std::string& exe, const std::vector<std::string>& args,
                    const std::string& cwd, const Limits& limits) {
    Pool pool(1);
    pool.start(0, exe, args, cwd, limits);
    while (true) {
        auto done = pool.wait(-1);
        if (!done.empty()) return std::move(done[0].second);
    }
}

}  // namespace clustersim::sweep
