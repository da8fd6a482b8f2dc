#pragma once
// The product-kernel conditional density estimator with one bandwidth per dimension, chosen by
// leave-one-out likelihood cross-validation (Hall, Racine & Li 2004; R's np npcdens and
// statsmodels' KDEMultivariateConditional with bw = 'cv_ml'):
//
//   p̂(y|x) = Σ_i K_{h_x}(x − x_i) N(y; y_i, diag h_y²) / Σ_i K_{h_x}(x − x_i),
//
// K_{h_x}(x − x_i) = exp(−½ Σ_d (x_d − x_id)² / h_d²), on standardised x and y. A bandwidth per
// input lets an input that does not matter be smoothed flat (h_d at its upper bound) and one
// that matters be resolved finely. Discrete columns, declared by the user, get discrete kernels
// with a smoothing parameter λ searched in the same criterion (Aitchison & Aitken 1976; Wang &
// van Ryzin 1981; Li & Racine 2007; column_kernel.hpp); a discrete y gets a probability mass
// function. See docs/methods/kcde.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// Whether KCDE mixes its estimate with the marginal counterpart.
enum class MarginalMixing {
  /// The estimator of Hall, Racine & Li as written (ε = 0).
  none,
  /// ε maximising the leave-one-out likelihood at the chosen bandwidths.
  loo,
};

/// "none" or "loo".
std::string to_string(MarginalMixing mixing);

// Settings of the leave-one-out likelihood search of one bandwidth per dimension (KCDE, Parzen
// with per-dimension bandwidths); the search is internal (src/core/bandwidth_search.hpp).

/// Settings of the bandwidth search. Bandwidths are in standardised units.
struct BandwidthSearchOptions {
  /// Random starts besides the normal-reference one; the best end point is kept.
  int n_restarts = 2;
  /// Each bandwidth stays in [lower, upper]. A bandwidth at `upper` smooths its dimension
  /// flat over the data (standardised data span a few units), which is how an input that does
  /// not matter is switched off; `lower` keeps a column with ties from collapsing to spikes of
  /// width 0.
  double lower = 1e-3;
  double upper = 1e3;
  /// Objective evaluations per start.
  int max_iter = 200;
  /// The search on the full criterion stops when the criterion changes by less than this
  /// between iterations (10⁻⁵ of a criterion near 1 nat is far below its own standard error,
  /// about 1/√n nats).
  double relative_tolerance = 1e-5;
  /// The same for the starts on the screening criterion, whose standard error over a few hundred
  /// held-out samples is a few hundredths of a nat: its end points only need to be good enough
  /// to choose the start the full criterion then polishes.
  double screening_relative_tolerance = 1e-4;
  /// Seed of the random starts.
  std::uint64_t seed = 0;
};

/// The normal-reference bandwidth 1.06 n^(−1/(4 + k)) of standardised data in k dimensions (the
/// start of the search; the rule of thumb of np and statsmodels). With sample weights n is Kish's
/// effective size (BandwidthLikelihood::effective_samples).
double normal_reference_bandwidth(double n_samples, Index dimension);

/// What the kernels of y are centred on.
enum class KernelTrend {
  /// The training outputs y_i: the estimator of Hall, Racine & Li (and np, statsmodels).
  none,
  /// The residuals of a least-squares line: p̂(y|x) = Σ_i K(x − x_i) N(y − A x; y_i − A x_i,
  /// diag h_y²) / Σ_i K(x − x_i), so the kernels only model the spread around the line.
  linear,
  /// The standardised leave-one-out residuals e_i = (y_i − μ_{−i}(x_i)) / f_{−i}(x_i) of a
  /// Gaussian-process mean μ with one length scale per input around the line, f its predictive
  /// standard deviation: p̂(y|x) = Σ_i K(x − x_i) N((y − μ(x)) / f(x); e_i, diag h_y²)
  /// / (f(x) Σ_i K(x − x_i)), so the kernels model the shape of the noise around a smooth mean
  /// and the spread moves with the mean's uncertainty (output_trend.hpp).
  gaussian_process,
};

/// "none", "linear" or "gp".
std::string to_string(KernelTrend trend);
/// The trend of a to_string name; InvalidArgument naming both otherwise.
KernelTrend parse_kernel_trend(const std::string& name);

