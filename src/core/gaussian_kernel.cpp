#include "cdens/core/gaussian_kernel.hpp"

#include "cdens/core/error.hpp"

namespace cdens {

void squared_distances(const MatrixView& a, const MatrixView& b, Eigen::Ref<Matrix> out) {
  if (a.rows() != b.rows()) throw InvalidArgument("squared_distances: dimensions differ");
  if (out.rows() != a.cols() || out.cols() != b.cols()) {
    throw InvalidArgument("squared_distances: output has the wrong shape");
  }
  out.noalias() = -2.0 * a.transpose() * b;
  out.colwise() += a.colwise().squaredNorm().transpose();
  out.rowwise() += b.colwise().squaredNorm();
  out = out.cwiseMax(0.0);
}

Matrix squared_distances(const MatrixView& a, const MatrixView& b) {
  Matrix out(a.cols(), b.cols());
  squared_distances(a, b, out);
  return out;
}

Matrix gaussian_kernel(const MatrixView& a, const MatrixView& b, double sigma) {
  Matrix kernel = squared_distances(a, b);
  kernel = (kernel.array() * (-0.5 / (sigma * sigma))).exp();
  return kernel;
}

}  // namespace cdens
