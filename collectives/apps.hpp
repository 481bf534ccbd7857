// Built-in applications for `clustersim run --app NAME:key=value,...`: pingpong, stream,
// every collective (blocking and nonblocking), the PIOsimHD patterns, and `loop` (compute
// then barrier, the OS-jitter benchmark; `barrier-loop` is the same).
//
// Each app is a Program with documented parameters (ParamInfo), registered by name in apps()
// (one `add` line, from any translation unit). Parameter values carry units (size=1MiB) and are
// parsed strictly: an unknown app or parameter is an error that lists the valid ones.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/program.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "simulator/time.hpp"

namespace clustersim::mpi {

// The built-in alltoallv app (and a trace's alltoallv) carries an n x n count matrix: at most
// 4,096 ranks (128 MiB of counts); more is refused naming the app (docs/limits.md).
inline constexpr std::uint32_t kMaxAlltoallvRanks = 4096;

// One result of an app in its own terms, e.g. a ping-pong's one-way time: the text summary
// prints `label` and `text` ("one-way time  10.12 ms"); `run --json` puts `value` under
// `key` in app_summary, a number in the unit the key ends with ("one_way_time_s": 0.01012).
struct AppResult {
    std::string label;
    std::string text;
    std::string key;
    double value = 0;
};

// An app is a Program that can also describe its result in its own terms.
class App : public Program {
  public:
    // Its results for the summary (e.g. one-way latency of a ping-pong).
    virtual std::vector<AppResult> summarize(Time simulated) const {
        (void)simulated;
        return {};
    }
    // The same with each of its ranks' finish times (index = the app's rank): apps whose
    // figures are per rank (the collectives' OSU-style latencies) override this one.
    virtual std::vector<AppResult> summarize_ranks(Time simulated,
                                                   const std::vector<Time>& finish) const {
        (void)finish;
        return summarize(simulated);
    }
    // Told each rank's core speed (instructions per second, index = the app's rank) before
    // the run. simulate() does it when the program it runs is an App; whoever wraps apps in
    // another Program (several apps, a recorder) calls it for each. Apps whose work is a time
    // (`loop`) turn it into instructions with it.
    virtual void set_core_speeds(const std::vector<std::uint64_t>& speeds) { (void)speeds; }
};

// One parameter of an app, documented as ParamInfo (simulator/params.hpp): `type` is how it
// is parsed ("size", "count", "time", or the choices "write|read"), the unit follows from it
// (B, s, none), `default_value` is what AppRegistry::create fills in when the spec leaves it
// out ("" = required), so the documented default is the one used.
ParamInfo app_param(std::string name, std::string type, std::string default_value, std::string doc);

// The key=value pairs of one --app spec, with typed, checked access.
class AppArgs {
  public:
    AppArgs(std::string spec, std::map<std::string, std::string> values)
        : spec_(std::move(spec)), values_(std::move(values)) {}
    std::uint64_t size(const std::string& key) const;
    std::uint64_t count(const std::string& key) const;
    Time time(const std::string& key) const;
    const std::string& spec() const { return spec_; }
    const std::map<std::string, std::string>& values() const { return values_; }

  private:
    std::string spec_;
    std::map<std::string, std::string> values_;  // defaults already filled in
};

struct AppInfo {
    std::string name;
    std::string help;
    std::vector<ParamInfo> params;
    std::uint32_t min_ranks = 1;
    std::function<std::unique_ptr<App>(const AppArgs&, std::uint32_t ranks)> make;
};

// Every app: the built-ins of register_builtin_apps (collectives/) on first use, then whatever
// any translation unit adds: io::add_io_apps() (iosys/ior.hpp), or from a test file
//     mpi::apps().add(mpi::AppInfo{"mine", "one line", {mpi::app_param(...)}, 1, factory});
// A run reads a copy taken at set-up (registered_apps()).
NamedRegistry<AppInfo>& apps();

// A set of apps to build from --app specs: a copy of apps() (registered_apps()) or a list of
// one's own (register_builtin_apps into an empty one).
class AppRegistry {
  public:
    void add(AppInfo info);
    // Parses "name:key=value,..." and builds the app for `ranks` ranks; throws InputError
    // (file "--app") for an unknown app, unknown or missing parameter, bad value, too few ranks.
    std::unique_ptr<App> create(const std::string& spec, std::uint32_t ranks) const;
    // The app's minimum rank count (the default for --ranks).
    std::uint32_t min_ranks(const std::string& spec) const;
    const std::vector<AppInfo>& apps() const { return apps_; }
    std::string names() const;  // "pingpong, stream"

  private:
    const AppInfo& find(const std::string& spec) const;
    std::vector<AppInfo> apps_;
};

void register_builtin_apps(AppRegistry& registry);
// Every app of apps() (built-in and added).
AppRegistry registered_apps();

}  // namespace clustersim::mpi
