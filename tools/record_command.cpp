#include "tools/record_command.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/trace_commands.hpp"

extern char** environ;

namespace clustersim::cli {
namespace fs = std::filesystem;

namespace {

std::string self_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

bool is_open_mpi_launcher(const std::string& program) {
    const std::string base = fs::path(program).filename().string();
    return base == "mpirun" || base == "mpiexec" || base == "orterun" || base == "mpirun.openmpi" ||
           base == "mpiexec.openmpi";
}

}  // namespace

std::string find_tracer() {
    if (const char* env = std::getenv("CLUSTERSIM_TRACER"); env != nullptr && *env != '\0')
        return env;
    const std::string dir = self_dir();
    if (dir.empty()) return "";
    // Build tree, then the installed layouts (lib/, lib64/, Debian's multiarch lib/<triplet>/).
    std::vector<fs::path> candidates = {
        fs::path(dir) / "mpi" / "libclustersim-trace.so",
        fs::path(dir) / ".." / CLUSTERSIM_INSTALL_LIBDIR / "libclustersim-trace.so",
        fs::path(dir) / ".." / "lib" / "libclustersim-trace.so"};
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c, ec).string();
    }
    return "";
}

int cmd_record(const RecordFlags& f) {
    if (f.command.empty())
        throw InputError("record", 0,
                         "expected the command to run after '--', e.g. clustersim record -- "
                         "mpirun -np 2 ./app");
    const std::string tracer = f.tracer.empty() ? find_tracer() : f.tracer;
    if (tracer.empty())
        throw InputError("--tracer", 0,
                         "libclustersim-trace.so not found beside clustersim (built with "
                         "-DCLUSTERSIM_MPI=ON?); name it with --tracer or $CLUSTERSIM_TRACER");
    {
        std::error_code ec;
        if (!fs::is_regular_file(tracer, ec))
            throw InputError("--tracer", 0, fmt::format("'{}' is not a file", tracer));
    }
    const fs::path tracer_path = fs::absolute(tracer);
    // The flags the merge reads are checked before the program runs, not after it.
    merged_trace_format(f.output, f.to);
    if (!f.traced_speed.empty()) flag_value("--traced-speed", f.traced_speed, parse_speed);
    const fs::path dir = fs::absolute(f.dir.empty() ? f.output + ".ranks" : f.dir);
    // The output and the folder are checked before the program runs, not after.
    {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir))
            throw InputError(f.dir.empty() ? "--out" : "--dir", 0,
                             fmt::format("cannot make folder {}: {}", dir.string(),
                                         ec ? ec.message() : "a file of that name exists"));
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (entry.path().extension() == ".csrank")
                throw InputError(
                    "--dir", 0,
                    fmt::format("{} already holds rank files ({}); remove them or name another "
                                "folder, so that two runs do not mix",
                                dir.string(), entry.path().filename().string()));
        const fs::path out_parent = fs::absolute(f.output).parent_path();
        if (!fs::is_directory(out_parent, ec))
            throw InputError("--out", 0,
                             fmt::format("folder {} does not exist", out_parent.string()));
        if (::access(out_parent.c_str(), W_OK) != 0)
            throw InputError(
                "--out", 0,
                fmt::format("cannot write in {}: {}", out_parent.string(), std::strerror(errno)));
    }

    // The command, with the tracer preloaded into the MPI processes only: Open MPI's launcher
    // gets it through -x (so that it also reaches ranks on other nodes, and mpirun itself is
    // left alone); any other command (srun, a program run directly) through the environment.
    std::vector<std::string> args = f.command;
    std::vector<std::string> env_extra = {"CLUSTERSIM_TRACE_DIR=" + dir.string()};
    const std::string preload = "LD_PRELOAD=" + tracer_path.string();
    if (is_open_mpi_launcher(args[0])) {
        args.insert(args.begin() + 1, {"-x", preload, "-x", env_extra[0]});
    } else {
        const char* old = std::getenv("LD_PRELOAD");
        env_extra.push_back(old != nullptr && *old != '\0' ? preload + ":" + old : preload);
    }
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (key == "CLUSTERSIM_TRACE_DIR" || (key == "LD_PRELOAD" && env_extra.size() > 1))
            continue;
        env.push_back(kv);
    }
    env.insert(env.end(), env_extra.begin(), env_extra.end());
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    std::string shown;
    for (const auto& a : args) shown += (shown.empty() ? "" : " ") + a;
    std::cerr << "clustersim record: running " << shown << "\n";
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
    if (spawned != 0)
        throw InputError("record", 0,
                         fmt::format("cannot run '{}': {}", args[0], std::strerror(spawned)));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            throw InputError("record", 0,
                             fmt::format("waiting for '{}': {}", args[0], std::strerror(errno)));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const std::string how = WIFEXITED(status)
                                    ? fmt::format("exited with code {}", WEXITSTATUS(status))
                                    : fmt::format("was killed by signal {}", WTERMSIG(status));
        std::string hint;
        if (is_open_mpi_launcher(args[0]) && ::geteuid() == 0)
            hint = " (as root, Open MPI's mpirun needs --allow-run-as-root)";
        std::cerr << fmt::format("clustersim: error: record: '{}' {}{}; nothing merged\n", args[0],
                                 how, hint);
        return WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1;
    }
    MergeFlags m;
    m.inputs = {dir.string()};
    m.output = f.output;
    m.to = f.to;
    m.name = f.name;
    m.traced_speed = f.traced_speed;
    const int code = cmd_trace_merge(m);
    if (code == 0)
        std::cerr << fmt::format(
            "clustersim record: rank files in {}; replay with: clustersim run MODEL.xml --app "
            "trace:{}\n",
            dir.string(), f.output);
    return code;
}

}  // namespace clustersim::cli
