#include "density/ofr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cdens/core/types.hpp"

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
  w_.resize(target_.size(), 0);
}

OfrCandidate OfrLoo::evaluate(const VectorView& phi) const { return evaluate(phi, lambda_); }

void OfrLoo::check_length(Index rows) const {
  if (rows != n_samples()) {
    throw InvalidArgument("OFR: a candidate column has " + std::to_string(rows) +
                          " entries but the target has " + std::to_string(n_samples()));
  }
}

Matrix OfrLoo::orthogonalize(Eigen::Ref<Matrix> phis) const {
  // Eqs. (63)–(64) with the α_{j,n} of the modified Gram–Schmidt order, α_{j,n} =
  // w_jᵀ(φ_n − Σ_{i<j} α_{i,n} w_i) / w_jᵀw_j, which keeps w_n orthogonal to rounding for the
  // nearly collinear columns Gaussian kernels produce. Those α solve Σ_{i≤j} (w_jᵀw_i) α_{i,n} =
  // w_jᵀφ_n, a triangular system in the lower triangle of W_nᵀW_n, so MGS is one product
  // W_nᵀΦ, a forward substitution and one product Φ − W_n α: the inverse compact WY form of MGS
  // (Świrydowicz, Langou, Ananthan, Yang & Thomas 2021), as stable as MGS, for a block of
  // columns at once. With W_n exactly orthogonal it is eq. (63) as written.
  if (n_terms() == 0) return Matrix(0, phis.cols());
  Matrix alpha = w_.transpose() * phis;
  gram_.triangularView<Eigen::Lower>().solveInPlace(alpha);
  phis.noalias() -= w_ * alpha;
  return alpha;
}

OfrCandidate OfrLoo::evaluate(const VectorView& phi, double lambda) const {
  check_length(phi.size());
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) {
    throw InvalidArgument("OFR: λ must be finite and non-negative");
  }
  OfrCandidate candidate;
  candidate.w = phi;
  candidate.alpha = orthogonalize(candidate.w);
  candidate.lambda = lambda;
  candidate.w_norm2 = candidate.w.squaredNorm();
  candidate.loo_mse = score_orthogonal(candidate.w, phi.squaredNorm(), lambda);
  if (std::isfinite(candidate.loo_mse)) {
    candidate.g = candidate.w.dot(target_) / (candidate.w_norm2 + lambda);  // eq. (65)
  }
  return candidate;
}

double OfrLoo::score_orthogonal(const VectorView& w, double phi_norm2, double lambda) const {
  const double w_norm2 = w.squaredNorm();
  if (!(w_norm2 > kSpanTolerance * phi_norm2) || !std::isfinite(w_norm2)) {
    return std::numeric_limits<double>::infinity();
  }
  const double denominator = w_norm2 + lambda;
  const double g = w.dot(target_) / denominator;  // eq. (65)
  const double inverse = 1.0 / denominator;
  const double* w_k = w.data();
  const double* residual = residuals_.data();
  const double* weighting = loo_weights_.data();
  double sum = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  // One pass over the samples (omp simd: the compiler may not reorder the sums by itself), with
  // one division per sample, the one that cannot be hoisted (its throughput bounds the loop).
#pragma omp simd reduction(+ : sum) reduction(min : smallest)
  for (Index k = 0; k < n_samples(); ++k) {
    const double eta = weighting[k] - w_k[k] * w_k[k] * inverse;  // eq. (67)
    const double loo = (residual[k] - g * w_k[k]) / eta;          // eqs. (66), (33)
    smallest = std::min(smallest, eta);
    sum += loo * loo;
  }
  if (!(smallest > 0.0) || !std::isfinite(sum)) return std::numeric_limits<double>::infinity();
  return sum / static_cast<double>(n_samples());  // eq. (68)
}

Vector OfrLoo::loo_mse_of_columns(Matrix phis) const {
  check_length(phis.rows());
  const Vector phi_norm2 = phis.colwise().squaredNorm().transpose();
  orthogonalize(phis);
  Vector result(phis.cols());
  for (Index j = 0; j < phis.cols(); ++j) {
    result(j) = score_orthogonal(phis.col(j), phi_norm2(j), lambda_);
  }
  return result;
}

