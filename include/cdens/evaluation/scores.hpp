#pragma once
// Scores of a conditional density p̂(y|x) at held-out pairs (x_i, y_i), one value per pair, all
// lower-is-better except the log-likelihood (ConditionalMixture::log_pdf). Each works on the
// conditional mixture shape p̂(y|x) = Σ_k π_k(x) N(y − A x; c_k, diag s_k²) through its public
// queries, in closed form wherever the shape has one; inputs and outputs are in the user's units,
// one pair per column (x: d_x × n, y: d_y × n).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

// Losses of a conditional density estimate on held-out pairs (LSCDE paper §2.5, eq. 10), and the
// test measures of an unconditional density estimate (Chen, Hong & Harris 2010, §IV: L1 test
// error, eq. 47; KL divergence by grid sums, eqs. 49–50; model size; held-out ISE).

/// The criterion cross-validation minimises.
enum class CvLoss {
  kl,  ///< KL error up to a constant: the negative log-likelihood −(1/n) Σ log p̂(y_i|x_i)
  sq,  ///< SQ error up to a constant: (1/n) Σ [½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i)]
};

CvLoss parse_cv_loss(std::string_view name);
std::string to_string(CvLoss loss);

/// Mean log-likelihood (1/n) Σ log p̂(y_i | x_i), in the user's units.
double mean_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y);

/// NLL of eq. (10): −mean_log_likelihood.
double negative_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y);

