#pragma once
// Gates of the kernel conditional density estimators ε-KDE, NW-CDE and RKDE. All three keep the
// training pairs (u_k, v_k) (standardised) as they are and estimate
//
//   p̂(y|x) = Σ_k w_k(x) N(y; v_k, σ² I) / Σ_k w_k(x),
//
// with a weight that depends only on the distance from x to the training input u_k:
//
//   ε-KDE (LSCDE paper §3.1, SA-CDE eq. 23):  w_k(x) = 1 if ‖x − u_k‖ ≤ ε, else 0;
//   NW-CDE (SA-CDE eq. 25) and RKDE (LSCDE paper §3.4): w_k(x) = exp(−‖x − u_k‖² / 2σ²).
//
// Where every weight is zero (an empty ε-ball) the mixture falls back to equal weights: the
// kernel density estimate of y over all training outputs (see docs/methods/ekde.md).

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

/// A gate whose weights are a function of ‖x − u_k‖² and one width parameter, for stored
/// (standardised) training inputs u_k. Its marginal weights are equal.
class DistanceGate : public ConditionalGate {
 public:
  Index input_dim() const override { return centers_x_.rows(); }
  Index n_components() const override { return centers_x_.cols(); }
  /// Equal weights: the fallback where every w_k(x) is zero is the mixture of all components.
  Vector log_marginal_weights() const override;
  /// {"centers_x": u (d_x × K), <width name>: width}.
  nlohmann::json to_json() const override;

  /// The stored training inputs u_k, d_x × K.
  const Matrix& centers_x() const { return centers_x_; }

 protected:
  /// `centers_x` is d_x × K with K ≥ 1; `width` must be finite and positive.
  DistanceGate(Matrix centers_x, double width, std::string width_name);
  /// ‖x_j − u_k‖² for standardised inputs x (d_x × m), as a K × m matrix (one GEMM).
  void squared_distances_to(const MatrixView& x, Eigen::Ref<Matrix> out) const;
  double width() const { return width_; }

  /// The centres and width stored by to_json(); ModelFormatError if either is missing or not
  /// a number.
  struct Parameters {
    Matrix centers_x;
    double width;
  };
  static Parameters read_parameters(const nlohmann::json& document, const std::string& width_name);

 private:
  Matrix centers_x_;
  double width_;
  std::string width_name_;
};

/// ε-KDE's gate: w_k(x) = 1 inside the ball ‖x − u_k‖ ≤ ε, 0 outside (LSCDE paper §3.1).
class EpsilonBallGate final : public DistanceGate {
 public:
  /// `centers_x` holds the standardised training inputs u_k (d_x × K); ε > 0 is the radius.
  EpsilonBallGate(Matrix centers_x, double epsilon);

  std::string kind() const override { return "epsilon_ball"; }
  /// 0 where ‖x − u_k‖² ≤ ε², −∞ elsewhere.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// An input farther than ε from every centre has no weight at all.
  bool weights_can_all_vanish() const override { return true; }
  /// The gate written by to_json(); ModelFormatError if a field is missing or malformed.
  static std::shared_ptr<const EpsilonBallGate> from_json(const nlohmann::json& document);

  /// The radius ε of the ball, in standardised input units.
  double epsilon() const { return width(); }
};

/// The Nadaraya–Watson gate of NW-CDE (SA-CDE eq. 25) and RKDE (LSCDE paper §3.4):
/// w_k(x) = exp(−‖x − u_k‖² / 2σ²).
class GaussianKernelGate final : public DistanceGate {
 public:
  /// `centers_x` holds the kernel centres u_k (d_x × K, standardised); σ > 0 is the width.
  GaussianKernelGate(Matrix centers_x, double sigma);

  std::string kind() const override { return "gaussian_kernel"; }
  /// −‖x − u_k‖² / 2σ².
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// The gate written by to_json(); ModelFormatError if a field is missing or malformed.
  static std::shared_ptr<const GaussianKernelGate> from_json(const nlohmann::json& document);

  /// The kernel width σ, in standardised input units.
  double sigma() const { return width(); }
  std::optional<GaussianKernelCenters> gaussian_kernel() const override {
    return GaussianKernelCenters{&centers_x(), Vector::Constant(input_dim(), 1.0 / width()),
                                 nullptr, 0.0, 0.0};
  }
};

/// The kernel estimate p̂(y|x) = Σ_k w_k(x) N(y; v_k, σ² I) / Σ_k w_k(x) with the weights of
/// `gate` and components at the standardised training outputs v_k (`centers_y`, d_y × K), all
/// of width σ = `sigma` (standardised output units).
ConditionalMixture make_output_kernel_mixture(const Standardizer& x_scaling,
                                              const Standardizer& y_scaling,
                                              std::shared_ptr<const ConditionalGate> gate,
                                              Matrix centers_y, double sigma);

}  // namespace cdens
