#pragma once
// Orthogonal forward regression with the leave-one-out (LOO) test criterion: the model-building
// engine of SKD and GSKD (Chen, Hong & Harris 2010, §III-A eqs. 25–36 and the Appendix,
// eqs. 62–68; after Hong, Sharkey & Warwick 2003 and Chen et al. 2004). See docs/methods/ofr.md.
//
// The regression t = Φ β + ε (eq. 25) on the Parzen target t_k = p̂_Parz(x_k) is built one
// column at a time. With Φ_n = W_n A_n (eq. 26: W orthogonal columns, A unit upper triangular),
// t = W_n g_n + ε, and the LOO residuals ε^(n,−k)(k) = ε^(n)(k) / η^(n)(k) (eq. 33) follow from
// the recursions (35)–(36) in O(N) per column once it is orthogonalised (O(nN)).

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// One candidate n-th column orthogonalised against the current model and scored (eqs. 63–68).
struct OfrCandidate {
  Vector w;              ///< w_n = φ_n − Σ_j α_{j,n} w_j (eq. 64)
  Vector alpha;          ///< α_{j,n} = w_jᵀφ_n / w_jᵀw_j, j < n (eq. 63)
  double w_norm2 = 0.0;  ///< w_nᵀw_n
  double lambda = 0.0;   ///< λ_n, the regulariser of this term in eqs. (65), (67)
  double g = 0.0;        ///< g_n = w_nᵀt / (w_nᵀw_n + λ_n) (eq. 65)
  /// J_n = (1/N) Σ_k (ε^(n)(k) / η^(n)(k))² (eqs. 66–68); +∞ for a column that is (numerically)
  /// in the span of the current model or makes some η^(n)(k) non-positive.
  double loo_mse = 0.0;
};

/// The state of OFR-LOO after n stages.
class OfrLoo {
 public:
  /// Starts from ε^(0)(k) = t_k, η^(0)(k) = 1, J_0 = tᵀt / N (eq. 62). λ ≥ 0 is the
  /// regularisation parameter of eqs. (36), (65). Throws InvalidArgument for an empty or
  /// non-finite target or a negative λ.
  explicit OfrLoo(Vector target, double lambda = 0.0);

  Index n_samples() const { return target_.size(); }
  Index n_terms() const { return static_cast<Index>(g_.size()); }
  double lambda() const { return lambda_; }
  const Vector& target() const { return target_; }
  /// J_n of the current model (J_0 before any column).
  double loo_mse() const { return loo_mse_; }
  /// ε^(n)(k), the training residuals (eq. 32).
  const Vector& residuals() const { return residuals_; }
  /// η^(n)(k), the LOO error weightings (eq. 36).
  const Vector& loo_weights() const { return loo_weights_; }
  /// W_n (N × n), orthogonal columns.
  Matrix orthogonal_columns() const;
  /// A_n (n × n), unit upper triangular (eq. 27).
  Matrix triangular_factor() const;
  /// g_n (eq. 28).
  Vector orthogonal_weights() const;

  /// Orthogonalises a candidate column φ (N values) against the model and scores it with the
  /// model's λ; does not change the state. Throws InvalidArgument for a column of the wrong
  /// length.
  OfrCandidate evaluate(const VectorView& phi) const;
  /// The same with the term's own regulariser λ_n ≥ 0 (local regularisation, SKD).
  OfrCandidate evaluate(const VectorView& phi, double lambda) const;
  /// J_n of each column of `phis` (N × M) with the model's λ, as evaluate would give it (to
  /// rounding: the columns are orthogonalised together, by two matrix products). Throws
  /// InvalidArgument for columns of the wrong length.
  Vector loo_mse_of_columns(Matrix phis) const;
  /// Appends a candidate returned by evaluate on this state: ε and η by (35)–(36), J_n.
  /// Throws InvalidArgument if its J is not finite.
  void add(const OfrCandidate& candidate);
  /// J_n of a column w already orthogonal to the model (eqs. 65–68), with ‖φ‖² of the column it
  /// came from for the span test; +∞ where evaluate would refuse it.
  double score_orthogonal(const VectorView& w, double phi_norm2, double lambda) const;

  /// β_n from A_n β_n = g_n (back substitution): the weights of the original columns φ_j.
  Vector weights() const;

 private:
  /// Replaces the columns φ of `phis` by w_n (eq. 64) and returns their α_{j,n} (n × M, eq. 63).
  Matrix orthogonalize(Eigen::Ref<Matrix> phis) const;
  void check_length(Index rows) const;

  Vector target_;
  double lambda_;
  Vector residuals_;
  Vector loo_weights_;
  double loo_mse_;
  Matrix w_;     ///< W_n (N × n)
  Matrix gram_;  ///< the lower triangle of W_nᵀW_n (n × n; above the diagonal unused)
  std::vector<Vector> alpha_;  ///< alpha_[n] has n entries: column n of A above the diagonal
  std::vector<double> g_;
};

/// A fixed set of candidate columns (SKD: a kernel on every training point) kept orthogonal to
/// the model as terms are added, the classical bookkeeping of OFR: each stage deflates every
/// remaining column by the newest w_n only (eqs. 63–64 spread over the stages, in modified
/// Gram–Schmidt order), so scoring all M candidates costs O(NM) per stage instead of O(nNM).
class OfrCandidatePool {
 public:
  /// `columns` is N × M; `model` must have no terms yet (the pool starts un-orthogonalised).
  OfrCandidatePool(const OfrLoo& model, Matrix columns);

  Index size() const { return columns_.cols(); }
  /// Whether column j is still a candidate (not taken).
  bool available(Index j) const { return available_[static_cast<std::size_t>(j)]; }
  /// J_n of every candidate j on `model` with its regulariser lambdas(j) (eqs. 65–68), all
  /// columns at once; +∞ for taken and refused columns. `model` must be the one the pool
  /// follows.
  Vector scores(const OfrLoo& model, const Vector& lambdas) const;
  /// Candidate j evaluated on `model` with regulariser λ (what OfrLoo::evaluate of the original
  /// column gives, to rounding), to be passed to model.add; marks j taken and deflates every
  /// remaining column by its w_n.
  OfrCandidate take(Index j, const OfrLoo& model, double lambda);

 private:
  Matrix columns_;              ///< the candidates, orthogonalised against the taken terms
  Vector original_norm2_;       ///< ‖φ_j‖² before orthogonalisation (the span test)
  std::vector<Vector> alphas_;  ///< alphas_[n](j) = α_{n,j} of taken term n against column j
  std::vector<bool> available_;
};

}  // namespace cdens
