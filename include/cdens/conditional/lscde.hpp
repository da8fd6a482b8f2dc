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
#include "cdens/core/metrics.hpp"
#include "cdens/core/sampling_plan.hpp"

namespace cdens {

/// The candidate grid of §2.6 for both σ and λ.
std::vector<double> lscde_paper_grid();

/// Options of fit_lscde; the defaults are the paper's (§2.6, §4.2).
struct LscdeOptions {
  /// Candidate widths σ of the Gaussian basis, in standardised units. More than one candidate
  /// (here or in lambdas) turns on cross-validation.
  std::vector<double> sigmas = lscde_paper_grid();
  /// Candidate regularisation parameters λ of eq. (5).
  std::vector<double> lambdas = lscde_paper_grid();
  /// b = min(n_centers, n) basis centres drawn at random from the training pairs; all pairs,
  /// in data order, when n_centers ≥ n.
  Index n_centers = 100;
  /// K of K-fold cross-validation (§2.5).
  int folds = 5;
  /// Criterion of the cross-validation: KL (the paper's choice for Table 1) or SQ.
  CvLoss cv_loss = CvLoss::kl;
  /// Seed of the centre choice and the fold split.
  std::uint64_t seed = 0;
  /// OpenMP threads; 0 uses the OpenMP default. The result does not depend on it.
  int threads = 0;
};

/// The random choices a fit makes from options.seed, for reproducing a fit elsewhere (the
/// benchmark's numpy reference uses the same centres and folds).
///

/// Fits LSCDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n.
ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const LscdeOptions& options = {},
                         const FitContext& context = {});

/// Semi-supervised LSCDE (§2.7): the unlabelled inputs (d_x × n') join the labelled ones in Ĥ.
ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
                         const LscdeOptions& options = {}, const FitContext& context = {});

}  // namespace cdens
