#include "model/output_atom.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "model/scalar_output.hpp"

namespace cdens::detail {

AtomComponents::AtomComponents(const std::optional<OutputAtom>& atom, Index n_components,
                               const Standardizer& y_scaling) {
  if (!atom) return;
  if (!std::isfinite(atom->value)) {
    throw InvalidArgument("conditional mixture: the atom's value must be finite");
  }
  if (atom->components.empty()) {
    throw InvalidArgument("conditional mixture: the atom needs at least one component");
  }
  mask_.assign(static_cast<std::size_t>(n_components), false);
  Index previous = -1;
  for (const Index k : atom->components) {
    if (k <= previous || k >= n_components) {
      throw InvalidArgument(
          "conditional mixture: the atom's components must be increasing indices below " +
          std::to_string(n_components));
    }
    mask_[static_cast<std::size_t>(k)] = true;
    previous = k;
  }
  if (static_cast<Index>(atom->components.size()) == n_components) {
    throw InvalidArgument(
        "conditional mixture: the atom needs a Gaussian component beside its own (a y that is "
        "the atom alone is a constant)");
  }
  value_ = atom->value;
  components_ = atom->components;
  // The standardisation of y's own rows (the same arithmetic, so the value of a training row at
  // the atom, where a fit placed a component, is the same double).
  standardized_value_ = y_scaling.transform(Matrix::Constant(1, 1, value_))(0, 0);
}

bool AtomComponents::apply(double y, const VectorView& log_weights,
                           Eigen::Ref<Vector> joint) const {
  if (empty()) return false;
  const bool at = at_atom(y);
  for (Index k = 0; k < joint.size(); ++k) {
    if (mask_[static_cast<std::size_t>(k)]) {
      joint(k) = at ? log_weights(k) : -INFINITY;
    } else if (at) {
      joint(k) = -INFINITY;
    }
  }
  return at;
}

void AtomComponents::clear_columns(Matrix& densities) const {
  for (const Index k : components_) densities.col(k).setZero();
}

void AtomComponents::set_moments(Matrix& means, Matrix& variances) const {
  for (const Index k : components_) {
    means(0, k) = standardized_value_;
    variances(0, k) = 0.0;
  }
}

Vector AtomComponents::probabilities(const MatrixView& pi) const {
  Vector result = Vector::Zero(pi.cols());
  for (const Index k : components_) result += pi.row(k).transpose();
  return result.cwiseMin(1.0);
}

double AtomComponents::probability(const VectorView& pi) const {
  double sum = 0.0;
  for (const Index k : components_) sum += pi(k);
  return std::min(sum, 1.0);
}

void AtomComponents::write_json(nlohmann::json& document) const {
  if (empty()) return;
  document["output_atom"] = {{"value", value_}, {"components", components_}};
}

std::optional<OutputAtom> AtomComponents::from_json(const nlohmann::json& document) {
  if (!document.contains("output_atom")) return std::nullopt;
  const auto& atom = document["output_atom"];
  if (!atom.is_object()) throw ModelFormatError("the model's output_atom is not an object");
  const auto& value = json_member(atom, "value");
  if (!value.is_number()) throw ModelFormatError("the atom's value is not a number");
  return OutputAtom{value.get<double>(),
                    json_integers(json_member(atom, "components"), "the atom's components", 0)};
}

AtomScalarOutput::AtomScalarOutput(double atom_probability, double atom, double standardized_atom,
                                   std::optional<ScalarMixture> continuous, double shift,
                                   double scale)
    : atom_probability_(continuous ? atom_probability : 1.0),
      atom_(atom),
      standardized_atom_(standardized_atom),
      continuous_(std::move(continuous)),
      shift_(shift),
      scale_(scale) {}

double AtomScalarOutput::cdf(double y, double t) const {
  const double continuous = continuous_ ? (1.0 - atom_probability_) * continuous_->cdf(t) : 0.0;
  return std::clamp(continuous + (y >= atom_ ? atom_probability_ : 0.0), 0.0, 1.0);
}

double AtomScalarOutput::quantile(double p) const {
  if (!continuous_) return atom_;
  const double rest = 1.0 - atom_probability_;
  // P(Y < a): below it the continuous part's quantiles, within the jump the atom, above it the
  // continuous part's again; the atom bounds both, as the generalised inverse does where the
  // continuous quantile rounds across it.
  const double below = rest * continuous_->cdf(standardized_atom_);
  if (p <= below) return std::min(atom_, shift_ + scale_ * continuous_->quantile(p / rest));
  if (p <= below + atom_probability_) return atom_;
  const double above = std::min((p - atom_probability_) / rest, std::nextafter(1.0, 0.0));
  return std::max(atom_, shift_ + scale_ * continuous_->quantile(above));
}

HighestDensityRegion AtomScalarOutput::highest_density_region(double coverage) const {
  if (atom_probability_ >= coverage) {
    return {{Interval{atom_, atom_}}, std::numeric_limits<double>::infinity()};
  }
  const double rest = 1.0 - atom_probability_;
  HighestDensityRegion region = rescaled(
      continuous_->highest_density_region((coverage - atom_probability_) / rest), shift_, scale_);
  region.density_threshold *= rest;
  if (!(atom_probability_ > 0.0)) return region;
  // The atom joins as the interval [a, a] unless an interval of the continuous part holds it.
  auto& intervals = region.intervals;
  const auto after =
      std::find_if(intervals.begin(), intervals.end(),
                   [&](const Interval& interval) { return interval.upper >= atom_; });
  if (after == intervals.end() || after->lower > atom_) {
    intervals.insert(after, Interval{atom_, atom_});
  }
  return region;
}

double AtomScalarOutput::highest_density_probability(double y, double t) const {
  if (y == atom_) return atom_probability_;
  if (!continuous_) return 1.0;
  return std::min(1.0, atom_probability_ +
                           (1.0 - atom_probability_) * continuous_->highest_density_probability(t));
}

double AtomScalarOutput::crps(double y, double t) const {
  if (!continuous_) return std::abs(atom_ - y);
  const double atom = atom_probability_;
  const double rest = 1.0 - atom;
  // The continuous part's terms in t, times the scale for y's units.
  const double distance =
      atom * std::abs(atom_ - y) + rest * scale_ * continuous_->absolute_deviation(t);
  const double spread =
      scale_ * (rest * rest * continuous_->mean_absolute_difference() +
                2.0 * atom * rest * continuous_->absolute_deviation(standardized_atom_));
  return std::max(0.0, distance - 0.5 * spread);
}

double AtomScalarOutput::squared_norm() const {
  const double rest = 1.0 - atom_probability_;
  const double continuous = continuous_ ? continuous_->squared_norm() / scale_ : 0.0;
  return atom_probability_ * atom_probability_ + rest * rest * continuous;
}

}  // namespace cdens::detail
