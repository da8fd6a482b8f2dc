#pragma once
// --tolerance of the commands that query a density model's kernel sums (score, grid).

#include <CLI/CLI.hpp>

namespace cdens::cli {

/// Registers --tolerance into `tolerance` (DensityQuery's default): the largest error of each
/// log-density of a Parzen window.
CLI::Option* add_kernel_sum_tolerance(CLI::App& command, double& tolerance);

}  // namespace cdens::cli
