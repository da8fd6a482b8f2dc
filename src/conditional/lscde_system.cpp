#include "conditional/lscde_system.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "cdens/core/types.hpp"
#include "conditional/lscde_gate.hpp"
#include "core/log_space.hpp"
#include "core/math_constants.hpp"
#include "core/samples.hpp"
#include "kernel_sums/weighted_sums.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// The statistics of the inputs x (columns), and of the pairs (x, y) unless y is null, each
/// weighing its entry of `weights` (empty: 1), added chunk by chunk in row order.
LscdeSums chunked_sums(const MatrixView& x, const MatrixView* y, const LscdeBasis& basis,
                       const Vector& weights) {
  const bool weighted = weights.size() > 0;
  LscdeSums sums = LscdeSums::zero(basis.size());
  for_each_row_chunk(x.cols(), [&](Index begin, Index size) {
    Matrix phi_x = lscde_basis_factors(x.middleCols(begin, size), basis.centers_x, basis.sigma);
    Matrix phi_y;
    if (y != nullptr) {
      phi_y = lscde_basis_factors(y->middleCols(begin, size), basis.centers_y, basis.sigma);
    }
    if (weighted) {
      // Σ_i w_i φ_x φ_xᵀ is the gram of the rows √w_i φ_x(x_i); the joint sum takes √w_i from
      // each factor.
      const Vector root = weights.segment(begin, size).cwiseSqrt();
      phi_x = root.asDiagonal() * phi_x;
      if (y != nullptr) phi_y = root.asDiagonal() * phi_y;
    }
    // Half the flops of a GEMM: the lower triangle only, mirrored once all chunks are in.
    sums.input_gram.selfadjointView<Eigen::Lower>().rankUpdate(phi_x.transpose());
    if (y != nullptr) sums.joint += phi_x.cwiseProduct(phi_y).colwise().sum().transpose();
  });
  sums.input_gram.triangularView<Eigen::StrictlyUpper>() = sums.input_gram.transpose().eval();
  sums.input_weight = weighted ? weights.sum() : static_cast<double>(x.cols());
  sums.pair_weight = y != nullptr ? sums.input_weight : 0.0;
  return sums;
}

}  // namespace

Matrix lscde_basis_factors(const MatrixView& points, const MatrixView& centers, double sigma) {
  Matrix factors = log_basis_factors(points, centers, sigma);
  exp_flushing_below_in_place(factors, kBasisLogCutoff);
  return factors;
}

Matrix gram_of_rows(const Matrix& phi) {
  // Half the flops of a GEMM.
  Matrix gram = Matrix::Zero(phi.cols(), phi.cols());
  // No rows (a rank without any, docs/distributed.md): BLAS's rank update refuses a leading
  // dimension of 0.
  if (phi.rows() == 0) return gram;
  gram.selfadjointView<Eigen::Lower>().rankUpdate(phi.transpose());
  return gram.selfadjointView<Eigen::Lower>();
}

LscdeSums LscdeSums::zero(Index basis_size) {
  return {Matrix::Zero(basis_size, basis_size), Vector::Zero(basis_size), 0.0, 0.0};
}

LscdeSums& LscdeSums::operator+=(const LscdeSums& other) {
  input_gram += other.input_gram;
  joint += other.joint;
  input_weight += other.input_weight;
  pair_weight += other.pair_weight;
  return *this;
}

LscdeSums lscde_pair_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis,
                          const Vector& weights) {
  return chunked_sums(x, &y, basis, weights);
}

LscdeSums lscde_input_sums(const MatrixView& x, const LscdeBasis& basis) {
  return chunked_sums(x, nullptr, basis, Vector());
}

void append_sample_blocks(int fold, Index begin, Index end, std::vector<SampleBlock>& blocks) {
  constexpr Index kMinBlockSize = 256;
  constexpr Index kMaxBlocksPerFold = 16;
  const Index block_size =
      std::max(kMinBlockSize, (end - begin + kMaxBlocksPerFold - 1) / kMaxBlocksPerFold);
  for (Index start = begin; start < end; start += block_size) {
    blocks.push_back({fold, start, std::min(block_size, end - start)});
  }
}

LscdeSums lscde_block_sums(const SampleBlock& block, const MatrixView& x, const MatrixView& y,
                           const Vector& weights, const MatrixView& unlabeled_x,
                           const LscdeBasis& basis) {
  if (block.fold < 0)
    return lscde_input_sums(unlabeled_x.middleCols(block.begin, block.size), basis);
  return lscde_pair_sums(
      x.middleCols(block.begin, block.size), y.middleCols(block.begin, block.size), basis,
      weights.size() > 0 ? Vector(weights.segment(block.begin, block.size)) : Vector());
}

