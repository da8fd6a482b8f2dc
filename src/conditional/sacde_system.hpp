#pragma once
// The SA-CDE engine (Shiga, Tangkaratt, Sugiyama 2015, §2): the additive basis (eqs. 4–6), the
// quadratic problem Ĥ, ĥ (eqs. 10–14), the group-lasso regularisation path and the held-out
// negative log-likelihood (eq. 22). SA-LSCDE reuses it through fit_sacde.
//
// Per feature d the input kernels form a block Φ_d (n × B), Φ_d(n, b) = φ_{d,b}(x_d⁽ⁿ⁾); the
// blocks side by side are Φ = [Φ_1 … Φ_D] (n × D·B). With E(n, b) = η_b(y⁽ⁿ⁾) and the
// y-overlap K_ν(b, b') = exp(−‖ν_b − ν_b'‖²/4σ²),
//
//   Ĥ = (√π σ)^{D_y} / n · (ΦᵀΦ) ∘ (1_{D×D} ⊗ K_ν)        (eqs. 11–12: one GEMM)
//   ĥ_d = (1/n) (Φ_d ∘ E)ᵀ 1                               (eqs. 13–14)
//
// The problem is solved group by group on a working set: only the column blocks Ĥ[:, d] of
// groups that are or were active are ever formed (Ĥ_d'd = Ĥ_dd'ᵀ copied from blocks already
// formed, one n × B × B GEMM for each of the others), and a solution is accepted only when the
// KKT conditions of the whole problem hold.

#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"
#include "conditional/nonnegative_group_lasso.hpp"

namespace cdens {

/// The additive basis: per-feature input centres μ_{d,b} and output centres ν_b taken from the
/// same B training pairs, one width σ (standardised units).
struct SaCdeBasis {
  Matrix centers_x;  ///< μ, D × B
  Matrix centers_y;  ///< ν, D_y × B
  double sigma;

  Index n_features() const { return centers_x.rows(); }
  Index size() const { return centers_x.cols(); }
};

/// log Φ: −(x_d⁽ʲ⁾ − μ_{d,b})²/2σ² at column d·B + b, for the m columns of x (m × D·B).
Matrix sacde_log_feature_kernels(const MatrixView& x, const SaCdeBasis& basis);

/// The quadratic problem of eq. (10) on training pairs (standardised x, y). With a communicator
/// of many ranks each passes its own pairs, and Ĥ and ĥ are those of every rank's pairs: ĥ and
/// each column block of Ĥ, when formed, are summed over the ranks (the same bits on each), so
/// every rank must make the same calls in the same order and from one thread.
class SaCdeSystem {
 public:
  SaCdeSystem(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis,
              const Communicator& communicator = local_communicator());

  /// The problem of other pairs or another basis, as if newly constructed, in the memory of
  /// this one: a cross-validation forms about a hundred systems of the same size, and
  /// allocating and first touching ≈ 10 MB for each costs as much as a tenth of its solves.
  void assign(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis);

  Index n_groups() const { return n_groups_; }
  Index group_size() const { return group_size_; }
  /// ĥ (D·B), eqs. (13)–(14).
  const Vector& h_vector() const { return h_vector_; }
  /// The column block Ĥ[:, d] (D·B × B), formed on first use; valid until assign.
  MatrixView h_columns(Index group);
  /// The working set: the groups that were ever active along the path, in the order they
  /// joined (in increasing order once every group has joined). Groups only join it, so Ĥ
  /// restricted to it grows by copying the new blocks only.
  const std::vector<Index>& working_groups() const { return working_groups_; }
  /// Adds groups to the working set.
  void add_working_groups(const std::vector<Index>& groups);
  /// Ĥ restricted to the working set (rows and columns of its groups, in the order of
  /// working_groups() after this call); valid until the next call or assign. With every group
  /// in the set this is Ĥ itself, no copy.
  MatrixView working_matrix();
  /// L_d ≥ the largest eigenvalue of the diagonal block Ĥ_dd (nonnegative_spectral_bound), the
  /// step of block-coordinate descent on group d; computed on first use.
  double group_lipschitz(Index group);
  /// The whole Ĥ (D·B × D·B) by one symmetric rank-n update (summed over the ranks).
  Matrix h_matrix() const;
  /// λ_max = max_d ‖ĥ_d‖₂: at α = 0 the gradient of Ĵ₀ is −ĥ, so every λ ≥ λ_max has the
  /// solution α = 0 (the KKT condition of a zero group).
  double lambda_max() const;

 private:
  /// Replaces the row blocks of `row_groups` in a column block of Ĥ by their sums over the ranks.
  void sum_row_blocks_over_ranks(Eigen::Ref<Matrix> block,
                                 const std::vector<Index>& row_groups) const;

  const Communicator* communicator_;
  Index n_groups_ = 0;
  Index group_size_ = 0;
  Matrix kernels_;         ///< Φ, n × D·B
  Matrix output_overlap_;  ///< (√π σ)^{D_y} / n · K_ν, B × B
  Vector h_vector_;
  Matrix h_;                             ///< Ĥ, its column block d valid where formed_[d]
  std::vector<char> formed_;             ///< whether Ĥ[:, d] is in h_
  std::vector<double> group_lipschitz_;  ///< L_d, negative until computed
  std::vector<Index> working_groups_;
  Matrix working_storage_;    ///< Ĥ on working_groups_ in its top-left corner, until all join
  Index working_filled_ = 0;  ///< groups of working_groups_ already in working_storage_

 public:
  /// The last vector of the power iterations that bound L (nonnegative_spectral_bound), kept
  /// so that the next λ of a path starts from it.
  Vector spectral_vector;
};

/// Eq. (16) for one λ on the working set: block-coordinate descent or FISTA with restart
/// (options.method) on the system's working set joined by the groups that are non-zero in
/// `start`, enlarged by the groups outside it that violate their KKT condition until none does.
/// A working group whose KKT condition holds at zero stays exactly zero, so the solution is the
/// minimiser of the whole problem.
GroupLassoSolution solve_sacde_problem(SaCdeSystem& system, double lambda, const Vector& start,
                                       const GroupLassoOptions& options = {});

/// The regularisation path: α̂(λ) for every λ of `lambdas` (column j for lambdas[j], any
/// order), solved from the largest λ down, each from the previous solution (warm start).
/// Columns for λ ≥ λ_max are exactly zero.
Matrix sacde_path(SaCdeSystem& system, const std::vector<double>& lambdas,
                  const GroupLassoOptions& options = {});

/// ‖α_d‖₂ for every group of every column of `alphas` (D·B × L): a D × L matrix.
Matrix sacde_group_norms(const Matrix& alphas, Index n_groups);

/// Σ_i −log p̂(y_i | x_i) of the renormalised estimate (eqs. 20–21) with coefficients
/// alphas.col(j), for every column j, in standardised units. One GEMM handles every column;
/// rows whose terms underflow are scored in log space through the conditional mixture, so the
/// result equals scoring make_sacde_mixture(…) pair by pair.
Vector sacde_held_out_nll_sums(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis,
                               const Matrix& alphas);

}  // namespace cdens
