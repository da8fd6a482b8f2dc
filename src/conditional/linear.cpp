#include "cdens/conditional/linear.hpp"

#include <Eigen/QR>
#include <cmath>
#include <memory>

#include "cdens/core/types.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/log_linear_variance.hpp"
#include "conditional/output_transform_fit.hpp"
#include "conditional/standardized_linear_fit.hpp"
#include "core/fit_skeleton.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/option_tables.hpp"
#include "parallel/samples_of_ranks.hpp"

namespace cdens {
namespace {

/// Residual scale (standardised units) below which an output counts as exactly linear in x.
constexpr double kSmallestResidualScale = 1e-10;

/// The design (1, z_iᵀ), one row per pair.
Matrix design_of(const StandardizedSamples& pairs) {
  Matrix design(pairs.z.cols(), pairs.z.rows() + 1);
  design.col(0).setOnes();
  design.rightCols(pairs.z.rows()) = pairs.z.transpose();
  return design;
}

/// Least squares t ≈ B (1, z) on standardised pairs: B (d_y × (1 + d_x)), the residuals
/// (d_y × n) and the leverages h_ii of the hat matrix.
struct LeastSquares {
  Matrix coefficients;
  Matrix residuals;
  Vector leverages;
};

/// With sample weights c (empty: all 1), weighted least squares: least squares on the rows scaled
/// by √c_i, whose hat matrix has the leverages h_ii = c_i u_iᵀ (Uᵀ C U)⁻¹ u_i; the residuals are
/// those of the unscaled rows. On several ranks (this rank's pairs, unweighted) the normal
/// equations UᵀU B = Uᵀ T summed over the ranks, with the pseudo-inverse for a design of lower
/// rank: the same fit up to rounding (UᵀU of standardised inputs is well conditioned unless two
/// inputs are nearly collinear, where its rounding is the square of QR's).
LeastSquares least_squares(const StandardizedSamples& pairs, const Matrix& design,
                           const Vector& weights, const Communicator& communicator) {
  if (communicator.size() > 1) {
    // A rank that holds no pairs asks BLAS for no product of no rows (its GEMV refuses the
    // leading dimension 0).
    const bool holds_pairs = design.rows() > 0;
    Matrix gram = Matrix::Zero(design.cols(), design.cols());
    Matrix moments = Matrix::Zero(design.cols(), pairs.t.rows());
    if (holds_pairs) {
      gram = design.transpose() * design;
      moments = design.transpose() * pairs.t.transpose();
    }
    communicator.allreduce_sum(gram.data(), static_cast<std::size_t>(gram.size()));
    communicator.allreduce_sum(moments.data(), static_cast<std::size_t>(moments.size()));
    const Eigen::CompleteOrthogonalDecomposition<Matrix> factor(gram);
    LeastSquares fit;
    fit.coefficients = factor.solve(moments).transpose();
    fit.residuals = pairs.t;
    if (holds_pairs) fit.residuals -= fit.coefficients * design.transpose();
    fit.leverages =
        holds_pairs ? Vector((design * factor.pseudoInverse()).cwiseProduct(design).rowwise().sum())
                    : Vector();
    return fit;
  }
  const Index n = design.rows();
  const bool weighted = weights.size() > 0;
  const Vector root = weights.cwiseSqrt();
  const Eigen::ColPivHouseholderQR<Matrix> qr(weighted ? Matrix(root.asDiagonal() * design)
                                                       : design);
  LeastSquares fit;
  fit.coefficients = (weighted ? Matrix(qr.solve(Matrix(root.asDiagonal() * pairs.t.transpose())))
                               : Matrix(qr.solve(pairs.t.transpose())))
                         .transpose();
  fit.residuals = pairs.t - fit.coefficients * design.transpose();
  // h_ii = ‖row i of Q₁‖² over the rank r columns of the thin Q.
  const Matrix thin_q = qr.householderQ() * Matrix::Identity(n, qr.rank());
  fit.leverages = thin_q.rowwise().squaredNorm();
  return fit;
}

/// −log p_{−i}(t_id | z_i) of the constant-variance model from its least-squares fit, per output
/// (rows) and pair (columns); +∞ at a pair of leverage 1. With sample weights c (empty: all 1),
/// p_{−i} is the weighted fit without pair i and all its weight. On several ranks, this rank's
/// pairs, with the residual sums of every rank's.
Matrix constant_variance_loo_terms(const LeastSquares& fit, const Vector& weights,
                                   const Communicator& communicator) {
  const Index n = fit.residuals.cols();
  const bool weighted = weights.size() > 0;
  Vector residual_sums = weighted ? Vector(fit.residuals.array().square().matrix() * weights)
                                  : Vector(fit.residuals.rowwise().squaredNorm());
  double total_weight = weighted ? weights.sum() : static_cast<double>(n);
  communicator.allreduce_sum(residual_sums.data(), static_cast<std::size_t>(residual_sums.size()));
  communicator.allreduce_sum(&total_weight, 1);
  Matrix terms = Matrix::Constant(fit.residuals.rows(), n, INFINITY);
  for (Index i = 0; i < n; ++i) {
    const double kept = 1.0 - fit.leverages(i);
    if (!(kept > 1e-10)) continue;
    const double weight = weighted ? weights(i) : 1.0;
    for (Index d = 0; d < fit.residuals.rows(); ++d) {
      // Without pair i: its prediction error is e_i / (1 − h_ii) and the (weighted) residual sum
      // of squares of the other pairs drops by c_i e_i² / (1 − h_ii) (the PRESS identities, of
      // weighted least squares with c_i), over a total weight of Σc − c_i (n − 1 unweighted).
      const double error = fit.residuals(d, i) / kept;
      const double variance =
          (residual_sums(d) - weight * fit.residuals(d, i) * error) / (total_weight - weight);
      if (variance > 0.0) {
        terms(d, i) = 0.5 * (kLog2Pi + std::log(variance) + error * error / variance);
      }
    }
  }
  return terms;
}

/// The linear-Gaussian model of standardised pairs with each output's spread as asked.
struct LinearFit {
  Matrix coefficients;    ///< (a, A): d_y × (1 + d_x)
  Vector scales;          ///< s_d (e^{c_d} for a log-linear spread)
  Matrix scale_trend;     ///< Γ (d_y × d_x), zero rows for constant spreads
  Vector constant_loo;    ///< per output, the constant spread's leave-one-out NLL
  Vector log_linear_loo;  ///< per output, the log-linear spread's (+∞ where degenerate)
  Vector chosen_loo;      ///< per output, the chosen spread's
  Matrix chosen_terms;    ///< per output and pair, the chosen spread's −log p_{−i}
  Index log_linear_outputs = 0;
  std::vector<std::string> warnings;
};

/// The c-weighted mean of each row of `terms` (the plain mean without sample weights); on several
/// ranks, over every rank's columns.
Vector row_means(const Matrix& terms, const Vector& weights, const Communicator& communicator) {
  if (communicator.size() == 1) {
    if (weights.size() == 0) return terms.rowwise().mean();
    return terms * weights / weights.sum();
  }
  Vector sums(terms.rows() + 1);
  sums.head(terms.rows()) = weights.size() == 0 ? Vector(terms.rowwise().sum()) : terms * weights;
  sums(terms.rows()) = weights.size() == 0 ? static_cast<double>(terms.cols()) : weights.sum();
  communicator.allreduce_sum(sums.data(), static_cast<std::size_t>(sums.size()));
  return sums.head(terms.rows()) / sums(terms.rows());
}

/// The maximum-likelihood variance of each output around the line: Σc e² / Σc (the mean square
/// unweighted), over every rank's residuals.
Vector residual_variances(const Matrix& residuals, const Vector& weights,
                          const Communicator& communicator) {
  if (communicator.size() == 1 && weights.size() == 0) {
    return residuals.rowwise().squaredNorm() / static_cast<double>(residuals.cols());
  }
  return row_means(residuals.array().square().matrix(), weights, communicator);
}

/// The linear-Gaussian fit of standardised pairs; on several ranks of `communicator` of this
/// rank's pairs, every sum over the pairs summed over the ranks (the leave-one-out terms are this
/// rank's pairs').
LinearFit fit_linear_standardized(const StandardizedSamples& pairs, LinearVariance variance,
                                  const Vector& weights, const Communicator& communicator) {
  const Matrix design = design_of(pairs);
  const LeastSquares least = least_squares(pairs, design, weights, communicator);
  const Index d_y = pairs.t.rows();
  LinearFit fit;
  fit.coefficients = least.coefficients;
  fit.scales = residual_variances(least.residuals, weights, communicator).cwiseSqrt();
  fit.scale_trend = Matrix::Zero(d_y, pairs.z.rows());
  fit.chosen_terms = constant_variance_loo_terms(least, weights, communicator);
  fit.constant_loo = row_means(fit.chosen_terms, weights, communicator);
  fit.log_linear_loo = Vector::Constant(d_y, INFINITY);
  fit.chosen_loo = fit.constant_loo;
  for (Index d = 0; d < d_y; ++d) {
    if (variance != LinearVariance::constant) {
      const detail::LogLinearVarianceFit spread = detail::fit_log_linear_variance(
          design, pairs.t.row(d).transpose(), weights, communicator);
      fit.log_linear_loo(d) = spread.loo_nll;
      if (variance == LinearVariance::log_linear && !spread.problem.empty()) {
        throw DataError("output " + std::to_string(d) + ": " + spread.problem +
                        "; use variance = constant");
      }
      if (variance == LinearVariance::log_linear || spread.loo_nll < fit.constant_loo(d)) {
        fit.coefficients.row(d) = spread.location.transpose();
        fit.scales(d) = std::exp(spread.log_scale(0));
        fit.scale_trend.row(d) = spread.log_scale.tail(pairs.z.rows()).transpose();
        fit.chosen_loo(d) = spread.loo_nll;
        fit.chosen_terms.row(d) = spread.loo_terms.transpose();
        ++fit.log_linear_outputs;
        continue;
      }
    }
    // y is standardised, so the residual scale is relative to y's spread: below 1e-10, y is a
    // linear function of x to rounding and the density would be a spike of width 0.
    if (!(fit.scales(d) > kSmallestResidualScale)) {
      fit.scales(d) = kSmallestResidualScale;
      fit.warnings.push_back("output " + std::to_string(d) +
                             " is an exact linear function of x; its residual scale is set "
                             "to 1e-10 of its standard deviation");
    }
  }
  return fit;
}

}  // namespace

std::string to_string(LinearVariance variance) {
  switch (variance) {
    case LinearVariance::constant:
      return "constant";
    case LinearVariance::log_linear:
      return "log_linear";
    case LinearVariance::automatic:
      return "auto";
  }
  return "auto";
}

LinearVariance parse_linear_variance(const std::string& name) {
  for (const auto variance :
       {LinearVariance::constant, LinearVariance::log_linear, LinearVariance::automatic}) {
    if (name == to_string(variance)) return variance;
  }
  throw InvalidArgument("unknown variance '" + name + "' (constant, log_linear or auto)");
}

Matrix least_squares_coefficients(const StandardizedSamples& pairs, const Vector& weights,
                                  const Communicator& communicator) {
  return least_squares(pairs, design_of(pairs), weights, communicator).coefficients;
}

double linear_gaussian_loo_nll(const StandardizedSamples& pairs, const Vector& weights,
                               const Communicator& communicator) {
  // Few pairs: the log-linear spread refits without each pair in turn, which needs them all;
  // every rank takes every pair.
  if (communicator.size() > 1 &&
      !detail::one_step_leave_one_out(communicator.sum_counts(pairs.z.cols()))) {
    const StandardizedSamples every{gather_every_sample(pairs.z, communicator),
                                    gather_every_sample(pairs.t, communicator)};
    return linear_gaussian_loo_nll(every, weights, local_communicator());
  }
  return fit_linear_standardized(pairs, LinearVariance::automatic, weights, communicator)
      .chosen_loo.sum();
}

ConditionalFit fit_linear(const MatrixView& x, const MatrixView& y, const LinearOptions& options,
                          const FitContext& context) {
  linear_option_table().validate(options);
  if (options.y_transform != OutputTransformChoice::none) {
    return fit_on_transformed_output(x, y, options.y_transform, context,
                                     [&](const MatrixView& transformed, const OutputTransform&) {
                                       LinearOptions inner = options;
                                       inner.y_transform = OutputTransformChoice::none;
                                       return fit_linear(x, transformed, inner, context);
                                     });
  }
  return timed_fit<ConditionalMixture>("linear", [&](FitReport& report) {
    // Each rank passes its own pairs (docs/distributed.md): the standardisation, the normal
    // equations and the log-linear spreads' Newton sums are those of every rank's.
    const Communicator& communicator = context.communicator;
    const StandardizedPairs data = standardize_shard(x, y, context);
    const Index input_dim = x.rows();
    const Index n = communicator.sum_counts(data.samples.z.cols());
    if (n < input_dim + 3) {
      throw InvalidArgument(
          "the linear-Gaussian fit needs at least d_x + 3 = " + std::to_string(input_dim + 3) +
          " pairs of x and y, got " + std::to_string(n));
    }
    const LinearFit fit = fit_linear_standardized(data.samples, options.variance,
                                                  context.sample_weights, communicator);
    report.warnings = fit.warnings;
    const double log_jacobian = data.y_scaling.log_jacobian();
    const auto record = [&](const char* name, const Vector& loo) {
      if (loo.allFinite()) report.statistics[name] = loo.sum() - log_jacobian;
    };
    record("loo_nll", fit.chosen_loo);
    record("loo_nll_constant_variance", fit.constant_loo);
    record("loo_nll_log_linear_variance", fit.log_linear_loo);
    const Vector log_densities =
        (log_jacobian - fit.chosen_terms.colwise().sum().array()).matrix().transpose();
    if (log_densities.allFinite()) report.held_out = HeldOutLogDensities{{}, log_densities};
    report.statistics["log_linear_outputs"] = static_cast<double>(fit.log_linear_outputs);
    report.parameter_choice =
        options.variance == LinearVariance::automatic
            ? "the variance of each output, constant or log-linear in x, by leave-one-out "
              "likelihood (loo_nll_constant_variance, loo_nll_log_linear_variance)"
            : "none: the variance is given (" + to_string(options.variance) +
                  "); the line is least squares";
    report.statistics["n_train"] = static_cast<double>(n);
    // One component at 0 of width s; the line and the log-linear spread are the trend.
    return ConditionalMixture(
        data.x_scaling, data.y_scaling,
        std::make_shared<const ConstantGate>(input_dim, Vector::Zero(1)),
        MixtureOutputs::gaussian(Matrix::Zero(y.rows(), 1), fit.scales)
            .with_trend(std::make_shared<const LinearTrend>(
                fit.coefficients.col(0), fit.coefficients.rightCols(input_dim),
                fit.log_linear_outputs > 0 ? fit.scale_trend : Matrix())));
  });
}

}  // namespace cdens