LscdeSums lscde_sums(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
                     const LscdeBasis& basis, int threads, const Vector& weights) {
  std::vector<SampleBlock> blocks;
  append_sample_blocks(0, 0, x.cols(), blocks);
  append_sample_blocks(-1, 0, unlabeled_x.cols(), blocks);
  std::vector<LscdeSums> block_sums(blocks.size());
  parallel_for(threads, static_cast<Index>(blocks.size()), [&](Index b) {
    block_sums[static_cast<std::size_t>(b)] =
        lscde_block_sums(blocks[static_cast<std::size_t>(b)], x, y, weights, unlabeled_x, basis);
  });
  LscdeSums total = LscdeSums::zero(basis.size());
  for (const auto& sums : block_sums) total += sums;
  return total;
}

Matrix lscde_output_coupling(const Matrix& output_overlap, const LscdeBasis& basis,
                             double input_weight) {
  if (input_weight == 0.0) throw InvalidArgument("LSCDE needs at least one input");
  const double output_dim = static_cast<double>(basis.centers_y.rows());
  // Φ̄ of §2.6: the y-integral of two Gaussians of width σ gives (√π σ)^{d_y} K_v.
  const double scale = std::pow(std::sqrt(kPi) * basis.sigma, output_dim) / input_weight;
  return scale * output_overlap;
}

Matrix lscde_h_matrix(const LscdeSums& sums, const Matrix& output_overlap,
                      const LscdeBasis& basis) {
  return sums.input_gram.cwiseProduct(
      lscde_output_coupling(output_overlap, basis, sums.input_weight));
}

LscdeSystem lscde_system(const LscdeSums& sums, const Matrix& output_overlap,
                         const LscdeBasis& basis) {
  if (sums.pair_weight == 0.0) throw InvalidArgument("LSCDE needs at least one training pair");
  return {lscde_h_matrix(sums, output_overlap, basis), sums.joint / sums.pair_weight};
}

LscdeLambdaPath::LscdeLambdaPath(const LscdeSystem& system) {
  const Eigen::SelfAdjointEigenSolver<Matrix> solver(system.h_matrix);
  if (solver.info() != Eigen::Success) {
    throw DataError("the eigendecomposition of the LSCDE matrix H did not converge");
  }
  eigenvalues_ = solver.eigenvalues();
  eigenvectors_ = solver.eigenvectors();
  projected_h_ = eigenvectors_.transpose() * system.h_vector;
}

Matrix LscdeLambdaPath::solutions(const std::vector<double>& lambdas) const {
  const auto count = static_cast<Index>(lambdas.size());
  Matrix scaled(projected_h_.size(), count);
  for (Index j = 0; j < count; ++j) {
    // Ĥ is positive semi-definite; eigenvalues below zero are rounding noise.
    scaled.col(j) = projected_h_.array() / (eigenvalues_.array().max(0.0) + lambdas[j]);
  }
  return eigenvectors_ * scaled;
}

Matrix lscde_solutions(const LscdeSystem& system, const std::vector<double>& lambdas) {
  if (lambdas.size() > kCholeskySolveLimit) return LscdeLambdaPath(system).solutions(lambdas);
  Matrix solutions(system.h_vector.size(), static_cast<Index>(lambdas.size()));
  Matrix regularized = system.h_matrix;
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    regularized.diagonal() = system.h_matrix.diagonal().array() + lambdas[j];
    const Eigen::LLT<Matrix> factor(regularized);
    if (factor.info() != Eigen::Success) {
      throw DataError("the regularised LSCDE matrix H + lambda I is not positive definite");
    }
    solutions.col(static_cast<Index>(j)) = factor.solve(system.h_vector);
  }
  return solutions;
}

Matrix LscdeLambdaPath::coefficients(const std::vector<double>& lambdas) const {
  const auto count = static_cast<Index>(lambdas.size());
  Matrix alphas = solutions(lambdas).cwiseMax(0.0);  // eq. (7)
  // Departure from eq. (7): coefficients below 1e−10 of the largest are set to zero as well.
  // The eigen-path solution is accurate to about 1e−15 of the largest coefficient in absolute
  // terms, so such values are rounding noise; left in, a basis function centred on a held-out
  // point with a noise-sized coefficient would decide that point's cross-validation score.
  for (Index j = 0; j < count; ++j) {
    const double floor = kRelativeCoefficientFloor * alphas.col(j).maxCoeff();
    alphas.col(j) = (alphas.col(j).array() < floor).select(0.0, alphas.col(j));
  }
  return alphas;
}

