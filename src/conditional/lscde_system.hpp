#pragma once
// The LSCDE solver engine (Sugiyama et al. 2010, §2.3 and §2.6), reused by SA-LSCDE and LSCE.
//
// With the basis of eq. (9), Φ̄(x) of eq. (3) is analytic:
//   Φ̄_ll'(x) = ∫ φ_l(x,y) φ_l'(x,y) dy = (√π σ)^{d_y} φ_x,l(x) φ_x,l'(x) K_v,ll',
// where φ_x,l(x) = exp(−‖x − u_l‖²/2σ²) and K_v,ll' = exp(−‖v_l − v_l'‖²/4σ²). So
//   Ĥ = (1/n) Σ_i Φ̄(x_i) = (√π σ)^{d_y} / n · (ΦᵀΦ ∘ K_v)      (eq. 4; ΦᵀΦ is one GEMM)
//   ĥ = (1/n) Σ_i φ(x_i, y_i)
// and α̃ = (Ĥ + λI)⁻¹ ĥ (eq. 6), α̂ = max(0, α̃) (eq. 7).
//
// Departure (sample weights, not in the paper): with weights w_i the empirical means become
// weighted means, Ĥ = Σ_i w_i Φ̄(x_i) / Σ_i w_i and ĥ = Σ_i w_i φ(x_i, y_i) / Σ_i w_i, the
// estimate of the same population quantities under a weighted sample; the held-out losses of
// cross-validation are weighted means alike. Integer weights equal repeated rows; w_i = 1 is the
// paper's estimator to the bit (a product by 1 is exact).

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/lscde_basis.hpp"

namespace cdens {

/// Sums over samples of the statistics behind Ĥ and ĥ. Sums, not means, so that blocks of rows
/// (threads) and shards of rows (MPI ranks) add up.
struct LscdeSums {
  Matrix input_gram;  ///< Σ_i w_i φ_x(x_i) φ_x(x_i)ᵀ over inputs (labelled and unlabelled), b × b
  Vector joint;       ///< Σ_i w_i φ(x_i, y_i) over labelled pairs, b
  double input_weight = 0.0;  ///< Σ_i w_i over the inputs: their count when unweighted
  double pair_weight = 0.0;   ///< Σ_i w_i over the labelled pairs

  static LscdeSums zero(Index basis_size);
  LscdeSums& operator+=(const LscdeSums& other);
};

/// Basis factors exp(−‖p_i − c_l‖² / 2σ²) of points p_i (columns) against centres c_l as an
/// m × b matrix, with values below e^kBasisLogCutoff set to zero.
Matrix lscde_basis_factors(const MatrixView& points, const MatrixView& centers, double sigma);

/// Rows are taken this many at a time: a chunk's factor matrices (a few of rows × b doubles, about
/// 1 MB each at b = 140) stay in cache, and memory stays O(chunk · b) however many rows a block
/// holds (a block of a fold of 10⁷ rows has 125,000; its factors took 140 MB each).
inline constexpr Index kRowChunk = 1024;

/// visit(begin, size) for consecutive runs of at most kRowChunk of the `rows` rows, in order.
template <typename Visit>
void for_each_row_chunk(Index rows, Visit&& visit) {
  for (Index begin = 0; begin < rows; begin += kRowChunk) {
    visit(begin, std::min(kRowChunk, rows - begin));
  }
}

/// ΦᵀΦ for a factor matrix Φ with one row per sample (a symmetric rank-m update).
Matrix gram_of_rows(const Matrix& phi);

/// Statistics of the labelled pairs (x_i, y_i) (columns of x and y), kRowChunk pairs at a time,
/// each weighing its entry of `weights` (empty: 1).
LscdeSums lscde_pair_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis,
                          const Vector& weights = Vector());

/// Replaces `sums`, this rank's statistics, by those of every rank (a collective call; a no-op
/// on one process).
void allreduce_sums(LscdeSums& sums, const Communicator& communicator);

/// Statistics of unlabelled inputs (semi-supervised Ĥ, §2.7): they enter the gram only.
LscdeSums lscde_input_sums(const MatrixView& x, const LscdeBasis& basis);

/// A run of consecutive samples (columns) [begin, begin + size): labelled pairs of cross-validation
/// fold `fold` (or of the whole training set, fold 0), or unlabelled inputs when fold < 0.
struct SampleBlock {
  int fold;
  Index begin;
  Index size;
};

