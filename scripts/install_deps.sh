#!/usr/bin/env bash
# Installs every Debian package that building, testing and benchmarking cdens needs.
# Idempotent: asks dpkg what is missing and says nothing when everything is there.
set -euo pipefail

packages=(
  g++ make cmake
  ccache                 # compiler cache: rebuilds of unchanged sources are replayed
  clang-format           # make test checks the layout of the C++ sources
  flake8                 # make test lints the Python sources
  clang libclang-rt-14-dev libomp-dev  # libFuzzer harnesses of the readers (make fuzz)
  libeigen3-dev          # matrices, eigendecompositions, FFT (binned kernel sums)
  libopenblas-pthread-dev # BLAS behind Eigen's products, set to one thread (CMakeLists.txt
                          # says why)
  libcli11-dev           # command-line parsing
  libnlopt-dev           # L-BFGS for the PRESS fit
  nlohmann-json3-dev     # model files
  libgtest-dev           # unit tests
  libbenchmark-dev       # micro-benchmarks
  libopenmpi-dev openmpi-bin  # the MPI communicator (CDENS_WITH_MPI) and its tests under mpirun
  # The Python package: built with pybind11 against Debian's python3 in a venv
  python3-dev python3-venv python3-pip python3-setuptools python3-wheel pybind11-dev
  python3-numpy python3-scipy python3-sklearn python3-matplotlib python3-pandas python3-pytest
  python3-statsmodels    # the conditional KDE peer of bench/peers/cde
  python3-hypothesis     # property-based tests of the Python API (tests/robustness)
  python3-mpi4py         # fits from Python under mpirun
  python3-dask python3-distributed  # fits from dask collections on a Dask cluster
  # The R package (R/cdens): built with Rcpp against Debian's R, tested with testthat
  r-base-core r-base-dev r-cran-rcpp r-cran-testthat
  r-cran-ks r-cran-ranger  # the R peers of bench/peers/r (kernel densities, quantile forests)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cdens: installing ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -ne 0 ] && as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
