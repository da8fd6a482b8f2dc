#include "density/gskd_construction.hpp"

#include <algorithm>
#include <cmath>

#include "cdens/core/types.hpp"
#include "core/random_streams.hpp"
#include "core/sample_weights.hpp"
#include "density/fixed_kernels.hpp"
#include "density/mnqp.hpp"
#include "density/rwbs.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Below this many kernel values (samples × batch members) a batch is evaluated on one thread:
// starting threads would cost more than the work.
constexpr Index kParallelBatchWork = 20000;
// A batch is scored in blocks of this many columns (one task each), whatever the thread count,
// so the rounding of the block products, and the model, do not depend on it: the two new points
// of a WBS iteration share one pass over the model's columns.
constexpr Index kColumnBlock = 2;

}  // namespace

GskdBox gskd_box(const MatrixView& z, double target_width, double variance_lower,
                 double variance_upper, const Vector& weights) {
  const Index m = z.rows();
  Vector variance(m);
  if (weights.size() > 0) {
    for (Index i = 0; i < m; ++i) {
      variance(i) = std::pow(weighted_standard_deviation(z.row(i).transpose(), weights), 2);
    }
  } else {
    const Vector mean = z.rowwise().mean();
    variance = (z.colwise() - mean).rowwise().squaredNorm() / static_cast<double>(z.cols() - 1);
  }
  GskdBox box{Vector(2 * m), Vector(2 * m)};
  box.upper << z.rowwise().maxCoeff(), variance_upper * variance;
  box.lower << z.rowwise().minCoeff(),
      (0.5 * box.upper.tail(m)).cwiseMin(variance_lower * target_width * target_width);
  return box;
}

void gskd_kernel_column(const MatrixView& z, const VectorView& u, Eigen::Ref<Vector> column) {
  const Index m = z.rows();
  const Eigen::ArrayXd variance = u.tail(m).array();
  const double log_norm = -0.5 * (static_cast<double>(m) * kLog2Pi + variance.log().sum());
  // One dimension at a time along the samples, so every step is a vectorised array expression;
  // exp is vectorised only when evaluated into memory.
  auto exponent = column.array();
  exponent.setConstant(log_norm);
  for (Index i = 0; i < m; ++i) {
    exponent -= (0.5 / variance(i)) * (z.row(i).transpose().array() - u(i)).square();
  }
  exponent = exponent.exp();
}

GskdConstruction::GskdConstruction(const MatrixView& z, Vector target, GskdBox box,
                                   RwbsOptions rwbs, double regularization, int threads,
                                   const Vector& weights)
    : z_(z),
      target_(std::move(target)),
      row_scales_(weighted_row_scales(weights)),
      box_(std::move(box)),
      rwbs_(std::move(rwbs)),
      model_(row_scales_.size() > 0 ? Vector(target_.cwiseProduct(row_scales_)) : target_,
             regularization),
      threads_(threads) {}

void GskdConstruction::column(const VectorView& u, Eigen::Ref<Vector> values) const {
  gskd_kernel_column(z_, u, values);
  if (row_scales_.size() > 0) values.array() *= row_scales_.array();
}

GskdStage GskdConstruction::add_stage() {
  const Index n = z_.cols();
  // RWBS normalises costs by their sum, so they must be finite: a column the LOO criterion
  // refuses (in the span of the model, or a zero LOO weighting) and any column worse than
  // twice J_{n−1} cost 2 J_{n−1}; neither could be accepted by eq. (38) anyway.
  const double ceiling = 2.0 * model_.loo_mse();
  const RwbsBatchCost cost = [&](const Matrix& points) {
    Vector costs(points.cols());
    const int batch_threads = n * points.cols() < kParallelBatchWork ? 1 : threads_;
    const Index blocks = (points.cols() + kColumnBlock - 1) / kColumnBlock;
    parallel_for(batch_threads, blocks, [&](Index block) {
      const Index first = block * kColumnBlock;
      const Index count = std::min(kColumnBlock, points.cols() - first);
      Matrix columns(n, count);
      for (Index j = 0; j < count; ++j) column(points.col(first + j), columns.col(j));
      costs.segment(first, count) = model_.loo_mse_of_columns(std::move(columns)).cwiseMin(ceiling);
    });
    return costs;
  };
  rwbs_.stream = random_stream::indexed(static_cast<Index>(kernels_.size()));
  const RwbsResult found = rwbs_minimize_batches(cost, box_.lower, box_.upper, rwbs_);
  evaluations_ += found.evaluations;
  Vector found_column(n);
  column(found.point, found_column);
  const OfrCandidate candidate = model_.evaluate(found_column);
  GskdStage stage{found.point, candidate.loo_mse, false};
  // Eq. (38): stop when J_{n+1} ≥ J_n; a density needs at least one kernel.
  if (!std::isfinite(candidate.loo_mse)) {
    if (kernels_.empty()) throw DataError("GSKD: RWBS found no admissible first kernel");
    return stage;
  }
  if (!kernels_.empty() && candidate.loo_mse >= model_.loo_mse()) return stage;
  model_.add(candidate);
  kernels_.push_back(found.point);
  stage.added = true;
  return stage;
}

MnqpResult gskd_weights(const MatrixView& z, const Vector& target,
                        const std::vector<Vector>& kernels, const MnqpOptions& options,
                        const Vector& weights) {
  Matrix phi(z.cols(), static_cast<Index>(kernels.size()));
  for (Index l = 0; l < phi.cols(); ++l) {
    gskd_kernel_column(z, kernels[static_cast<std::size_t>(l)], phi.col(l));
  }
  if (weights.size() == 0)
    return solve_mnqp(phi.transpose() * phi, phi.transpose() * target, options);
  // ΦᵀCΦ and ΦᵀCt, c scaled to a mean of 1: the rows scaled as the construction's.
  const Vector scales = weighted_row_scales(weights);
  phi = scales.asDiagonal() * phi;
  return solve_mnqp(phi.transpose() * phi, phi.transpose() * target.cwiseProduct(scales), options);
}

GaussianMixture gskd_mixture(Standardizer scaling, const std::vector<Vector>& kernels,
                             const MnqpResult& weights) {
  const Index m = scaling.dimension();
  const auto kept = static_cast<Index>(weights.kept.size());
  Matrix centers(m, kept), widths(m, kept);
  for (Index l = 0; l < kept; ++l) {
    const Vector& u = kernels[static_cast<std::size_t>(weights.kept[static_cast<std::size_t>(l)])];
    centers.col(l) = u.head(m);
    widths.col(l) = u.tail(m).array().sqrt().matrix();
  }
  return GaussianMixture(std::move(scaling), weights.weights(weights.kept), std::move(centers),
                         std::move(widths));
}

}  // namespace cdens
