#include "density/gmm_steps.hpp"

#include <algorithm>
#include <vector>

#include "core/gaussian_kernel.hpp"
#include "core/log_space.hpp"
#include "core/parallel.hpp"

namespace cdens {
namespace {

// Samples are processed in blocks of this many, one block per task; block sums are added in
// block order, so the result does not depend on the thread count.
constexpr Index kSampleBlock = 512;

/// E-step (eq. 5) in log space for the samples of one block: log r_kl into `log_r` (N_K × w);
/// returns Σ_k log p̂(z_k) over the block.
double log_responsibilities(const MatrixView& z, const Vector& log_weights, const Matrix& centers,
                            const Matrix& variances, Eigen::Ref<Matrix> log_r) {
  const Index k_count = centers.cols();
  for (Index l = 0; l < k_count; ++l) {
    const Eigen::ArrayXd inverse = variances.col(l).array().inverse();
    const double log_norm = -0.5 * (variances.col(l).array().log().sum() + z.rows() * kLog2Pi);
    const Eigen::ArrayXd mahalanobis =
        ((z.colwise() - centers.col(l)).array().square().colwise() * inverse)
            .colwise()
            .sum()
            .transpose();
    log_r.row(l) = (log_weights(l) + log_norm - 0.5 * mahalanobis).matrix().transpose();
  }
  double total = 0.0;
  for (Index j = 0; j < z.cols(); ++j) {
    const double normaliser = log_sum_exp(log_r.col(j));
    log_r.col(j).array() -= normaliser;
    total += normaliser;
  }
  return total;
}

/// Number of blocks of kSampleBlock samples in n.
Index block_count(Index n) { return (n + kSampleBlock - 1) / kSampleBlock; }

}  // namespace

double expectation(const EmSamples& samples, const Vector& weights, const Matrix& centers,
                   const Matrix& variances, Matrix& responsibilities) {
  const MatrixView& z = samples.z;
  const Index local_count = z.cols();
  const Vector log_weights = weights.array().log();
  responsibilities.resize(centers.cols(), local_count);
  const Index blocks = block_count(local_count);
  Vector block_sums(blocks);
  parallel_for(samples.threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, local_count - start);
    auto log_r = responsibilities.middleCols(start, size);
    block_sums(block) =
        log_responsibilities(z.middleCols(start, size), log_weights, centers, variances, log_r);
    exp_flushing_below_in_place(log_r);
  });
  double total = 0.0;
  for (Index b = 0; b < blocks; ++b) total += block_sums(b);
  samples.communicator.allreduce_sum(&total, 1);
  return total / static_cast<double>(samples.n);
}

void maximization(const EmSamples& samples, const Matrix& responsibilities, double floor,
                  Vector& weights, Matrix& centers, Matrix& variances) {
  const MatrixView& z = samples.z;
  const Communicator& communicator = samples.communicator;
  const Index local_count = z.cols();
  const Index d = z.rows();
  const Index k_count = responsibilities.rows();
  const Index blocks = block_count(local_count);
  // Block sums of N_l and Σ_k r_kl z_k, added in block order, then over the ranks.
  std::vector<Vector> mass(static_cast<std::size_t>(blocks));
  std::vector<Matrix> first(static_cast<std::size_t>(blocks));
  parallel_for(samples.threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, local_count - start);
    const auto r = responsibilities.middleCols(start, size);
    mass[static_cast<std::size_t>(block)] = r.rowwise().sum();
    Matrix sums(d, k_count);
    for (Index l = 0; l < k_count; ++l) {
      sums.col(l) =
          (z.middleCols(start, size).array().rowwise() * r.row(l).array()).rowwise().sum();
    }
    first[static_cast<std::size_t>(block)] = std::move(sums);
  });
  Vector n_l = Vector::Zero(k_count);
  Matrix weighted = Matrix::Zero(d, k_count);
  for (std::size_t b = 0; b < mass.size(); ++b) {
    n_l += mass[b];
    weighted += first[b];
  }
  communicator.allreduce_sum(n_l.data(), static_cast<std::size_t>(n_l.size()));
  communicator.allreduce_sum(weighted.data(), static_cast<std::size_t>(weighted.size()));
  std::vector<bool> alive(static_cast<std::size_t>(k_count));
  for (Index l = 0; l < k_count; ++l) {
    alive[static_cast<std::size_t>(l)] = n_l(l) > 0.0;
    weights(l) = n_l(l) / static_cast<double>(samples.n);                               // eq. (6)
    if (alive[static_cast<std::size_t>(l)]) centers.col(l) = weighted.col(l) / n_l(l);  // eq. (7)
  }
  weights /= weights.sum();
  // Eq. (8) around the new centres, a second pass (no cancellation of Σ r z² − N c²).
  std::vector<Matrix> second(static_cast<std::size_t>(blocks));
  parallel_for(samples.threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, local_count - start);
    const auto r = responsibilities.middleCols(start, size);
    Matrix sums(d, k_count);
    for (Index l = 0; l < k_count; ++l) {
      sums.col(l) =
          ((z.middleCols(start, size).colwise() - centers.col(l)).array().square().rowwise() *
           r.row(l).array())
              .rowwise()
              .sum();
    }
    second[static_cast<std::size_t>(block)] = std::move(sums);
  });
  Matrix scatter = Matrix::Zero(d, k_count);
  for (const auto& sums : second) scatter += sums;
  communicator.allreduce_sum(scatter.data(), static_cast<std::size_t>(scatter.size()));
  for (Index l = 0; l < k_count; ++l) {
    if (!alive[static_cast<std::size_t>(l)]) continue;
    // Maximising Q over γ² ≥ γ²_min: Q is unimodal in each γ², so the bound is the clamp.
    variances.col(l) = (scatter.col(l).array() / n_l(l)).max(floor).matrix();
  }
}

}  // namespace cdens
