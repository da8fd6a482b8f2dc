#pragma once
// Gaussian mixture model with diagonal covariances fitted by EM (Chen, Hong & Harris 2010,
// §II-A, eqs. 5–8, after Bilmes 1997), with the paper's lower bound γ²_min on every variance.
// See docs/methods/gmm.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// How each EM run starts.
enum class GmmInitialization {
  /// k-means++ seeding (Arthur & Vassilvitskii 2007) of the centres among the samples; each
  /// sample is then assigned to its nearest centre and one M-step (eqs. 6–8 with hard
  /// responsibilities) gives the initial weights and variances.
  kmeans_plus_plus,
  /// The paper's §IV initialisation: β_l = 1/N_K, centres drawn uniformly from the box
  /// [box_lower, box_upper]^m, every variance γ²_ini = initial_variance.
  box,
};

/// "kmeans++" or "box".
std::string to_string(GmmInitialization initialization);
/// The initialisation of a to_string name; InvalidArgument naming both otherwise.
GmmInitialization parse_gmm_initialization(const std::string& name);

/// Options of fit_gmm. With `standardize` on (the default) the data are standardised first and
/// every length below (box, variances) is in standardised units; with it off they are in the
/// data's own units, as in the paper's experiments.
struct GmmOptions {
  /// N_K, the number of mixture components (the paper takes the mean GSKD model size).
  Index n_components = 1;
  GmmInitialization init = GmmInitialization::kmeans_plus_plus;
  /// Independent EM runs from different starts; the run with the largest final likelihood is
  /// kept (the earliest on ties).
  int n_init = 1;
  /// γ²_min: every variance is kept at or above this (§II-A). The paper uses 0.01 (0.02 in 10-D)
  /// in the data's units.
  double variance_floor = 1e-6;
  /// The box [a, b]^m and γ²_ini of the box initialisation (the paper's 1-D example:
  /// [−4, 3], 0.1).
  double box_lower = -3.0;
  double box_upper = 3.0;
  double initial_variance = 0.1;
  /// EM stops when the mean log-likelihood per sample rises by less than this in one iteration.
  double tol = 1e-8;
  int max_iter = 1000;
  bool standardize = true;
  /// Seed of the initialisations; restart r draws from stream r.
  std::uint64_t seed = 0;
};

/// One EM run on data z (no standardisation), with the likelihood after every iteration.
struct EmRun {
  Vector weights;    ///< β_l
  Matrix centers;    ///< c_l, d × N_K
  Matrix variances;  ///< γ²_{i,l}, d × N_K
  /// Mean log-likelihood (1/N) Σ_k log p̂(z_k) of the initial parameters, then after every
  /// iteration; never decreases (EM with the floor is still an exact constrained M-step).
  std::vector<double> log_likelihood;
  int iterations = 0;
  bool converged = false;
};

/// Runs EM (eqs. 5–8) on z (d × N) from the given parameters: responsibilities in log space,
/// variances floored at options.variance_floor, until the mean log-likelihood rises by less
/// than options.tol or options.max_iter. A component whose total responsibility
/// underflows to zero keeps its centre and variances with weight 0.
///
/// It runs on context.threads threads over blocks of samples. Under a context.communicator of
/// several ranks z is this rank's share of the samples, every rank passes the same parameters,
/// and every step's sums and the likelihood are over the samples of every rank: each rank
/// returns the same run. Every rank must call it.
EmRun run_em(const MatrixView& z, Vector weights, Matrix centers, Matrix variances,
             const GmmOptions& options, const FitContext& context = {});

/// Fits the GMM to the samples x (d × N, the user's units). DataError for empty, non-finite
/// or constant data; InvalidArgument for bad options (N_K < 1 or > N, a floor ≤ 0, …).
/// The report's statistics: log_likelihood of the kept run, iterations, converged, restarts.
/// context.threads run over the restarts when there are at least as many restarts (each on one
/// thread), otherwise over blocks of samples within each run, the restarts one after another
/// (always so on several ranks); the result does not depend on them.
///
/// Under context.communicator of several ranks each rank passes its own rows, and the
/// standardisation, the starts, EM and the choice among the restarts are over every rank's: the
/// same seed gives the same model on any number of ranks, up to the order of summation
/// (docs/distributed.md).
DensityFit fit_gmm(const MatrixView& x, const GmmOptions& options = {},
                   const FitContext& context = {});

}  // namespace cdens
