#include "model/transformed_scalar_mixture.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cdens/core/types.hpp"
#include "model/cdf_inversion.hpp"

namespace cdens::detail {
namespace {

constexpr int kQuadratureNodes = 16;
constexpr int kGridPointsPerPart = 256;
constexpr std::size_t kComponentsOnGrid = 64;
constexpr double kGridTail = 1e-12;
// The probabilities at which a truncated component places its points on the grid.
constexpr double kTruncatedLevels[] = {1e-4, 0.003, 0.02, 0.07, 0.15,  0.3,   0.5,
                                       0.7,  0.85,  0.93, 0.98, 0.997, 0.9999};

/// Nodes and weights of Gauss–Hermite quadrature for E f(ξ), ξ ~ N(0, 1) (Golub–Welsch: the
/// eigenvalues of the Jacobi matrix of the probabilists' Hermite polynomials, off-diagonal √k,
/// and the squared first components of its eigenvectors).
struct NormalQuadrature {
  Vector nodes;
  Vector weights;
};

const NormalQuadrature& normal_quadrature() {
  static const NormalQuadrature rule = [] {
    Matrix jacobi = Matrix::Zero(kQuadratureNodes, kQuadratureNodes);
    for (int k = 1; k < kQuadratureNodes; ++k) {
      jacobi(k, k - 1) = jacobi(k - 1, k) = std::sqrt(static_cast<double>(k));
    }
    const Eigen::SelfAdjointEigenSolver<Matrix> solver(jacobi);
    return NormalQuadrature{solver.eigenvalues(),
                            solver.eigenvectors().row(0).array().square().transpose()};
  }();
  return rule;
}

Vector as_vector(const std::vector<double>& values) {
  return Eigen::Map<const Vector>(values.data(), static_cast<Index>(values.size()));
}

/// Drops the components of `part` below ScalarMixture::kNegligibleMass · total / `count`, so that
/// at most that mass goes (a kernel estimate at one x carries most of its mass on few of its
/// components) and every CDF on the grid costs what the mass needs.
void drop_negligible(TransformedScalarMixture::Part& part, double total, std::size_t count) {
  const double smallest = ScalarMixture::kNegligibleMass * total / static_cast<double>(count);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < part.probabilities.size(); ++k) {
    if (!(part.probabilities[k] >= smallest)) continue;
    part.probabilities[kept] = part.probabilities[k];
    part.centers[kept] = part.centers[k];
    part.scales[kept] = part.scales[k];
    ++kept;
  }
  part.probabilities.resize(kept);
  part.centers.resize(kept);
  part.scales.resize(kept);
}

/// inverted_cdf to 10⁻¹³ of 1 + |v| or, where `relative`, of |v| itself: a bounded mixture may
/// hold mass in a sliver far narrower than 10⁻¹³ beside a bound at 0 (a component squeezed
/// there), where only relative steps reach it.
template <class Cdf, class Pdf>
double inverted(double low, double high, double p, bool relative, const Cdf& cdf, const Pdf& pdf) {
  return inverted_cdf(low, high, 0.5 * (low + high), p, cdf, pdf, [relative](double v) {
    return 1e-13 * (relative ? std::abs(v) : 1.0 + std::abs(v));
  });
}

}  // namespace

TransformedScalarMixture::TransformedScalarMixture(std::vector<Part> parts, OutputBounds bounds,
                                                   double tolerance)
    : bounds_(bounds) {
  double total = 0.0;
  std::size_t count = 0;
  for (const Part& part : parts) {
    total += std::accumulate(part.probabilities.begin(), part.probabilities.end(), 0.0);
    count += part.probabilities.size();
  }
  for (Part& part : parts) drop_negligible(part, total, count);
  total = 0.0;
  for (Part& part : parts) {
    const double weight =
        std::accumulate(part.probabilities.begin(), part.probabilities.end(), 0.0);
    if (!(weight > 0.0)) continue;
    total += weight;
    if (!part.transform && bounds_.bounded()) {
      // A bounded part that maps affinely works in y itself: a point a sliver beside a bound far
      // from the components keeps its digits there, and t = (y − shift) / scale would lose them.
      for (std::size_t k = 0; k < part.centers.size(); ++k) {
        part.centers[k] = part.shift + part.scale * part.centers[k];
        part.scales[k] *= part.scale;
      }
      part.shift = 0.0;
      part.scale = 1.0;
      part.lower = bounds_.y_lower;
      part.upper = bounds_.y_upper;
    }
    const Vector normalized = as_vector(part.probabilities) / weight;
    Prepared prepared{
        weight,
        ScalarMixture(normalized, as_vector(part.centers), as_vector(part.scales), tolerance),
        std::move(part),
        {},
        {}};
    const Part& kept = prepared.part;
    if (std::isfinite(kept.lower) || std::isfinite(kept.upper)) {
      for (std::size_t k = 0; k < kept.probabilities.size(); ++k) {
        prepared.truncated.emplace_back(kept.centers[k], kept.scales[k], kept.lower, kept.upper);
        prepared.truncated_weights.push_back(normalized(static_cast<Index>(k)));
      }
    }
    parts_.push_back(std::move(prepared));
  }
  if (!(total > 0.0)) throw InvalidArgument("a mixture needs a positive total probability");
  for (Prepared& part : parts_) part.weight /= total;
}

