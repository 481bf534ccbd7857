// Sweeps: a sweep file (JSON) names a base run and axes; expand() turns it into points, each
// one `clustersim run ... --json` command line with a stable hash that keys its result.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::sweep {

// What an axis varies. The axis name decides it (see sweep/README.md for the table).
enum class AxisKind {
    App,        // "app": the whole --app spec (a string, or a list for several apps)
    AppParam,   // "size", "iterations", "app.root", ...: one parameter of every built-in app
    Trace,      // "trace": --app trace:PATH
    Model,      // "model": the model file
    Topology,   // "topology": the generator's kind (star, fat-tree, torus, dragonfly)
    Generator,  // "nodes", "link-bandwidth", ...: a `clustersim generate` flag
    Algorithm,  // "algorithm": --algorithm OP=NAME (a list value gives several overrides)
    Network,    // "network"
    Ranks,      // "ranks" (a list value gives one --ranks per app)
    Placement,  // "placement"
    Cache,      // "cache"
    Seed,       // "seed": --seed (an integer N instead of a list means seeds 1..N)
};

struct Axis {
    std::string name;
    AxisKind kind = AxisKind::AppParam;
    std::string param;                   // AppParam: the parameter; Generator: the flag's name
    std::vector<nlohmann::json> values;  // strings, numbers, or lists of strings
    int line = 0;                        // line of the axis in the sweep file
};

// Per-point limits: a point past its wall time is killed (SIGKILL), past its memory its
// allocations fail (RLIMIT_AS), so it ends with an error instead of taking the machine down.
struct Limits {
    double wall_s = 3600;            // 0: none
    std::uint64_t memory_bytes = 0;  // 0: none
};

struct SweepSpec {
    std::string file;  // the sweep file as given
    std::string dir;   // its folder: relative paths in it are relative to this
    std::string name;  // the file's stem (default output folder: NAME.sweep)
    // Base run. Exactly one of model / generate_kind is set.
    std::string model;  // absolute path
    std::string generate_kind;
    std::vector<std::pair<std::string, std::string>> generate_flags;  // flag (no --), value
    std::vector<std::string> apps;   // --app specs (trace:PATH made absolute)
    std::vector<std::string> ranks;  // --ranks, one per built-in app
    std::vector<std::string> algorithms;
    std::string network, placement, cache, seed;
    bool oversubscribe = false;
    std::vector<std::string> flags;                // more `run` flags, passed as they are
    std::vector<Axis> axes;                        // in file order
    std::vector<std::vector<std::size_t>> groups;  // axes advancing together (zip), file order
    Limits limits;
    // Figures drawn after every run of the sweep ("plots": [{"x": ..., "y": ..., "series": ...,
    // "facet": ..., "log_x": true, "log_y": true, "speedup": false, "title": ..., "output":
    // "NAME.svg", "table": "NAME.md"}]); outputs relative to the output folder.
    nlohmann::json plots = nlohmann::json::array();
};

struct Point {
    std::size_t index = 0;                                     // row-major, first axis slowest
    std::vector<std::pair<std::string, nlohmann::json>> axes;  // axis name, value
    std::vector<std::string> run_args;       // after `clustersim`: run MODEL --app ... --json
    std::vector<std::string> generate_args;  // after `clustersim`: generate KIND ...; or empty
    std::string model_key;                   // hash of generate_args ("" for a model file)
    std::string hash;                        // 16 hex digits: the point's identity (resume key)
    double cost = 0;                         // relative cost estimate (longest first)
};

// Reads and checks a sweep file; errors are InputError "FILE:LINE: ...".
SweepSpec load_sweep(const std::string& path);
SweepSpec parse_sweep(const std::string& text, const std::string& path);

// All points, in index order. A generated model's path in run_args is
// "models/<model_key>.xml", relative to the sweep's output folder (the points' working
// directory).
std::vector<Point> expand(const SweepSpec& spec);

// An axis value as text: a string as is, a number without trailing zeros, a list joined by
// "+" ("bcast=binomial+reduce=binomial").
std::string value_text(const nlohmann::json& v);

// FNV-1a, 64 bits, as 16 hex digits: stable across machines and compilers (std::hash is not).
std::string fnv1a_hex(const std::string& data);

// The hard-coded `clustersim generate` flags a generator axis may name.
const std::vector<std::string>& generator_flags();

}  // namespace clustersim::sweep
