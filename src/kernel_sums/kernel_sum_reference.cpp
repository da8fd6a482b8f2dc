#include "kernel_sums/kernel_sum_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"

namespace cdens {
namespace {

// The largest rounding tolerated in an exponent of the GEMM form (log-sums then agree with the
// difference form's to about this, far inside the engine's 1e−6 default).
constexpr double kExpansionRounding = 1e-8;

/// (d + 2) ε s: the rounding bound of a GEMM-form exponent whose squared norms sum to s.
double rounding_of(Index dimension, double squared_norms) {
  return static_cast<double>(dimension + 2) * std::numeric_limits<double>::epsilon() *
         squared_norms;
}

}  // namespace

struct KernelSumReference::Trees {
  std::mutex building;
  std::map<Index, std::unique_ptr<const KdTree>> by_leaf_size;
};

KernelSumReference::KernelSumReference(const MatrixView& all_points, const VectorView& all_weights)
    : trees_(std::make_shared<Trees>()) {
  if (all_weights.size() != all_points.cols()) {
    throw InvalidArgument("kernel sums: one weight per point is needed");
  }
  if (all_points.rows() == 0) throw InvalidArgument("kernel sums: the points have no dimension");
  if (!all_weights.allFinite() || (all_weights.array() < 0.0).any()) {
    throw InvalidArgument("kernel sums: weights must be finite and non-negative");
  }
  points_given = all_points.cols();
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
        kept_columns.push_back(i);
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
  // A point far beyond the others (10¹³ widths) drags the mean there, and centring on it would
  // round every other coordinate to the mean's last digits: the coordinate-wise median keeps
  // the bulk of the points, and the queries near them, exact. Only when the spread about the
  // mean is that large, so ordinary data keep the mean (and their rounding).
  const double spread = (points.colwise() - origin).colwise().squaredNorm().maxCoeff();
  if (!(rounding_of(dimension(), spread) <= kExpansionRounding)) {
    for (Index k = 0; k < points.rows(); ++k) {
      std::vector<double> row(static_cast<std::size_t>(points.cols()));
      Eigen::Map<Eigen::RowVectorXd>(row.data(), points.cols()) = points.row(k);
      const auto middle = row.begin() + static_cast<std::ptrdiff_t>(row.size() / 2);
      std::nth_element(row.begin(), middle, row.end());
      origin(k) = *middle;
    }
  }
  offsets = log_weights;
  for (Index k = 0; k < points.rows(); ++k) {
    points.row(k).array() -= origin(k);
    offsets.array() -= 0.5 * points.row(k).transpose().array().square();
  }
  largest_squared_norm = -2.0 * (offsets - log_weights).minCoeff();
}

bool KernelSumReference::loses_exponents(const VectorView& centred_query) const {
  return !(rounding_of(dimension(), largest_squared_norm + centred_query.squaredNorm()) <=
           kExpansionRounding);
}

Matrix KernelSumReference::centred(const MatrixView& queries) const {
  if (queries.rows() != dimension()) {
    throw InvalidArgument("kernel sums: the queries have " + std::to_string(queries.rows()) +
                          " dimensions, the points " + std::to_string(dimension()));
  }
  return queries.colwise() - origin;
}

namespace {

/// log ŵ_i − ½‖q̃ − p̃_i‖² of every point, shifted by their largest (returned in `largest`; the
/// terms are left as they are where it is −∞) and floored at the smallest normal's log.
Eigen::ArrayXd shifted_exponents(const KernelSumReference& reference,
                                 const VectorView& centred_query, double& largest) {
  Eigen::ArrayXd exponents =
      reference.log_weights.array() -
      0.5 *
          (reference.points.colwise() - centred_query).colwise().squaredNorm().transpose().array();
  largest = exponents.maxCoeff();
  if (!(largest > -std::numeric_limits<double>::infinity())) return exponents;
  // Evaluated into memory, where Eigen's exp is vectorised.
  exponents = (exponents - largest).max(kLogSmallestNormal);
  return exponents.exp();
}

}  // namespace

double KernelSumReference::log_space_sum(const VectorView& centred_query) const {
  double largest = 0.0;
  const Eigen::ArrayXd terms = shifted_exponents(*this, centred_query, largest);
  if (!(largest > -std::numeric_limits<double>::infinity())) return largest;
  return largest + std::log(terms.sum());
}

Vector KernelSumReference::log_space_means(const VectorView& centred_query,
                                           const Matrix& factors) const {
  double largest = 0.0;
  const Eigen::ArrayXd terms = shifted_exponents(*this, centred_query, largest);
  if (!(largest > -std::numeric_limits<double>::infinity())) {
    return Vector::Zero(factors.rows());
  }
  return factors * terms.matrix() / terms.sum();
}

Matrix KernelSumReference::factors_of_kept(const MatrixView& factors) const {
  if (kept_columns.empty()) return factors;
  Matrix kept(factors.rows(), size());
  for (Index k = 0; k < size(); ++k) {
    kept.col(k) = factors.col(kept_columns[static_cast<std::size_t>(k)]);
  }
  return kept;
}

const KdTree& KernelSumReference::tree(Index leaf_size) const {
  const std::lock_guard<std::mutex> lock(trees_->building);
  std::unique_ptr<const KdTree>& tree = trees_->by_leaf_size[leaf_size];
  if (!tree) tree = std::make_unique<const KdTree>(points, weights, leaf_size);
  return *tree;
}

}  // namespace cdens
