#include "conditional/sacde_system.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "cdens/core/types.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/sacde_gate.hpp"
#include "core/log_space.hpp"
#include "core/math_constants.hpp"
#include "core/samples.hpp"
#include "kernel_sums/weighted_sums.hpp"

namespace cdens {
namespace {

/// KKT violations below this fraction of λ count as satisfied when the active set is checked:
/// the inner solution is only accurate to the solver's relative tolerance.
constexpr double kActiveSetSlack = 1e-6;

/// The rows (coefficients) of the groups in `groups`, in that order.
std::vector<Index> coefficient_rows(const std::vector<Index>& groups, Index group_size) {
  std::vector<Index> rows;
  for (const Index d : groups) {
    for (Index b = 0; b < group_size; ++b) rows.push_back(d * group_size + b);
  }
  return rows;
}

}  // namespace

Matrix sacde_log_feature_kernels(const MatrixView& x, const SaCdeBasis& basis) {
  const Index features = basis.n_features();
  const Index size = basis.size();
  if (x.rows() != features) {
    throw InvalidArgument("SA-CDE: the inputs and the basis differ in dimension");
  }
  Matrix logs(x.cols(), features * size);
  for (Index d = 0; d < features; ++d) {
    logs.middleCols(d * size, size) =
        log_basis_factors(x.row(d), basis.centers_x.row(d), basis.sigma);
  }
  return logs;
}

SaCdeSystem::SaCdeSystem(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis,
                         const Communicator& communicator)
    : communicator_(&communicator) {
  assign(x, y, basis);
}

void SaCdeSystem::assign(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis) {
  const auto n = static_cast<double>(communicator_->sum_counts(x.cols()));
  if (n == 0 || x.cols() != y.cols()) {
    throw InvalidArgument("SA-CDE needs at least one training pair, as many x as y");
  }
  n_groups_ = basis.n_features();
  group_size_ = basis.size();
  kernels_ = sacde_log_feature_kernels(x, basis);
  exp_flushing_below_in_place(kernels_, kBasisLogCutoff);
  // Eq. (12): the y-integral of η_b η_b' is (√π σ)^{D_y} exp(−‖ν_b − ν_b'‖²/4σ²).
  output_overlap_ = exp_flushing_below(
      log_basis_factors(basis.centers_y, basis.centers_y, std::sqrt(2.0) * basis.sigma),
      kBasisLogCutoff);
  output_overlap_ *=
      std::pow(std::sqrt(kPi) * basis.sigma, static_cast<double>(basis.centers_y.rows())) / n;
  // Eq. (14): E(n, b) = η_b(y⁽ⁿ⁾), then ĥ_d = (1/n) Σ_n Φ_d(n, ·) ∘ E(n, ·).
  const Matrix outputs =
      exp_flushing_below(log_basis_factors(y, basis.centers_y, basis.sigma), kBasisLogCutoff);
  h_vector_.resize(n_groups_ * group_size_);
  for (Index d = 0; d < n_groups_; ++d) {
    h_vector_.segment(d * group_size_, group_size_) =
        kernels_.middleCols(d * group_size_, group_size_).cwiseProduct(outputs).colwise().sum();
  }
  communicator_->allreduce_sum(h_vector_.data(), static_cast<std::size_t>(h_vector_.size()));
  h_vector_ /= n;
  // Ĥ's storage is kept (same size: no allocation); its blocks are formed again on use.
  h_.resize(n_groups_ * group_size_, n_groups_ * group_size_);
  formed_.assign(static_cast<std::size_t>(n_groups_), 0);
  group_lipschitz_.assign(static_cast<std::size_t>(n_groups_), -1.0);
  working_groups_.clear();
  working_filled_ = 0;
  spectral_vector.resize(0);
}

double SaCdeSystem::group_lipschitz(Index group) {
  double& bound = group_lipschitz_[static_cast<std::size_t>(group)];
  if (bound < 0.0) {
    bound =
        nonnegative_spectral_bound(h_columns(group).middleRows(group * group_size_, group_size_));
  }
  return bound;
}

MatrixView SaCdeSystem::h_columns(Index group) {
  auto block = h_.middleCols(group * group_size_, group_size_);
  if (!formed_[static_cast<std::size_t>(group)]) {
    const auto own = kernels_.middleCols(group * group_size_, group_size_);
    // Ĥ is symmetric: Ĥ_{d,group} = Ĥ_{group,d}ᵀ is already in the block of a formed group d;
    // the other row blocks are products of this rank's kernels, summed over the ranks.
    std::vector<Index> computed;
    for (Index d = 0; d < n_groups_; ++d) {
      if (d != group && formed_[static_cast<std::size_t>(d)]) continue;
      computed.push_back(d);
      block.middleRows(d * group_size_, group_size_).noalias() =
          kernels_.middleCols(d * group_size_, group_size_).transpose() * own;
    }
    if (communicator_->size() > 1) sum_row_blocks_over_ranks(block, computed);
    for (Index d = 0; d < n_groups_; ++d) {
      auto rows = block.middleRows(d * group_size_, group_size_);
      if (std::find(computed.begin(), computed.end(), d) == computed.end()) {
        rows = h_.block(group * group_size_, d * group_size_, group_size_, group_size_).transpose();
      } else {
        rows.array() *= output_overlap_.array();
      }
    }
    formed_[static_cast<std::size_t>(group)] = 1;
  }
  return block;
}

void SaCdeSystem::sum_row_blocks_over_ranks(Eigen::Ref<Matrix> block,
                                            const std::vector<Index>& row_groups) const {
  // The row blocks are strided in the column-major block: one contiguous copy, one sum.
  const std::vector<Index> rows = coefficient_rows(row_groups, group_size_);
  Matrix sums = block(rows, Eigen::all);
  communicator_->allreduce_sum(sums.data(), static_cast<std::size_t>(sums.size()));
  block(rows, Eigen::all) = sums;
}

void SaCdeSystem::add_working_groups(const std::vector<Index>& groups) {
  for (const Index d : groups) {
    if (std::find(working_groups_.begin(), working_groups_.end(), d) == working_groups_.end()) {
      working_groups_.push_back(d);
    }
  }
}

MatrixView SaCdeSystem::working_matrix() {
  const auto count = static_cast<Index>(working_groups_.size());
  if (count == n_groups_) {
    // Every group: Ĥ itself, in the groups' own order.
    std::sort(working_groups_.begin(), working_groups_.end());
    for (Index d = 0; d < n_groups_; ++d) h_columns(d);
    return h_;
  }
  if (count > 0 && working_storage_.rows() != h_.rows()) {
    // Room for every group, allocated once; only the corner in use is ever written.
    working_storage_.resize(h_.rows(), h_.cols());
  }
  // Groups join at the end, so only the new columns, and their transposes as rows, are copied.
  for (Index a = working_filled_; a < count; ++a) {
    const std::vector<Index> rows =
        coefficient_rows({working_groups_.begin(), working_groups_.begin() + a + 1}, group_size_);
    const MatrixView block = h_columns(working_groups_[static_cast<std::size_t>(a)]);
    working_storage_.block(0, a * group_size_, (a + 1) * group_size_, group_size_) =
        block(rows, Eigen::all);
    working_storage_.block(a * group_size_, 0, group_size_, a * group_size_) =
        working_storage_.block(0, a * group_size_, a * group_size_, group_size_).transpose();
  }
  working_filled_ = count;
  return working_storage_.topLeftCorner(count * group_size_, count * group_size_);
}

Matrix SaCdeSystem::h_matrix() const {
  const Index total = n_groups_ * group_size_;
  Matrix gram = Matrix::Zero(total, total);
  gram.selfadjointView<Eigen::Lower>().rankUpdate(kernels_.transpose());
  Matrix full = gram.selfadjointView<Eigen::Lower>();
  communicator_->allreduce_sum(full.data(), static_cast<std::size_t>(full.size()));
  for (Index d1 = 0; d1 < n_groups_; ++d1) {
    for (Index d2 = 0; d2 < n_groups_; ++d2) {
      full.block(d1 * group_size_, d2 * group_size_, group_size_, group_size_).array() *=
          output_overlap_.array();
    }
  }
  return full;
}

double SaCdeSystem::lambda_max() const {
  double largest = 0.0;
  for (Index d = 0; d < n_groups_; ++d) {
    largest = std::max(largest, h_vector_.segment(d * group_size_, group_size_).norm());
  }
  return largest;
}

GroupLassoSolution solve_sacde_problem(SaCdeSystem& system, double lambda, const Vector& start,
                                       const GroupLassoOptions& options) {
  const Index groups = system.n_groups();
  const Index size = system.group_size();
  if (start.size() != groups * size) throw InvalidArgument("SA-CDE: the start has the wrong size");
  GroupLassoSolution solution;
  solution.alpha = Vector::Zero(groups * size);
  std::vector<Index> supported;
  for (Index d = 0; d < groups; ++d) {
    const auto group = start.segment(d * size, size);
    if ((group.array() > 0.0).any()) {
      supported.push_back(d);
      solution.alpha.segment(d * size, size) = group.cwiseMax(0.0);
    }
  }
  system.add_working_groups(supported);
  solution.converged = true;
  for (;;) {
    // The problem restricted to the working groups (in the matrix's order); the others stay
    // zero.
    const MatrixView restricted = system.working_matrix();
    const std::vector<Index>& working = system.working_groups();
    if (!working.empty()) {
      const std::vector<Index> rows = coefficient_rows(working, size);
      GroupLassoSolution inner;
      if (options.method == GroupLassoMethod::block_coordinate) {
        std::vector<double> lipschitz;
        for (const Index d : working) lipschitz.push_back(system.group_lipschitz(d));
        inner =
            solve_group_lasso_block_coordinate(restricted, system.h_vector()(rows), size, lambda,
                                               solution.alpha(rows), lipschitz, options);
      } else {
        if (system.spectral_vector.size() != groups * size) {
          system.spectral_vector = Vector::Ones(groups * size);
        }
        Vector spectral = system.spectral_vector(rows);
        const double lipschitz = nonnegative_spectral_bound(restricted, spectral);
        system.spectral_vector(rows) = spectral;
        inner = solve_group_lasso_dense(restricted, system.h_vector()(rows), size, lambda,
                                        solution.alpha(rows), lipschitz, options);
      }
      solution.alpha(rows) = inner.alpha;
      solution.iterations += inner.iterations;
      solution.restarts += inner.restarts;
      solution.converged = inner.converged;
      solution.objective.insert(solution.objective.end(), inner.objective.begin(),
                                inner.objective.end());
    }
    // The KKT condition of every group outside the working set, ‖[−∇_d Ĵ₀]₊‖ ≤ λ: its
    // gradient rows need only the blocks Ĥ_dw of the non-zero working groups w.
    std::vector<Index> violators;
    for (Index d = 0; d < groups; ++d) {
      if (std::find(working.begin(), working.end(), d) != working.end()) continue;
      Vector gradient = -system.h_vector().segment(d * size, size);
      for (const Index w : working) {
        const auto group = solution.alpha.segment(w * size, size);
        if ((group.array() > 0.0).any()) {
          gradient.noalias() += system.h_columns(w).middleRows(d * size, size) * group;
        }
      }
      if ((-gradient).cwiseMax(0.0).norm() > lambda * (1.0 + kActiveSetSlack)) {
        violators.push_back(d);
      }
    }
    if (violators.empty()) break;
    system.add_working_groups(violators);
  }
  return solution;
}

Matrix sacde_path(SaCdeSystem& system, const std::vector<double>& lambdas,
                  const GroupLassoOptions& options) {
  const Index total = system.n_groups() * system.group_size();
  std::vector<std::size_t> order(lambdas.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lambdas[a] > lambdas[b]; });
  const double lambda_max = system.lambda_max();
  Matrix alphas = Matrix::Zero(total, static_cast<Index>(lambdas.size()));
  Vector previous = Vector::Zero(total);
  for (const std::size_t j : order) {
    if (lambdas[j] >= lambda_max) continue;  // α = 0 (SaCdeSystem::lambda_max)
    previous = solve_sacde_problem(system, lambdas[j], previous, options).alpha;
    alphas.col(static_cast<Index>(j)) = previous;
  }
  return alphas;
}

