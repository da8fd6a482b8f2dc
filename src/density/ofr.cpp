#include "cdens/density/ofr.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "cdens/core/error.hpp"

namespace cdens {
namespace {

// A column whose orthogonal part has lost all but this fraction of its squared norm is in the
// span of the model to rounding: its w_n is noise, and it is refused (J = +∞).
constexpr double kSpanTolerance = 1e-20;

}  // namespace

OfrLoo::OfrLoo(Vector target, double lambda) : target_(std::move(target)), lambda_(lambda) {
  if (target_.size() == 0) throw InvalidArgument("OFR: the target is empty");
  if (!target_.allFinite()) throw InvalidArgument("OFR: the target must be finite");
  if (!(lambda_ >= 0.0) || !std::isfinite(lambda_)) {
    throw InvalidArgument("OFR: λ must be finite and non-negative");
  }
  residuals_ = target_;                                                    // ε^(0)(k) = t_k
  loo_weights_ = Vector::Ones(target_.size());                             // η^(0)(k) = 1
  loo_mse_ = target_.squaredNorm() / static_cast<double>(target_.size());  // J_0, eq. (62)
}

OfrCandidate OfrLoo::evaluate(const VectorView& phi) const {
  if (phi.size() != n_samples()) {
    throw InvalidArgument("OFR: a candidate column has " + std::to_string(phi.size()) +
                          " entries but the target has " + std::to_string(n_samples()));
  }
  OfrCandidate candidate;
  const Index n = n_terms();
  candidate.alpha.resize(n);
  candidate.w = phi;
  // Eqs. (63)–(64) in the modified Gram–Schmidt order: α_{j,n} = w_jᵀ(φ_n − Σ_{i<j} α_{i,n} w_i)
  // / w_jᵀw_j equals w_jᵀφ_n / w_jᵀw_j in exact arithmetic (the w_i are orthogonal) and keeps
  // w_n orthogonal to rounding for the nearly collinear columns Gaussian kernels produce.
  for (Index j = 0; j < n; ++j) {
    const auto& wj = w_[static_cast<std::size_t>(j)];
    candidate.alpha(j) = wj.dot(candidate.w) / w_norm2_[static_cast<std::size_t>(j)];
    candidate.w -= candidate.alpha(j) * wj;
  }
  candidate.w_norm2 = candidate.w.squaredNorm();
  const double phi_norm2 = phi.squaredNorm();
  if (!(candidate.w_norm2 > kSpanTolerance * phi_norm2) || !std::isfinite(candidate.w_norm2)) {
    candidate.loo_mse = std::numeric_limits<double>::infinity();
    return candidate;
  }
  const double denominator = candidate.w_norm2 + lambda_;
  candidate.g = candidate.w.dot(target_) / denominator;  // eq. (65)
  double total = 0.0;
  for (Index k = 0; k < n_samples(); ++k) {
    const double w_k = candidate.w(k);
    const double residual = residuals_(k) - w_k * candidate.g;           // eq. (66)
    const double weighting = loo_weights_(k) - w_k * w_k / denominator;  // eq. (67)
    if (!(weighting > 0.0)) {
      candidate.loo_mse = std::numeric_limits<double>::infinity();
      return candidate;
    }
    const double loo = residual / weighting;
    total += loo * loo;
  }
  candidate.loo_mse = total / static_cast<double>(n_samples());  // eq. (68)
  return candidate;
}

void OfrLoo::add(const OfrCandidate& candidate) {
  if (!std::isfinite(candidate.loo_mse)) {
    throw InvalidArgument("OFR: cannot add a column with a non-finite LOO criterion");
  }
  if (candidate.w.size() != n_samples() || candidate.alpha.size() != n_terms()) {
    throw InvalidArgument("OFR: the candidate was not evaluated on this model");
  }
  const double denominator = candidate.w_norm2 + lambda_;
  residuals_ -= candidate.g * candidate.w;                                // eq. (35)
  loo_weights_ -= (candidate.w.array().square() / denominator).matrix();  // eq. (36)
  loo_mse_ = candidate.loo_mse;
  w_.push_back(candidate.w);
  w_norm2_.push_back(candidate.w_norm2);
  alpha_.push_back(candidate.alpha);
  g_.push_back(candidate.g);
}

Matrix OfrLoo::orthogonal_columns() const {
  Matrix w(n_samples(), n_terms());
  for (Index j = 0; j < n_terms(); ++j) w.col(j) = w_[static_cast<std::size_t>(j)];
  return w;
}

Matrix OfrLoo::triangular_factor() const {
  Matrix a = Matrix::Identity(n_terms(), n_terms());
  for (Index j = 0; j < n_terms(); ++j) {
    a.col(j).head(j) = alpha_[static_cast<std::size_t>(j)];
  }
  return a;
}

Vector OfrLoo::orthogonal_weights() const {
  return Eigen::Map<const Vector>(g_.data(), static_cast<Index>(g_.size()));
}

Vector OfrLoo::weights() const {
  // A β = g with A unit upper triangular (eq. 28).
  return triangular_factor().triangularView<Eigen::UnitUpper>().solve(orthogonal_weights());
}

}  // namespace cdens
