#pragma once
// The distribution of a one-dimensional y at one input, in the user's units, in the form the
// conditional mixture's output side gives it (conditional_mixture.hpp): over the levels of a
// discrete y (level_distribution.hpp), a Gaussian mixture in y's standardisation
// (scalar_mixture.hpp), or the parts of a model with output transforms
// (transformed_scalar_mixture.hpp). The mixture chooses the form once, when it is built, from its
// parts; its one-dimensional queries (CDF, quantiles, highest-density regions and probabilities)
// ask the form, whichever it is.

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

 private:
  ScalarMixture mixture_;
  double shift_;
  double scale_;
};

}  // namespace cdens::detail
