#include "tools/cli.hpp"

// Under AddressSanitizer the run frees what it made, so that the leak check sees real leaks.
#if defined(__SANITIZE_ADDRESS__)
#define CLUSTERSIM_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLUSTERSIM_FREE_AT_EXIT 1
#endif
#endif

int main(int argc, char** argv) {
#ifndef CLUSTERSIM_FREE_AT_EXIT
    clustersim::cli::set_exit_without_teardown(true);
#endif
    return clustersim::cli::main(argc, argv);
}
