#pragma once
// Multiplicative non-negative quadratic programming (MNQP) on the simplex: the weight solver of
// RSDE, SKD and GSKD (Chen, Hong & Harris 2010, §III-B, eqs. 39–44, after Sha, Saul & Lee 2002
// and Girolami & He 2003), and SMO for the same problem (RSDE's default: Girolami & He's own
// solver). See docs/methods/mnqp.md.
//
//   minimise  f(β) = ½ βᵀ B β − vᵀ β   subject to  β_i ≥ 0,  Σ_i β_i = 1,        (39)
//
// for a symmetric B with non-negative entries and a positive diagonal (a Gram matrix of Gaussian
// kernels, eq. 14, or ΦᵀΦ, eq. 39).

#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/rsde.hpp"

namespace cdens {

/// The solution of (39) and how it was reached.
struct MnqpResult {
  Vector weights;           ///< β, same length as v; removed weights are exactly 0
  std::vector<Index> kept;  ///< indices i with β_i > 0, increasing
  double objective = 0.0;   ///< f(β)
  int iterations = 0;       ///< updates (MNQP) or steps (SMO) made, every pass
  bool converged = false;   ///< tolerance reached before max_iterations (both passes)
  /// f(β^[0]), f(β^[1]), … of the first pass when options.record_objective.
  std::vector<double> objective_history;
};

/// f(β) = ½ βᵀ B β − vᵀ β.
double mnqp_objective(const MatrixView& b, const VectorView& v, const VectorView& beta);

/// Solves (39) by options.solver: SMO (iterate_smo in mnqp.cpp: pairwise moves of weight from
/// the kernel of largest v) or, as below, MNQP from β^[0] = 1/N (§III-B) by the update (42)–(44):
///
///   c_i = β_i / (Bβ)_i,   h = (1 − Σ c_i v_i) / Σ c_i,   β_i ← c_i (v_i + h).
///
/// Each update minimises the auxiliary function of eq. (40) — a separable quadratic that bounds
/// f from above and touches it at the current β — so f never increases. Where (44) would give a
/// negative weight, the auxiliary function is minimised over the simplex instead: β_i ←
/// c_i max(0, v_i + h) with h chosen so that the weights sum to one (the KKT solution of the
/// separable problem); this coincides with (43)–(44) whenever all v_i + h > 0, and a weight set
/// to zero stays zero (its kernel is removed). Throws InvalidArgument for a B that is not
/// square and symmetric with non-negative finite entries and a positive diagonal, or a v of the
/// wrong length or not finite. Either solver then prunes and re-solves as MnqpOptions says. Every
/// update is a step of `progress`.
MnqpResult solve_mnqp(const MatrixView& b, const VectorView& v, const MnqpOptions& options = {},
                      Progress& progress = silent_progress());

}  // namespace cdens
