#include "core/scalar_mixture.hpp"

#include <algorithm>
#include <cmath>

namespace cdens::detail {
namespace {

constexpr double kInverseSqrt2Pi = 0.39894228040143267794;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace

ScalarMixture::ScalarMixture(const VectorView& probabilities, const VectorView& centers,
                             const VectorView& scales) {
  lowest_ = INFINITY;
  highest_ = -INFINITY;
  for (Index k = 0; k < probabilities.size(); ++k) {
    if (!(probabilities(k) > 0.0)) continue;
    weights_.push_back(probabilities(k));
    centers_.push_back(centers(k));
    scales_.push_back(scales(k));
    lowest_ = std::min(lowest_, centers(k) - 10.0 * scales(k));
    highest_ = std::max(highest_, centers(k) + 10.0 * scales(k));
  }
  const auto count = static_cast<Index>(weights_.size());
  center_array_ = Eigen::Map<const Eigen::ArrayXd>(centers_.data(), count);
  inverse_scales_ = Eigen::Map<const Eigen::ArrayXd>(scales_.data(), count).inverse();
  density_factors_ =
      Eigen::Map<const Eigen::ArrayXd>(weights_.data(), count) * kInverseSqrt2Pi * inverse_scales_;
}

double ScalarMixture::pdf(double t) const {
  return (density_factors_ * (-0.5 * ((t - center_array_) * inverse_scales_).square()).exp()).sum();
}

double ScalarMixture::cdf(double t) const {
  double probability = 0.0;
  for (std::size_t k = 0; k < weights_.size(); ++k) {
    probability += weights_[k] * normal_cdf((t - centers_[k]) / scales_[k]);
  }
  return std::clamp(probability, 0.0, 1.0);
}

double ScalarMixture::quantile(double p) const {
  double lower = lowest_;
  double upper = highest_;
  for (int expansion = 0; expansion < 64 && cdf(lower) > p; ++expansion) {
    lower -= (upper - lower);
  }
  for (int expansion = 0; expansion < 64 && cdf(upper) < p; ++expansion) {
    upper += (upper - lower);
  }
  double t = 0.5 * (lower + upper);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double excess = cdf(t) - p;
    if (excess == 0.0) return t;
    (excess > 0.0 ? upper : lower) = t;
    const double density = pdf(t);
    double next = density > 0.0 ? t - excess / density : lower - 1.0;
    if (!(next > lower && next < upper)) next = 0.5 * (lower + upper);
    if (std::abs(next - t) <= 1e-15 * (1.0 + std::abs(t)) ||
        upper - lower <= 1e-15 * (1.0 + std::abs(t))) {
      return next;
    }
    t = next;
  }
  return t;
}

double ScalarMixture::crossing(double below, double above, double threshold) const {
  // pdf(below) < threshold ≤ pdf(above); bisection to a relative precision of 1e-13.
  for (int iteration = 0; iteration < 80; ++iteration) {
    const double middle = 0.5 * (below + above);
    if (std::abs(above - below) <= 1e-13 * (1.0 + std::abs(middle))) break;
    (pdf(middle) >= threshold ? above : below) = middle;
  }
  return 0.5 * (below + above);
}

ScalarMixture::SearchGrid ScalarMixture::search_grid() const {
  // Every point whose density is not negligible lies within ten standard deviations of some
  // component, so a window of 8 points per standard deviation over c_k ± 10 s_k for each
  // component resolves every mode, however far apart and however different in width the
  // components are.
  constexpr int kPointsPerDeviation = 8;
  constexpr int kHalfWidth = 10 * kPointsPerDeviation;
  std::vector<std::pair<double, double>> points;  // (point, spacing of its window)
  for (std::size_t k = 0; k < weights_.size(); ++k) {
    const double step = scales_[k] / kPointsPerDeviation;
    for (int g = -kHalfWidth; g <= kHalfWidth; ++g)
      points.emplace_back(centers_[k] + g * step, step);
  }
  std::sort(points.begin(), points.end());
  SearchGrid grid;
  for (std::size_t g = 0; g < points.size(); ++g) {
    if (g > 0) {
      const double gap = points[g].first - points[g - 1].first;
      grid.linked.push_back(gap <= 1.0001 * std::max(points[g].second, points[g - 1].second));
    }
    grid.points.push_back(points[g].first);
    grid.densities.push_back(pdf(points[g].first));
  }
  return grid;
}

std::vector<Interval> ScalarMixture::superlevel_set(const SearchGrid& grid,
                                                    double threshold) const {
  std::vector<Interval> intervals;
  const auto& points = grid.points;
  const auto& densities = grid.densities;
  const std::size_t n = points.size();
  std::size_t g = 0;
  while (g < n) {
    if (densities[g] < threshold) {
      ++g;
      continue;
    }
    const std::size_t first = g;
    while (g + 1 < n && grid.linked[g] && densities[g + 1] >= threshold) ++g;
    // Refine an end to the crossing where the neighbour inside the same window is below the
    // threshold; at the edge of a window (density there is negligible) keep the grid point.
    const double lower = first > 0 && grid.linked[first - 1]
                             ? crossing(points[first - 1], points[first], threshold)
                             : points[first];
    const double upper =
        g + 1 < n && grid.linked[g] ? crossing(points[g + 1], points[g], threshold) : points[g];
    if (!intervals.empty() && lower <= intervals.back().upper) {
      intervals.back().upper = std::max(intervals.back().upper, upper);
    } else {
      intervals.push_back({lower, upper});
    }
    ++g;
  }
  return intervals;
}

double ScalarMixture::probability_of(const std::vector<Interval>& intervals) const {
  double total = 0.0;
  for (const auto& interval : intervals) total += cdf(interval.upper) - cdf(interval.lower);
  return std::clamp(total, 0.0, 1.0);
}

double ScalarMixture::probability_above(double threshold) const {
  return probability_of(superlevel_set(search_grid(), threshold));
}

HighestDensityRegion ScalarMixture::highest_density_region(double coverage) const {
  const SearchGrid grid = search_grid();
  const double peak = *std::max_element(grid.densities.begin(), grid.densities.end());
  // The probability of {pdf ≥ f} falls as f rises: bisect on f. Crossings are refined by
  // bisection, so the probability of the set is exact up to the CDF's rounding.
  double low = 0.0;
  double high = peak;
  for (int iteration = 0; iteration < 100 && high - low > 1e-15 * peak; ++iteration) {
    const double middle = 0.5 * (low + high);
    (probability_of(superlevel_set(grid, middle)) >= coverage ? low : high) = middle;
  }
  return {superlevel_set(grid, low), low};
}

HighestDensityRegion rescaled(HighestDensityRegion region, double shift, double scale) {
  for (auto& interval : region.intervals) {
    interval = {shift + scale * interval.lower, shift + scale * interval.upper};
  }
  region.density_threshold /= scale;
  return region;
}

}  // namespace cdens::detail
