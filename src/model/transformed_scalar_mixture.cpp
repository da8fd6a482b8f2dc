#include "model/transformed_scalar_mixture.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cdens/core/types.hpp"

namespace cdens::detail {
namespace {

constexpr int kQuadratureNodes = 16;
constexpr int kGridPointsPerPart = 256;
constexpr std::size_t kComponentsOnGrid = 64;
constexpr double kGridTail = 1e-12;

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

}  // namespace

TransformedScalarMixture::TransformedScalarMixture(std::vector<Part> parts) {
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
    const Vector normalized = as_vector(part.probabilities) / weight;
    parts_.push_back({weight,
                      ScalarMixture(normalized, as_vector(part.centers), as_vector(part.scales)),
                      std::move(part)});
  }
  if (!(total > 0.0)) throw InvalidArgument("a mixture needs a positive total probability");
  for (Prepared& part : parts_) part.weight /= total;
}

double TransformedScalarMixture::to_y(const Prepared& part, double t) const {
  return part.part.transform ? part.part.transform->inverse(t)
                             : part.part.shift + part.part.scale * t;
}

double TransformedScalarMixture::pdf(double y) const {
  double density = 0.0;
  for (const Prepared& part : parts_) {
    const OutputTransform* transform = part.part.transform;
    if (!transform) {
      density +=
          part.weight * part.mixture.pdf((y - part.part.shift) / part.part.scale) / part.part.scale;
    } else if (transform->in_domain(y)) {
      density += part.weight * part.mixture.pdf(transform->forward(y)) *
                 std::exp(transform->log_derivative(y));
    }
  }
  return density;
}

double TransformedScalarMixture::cdf(double y) const {
  double probability = 0.0;
  for (const Prepared& part : parts_) {
    const OutputTransform* transform = part.part.transform;
    if (!transform) {
      probability += part.weight * part.mixture.cdf((y - part.part.shift) / part.part.scale);
    } else if (transform->in_domain(y)) {
      probability += part.weight * part.mixture.cdf(transform->forward(y));
    }
  }
  return std::min(probability, 1.0);
}

double TransformedScalarMixture::quantile(double p) const {
  double low = INFINITY;
  double high = -INFINITY;
  for (const Prepared& part : parts_) {
    const double y = to_y(part, part.mixture.quantile(p));
    low = std::min(low, y);
    high = std::max(high, y);
  }
  for (int iteration = 0; iteration < 200 && high - low > 1e-13 * (1.0 + std::abs(low));
       ++iteration) {
    const double middle = 0.5 * (low + high);
    if (middle <= low || middle >= high) break;
    (cdf(middle) < p ? low : high) = middle;
  }
  return 0.5 * (low + high);
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

void TransformedScalarMixture::grid(std::vector<double>& points,
                                    std::vector<double>& densities) const {
  points.clear();
  for (const Prepared& part : parts_) {
    const double low = part.mixture.quantile(kGridTail);
    const double high = part.mixture.quantile(1.0 - kGridTail);
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
      const std::size_t k = order[i];
      for (const double step : {-2.0, -1.0, 0.0, 1.0, 2.0}) {
        points.push_back(to_y(part, p.centers[k] + step * p.scales[k]));
      }
    }
  }
  points.erase(
      std::remove_if(points.begin(), points.end(), [](double y) { return !std::isfinite(y); }),
      points.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  densities.resize(points.size());
  for (std::size_t g = 0; g < points.size(); ++g) densities[g] = pdf(points[g]);
}

std::vector<Interval> TransformedScalarMixture::superlevel_set(const std::vector<double>& points,
                                                               const std::vector<double>& densities,
                                                               double threshold,
                                                               bool refine) const {
  // Where the density crosses the threshold between two grid points, the crossing is placed by
  // linear interpolation, or with `refine` by bisection of the density to a relative 1e-12; a
  // run reaching the grid's end stays open to ±∞ (almost no mass lies beyond the grid).
  std::vector<Interval> intervals;
  const auto crossing = [&](std::size_t g) {
    const double d0 = densities[g];
    const double d1 = densities[g + 1];
    if (!refine) return points[g] + (points[g + 1] - points[g]) * (threshold - d0) / (d1 - d0);
    double below = d0 < threshold ? points[g] : points[g + 1];
    double above = d0 < threshold ? points[g + 1] : points[g];
    for (int iteration = 0;
         iteration < 60 && std::abs(above - below) > 1e-12 * (1.0 + std::abs(above)); ++iteration) {
      const double middle = 0.5 * (below + above);
      (pdf(middle) >= threshold ? above : below) = middle;
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
  const double threshold = densities[grid_through(y, points, densities)];
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
  std::vector<double> probabilities(points.size());
  for (std::size_t g = 0; g < points.size(); ++g) probabilities[g] = cdf(points[g]);
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
  double sum = 0.0;
  for (std::size_t g = 1; g < points.size(); ++g) {
    sum += 0.5 * (points[g] - points[g - 1]) *
           (densities[g - 1] * densities[g - 1] + densities[g] * densities[g]);
  }
  return sum;
}

}  // namespace cdens::detail
