#pragma once
// The diagonal Gaussian mixture, the fitted shape of every unconditional estimator (docs/design.md;
// Chen, Hong & Harris 2010, eqs. 1–4):
//
//   p(z) = Σ_l β_l N(z; c_l, diag γ_l²),   β_l ≥ 0,  Σ_l β_l = 1,
//
// on standardised data z = (x − mean) / scale, with densities reported in the user's units
// through the Jacobian of the standardisation: log p_user(x) = log p(z(x)) − Σ_d log scale_d.
// Parzen window (β_l = 1/N, c_l = x_l, one width), GMM, RSDE, SKD and GSKD all produce this;
// each query is written once here.
//
// Far from every centre the log-density is a log-sum-exp of finite log-terms, so it stays finite
// (a large negative number) instead of underflowing to −∞.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// How GaussianMixture::log_pdf sums the kernels of a mixture whose components share their widths
/// (a Parzen window): the accuracy asked for, and the algorithm the query took.
struct DensityQuery {
  /// Every log-density is within this of the exact one (the kernel-sum engine's tolerance,
  /// docs/methods/kernel_sums.md); 0 asks for exact sums.
  double log_tolerance = 1e-6;
  /// Set by the query: "exact", "tree", "binned" or "gauss_transform" (the engine's path), or
  /// "components" for a
  /// mixture whose widths differ, which is summed component by component.
  std::string path;
};

class GaussianMixture {
 public:
  /// `weights` (K) are β_l: finite, non-negative, at least one positive, summing to 1 within
  /// 1e−9 (they are used as given, not renormalised, so a saved model reloads bit for bit).
  /// `centers` c_l and `scales` γ_l (the components' standard deviations, the kernel widths of
  /// a kernel estimate) are d × K in standardised units; scales finite and positive. `x_scaling`
  /// maps the user's units to the standardised ones. Throws InvalidArgument. The accessors are
  /// spelled as ConditionalMixture's (x_scaling, scales, sample with a seed).
  GaussianMixture(Standardizer x_scaling, Vector weights, Matrix centers, Matrix scales);

  Index dimension() const { return centers_.rows(); }
  Index n_components() const { return centers_.cols(); }
  const Standardizer& x_scaling() const { return x_scaling_; }
  const Vector& weights() const { return weights_; }
  const Matrix& centers() const { return centers_; }
  const Matrix& scales() const { return scales_; }

  // Queries. Points are in the user's units, one per column (d × m).

  /// log p(x_j) for each column: log-sum-exp over l of log β_l + log N(z_j; c_l, diag γ_l²)
  /// plus the log-Jacobian of the standardisation. When every component has the same widths
  /// (a Parzen window) the sum goes through the kernel-sum engine, which chooses an exact or a
  /// tree path by cost; either is within 1e−6 of the exact log-density.
  Vector log_pdf(const MatrixView& x) const;
  /// log_pdf with the accuracy of `query`, into which the path taken is written.
  Vector log_pdf(const MatrixView& x, DensityQuery& query) const;
  /// p(g) at every point g of a grid (the columns of `grid`, d × G): G values.
  Vector pdf(const MatrixView& grid) const;
  /// Mean log-likelihood (1/m) Σ_j log p(x_j), the score of held-out data.
  double mean_log_likelihood(const MatrixView& x) const;
  /// n independent draws (d × n) in the user's units: a component l with probability β_l, then
  /// z ~ N(c_l, diag γ_l²). The same seed gives the same draws.
  Matrix sample(Index n, std::uint64_t seed) const;
  /// E[x] in the user's units (d).
  Vector mean() const;
  /// Cov[x] in the user's units (d × d): S (Σ_l β_l (diag γ_l² + c_l c_lᵀ) − μ μᵀ) S with
  /// S = diag(scale).
  Matrix covariance() const;
  /// P(X ≤ x_j) for every point of a one-dimensional mixture (InvalidArgument for d > 1).
  Vector cdf(const MatrixView& x) const;
  /// Marginal quantiles: entry (d, r) is the probabilities[r]-quantile of dimension d (each
  /// marginal of a diagonal mixture is the 1-D mixture of its coordinates); probabilities in
  /// (0, 1).
  Matrix quantiles(const std::vector<double>& probabilities) const;
  /// The highest-density region {x : p(x) ≥ f} of probability `coverage` of a one-dimensional
  /// mixture (InvalidArgument for d > 1): several intervals where p is multimodal.
  HighestDensityRegion highest_density_region(double coverage) const;
  /// ∫ p(x)² dx in the user's units: Σ_l Σ_l' β_l β_l' N(c_l; c_l', diag(γ_l² + γ_l'²)) times
  /// the Jacobian (the first term of the ISE, Chen et al. eqs. 14, 16).
  double squared_norm() const;

  /// {"scaling", "weights", "centers", "widths"} (the model files' names, kept from before the
  /// accessors took ConditionalMixture's spellings); doubles in round-trip form.
  nlohmann::json to_json() const;
  /// The inverse of to_json; ModelFormatError for a malformed or inconsistent document.
  static GaussianMixture from_json(const nlohmann::json& document);

 private:
  void require_one_dimension(const char* query) const;

  Standardizer x_scaling_;
  Vector weights_;
  Matrix centers_;
  Matrix scales_;
  Vector log_weights_;          ///< log β_l (−∞ for a zero weight)
  Vector component_log_norms_;  ///< −Σ_d log γ_ld − (d/2) log 2π
  /// Every component has the same widths (Parzen window, SKD): log_pdf is then one kernel sum
  /// in coordinates divided by those widths, and goes through the kernel-sum engine.
  bool shared_widths_ = false;
  /// With shared widths, the engine's prepared points (in those coordinates), built by the first
  /// query and shared by copies of the (immutable) mixture.
  struct KernelSumCache;
  std::shared_ptr<KernelSumCache> kernel_sum_cache_;
};

}  // namespace cdens
