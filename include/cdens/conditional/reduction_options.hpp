#pragma once
// Options of the Grassmann search of LSCE and LSMI-based sufficient dimension reduction
// (Tangkaratt, Xie & Sugiyama; Suzuki & Sugiyama 2013); the search is internal
// (src/conditional/sufficient_reduction.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/conditional/lscde.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// What the Grassmann search minimises.
enum class ReductionCriterion {
  sce,  ///< LSCE: the squared-loss conditional entropy estimate SCE-hat (§2.3)
  smi,  ///< LSMI: minus the squared-loss mutual information estimate SMI-hat
};

/// "sce" or "smi".
std::string to_string(ReductionCriterion criterion);

/// Options of the search; the defaults are the LSCE paper's (§2.4–2.5, §2.7, §3).
struct ReductionOptions {
  /// d_z; 0 lets fit_reduced_cde choose it by cross-validation among 1 … d_x (d_x = no
  /// reduction). reduce_dimension needs 1 ≤ d_z ≤ d_x.
  Index n_components = 0;
  /// Candidate Gaussian widths σ (standardised units) and regularisation parameters λ: the
  /// LSCDE paper's grid, as LSCE computes LSCDE on z.
  std::vector<double> sigma = lscde_paper_grid();
  std::vector<double> regularization = lscde_paper_grid();
  /// b = min(n_centers, n) basis centres from the training pairs (LSCDE's choice, §2.7).
  Index n_centers = 100;
  /// K of K-fold cross-validation (§2.4: K = 5).
  int folds = 5;
  /// Random orthonormal starting points; the best by cross-validated J is kept (§2.5: 20).
  int n_restarts = 20;
  /// Cross-validation of σ and λ every this many updates of W (§2.5: 5).
  int cv_interval = 5;
  /// Updates of W per start at most (the paper says "until W converges").
  int max_iter = 100;
  /// W has converged when an update lowers J by less than tolerance · max(1, |J|).
  double tolerance = 1e-4;
  /// Seed of centres, folds and starting points.
  std::uint64_t seed = 0;
};

}  // namespace cdens
