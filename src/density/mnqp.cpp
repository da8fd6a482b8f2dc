#include "density/mnqp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "cdens/core/types.hpp"

namespace cdens {
namespace {

void validate(const MatrixView& b, const VectorView& v) {
  if (b.rows() == 0 || b.rows() != b.cols()) {
    throw InvalidArgument("MNQP: B must be a non-empty square matrix, got " +
                          std::to_string(b.rows()) + " × " + std::to_string(b.cols()));
  }
  if (v.size() != b.rows()) {
    throw InvalidArgument("MNQP: v has " + std::to_string(v.size()) + " entries but B is " +
                          std::to_string(b.rows()) + " × " + std::to_string(b.cols()));
  }
  if (!b.allFinite() || !v.allFinite()) throw InvalidArgument("MNQP: B and v must be finite");
  if ((b.array() < 0.0).any() || !(b.diagonal().array() > 0.0).all()) {
    // The auxiliary function of eq. (40) bounds f only for non-negative b_ij.
    throw InvalidArgument("MNQP: B must have non-negative entries and a positive diagonal");
  }
  const double asymmetry = (b - b.transpose()).cwiseAbs().maxCoeff();
  if (asymmetry > 1e-12 * b.cwiseAbs().maxCoeff()) {
    throw InvalidArgument("MNQP: B must be symmetric");
  }
}

/// The weights c_i (v_i + h)_+ with Σ = 1: the minimiser over the simplex of the separable
/// auxiliary function Σ_i (v_i β'_i − β'_i² / (2 c_i)) negated, for the active c_i > 0 (eqs.
/// 42–44 with the non-negativity constraint kept). Inactive entries (c_i = 0) stay 0.
void simplex_update(const Vector& c, const VectorView& v, Vector& beta) {
  std::vector<Index> active;
  for (Index i = 0; i < c.size(); ++i) {
    if (c(i) > 0.0) active.push_back(i);
  }
  // Largest v first: the weights that stay positive are those with the largest v_i.
  std::stable_sort(active.begin(), active.end(), [&](Index a, Index b) { return v(a) > v(b); });
  double sum_c = 0.0, sum_cv = 0.0, h = 0.0;
  for (std::size_t k = 0; k < active.size(); ++k) {
    sum_c += c(active[k]);
    sum_cv += c(active[k]) * v(active[k]);
    h = (1.0 - sum_cv) / sum_c;  // eq. (43) over the first k + 1 active weights
    const bool last = k + 1 == active.size();
    if (last || v(active[k + 1]) + h <= 0.0) break;
  }
  beta.setZero();
  for (const Index i : active) beta(i) = c(i) * std::max(0.0, v(i) + h);  // eq. (44)
}

/// Runs updates from `beta` until the largest change is at most the tolerance, each a step of
/// `progress`.
void iterate(const MatrixView& b, const VectorView& v, const MnqpOptions& options, Vector& beta,
             MnqpResult& result, bool record, Progress& progress) {
  Vector next(beta.size());
  Vector c(beta.size());
  if (record) result.objective_history.push_back(mnqp_objective(b, v, beta));
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    const Vector b_beta = b * beta;
    for (Index i = 0; i < beta.size(); ++i) {
      c(i) = beta(i) > 0.0 ? beta(i) / b_beta(i) : 0.0;  // eq. (42)
    }
    simplex_update(c, v, next);
    const double change = (next - beta).cwiseAbs().maxCoeff();
    beta.swap(next);
    ++result.iterations;
    progress.advance();
    if (record) result.objective_history.push_back(mnqp_objective(b, v, beta));
    if (change <= options.tolerance) {
      result.converged = true;
      return;
    }
  }
  result.converged = false;
}

/// The bound of one pass on a problem of `size` kernels: max_iterations updates of MNQP, or as
/// many SMO steps as cost the same (N steps of O(N) for each O(N²) update).
std::int64_t most_steps(const MnqpOptions& options, Index size) {
  return static_cast<std::int64_t>(options.max_iterations) *
         (options.solver == SimplexQpSolver::smo ? size : 1);
}

/// The index of the largest gradient among the kept weights (β_j > 0), the lowest index of ties.
Index largest_kept_gradient(const Vector& gradient, const Vector& beta) {
  Index largest = -1;
  for (Index j = 0; j < beta.size(); ++j) {
    if (beta(j) > 0.0 && (largest < 0 || gradient(j) > gradient(largest))) largest = j;
  }
  return largest;
}

/// SMO (Platt's sequential minimal optimisation, as Girolami & He solve RSDE's eq. 13) from
/// `beta` (on the simplex): each step moves weight t from the kept kernel j of largest gradient
/// g = Bβ − v to the kernel i that lowers f most, the second-order choice of Fan, Chen & Lin
/// 2005 — i maximises (g_j − g_i)² / η_ij over g_i < g_j, η_ij = B_ii + B_jj − 2B_ij, and t =
/// min(β_j, (g_j − g_i) / η_ij) — so a weight reaches exactly 0. Stops when g_j − min_i g_i is at
/// most tolerance · max_i |v_i|, checked on a gradient recomputed from β (the updated one drifts
/// by rounding), or after max_iterations · N steps.
void iterate_smo(const MatrixView& b, const VectorView& v, const MnqpOptions& options, Vector& beta,
                 MnqpResult& result, bool record, Progress& progress) {
  const double enough = options.tolerance * std::max(v.cwiseAbs().maxCoeff(), 1e-300);
  const Vector diagonal = b.diagonal();
  Vector gradient = b * beta - v;
  if (record) result.objective_history.push_back(mnqp_objective(b, v, beta));
  const std::int64_t most = most_steps(options, beta.size());
  std::int64_t steps = 0;
  while (true) {
    Index j = largest_kept_gradient(gradient, beta);
    if (gradient(j) - gradient.minCoeff() <= enough) {
      gradient = b * beta - v;
      j = largest_kept_gradient(gradient, beta);
      if (gradient(j) - gradient.minCoeff() <= enough) {
        result.converged = true;
        break;
      }
    }
    if (steps == most) {
      result.converged = false;
      break;
    }
    Index i = -1;
    double best = 0.0;
    double descent = 0.0;    // g_j − g_i of the i chosen
    double curvature = 0.0;  // η_ij of the i chosen
    for (Index l = 0; l < beta.size(); ++l) {
      const double l_descent = gradient(j) - gradient(l);
      if (!(l_descent > 0.0)) continue;
      const double l_curvature = diagonal(l) + diagonal(j) - 2.0 * b(l, j);
      // Equal kernels (η = 0): f falls linearly along the move, so every weight goes.
      const double gain = l_curvature > 0.0 ? l_descent * l_descent / l_curvature : INFINITY;
      if (i < 0 || gain > best) {
        i = l;
        best = gain;
        descent = l_descent;
        curvature = l_curvature;
      }
      if (std::isinf(best)) break;
    }
    const double step = curvature > 0.0 ? std::min(beta(j), descent / curvature) : beta(j);
    beta(i) += step;
    beta(j) = step == beta(j) ? 0.0 : beta(j) - step;
    gradient += step * (b.col(i) - b.col(j));
    ++steps;
    ++result.iterations;
    progress.advance();
    if (record) result.objective_history.push_back(mnqp_objective(b, v, beta));
  }
  beta /= beta.sum();  // the moves keep the sum but for rounding
}

/// One pass of the chosen solver from `beta`.
void iterate_with(const MatrixView& b, const VectorView& v, const MnqpOptions& options,
                  Vector& beta, MnqpResult& result, bool record, Progress& progress) {
  if (options.solver == SimplexQpSolver::smo) {
    iterate_smo(b, v, options, beta, result, record, progress);
  } else {
    iterate(b, v, options, beta, result, record, progress);
  }
}

}  // namespace

