#pragma once
// Sparse additive conditional density estimation, SA-CDE (Shiga, Tangkaratt, Sugiyama 2015,
// §2): an additive model Σ_d r̂_d(y, x_d) fitted by least squares with a non-negative group-lasso
// penalty that switches whole input features off, renormalised in y, with σ and λ chosen by
// K-fold cross-validation of the held-out negative log-likelihood. See docs/methods/sacde.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/conditional/group_lasso_options.hpp"
#include "cdens/conditional/kernel_cde.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// How λ is taken from the cross-validation table.
enum class SaCdeLambdaRule {
  /// The (σ, λ) of the smallest mean held-out NLL: the paper's rule (§2.5).
  minimum,
  /// The σ of the minimum and the largest λ whose mean held-out NLL is within one standard
  /// error (over the folds) of the minimum (Hastie, Tibshirani & Friedman 2009, §7.10): the
  /// sparsest model the CV cannot tell from the best. Departs from the paper; see
  /// docs/methods/sacde.md.
  one_standard_error,
};

/// "min" (minimum) or "1se" (one_standard_error).
std::string to_string(SaCdeLambdaRule rule);

/// Options of fit_sacde; the defaults are the paper's (§3) except lambda_rule.
struct SaCdeOptions {
  /// Candidate widths σ (standardised units): twenty values from 10⁻² to 2, evenly spaced in log.
  std::vector<double> sigmas = sa_cde_width_grid();
  /// Candidate λ of eq. (16): the same twenty values.
  std::vector<double> lambdas = sa_cde_width_grid();
  /// B = min(n_centers, n) centres drawn at random from the training pairs (shared by y and
  /// every feature of x); all pairs, in data order, when n_centers ≥ n.
  Index n_centers = 100;
  /// K of K-fold cross-validation (§2.5); used when there is more than one (σ, λ) candidate.
  int folds = 5;
  /// How λ is chosen from the cross-validation (σ is always the minimum's).
  SaCdeLambdaRule lambda_rule = SaCdeLambdaRule::one_standard_error;
  /// Stopping rule of the proximal solver.
  GroupLassoOptions solver;
  /// Seed of the centre choice and the fold split.
  std::uint64_t seed = 0;
  /// OpenMP threads; 0 uses the OpenMP default. The result does not depend on it.
  int threads = 0;
};

/// Fits SA-CDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n.
/// The report's feature_selection holds the kept features (‖α_d‖ > 0), ‖α_d‖₂ of every feature
/// and the regularisation path of the chosen σ on the whole training set (Figure 4); its
/// cross_validation the (σ, λ) table of held-out NLL in the user's units.
ConditionalFit fit_sacde(const MatrixView& x, const MatrixView& y, const SaCdeOptions& options = {},
                         const FitContext& context = {});

}  // namespace cdens
