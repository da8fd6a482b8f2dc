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
//
// Sample weights c_j (sample_weights.hpp) weigh each sample's kernel in both sums, and the
// criterion is the c-weighted mean of the held-out terms; p̂_{−i} leaves sample i out with all
// its weight (for a density, log(n − 1) becomes log Σ_{j≠i} c_j). The factor c_j enters each
// kernel value as exp(−½ (q_ij − 2 log c_j)), so the sums, their moments and the shift of a sum
// taken relative to its largest term need nothing else; the sums are then no longer symmetric
// in (i, j), so every held-out sample is taken against all others.
//
// Discrete columns (column_kernel.hpp) enter the product as their kernel L_d(z_id, z_jd; λ_d)
// over level indices, with θ_d the logit of λ_d / λ_max: the pair's factor of the sums is
// exp(Σ_d log L_d), its derivative Σ_j w_ij ∂ log L_d / ∂θ_d. An output's discrete kernel is a
// probability mass function over its levels (no normalising constant h_d), an ordered one
// divided by its sum over the levels: a factor that depends on the centre z_j only, which makes
// the joint kernel asymmetric in (i, j).

// An atom of a one-dimensional output (a value a carried by many samples, a zero-inflated y;
// docs/methods/kcde.md, "Outputs with an atom"): the samples at it (`atom_flags`) are point
// masses at a instead of Gaussians of y, so p̂_{−i} is against the mixed measure (counting
// measure at a, Lebesgue measure elsewhere):
//
//   y_i = a:  −log p̂_{−i}(a | x_i) = −log Σ_{j≠i, y_j = a} K_{h_x}(x_i − x_j) + log Σ_{j≠i} K_{h_x}
//   y_i ≠ a:  −log p̂_{−i}(y_i | x_i) = −log Σ_{j≠i, y_j ≠ a} K_h(z_i − z_j) + log Σ_{j≠i} K_{h_x}
//                                     + Σ_{d≥c} log(√(2π) h_d),
//
// (for a density, c = 0: the conditioning sum is log Σ_{j≠i} c_j). A pair of samples on either
// side of a is at infinite distance in the joint sum (its kernel value is zero), a sample at a
// meets the others at a at distance 0 in y, and a held-out sample at a takes no normalising
// constant of y (a probability): so the sums, their moments and the gradient need nothing else.

// On several processes (a Communicator of K ranks) each rank holds a shard of the samples; the
// held-out samples are drawn by global index and their values sent to every rank (a subsample is
// small). A held-out sample's sums — Σ_j K_h, Σ_j K_{h_x} and their moments — are sums over the
// samples j, so each rank adds up its shard and the ranks add their records: every rank then
// holds the same bits of every term and gradient, and an optimiser fed by them takes the same
// steps on every rank. A sum that underflows is taken relative to its largest term over all ranks
// (a maximum over the ranks, then the sums again).

#include <utility>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

class BandwidthLikelihood {
 public:
  /// `samples` is k × n (standardised), of which the first `conditioning_dimensions` rows are
  /// the x of a conditional density (0: a density of all k dimensions). The criterion averages
  /// −log p̂_{−i} over the samples listed in `held_out` (all n when empty), each predicted from
  /// all n − 1 others. `kernels` gives each dimension's kernel (empty: all continuous); the rows
  /// of discrete ones hold their raw values, every one of them a level. Work is split over
  /// `threads` threads in blocks that depend on the data only, so results do not depend on the
  /// thread count. InvalidArgument for n < 2, c ≥ k, a held-out index out of range, or kernels
  /// that do not fit the samples.
  /// `sample_weights`: one positive weight per sample, or empty (every sample weighs 1).
  /// On several ranks of `communicator`, `samples` and `sample_weights` are this rank's shard,
  /// whose first sample has the global index of the samples of the ranks below it, and `held_out`
  /// holds global indices (the same on every rank); n counts every rank's samples. Constructing
  /// and evaluating are then collective calls: every rank makes them in the same order. On one
  /// process the criterion is the single-process one, to the bit.
  /// `atom_flags`: 1 for each sample at the atom of a one-dimensional continuous output (the
  /// last dimension), 0 for the others, on this rank's samples; empty: no atom. InvalidArgument
  /// unless at least two samples of every rank together are at the atom and two are not.
  BandwidthLikelihood(const MatrixView& samples, Index conditioning_dimensions,
                      std::vector<Index> held_out, int threads, ColumnKernels kernels = {},
                      Vector sample_weights = {},
                      const Communicator& communicator = local_communicator(),
                      Vector atom_flags = {});

