#pragma once
// Where the GMM's EM runs start: k-means++ seeding over the samples of every rank, or the
// paper's box (§IV), which reads no data. Every rank draws the same numbers from the same
// stream and ends with the same start.

#include "cdens/core/rng.hpp"
#include "cdens/density/gmm.hpp"
#include "density/gmm_steps.hpp"

namespace cdens {

/// k-means++ seeding (Arthur & Vassilvitskii 2007) of options.n_components centres among the
/// samples of every rank (the first uniform, each next one with probability proportional to the
/// squared distance to the nearest chosen one, D²); each sample is then assigned to its nearest
/// centre and one M-step (eqs. 6–8 with those 0/1 responsibilities) gives the initial weights,
/// centres and variances. A draw names a global sample index, so the same seed picks the same
/// samples on any number of ranks (up to the rounding of the summed D², below).
void kmeans_plus_plus_start(const EmSamples& samples, const GmmOptions& options, Rng& rng,
                            Vector& weights, Matrix& centers, Matrix& variances);

/// The paper's box start (§IV): β_l = 1/N_K, centres uniform in [box_lower, box_upper]^d, every
/// variance γ²_ini = initial_variance (at least the floor).
void box_start(Index dimension, const GmmOptions& options, Rng& rng, Vector& weights,
               Matrix& centers, Matrix& variances);

}  // namespace cdens
