#include "cdens/conditional/linear_gaussian.hpp"

#include <Eigen/QR>
#include <cmath>
#include <memory>

#include "cdens/conditional/constant_gate.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/gaussian_kernel.hpp"

namespace cdens {
namespace {

/// Residual scale (standardised units) below which an output counts as exactly linear in x.
constexpr double kSmallestResidualScale = 1e-10;

/// Least squares t ≈ B (1, z) on standardised pairs: B (d_y × (1 + d_x)), the residuals
/// (d_y × n) and the leverages h_ii of the hat matrix.
struct LeastSquares {
  Matrix coefficients;
  Matrix residuals;
  Vector leverages;
};

LeastSquares least_squares(const StandardizedSamples& pairs) {
  const Index n = pairs.z.cols();
  const Index p = pairs.z.rows() + 1;
  Matrix design(n, p);  // one row per pair: (1, z_iᵀ)
  design.col(0).setOnes();
  design.rightCols(p - 1) = pairs.z.transpose();
  const Eigen::ColPivHouseholderQR<Matrix> qr(design);
  LeastSquares fit;
  fit.coefficients = qr.solve(pairs.t.transpose()).transpose();
  fit.residuals = pairs.t - fit.coefficients * design.transpose();
  // h_ii = ‖row i of Q₁‖² over the rank r columns of the thin Q.
  const Matrix thin_q = qr.householderQ() * Matrix::Identity(n, qr.rank());
  fit.leverages = thin_q.rowwise().squaredNorm();
  return fit;
}

/// The leave-one-out NLL of the linear-Gaussian model from its least-squares fit (see
/// linear_gaussian_loo_nll).
double leave_one_out_nll(const LeastSquares& fit) {
  const Index n = fit.residuals.cols();
  const Vector residual_sums = fit.residuals.rowwise().squaredNorm();
  double total = 0.0;
  for (Index i = 0; i < n; ++i) {
    const double kept = 1.0 - fit.leverages(i);
    if (!(kept > 1e-10)) return INFINITY;
    for (Index d = 0; d < fit.residuals.rows(); ++d) {
      // Without pair i: its prediction error is e_i / (1 − h_ii) and the residual sum of squares
      // of the other n − 1 pairs drops by e_i² / (1 − h_ii) (the PRESS identities).
      const double error = fit.residuals(d, i) / kept;
      const double variance = (residual_sums(d) - fit.residuals(d, i) * error) / (n - 1.0);
      if (!(variance > 0.0)) return INFINITY;
      total += 0.5 * (kLog2Pi + std::log(variance) + error * error / variance);
    }
  }
  return total / static_cast<double>(n);
}

}  // namespace

Matrix least_squares_coefficients(const StandardizedSamples& pairs) {
  return least_squares(pairs).coefficients;
}

double linear_gaussian_loo_nll(const StandardizedSamples& pairs) {
  return leave_one_out_nll(least_squares(pairs));
}

KernelCdeFit fit_linear_gaussian(const MatrixView& x, const MatrixView& y,
                                 const LinearGaussianOptions&, const FitContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const StandardizedPairs data = standardize_pairs(x, y, context);
  const Index n = data.samples.z.cols();
  const Index input_dim = x.rows();
  if (n < input_dim + 3) {
    throw InvalidArgument("the linear-Gaussian fit needs at least d_x + 3 = " +
                          std::to_string(input_dim + 3) + " pairs, got " + std::to_string(n));
  }
  const LeastSquares fit = least_squares(data.samples);
  Vector scales = (fit.residuals.rowwise().squaredNorm() / static_cast<double>(n)).cwiseSqrt();
  FitReport report;
  report.method = "linear";
  // y is standardised, so the residual scale is relative to y's spread: below 1e-10, y is a
  // linear function of x to rounding and the density would be a spike of width 0.
  for (Index d = 0; d < scales.size(); ++d) {
    if (!(scales(d) > kSmallestResidualScale)) {
      scales(d) = kSmallestResidualScale;
      report.warnings.push_back("output " + std::to_string(d) +
                                " is an exact linear function of x; its residual scale is set "
                                "to 1e-10 of its standard deviation");
    }
  }
  const double loo = leave_one_out_nll(fit);
  if (std::isfinite(loo)) report.statistics["loo_nll"] = loo - data.y_scaling.log_jacobian();
  report.statistics["n_train"] = static_cast<double>(n);
  ConditionalMixture model(data.x_scaling, data.y_scaling,
                           std::make_shared<const ConstantGate>(input_dim, Vector::Zero(1)),
                           fit.coefficients.col(0), scales, fit.coefficients.rightCols(input_dim));
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {std::move(model), std::move(report)};
}

}  // namespace cdens