  Index dimension() const { return samples_.cols(); }
  /// n: the samples of every rank.
  Index n_samples() const { return n_samples_; }
  Index n_held_out() const { return static_cast<Index>(held_out_.size()); }
  /// n, or Kish's effective size (Σc)² / Σc² of the sample weights: the n of a rule of thumb.
  double effective_samples() const;
  /// The sample weights of the held-out samples, in the order of `held_out` (empty: all 1).
  Vector held_out_weights() const;
  Index conditioning_dimensions() const { return conditioning_dimensions_; }
  /// The kernel of every dimension (continuous ones included).
  const ColumnKernels& kernels() const { return kernels_; }

  /// The (c-weighted) mean over held-out samples of −log p̂_{−i} (standardised units) at θ:
  /// h = exp(θ_d) for a continuous dimension, λ = λ_max σ(θ_d) for a discrete one; and its
  /// gradient in θ when `gradient` is not null, and the terms −log p̂_{−i} of the held-out
  /// samples when `terms` is not null.
  double mean_negative_log_likelihood(const VectorView& parameters, Vector* gradient = nullptr,
                                      Vector* terms = nullptr) const;

  /// −log p̂_{−i} of every held-out sample, in the order of `held_out`.
  Vector negative_log_likelihoods(const VectorView& parameters) const;

  /// The smoothing parameters (h or λ) at θ, and θ of smoothing parameters.
  Vector smoothing_of(const VectorView& parameters) const;
  Vector parameters_of(const VectorView& smoothing) const;

 private:
  /// −log p̂_{−i} of every held-out sample and, when `gradient_rows` is not null, their
  /// gradients in its rows (held-out samples × k).
  Vector evaluate(const VectorView& parameters, Matrix* gradient_rows) const;
  /// What one evaluation needs: the scaled samples and the discrete dimensions' tables.
  struct Evaluation;
  /// The records (the sums of finish_row, one column per held-out sample) when every sample is
  /// held out on one process: each pair's kernel values computed once for both of its samples.
  Matrix every_pair_records(const Evaluation& evaluation, bool moments) const;
  /// The records of the held-out samples, each against this rank's samples.
  Matrix held_out_records(const Evaluation& evaluation, bool moments) const;
  /// The terms (without the bandwidths' normalising constants) and gradient rows from the
  /// records summed over the ranks; the held-out samples whose plain kernel sums underflow are
  /// taken again relative to their largest term. A collective call.
  void finish_records(const Evaluation& evaluation, const Matrix& records, double* terms,
                      Matrix* gradient_rows) const;
  /// The terms and gradient rows of the held-out samples at positions `rows` with both sums taken
  /// relative to their largest term over every rank's samples. A collective call.
  void evaluate_relative_to_largest(const Evaluation& evaluation, const std::vector<Index>& rows,
                                    double* terms, Matrix* gradient_rows) const;
  /// The held-out sample at position r as a row of the scaled samples: the matrix and row.
  std::pair<const Matrix*, Index> held_out_point(const Evaluation& evaluation, Index r) const;
  /// The atom flag of the held-out sample at position r: 1 at the atom, 0 beside it, −1 without
  /// an atom.
  double held_out_atom_flag(Index r) const;
  /// log Σ_{j≠i} c_j of the held-out sample at position r: the density's normalising sum
  /// (log(n − 1) without sample weights).
  double log_others_weight(Index r) const;
  /// The c-weighted mean of the rows of `values` (one per held-out sample); the plain mean
  /// without sample weights.
  Vector held_out_mean(const Matrix& values) const;

  /// n_r × k, this rank's samples: one column per dimension, contiguous over samples; a discrete
  /// dimension's column holds level indices.
  Matrix samples_;
  Index conditioning_dimensions_;
  ColumnKernels kernels_;
  /// Every kernel is symmetric in (i, j) (no ordered output), so each pair can be visited once.
  bool symmetric_ = true;
  /// Global indices of the held-out samples.
  std::vector<Index> held_out_;
  /// Their position among this rank's samples, −1 where another rank holds them.
  std::vector<Index> held_out_rows_;
  /// m × k, the held-out samples as samples_ holds them; on one process empty (they are rows of
  /// samples_).
  Matrix held_out_samples_;
  /// c_j of this rank's samples, or empty.
  Vector sample_weights_;
  /// The held-out samples' weights c_i, or empty.
  Vector held_out_weights_;
  /// 1 for this rank's samples at the atom, 0 for the others; empty without an atom.
  Vector atom_flags_;
  /// The same for the held-out samples (in the order of held_out_).
  Vector held_out_atom_flags_;
  Index n_samples_ = 0;
  /// Σ c_j and Σ c_j² over every rank (with sample weights).
  double total_weight_ = 0.0;
  double total_squared_weight_ = 0.0;
  bool every_sample_held_out_;
  int threads_;
  const Communicator& communicator_;
};

}  // namespace cdens
