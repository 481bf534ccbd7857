// The IOR-like benchmark app: `--app io:op=write,size=1GiB,transfer=1MiB,...`.
#pragma once

#include <vector>

#include "collectives/apps.hpp"
#include "iosys/file_system.hpp"

namespace clustersim::io {

// An app that touches files: it may need files to exist before the run (a read test).
class IoApp : public mpi::App {
  public:
    virtual std::vector<FileDecl> files() const = 0;
};

// Registers `io` (see iosys/README.md for its parameters).
void register_io_apps(mpi::AppRegistry& registry);
// Adds the apps of register_io_apps to mpi::apps(), once (later calls do nothing); whoever
// reads mpi::apps() for a run or a listing calls it first (run/program_source.cpp, the CLI).
void add_io_apps();

}  // namespace clustersim::io