double TransformedScalarMixture::to_y(const Prepared& part, double t) const {
  // Rounding may carry a point a sliver beyond a bound: the bounds hold.
  return std::clamp(
      part.part.transform ? part.part.transform->inverse(t) : part.part.shift + part.part.scale * t,
      bounds_.y_lower, bounds_.y_upper);
}

namespace {

/// Σ_k π_k value(component k) over a part's truncated components.
template <class Prepared, class Value>
double over_truncated(const Prepared& part, const Value& value) {
  double sum = 0.0;
  for (std::size_t k = 0; k < part.truncated.size(); ++k) {
    sum += part.truncated_weights[k] * value(part.truncated[k]);
  }
  return sum;
}

}  // namespace

double TransformedScalarMixture::part_pdf(const Prepared& part, double t) const {
  if (part.truncated.empty()) return part.mixture.pdf(t);
  return over_truncated(part,
                        [t](const TruncatedComponent& component) { return component.pdf(t); });
}

double TransformedScalarMixture::part_cdf(const Prepared& part, double t) const {
  if (part.truncated.empty()) return part.mixture.cdf(t);
  return over_truncated(part,
                        [t](const TruncatedComponent& component) { return component.cdf(t); });
}

double TransformedScalarMixture::part_quantile(const Prepared& part, double p) const {
  if (part.truncated.empty()) return part.mixture.quantile(p);
  // Every component's mass lies within 40 spreads of its centre clamped into the bounds (a
  // component beyond a bound keeps it within 40 spreads of the bound): so does the mixture's
  // p-quantile, which Newton steps on the CDF then find.
  const Part& bounded = part.part;
  double low = INFINITY;
  double high = -INFINITY;
  for (std::size_t k = 0; k < bounded.centers.size(); ++k) {
    const double center = std::clamp(bounded.centers[k], bounded.lower, bounded.upper);
    low = std::min(low, std::max(bounded.lower, center - 40.0 * bounded.scales[k]));
    high = std::max(high, std::min(bounded.upper, center + 40.0 * bounded.scales[k]));
  }
  return inverted(
      low, high, p, true, [&](double t) { return part_cdf(part, t); },
      [&](double t) { return part_pdf(part, t); });
}

double TransformedScalarMixture::pdf(double y) const {
  if (!bounds_.contains(y)) return 0.0;
  double density = 0.0;
  for (const Prepared& part : parts_) {
    const OutputTransform* transform = part.part.transform;
    if (!transform) {
      density +=
          part.weight * part_pdf(part, (y - part.part.shift) / part.part.scale) / part.part.scale;
    } else if (transform->in_domain(y)) {
      density += part.weight * part_pdf(part, transform->forward(y)) *
                 std::exp(transform->log_derivative(y));
    }
  }
  return density;
}

double TransformedScalarMixture::cdf(double y) const {
  if (y < bounds_.y_lower) return 0.0;
  if (y >= bounds_.y_upper) return 1.0;
  double probability = 0.0;
  for (const Prepared& part : parts_) {
    const OutputTransform* transform = part.part.transform;
    if (!transform) {
      probability += part.weight * part_cdf(part, (y - part.part.shift) / part.part.scale);
    } else if (transform->in_domain(y)) {
      probability += part.weight * part_cdf(part, transform->forward(y));
    }
  }
  return std::min(probability, 1.0);
}

