#pragma once
// The distribution of a one-dimensional y at one input, in the user's units, in the form the
// conditional mixture's output side gives it (conditional_mixture.hpp): over the levels of a
// discrete y (level_distribution.hpp), a Gaussian mixture in y's standardisation
// (scalar_mixture.hpp), the parts of a model with output transforms
// (transformed_scalar_mixture.hpp), or an atom beside a Gaussian mixture (output_atom.hpp). The
// mixture chooses the form once, when it is built, from its parts; its one-dimensional queries
// (CDF, quantiles, highest-density regions and probabilities) ask the form, whichever it is.

#include <optional>
#include <utility>

#include "cdens/core/types.hpp"
#include "model/scalar_mixture.hpp"

namespace cdens::detail {

class ScalarOutput {
 public:
  virtual ~ScalarOutput() = default;
  /// P(Y ≤ y), t being y's standardisation (the form answers in whichever it works in).
  virtual double cdf(double y, double t) const = 0;
  /// The p-quantile of y, p in (0, 1).
  virtual double quantile(double p) const = 0;
  /// The smallest set of probability `coverage`, in y.
  virtual HighestDensityRegion highest_density_region(double coverage) const = 0;
  /// P(p(Y) ≥ p(y)), t being y's standardisation.
  virtual double highest_density_probability(double y, double t) const = 0;
  /// The CRPS ∫ (F(z) − 1{z ≥ y})² dz of the observation y, t being its standardisation.
  virtual double crps(double y, double t) const = 0;
  /// ∫ p(y)² dy (a sum over the levels of a discrete y).
  virtual double squared_norm() const = 0;
};

/// A distribution that works in y itself: the levels of a discrete y (never standardised) or the
/// parts of a transformed one.
template <typename Distribution>
class ScalarOutputInY final : public ScalarOutput {
 public:
  explicit ScalarOutputInY(Distribution distribution) : distribution_(std::move(distribution)) {}
  double cdf(double y, double /*t*/) const override { return distribution_.cdf(y); }
  double quantile(double p) const override { return distribution_.quantile(p); }
  HighestDensityRegion highest_density_region(double coverage) const override {
    return distribution_.highest_density_region(coverage);
  }
  double highest_density_probability(double y, double /*t*/) const override {
    return distribution_.highest_density_probability(y);
  }
  double crps(double y, double /*t*/) const override { return distribution_.crps(y); }
  double squared_norm() const override { return distribution_.squared_norm(); }

 private:
  Distribution distribution_;
};

/// A Gaussian mixture in t = (y − shift) / scale, its answers moved to y.
class StandardizedScalarOutput final : public ScalarOutput {
 public:
  StandardizedScalarOutput(ScalarMixture mixture, double shift, double scale)
      : mixture_(std::move(mixture)), shift_(shift), scale_(scale) {}
  double cdf(double /*y*/, double t) const override { return mixture_.cdf(t); }
  double quantile(double p) const override { return shift_ + scale_ * mixture_.quantile(p); }
  HighestDensityRegion highest_density_region(double coverage) const override {
    return rescaled(mixture_.highest_density_region(coverage), shift_, scale_);
  }
  double highest_density_probability(double /*y*/, double t) const override {
    // An affine map of y keeps the order of the densities: the probability is that of t.
    return mixture_.highest_density_probability(t);
  }
  // The CRPS has y's units; p(y) = p(t) / scale, so ∫ p(y)² dy = ∫ p(t)² dt / scale.
  double crps(double /*y*/, double t) const override { return scale_ * mixture_.crps(t); }
  double squared_norm() const override { return mixture_.squared_norm() / scale_; }

 private:
  ScalarMixture mixture_;
  double shift_;
  double scale_;
};

/// A point mass π_a at y = a beside a Gaussian mixture of t = (y − shift) / scale with the
/// remaining probability 1 − π_a (the continuous part, given normalised to total 1; none where
/// π_a = 1): F(y) = π_a 1{y ≥ a} + (1 − π_a) F_c(t).
class AtomScalarOutput final : public ScalarOutput {
 public:
  AtomScalarOutput(double atom_probability, double atom, double standardized_atom,
                   std::optional<ScalarMixture> continuous, double shift, double scale);
  double cdf(double y, double t) const override;
  /// min{y : F(y) ≥ p}: the continuous part's quantile below and above the jump, a within it.
  double quantile(double p) const override;
  /// The atom first (it adds π_a and no length), then the continuous part's superlevel set of
  /// probability coverage − π_a; the atom alone, threshold +∞, where π_a ≥ coverage.
  HighestDensityRegion highest_density_region(double coverage) const override;
  /// π_a at the atom; π_a + (1 − π_a) P_c(p_c(T) ≥ p_c(t)) elsewhere.
  double highest_density_probability(double y, double t) const override;
  /// E|Y − y| − ½ E|Y − Y′| with Y the atom with probability π_a and the continuous part C
  /// otherwise: E|Y − y| = π_a |a − y| + (1 − π_a) E|C − y| and E|Y − Y′| = (1 − π_a)² E|C − C′|
  /// + 2 π_a (1 − π_a) E|C − a|.
  double crps(double y, double t) const override;
  /// Against the mixed measure: π_a² plus (1 − π_a)² times the continuous part's integral.
  double squared_norm() const override;

 private:
  double atom_probability_;
  double atom_;
  double standardized_atom_;
  std::optional<ScalarMixture> continuous_;
  double shift_;
  double scale_;
};

}  // namespace cdens::detail
