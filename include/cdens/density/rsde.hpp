#pragma once
// Reduced set density estimator (RSDE; Girolami & He 2003, as stated in Chen, Hong & Harris
// 2010, §II-B, eqs. 13–17): a fixed-kernel estimate p̂(z) = Σ_i β_i N(z; z_i, γ² I) over all
// training points whose weights minimise the ISE criterion
//
//   ½ βᵀ G β − p̂ᵀ β,  β ≥ 0, Σ β = 1,   G_ij = N(z_i; z_j, 2γ² I),  p̂_i = p̂_Parz(z_i; γ),   (13–15)
//
// solved by SMO (Girolami & He's solver; the paper's MNQP on request); kernels whose weights are
// driven to (near) zero are removed. The width γ is
// chosen by K-fold cross-validation of the held-out ISE. See docs/methods/rsde.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// The algorithm that solves the simplex-constrained quadratic programme of eq. (39) (called
/// MNQP after the paper's solver of it).
enum class SimplexQpSolver {
  /// Sequential minimal optimisation (Girolami & He 2003's own solver of RSDE's eq. 13): each
  /// step moves weight between the two kernels that violate the optimality conditions most
  /// (second-order choice), O(N) a step; exact zeros, so it ends at the optimum in few steps when
  /// the solution is sparse.
  smo,
  /// The multiplicative updates (42)–(44) of Chen, Hong & Harris 2010 (§III-B), O(N²) an update;
  /// they approach zero weights geometrically, so on a dense problem they stop at max_iterations.
  mnqp,
};

std::string to_string(SimplexQpSolver solver);

/// Options of solve_mnqp.
struct MnqpOptions {
  /// The algorithm; first, so that `MnqpOptions{SimplexQpSolver::smo}` chooses it.
  SimplexQpSolver solver = SimplexQpSolver::mnqp;
  /// Upper bound on the work of one pass: MNQP's updates (42)–(44), each O(N²), or N times as
  /// many SMO steps, each O(N).
  int max_iterations = 10000;
  /// MNQP: converged when the largest change of a weight in one update is at most this. SMO:
  /// converged when the optimality conditions are violated by at most this times max_i |v_i|
  /// (the largest ∂f/∂β_j over the kept weights minus the smallest over all; f then lies within
  /// that of its minimum).
  double tolerance = 1e-10;
  /// After convergence, weights below prune_threshold · max_i β_i are set to zero (their kernels
  /// are removed, §III-B) and the remaining weights are re-solved by MNQP on their own
  /// sub-problem, so the result still sums to one; repeated until no kept weight is below the
  /// threshold. 0 keeps every weight that is not exactly 0.
  double prune_threshold = 1e-4;
  /// Record f(β) after every update in MnqpResult::objective_history (for tests and plots).
  bool record_objective = false;
};

/// Options of fit_rsde. Widths are in standardised units (the data's own with `standardize` off).
struct RsdeOptions {
  /// Candidate widths γ. One value: used as given. Several: the one with the smallest K-fold
  /// held-out ISE score ∫p̂² − (2/|test|) Σ_test p̂(z) is chosen. The default is 12 widths
  /// evenly spaced in log over [0.1, 2] (the paper's RSDE widths, 0.56–1.3 in data whose
  /// spread is of order 1–3, lie inside).
  std::vector<double> bandwidth = log_spaced(0.1, 2.0, 12);
  /// K of K-fold cross-validation.
  int folds = 5;
  /// The solver of eq. (13) as the problem (39): SMO by default (Girolami & He's; the paper's
  /// MNQP updates as `solver` mnqp, docs/methods/rsde.md says why); its prune_threshold is RSDE's
  /// "zero threshold" below which kernels are removed (relative to the largest weight).
  MnqpOptions mnqp = {SimplexQpSolver::smo};
  /// Work on standardised data (off: in the data's units, as the paper's experiments).
  bool standardize = true;
  /// Seed of the fold split.
  std::uint64_t seed = 0;
};

/// The matrices of eq. (13) on data z (d × N, as given): G (eqs. 14) and p̂ (eq. 15, the Parzen
/// estimate at each z_i with its own kernel included). With sample weights c (one per column;
/// empty: none) p̂ is the weighted Parzen estimate Σ_j c_j G_γ(z_i, z_j) / Σc, so the reduced
/// density is the one of the rows repeated c_j times (the ISE of eq. 13 depends on the repeated
/// rows' weights through their sums only).
struct RsdeProblem {
  Matrix g;
  Vector parzen;
};
RsdeProblem rsde_problem(const MatrixView& z, double width, const Vector& weights = {});

/// Fits RSDE to the samples x (d × N, the user's units) after standardising them. With
/// context.sample_weights the standardisation, p̂ (rsde_problem) and the width's held-out ISE are
/// weighted (choose_width_by_held_out_ise).
/// DataError for empty, non-finite or constant data; InvalidArgument for bad options.
/// The report: hyper-parameter "bandwidth"; statistics n_kernels, mnqp iterations, ise_objective =
/// ½βᵀGβ − p̂ᵀβ at the solution.
DensityFit fit_rsde(const MatrixView& x, const RsdeOptions& options = {},
                    const FitContext& context = {});

}  // namespace cdens
