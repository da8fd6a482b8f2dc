#pragma once
// Repeated weighted boosting search (RWBS; Chen, Wang & Harris 2005), the global optimiser that
// GSKD uses to place and shape each kernel (Chen, Hong & Harris 2010, Appendix). See
// docs/methods/rwbs.md.

#include <cstdint>
#include <functional>

#include "cdens/core/types.hpp"
#include "cdens/density/gskd.hpp"

namespace cdens {

/// The best point found and its cost.
struct RwbsResult {
  Vector point;
  double value = 0.0;
  /// Cost evaluations made: N_G (P_S + 2 M_I) − (N_G − 1) (§III-C).
  Index evaluations = 0;
};

/// Minimises `cost` over the box lower ≤ u ≤ upper (per coordinate) by RWBS (Appendix):
/// each generation starts from the previous best (elitism) and P_S − 1 uniform random points;
/// each WBS iteration weights the members by boosting (δ_i), forms the convex combination
/// u_{P_S+1} = Σ δ_i u_i and its mirror u_{P_S+2} = 2 u_best − u_{P_S+1} (clamped to the box),
/// and replaces the worst member by the better of the two. Costs are normalised by their sum,
/// so they must be non-negative (as the LOO MSE is); a negative or non-finite cost is an
/// InvalidArgument. Deterministic for a given seed.
RwbsResult rwbs_minimize(const std::function<double(const Vector&)>& cost, const Vector& lower,
                         const Vector& upper, const RwbsOptions& options = {});

/// The costs of several points at once: column j of `points` is a point, entry j of the result
/// its cost. A batch is the initial population of a generation (P_S or P_S − 1 points) or the
/// two new points of a WBS iteration, so the caller can evaluate its members in parallel.
using RwbsBatchCost = std::function<Vector(const Matrix& points)>;

/// rwbs_minimize with the cost evaluated in batches: the same points, the same result.
RwbsResult rwbs_minimize_batches(const RwbsBatchCost& cost, const Vector& lower,
                                 const Vector& upper, const RwbsOptions& options = {});

}  // namespace cdens
