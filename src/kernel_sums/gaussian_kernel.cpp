#include "kernel_sums/gaussian_kernel.hpp"

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "core/validate.hpp"
#include "io/csv.hpp"

namespace cdens {

void require_kernel_width(double width, const std::string& what) {
  if (!(width >= kNarrowestKernelWidth && width <= kWidestKernelWidth)) {
    throw InvalidArgument(what + " must lie in [" + format_number(kNarrowestKernelWidth) + ", " +
                          format_number(kWidestKernelWidth) + "], got " + format_number(width) +
                          kKernelWidthRangeReason);
  }
}

void squared_distances(const MatrixView& a, const MatrixView& b, Eigen::Ref<Matrix> out) {
  if (a.rows() != b.rows()) throw InvalidArgument("squared_distances: dimensions differ");
  if (out.rows() != a.cols() || out.cols() != b.cols()) {
    throw InvalidArgument("squared_distances: output has the wrong shape");
  }
  out.noalias() = -2.0 * a.transpose() * b;
  const Eigen::ArrayXd a_norms = a.colwise().squaredNorm().transpose();
  const Eigen::ArrayXd b_norms = b.colwise().squaredNorm().transpose();
  for (Index j = 0; j < out.cols(); ++j) {
    out.col(j) = (out.col(j).array() + a_norms + b_norms(j)).max(0.0).matrix();
  }
}

Matrix squared_distances(const MatrixView& a, const MatrixView& b) {
  Matrix out(a.cols(), b.cols());
  squared_distances(a, b, out);
  return out;
}

Matrix gaussian_kernel(const MatrixView& a, const MatrixView& b, double sigma) {
  require_positive(sigma, "kernel width sigma");
  return exp_flushing_below(squared_distances(a, b) * (-0.5 / (sigma * sigma)));
}

}  // namespace cdens
