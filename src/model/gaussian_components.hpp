#pragma once
// The Gaussian components of a conditional mixture (conditional_mixture.hpp): one part of its
// output side, beside the discrete output kernels and the trend groups. On every output dimension
// d without a discrete kernel, component k has the factor N(e_d; c_kd, s_kd²) of the residual e in
// standardised units (the group's map from y to e is the trend groups'). This part owns what that
// needs: its checks (the table of centres and scales: shape, finite centres, finite positive
// scales) and its share of every query (the log-densities, moments, overlaps and draws of those
// factors). The table itself is the model file's "centers" and "scales", every row: a discrete
// output's row holds its levels and λ (discrete_outputs.hpp).

#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

class GaussianComponents {
 public:
  /// InvalidArgument where the table of centres and scales (d_y × K, every row: a discrete
  /// output's row holds its levels and λ, which that part reads) differ in shape, K is 0, a centre
  /// is not finite or a scale not finite and positive. MixtureOutputs::gaussian calls it.
  static void require_table(const Matrix& centers, const Matrix& scales);
  /// The Gaussian rows `rows` (increasing) of a table that passed require_table.
  GaussianComponents(const Matrix& centers, const Matrix& scales, std::vector<Index> rows);

  /// The Gaussian output dimensions and their rows of the centres and scales (|rows| × K).
  const std::vector<Index>& rows() const { return rows_; }
  const Matrix& centers() const { return centers_; }
  const Matrix& scales() const { return scales_; }
  /// log of component k's normaliser: −Σ_d log s_kd − (|rows|/2) log 2π.
  double log_norm(Index k) const { return log_norms_(k); }
  /// ‖(e − c_k) / s_k‖² for e, the Gaussian outputs of one point.
  double squared_distance(Index k, const Vector& e) const;
  /// The same for every column of e: one value per point.
  Eigen::ArrayXd squared_distances(Index k, const Matrix& e) const;
  /// Whether components 0 … count − 1 have the scales of component 0.
  bool same_scales(Index count) const;

  /// Writes each component's mean c_kd and variance s_kd² into the Gaussian rows of `means` and
  /// `variances` (d_y × K).
  void set_moments(Matrix& means, Matrix& variances) const;
  /// Multiplies overlap(k, l) by ∫ N(e; c_k, diag s_k²) N(e; c_l, diag s_l²) de =
  /// N(c_k; c_l, diag(s_k² + s_l²)) over the Gaussian rows.
  void multiply_overlaps(Matrix& overlap) const;
  /// A draw of output dimension d (a Gaussian row) of component k in e: c_kd + s_kd ε.
  double draw(Index d, Index k, Rng& rng) const;

 private:
  std::vector<Index> rows_;
  Matrix centers_;
  Matrix scales_;
  std::vector<Index> position_of_;  ///< each output dimension's row here, −1 for a discrete one
  Vector log_norms_;
};

}  // namespace cdens::detail
