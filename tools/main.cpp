#include "tools/cli.hpp"

int main(int argc, char** argv) {
    return clustersim::cli::main(argc, argv);
}
