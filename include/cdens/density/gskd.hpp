#pragma once
// Generalised sparse kernel density (GSKD) estimator with tunable kernels, the method of Chen,
// Hong & Harris 2010 (§III and the Appendix):
//
//   p̂(z) = Σ_{l=1}^{N_K} β_l N(z; c_l, diag γ_l²)                                        (1)
//
// built by orthogonal forward regression on the Parzen target t_k = p̂_Parz(z_k; γ_Parz)
// (eq. 23): stage n places and shapes one kernel — its centre c_n and diagonal covariance Γ_n —
// by minimising the leave-one-out MSE J_n (eq. 37) with repeated weighted boosting search over
// the box of §III-A; the weights are then found by MNQP (eqs. 39–44), which removes kernels
// driven to (near) zero. The paper stops the construction when J_{n+1} ≥ J_n (eq. 38); on its
// noise-free Parzen target that rarely fires, so by default the number of stages and the
// variance box's upper bound are chosen by K-fold hold-out (GskdStopping). See
// docs/methods/gskd.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/density/rsde.hpp"

namespace cdens {

/// Options of rwbs_minimize; the defaults are the paper's 1-D settings (§IV-A).
struct RwbsOptions {
  /// P_S, the population size (≥ 2).
  int population = 10;
  /// N_G, the number of generations (repeats of the weighted boosting search).
  int generations = 10;
  /// M_I, the number of weighted boosting search iterations per generation.
  int iterations = 200;
  /// Seed and stream of the random population members (GSKD runs stage n on stream n).
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
};

/// When the construction stops.
enum class GskdStopping {
  /// K-fold hold-out (departs from the paper): for every fold and every candidate upper bound
  /// of the variance box, the construction on the other folds is scored after each stage by the
  /// held-out integrated squared error estimate ∫p̂² − (2/N_h) Σ_h p̂(z_h) of its MNQP-weighted
  /// mixture; the (bound, stage count) of the smallest mean over the folds is then built on
  /// every sample (eq. 38 may still end it earlier).
  holdout,
  /// Eq. (38): stop when J_{n+1} ≥ J_n, with the box's upper bound variance_upper.
  paper,
};

/// "holdout" or "paper".
std::string to_string(GskdStopping stopping);

/// How the hold-out takes (variance bound, stage count) from its table.
enum class GskdStageRule {
  /// The (bound, stages) of the smallest mean held-out error.
  minimum,
  /// The bound of the smallest mean held-out error, and there the fewest stages whose mean is
  /// within one standard error (over the folds) of that minimum (Hastie, Tibshirani & Friedman
  /// 2009, §7.10): the sparsest mixture the hold-out cannot tell from the best. About half the
  /// kernels of `minimum`, at a higher L1 error in one and two dimensions
  /// (docs/methods/gskd.md).
  one_standard_error,
};

/// "1se" (one_standard_error) or "min" (minimum).
std::string to_string(GskdStageRule rule);

/// Options of fit_gskd. Lengths are in standardised units (the data's own with `standardize`
/// off, as in the paper's experiments).
struct GskdOptions {
  /// γ_Parz of the regression target (eq. 23). 0: chosen by the Parzen window's leave-one-out
  /// likelihood search (fit_parzen's default), as the paper takes the PW estimate's width.
  double target_bandwidth = 0.0;
  /// λ of eqs. (36), (65): "simply set to zero or a very small value (e.g. 10⁻⁶)" (§III-A).
  double regularization = 1e-6;
  /// RWBS settings P_S, N_G, M_I; 0 takes the paper's setting for the dimension m
  /// (gskd_paper_rwbs): P_S = 10 (m = 1), 20 (m = 2), 40 (m ≥ 3); N_G = 10; M_I = 200 (m ≤ 2),
  /// 400 (m ≥ 3).
  int population = 0;
  int generations = 0;
  int iterations = 0;
  /// The variance box γ̃²_min ≤ γ²_{i,n} ≤ γ̃²_max of §III-A, which the paper does not give
  /// values for (docs/methods/gskd.md): γ̃²_min = variance_lower · γ²_Parz, a multiple of the
  /// target's own kernel variance (a narrower kernel would model the Parzen window's spikes, not
  /// the density), and γ̃²_max = variance_upper · s_i², a fraction of dimension i's sample
  /// variance (1 on standardised data). The lower bound is capped at half the upper one.
  double variance_lower = 1.0;
  double variance_upper = 1.0;
  /// Upper bound on the kernels constructed.
  Index max_kernels = 100;
  /// The stopping rule; `holdout` also chooses γ̃²_max among variance_upper_grid (times
  /// s_i²), `paper` uses variance_upper.
  GskdStopping stopping = GskdStopping::holdout;
  /// holdout: the candidate upper bounds of the variance box, multiples of s_i².
  std::vector<double> variance_upper_grid = {0.25, 1.0, 4.0};
  /// holdout: K of the K-fold hold-out (folds drawn from stream 999 of the seed).
  int folds = 5;
  /// holdout: how the row is taken from the table.
  GskdStageRule stage_rule = GskdStageRule::minimum;
  /// holdout: a fold's construction stops once this many stages in a row have not lowered its
  /// held-out error below its best.
  int patience = 3;
  /// holdout: above this many samples the hold-out (its K fold constructions per bound) runs on
  /// a random subsample of this size (gskd_holdout_subsample), and only the final construction
  /// sees all N — a departure for large N that takes 4× less CPU at N = 10⁴ in 1-D with no
  /// measured loss of L1 accuracy (docs/methods/gskd.md); up to this size nothing changes. 0:
  /// the hold-out on every sample, whatever N.
  Index holdout_subsample = 1000;
  /// The weight solver; its prune_threshold removes kernels driven to (near) zero.
  MnqpOptions mnqp = {};
  bool standardize = true;
  /// Seed of RWBS; stage n draws from stream n.
  std::uint64_t seed = 0;
};

/// The paper's RWBS settings for an m-dimensional GSKD (§IV): (P_S, N_G, M_I) = (10, 10, 200)
/// in 1-D, (20, 10, 200) in 2-D, (40, 10, 400) in 6-D and 10-D (used for every m ≥ 3).
RwbsOptions gskd_paper_rwbs(Index dimension);

/// Fits GSKD to the samples x (d × N, the user's units). DataError for empty, non-finite or
/// constant data; InvalidArgument for bad options. With context.sample_weights the
/// standardisation, the Parzen target and its width, the search box's variances, the OFR-LOO
/// regression, MNQP and the hold-out are weighted (GskdConstruction, gskd_weights).
/// The report: hyper-parameters target_bandwidth, variance_upper and, with holdout stopping,
/// stages; statistics n_selected (kernels constructed by OFR), n_kernels (kept by MNQP),
/// loo_mse (J of the last stage), cost_evaluations (the N_ce of §III-C, of the final
/// construction), population, generations, iterations; with holdout stopping the
/// cross_validation table of (variance_upper, stages) and holdout_samples, the samples the
/// hold-out ran on (N, or holdout_subsample when N exceeds it).
DensityFit fit_gskd(const MatrixView& x, const GskdOptions& options = {},
                    const FitContext& context = {});

}  // namespace cdens
