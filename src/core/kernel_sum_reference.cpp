#include "core/kernel_sum_reference.hpp"

#include <cmath>

#include "cdens/core/error.hpp"
#include "core/log_space.hpp"

namespace cdens {

KernelSumReference::KernelSumReference(const MatrixView& all_points,
                                       const VectorView& all_weights) {
  if (all_weights.size() != all_points.cols()) {
    throw InvalidArgument("kernel sums: one weight per point is needed");
  }
  if (all_points.rows() == 0) throw InvalidArgument("kernel sums: the points have no dimension");
  if (!all_weights.allFinite() || (all_weights.array() < 0.0).any()) {
    throw InvalidArgument("kernel sums: weights must be finite and non-negative");
  }
  const Index positive = (all_weights.array() > 0.0).count();
  if (positive == 0) throw InvalidArgument("kernel sums: every weight is zero");
  if (positive == all_weights.size()) {
    points = all_points;
    weights = all_weights;
  } else {
    points.resize(all_points.rows(), positive);
    weights.resize(positive);
    for (Index i = 0, k = 0; i < all_weights.size(); ++i) {
      if (all_weights(i) > 0.0) {
        points.col(k) = all_points.col(i);
        weights(k++) = all_weights(i);
      }
    }
  }
  const double total = weights.sum();
  log_total = std::log(total);
  weights /= total;
  // Equal weights (the Parzen window) need no logarithm per point.
  if (weights.maxCoeff() == weights.minCoeff()) {
    log_weights = Vector::Constant(positive, std::log(weights(0)));
  } else {
    log_weights = weights.array().log();
  }
  // Row by row: each a contiguous-in-memory pass Eigen vectorises over n, also for d = 1.
  origin = points.rowwise().mean();
  offsets = log_weights;
  for (Index k = 0; k < points.rows(); ++k) {
    points.row(k).array() -= origin(k);
    offsets.array() -= 0.5 * points.row(k).transpose().array().square();
  }
}

Matrix KernelSumReference::centred(const MatrixView& queries) const {
  if (queries.rows() != dimension()) {
    throw InvalidArgument("kernel sums: the queries have " + std::to_string(queries.rows()) +
                          " dimensions, the points " + std::to_string(dimension()));
  }
  return queries.colwise() - origin;
}

double KernelSumReference::log_space_sum(const VectorView& centred_query) const {
  Eigen::ArrayXd exponents = (points.transpose() * centred_query).array() + offsets.array() -
                             0.5 * centred_query.squaredNorm();
  const double largest = exponents.maxCoeff();
  // Evaluated into memory, where Eigen's exp is vectorised.
  exponents = (exponents - largest).max(kLogSmallestNormal);
  exponents = exponents.exp();
  return largest + std::log(exponents.sum());
}

}  // namespace cdens