void OfrLoo::add(const OfrCandidate& candidate) {
  if (!std::isfinite(candidate.loo_mse)) {
    throw InvalidArgument("OFR: cannot add a column with a non-finite LOO criterion");
  }
  if (candidate.w.size() != n_samples() || candidate.alpha.size() != n_terms()) {
    throw InvalidArgument("OFR: the candidate was not evaluated on this model");
  }
  const double denominator = candidate.w_norm2 + candidate.lambda;
  residuals_ -= candidate.g * candidate.w;                                // eq. (35)
  loo_weights_ -= (candidate.w.array().square() / denominator).matrix();  // eq. (36)
  loo_mse_ = candidate.loo_mse;
  const Index n = n_terms();
  gram_.conservativeResize(n + 1, n + 1);
  gram_.row(n).head(n).noalias() = candidate.w.transpose() * w_;
  gram_(n, n) = candidate.w_norm2;
  w_.conservativeResize(n_samples(), n + 1);
  w_.col(n) = candidate.w;
  alpha_.push_back(candidate.alpha);
  g_.push_back(candidate.g);
}

Matrix OfrLoo::orthogonal_columns() const { return w_; }

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

OfrCandidatePool::OfrCandidatePool(const OfrLoo& model, Matrix columns)
    : columns_(std::move(columns)), available_(static_cast<std::size_t>(columns_.cols()), true) {
  if (model.n_terms() != 0) {
    throw InvalidArgument("OFR: a candidate pool must start from a model without terms");
  }
  if (columns_.rows() != model.n_samples()) {
    throw InvalidArgument("OFR: the candidate columns have " + std::to_string(columns_.rows()) +
                          " rows but the target has " + std::to_string(model.n_samples()));
  }
  if (!columns_.allFinite()) throw InvalidArgument("OFR: the candidate columns must be finite");
  original_norm2_ = columns_.colwise().squaredNorm().transpose();
}

Vector OfrCandidatePool::scores(const OfrLoo& model, const Vector& lambdas) const {
  if (lambdas.size() != size()) {
    throw InvalidArgument("OFR: one λ per candidate column is needed");
  }
  if (static_cast<Index>(alphas_.size()) != model.n_terms()) {
    throw InvalidArgument("OFR: the candidate pool does not follow this model");
  }
  // Eqs. (65)–(68) column by column (the columns are already orthogonal to the model), as
  // expressions over one column at a time: no N × M temporaries, whose allocation and first
  // touch per call cost more than the arithmetic.
  const Eigen::ArrayXd norm2 = columns_.colwise().squaredNorm().transpose().array();
  const Eigen::ArrayXd denominator = norm2 + lambdas.array();
  const Eigen::ArrayXd g = (columns_.transpose() * model.target()).array() / denominator;
  const auto loo_weights = model.loo_weights().array();
  const auto residuals = model.residuals().array();
  Vector result(size());
  for (Index j = 0; j < size(); ++j) {
    const auto column = columns_.col(j).array();
    const auto weighting = loo_weights - column.square() / denominator(j);
    const double mse = ((residuals - column * g(j)) / weighting).square().mean();
    const bool usable = available(j) && norm2(j) > kSpanTolerance * original_norm2_(j) &&
                        weighting.minCoeff() > 0.0 && std::isfinite(mse);
    result(j) = usable ? mse : std::numeric_limits<double>::infinity();
  }
  return result;
}

OfrCandidate OfrCandidatePool::take(Index j, const OfrLoo& model, double lambda) {
  if (j < 0 || j >= size() || !available(j)) {
    throw InvalidArgument("OFR: candidate " + std::to_string(j) + " is not available");
  }
  if (static_cast<Index>(alphas_.size()) != model.n_terms()) {
    throw InvalidArgument("OFR: the candidate pool does not follow this model");
  }
  OfrCandidate candidate;
  candidate.w = columns_.col(j);
  candidate.alpha.resize(model.n_terms());
  for (std::size_t n = 0; n < alphas_.size(); ++n) {
    candidate.alpha(static_cast<Index>(n)) = alphas_[n](j);
  }
  candidate.w_norm2 = candidate.w.squaredNorm();
  candidate.lambda = lambda;
  candidate.loo_mse = model.score_orthogonal(candidate.w, original_norm2_(j), lambda);
  if (!std::isfinite(candidate.loo_mse)) {
    throw InvalidArgument("OFR: candidate " + std::to_string(j) +
                          " lies in the span of the model or has a zero LOO weighting");
  }
  candidate.g = candidate.w.dot(model.target()) / (candidate.w_norm2 + lambda);  // eq. (65)
  available_[static_cast<std::size_t>(j)] = false;
  // Deflate the remaining columns by the new w_n (eqs. 63–64 for this n).
  Vector alpha = (columns_.transpose() * candidate.w) / candidate.w_norm2;
  for (Index k = 0; k < size(); ++k) {
    if (!available(k)) alpha(k) = 0.0;
  }
  columns_.noalias() -= candidate.w * alpha.transpose();
  alphas_.push_back(std::move(alpha));
  return candidate;
}

}  // namespace cdens
