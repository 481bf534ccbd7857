// The program's version for --version: "clustersim 0.1.0 (git 6efe7d5a1b2c)".
#pragma once

#include <string>

namespace clustersim::cli {

std::string version_line();

}  // namespace clustersim::cli
