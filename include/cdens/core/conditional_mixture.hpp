#pragma once
// The conditional mixture, the fitted shape of every conditional estimator (DESIGN.md):
//
//   p(y|x) = Σ_k w_k(x) N(y − A x; c_k, diag s_k²) / Σ_k w_k(x)
//
// on standardised x and y, where the trend A (d_y × d_x) is zero unless an estimator models y
// around a linear function of x (the linear-Gaussian baseline, KCDE on residuals), with densities
// reported in the user's units through the Jacobian of the output standardisation. Each query is
// written once here; estimators only supply the gate w_k(x) and the components (c_k, s_k).
//
// Edge of the data: weights are combined in log space (log-sum-exp), so a far-away x still gets
// the weights of its nearest components. Where every w_k(x) is exactly zero (an empty ε-ball,
// all LSCDE coefficients rounded to zero), p(y|x) is the gate's marginal mixture
// Σ_k m_k N(y; c_k, diag s_k²) / Σ_k m_k, never NaN.

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/density_region.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

class ConditionalMixture {
 public:
  /// `centers` and `scales` are d_y × K in standardised output units; scales must be positive.
  /// `trend` is A (d_y × d_x, standardised units), or empty for none.
  ConditionalMixture(Standardizer x_scaling, Standardizer y_scaling,
                     std::shared_ptr<const ConditionalGate> gate, Matrix centers, Matrix scales,
                     Matrix trend = Matrix());

  Index input_dim() const { return x_scaling_.dimension(); }
  Index output_dim() const { return y_scaling_.dimension(); }
  Index n_components() const { return centers_.cols(); }
  const ConditionalGate& gate() const { return *gate_; }
  /// The gate itself, for a model that wraps it (ProjectedGate, SelectedFeaturesGate).
  const std::shared_ptr<const ConditionalGate>& shared_gate() const { return gate_; }
  const Standardizer& x_scaling() const { return x_scaling_; }
  const Standardizer& y_scaling() const { return y_scaling_; }
  const Matrix& centers() const { return centers_; }
  const Matrix& scales() const { return scales_; }
  /// The trend A (d_y × d_x), or an empty matrix where there is none.
  const Matrix& trend() const { return trend_; }

  // Queries. Inputs and outputs are in the user's units, one sample per column.

  /// log p(y_j | x_j) for the pairs (x_j, y_j); x is d_x × m, y is d_y × m.
  Vector log_pdf(const MatrixView& x, const MatrixView& y) const;
  /// p(g | x_j) at every grid point g (columns of `y_grid`, d_y × G): a G × m matrix.
  Matrix pdf_grid(const MatrixView& x, const MatrixView& y_grid) const;
  /// Component probabilities π_k(x_j) = w_k(x_j) / Σ_l w_l(x_j): K × m.
  Matrix component_probabilities(const MatrixView& x) const;
  /// n draws from p(y | x_j) for each column j: d_y × (m·n), draws for x_j in columns j·n … .
  /// Column j uses its own random stream of `seed`, so the result ignores the thread count.
  Matrix sample(const MatrixView& x, Index n_per_input, std::uint64_t seed) const;
  /// E[y | x_j]: d_y × m.
  Matrix mean(const MatrixView& x) const;
  /// Cov[y | x_j], column-major d_y × d_y matrices stacked as (d_y·d_y) × m.
  Matrix covariance(const MatrixView& x) const;
  /// ∫ p(y | x_j)² dy, the first term of the SQ criterion: m values.
  Vector squared_norm(const MatrixView& x) const;

  // One-dimensional y only (InvalidArgument otherwise).

  /// P(Y ≤ y_j | x_j) for the pairs (x_j, y_j); y is 1 × m.
  Vector cdf(const MatrixView& x, const MatrixView& y) const;
  /// Quantiles: row r holds the probabilities[r]-quantile of y | x_j; probabilities in (0, 1).
  Matrix quantiles(const MatrixView& x, const std::vector<double>& probabilities) const;
  /// Smallest sets of probability `coverage` ∈ (0, 1), one per column of x.
  std::vector<HighestDensityRegion> highest_density_regions(const MatrixView& x,
                                                            double coverage) const;
  /// P(p(Y | x_j) ≥ p(y_j | x_j)) for Y ~ p(·|x_j): the probability of the smallest
  /// highest-density region that holds y_j (uniform on (0, 1) for a calibrated model); y is 1 × m.
  Vector highest_density_probability(const MatrixView& x, const MatrixView& y) const;

  /// A z(x), the trend's shift of every component mean in standardised output units for inputs
  /// x in the user's units (d_y × m); zeros, without transforming x, where there is no trend.
  Matrix trend_at(const MatrixView& x) const;

  nlohmann::json to_json() const;
  static ConditionalMixture from_json(const nlohmann::json& document, const GateReader& read_gate);

 private:
  Matrix standardized_outputs(const MatrixView& y, Index expected_samples) const;
  /// N(t_g; c_k, diag s_k²) for the standardised outputs t (columns): G × K.
  Matrix component_densities_at(const MatrixView& t) const;
  /// Turns log w_k(x) into log π_k(x) in place (Σ π = 1), or into the marginal log-weights where
  /// every w_k(x) is zero.
  void normalize_log_weights(Eigen::Ref<Vector> log_weights) const;
  /// π for standardised inputs (K × m), with the marginal fallback.
  void probabilities_of(const MatrixView& z, Eigen::Ref<Matrix> out) const;
  void require_scalar_output(const char* query) const;

  Standardizer x_scaling_;
  Standardizer y_scaling_;
  std::shared_ptr<const ConditionalGate> gate_;
  Matrix centers_;
  Matrix scales_;
  Matrix trend_;
  Vector log_marginal_;         ///< normalised log m_k
  Vector component_log_norms_;  ///< −Σ_d log s_kd − (d_y/2) log 2π
};

}  // namespace cdens
