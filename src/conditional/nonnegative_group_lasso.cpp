#include "conditional/nonnegative_group_lasso.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cdens/core/types.hpp"
#include "conditional/group_lasso_acceleration.hpp"
#include "conditional/group_lasso_terms.hpp"

namespace cdens {

namespace group_lasso {

double group_norm_sum(const VectorView& alpha, Index group_size) {
  double total = 0.0;
  for (Index start = 0; start < alpha.size(); start += group_size) {
    total += alpha.segment(start, group_size).norm();
  }
  return total;
}

double objective_from_product(const VectorView& alpha, const VectorView& product,
                              const VectorView& h_vector, Index group_size, double lambda) {
  return 0.5 * alpha.dot(product) - h_vector.dot(alpha) +
         lambda * group_norm_sum(alpha, group_size);
}

Vector sparse_product(const MatrixView& matrix, const VectorView& v) {
  if (2 * (v.array() != 0.0).count() > v.size()) return matrix * v;
  Vector product = Vector::Zero(matrix.rows());
  for (Index j = 0; j < v.size(); ++j) {
    if (v(j) != 0.0) product.noalias() += v(j) * matrix.col(j);
  }
  return product;
}

}  // namespace group_lasso

namespace {

using group_lasso::objective_from_product;
using group_lasso::sparse_product;

/// Supports of at most this many coordinates get a Newton step (a factorisation of at most
/// 400³/3 ≈ 2·10⁷ flops, offered once every five sweeps); larger ones get Anderson
/// extrapolation. On SA-CDE's paths 400 was faster than 700 or 1,100, whose factorisations cost
/// more than the sweeps they save (docs/methods/sacde.md).
constexpr Index kNewtonSupportLimit = 400;

void require_groups(Index size, Index group_size) {
  if (group_size < 1 || size % group_size != 0) {
    throw InvalidArgument("group lasso: the coefficients do not split into groups of equal size");
  }
}

}  // namespace

double group_lasso_objective(const MatrixView& h_matrix, const VectorView& h_vector,
                             Index group_size, double lambda, const VectorView& alpha) {
  return objective_from_product(alpha, h_matrix * alpha, h_vector, group_size, lambda);
}

double nonnegative_spectral_bound(const MatrixView& matrix) {
  Vector start;
  return nonnegative_spectral_bound(matrix, start);
}

double nonnegative_spectral_bound(const MatrixView& matrix, Vector& start) {
  const Index n = matrix.rows();
  if (n == 0) return 0.0;
  if (start.size() != n || !(start.array() > 0.0).all()) start = Vector::Ones(n);
  Vector& v = start;
  double upper = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < 100; ++iteration) {
    const Vector w = matrix * v;
    const double largest = w.maxCoeff();
    if (!(largest > 0.0)) {
      v.setOnes();
      return 0.0;  // Hv = 0 for a positive v: H = 0 (entries are ≥ 0)
    }
    upper = std::min(upper, (w.array() / v.array()).maxCoeff());
    const double lower = v.dot(w) / v.squaredNorm();
    if (upper <= lower * (1.0 + 1e-2)) break;
    // Kept positive so that the Collatz–Wielandt ratio stays defined and an upper bound.
    v = (w / largest).array() + 1e-12;
  }
  return upper;
}

Vector group_lasso_proximal_step(const VectorView& point, const VectorView& gradient,
                                 Index group_size, double lambda, double lipschitz) {
  Vector u = (point - gradient / lipschitz).cwiseMax(0.0);  // eq. (19)
  for (Index start = 0; start < u.size(); start += group_size) {
    auto group = u.segment(start, group_size);
    const double norm = group.norm();
    const double shrink = norm > 0.0 ? std::max(0.0, 1.0 - lambda / (lipschitz * norm)) : 0.0;
    group *= shrink;  // eq. (18)
  }
  return u;
}

GroupLassoSolution solve_group_lasso_dense(const MatrixView& h_matrix, const VectorView& h_vector,
                                           Index group_size, double lambda, const Vector& start,
                                           const GroupLassoOptions& options) {
  return solve_group_lasso_dense(h_matrix, h_vector, group_size, lambda, start,
                                 nonnegative_spectral_bound(h_matrix), options);
}

