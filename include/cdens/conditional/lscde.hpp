#pragma once
// Least-Squares Conditional Density Estimation (Sugiyama, Takeuchi, Suzuki, Kanamori, Hachiya,
// Okanohara 2010): the density ratio p(x, y)/p(x) = p(y|x) fitted directly by least squares on a
// Gaussian basis, with σ and λ chosen by K-fold cross-validation. See docs/methods/lscde.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/evaluation/scores.hpp"

namespace cdens {

/// The candidate grid of §2.6 for both σ and λ.
std::vector<double> lscde_paper_grid();

/// Options of fit_lscde; the defaults are the paper's (§2.6, §4.2).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct LscdeOptions {
  std::vector<double> sigma = lscde_paper_grid();
  std::vector<double> regularization = lscde_paper_grid();
  Index n_centers = 100;
  int folds = 5;
  CvLoss cv_loss = CvLoss::kl;
  std::uint64_t seed = 0;
};

/// Fits LSCDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n.
ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const LscdeOptions& options = {},
                         const FitContext& context = {});

/// Semi-supervised LSCDE (§2.7): the unlabelled inputs (d_x × n') join the labelled ones in Ĥ.
ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
                         const LscdeOptions& options = {}, const FitContext& context = {});

}  // namespace cdens
