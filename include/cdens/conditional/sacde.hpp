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
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct SaCdeOptions {
  std::vector<double> sigma = sa_cde_width_grid();
  std::vector<double> regularization = sa_cde_width_grid();
  Index n_centers = 100;
  int folds = 5;
  SaCdeLambdaRule lambda_rule = SaCdeLambdaRule::one_standard_error;
  GroupLassoOptions solver;
  std::uint64_t seed = 0;
};

/// Fits SA-CDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n.
/// The report's feature_selection holds the kept features (‖α_d‖ > 0), ‖α_d‖₂ of every feature
/// and the regularisation path of the chosen σ on the whole training set (Figure 4); its
/// cross_validation the (σ, λ) table of held-out NLL in the user's units.
ConditionalFit fit_sacde(const MatrixView& x, const MatrixView& y, const SaCdeOptions& options = {},
                         const FitContext& context = {});

}  // namespace cdens
