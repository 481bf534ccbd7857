// The one file that includes the generated version header, so a new commit recompiles it
// alone (cmake/version.cmake).
#include "tools/version.hpp"

#include "clustersim_version.hpp"

namespace clustersim::cli {

std::string version_line() {
    return std::string("clustersim ") + CLUSTERSIM_VERSION + " (git " + CLUSTERSIM_REVISION + ")";
}

}  // namespace clustersim::cli
