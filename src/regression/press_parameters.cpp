#include "regression/press_parameters.hpp"

#include <cmath>
#include <limits>

#include "cdens/core/types.hpp"

namespace cdens {

// Layout of θ: the free vectors β_1 … β_{J−1} one after the other (column-major
// (d + 1) × (J − 1)); with LASSO, first the intercepts (J − 1), then θ⁺ and θ⁻ (each d × (J − 1),
// column-major).

PressParametrization::PressParametrization(Index design_dim, Index n_states, double lasso_weight)
    : design_dim_(design_dim), n_states_(n_states), lasso_weight_(lasso_weight) {
  if (design_dim_ < 1) throw InvalidArgument("PRESS needs a design with an intercept");
  if (n_states_ < 2) throw InvalidArgument("PRESS parameters need at least 2 states");
  if (!(lasso_weight_ >= 0.0) || !std::isfinite(lasso_weight_)) {
    throw InvalidArgument("the LASSO weight lambda must be finite and >= 0");
  }
}

Index PressParametrization::size() const {
  const Index free = n_states_ - 1;
  return lasso_weight_ > 0.0 ? (2 * design_dim_ - 1) * free : design_dim_ * free;
}

std::vector<double> PressParametrization::lower_bounds() const {
  std::vector<double> bounds(static_cast<std::size_t>(size()),
                             -std::numeric_limits<double>::infinity());
  if (lasso_weight_ > 0.0) {
    std::fill(bounds.begin() + (n_states_ - 1), bounds.end(), 0.0);
  }
  return bounds;
}

Matrix PressParametrization::coefficients(const VectorView& theta) const {
  if (theta.size() != size()) throw InvalidArgument("PRESS parameter vector of the wrong size");
  const Index free = n_states_ - 1;
  const Index d = design_dim_ - 1;
  Matrix b(design_dim_, n_states_);
  if (lasso_weight_ > 0.0) {
    b.leftCols(free).row(0) = theta.head(free).transpose();
    b.leftCols(free).bottomRows(d) =
        Eigen::Map<const Matrix>(theta.data() + free, d, free) -
        Eigen::Map<const Matrix>(theta.data() + free + d * free, d, free);
  } else {
    b.leftCols(free) = Eigen::Map<const Matrix>(theta.data(), design_dim_, free);
  }
  b.col(free) = -b.leftCols(free).rowwise().sum();
  return b;
}

Vector PressParametrization::parameters(const MatrixView& coefficients) const {
  const Index free = n_states_ - 1;
  const Index d = design_dim_ - 1;
  Vector theta(size());
  if (lasso_weight_ > 0.0) {
    theta.head(free) = coefficients.leftCols(free).row(0).transpose();
    const Matrix x_part = coefficients.leftCols(free).bottomRows(d);
    Eigen::Map<Matrix>(theta.data() + free, d, free) = x_part.cwiseMax(0.0);
    Eigen::Map<Matrix>(theta.data() + free + d * free, d, free) = (-x_part).cwiseMax(0.0);
  } else {
    Eigen::Map<Matrix>(theta.data(), design_dim_, free) = coefficients.leftCols(free);
  }
  return theta;
}

double PressParametrization::penalty(const VectorView& theta) const {
  if (lasso_weight_ == 0.0) return 0.0;
  return lasso_weight_ * theta.tail(size() - (n_states_ - 1)).sum();
}

Vector PressParametrization::gradient(const MatrixView& coefficient_gradient) const {
  const Index free = n_states_ - 1;
  const Index d = design_dim_ - 1;
  // β_J = −Σ β_j, so ∂F/∂β_j = ∂F/∂B_j − ∂F/∂B_J.
  const Matrix free_gradient =
      coefficient_gradient.leftCols(free).colwise() - coefficient_gradient.col(free);
  Vector result(size());
  if (lasso_weight_ > 0.0) {
    result.head(free) = free_gradient.row(0).transpose();
    const Matrix x_part = free_gradient.bottomRows(d);
    Eigen::Map<Matrix>(result.data() + free, d, free) = x_part.array() + lasso_weight_;
    Eigen::Map<Matrix>(result.data() + free + d * free, d, free) = -x_part.array() + lasso_weight_;
  } else {
    Eigen::Map<Matrix>(result.data(), design_dim_, free) = free_gradient;
  }
  return result;
}

}  // namespace cdens