/// Options of fit_kcde. Bandwidths are in standardised units.
struct KcdeOptions {
  /// Fixed bandwidths, d_x input ones then d_y output ones (λ for a discrete column); empty (the
  /// default) chooses them by maximising the leave-one-out likelihood.
  std::vector<double> bandwidth = {};
  /// Unordered (categorical) columns with Aitchison–Aitken kernels, by position among the inputs
  /// then outputs (the order of `bandwidth`).
  std::vector<Index> discrete = {};
  /// Ordered columns (integer levels) with Wang–van Ryzin kernels, positioned likewise.
  std::vector<Index> ordered = {};
  /// What the output kernels are centred on (a departure from the paper with `linear` or `gp`).
  KernelTrend trend = KernelTrend::none;
  /// A monotone map of a one-dimensional y the kernels are placed on (output_transform.hpp; a
  /// departure from the paper with `log` or `yeo_johnson`).
  OutputTransformChoice y_transform = OutputTransformChoice::none;
  /// With the Gaussian-process trend, the pairs of its basis and of its marginal likelihood: all
  /// up to this many, else a random subset of this size (O(n · trend_basis²) time).
  Index trend_basis = 1000;
  /// Whether the estimate is mixed with its marginal counterpart, ε by leave-one-out likelihood
  /// (marginal_mixing.hpp; a departure from the paper with `loo`, the default).
  MarginalMixing marginal_mixing = MarginalMixing::loo;
  /// The atom of a one-dimensional continuous y (a value carried by many rows, a zero-inflated
  /// output): "auto" finds it by the rule of find_output_atom (src/model/tied_outputs.hpp) where
  /// the model can carry one (no trend, no transform), "none" models none (the estimator as
  /// written), a number's text ("0") makes that value the atom. The pairs at the atom become
  /// point masses at it: P(y = a | x) = Σ_{i: y_i = a} K(x − x_i) / Σ_i K(x − x_i), the same gate
  /// and bandwidths, chosen by the leave-one-out likelihood against the mixed measure (a
  /// departure from the paper where an atom is found; docs/methods/kcde.md, "Outputs with an
  /// atom").
  std::string atom = "auto";
  /// Up to this n the criterion is exact leave-one-out over every training pair (O(n²) per
  /// evaluation).
  Index exact_limit = 20000;
  /// Beyond exact_limit the criterion averages over this many training pairs drawn at random,
  /// each still predicted from all n − 1 others: O(m·n) per evaluation, linear in n.
  Index subsample_held_out = 2000;
  /// The starts of the search run on the criterion over at most this many held-out pairs (drawn
  /// at random); the best end point is then polished on the full criterion.
  Index screening_held_out = 300;
  /// The search: random starts, the box of the bandwidths, evaluations per start, and the seed
  /// of the random starts, which also draws the held-out pairs.
  BandwidthSearchOptions search = {};
};

/// Fits the estimator to the pairs (x_i, y_i): x is d_x × n, y is d_y × n, n ≥ 2. Every training
/// pair is a component: gate ProductKernelGate(x, h_x), components N(y_i, diag h_y²). The report
/// holds the bandwidths ("bandwidth_x0", …, "bandwidth_y0", …) and, when they were searched,
/// the leave-one-out NLL in the user's units ("loo_nll"), the evaluations and starts, a warning
/// for each bandwidth at an edge of the box, and the leave-one-out NLL of the linear-Gaussian
/// model of the same pairs ("linear_loo_nll") with a warning where that is lower. With the linear
/// trend, the model's trend is A, its components sit at y_i − A x_i and the report's
/// "linear_trend" is 1; with the Gaussian-process trend the model's trend is the process, its
/// components sit at the standardised leave-one-out residuals, the report holds the process's
/// length scales ("trend_length_scale_x0", …), its noise variance and its own Gaussian
/// leave-one-out NLL ("trend_loo_nll"), and "loo_nll" includes the residuals' Jacobian. A
/// discrete column's λ is reported as its bandwidth ("bandwidth_x0", …); an undeclared column
/// that looks discrete gets a warning. InvalidArgument for bad declarations
/// (declared_column_kernels) and for a trend with a discrete output.
ConditionalFit fit_kcde(const MatrixView& x, const MatrixView& y, const KcdeOptions& options = {},
                        const FitContext& context = {});

}  // namespace cdens
