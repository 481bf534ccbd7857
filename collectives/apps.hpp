// Built-in applications for `clustersim run --app NAME:key=value,...`: pingpong, stream,
// every collective (blocking and nonblocking), the PIOsimHD patterns, and `loop` (compute
// then barrier, the OS-jitter benchmark; `barrier-loop` is the same).
//
// Each app is a Program with documented parameters, registered by name in an AppRegistry
// through register_builtin_apps(). Parameter values carry units (size=1MiB) and are parsed
// strictly: an unknown app or parameter is an error that lists the valid ones.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/program.hpp"
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

struct AppParam {
    std::string name;
    std::string kind;           // "size", "count", ...: how it is parsed
    std::string default_value;  // "" = required
    std::string help;
};

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
    std::vector<AppParam> params;
    std::uint32_t min_ranks = 1;
    std::function<std::unique_ptr<App>(const AppArgs&, std::uint32_t ranks)> make;
};

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

}  // namespace clustersim::mpi
