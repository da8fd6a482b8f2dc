#pragma once
// The stage-by-stage construction of GSKD (Chen, Hong & Harris 2010, §III-A): OFR-LOO on the
// Parzen target with one RWBS search per stage (eqs. 30–37), shared by the paper's stopping
// rule (eq. 38, fit_gskd) and the held-out choice of the stage count (gskd_holdout.cpp).

#include <vector>

#include "cdens/core/types.hpp"
#include "cdens/density/mnqp.hpp"
#include "cdens/density/ofr.hpp"
#include "cdens/density/rwbs.hpp"

namespace cdens {

/// The search box of §III-A on standardised samples z: centres within the data's range,
/// variances within [variance_lower · γ²_Parz, variance_upper · s_i²] (s_i the sample standard
/// deviation of dimension i), the lower bound at most half the upper.
struct GskdBox {
  Vector lower;
  Vector upper;
};
GskdBox gskd_box(const MatrixView& z, double target_width, double variance_lower,
                 double variance_upper);

/// φ_k = N(z_k; c, diag γ²) for u = (c, γ²) (eq. 4): one candidate model column.
Vector gskd_kernel_column(const MatrixView& z, const VectorView& u);

/// OFR-LOO on the Parzen target t_k = p̂_Parz(z_k; γ_Parz) (eq. 23) of the samples z, one kernel
/// per stage.
class GskdConstruction {
 public:
  GskdConstruction(const MatrixView& z, double target_width, GskdBox box, RwbsOptions rwbs,
                   double regularization, int threads);

  /// Stage n: RWBS (stream n of the seed) finds the kernel u_n of smallest LOO MSE J_n
  /// (eq. 37); it is added unless eq. (38) refuses it (J_n ≥ J_{n−1}, not for the first
  /// kernel) or no admissible kernel exists. Returns whether it was added.
  bool add_stage();

  const std::vector<Vector>& kernels() const { return kernels_; }
  const Vector& target() const { return model_.target(); }
  double loo_mse() const { return model_.loo_mse(); }
  Index evaluations() const { return evaluations_; }

 private:
  Matrix z_;
  GskdBox box_;
  RwbsOptions rwbs_;
  OfrLoo model_;
  int threads_;
  std::vector<Vector> kernels_;  ///< u_n = (c_n, γ_n²) of every kernel added
  Index evaluations_ = 0;
};

/// The weights of eq. (39) by MNQP over the first `count` kernels: B = ΦᵀΦ, v = Φᵀt.
MnqpResult gskd_weights(const MatrixView& z, const Vector& target,
                        const std::vector<Vector>& kernels, Index count,
                        const MnqpOptions& options);

}  // namespace cdens
