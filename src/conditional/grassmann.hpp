#pragma once
// Optimisation on the Grassmann manifold G(d_z, d_x) of d_z-dimensional subspaces of R^{d_x},
// each represented by a d_z × d_x matrix W with orthonormal rows (WWᵀ = I). The steepest-descent
// step of LSCE (Tangkaratt, Xie & Sugiyama, §2.5) and LSMI (Suzuki & Sugiyama 2013) after
// Edelman, Arias & Smith (1998): the natural gradient under the canonical metric
//
//   ∇f = ∂f/∂W − (∂f/∂W) WᵀW = (∂f/∂W) W⊥ᵀW⊥,
//
// and the geodesic in its direction
//
//   W_t = [I_{d_z} O] exp(−t [[O, (∂f/∂W) W⊥ᵀ], [−W⊥ (∂f/∂W)ᵀ, O]]) [W; W⊥],
//
// with W⊥ a (d_x − d_z) × d_x matrix completing W to an orthogonal matrix. The generator is
// skew-symmetric, so exp(·) is orthogonal and every W_t has orthonormal rows.

#include <functional>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// A uniformly random point of G(rows, cols): the orthonormalised rows of a Gaussian matrix.
/// Needs 1 ≤ rows ≤ cols.
Matrix random_orthonormal_rows(Index rows, Index cols, Rng& rng);

/// W⊥, (d_x − d_z) × d_x, such that [Wᵀ, W⊥ᵀ] is orthogonal (W must have orthonormal rows).
Matrix orthonormal_complement(const Matrix& w);

/// The natural gradient ∇f = G − G WᵀW of a Euclidean gradient G = ∂f/∂W at W (§2.5).
Matrix natural_gradient(const Matrix& w, const Matrix& euclidean_gradient);

/// The geodesic from W in the direction of steepest descent of f, W_t for t ≥ 0 (§2.5). Its
/// derivative at t = 0 is −∇f.
class GrassmannGeodesic {
 public:
  /// `euclidean_gradient` is ∂f/∂W at W (d_z × d_x); W must have orthonormal rows.
  GrassmannGeodesic(const Matrix& w, const Matrix& euclidean_gradient);

  /// W_t (matrix exponential of Eigen's MatrixFunctions module).
  Matrix at(double t) const;
  /// d f(W_t) / dt at t = 0: −‖(∂f/∂W) W⊥ᵀ‖²_F, the first-order decrease per unit of t.
  double slope() const { return slope_; }
  /// ‖(∂f/∂W) W⊥ᵀ‖₂, the angular speed of the fastest-turning direction of the subspace.
  double speed() const { return speed_; }

 private:
  Index rows_;
  Matrix frame_;      ///< [W; W⊥], d_x × d_x orthogonal
  Matrix generator_;  ///< [[O, G W⊥ᵀ], [−W⊥ Gᵀ, O]], skew-symmetric
  double slope_;
  double speed_;
};

/// The outcome of a line search along a geodesic.
struct GeodesicStep {
  Matrix w;      ///< the accepted point (W itself when no step decreased f)
  double value;  ///< f there
  double t;      ///< the accepted step, 0 when none
  int evaluations;
};

/// Searches { W_t | t ≥ 0 } for a smaller f (§2.5: "line search along the geodesic"): from
/// t = `initial_t` the step is halved until f(W_t) ≤ f(W) + 10⁻⁴ t · slope (Armijo), or, when
/// the first step already satisfies it, doubled while f keeps falling; the best point is kept.
/// Gives up (t = 0) after 30 halvings.
GeodesicStep geodesic_line_search(const GrassmannGeodesic& geodesic, double value_at_start,
                                  double initial_t,
                                  const std::function<double(const Matrix&)>& objective);

}  // namespace cdens
