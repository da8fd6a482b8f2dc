#pragma once
// The Gaussian basis of LSCDE (Sugiyama et al. 2010, eq. 9), shared by LSCDE, SA-LSCDE and LSCE:
//
//   φ_l(x, y) = exp(−‖x − u_l‖² / 2σ²) · exp(−‖y − v_l‖² / 2σ²),   l = 1 … b,
//
// with centres w_l = (u_l, v_l) taken from the training pairs and one width σ on standardised
// data.

#include "cdens/core/types.hpp"

namespace cdens {

struct LscdeBasis {
  Matrix centers_x;  ///< u_l, d_x × b
  Matrix centers_y;  ///< v_l, d_y × b
  double sigma;      ///< common width σ

  Index size() const { return centers_x.cols(); }
};

/// −‖p_i − c_l‖² / 2σ² for points p_i and centres c_l (the log of one factor of φ_l): m × b.
Matrix log_basis_factors(const MatrixView& points, const MatrixView& centers, double sigma);

/// Basis values below e^kBasisLogCutoff ≈ 1e−148 are set to zero (exp_flushing_below): smaller
/// ones would make products in the GEMMs subnormal, and subnormal arithmetic is about a hundred
/// times slower; a dropped term changes a sum of n products by less than n·1e−295.
inline constexpr double kBasisLogCutoff = -340.0;

/// K_v,ll' = exp(−‖v_l − v_l'‖² / 4σ²), the y-overlap of two basis functions (b × b).
Matrix output_overlap(const LscdeBasis& basis);

}  // namespace cdens
