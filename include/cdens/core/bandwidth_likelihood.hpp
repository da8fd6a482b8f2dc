#pragma once
// Leave-one-out likelihood of a product Gaussian kernel estimate with one bandwidth per
// dimension, and its gradient in the log-bandwidths: the `cv_ml` criterion of Hall, Racine & Li
// (2004) that R's np (npcdens, npudens) and statsmodels (KDEMultivariate[Conditional]) maximise.
//
// Samples z_i (k dimensions, standardised) are split into conditioning dimensions x (the first
// c) and the rest y. With K_h(z_i − z_j) = exp(−½ Σ_d (z_id − z_jd)² / h_d²):
//
//   conditional (c ≥ 1):  −log p̂_{−i}(y_i | x_i) = −log Σ_{j≠i} K_h(z_i − z_j)
//                                                 + log Σ_{j≠i} K_{h_x}(x_i − x_j)
//                                                 + Σ_{d≥c} log(√(2π) h_d),
//   density (c = 0):      −log p̂_{−i}(z_i)       = −log Σ_{j≠i} K_h(z_i − z_j) + log(n − 1)
//                                                 + Σ_d log(√(2π) h_d).
//
// A sum whose terms would underflow (a point with no neighbour within many bandwidths) is taken
// relative to its largest term, so it gets the finite likelihood of its nearest neighbours: no
// ridge is added to the denominator and no term is ever 0/0 (statsmodels returns NaN there).
//
// Gradient, with θ_d = log h_d and w^A_ij, w^B_ij the normalised terms of the two sums:
//   ∂/∂θ_d of −log Σ_j K_h = −Σ_j w^A_ij (z_id − z_jd)² / h_d², and likewise for the x-sum,
// so every derivative comes from the same kernel values as the criterion.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

class BandwidthLikelihood {
 public:
  /// `samples` is k × n (standardised), of which the first `conditioning_dimensions` rows are
  /// the x of a conditional density (0: a density of all k dimensions). The criterion averages
  /// −log p̂_{−i} over the samples listed in `held_out` (all n when empty), each predicted from
  /// all n − 1 others. Work is split over `threads` threads in blocks that depend on the data
  /// only, so results do not depend on the thread count. InvalidArgument for n < 2, c ≥ k, or a
  /// held-out index out of range.
  BandwidthLikelihood(const MatrixView& samples, Index conditioning_dimensions,
                      std::vector<Index> held_out, int threads);

  Index dimension() const { return samples_.cols(); }
  Index n_samples() const { return samples_.rows(); }
  Index n_held_out() const { return static_cast<Index>(held_out_.size()); }

  /// The mean over held-out samples of −log p̂_{−i} (standardised units) at bandwidths
  /// h = exp(log_bandwidths), and its gradient in log_bandwidths when `gradient` is not null.
  double mean_negative_log_likelihood(const VectorView& log_bandwidths,
                                      Vector* gradient = nullptr) const;

  /// −log p̂_{−i} of every held-out sample, in the order of `held_out`.
  Vector negative_log_likelihoods(const VectorView& log_bandwidths) const;

 private:
  /// −log p̂_{−i} of every held-out sample and, when `gradient_rows` is not null, their
  /// gradients in its rows (held-out samples × k).
  Vector evaluate(const VectorView& log_bandwidths, Matrix* gradient_rows) const;
  /// The terms (without the bandwidths' normalising constants) and gradient rows when every
  /// sample is held out: each pair's kernel values computed once for both of its samples.
  void evaluate_every_pair(const Matrix& scaled, double* terms, Matrix* gradient_rows) const;
  /// The same for a subset of held-out samples, each against all samples.
  void evaluate_held_out(const Matrix& scaled, double* terms, Matrix* gradient_rows) const;
  /// The term and gradient row `row` of sample i with both sums taken relative to their largest
  /// term: for a sample whose plain kernel sums would underflow.
  void evaluate_relative_to_largest(const Matrix& scaled, Index i, double& term,
                                    Matrix* gradient_rows, Index row) const;

  Matrix samples_;  ///< n × k: one column per dimension, contiguous over samples
  Index conditioning_dimensions_;
  std::vector<Index> held_out_;
  bool every_sample_held_out_;
  int threads_;
};

}  // namespace cdens