Vector lscde_held_out_loss_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis,
                                const Matrix& output_overlap, const Matrix& alphas, CvLoss loss,
                                const Vector& weights) {
  const Index m = x.cols();
  const Index count = alphas.cols();
  const double output_dim = static_cast<double>(y.rows());
  const double sigma = basis.sigma;
  if (m == 0) return Vector::Zero(count);

  // Eq. (8): p̂(y|x) = Σ_l α_l φ_l(x, y) / ((√(2π) σ)^{d_y} Σ_l α_l φ_x,l(x)), both sums for every
  // candidate α_j at once.
  const Matrix log_x = log_basis_factors(x, basis.centers_x, sigma);
  const WeightedSums inputs(log_x, alphas, kBasisLogCutoff);
  const WeightedSums joints(log_x + log_basis_factors(y, basis.centers_y, sigma), alphas,
                            kBasisLogCutoff);
  // (√(2π) σ)^{d_y}: the y-integral of the basis, eq. (8) and §2.6.
  const double log_output_integral = output_dim * std::log(std::sqrt(2.0 * kPi) * sigma);
  const std::vector<bool> positive = has_positive_coefficient(alphas);
  const auto fallback = [&](Index j, const std::vector<Index>& rows) {
    const ConditionalMixture mixture = make_lscde_mixture(
        Standardizer::identity(x.rows()), Standardizer::identity(y.rows()), basis, alphas.col(j));
    const Matrix x_rows = gather_samples(x, rows);
    const Matrix y_rows = gather_samples(y, rows);
    if (weights.size() == 0) {
      return static_cast<double>(rows.size()) * held_out_loss(loss, mixture, x_rows, y_rows);
    }
    return weights(rows).dot(held_out_pair_losses(loss, mixture, x_rows, y_rows));
  };
  std::vector<Index> all_rows(static_cast<std::size_t>(m));
  for (Index i = 0; i < m; ++i) all_rows[static_cast<std::size_t>(i)] = i;

  Vector sums = Vector::Zero(count);
  if (loss == CvLoss::kl) {
    const double total_weight = weights.size() > 0 ? weights.sum() : static_cast<double>(m);
    sums = total_weight * log_output_integral - log_ratio_sums(joints, inputs, weights).array();
    // Every coefficient rounded to zero: the model is its marginal fallback.
    for (Index j = 0; j < count; ++j) {
      if (!positive[static_cast<std::size_t>(j)]) sums(j) = fallback(j, all_rows);
    }
    return sums;
  }
  // ∫ N(y; v, σ²I) N(y; v', σ²I) dy = (4πσ²)^{−d_y/2} K_v.
  const double overlap_scale = std::pow(4.0 * kPi * sigma * sigma, -0.5 * output_dim);
  for (Index j = 0; j < count; ++j) {
    if (!positive[static_cast<std::size_t>(j)]) {
      sums(j) = fallback(j, all_rows);
      continue;
    }
    const Matrix weighted = inputs.terms() * alphas.col(j).asDiagonal();
    const Vector quadratic = (weighted * output_overlap).cwiseProduct(weighted).rowwise().sum();
    std::vector<Index> exact_rows;
    for (Index i = 0; i < m; ++i) {
      const double denominator = inputs.shifted()(i, j);
      if (denominator > 0.0) {
        const double density =
            std::exp(joints.shift()(i) - inputs.shift()(i) - log_output_integral) *
            joints.shifted()(i, j) / denominator;
        const double square_integral = overlap_scale * quadratic(i) / (denominator * denominator);
        const double pair_loss = 0.5 * square_integral - density;
        sums(j) += weights.size() > 0 ? weights(i) * pair_loss : pair_loss;
      } else {
        exact_rows.push_back(i);
      }
    }
    if (!exact_rows.empty()) sums(j) += fallback(j, exact_rows);
  }
  return sums;
}

void allreduce_sums(LscdeSums& sums, const Communicator& communicator) {
  communicator.allreduce_sum(sums.input_gram.data(),
                             static_cast<std::size_t>(sums.input_gram.size()));
  communicator.allreduce_sum(sums.joint.data(), static_cast<std::size_t>(sums.joint.size()));
  double weights[2] = {sums.input_weight, sums.pair_weight};
  communicator.allreduce_sum(weights, 2);
  sums.input_weight = weights[0];
  sums.pair_weight = weights[1];
}

}  // namespace cdens
