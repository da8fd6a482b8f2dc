#include "conditional/log_linear_variance.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <cmath>

#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/samples_of_ranks.hpp"

namespace cdens::detail {
namespace {

constexpr int kMaxNewtonSteps = 200;
constexpr int kMaxHalvings = 40;
/// The fit has converged when a step lowers the mean NLL per pair by less than this.
constexpr double kConvergence = 1e-12;
/// The fitted scale at every training pair stays within this factor of the constant-variance
/// scale; beyond it the spread is collapsing onto some pairs rather than describing them.
constexpr double kLargestScaleRatio = 1e3;
/// Up to this many pairs the leave-one-out likelihood refits without each pair (Newton steps from
/// the full fit); beyond it one Newton step stands in for each refit. Against explicit refits the
/// one-step value is 0.01–0.02 nats too high at n = 60 (and off by hundreds at n = 30, where a
/// pair of high leverage moves the fit far), 5·10⁻⁴ at n = 240 and 1–3·10⁻⁴ at n = 480.
constexpr Index kLargestRefitCount = 500;

/// The pairs: the design (rows u_iᵀ), the outputs and the pairs' sample weights c_i (empty: every
/// pair weighs 1). The likelihood is Σ_i c_i ℓ_i; with c_i = 1 it is the paper's Σ_i ℓ_i and
/// every sum below is computed as it was before sample weights (to the bit). On several ranks of
/// `communicator` they are this rank's pairs, and every sum over the pairs (the means, the
/// gradient, the Hessian and the Fisher information) is summed over the ranks, so every rank
/// takes the same Newton steps.
struct Pairs {
  const Matrix& design;
  const VectorView& t;
  const Eigen::ArrayXd& weights;
  const Communicator& communicator;

