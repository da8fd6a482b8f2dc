#pragma once
// Where a conditional mixture's outputs sit and how wide they spread as x moves: the location-
// scale map
//
//   t = μ(z) + f(z) ⊙ e,   e | x ~ Σ_k π_k(x) N(c_k, diag s_k²),
//
// on standardised inputs z and outputs t, so p(t | x) = p(e | x) / Π_d f_d(z) with
// e = (t − μ(z)) / f(z). The mixture's components describe the residual e; the trend moves and
// widens them with x. Two trends:
//
// - LinearTrend: μ(z) = a + A z and f(z) = exp(Γ z) (clamped), the linear-Gaussian baseline with
//   its log-linear spread (docs/methods/linear.md) and KCDE's kernels around a line
//   (docs/methods/kcde.md);
// - GaussianProcessTrend: μ(z) = a + A z + Σ_l β_l k(z, u_l), a Gaussian-process posterior mean
//   with one length scale per input on a basis of centres u_l, and f(z) its predictive standard
//   deviation, so the residuals' kernels widen where the trend is uncertain (far from the data)
//   and narrow where it is well determined (docs/methods/kcde.md, "Kernels around a smooth
//   trend").

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

class OutputTrend {
 public:
  virtual ~OutputTrend() = default;

  /// Name stored in model files ("linear", "gaussian_process").
  virtual std::string kind() const = 0;
  virtual Index input_dim() const = 0;
  virtual Index output_dim() const = 0;
  /// μ(z) for standardised inputs z (d_x × m): d_y × m, standardised output units.
  virtual Matrix location(const MatrixView& z) const = 0;
  /// Whether f(z) differs from 1 anywhere.
  virtual bool has_scale() const = 0;
  /// f(z) > 0 for standardised inputs z: d_y × m (ones without a scale).
  virtual Matrix scale(const MatrixView& z) const = 0;
  /// The parameters for the model file, with the kind.
  virtual nlohmann::json to_json() const = 0;
};

/// μ(z) = a + A z, f(z) = exp(Γ z) with the exponent clamped to ±kLogScaleLimit so that no query
/// overflows far outside the data.
class LinearTrend final : public OutputTrend {
 public:
  /// a (d_y), A (d_y × d_x) and Γ (d_y × d_x, or empty for f = 1); all finite.
  LinearTrend(Vector intercept, Matrix slopes, Matrix log_scale_slopes = Matrix());

  /// The largest |Γ_d z|: scale factors stay within e^±30.
  static constexpr double kLogScaleLimit = 30.0;

  std::string kind() const override { return "linear"; }
  Index input_dim() const override { return slopes_.cols(); }
  Index output_dim() const override { return slopes_.rows(); }
  Matrix location(const MatrixView& z) const override;
  bool has_scale() const override { return log_scale_slopes_.size() > 0; }
  Matrix scale(const MatrixView& z) const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const LinearTrend> from_json(const nlohmann::json& document);

  const Vector& intercept() const { return intercept_; }
  const Matrix& slopes() const { return slopes_; }
  /// Γ, or an empty matrix.
  const Matrix& log_scale_slopes() const { return log_scale_slopes_; }

 private:
  Vector intercept_;
  Matrix slopes_;
  Matrix log_scale_slopes_;
};

/// One output's Gaussian process on a basis of centres u_l (standardised inputs, shared by the
/// outputs): the kernel k(z, u) = σ_f² exp(−½ Σ_j (z_j − u_j)² / ℓ_j²) and noise variance σ_n².
struct GaussianProcessOutput {
  double intercept = 0.0;        ///< a
  Vector slopes;                 ///< A's row (d_x)
  Vector length_scales;          ///< ℓ (d_x)
  double signal_variance = 1.0;  ///< σ_f²
  double noise_variance = 1.0;   ///< σ_n²
  Vector weights;                ///< β (one per centre): μ(z) = a + Aᵀz + Σ_l β_l k(z, u_l)
  /// R (centres × r): the posterior variance of the process is σ_f² − ‖Rᵀ k(z, U)‖², so that
  /// f(z)² = σ_n² + σ_f² − ‖Rᵀ k(z, U)‖² (never below σ_n²).
  Matrix variance_factor;
};

/// μ(z) and f(z) of independent Gaussian processes, one per output, around a line.
class GaussianProcessTrend final : public OutputTrend {
 public:
  /// `centers` is d_x × m; every output's vectors match it. InvalidArgument otherwise.
  GaussianProcessTrend(Matrix centers, std::vector<GaussianProcessOutput> outputs);

