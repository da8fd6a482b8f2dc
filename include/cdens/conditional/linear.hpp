#pragma once
// The linear-Gaussian conditional density, the baseline every conditional estimator is compared
// with (docs/methods/linear.md):
//
//   y | x ~ N(a + A x, diag s(x)²),  log s_d(x) = log s_d (constant) or c_d + γ_dᵀx (log-linear)
//
// on standardised x and y: least squares and the maximum-likelihood variance of the residuals
// for a constant spread, maximum likelihood (Newton steps) for a log-linear one, each output's
// spread chosen by its leave-one-out likelihood by default. As a conditional mixture: trend A,
// scale trend Γ = (γ_d), one component N(a, diag s²) behind a constant gate. The leave-one-out
// likelihood is closed-form for a constant spread (the PRESS residuals e_i / (1 − h_ii) of the
// hat matrix) and one Newton step from the full fit per pair for a log-linear one.

#include <string>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/output_transform.hpp"

namespace cdens {

/// How each output's spread depends on x.
enum class LinearVariance {
  constant,    ///< s_d, the same at every x (least squares)
  log_linear,  ///< log s_d(x) = c_d + γ_dᵀx (maximum likelihood)
  automatic,   ///< per output, the one with the lower leave-one-out NLL
};
std::string to_string(LinearVariance variance);
/// "constant", "log_linear" or "auto"; InvalidArgument naming the choices otherwise.
LinearVariance parse_linear_variance(const std::string& name);

/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct LinearOptions {
  LinearVariance variance = LinearVariance::automatic;
  OutputTransformChoice y_transform = OutputTransformChoice::none;
};

/// Fits the linear-Gaussian model to the pairs (x_i, y_i): x is d_x × n, y is d_y × n, with
/// n ≥ d_x + 3. The report (method "linear") holds the leave-one-out NLL in the user's units
/// ("loo_nll", mean over pairs of −log p̂_{−i}(y_i | x_i) of the chosen spreads, and
/// "loo_nll_constant_variance" / "loo_nll_log_linear_variance" of each kind where defined) and
/// the number of outputs with a log-linear spread ("log_linear_outputs"). An output that is an
/// exact linear function of x gets a residual scale of 1e-10 of its standard deviation and a
/// warning. variance = log_linear throws DataError where that fit is degenerate (it names why).
/// With several ranks in context.communicator each passes its own pairs (any number, even none)
/// and every rank gets the model of all of them; y_transform is refused there.
ConditionalFit fit_linear(const MatrixView& x, const MatrixView& y,
                          const LinearOptions& options = {}, const FitContext& context = {});

}  // namespace cdens
