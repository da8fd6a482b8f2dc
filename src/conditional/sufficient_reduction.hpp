#pragma once
// The engine shared by LSCE (Tangkaratt, Xie & Sugiyama, "Conditional density estimation with
// dimensionality reduction via squared-loss conditional entropy minimization", §2.3–2.5) and
// LSMI-based sufficient dimension reduction (Suzuki & Sugiyama 2013; docs/methods/lsmi.md): find
// the d_z × d_x matrix W with orthonormal rows whose projection z = Wx keeps what x says about y,
// by minimising a least-squares estimate over the Grassmann manifold.
//
// Both estimates have the same form. With the Gaussian basis of eq. (11) on (z, y) = (Wx, y),
// centres (u_k, v_k) = (W x̃_k, ỹ_k) taken from b training pairs, Φ_ik = exp(−‖z_i − u_k‖²/2σ²)
// and Ψ_ik = exp(−‖y_i − v_k‖²/2σ²),
//
//   Ĥ = (ΦᵀΦ) ∘ C,  ĥ = (1/n) Σ_i Φ_i ∘ Ψ_i,  α̂ = (Ĥ + λI)⁻¹ ĥ,  J = ½ α̂ᵀĤα̂ − ĥᵀα̂ + c₀,
//
// where C does not depend on W:
//   LSCE:  C = (√π σ)^{d_y} / n · K_v, K_v,kk' = exp(−‖v_k − v_k'‖²/4σ²)  (Ĝ of eq. 8, §2.7),
//          c₀ = 0 and J = SCE-hat (§2.3), minimised;
//   LSMI:  C = ΨᵀΨ / n² (Ĥ of LSMI: the pairs (z_i, y_j) over all i, j), c₀ = ½ and
//          J = −SMI-hat, i.e. SMI-hat = ĥᵀα̂ − ½ α̂ᵀĤα̂ − ½ is maximised.
//
// The gradient (§2.5, Appendix B) is ∂J/∂W = α̂ᵀ(∂Ĥ/∂W)(3/2 α̂ − β̂) + (∂ĥ/∂W)ᵀ(β̂ − 2α̂) with
// β̂ = (Ĥ + λI)⁻¹Ĥα̂. Written with matrices, ∂J/∂W = W S with the d_x × d_x matrix
//
//   S = Σ_ik T_ik (x_i − x̃_k)(x_i − x̃_k)ᵀ,  T = −Φ ∘ (Φ(M + Mᵀ) + Ψ diag(β̂ − 2α̂)/n) / σ²,
//   M = (α̂ (3/2 α̂ − β̂)ᵀ) ∘ C,
//
// so S = X diag(T1) Xᵀ − X T X̃ᵀ − X̃ TᵀXᵀ + X̃ diag(Tᵀ1) X̃ᵀ: GEMMs, no loop over (i, k).
//
// σ and λ are chosen by K-fold cross-validation of J (§2.4) at the start and every 5 updates
// (§2.5); each start runs until J stops falling, from 20 random orthonormal W (best kept). The
// search is for one d_z; fit_lsce (lsce.hpp) chooses d_z when it is not given.
//
// On many processes (a Communicator, docs/distributed.md) each rank holds its own rows and every
// rank the same centres; ΦᵀΦ, Σ_i Φ_i ∘ Ψ_i (and LSMI's ΨᵀΨ), the per-row sums of S and those
// of every fold's training and held-out parts are added over the ranks, so every rank solves the
// same system and takes the same steps.

#include <Eigen/Cholesky>
#include <cstdint>
#include <vector>

#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/lsce.hpp"
#include "cdens/core/communicator.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {

/// J and its gradient at fixed σ and λ on standardised data (x: d_x × n, y: d_y × n), with the
/// centres x̃_k, ỹ_k (columns of centers_x, centers_y). With several ranks in `communicator`, x
/// and y are this rank's rows (the centres the same on every rank), and construction, solve and
/// gradient are collective calls that give every rank the values of all rows.
class ReductionObjective {
 public:
  ReductionObjective(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                     const Matrix& centers_x, const Matrix& centers_y, double sigma, double lambda,
                     const Communicator& communicator = local_communicator());

  /// What J at one W is computed from; the gradient at the same W reuses it.
  struct Solution {
    Matrix w;                        ///< W
    Matrix phi;                      ///< Φ, n × b (this rank's rows)
    Matrix h_matrix;                 ///< Ĥ
    Vector h_vector;                 ///< ĥ
    Eigen::LLT<Matrix> regularized;  ///< Ĥ + λI
    Vector alpha;                    ///< α̂
    double value;                    ///< J
  };

  /// Everything J at W (d_z × d_x; rows need not be orthonormal) needs.
  Solution solve(const Matrix& w) const;
  /// J at W.
  double value(const Matrix& w) const;
  /// ∂J/∂W (d_z × d_x) at the W of `solution`.
  Matrix gradient(const Solution& solution) const;
  /// α̂ = (Ĥ + λI)⁻¹ ĥ at W, before any rounding.
  Vector coefficients(const Matrix& w) const;

