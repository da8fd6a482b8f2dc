#pragma once
// The stage-by-stage construction of GSKD (Chen, Hong & Harris 2010, §III-A): OFR-LOO on a
// target with one RWBS search per stage (eqs. 30–37), the MNQP weights (eq. 39) and the mixture
// they give. Shared by fit_gskd (either stopping rule) and the held-out choice of the stage
// count (gskd_holdout.cpp).

#include <vector>

#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/types.hpp"
#include "density/mnqp.hpp"
#include "density/ofr.hpp"
#include "density/rwbs.hpp"

namespace cdens {

/// The search box of §III-A on standardised samples z: centres within the data's range,
/// variances within [variance_lower · γ²_Parz, variance_upper · s_i²] (s_i the sample standard
/// deviation of dimension i; weighted by the sample weights, one per column of z, where there are
/// any), the lower bound at most half the upper.
struct GskdBox {
  Vector lower;
  Vector upper;
};
GskdBox gskd_box(const MatrixView& z, double target_width, double variance_lower,
                 double variance_upper, const Vector& weights = {});

/// φ_k = N(z_k; c, diag γ²) for u = (c, γ²) (eq. 4): one candidate model column, written to
/// `column` (N values).
void gskd_kernel_column(const MatrixView& z, const VectorView& u, Eigen::Ref<Vector> column);

/// What one stage found: the kernel u = (c, γ²) of smallest LOO MSE J (eq. 37) RWBS reached,
/// that J (+∞ when the LOO criterion refuses the column), and whether the kernel was added.
struct GskdStage {
  Vector kernel;
  double loo_mse;
  bool added;
};

/// OFR-LOO on the target t_k at the samples z (the Parzen estimate p̂_Parz(z_k), eq. 23, in
/// fit_gskd), one kernel per stage. With sample weights (one per column of z; empty: none) the
/// regression's rows are scaled by weighted_row_scales, so the LOO MSE J leaves a sample out with
/// all its weight.
class GskdConstruction {
 public:
  GskdConstruction(const MatrixView& z, Vector target, GskdBox box, RwbsOptions rwbs,
                   double regularization, int threads, const Vector& weights = {});

  /// Stage n: RWBS (stream n of the seed) searches the box for the kernel of smallest J_n; it is
  /// added unless eq. (38) refuses it (J_n ≥ J_{n−1}, not for the first kernel) or J_n is not
  /// finite. Throws DataError when not even a first kernel is admissible.
  GskdStage add_stage();

  const std::vector<Vector>& kernels() const { return kernels_; }
  /// The target t as given (not scaled by the weights).
  const Vector& target() const { return target_; }
  double loo_mse() const { return model_.loo_mse(); }
  /// The least-squares weights β of the kernels added (eq. 25), before MNQP.
  Vector least_squares_weights() const { return model_.weights(); }
  Index evaluations() const { return evaluations_; }

 private:
  /// Candidate column φ_k (N values) at u, its rows scaled as the regression's.
  void column(const VectorView& u, Eigen::Ref<Vector> values) const;

  Matrix z_;
  Vector target_;
  Vector row_scales_;  ///< weighted_row_scales of the weights; empty: none
  GskdBox box_;
  RwbsOptions rwbs_;
  OfrLoo model_;
  int threads_;
  std::vector<Vector> kernels_;  ///< u_n = (c_n, γ_n²) of every kernel added
  Index evaluations_ = 0;
};

/// The weights of eq. (39) by MNQP over `kernels` on the samples z: B = ΦᵀΦ, v = Φᵀt; with
/// sample weights c (empty: none) B = ΦᵀCΦ, v = ΦᵀCt, c scaled to a mean of 1.
MnqpResult gskd_weights(const MatrixView& z, const Vector& target,
                        const std::vector<Vector>& kernels, const MnqpOptions& options,
                        const Vector& weights = {});

/// The mixture of the kernels MNQP kept, with their weights, on `scaling`.
GaussianMixture gskd_mixture(Standardizer scaling, const std::vector<Vector>& kernels,
                             const MnqpResult& weights);

}  // namespace cdens
