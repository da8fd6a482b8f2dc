#include "density/mnqp.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

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
  MnqpResult result;
  Vector beta = Vector::Constant(n, 1.0 / static_cast<double>(n));  // β^[0] = 1/N_K (§III-B)
  // The updates stop at the tolerance, so their count is not known ahead.
  progress.begin("MNQP updates (at most " + std::to_string(options.max_iterations) + " a solve)",
                 0);
  iterate(b, v, options, beta, result, options.record_objective, progress);

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
    iterate(sub_b, sub_v, options, sub, result, false, progress);
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
