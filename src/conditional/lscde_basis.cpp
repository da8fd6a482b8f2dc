#include "cdens/conditional/lscde_basis.hpp"

#include "cdens/core/gaussian_kernel.hpp"

namespace cdens {

Matrix log_basis_factors(const MatrixView& points, const MatrixView& centers, double sigma) {
  return squared_distances(points, centers) * (-0.5 / (sigma * sigma));
}

Matrix exp_flushing_tiny(const Matrix& log_values) {
  constexpr double kLogCutoff = -340.0;
  // Exponentiate everything first (vectorised), then zero the tiny entries.
  Matrix values = log_values.array().max(kLogCutoff).exp();
  values = (log_values.array() < kLogCutoff).select(0.0, values);
  return values;
}

Matrix output_overlap(const LscdeBasis& basis) {
  return exp_flushing_tiny(squared_distances(basis.centers_y, basis.centers_y) *
                           (-0.25 / (basis.sigma * basis.sigma)));
}

}  // namespace cdens
