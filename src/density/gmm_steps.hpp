#pragma once
// The two steps of EM for the GMM (Chen, Hong & Harris 2010, §II-A, eqs. 5–8) over samples
// spread over the ranks of a Communicator. Each rank sums over its own samples in blocks of a
// fixed size, adds the block sums in block order (so the thread count does not matter), and the
// ranks add their sums (so every rank takes the same step). Per iteration the ranks sum
// N_K (2d + 1) + 1 numbers: Σ_k r_kl and Σ_k r_kl z_k (eqs. 6, 7), Σ_k r_kl (z_k − c_l)²
// (eq. 8) and Σ_k log p̂(z_k).

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The samples EM works on: this rank's, and how many the ranks hold together.
struct EmSamples {
  MatrixView z;  ///< this rank's standardised samples, d × N_r
  Index n;       ///< N, the samples of every rank
  const Communicator& communicator;
  int threads;  ///< OpenMP threads over blocks of this rank's samples
};

/// E-step (eq. 5) in log space: the responsibilities r_kl of this rank's samples into
/// `responsibilities` (N_K × N_r), and the mean log-likelihood (1/N) Σ_k log p̂(z_k) over every
/// rank's samples, the same on every rank.
double expectation(const EmSamples& samples, const Vector& weights, const Matrix& centers,
                   const Matrix& variances, Matrix& responsibilities);

/// M-step (eqs. 6–8) from this rank's responsibilities (N_K × N_r), its sums added over every
/// rank, with every variance floored at `floor`. A component whose total responsibility is zero
/// keeps its centre and variances with weight 0.
void maximization(const EmSamples& samples, const Matrix& responsibilities, double floor,
                  Vector& weights, Matrix& centers, Matrix& variances);

}  // namespace cdens