void TransformedScalarMixture::pdfs_and_cdfs(const std::vector<double>& ys,
                                             std::vector<double>* densities,
                                             std::vector<double>* probabilities) const {
  const std::size_t count = ys.size();
  if (densities) densities->assign(count, 0.0);
  if (probabilities) probabilities->assign(count, 0.0);
  std::vector<std::size_t> at;  // the points in the part's domain
  std::vector<double> t;
  std::vector<double> part_densities;
  std::vector<double> part_probabilities;
  for (const Prepared& part : parts_) {
    const OutputTransform* transform = part.part.transform;
    at.clear();
    t.clear();
    for (std::size_t g = 0; g < count; ++g) {
      if (transform && !transform->in_domain(ys[g])) continue;
      at.push_back(g);
      t.push_back(transform ? transform->forward(ys[g])
                            : (ys[g] - part.part.shift) / part.part.scale);
    }
    if (part.truncated.empty()) {
      part.mixture.pdfs_and_cdfs(t, densities ? &part_densities : nullptr,
                                 probabilities ? &part_probabilities : nullptr);
    } else {
      part_densities.resize(t.size());
      part_probabilities.resize(t.size());
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (densities) part_densities[i] = part_pdf(part, t[i]);
        if (probabilities) part_probabilities[i] = part_cdf(part, t[i]);
      }
    }
    for (std::size_t i = 0; i < at.size(); ++i) {
      const double y = ys[at[i]];
      if (densities) {
        (*densities)[at[i]] +=
            part.weight * part_densities[i] *
            (transform ? std::exp(transform->log_derivative(y)) : 1.0 / part.part.scale);
      }
      if (probabilities) (*probabilities)[at[i]] += part.weight * part_probabilities[i];
    }
  }
  for (std::size_t g = 0; g < count; ++g) {
    const double y = ys[g];
    if (densities && !bounds_.contains(y)) (*densities)[g] = 0.0;
    if (probabilities) {
      double& probability = (*probabilities)[g];
      probability = y < bounds_.y_lower    ? 0.0
                    : y >= bounds_.y_upper ? 1.0
                                           : std::min(probability, 1.0);
    }
  }
}

double TransformedScalarMixture::quantile(double p) const {
  // One part: its own quantile. Several: the mixture's p-quantile lies between the parts' own.
  if (parts_.size() == 1) return to_y(parts_.front(), part_quantile(parts_.front(), p));
  double low = INFINITY;
  double high = -INFINITY;
  for (const Prepared& part : parts_) {
    const double y = to_y(part, part_quantile(part, p));
    low = std::min(low, y);
    high = std::max(high, y);
  }
  return inverted(
      low, high, p, bounds_.bounded(), [&](double y) { return cdf(y); },
      [&](double y) { return pdf(y); });
}

void transformed_component_moments(const OutputTransform& transform, double center, double spread,
                                   double& first, double& second) {
  const NormalQuadrature& rule = normal_quadrature();
  first = 0.0;
  second = 0.0;
  for (Index q = 0; q < rule.nodes.size(); ++q) {
    const double y = transform.inverse(center + spread * rule.nodes(q));
    first += rule.weights(q) * y;
    second += rule.weights(q) * y * y;
  }
}

void truncated_transformed_component_moments(const OutputTransform& transform,
                                             const TruncatedComponent& component, double& first,
                                             double& second) {
  const TruncatedNormalRule rule = truncated_normal_rule(component.a(), component.b());
  first = 0.0;
  second = 0.0;
  for (std::size_t i = 0; i < rule.offsets.size(); ++i) {
    const double y = transform.inverse(component.at_offset(rule.mode, rule.offsets[i]));
    first += rule.weights[i] * y;
    second += rule.weights[i] * y * y;
  }
}