Matrix sacde_group_norms(const Matrix& alphas, Index n_groups) {
  const Index size = alphas.rows() / n_groups;
  Matrix norms(n_groups, alphas.cols());
  for (Index j = 0; j < alphas.cols(); ++j) {
    for (Index d = 0; d < n_groups; ++d) norms(d, j) = alphas.col(j).segment(d * size, size).norm();
  }
  return norms;
}

Vector sacde_held_out_nll_sums(const MatrixView& x, const MatrixView& y, const SaCdeBasis& basis,
                               const Matrix& alphas) {
  const Index m = x.cols();
  const Index size = basis.size();
  if (m == 0) return Vector::Zero(alphas.cols());
  // Eq. (20): p̂(y|x) = Σ α_{d,b} φ_{d,b}(x_d) η_b(y) / ((√(2π) σ)^{D_y} Σ α_{d,b} φ_{d,b}(x_d)),
  // both sums for every candidate α_j at once.
  const Matrix log_inputs = sacde_log_feature_kernels(x, basis);
  Matrix log_joint = log_inputs;
  const Matrix log_outputs = log_basis_factors(y, basis.centers_y, basis.sigma);
  for (Index d = 0; d < basis.n_features(); ++d)
    log_joint.middleCols(d * size, size) += log_outputs;
  const WeightedSums inputs(log_inputs, alphas, kBasisLogCutoff);
  const WeightedSums joints(std::move(log_joint), alphas, kBasisLogCutoff);
  // Eq. (21): the y-integral of η_b is (√(2π) σ)^{D_y}.
  const double log_output_integral =
      static_cast<double>(y.rows()) * std::log(std::sqrt(2.0 * kPi) * basis.sigma);
  Vector sums =
      static_cast<double>(m) * log_output_integral - log_ratio_sums(joints, inputs).array();
  const std::vector<bool> positive = has_positive_coefficient(alphas);
  for (Index j = 0; j < alphas.cols(); ++j) {
    if (positive[static_cast<std::size_t>(j)]) continue;
    const ConditionalMixture mixture = make_sacde_mixture(
        Standardizer::identity(x.rows()), Standardizer::identity(y.rows()), basis, alphas.col(j));
    sums(j) = -mixture.log_pdf(x, y).sum();
  }
  return sums;
}

}  // namespace cdens