GroupLassoSolution solve_group_lasso_dense(const MatrixView& h_matrix, const VectorView& h_vector,
                                           Index group_size, double lambda, const Vector& start,
                                           double lipschitz, const GroupLassoOptions& options) {
  require_groups(h_vector.size(), group_size);
  if (h_matrix.rows() != h_vector.size() || h_matrix.cols() != h_vector.size() ||
      start.size() != h_vector.size()) {
    throw InvalidArgument("group lasso: H, h and the start disagree in size");
  }
  GroupLassoSolution solution;
  solution.alpha = start.cwiseMax(0.0);
  if (!(lipschitz > 0.0)) {
    // H = 0 only where every basis function vanishes on the data, and then h = 0 too.
    solution.alpha.setZero();
    solution.converged = true;
    return solution;
  }
  Vector x = solution.alpha;
  Vector hx = sparse_product(h_matrix, x);
  double fx = objective_from_product(x, hx, h_vector, group_size, lambda);
  if (options.record_objective) solution.objective.push_back(fx);
  Vector y = x;
  Vector hy = hx;
  double t = 1.0;
  bool plain_step = true;  // y = x: the next step is the paper's update, which cannot raise J
  for (int iteration = 1; iteration <= options.solver_max_iterations; ++iteration) {
    solution.iterations = iteration;
    Vector z = group_lasso_proximal_step(y, hy - h_vector, group_size, lambda, lipschitz);
    Vector hz = sparse_product(h_matrix, z);
    const double fz = objective_from_product(z, hz, h_vector, group_size, lambda);
    if (fz > fx) {
      if (plain_step) {
        // Even the plain step goes up: only rounding is left to gain.
        solution.converged = true;
        break;
      }
      // Momentum overshot: restart from x with a plain step (O'Donoghue & Candès 2015).
      y = x;
      hy = hx;
      t = 1.0;
      plain_step = true;
      ++solution.restarts;
      continue;
    }
    const double change = (z - x).norm();
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    const double momentum = (t - 1.0) / t_next;
    y = z + momentum * (z - x);
    hy = hz + momentum * (hz - hx);  // H is linear: no second product
    x = std::move(z);
    hx = std::move(hz);
    fx = fz;
    t = t_next;
    plain_step = momentum == 0.0;
    if (options.record_objective) solution.objective.push_back(fx);
    if (change <= options.solver_tolerance * std::max(x.norm(), 1e-300)) {
      solution.converged = true;
      break;
    }
  }
  solution.alpha = std::move(x);
  return solution;
}

