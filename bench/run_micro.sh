#!/usr/bin/env bash
# Runs every micro-benchmark of a build directory (make bench).
set -euo pipefail
build=${1:?usage: bench/run_micro.sh BUILD_DIR}
"$build/bench/micro/cdens_bench_lscde"
"$build/bench/micro/cdens_bench_bandwidth_likelihood"
"$build/bench/micro/cdens_bench_kernel_sums"
"$build/bench/micro/cdens_bench_gmm"
"$build/bench/micro/cdens_bench_press"
