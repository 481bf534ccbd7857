// The tracer's reach into MPI's other language bindings. Open MPI's Fortran bindings
// (libmpi_mpifh, which the `mpi` module and `mpi_f08` call in turn) convert their arguments
// and then call PMPI_Name, not MPI_Name, so a PMPI tracer never sees a Fortran program's
// calls, not even its MPI_Init. redirect_bindings() points those libraries' references to
// PMPI_Name (their GOT slots: what the dynamic linker bound each call to) at the tracer's
// own MPI_Name, which records the call and then calls PMPI_Name as for a C program. Only
// the binding libraries named are changed; MPI's own library and the application are not.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::tracer {

struct Redirect {
    const char* from;  // the symbol a binding library calls: "PMPI_Send"
    void* to;          // what its calls reach instead: the tracer's MPI_Send
};

// The binding libraries by file name (the part before ".so"): Open MPI's Fortran bindings,
// and MPICH's under the names its packages give them. CLUSTERSIM_TRACE_BINDINGS (names
// separated by ':', or "none") replaces this list.
inline const std::vector<std::string>& default_binding_libraries() {
    static const std::vector<std::string> names{
        "libmpi_mpifh",  "libmpi_usempif08", "libmpi_usempi_ignore_tkr",
        "libmpi_usempi", "libmpifort",       "libmpichfort",
        "libfmpich",     "libmpichf90"};
    return names;
}

// Whether `path` (a loaded object's path) is one of `libraries`: its file name is one of
// them followed by ".so" (and any version suffix).
bool is_binding_library(std::string_view path, const std::vector<std::string>& libraries);

struct RedirectReport {
    int libraries = 0;  // binding libraries found loaded
    int slots = 0;      // GOT slots redirected in them
    std::string error;  // the first failure (a slot that could not be made writable), or ""
};

// Redirects, in every loaded object that is one of `libraries`, each GOT slot bound to a
// symbol named in `table` to that entry's `to`. Call it once, before the program's first MPI
// call (the tracer does it from a constructor). Objects loaded later are not changed.
RedirectReport redirect_bindings(const std::vector<std::string>& libraries, const Redirect* table,
                                 std::size_t n);

}  // namespace clustersim::tracer