GroupLassoSolution solve_group_lasso_block_coordinate(const MatrixView& h_matrix,
                                                      const VectorView& h_vector, Index group_size,
                                                      double lambda, const Vector& start,
                                                      const std::vector<double>& group_lipschitz,
                                                      const GroupLassoOptions& options) {
  require_groups(h_vector.size(), group_size);
  if (h_matrix.rows() != h_vector.size() || h_matrix.cols() != h_vector.size() ||
      start.size() != h_vector.size()) {
    throw InvalidArgument("group lasso: H, h and the start disagree in size");
  }
  const Index groups = h_vector.size() / group_size;
  std::vector<double> lipschitz = group_lipschitz;
  if (lipschitz.empty()) {
    for (Index d = 0; d < groups; ++d) {
      const Index at = d * group_size;
      lipschitz.push_back(
          nonnegative_spectral_bound(h_matrix.block(at, at, group_size, group_size)));
    }
  }
  if (static_cast<Index>(lipschitz.size()) != groups) {
    throw InvalidArgument("group lasso: one Lipschitz constant per group is needed");
  }
  GroupLassoOptions block_options;
  block_options.solver_tolerance = options.solver_tolerance;
  block_options.solver_max_iterations = options.block_iterations;
  GroupLassoSolution solution;
  Vector& alpha = solution.alpha;
  alpha = start.cwiseMax(0.0);
  Vector gradient = sparse_product(h_matrix, alpha) - h_vector;  // maintained: g = Hα − h
  const auto objective = [&] {
    return objective_from_product(alpha, gradient + h_vector, h_vector, group_size, lambda);
  };
  if (options.record_objective) solution.objective.push_back(objective());
  const int interval = std::max(0, options.extrapolation_interval);
  // α and g at the last extrapolation (or the start) and after each sweep since.
  Matrix iterates(alpha.size(), interval + 1), gradients(alpha.size(), interval + 1);
  Index stored = 0;
  const auto remember = [&] {
    iterates.col(stored) = alpha;
    gradients.col(stored) = gradient;
    ++stored;
  };
  if (interval > 0) remember();
  for (int sweep = 1; sweep <= options.solver_max_iterations; ++sweep) {
    solution.iterations = sweep;
    for (Index d = 0; d < groups; ++d) {
      const Index at = d * group_size;
      const auto block = h_matrix.block(at, at, group_size, group_size);
      const Vector current = alpha.segment(at, group_size);
      // J as a function of α_d alone: ½ aᵀ H_dd a − pullᵀ a + λ‖a‖ + const.
      const Vector pull = sparse_product(block, current) - gradient.segment(at, group_size);
      Vector next = Vector::Zero(group_size);
      // a = 0 is the block's minimiser exactly when its KKT condition holds there.
      if (pull.cwiseMax(0.0).norm() > lambda && lipschitz[static_cast<std::size_t>(d)] > 0.0) {
        next = solve_group_lasso_dense(block, pull, group_size, lambda, current,
                                       lipschitz[static_cast<std::size_t>(d)], block_options)
                   .alpha;
      }
      const Vector step = next - current;
      if (step.cwiseAbs().maxCoeff() == 0.0) continue;
      gradient.noalias() += sparse_product(h_matrix.middleCols(at, group_size), step);
      alpha.segment(at, group_size) = next;
    }
    if (interval > 0) {
      remember();
      if (stored == interval + 1) {
        // A Newton point on small supports, else Anderson extrapolation; taken if J falls.
        const double current = objective();
        group_lasso::Candidate candidate = group_lasso::support_newton_point(
            h_matrix, h_vector, alpha, gradient, group_size, lambda, current, kNewtonSupportLimit);
        if (candidate.alpha.size() == 0) {
          candidate = group_lasso::anderson_point(h_matrix, iterates, gradients, group_size);
        }
        if (candidate.alpha.size() != 0 &&
            objective_from_product(candidate.alpha, candidate.gradient + h_vector, h_vector,
                                   group_size, lambda) < current) {
          alpha = std::move(candidate.alpha);
          gradient = std::move(candidate.gradient);
        }
        stored = 0;
        remember();
      }
    }
    if (options.record_objective) solution.objective.push_back(objective());
    if (group_lasso_kkt_violation(gradient, alpha, group_size, lambda) <= options.tol) {
      solution.converged = true;
      break;
    }
  }
  return solution;
}

double group_lasso_kkt_violation(const VectorView& gradient, const VectorView& alpha,
                                 Index group_size, double lambda) {
  require_groups(alpha.size(), group_size);
  double worst = 0.0;
  for (Index start = 0; start < alpha.size(); start += group_size) {
    const auto a = alpha.segment(start, group_size);
    const auto g = gradient.segment(start, group_size);
    const double norm = a.norm();
    double violation = 0.0;
    if (norm == 0.0) {
      violation = std::max(0.0, (-g).cwiseMax(0.0).norm() - lambda);
    } else {
      Vector residual = g + lambda * a / norm;
      for (Index b = 0; b < group_size; ++b) {
        // A zero coordinate may carry a non-negative multiplier ν_b = residual_b.
        if (a(b) == 0.0) residual(b) = std::min(0.0, residual(b));
      }
      violation = residual.norm();
    }
    worst = std::max(worst, violation / lambda);
  }
  return worst;
}

}  // namespace cdens
