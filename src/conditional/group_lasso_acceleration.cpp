#include "conditional/group_lasso_acceleration.hpp"

#include <Eigen/Cholesky>
#include <cmath>

#include "conditional/group_lasso_terms.hpp"

namespace cdens::group_lasso {
namespace {

/// Adds H (target − from) to `gradient` over the coordinates where the two differ, so that a
/// point moved by a projection keeps an exact gradient at the cost of those columns.
void add_moved_columns(const MatrixView& h_matrix, const Vector& target, const Vector& from,
                       Vector& gradient) {
  for (Index j = 0; j < target.size(); ++j) {
    if (target(j) != from(j)) gradient.noalias() += (target(j) - from(j)) * h_matrix.col(j);
  }
}

}  // namespace

Candidate anderson_point(const MatrixView& h_matrix, const Matrix& iterates,
                         const Matrix& gradients, Index group_size) {
  const Index count = iterates.cols() - 1;
  const Matrix residuals = iterates.rightCols(count) - iterates.leftCols(count);
  Matrix gram = residuals.transpose() * residuals;
  // A relative ridge keeps the small system solvable when residuals are nearly parallel.
  gram.diagonal().array() += 1e-10 * gram.diagonal().maxCoeff() + 1e-300;
  const Vector weights = gram.ldlt().solve(Vector::Ones(count));
  const double total = weights.sum();
  if (!weights.allFinite() || !(std::abs(total) > 0.0)) return {};
  const Vector combination = iterates.rightCols(count) * (weights / total);
  Candidate candidate{combination.cwiseMax(0.0), gradients.rightCols(count) * (weights / total)};
  const auto last = iterates.col(count);
  for (Index start = 0; start < combination.size(); start += group_size) {
    if (!(last.segment(start, group_size).array() > 0.0).any()) {
      candidate.alpha.segment(start, group_size).setZero();
    }
  }
  add_moved_columns(h_matrix, candidate.alpha, combination, candidate.gradient);
  return candidate;
}

Candidate support_newton_point(const MatrixView& h_matrix, const VectorView& h_vector,
                               const Vector& alpha, const Vector& gradient, Index group_size,
                               double lambda, double objective, Index limit) {
  std::vector<Index> support;
  for (Index j = 0; j < alpha.size(); ++j) {
    if (alpha(j) > 0.0) support.push_back(j);
  }
  const auto count = static_cast<Index>(support.size());
  if (count == 0 || count > limit) return {};
  Matrix hessian = h_matrix(support, support);
  Vector slope = gradient(support);
  for (Index start = 0; start < count;) {
    const Index group = support[static_cast<std::size_t>(start)] / group_size;
    Index end = start;
    while (end < count && support[static_cast<std::size_t>(end)] / group_size == group) ++end;
    const Vector direction =
        alpha(std::vector<Index>(support.begin() + start, support.begin() + end));
    const double norm = direction.norm();
    const Vector unit = direction / norm;
    slope.segment(start, end - start) += lambda * unit;
    hessian.block(start, start, end - start, end - start) +=
        (lambda / norm) * (Matrix::Identity(end - start, end - start) - unit * unit.transpose());
    start = end;
  }
  hessian.diagonal().array() += 1e-12 * hessian.diagonal().maxCoeff();
  const Eigen::LLT<Matrix> factor(hessian);
  if (factor.info() != Eigen::Success) return {};
  const Vector on_support = factor.solve(-slope);
  if (!on_support.allFinite()) return {};
  Vector step = Vector::Zero(alpha.size());
  step(support) = on_support;
  const Vector h_step = sparse_product(h_matrix, step);
  double length = 1.0;
  for (int halving = 0; halving <= 10; ++halving, length *= 0.5) {
    const Vector moved = alpha + length * step;
    Candidate candidate{moved.cwiseMax(0.0), gradient + length * h_step};
    add_moved_columns(h_matrix, candidate.alpha, moved, candidate.gradient);
    if (objective_from_product(candidate.alpha, candidate.gradient + h_vector, h_vector, group_size,
                               lambda) < objective) {
      return candidate;
    }
  }
  return {};
}

}  // namespace cdens::group_lasso
