#!/usr/bin/env bash
# Installs the Debian 12 packages clustersim builds with, if any is missing. Idempotent:
# with everything present it changes nothing and needs no network. Run as root (or with sudo).
# `--run`: only what the clustersim command needs (the README's first command); `--fuzz`: that
# and clang with libFuzzer (the fuzz harnesses); `--apps`: everything, and the Debian
# applications `bash bench/validate.sh apps` records (RECORD=1); no option: everything the
# tests, the MPI programs and the Debian package need (the README's second command).
set -euo pipefail
# What building the clustersim command needs (README command 1: `install-deps.sh --run`).
packages=(
  cmake ninja-build g++ pkg-config
  lld                   # LLVM's linker: links the test and bench programs in a third of GNU ld's time
  libboost-graph-dev    # Boost.Graph (CSR topology) and Boost.Heap (event queue)
  libpugixml-dev        # model XML
  libfmt-dev            # formatting
  libcli11-dev          # the command line
  nlohmann-json3-dev    # JSON output
  libotf2-trace-dev     # OTF2 traces: the otf2 reader and writer (pkg-config module otf2)
)
# The real applications of the validation (issue 23): LAMMPS (`lmp`) and HPCC (`hpcc`).
if [ "${1:-}" = "--apps" ]; then
  packages+=(lammps hpcc)
fi
# The libFuzzer harnesses of tests/fuzz (-DCLUSTERSIM_FUZZ=ON; CI's fuzz step): `--fuzz`.
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libfuzzer-14-dev)
fi
# What the tests, the MPI programs, the man pages and the package need as well (command 2, CI).
if [ "${1:-}" != "--run" ] && [ "${1:-}" != "--fuzz" ]; then
  packages+=(
  libgtest-dev libgmock-dev  # tests
  otf2-tools            # otf2-print: the test that OTF2 tools read clustersim's archives
  libopenmpi-dev openmpi-bin  # the MPI tracer, calibration and benchmark programs, and the
                              # end-to-end test that runs them under mpirun
  gfortran              # the Fortran programs the tracer's Fortran test traces
  help2man              # man pages made from the commands' own --help (cmake/package.cmake)
  python3 python3-jsonschema  # the doc-test (tests/doc/doctest.py), the JSON Schema test of
                              # run --json, bench/io_tables.sh
  time                  # GNU time: CPU time and peak memory per run in bench/scale.sh
  )
fi
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
