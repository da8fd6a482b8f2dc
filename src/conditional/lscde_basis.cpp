#include "conditional/lscde_basis.hpp"

#include "core/log_space.hpp"
#include "kernel_sums/gaussian_kernel.hpp"

namespace cdens {

Matrix log_basis_factors(const MatrixView& points, const MatrixView& centers, double sigma) {
  Matrix factors(points.cols(), centers.cols());
  squared_distances(points, centers, factors);
  factors *= -0.5 / (sigma * sigma);
  return factors;
}

Matrix output_overlap(const LscdeBasis& basis) {
  return exp_flushing_below(
      squared_distances(basis.centers_y, basis.centers_y) * (-0.25 / (basis.sigma * basis.sigma)),
      kBasisLogCutoff);
}

}  // namespace cdens
