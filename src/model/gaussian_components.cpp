#include "model/gaussian_components.hpp"

#include <cmath>
#include <utility>

#include "cdens/core/types.hpp"
#include "core/math_constants.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"

namespace cdens::detail {

void GaussianComponents::require_table(const Matrix& centers, const Matrix& scales) {
  if (scales.rows() != centers.rows() || scales.cols() != centers.cols() || centers.cols() == 0) {
    throw InvalidArgument("conditional mixture: centres and scales disagree in shape");
  }
  require_finite(centers, "component centres");
  if (!(scales.array() > 0.0).all() || !scales.allFinite()) {
    throw InvalidArgument("component scales must be finite and positive");
  }
}

GaussianComponents::GaussianComponents(const Matrix& centers, const Matrix& scales,
                                       std::vector<Index> rows)
    : rows_(std::move(rows)) {
  centers_ = gather_rows(centers, rows_);
  scales_ = gather_rows(scales, rows_);
  position_of_.assign(static_cast<std::size_t>(centers.rows()), -1);
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    position_of_[static_cast<std::size_t>(rows_[i])] = static_cast<Index>(i);
  }
  log_norms_ = -scales_.array().log().colwise().sum().transpose() -
               0.5 * static_cast<double>(rows_.size()) * kLog2Pi;
}

double GaussianComponents::squared_distance(Index k, const Vector& e) const {
  return ((e - centers_.col(k)).array() / scales_.col(k).array()).square().sum();
}

Eigen::ArrayXd GaussianComponents::squared_distances(Index k, const Matrix& e) const {
  return ((e.colwise() - centers_.col(k)).array().colwise() / scales_.col(k).array())
      .square()
      .colwise()
      .sum()
      .transpose();
}

bool GaussianComponents::same_scales(Index count) const {
  return (scales_.leftCols(count).colwise() - scales_.col(0)).cwiseAbs().maxCoeff() == 0.0;
}

void GaussianComponents::set_moments(Matrix& means, Matrix& variances) const {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const auto r = static_cast<Index>(i);
    means.row(rows_[i]) = centers_.row(r);
    variances.row(rows_[i]) = scales_.row(r).array().square();
  }
}

void GaussianComponents::multiply_overlaps(Matrix& overlap) const {
  // ∫ N(e; c_k, S_k) N(e; c_l, S_l) de = N(c_k; c_l, S_k + S_l) for diagonal S.
  const auto dimension = static_cast<double>(rows_.size());
  for (Index k = 0; k < overlap.rows(); ++k) {
    for (Index l = 0; l < overlap.cols(); ++l) {
      const Eigen::ArrayXd variance =
          scales_.col(k).array().square() + scales_.col(l).array().square();
      overlap(k, l) *=
          std::exp(-0.5 * ((centers_.col(k) - centers_.col(l)).array().square() / variance).sum() -
                   0.5 * (variance.log().sum() + dimension * kLog2Pi));
    }
  }
}

double GaussianComponents::draw(Index d, Index k, Rng& rng) const {
  const Index r = position_of_[static_cast<std::size_t>(d)];
  if (r < 0) throw InvalidArgument("output y" + std::to_string(d) + " is not Gaussian");
  return centers_(r, k) + scales_(r, k) * rng.normal();
}

}  // namespace cdens::detail
