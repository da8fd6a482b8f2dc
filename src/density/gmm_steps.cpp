#include "density/gmm_steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/log_space.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Samples are processed in blocks of this many, one block per task; block sums are added in
// block order, so the result does not depend on the thread count. A block's samples, their
// terms and responsibilities (w (d + N_K) doubles) stay in the first-level cache.
constexpr Index kSampleBlock = 256;

/// Number of blocks of kSampleBlock samples in n.
Index block_count(Index n) { return (n + kSampleBlock - 1) / kSampleBlock; }

/// D_kl = Σ_i h_il (z_ik − c_il)² for a block of samples by dimension (w × d), centres c_l and
/// factors h_l (d × N_K): w × N_K. The squares are taken around each centre, not expanded as
/// z² − 2zc + c² (a GEMM), which would cancel digits wherever a centre lies many widths from the
/// origin. kLanes samples at a time, their sums held in registers over the d dimensions (12%
/// faster per EM step than adding each dimension into a column of D in memory).
void weighted_squared_distances(const MatrixView& samples, const Matrix& centers,
                                const Matrix& factors, Eigen::ArrayXXd& out) {
  constexpr Index kLanes = 16;  // two vector registers of AVX-512, four of AVX2
  using Lanes = Eigen::Array<double, kLanes, 1>;
  const Index w = samples.rows();
  out.resize(w, centers.cols());
  for (Index l = 0; l < centers.cols(); ++l) {
    Index k = 0;
    for (; k + kLanes <= w; k += kLanes) {
      Lanes sum = Lanes::Zero();
      for (Index i = 0; i < samples.cols(); ++i) {
        sum += factors(i, l) * (samples.col(i).segment<kLanes>(k).array() - centers(i, l)).square();
      }
      out.col(l).segment<kLanes>(k) = sum;
    }
    // The last samples of a rank's last block, one at a time.
    for (; k < w; ++k) {
      double sum = 0.0;
      for (Index i = 0; i < samples.cols(); ++i) {
        const double difference = samples(k, i) - centers(i, l);
        sum += factors(i, l) * (difference * difference);
      }
      out(k, l) = sum;
    }
  }
}

/// log β_l + log N(z_k; c_l, diag γ²_l), the terms of eq. (5), for a block of samples by
/// dimension: w × N_K.
void log_joint_densities(const MatrixView& samples, const Vector& log_weights,
                         const Matrix& centers, const Matrix& variances, Eigen::ArrayXXd& out) {
  weighted_squared_distances(samples, centers, 0.5 * variances.array().inverse().matrix(), out);
  const double d = static_cast<double>(samples.cols());
  for (Index l = 0; l < centers.cols(); ++l) {
    const double log_norm =
        log_weights(l) - 0.5 * (variances.col(l).array().log().sum() + d * kLog2Pi);
    out.col(l) = log_norm - out.col(l);
  }
}

/// Turns the terms a_kl = log β_l N(z_k; …) of a block (w × N_K) into the responsibilities r_kl
/// of eq. (5) in place, with one exponential per term: with m_k = max_l a_kl,
/// r_kl = e^(a_kl − m_k) / Σ_l e^(a_kl − m_k). Responsibilities below e^kLogSmallestNormal are
/// set to 0 (see exp_flushing_below). Returns Σ_k log p̂(z_k) = Σ_k m_k + log Σ_l e^(a_kl − m_k).
/// Column by column: Eigen vectorises exp of a column, not of a broadcast (colwise) expression.
/// With the block's sample weights c_k (null: 1 each), r_kl is taken times c_k and the sum is
/// Σ_k c_k log p̂(z_k).
double normalize_to_responsibilities(Eigen::ArrayXXd& terms, const double* sample_weights) {
  const Index k_count = terms.cols();
  // Some weight is positive, so every m_k is finite.
  Eigen::ArrayXd largest = terms.col(0);
  for (Index l = 1; l < k_count; ++l) largest = largest.max(terms.col(l));
  Eigen::ArrayXd total = Eigen::ArrayXd::Zero(terms.rows());
  for (Index l = 0; l < k_count; ++l) {
    terms.col(l) = (terms.col(l) - largest).exp();
    total += terms.col(l);
  }
  const Eigen::ArrayXd inverse = total.inverse();
  const double smallest = std::exp(kLogSmallestNormal);
  for (Index l = 0; l < k_count; ++l) {
    terms.col(l) *= inverse;
    terms.col(l) = (terms.col(l) < smallest).select(0.0, terms.col(l));
  }
  if (sample_weights == nullptr) return (largest + total.log()).sum();
  const Eigen::Map<const Eigen::ArrayXd> weights(sample_weights, terms.rows());
  terms.colwise() *= weights;
  return ((largest + total.log()) * weights).sum();
}

