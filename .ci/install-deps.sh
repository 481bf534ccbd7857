#!/usr/bin/env bash
# Installs the Debian 12 packages clustersim builds with, if any is missing. Idempotent:
# with everything present it changes nothing and needs no network. Run as root (or with sudo).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libboost-graph-dev    # Boost.Graph (CSR topology) and Boost.Heap (event queue)
  libpugixml-dev        # model XML
  libfmt-dev            # formatting
  libcli11-dev          # the command line
  nlohmann-json3-dev    # JSON output
  libgtest-dev libgmock-dev  # tests
  libopenmpi-dev openmpi-bin  # the MPI tracer, calibration and benchmark programs, and the
                              # end-to-end test that runs them under mpirun
  help2man              # man pages made from the commands' own --help (cmake/package.cmake)
  clang libfuzzer-14-dev  # the libFuzzer harnesses of tests/fuzz (-DCLUSTERSIM_FUZZ=ON)
  python3 python3-jsonschema  # the doc-test (tests/doc/doctest.py), the JSON Schema test of
                              # run --json, bench/io_tables.sh
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