  bool weighted() const { return weights.size() > 0; }
  /// c ∘ values, or values.
  Eigen::ArrayXd weigh(const Eigen::ArrayXd& values) const {
    return weighted() ? Eigen::ArrayXd(values * weights) : values;
  }
  /// Σ c_i v_i / Σ c_i over every rank's pairs.
  double mean(const Eigen::ArrayXd& values) const {
    if (communicator.size() == 1) {
      return weighted() ? (values * weights).sum() / weights.sum() : values.mean();
    }
    double sums[2] = {weigh(values).sum(),
                      weighted() ? weights.sum() : static_cast<double>(values.size())};
    communicator.allreduce_sum(sums, 2);
    return sums[0] / sums[1];
  }
  /// `local` summed over the ranks.
  template <class Sum>
  Sum summed(Sum local) const {
    communicator.allreduce_sum(local.data(), static_cast<std::size_t>(local.size()));
    return local;
  }
  /// The sample weight of pair i.
  double weight(Index i) const { return weighted() ? weights(i) : 1.0; }
};

/// θ = (β, γ) stacked; the per-pair quantities at θ.
struct PairTerms {
  Eigen::ArrayXd log_scale;  ///< η_i = γᵀu_i
  Eigen::ArrayXd residual;   ///< r_i = t_i − βᵀu_i
  Eigen::ArrayXd precision;  ///< w_i = exp(−2 η_i)
};

/// design · v; a rank that holds no pairs does not ask BLAS for a product of no rows (its GEMV
/// refuses the leading dimension 0).
Vector times(const Matrix& design, const VectorView& v) {
  return design.rows() == 0 ? Vector() : Vector(design * v);
}

/// designᵀ · v, likewise.
Vector transposed_times(const Matrix& design, const VectorView& v) {
  return design.rows() == 0 ? Vector(Vector::Zero(design.cols())) : Vector(design.transpose() * v);
}

PairTerms terms_at(const Pairs& pairs, const Vector& theta) {
  const Index p = pairs.design.cols();
  PairTerms terms;
  terms.log_scale = times(pairs.design, theta.tail(p)).array();
  terms.residual = (pairs.t - times(pairs.design, theta.head(p))).array();
  terms.precision = (-2.0 * terms.log_scale).exp();
  return terms;
}

/// ℓ_i = ½ log 2π + η_i + ½ r_i² w_i for every pair.
Eigen::ArrayXd pair_nll(const PairTerms& terms) {
  return 0.5 * kLog2Pi + terms.log_scale + 0.5 * terms.residual.square() * terms.precision;
}

/// Σ_i c_i ∇ℓ_i = (−Σ c_i r_i w_i u_i, Σ c_i (1 − r_i² w_i) u_i).
Vector gradient(const Pairs& pairs, const PairTerms& terms) {
  const Index p = pairs.design.cols();
  Vector g(2 * p);
  g.head(p) =
      -transposed_times(pairs.design, pairs.weigh(terms.residual * terms.precision).matrix());
  g.tail(p) = transposed_times(
      pairs.design, pairs.weigh(1.0 - terms.residual.square() * terms.precision).matrix());
  return pairs.summed(std::move(g));
}

/// Σ_i c_i ∇²ℓ_i: blocks Σ c w u uᵀ, Σ 2 c r w u uᵀ and Σ 2 c r² w u uᵀ.
Matrix hessian(const Pairs& pairs, const PairTerms& terms) {
  const Index p = pairs.design.cols();
  const auto weighted = [&](const Eigen::ArrayXd& weights) {
    return Matrix(pairs.design.transpose() * pairs.weigh(weights).matrix().asDiagonal() *
                  pairs.design);
  };
  Matrix h(2 * p, 2 * p);
  h.topLeftCorner(p, p) = weighted(terms.precision);
  h.topRightCorner(p, p) = weighted(2.0 * terms.residual * terms.precision);
  h.bottomLeftCorner(p, p) = h.topRightCorner(p, p);
  h.bottomRightCorner(p, p) = weighted(2.0 * terms.residual.square() * terms.precision);
  return pairs.summed(std::move(h));
}

/// The expected Hessian (Fisher information): Σ c w u uᵀ and 2 Σ c u uᵀ, no cross block.
/// Positive definite wherever the design has full rank, so it stands in where the Hessian is not.
Matrix fisher_information(const Pairs& pairs, const PairTerms& terms) {
  const Matrix& design = pairs.design;
  const Index p = design.cols();
  Matrix f = Matrix::Zero(2 * p, 2 * p);
  f.topLeftCorner(p, p) =
      design.transpose() * pairs.weigh(terms.precision).matrix().asDiagonal() * design;
  f.bottomRightCorner(p, p) =
      pairs.weighted()
          ? Matrix(2.0 * design.transpose() * pairs.weights.matrix().asDiagonal() * design)
          : Matrix(2.0 * design.transpose() * design);
  return pairs.summed(std::move(f));
}

/// The Newton step −H⁻¹g, with the Fisher information (formed by `fisher` only when needed) in
/// place of a Hessian that is not positive definite.
template <class Fisher>
Vector newton_step(const Matrix& h, const Fisher& fisher, const Vector& g) {
  const Eigen::LLT<Matrix> factor(h);
  if (factor.info() == Eigen::Success) return -factor.solve(g);
  return -Eigen::LLT<Matrix>(fisher()).solve(g);
}

/// Newton steps with step halving from theta (overwritten) until a step gains less than
/// kConvergence per pair; whether it converged within kMaxNewtonSteps.
bool maximize_likelihood(const Pairs& pairs, Vector& theta) {
  PairTerms terms = terms_at(pairs, theta);
  double nll = pairs.mean(pair_nll(terms));
  for (int step = 0; step < kMaxNewtonSteps; ++step) {
    // Each sum is a collective call on several ranks: made in the same order on every rank.
    const Matrix h = hessian(pairs, terms);
    const Vector g = gradient(pairs, terms);
    const Vector direction = newton_step(
        h, [&] { return fisher_information(pairs, terms); }, g);
    bool improved = false;
    double length = 1.0;
    for (int halving = 0; halving < kMaxHalvings && !improved; ++halving, length *= 0.5) {
      const Vector candidate = theta + length * direction;
      PairTerms candidate_terms = terms_at(pairs, candidate);
      const double candidate_nll = pairs.mean(pair_nll(candidate_terms));
      if (candidate_nll < nll) {
        improved = true;
        const bool converged = nll - candidate_nll < kConvergence;
        theta = candidate;
        terms = std::move(candidate_terms);
        nll = candidate_nll;
        if (converged) return true;
      }
    }
    if (!improved) return true;  // no step along the direction gains: at the maximum
  }
  return false;
}

/// −log p(t_i | z_i; θ).
double pair_nll_at(const Vector& u, double t, const Vector& theta) {
  const Index p = u.size();
  const double log_scale = u.dot(theta.tail(p));
  const double residual = t - u.dot(theta.head(p));
  return 0.5 * kLog2Pi + log_scale + 0.5 * residual * residual * std::exp(-2.0 * log_scale);
}

/// −log p_{−i}(t_i | z_i) of every pair, each θ_{−i} refitted without pair i (all its weight)
/// from the full fit θ̂.
Vector refitted_leave_one_out_terms(const Pairs& pairs, const Vector& theta) {
  const Matrix& design = pairs.design;
  const VectorView& t = pairs.t;
  const Index n = design.rows();
  Vector terms(n);
  for (Index i = 0; i < n; ++i) {
    Matrix design_without(n - 1, design.cols());
    Vector t_without(n - 1);
    design_without << design.topRows(i), design.bottomRows(n - 1 - i);
    t_without << t.head(i), t.tail(n - 1 - i);
    Eigen::ArrayXd weights_without(pairs.weighted() ? n - 1 : 0);
    if (pairs.weighted()) {
      weights_without << pairs.weights.head(i), pairs.weights.tail(n - 1 - i);
    }
    const VectorView t_view(t_without);
    Vector theta_without = theta;
    maximize_likelihood({design_without, t_view, weights_without, local_communicator()},
                        theta_without);
    terms(i) = pair_nll_at(design.row(i).transpose(), t(i), theta_without);
  }
  return terms;
}

/// The same with θ_{−i} one Newton step from θ̂ on the likelihood without pair i:
/// θ_{−i} = θ̂ − (H − c_i H_i)⁻¹ (g − c_i g_i), whose error is of the order of the squared step.
Vector one_step_leave_one_out_terms(const Pairs& pairs, const Vector& theta,
                                    const PairTerms& terms) {
  const Matrix& design = pairs.design;
  const Index n = design.rows();
  const Index p = design.cols();
  const Matrix h = hessian(pairs, terms);
  const Matrix fisher = fisher_information(pairs, terms);
  const Vector g = gradient(pairs, terms);
  Vector loo_terms(n);
  for (Index i = 0; i < n; ++i) {
    const Vector u = design.row(i).transpose();
    // c_i u uᵀ: exactly u uᵀ for unweighted pairs.
    const Matrix outer =
        pairs.weighted() ? Matrix(pairs.weight(i) * u * u.transpose()) : Matrix(u * u.transpose());
    const double r = terms.residual(i);
    const double w = terms.precision(i);
    Matrix h_without = h;
    h_without.topLeftCorner(p, p) -= w * outer;
    h_without.topRightCorner(p, p) -= 2.0 * r * w * outer;
    h_without.bottomLeftCorner(p, p) -= 2.0 * r * w * outer;
    h_without.bottomRightCorner(p, p) -= 2.0 * r * r * w * outer;
    const auto fisher_without = [&] {
      Matrix f = fisher;
      f.topLeftCorner(p, p) -= w * outer;
      f.bottomRightCorner(p, p) -= 2.0 * outer;
      return f;
    };
    Vector g_without = g;
    const Vector weighted_u = pairs.weighted() ? Vector(pairs.weight(i) * u) : u;
    g_without.head(p) += r * w * weighted_u;
    g_without.tail(p) -= (1.0 - r * r * w) * weighted_u;
    loo_terms(i) =
        pair_nll_at(u, pairs.t(i), theta + newton_step(h_without, fisher_without, g_without));
  }
  return loo_terms;
}

/// On several ranks with few pairs: every rank fits every pair (gathered), and keeps the
/// leave-one-out terms of its own.
LogLinearVarianceFit fit_on_every_pair(const Matrix& design, const VectorView& t,
                                       const Vector& sample_weights,
                                       const Communicator& communicator) {
  const bool weighted = sample_weights.size() > 0;
  Matrix columns(design.cols() + 1 + (weighted ? 1 : 0), design.rows());
  columns.topRows(design.cols()) = design.transpose();
  columns.row(design.cols()) = t.transpose();
  if (weighted) columns.bottomRows(1) = sample_weights.transpose();
  const Matrix every = gather_every_sample(columns, communicator);
  const Vector every_weights = weighted ? Vector(every.bottomRows(1).transpose()) : Vector();
  LogLinearVarianceFit fit = fit_log_linear_variance(every.topRows(design.cols()).transpose(),
                                                     every.row(design.cols()).transpose(),
                                                     every_weights, local_communicator());
  if (fit.loo_terms.size() > 0) {
    const Index first = communicator.sum_counts_below(design.rows());
    fit.loo_terms = Vector(fit.loo_terms.segment(first, design.rows()));
  }
  return fit;
}

}  // namespace

bool one_step_leave_one_out(Index n) { return n > kLargestRefitCount; }

LogLinearVarianceFit fit_log_linear_variance(const Matrix& design, const VectorView& t,
                                             const Vector& sample_weights,
                                             const Communicator& communicator) {
  const Index n = communicator.sum_counts(design.rows());
  const Index p = design.cols();
  if (communicator.size() > 1 && !one_step_leave_one_out(n)) {
    return fit_on_every_pair(design, t, sample_weights, communicator);
  }
  const Eigen::ArrayXd weights = sample_weights.array();
  const Pairs pairs{design, t, weights, communicator};
  LogLinearVarianceFit fit;
  fit.loo_nll = INFINITY;
  // Start at the constant-variance fit: least squares and the ML scale of its residuals, so
  // every accepted step is a model at least as likely as that one (weighted: the weighted least
  // squares on the rows scaled by √c_i; on several ranks the normal equations of every rank's).
  Vector theta = Vector::Zero(2 * p);
  double constant_log_scale = 0.0;
  if (communicator.size() > 1) {
    const Matrix weighted_design =
        pairs.weigh(Eigen::ArrayXd::Ones(design.rows())).matrix().asDiagonal() * design;
    const Matrix gram = pairs.summed(Matrix(weighted_design.transpose() * design));
    const Vector moments = pairs.summed(transposed_times(weighted_design, t));
    theta.head(p) = Eigen::CompleteOrthogonalDecomposition<Matrix>(gram).solve(moments);
    constant_log_scale =
        0.5 * std::log(pairs.mean((t - times(design, theta.head(p))).array().square()));
  } else if (pairs.weighted()) {
    const Vector root = weights.sqrt().matrix();
    theta.head(p) = (root.asDiagonal() * design).colPivHouseholderQr().solve(root.cwiseProduct(t));
    constant_log_scale = 0.5 * std::log(pairs.mean((t - design * theta.head(p)).array().square()));
  } else {
    theta.head(p) = design.colPivHouseholderQr().solve(t);
    constant_log_scale =
        0.5 * std::log((t - design * theta.head(p)).squaredNorm() / static_cast<double>(n));
  }
  if (!std::isfinite(constant_log_scale)) {
    fit.problem = "the outputs are an exact linear function of the inputs";
    return fit;
  }
  theta(p) = constant_log_scale;
  if (!maximize_likelihood(pairs, theta)) {
    fit.problem = "the log-linear variance fit did not converge in " +
                  std::to_string(kMaxNewtonSteps) + " Newton steps";
    return fit;
  }
  const PairTerms terms = terms_at(pairs, theta);
  double largest_ratio =
      design.rows() > 0 ? (terms.log_scale - constant_log_scale).abs().maxCoeff() : 0.0;
  communicator.allreduce_max(&largest_ratio, 1);
  if (largest_ratio > std::log(kLargestScaleRatio)) {
    fit.problem =
        "the fitted spread at some training pairs is more than 1000 times below or above the "
        "constant one: it collapses onto pairs with tied outputs";
    return fit;
  }
  fit.location = theta.head(p);
  fit.log_scale = theta.tail(p);
  fit.loo_terms = one_step_leave_one_out(n) ? one_step_leave_one_out_terms(pairs, theta, terms)
                                            : refitted_leave_one_out_terms(pairs, theta);
  fit.loo_nll = pairs.mean(fit.loo_terms.array());
  return fit;
}

}  // namespace cdens::detail
