#pragma once
// Conditional density estimation with sufficient dimension reduction (docs/methods/lsce.md,
// docs/methods/lsmi.md):
//
//   lsce        LSCE/LSCDE (Tangkaratt, Xie & Sugiyama, §2): W minimises the SCE estimate; the
//               model is LSCDE refitted on z = Wx with σ, λ by KL cross-validation (default,
//               a departure) or the LSCDE fitted inside that estimate (§2.6, eq. 10; "paper").
//   lsce-ekde   LSCE's W, then ε-KDE on z (the paper's LSCE/ε-KDE column of Table 1).
//   lsmi-lscde  W maximises the LSMI estimate of SMI(Y, Z) (Suzuki & Sugiyama 2013; the paper's
//               baseline, §2.8, §3.1), then LSCDE on z.
//   lsmi-ekde   LSMI's W, then ε-KDE on z.
//
// Every model is a ConditionalMixture whose gate projects the standardised x by W first
// (ProjectedGate); W acts on x standardised per dimension and has orthonormal rows.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/conditional/ekde.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"

namespace cdens {

// Options of the Grassmann search of LSCE and LSMI-based sufficient dimension reduction
// (Tangkaratt, Xie & Sugiyama; Suzuki & Sugiyama 2013); the search is internal
// (src/conditional/sufficient_reduction.hpp).

/// What the Grassmann search minimises.
enum class ReductionCriterion {
  sce,  ///< LSCE: the squared-loss conditional entropy estimate SCE-hat (§2.3)
  smi,  ///< LSMI: minus the squared-loss mutual information estimate SMI-hat
};

/// "sce" or "smi".
std::string to_string(ReductionCriterion criterion);

/// Options of the search; the defaults are the LSCE paper's (§2.4–2.5, §2.7, §3).
struct ReductionOptions {
  /// d_z; 0 lets fit_lsce choose it by cross-validation among 1 … d_x (d_x = no
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

/// The four combinations of Table 1.
enum class ReducedCdeMethod { lsce, lsce_ekde, lsmi_lscde, lsmi_ekde };

/// "lsce", "lsce-ekde", "lsmi-lscde", "lsmi-ekde".
std::string to_string(ReducedCdeMethod method);
/// The method of a name above; InvalidArgument otherwise.
ReducedCdeMethod parse_reduced_cde_method(const std::string& name);

/// The final model of lsce.
enum class LsceFinalModel {
  /// LSCDE refitted on z = W x̄ with σ, λ chosen by K-fold cross-validation of the held-out
  /// negative log-likelihood of its normalised density (eq. 10). Departs from the paper: its
  /// §2.4 criterion scores the unnormalised ratio, which in many output dimensions prefers
  /// spikes (docs/methods/lsce.md).
  refit,
  /// The LSCDE inside the SCE estimate at the search's σ, λ (§2.6): the paper's model.
  paper,
};

/// "refit" or "paper".
std::string to_string(LsceFinalModel model);

/// Options of fit_lsce.
struct LsceOptions {
  /// The search for W (d_z, grids, restarts, seed): the LSCE paper's defaults.
  ReductionOptions reduction;
  /// The ε-KDE on z of lsce-ekde and lsmi-ekde; its seed is reduction's.
  EkdeOptions epsilon_kde;
  /// The LSCDE on z of lsmi-lscde (and of lsce with LsceFinalModel::refit): reduction's σ, λ
  /// grids, centres, folds and seed, with this cross-validation loss (LSCDE's default, KL).
  CvLoss lscde_cv_loss = CvLoss::kl;
  /// lsce's final model; the d_z cross-validation scores this model.
  LsceFinalModel final_model = LsceFinalModel::refit;
  /// lsce with the refit final model: the loss by which the d_z cross-validation scores the
  /// refitted LSCDE on each held-out fold. sq (the default): the SQ criterion of §3.2, by which
  /// every other method and the paper's model are scored; kl: the refit's own cross-validated
  /// criterion, the held-out negative log-likelihood that chose its σ and λ. Both come from the
  /// same fold fits (no extra refit); the other one's table is in the report. kl is not the
  /// default because it gave a positive SQ error on the 9-joint robot row (a narrow model on
  /// d_z = 2 with the better held-out likelihood), docs/methods/lsce.md.
  CvLoss dz_loss = CvLoss::sq;
};

/// The loss of the d_z cross-validation of `method`: options.dz_loss for lsce with the
/// refit final model, the SQ criterion of §3.2 otherwise.
CvLoss dimension_loss(ReducedCdeMethod method, const LsceOptions& options);

/// A fitted model with its subspace.
struct LsceFit {
  ConditionalMixture model;
  /// Hyper-parameters n_components (d_z), sigma, regularization (λ) of the search (two-step
  /// methods: reduction_sigma, reduction_regularization) and of the estimator on z;
  /// cross_validation is the table of the model's own σ, λ (or ε, σ); auxiliary tables
  /// "n_components" and, for two-step methods, "reduction".
  FitReport report;
  /// W, d_z × d_x with orthonormal rows, acting on x standardised per dimension.
  Matrix projection;
  /// J after each update of W, one trace per start of the chosen d_z (SCE-hat or −SMI-hat).
  std::vector<std::vector<double>> traces;
};

/// Fits `method` to the pairs (x_i, y_i): x is d_x × n, y is d_y × n. With
/// options.reduction.n_components = 0, d_z is chosen by cross-validation of the whole method first
/// (§3.3) and its table is the report's auxiliary "n_components" table (loss dimension_loss); the
/// same fold fits scored by the other loss are the table "n_components_sq" or "n_components_kl".
LsceFit fit_lsce(const MatrixView& x, const MatrixView& y,
                 ReducedCdeMethod method = ReducedCdeMethod::lsce, const LsceOptions& options = {},
                 const FitContext& context = {});

}  // namespace cdens
