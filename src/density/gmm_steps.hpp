#pragma once
// The two steps of EM for the GMM (Chen, Hong & Harris 2010, §II-A, eqs. 5–8) over samples
// spread over the ranks of a Communicator. One pass over the samples makes the E-step of a set
// of parameters (eq. 5) and the sums that the M-step after it needs (eqs. 6–8), without storing
// the responsibilities. Each rank sums over its own samples in blocks of a fixed size, adds the
// block sums in block order (so the thread count does not matter), and the ranks add their sums
// (so every rank takes the same step). Per iteration the ranks sum N_K (2d + 1) + 1 numbers:
// Σ_k r_kl, Σ_k r_kl (z_k − c_l), Σ_k r_kl (z_k − c_l)² and Σ_k log p̂(z_k).

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The samples EM works on: this rank's, in both layouts, and how many the ranks hold together.
struct EmSamples {
  MatrixView z;  ///< this rank's standardised samples, d × N_r
  /// The same samples transposed, N_r × d: each dimension's values contiguous, so that the
  /// steps' loops run along the samples in vector registers.
  MatrixView by_dimension;
  Index n;  ///< N, the samples of every rank
  const Communicator& communicator;
  int threads;  ///< OpenMP threads over blocks of this rank's samples
  /// The samples' sample weights c_k (one process only), or null: every sample weighs 1. EM then
  /// maximises Σ_k c_k log p̂(z_k): every responsibility r_kl is taken times c_k in the moments.
  const Vector* sample_weights = nullptr;

  /// Σ_k c_k, or N.
  double total_weight() const {
    return sample_weights != nullptr ? sample_weights->sum() : static_cast<double>(n);
  }
};

/// What one pass over the samples gives the M-step (eqs. 6–8), summed over every rank's samples:
/// the moments of the responsibilities r_kl around the centres c_l they were computed with.
struct EmSums {
  /// Column l: Σ_k r_kl [1; z_k − c_l; (z_k − c_l)²], (2d + 1) × N_K — N_l, then the first and
  /// the second moments around c_l, dimension by dimension.
  Matrix moments;
  /// (1/N) Σ_k log p̂(z_k) of the parameters of the E-step (Σ_k c_k log p̂(z_k) / Σ_k c_k with
  /// sample weights); 0 for hard responsibilities.
  double log_likelihood = 0.0;
};

/// E-step (eq. 5) in log space for the given parameters, and the moments of its
/// responsibilities, over every rank's samples: the same on every rank.
EmSums expectation(const EmSamples& samples, const Vector& weights, const Matrix& centers,
                   const Matrix& variances);

/// The moments of hard responsibilities, each sample wholly to its nearest centre (the first of
/// equally near ones), over every rank's samples: the k-means++ start's M-step.
EmSums nearest_center_moments(const EmSamples& samples, const Matrix& centers);

/// M-step (eqs. 6–8) of samples of total weight `total_weight` (N without sample weights) from
/// the moments around `centers`: new weights, centres and variances, every variance floored at
/// `floor`. A component whose total responsibility is zero keeps its centre and variances with
/// weight 0.
void maximization(const EmSums& sums, double total_weight, double floor, Vector& weights,
                  Matrix& centers, Matrix& variances);

}  // namespace cdens