 private:
  Matrix x_;
  Matrix centers_x_;
  const Communicator* communicator_;
  Index n_;  ///< every rank's rows
  double sigma_;
  double lambda_;
  double offset_;
  Matrix psi_;       ///< Ψ, n × b
  Matrix coupling_;  ///< C, b × b
};

/// What K-fold cross-validation of J needs that does not depend on W, for every candidate σ and
/// fold: the held-out and training rows, the fold's centres and the output factors Ψ and
/// couplings C of both parts. Built once and shared by every start.
class ReductionFolds {
 public:
  /// `plan` must have folds; y is this rank's standardised outputs (d_y × n_r, the rows of
  /// plan.local_folds), candidates_x and candidates_y the standardised rows of
  /// plan.candidate_order. With several ranks in `communicator`, construction and
  /// cross_validate are collective calls.
  ReductionFolds(ReductionCriterion criterion, const Matrix& y, const ShardedSamplingPlan& plan,
                 const Matrix& candidates_x, const Matrix& candidates_y, std::vector<double> sigmas,
                 std::vector<double> lambdas,
                 const Communicator& communicator = local_communicator());

  const std::vector<double>& sigmas() const { return sigmas_; }
  const std::vector<double>& lambdas() const { return lambdas_; }

  /// K-fold cross-validation of J (§2.4) at W over the candidates sigmas()[s] × lambdas()[l]
  /// for s in `sigma_indices` and l in `lambda_indices`: the estimator of fold k is built
  /// without fold k, centres included (draw_sampling_plan), and scored by J on fold k. x is this
  /// rank's rows.
  CvTable cross_validate(const Matrix& x, const Matrix& w, const std::vector<Index>& sigma_indices,
                         const std::vector<Index>& lambda_indices) const;

 private:
  struct Part {
    std::vector<Index> rows;       ///< this rank's rows of the part
    Index count = 0;               ///< the part's rows on every rank
    std::vector<Matrix> psi;       ///< Ψ of this rank's rows for each σ
    std::vector<Matrix> coupling;  ///< C of the part for each σ
  };
  struct Fold {
    Matrix centers_x;
    Part training;
    Part held_out;
  };
  const Communicator* communicator_;
  ReductionCriterion criterion_;
  std::vector<double> sigmas_;
  std::vector<double> lambdas_;
  std::vector<Fold> folds_;
};

/// One start of the search.
struct ReductionRun {
  Matrix w;            ///< the subspace found, rows orthonormal
  double sigma = 0.0;  ///< σ and λ chosen by the last cross-validation, at w
  double lambda = 0.0;
  CvTable cross_validation;   ///< that cross-validation
  std::vector<double> trace;  ///< J after each update (σ, λ may change every cv_interval)
  int updates = 0;
};

/// The grid indices of a (σ, λ) candidate of ReductionFolds.
struct GridChoice {
  Index sigma = 0;
  Index lambda = 0;
  bool operator==(const GridChoice& other) const {
    return sigma == other.sigma && lambda == other.lambda;
  }
};

/// σ and λ by cross-validation of J at W over the whole grid of `folds`.
GridChoice choose_on_full_grid(const ReductionFolds& folds, const Matrix& x, const Matrix& w);

/// The search from `start` (rows orthonormal): line searches along geodesics, σ and λ
/// re-chosen every options.cv_interval updates, until J stops falling under the latest σ, λ.
/// Every cross-validation looks at the grid neighbours of the current choice only (one step in σ
/// and in λ; see docs/methods/lsce.md), the first one, at `start`, at those of `around`. x and y
/// are this rank's rows, the centres (standardised) every rank's same; a collective call.
ReductionRun search_subspace(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                             const Matrix& centers_x, const Matrix& centers_y,
                             const ReductionFolds& folds, const ReductionOptions& options,
                             Matrix start, GridChoice around,
                             const Communicator& communicator = local_communicator());

/// The result of the whole search.
struct ReductionResult {
  ReductionRun best;               ///< the start with the smallest cross-validated J
  std::vector<ReductionRun> runs;  ///< every start
  Matrix centers_x;                ///< the standardised centres x̃_k, ỹ_k of the plan's b
  Matrix centers_y;
};

/// Runs the search on standardised data from each start in parallel (d_z = options.n_components,
/// which must lie in 1 … d_x; d_z = d_x has the single point W = I and so a single start) and keeps
/// the start with the smallest cross-validated J. The whole σ × λ grid is cross-validated once, at
/// the first start; every start begins from that choice. With several ranks in
/// context.communicator, x and y are this rank's rows (any number, even none): the centres and
/// folds are drawn for every rank's rows as one process draws them (sharded_sampling_plan.hpp), and
/// the starts take turns, each evaluation a collective call.
ReductionResult reduce_dimension(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                                 const ReductionOptions& options, const FitContext& context = {});

}  // namespace cdens