/// The SQ criterion of §2.5 without its constant C_SQ.
double squared_loss(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// negative_log_likelihood or squared_loss.
double held_out_loss(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                     const MatrixView& y);

/// The terms of held_out_loss, one per pair: −log p̂(y_i|x_i), or ½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i).
Vector held_out_pair_losses(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                            const MatrixView& y);

// -- unconditional densities p(x) -------------------------------------------------------------

/// The L1 test error of eq. (47): (1/N_test) Σ_k |p(x_k) − p̂(x_k)| over the test points x_test
/// (d × N_test, the user's units) with the true densities p(x_k) given. InvalidArgument for
/// lengths that disagree or no points; DataError for a non-finite or negative true density.
double l1_test_error(const GaussianMixture& model, const MatrixView& x_test,
                     const VectorView& true_density);

/// The grid of the KL sums (49)–(50): the points x_min + k Δx, k = 1 … N_par, in every dimension
/// (N_par^d points, the first dimension fastest), and the cell volume Π_i Δx_i with
/// Δx_i = (x_max,i − x_min,i) / N_par. The paper uses it in one and two dimensions (N_par ≥
/// 10,000 and > 100); InvalidArgument for more than 10⁸ points or an empty box.
struct KlGrid {
  Matrix points;
  double cell_volume = 0.0;
};
KlGrid kl_divergence_grid(const Vector& lower, const Vector& upper, Index n_par);

/// D_KL(p‖p̂) ≈ Σ_k p(k) log(p(k) / p̂(k)) · cell volume over the grid (eqs. 49–50), with the true
/// densities p(k) at grid.points given; cells where p(k) = 0 add nothing, log p̂ comes from
/// log_pdf (finite where p̂ underflows).
double kl_divergence_on_grid(const GaussianMixture& model, const KlGrid& grid,
                             const VectorView& true_density);

/// The model size of §IV: the number of kernels with a positive weight.
Index model_size(const GaussianMixture& model);

/// The held-out ISE criterion ∫p̂² − (2/n) Σ_j p̂(x_j), the integrated squared error to the true
/// density up to the constant ∫p² (eq. 16 with the expectation taken over held-out data); with
/// sample `weights` (one per column of x; empty: none) the mean is Σ_j c_j p̂(x_j) / Σ_j c_j.
double held_out_ise(const GaussianMixture& model, const MatrixView& x, const Vector& weights = {});

// Scores of a discrete y: a KCDE whose output is declared discrete (unordered) or ordered, so
// that p̂(y|x) is a probability mass function over the levels the model was fitted on (the
// output kernels of column_kernel.hpp). Each is exact, a finite sum over those levels; a y that
// is none of them has probability 0. Inputs and outputs as above (the discrete output in
// its raw values or label codes, never standardised).

/// The ranked probability score of one ordered y (Epstein 1969; Gneiting & Raftery 2007, §4.2,
/// unnormalised) over its levels l_1 < … < l_c:
///
///   RPS(F̂_i, y_i) = Σ_k (F̂(l_k | x_i) − 1{y_i ≤ l_k})².
///
/// Where the levels are consecutive integers it equals the CRPS ∫ (F̂(t) − 1{y ≤ t})² dt of the
/// mass function; elsewhere each step between neighbouring levels weighs one whatever its length
/// (levels coded from labels have no lengths). InvalidArgument unless y is one ordered output.
Vector ranked_probability_scores(const ConditionalMixture& model, const MatrixView& x,
                                 const MatrixView& y);

/// The Brier (quadratic) score of a y whose every output is discrete (Brier 1950; Gneiting &
/// Raftery 2007, §3.2), over the levels l (their combinations when d_y > 1):
///
///   BS(p̂_i, y_i) = Σ_l (p̂(l | x_i) − 1{y_i = l})² = Σ_l p̂(l | x_i)² − 2 p̂(y_i | x_i) + 1,
///
/// the CDE loss plus one (Σ_l p̂² is ConditionalMixture::squared_norm). A y that is none of the
/// levels is an outcome of probability 0, whose own term (0 − 1)² adds to the sum over the
/// levels: Σ_l p̂² + 1. InvalidArgument for a model with a continuous output.
Vector brier_scores(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Prediction sets of a one-dimensional discrete y, one per pair and level α (rows: levels,
/// columns: pairs), each a set of levels.
struct LevelSets {
  Matrix sizes;   ///< the number of levels in the set: the discrete analogue of a width
  Matrix masses;  ///< the probability p̂ gives the set: at least α, seldom exactly α
  Matrix inside;  ///< 1 where y_i is in the set, else 0
};

/// The highest-probability sets: the fewest levels of probability at least α, the most probable
/// first (ties: the lower level first) — the discrete analogue of the highest-density regions
/// (ConditionalMixture::highest_density_regions gives the same sets).
LevelSets highest_probability_sets(const ConditionalMixture& model, const MatrixView& x,
                                   const MatrixView& y, const std::vector<double>& levels);

/// The central sets of an ordered y: the levels from q̂_{(1−α)/2} to q̂_{(1+α)/2}, the quantile
/// q̂_τ being the lowest level whose CDF reaches τ (ConditionalMixture::quantiles).
LevelSets central_level_sets(const ConditionalMixture& model, const MatrixView& x,
                             const MatrixView& y, const std::vector<double>& levels);

// Calibration of a conditional density p̂(y|x) on held-out pairs. For a calibrated model the
// PIT values u_i = F̂(y_i|x_i) (one-dimensional y) and the HPD values h_i = P(p̂(Y|x_i) ≥
// p̂(y_i|x_i)) (any d_y; the HPD coverage values of cdetools) are uniform on
// (0, 1); their histogram, the coverage curve (nominal level α against the share of pairs inside
// the α-interval) and a uniformity test show how far they are from it. A discrete y puts a jump
// of p̂(y_i|x_i) into F̂ and into the HPD value at y_i: both are then randomised by a uniform
// draw V_i over the jump, which makes them exactly uniform again for a calibrated model
// (Brockwell 2007; Czado, Gneiting & Held 2009). So does a y at the atom of a model with one
// (ConditionalMixture::atom): F̂ jumps by π̂_a(x_i) = P̂(y = a | x_i) there, and the atom is
// ranked first among the highest-density regions, so a pair with y_i = a gets the randomised
// PIT F̂(a⁻|x_i) + V_i π̂_a(x_i) and HPD value V_i π̂_a(x_i); the other pairs keep theirs.

/// HPD values per pair and how they were computed.
struct HighestDensityValues {
  Vector values;
  /// 0 when exact (one-dimensional y: ConditionalMixture::highest_density_probability; for a
  /// discrete y the randomised P̂(levels ranked before y_i) + V_i p̂(y_i|x_i), the levels ranked
  /// as the highest-probability sets rank them; V_i π̂_a(x_i) at an atom), else the draws per pair
  /// of the Monte-Carlo estimate (above + (ties + 1) U) / (draws + 1), where above counts the draws
  /// X_r of p̂(·|x_i) with p̂(X_r|x_i) > p̂(y_i|x_i), ties those with p̂(X_r|x_i) = p̂(y_i|x_i) (a
  /// discrete output makes them likely) and U ~ Uniform(0, 1): a randomised rank with ties broken
  /// at random, exactly uniform when y_i is a draw of p̂(·|x_i). `progress` counts the pairs of the
  /// Monte-Carlo estimate.
  Index draws = 0;
};
HighestDensityValues highest_density_values(const ConditionalMixture& model, const MatrixView& x,
                                            const MatrixView& y, Index draws, std::uint64_t seed,
                                            Progress& progress = silent_progress());

/// PIT values of a one-dimensional y: F̂(y_i|x_i) for a continuous y; for an ordered discrete y
/// the randomised PIT u_i = F̂(y_i⁻|x_i) + V_i p̂(y_i|x_i), with F̂(y⁻) = P̂(Y < y) and V_i ~
/// Uniform(0, 1) drawn from `seed`, a stream per pair; likewise at the atom of a y with one
/// (F̂(a⁻|x_i) + V_i P̂(y = a|x_i)). InvalidArgument for an unordered y (its levels have no
/// order) or d_y > 1.
Vector pit_values(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                  std::uint64_t seed);

/// The Kolmogorov–Smirnov test of values against Uniform(0, 1): D = sup_u |F_n(u) − u| and its
/// p-value from Kolmogorov's limiting distribution at (√n + 0.12 + 0.11/√n) D (Stephens 1970,
/// as in Press et al., Numerical Recipes, §14.3), accurate to about 0.01 from n = 5 on.
struct UniformityTest {
  double statistic = 0.0;
  double p_value = 1.0;
};
UniformityTest uniformity_test(const Vector& values);

/// The central interval of probability `level` of Binomial(n, p) divided by n: the
/// ((1 − level)/2, (1 + level)/2) quantiles of the share of successes.
struct ShareBand {
  double lower = 0.0;
  double upper = 0.0;
};
ShareBand binomial_band(Index n, double p, double level);

/// A histogram of values in [0, 1] over `bins` equal bins, with the band in which each bin's
/// count falls with probability `band_level` when the values are uniform (Binomial(n, 1/bins)).
struct UniformHistogram {
  Vector edges;   ///< bins + 1 values from 0 to 1
  Vector counts;  ///< per bin
  double band_lower = 0.0;
  double band_upper = 0.0;
};
UniformHistogram uniform_histogram(const Vector& values, Index bins, double band_level);

/// Per pair, whether y_i lies in the central interval of level levels[r] (row r): 1 where its
/// PIT value u satisfies |u − ½| ≤ α/2, else 0.
Matrix central_coverage(const Vector& pit, const std::vector<double>& levels);

/// Per pair, whether y_i lies in the highest-density region of level levels[r] (row r): 1 where
/// its HPD value h ≤ α (p̂(y_i|x_i) is at least the region's density threshold), else 0.
Matrix highest_density_coverage(const Vector& hpd, const std::vector<double>& levels);

/// Nominal level α against the observed share of pairs inside the α-interval: central intervals
/// from the PIT values (|u − ½| ≤ α/2; empty without them), highest-density regions from the HPD
/// values (h ≤ α; empty without them), with the binomial band of a calibrated model
/// (Binomial(n, α) / n). One of the two must be given.
struct CoverageCurve {
  Vector levels;
  Vector central;
  Vector highest_density;
  Vector band_lower;
  Vector band_upper;
};
CoverageCurve coverage_curve(const Vector& pit, const Vector& hpd,
                             const std::vector<double>& levels, double band_level);

/// The continuous ranked probability score CRPS(F_i, y_i) = ∫ (F_i(t) − 1{y_i ≤ t})² dt of a
/// one-dimensional y (InvalidArgument otherwise), in the units of y. Closed form of a Gaussian
/// mixture (Grimit, Gneiting, Berrocal & Johnson 2006) from the kernel representation
/// CRPS = E|X − y| − ½ E|X − X′| (Gneiting & Raftery 2007):
///
///   CRPS = Σ_k π_k A(y − μ_k, σ_k²) − ½ Σ_k Σ_l π_k π_l A(μ_k − μ_l, σ_k² + σ_l²),
///   A(m, v) = E|N(m, v)| = 2 √v φ(m/√v) + m (2 Φ(m/√v) − 1),
///
/// an atom's components being point masses at its value (σ_k = 0, A(m, 0) = |m|).
Vector crps(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Pinball (quantile) losses ρ_τ(y_i − q_τ(x_i)) = (y_i − q)(τ − 1{y_i < q}) of the model's
/// τ-quantiles, for one-dimensional y: row r holds level levels[r] ∈ (0, 1) (the quantile score
/// of Gneiting & Raftery 2007; its average over τ ∈ (0, 1) is half the CRPS).
Matrix pinball_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                      const std::vector<double>& levels);

/// The CDE loss of Izbicki & Lee (2017) per pair, ∫ p̂(y|x_i)² dy − 2 p̂(y_i|x_i), for
/// any d_y: its mean estimates ∫∫ (p̂(y|x) − p(y|x))² dy dP(x) up to a constant that does not
/// depend on p̂. The integral is the mixture's closed form (ConditionalMixture::squared_norm).
Vector cde_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Energy scores ES(P_i, y_i) = E‖X − y_i‖ − ½ E‖X − X′‖ (Gneiting & Raftery 2007, with β = 1;
/// equal to the CRPS for d_y = 1) estimated from `draws` draws of p̂(·|x_i) per pair
/// (even, ≥ 4): with the draws taken as draws/2 independent couples (X_r, X′_r), the terms
/// T_r = ‖X_r − y_i‖ − ½ ‖X_r − X′_r‖ are independent with mean ES, so their average is unbiased
/// and its Monte-Carlo standard error is sd(T)/√(draws/2). `progress` counts the pairs.
struct EnergyScores {
  Vector values;           ///< per pair
  Vector standard_errors;  ///< Monte-Carlo standard error of each value
  Index draws = 0;         ///< draws of p̂(·|x_i) per pair
};
EnergyScores energy_scores(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y, Index draws, std::uint64_t seed,
                           Progress& progress = silent_progress());

/// Widths of the central intervals [q_{(1−α)/2}, q_{(1+α)/2}] of one-dimensional y: row r for
/// level levels[r], one column per input. Whether y_i lies inside is central_coverage of its PIT.
Matrix central_interval_widths(const ConditionalMixture& model, const MatrixView& x,
                               const std::vector<double>& levels);

/// Total lengths of the highest-density regions of probability α of one-dimensional y (the union
/// of intervals that ConditionalMixture::highest_density_regions returns, so a bimodal p̂ gives
/// two): row r for level levels[r]. Whether y_i lies inside is highest_density_coverage of its
/// HPD value.
Matrix highest_density_widths(const ConditionalMixture& model, const MatrixView& x,
                              const std::vector<double>& levels);

}  // namespace cdens
