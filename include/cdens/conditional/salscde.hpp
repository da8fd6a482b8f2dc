#pragma once
// SA-LSCDE (Shiga, Tangkaratt, Sugiyama 2015, §3.1): SA-CDE selects the features, LSCDE (with
// its own cross-validation) estimates p(y|x) on them. See docs/methods/sacde.md.

#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/sacde.hpp"
#include "cdens/core/fit_context.hpp"

namespace cdens {

/// Options of fit_salscde: one set per stage. The paper's experiments choose σ and λ of both
/// stages from the same twenty values in [10⁻², 2], so that is the default LSCDE grid here.
struct SalscdeOptions {
  SacdeOptions selection;
  LscdeOptions estimation = paper_estimation_options();

  /// LscdeOptions with σ and λ candidates sa_cde_width_grid() (§3).
  static LscdeOptions paper_estimation_options();
};

/// Fits SA-LSCDE to the pairs (x_i, y_i). The report is LSCDE's (σ, λ and its CV table) with
/// method "salscde", SA-CDE's feature selection (path included), SA-CDE's σ and λ as
/// "selection_sigma" and "selection_regularization" and its CV table as the auxiliary table
/// "sacde". When SA-CDE switches every feature off, the feature that leaves the regularisation path
/// last (the largest λ with ‖α_d‖ > 0) is kept, so that LSCDE has an input.
ConditionalFit fit_salscde(const MatrixView& x, const MatrixView& y,
                           const SalscdeOptions& options = {}, const FitContext& context = {});

}  // namespace cdens