/// Appends blocks covering the samples [begin, end) of one fold. Blocks are big enough for an
/// efficient GEMM and few enough (at most 16 per fold) that their b × b partial sums stay
/// small; the split depends on the data size only, never on the thread count.
void append_sample_blocks(int fold, Index begin, Index end, std::vector<SampleBlock>& blocks);

/// Statistics of one block: pairs (x, y) for a labelled block, with their `weights` (empty: 1),
/// inputs of `unlabeled_x` else.
LscdeSums lscde_block_sums(const SampleBlock& block, const MatrixView& x, const MatrixView& y,
                           const Vector& weights, const MatrixView& unlabeled_x,
                           const LscdeBasis& basis);

/// Statistics of all pairs (weighing `weights`, empty: 1) and unlabelled inputs, block by block
/// on `threads` threads and added in block order, so the result does not depend on the thread
/// count.
LscdeSums lscde_sums(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
                     const LscdeBasis& basis, int threads, const Vector& weights = Vector());

/// Ĥ and ĥ.
struct LscdeSystem {
  Matrix h_matrix;  ///< Ĥ, b × b, symmetric positive semi-definite
  Vector h_vector;  ///< ĥ, b
};

/// The b × b matrix C with Ĥ = input_gram ∘ C: C = (√π σ)^{d_y} / input_weight · K_v (§2.6),
/// input_weight the inputs' count or total weight. It does not depend on the inputs, which LSCE
/// uses when it differentiates Ĥ with respect to them.
Matrix lscde_output_coupling(const Matrix& output_overlap, const LscdeBasis& basis,
                             double input_weight);

/// Ĥ = (√π σ)^{d_y} / input_weight · (input_gram ∘ K_v); needs only the inputs' statistics.
Matrix lscde_h_matrix(const LscdeSums& sums, const Matrix& output_overlap, const LscdeBasis& basis);

/// Ĥ as above and ĥ = joint / pair_weight.
LscdeSystem lscde_system(const LscdeSums& sums, const Matrix& output_overlap,
                         const LscdeBasis& basis);

/// Coefficients below this fraction of the largest one are set to zero (see coefficients()).
inline constexpr double kRelativeCoefficientFloor = 1e-10;

/// The regularisation path of eq. (6): with Ĥ = Q Λ Qᵀ, α̃(λ) = Q (Λ + λI)⁻¹ Qᵀ ĥ costs O(b²)
/// per λ after one symmetric eigendecomposition.
class LscdeLambdaPath {
 public:
  explicit LscdeLambdaPath(const LscdeSystem& system);
  /// α̃(λ) = (Ĥ + λI)⁻¹ ĥ of eq. (6), before the rounding of eq. (7), for each λ > 0 (b × L).
  Matrix solutions(const std::vector<double>& lambdas) const;
  /// α̂(λ) = max(0, α̃(λ)) for each λ > 0 (b × L), with entries below kRelativeCoefficientFloor
  /// times the column's largest set to zero.
  Matrix coefficients(const std::vector<double>& lambdas) const;

 private:
  Vector eigenvalues_;
  Matrix eigenvectors_;
  Vector projected_h_;  ///< Qᵀ ĥ
};

/// Up to this many λ, lscde_solutions factors Ĥ + λI once per λ rather than eigendecomposing Ĥ:
/// at b = 100 one eigendecomposition takes as long as about 15 Cholesky solves (bench/micro,
/// BM_LambdaSolutions*: 545 µs against 35 µs per λ on one core).
inline constexpr std::size_t kCholeskySolveLimit = 15;

/// α̃(λ) = (Ĥ + λI)⁻¹ ĥ of eq. (6) for each λ > 0 (b × L), before rounding: one Cholesky
/// factorisation per λ for at most kCholeskySolveLimit values, LscdeLambdaPath::solutions
/// otherwise. Both give the same solutions to rounding error (tested).
Matrix lscde_solutions(const LscdeSystem& system, const std::vector<double>& lambdas);

/// Σ_i w_i of the held-out loss of p̂ with coefficients alphas.col(j), for every column j, over
/// the pairs (x_i, y_i) with weights w_i (empty `weights`: 1) — in standardised units (no
/// Jacobian). For `kl` this is −Σ log p̂(y_i|x_i),
/// for `sq` Σ [½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i)]. One GEMM per block handles every λ; entries
/// whose terms underflow are recomputed in log space through the conditional mixture, so the
/// result equals scoring make_lscde_mixture(…) pair by pair.
Vector lscde_held_out_loss_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis,
                                const Matrix& output_overlap, const Matrix& alphas, CvLoss loss,
                                const Vector& weights = Vector());

}  // namespace cdens
