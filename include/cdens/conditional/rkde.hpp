#pragma once
// Ratio of kernel density estimators (RKDE), the plug-in baseline of the LSCDE paper (Sugiyama et
// al. 2010, §3.4): p(y|x) = p(x, y) / p(x) with both densities estimated by standard Gaussian
// kernel density estimation on standardised data,
//
//   p̂(x, y) = (1/n) Σ_i N(x; x_i, σ_j² I) N(y; y_i, σ_j² I),   p̂(x) = (1/n) Σ_i N(x; x_i, σ_m² I),
//
// each width chosen by K-fold cross-validation of its own held-out log-likelihood. The ratio is
// renormalised in y (the two x-widths differ in general, so the raw ratio does not integrate
// to 1), which leaves
//
//   p̂(y|x) = Σ_i exp(−‖x − x_i‖²/2σ_j²) N(y; y_i, σ_j² I) / Σ_i exp(−‖x − x_i‖²/2σ_j²).
//
// See docs/methods/rkde.md for this choice and for the paper's Table 1 numbers.

#include <cstdint>
#include <vector>

#include "cdens/conditional/lscde.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// Options of fit_rkde.
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct RkdeOptions {
  /// The LSCDE paper's §2.6 grid by default: the paper states no grid for RKDE, and this is the
  /// one its experiments use.
  std::vector<double> sigma = lscde_paper_grid();
  int folds = 5;
  std::uint64_t seed = 0;
};

/// Fits RKDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n. The model keeps all n pairs
/// (gate GaussianKernelGate(u, σ_j), components N(v_i, σ_j² I)). The report holds "sigma" (σ_j,
/// of the joint KDE) and "sigma_marginal" (σ_m), the joint KDE's table (loss "joint_nll",
/// −log p̂(x, y) in the user's units) as cross_validation and the marginal KDE's (loss
/// "marginal_nll") as auxiliary_cross_validation["marginal_kde"], and the statistic
/// "mean_log_ratio_mass": the mean over training inputs of log ∫ p̂(x_i, y) / p̂(x_i) dy, how far
/// the raw ratio is from a density (0 when σ_j = σ_m).
ConditionalFit fit_rkde(const MatrixView& x, const MatrixView& y, const RkdeOptions& options = {},
                        const FitContext& context = {});

}  // namespace cdens