std::string to_string(SimplexQpSolver solver) {
  return solver == SimplexQpSolver::smo ? "smo" : "mnqp";
}

double mnqp_objective(const MatrixView& b, const VectorView& v, const VectorView& beta) {
  return 0.5 * beta.dot(b * beta) - v.dot(beta);
}

MnqpResult solve_mnqp(const MatrixView& b, const VectorView& v, const MnqpOptions& options,
                      Progress& progress) {
  validate(b, v);
  if (options.max_iterations < 1) throw InvalidArgument("MNQP: max_iterations must be ≥ 1");
  if (!(options.tolerance >= 0.0) || !std::isfinite(options.tolerance)) {
    throw InvalidArgument("MNQP: the tolerance must be finite and non-negative");
  }
  if (!(options.prune_threshold >= 0.0 && options.prune_threshold < 1.0)) {
    throw InvalidArgument("MNQP: prune_threshold must lie in [0, 1)");
  }
  const Index n = v.size();
  const bool by_smo = options.solver == SimplexQpSolver::smo;
  MnqpResult result;
  // MNQP from β^[0] = 1/N_K (§III-B): a weight it sets to 0 stays 0. SMO from the kernel of
  // largest v (the lowest index of ties), which adds the few kernels a sparse solution keeps.
  Vector beta = Vector::Constant(n, 1.0 / static_cast<double>(n));
  if (by_smo) {
    Index densest = 0;
    v.maxCoeff(&densest);
    beta.setZero();
    beta(densest) = 1.0;
  }
  // The updates stop at the tolerance, so their count is not known ahead.
  progress.begin(std::string(by_smo ? "SMO steps" : "MNQP updates") + " (at most " +
                     std::to_string(most_steps(options, n)) + " a solve)",
                 0);
  iterate_with(b, v, options, beta, result, options.record_objective, progress);

  // Remove the kernels whose weights were driven to (near) zero, then re-solve the rest so that
  // the kept weights are optimal for the smaller model and still sum to one; repeat while a
  // re-solve drives further weights below the threshold.
  std::vector<Index> kept;
  while (true) {
    const double cut = options.prune_threshold * beta.maxCoeff();
    kept.clear();
    bool pruned = false;
    for (Index i = 0; i < n; ++i) {
      if (beta(i) > cut && beta(i) > 0.0) {
        kept.push_back(i);
      } else if (beta(i) > 0.0) {
        pruned = true;
      }
    }
    if (!pruned) break;
    const bool converged_before = result.converged;
    Vector sub = beta(kept);
    sub /= sub.sum();
    const Matrix sub_b = b(kept, kept);
    const Vector sub_v = v(kept);
    iterate_with(sub_b, sub_v, options, sub, result, false, progress);
    result.converged = result.converged && converged_before;
    beta.setZero();
    // An element loop: GCC 12 warns (-Wfree-nonheap-object, a false positive) on the indexed
    // assignment beta(kept) = sub in optimised builds.
    for (std::size_t k = 0; k < kept.size(); ++k) beta(kept[k]) = sub(static_cast<Index>(k));
  }
  progress.end();
  result.weights = beta;
  result.kept = kept;
  result.objective = mnqp_objective(b, v, beta);
  return result;
}

}  // namespace cdens