/// Σ_k r_kl [1; z_k − c_l; (z_k − c_l)²] over a block of samples by dimension: the columns of
/// EmSums::moments. Both moments of a dimension in one pass over the samples (omp simd adds them
/// in vector lanes, in an order fixed at compile time).
Matrix responsibility_moments(const MatrixView& samples, const Eigen::ArrayXXd& r,
                              const Matrix& centers) {
  const Index w = samples.rows();
  const Index d = samples.cols();
  Matrix moments(2 * d + 1, centers.cols());
  for (Index l = 0; l < centers.cols(); ++l) {
    moments(0, l) = r.col(l).sum();
    const double* weights = r.col(l).data();
    for (Index i = 0; i < d; ++i) {
      const double* z = samples.col(i).data();
      const double center = centers(i, l);
      double first = 0.0;
      double second = 0.0;
#pragma omp simd reduction(+ : first, second)
      for (Index k = 0; k < w; ++k) {
        const double difference = z[k] - center;
        const double weighted = weights[k] * difference;
        first += weighted;
        second += weighted * difference;
      }
      moments(1 + i, l) = first;
      moments(1 + d + i, l) = second;
    }
  }
  return moments;
}

/// The moments around `centers` of the responsibilities that `responsibilities` gives each block,
/// over every rank's samples. responsibilities(block, c, r) is given a block of this rank's
/// samples by dimension (w × d) and their sample weights c (null: 1 each), writes their
/// responsibilities times c into r (w × N_K) and returns their Σ_k c_k log p̂(z_k).
template <class Responsibilities>
EmSums summed_moments(const EmSamples& samples, const Matrix& centers,
                      Responsibilities&& responsibilities) {
  const Index local_count = samples.by_dimension.rows();
  const Index blocks = block_count(local_count);
  std::vector<EmSums> partial(static_cast<std::size_t>(blocks));
  parallel_for(samples.threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const auto block_samples =
        samples.by_dimension.middleRows(start, std::min(kSampleBlock, local_count - start));
    Eigen::ArrayXXd r;
    EmSums& sums = partial[static_cast<std::size_t>(block)];
    const double* block_weights =
        samples.sample_weights != nullptr ? samples.sample_weights->data() + start : nullptr;
    sums.log_likelihood = responsibilities(block_samples, block_weights, r);
    sums.moments = responsibility_moments(block_samples, r, centers);
  });
  EmSums total{Matrix::Zero(2 * samples.by_dimension.cols() + 1, centers.cols()), 0.0};
  for (const EmSums& sums : partial) {
    total.moments += sums.moments;
    total.log_likelihood += sums.log_likelihood;
  }
  samples.communicator.allreduce_sum(total.moments.data(),
                                     static_cast<std::size_t>(total.moments.size()));
  samples.communicator.allreduce_sum(&total.log_likelihood, 1);
  total.log_likelihood /= samples.total_weight();
  return total;
}

}  // namespace

EmSums expectation(const EmSamples& samples, const Vector& weights, const Matrix& centers,
                   const Matrix& variances) {
  const Vector log_weights = weights.array().log();
  return summed_moments(
      samples, centers,
      [&](const MatrixView& block, const double* block_weights, Eigen::ArrayXXd& r) {
        log_joint_densities(block, log_weights, centers, variances, r);
        return normalize_to_responsibilities(r, block_weights);
      });
}

EmSums nearest_center_moments(const EmSamples& samples, const Matrix& centers) {
  const Matrix unit = Matrix::Ones(centers.rows(), centers.cols());
  return summed_moments(
      samples, centers,
      [&](const MatrixView& block, const double* block_weights, Eigen::ArrayXXd& r) {
        Eigen::ArrayXXd distances;
        weighted_squared_distances(block, centers, unit, distances);
        r = Eigen::ArrayXXd::Zero(distances.rows(), distances.cols());
        for (Index k = 0; k < distances.rows(); ++k) {
          Index nearest = 0;
          distances.row(k).minCoeff(&nearest);
          r(k, nearest) = block_weights != nullptr ? block_weights[k] : 1.0;
        }
        return 0.0;
      });
}

void maximization(const EmSums& sums, double total_weight, double floor, Vector& weights,
                  Matrix& centers, Matrix& variances) {
  const Index d = centers.rows();
  for (Index l = 0; l < centers.cols(); ++l) {
    const double mass = sums.moments(0, l);
    weights(l) = mass / total_weight;  // eq. (6)
    if (!(mass > 0.0)) continue;
    // Eq. (7) as the step from the centre the moments are taken around:
    // c'_l = c_l + Σ_k r_kl (z_k − c_l) / N_l.
    const Eigen::ArrayXd step = sums.moments.col(l).segment(1, d).array() / mass;
    centers.col(l) += step.matrix();
    // Eq. (8) around the new centre, from the moments around the old one in the same pass:
    // Σ_k r_kl (z_k − c'_l)² = Σ_k r_kl (z_k − c_l)² − N_l (c'_l − c_l)². The subtraction loses
    // about log10(1 + (c'_l − c_l)²/γ'²_l) digits — how far a centre moves in one step against
    // its width, small after the first steps — where the raw moments Σ r z² − N_l c'² would lose
    // log10(1 + c'²/γ'²) wherever a centre lies many widths from the origin (the data's units,
    // standardize off). Maximising Q over γ² ≥ γ²_min: Q is unimodal in each γ², so the bound is
    // the clamp.
    variances.col(l) =
        (sums.moments.col(l).tail(d).array() / mass - step.square()).max(floor).matrix();
  }
  weights /= weights.sum();
}

}  // namespace cdens