  std::string kind() const override { return "gaussian_process"; }
  Index input_dim() const override { return centers_.rows(); }
  Index output_dim() const override { return static_cast<Index>(outputs_.size()); }
  Matrix location(const MatrixView& z) const override;
  bool has_scale() const override { return true; }
  Matrix scale(const MatrixView& z) const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const GaussianProcessTrend> from_json(const nlohmann::json& document);

  const Matrix& centers() const { return centers_; }
  const std::vector<GaussianProcessOutput>& outputs() const { return outputs_; }
  /// k(z_j, u_l) of output d: m × (number of centres).
  Matrix kernel_values(Index output, const MatrixView& z) const;

 private:
  Matrix centers_;
  std::vector<GaussianProcessOutput> outputs_;
};

/// The trend of a model fitted on some input features only, as a trend of all of them: μ(z) and
/// f(z) of `inner` at the rows `features` of z (forward selection, SA-LSCDE, constant inputs).
class SelectedFeaturesTrend final : public OutputTrend {
 public:
  /// `features`: distinct indices into the `input_dim` inputs, as many as `inner` takes.
  SelectedFeaturesTrend(Index input_dim, std::vector<Index> features,
                        std::shared_ptr<const OutputTrend> inner);

  std::string kind() const override { return "selected_features"; }
  Index input_dim() const override { return input_dim_; }
  Index output_dim() const override { return inner_->output_dim(); }
  Matrix location(const MatrixView& z) const override;
  bool has_scale() const override { return inner_->has_scale(); }
  Matrix scale(const MatrixView& z) const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const SelectedFeaturesTrend> from_json(const nlohmann::json& document);

 private:
  Index input_dim_;
  std::vector<Index> features_;
  std::shared_ptr<const OutputTrend> inner_;
};

/// The trend of one member of a linear pool whose members standardise otherwise than each other
/// (pooled_gate.hpp), in the pool's units: the member's own trend (or none) at its own
/// standardised inputs z_c = (z − m_x) / s_x of the pool's inputs z (the raw x there), moved from
/// the member's standardised outputs t_c = (y − m_c) / s_c to the pool's t = (y − m_p) / s_p:
///
///   μ(z) = (m_c − m_p) / s_p + (s_c / s_p) μ_c(z_c),   f(z) = (s_c / s_p) f_c(z_c),
///
/// so that the member's components, which describe its residual e, are the pool's as they are.
class PoolMemberTrend final : public OutputTrend {
 public:
  /// `inner`: the member's trend (null: μ_c = 0, f_c = 1) on `input_dim` inputs;
  /// `input_scaling`: the member's input standardisation (none: the pool's inputs are its own);
  /// `output_scaling` and `pool_output_scaling`: the member's and the pool's (none: the same).
  PoolMemberTrend(Index input_dim, Index output_dim, std::shared_ptr<const OutputTrend> inner,
                  std::optional<Standardizer> input_scaling,
                  std::optional<Standardizer> output_scaling,
                  std::optional<Standardizer> pool_output_scaling);

  std::string kind() const override { return "pool_member"; }
  Index input_dim() const override { return input_dim_; }
  Index output_dim() const override { return output_dim_; }
  Matrix location(const MatrixView& z) const override;
  bool has_scale() const override {
    return (inner_ && inner_->has_scale()) || output_scaling_.has_value();
  }
  Matrix scale(const MatrixView& z) const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const PoolMemberTrend> from_json(const nlohmann::json& document);

  /// The member's own trend (null: none), input and output standardisations (none: the pool's).
  const std::shared_ptr<const OutputTrend>& inner() const { return inner_; }
  const std::optional<Standardizer>& input_scaling() const { return input_scaling_; }
  const std::optional<Standardizer>& output_scaling() const { return output_scaling_; }

 private:
  /// The member's standardised inputs z_c of the pool's z.
  Matrix member_inputs(const MatrixView& z) const;

  Index input_dim_;
  Index output_dim_;
  std::shared_ptr<const OutputTrend> inner_;
  std::optional<Standardizer> input_scaling_;
  std::optional<Standardizer> output_scaling_;
  std::optional<Standardizer> pool_output_scaling_;
  Vector shift_;   ///< (m_c − m_p) / s_p, where the member has its own output standardisation
  Vector factor_;  ///< s_c / s_p, likewise
};

/// The trend of a model file's "output_trend" member; ModelFormatError for an unknown kind or bad
/// parameters.
std::shared_ptr<const OutputTrend> output_trend_from_json(const nlohmann::json& document);

}  // namespace cdens