void TransformedScalarMixture::grid(std::vector<double>& points,
                                    std::vector<double>& densities) const {
  points.clear();
  // The bounds themselves: where a bounded density jumps from 0.
  for (const double bound : {bounds_.y_lower, bounds_.y_upper}) {
    if (std::isfinite(bound)) points.push_back(bound);
  }
  for (const Prepared& part : parts_) {
    if (part.truncated.empty()) {
      // The Gaussian mixture's search points in t (every component's ±10 widths at an eighth of
      // its width): a mode narrower than an even grid's step, which a region would gain or lose
      // whole as its threshold passes it, is resolved.
      for (const double t : part.mixture.search_points()) points.push_back(to_y(part, t));
      continue;
    }
    const double low = part_quantile(part, kGridTail);
    const double high = part_quantile(part, 1.0 - kGridTail);
    for (int g = 0; g < kGridPointsPerPart; ++g) {
      points.push_back(to_y(part, low + (high - low) * g / (kGridPointsPerPart - 1)));
    }
    const Part& p = part.part;
    std::vector<std::size_t> order(p.probabilities.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t kept = std::min(order.size(), kComponentsOnGrid);
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
        [&](std::size_t a, std::size_t b) { return p.probabilities[a] > p.probabilities[b]; });
    for (std::size_t i = 0; i < kept; ++i) {
      // A truncated component beyond a bound lies in a sliver beside it, where its centre and
      // spreads say nothing: its own quantiles place the points.
      const TruncatedComponent& component = part.truncated[order[i]];
      for (const double level : kTruncatedLevels) {
        points.push_back(to_y(part, component.at(component.quantile(level))));
      }
    }
  }
  points.erase(
      std::remove_if(points.begin(), points.end(), [](double y) { return !std::isfinite(y); }),
      points.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  pdfs_and_cdfs(points, &densities, nullptr);
}

std::vector<Interval> TransformedScalarMixture::superlevel_set(const std::vector<double>& points,
                                                               const std::vector<double>& densities,
                                                               double threshold,
                                                               bool refine) const {
  // Where the density crosses the threshold between two grid points, the crossing is placed by
  // linear interpolation, or with `refine` by the Illinois variant of false position on the
  // density (the end kept twice in a row has its value halved, so both ends close in,
  // superlinearly) to a relative 1e-12 — about 10 densities a crossing where bisection took 40,
  // each a sum over every component; a run reaching the grid's end stays open to ±∞ (almost no
  // mass lies beyond the grid).
  std::vector<Interval> intervals;
  const auto crossing = [&](std::size_t g) {
    const double d0 = densities[g];
    const double d1 = densities[g + 1];
    if (!refine) return points[g] + (points[g + 1] - points[g]) * (threshold - d0) / (d1 - d0);
    double below = d0 < threshold ? points[g] : points[g + 1];
    double above = d0 < threshold ? points[g + 1] : points[g];
    double below_value = (d0 < threshold ? d0 : d1) - threshold;  // < 0
    double above_value = (d0 < threshold ? d1 : d0) - threshold;  // ≥ 0
    int replaced = 0;  // +1: `above` was replaced last (`below` kept), −1: `below` was
    for (int iteration = 0;
         iteration < 100 && std::abs(above - below) > 1e-12 * (1.0 + std::abs(above));
         ++iteration) {
      double middle = below - below_value * (above - below) / (above_value - below_value);
      if (!((middle > below && middle < above) || (middle < below && middle > above))) {
        middle = 0.5 * (below + above);
      }
      const double value = pdf(middle) - threshold;
      if (value >= 0.0) {
        above = middle;
        above_value = value;
        if (replaced == 1) below_value *= 0.5;  // `below` kept twice in a row
        replaced = 1;
      } else {
        below = middle;
        below_value = value;
        if (replaced == -1) above_value *= 0.5;  // `above` kept twice in a row
        replaced = -1;
      }
    }
    return 0.5 * (below + above);
  };
  bool inside = false;
  double start = 0.0;
  for (std::size_t g = 0; g < points.size(); ++g) {
    const bool above = densities[g] >= threshold;
    if (above && !inside) start = g == 0 ? -INFINITY : crossing(g - 1);
    if (!above && inside) intervals.push_back({start, crossing(g - 1)});
    inside = above;
  }
  if (inside) intervals.push_back({start, INFINITY});
  return intervals;
}

double TransformedScalarMixture::probability_of(const std::vector<Interval>& intervals) const {
  double probability = 0.0;
  for (const Interval& interval : intervals) {
    probability += (interval.upper == INFINITY ? 1.0 : cdf(interval.upper)) -
                   (interval.lower == -INFINITY ? 0.0 : cdf(interval.lower));
  }
  return std::clamp(probability, 0.0, 1.0);
}

HighestDensityRegion TransformedScalarMixture::highest_density_region(double coverage) const {
  std::vector<double> points;
  std::vector<double> densities;
  grid(points, densities);
  // The probability of {p ≥ λ} falls as λ grows: bisect log λ between the grid's smallest
  // positive density and its largest.
  double low = INFINITY;
  double high = 0.0;
  for (const double density : densities) {
    if (density > 0.0) low = std::min(low, density);
    high = std::max(high, density);
  }
  double log_low = std::log(low);
  double log_high = std::log(high);
  for (int iteration = 0; iteration < 100 && log_high - log_low > 1e-12; ++iteration) {
    const double middle = 0.5 * (log_low + log_high);
    (probability_of(superlevel_set(points, densities, std::exp(middle), false)) >= coverage
         ? log_low
         : log_high) = middle;
  }
  // Polish with refined crossings: secant steps on log λ from the interpolated answer.
  const auto excess = [&](double log_threshold) {
    return probability_of(superlevel_set(points, densities, std::exp(log_threshold), true)) -
           coverage;
  };
  double previous = log_low + 1e-3;
  double previous_excess = excess(previous);
  double current = log_low;
  double current_excess = excess(current);
  for (int iteration = 0;
       iteration < 8 && std::abs(current_excess) > 1e-11 && current_excess != previous_excess;
       ++iteration) {
    const double next =
        current - current_excess * (current - previous) / (current_excess - previous_excess);
    previous = current;
    previous_excess = current_excess;
    current = next;
    current_excess = excess(current);
  }
  const double threshold = std::exp(current);
  std::vector<Interval> intervals = superlevel_set(points, densities, threshold, true);
  for (Interval& interval : intervals) {  // an open end stops at the grid
    interval.lower = std::max(interval.lower, points.front());
    interval.upper = std::min(interval.upper, points.back());
  }
  return {std::move(intervals), threshold};
}

std::size_t TransformedScalarMixture::grid_through(double y, std::vector<double>& points,
                                                   std::vector<double>& densities) const {
  grid(points, densities);
  // A y beyond a bound comes with a copy of the bound of density 0 between them: the grid's
  // rules then see the density 0 up to the bound and its jump within a step of width 0.
  if (y < bounds_.y_lower) {
    points.insert(points.begin(), {y, bounds_.y_lower});
    densities.insert(densities.begin(), {0.0, 0.0});
    return 0;
  }
  if (y > bounds_.y_upper) {
    points.insert(points.end(), {bounds_.y_upper, y});
    densities.insert(densities.end(), {0.0, 0.0});
    return points.size() - 1;
  }
  const auto at = std::lower_bound(points.begin(), points.end(), y);
  const auto index = static_cast<std::size_t>(at - points.begin());
  if (at == points.end() || *at != y) {
    points.insert(at, y);
    densities.insert(densities.begin() + static_cast<std::ptrdiff_t>(index), pdf(y));
  }
  return index;
}

double TransformedScalarMixture::highest_density_probability(double y) const {
  std::vector<double> points;
  std::vector<double> densities;
  grid_through(y, points, densities);
  const double threshold = pdf(y);
  if (!(threshold > 0.0)) return 1.0;
  return probability_of(superlevel_set(points, densities, threshold, true));
}

double TransformedScalarMixture::crps(double y) const {
  std::vector<double> points;
  std::vector<double> densities;
  grid_through(y, points, densities);
  // ∫ F² below y and ∫ (1 − F)² above it on the grid with y in it (each segment lies on one side
  // of y), by the trapezoid rule with its end correction h²/12 (g′(a) − g′(b)), exact for cubics:
  // g′ = 2 F p below y and −2 (1 − F) p above it.
  std::vector<double> probabilities;
  pdfs_and_cdfs(points, nullptr, &probabilities);
  double sum = 0.0;
  for (std::size_t g = 1; g < points.size(); ++g) {
    const bool below = points[g] <= y;
    const auto value = [&](std::size_t i) {
      const double f = probabilities[i];
      return below ? f * f : (1.0 - f) * (1.0 - f);
    };
    const auto slope = [&](std::size_t i) {
      return 2.0 * densities[i] * (below ? probabilities[i] : probabilities[i] - 1.0);
    };
    const double h = points[g] - points[g - 1];
    sum += 0.5 * h * (value(g - 1) + value(g)) + h * h / 12.0 * (slope(g - 1) - slope(g));
  }
  return sum;
}

double TransformedScalarMixture::squared_norm() const {
  std::vector<double> points;
  std::vector<double> densities;
  grid(points, densities);
  // Three-point Gauss–Legendre on every step of the grid (error O(h⁶)): the steps never straddle
  // a bound, and a density squeezed against one changes by a factor e within few of them, where
  // the trapezoid rule erred by a percent.
  const double node = std::sqrt(0.6);
  std::vector<double> nodes;
  for (std::size_t g = 1; g < points.size(); ++g) {
    const double middle = 0.5 * (points[g] + points[g - 1]);
    const double half = 0.5 * (points[g] - points[g - 1]);
    nodes.insert(nodes.end(), {middle - node * half, middle, middle + node * half});
  }
  std::vector<double> at_nodes;
  pdfs_and_cdfs(nodes, &at_nodes, nullptr);
  double sum = 0.0;
  for (std::size_t g = 1; g < points.size(); ++g) {
    const double half = 0.5 * (points[g] - points[g - 1]);
    const double low = at_nodes[3 * (g - 1)];
    const double centre = at_nodes[3 * (g - 1) + 1];
    const double high = at_nodes[3 * (g - 1) + 2];
    sum += half * (5.0 * (low * low + high * high) + 8.0 * centre * centre) / 9.0;
  }
  return sum;
}

}  // namespace cdens::detail
