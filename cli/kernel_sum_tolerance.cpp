#include "kernel_sum_tolerance.hpp"

namespace cdens::cli {

CLI::Option* add_kernel_sum_tolerance(CLI::App& command, double& tolerance) {
  return command
      .add_option("--tolerance", tolerance,
                  "Density models: largest error of each log-density of a Parzen window "
                  "(kernel sums by tree, binned FFT or Gauss transform within it; 0: exact)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

}  // namespace cdens::cli
