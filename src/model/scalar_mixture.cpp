#include "model/scalar_mixture.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

#include "core/math_constants.hpp"
#include "model/cdf_inversion.hpp"
#include "model/tabulated_normal_cdf.hpp"

namespace cdens::detail {
namespace {

constexpr double kInverseSqrt2Pi = 0.39894228040143267794;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

/// E|N(m, v)| = 2 √v φ(m/√v) + m (2 Φ(m/√v) − 1), with 2 Φ(z) − 1 = erf(z/√2); |m| for v = 0.
double absolute_normal_mean(double m, double variance) {
  if (variance == 0.0) return std::abs(m);
  const double sd = std::sqrt(variance);
  const double z = m / sd;
  return 2.0 * sd * kInverseSqrt2Pi * std::exp(-0.5 * z * z) + m * std::erf(z / std::sqrt(2.0));
}

/// The root of g between `negative` (g < 0) and `positive` (g ≥ 0), in either order, by Newton
/// steps from `guess` kept inside the bracket, bisecting wherever a step leaves it or fails to
/// halve the one before (near a tangency), to a relative precision of 1e-13. Newton closes in
/// from one side, so its last step lands on the end it just set (g = 0 there, or a step below the
/// rounding): one probe half the precision towards the other end then closes the bracket where g
/// changes sign there, and only where it does not (g flat at 0 over a stretch, at a mode's tip)
/// does bisection go on (bisecting at once took 12 evaluations a crossing where 3 or 4 do).
/// `evaluate(t, value, derivative)` gives g and g′; the derivative at the root found is left in
/// `derivative`.
template <class Evaluate>
double bracketed_root(double negative, double positive, double guess, const Evaluate& evaluate,
                      double& derivative) {
  const auto inside = [&](double t) {
    return (t > negative && t < positive) || (t < negative && t > positive);
  };
  double t = inside(guess) ? guess : 0.5 * (negative + positive);
  double previous_step = std::abs(positive - negative);
  bool probing = false;  // t is a probe beside the end Newton converged to
  bool probe_from_positive = false;
  for (int iteration = 0; iteration < 100; ++iteration) {
    double value = 0.0;
    evaluate(t, value, derivative);
    (value >= 0.0 ? positive : negative) = t;
    const double precision = 1e-13 * (1.0 + std::abs(t));
    if (std::abs(positive - negative) <= precision) break;
    const bool probe_failed = probing && (value >= 0.0) == probe_from_positive;
    probing = false;
    double next = derivative != 0.0 ? t - value / derivative : negative;
    if (!inside(next) && std::abs(next - t) <= 1e-12 * (1.0 + std::abs(t)) && !probe_failed) {
      probe_from_positive = t == positive;
      const double other = t == positive ? negative : positive;
      next = t + std::copysign(0.5 * precision, other - t);
      probing = true;
    } else if (!inside(next) || 2.0 * std::abs(next - t) > previous_step) {
      next = 0.5 * (negative + positive);
    }
    previous_step = std::abs(next - t);
    t = next;
    if (previous_step <= 1e-14 * (1.0 + std::abs(t))) break;
  }
  return t;
}

}  // namespace

ScalarMixture::ScalarMixture(const VectorView& probabilities, const VectorView& centers,
                             const VectorView& scales, double tolerance)
    : tolerance_(tolerance), tabulated_cdf_(tolerance >= kTabulatedCdfTolerance) {
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
  std::vector<std::size_t> all(weights_.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  all_ = ComponentArrays(weights_, centers_, scales_, std::move(all));
}

ScalarMixture::ComponentArrays::ComponentArrays(const std::vector<double>& weights,
                                                const std::vector<double>& centers,
                                                const std::vector<double>& scales,
                                                std::vector<std::size_t> kept) {
  std::sort(kept.begin(), kept.end(),
            [&](std::size_t a, std::size_t b) { return centers[a] < centers[b]; });
  const auto count = static_cast<Index>(kept.size());
  this->centers.resize(count);
  inverse_scales.resize(count);
  density_factors.resize(count);
  this->weights.resize(count);
  weights_before.assign(kept.size() + 1, 0.0);
  for (Index i = 0; i < count; ++i) {
    const std::size_t k = kept[static_cast<std::size_t>(i)];
    this->centers(i) = centers[k];
    inverse_scales(i) = 1.0 / scales[k];
    density_factors(i) = weights[k] * kInverseSqrt2Pi * inverse_scales(i);
    this->weights(i) = weights[k];
    weights_before[static_cast<std::size_t>(i) + 1] =
        weights_before[static_cast<std::size_t>(i)] + weights[k];
    reach = std::max(reach, 10.0 * scales[k]);
  }
}

std::pair<Index, Index> ScalarMixture::ComponentArrays::near(double t) const {
  const double* begin = centers.data();
  const double* end = begin + centers.size();
  return {std::lower_bound(begin, end, t - reach) - begin,
          std::upper_bound(begin, end, t + reach) - begin};
}

void ScalarMixture::prepare_search() const {
  if (search_ready_) return;
  search_ready_ = true;
  // The searched components: leave out the least probable ones while their total stays within
  // kNegligibleMass (of a mixture of many, most components far from x carry almost nothing).
  std::vector<std::size_t> by_weight(weights_.size());
  std::iota(by_weight.begin(), by_weight.end(), std::size_t{0});
  std::sort(by_weight.begin(), by_weight.end(),
            [&](std::size_t a, std::size_t b) { return weights_[a] < weights_[b]; });
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  double left_out = 0.0;
  std::size_t first_kept = 0;
  while (first_kept + 1 < by_weight.size() &&
         left_out + weights_[by_weight[first_kept]] <= kNegligibleMass * total) {
    left_out += weights_[by_weight[first_kept]];
    ++first_kept;
  }
  searched_ = ComponentArrays(
      weights_, centers_, scales_,
      std::vector<std::size_t>(by_weight.begin() + static_cast<std::ptrdiff_t>(first_kept),
                               by_weight.end()));
}

double ScalarMixture::pdf(double t) const {
  return (all_.density_factors * (-0.5 * ((t - all_.centers) * all_.inverse_scales).square()).exp())
      .sum();
}

template <class Visit>
void ScalarMixture::ComponentArrays::for_each_window(const Eigen::Ref<const Eigen::ArrayXd>& points,
                                                     double widths, const Visit& visit) const {
  const double* begin = points.data();
  const double* end = begin + points.size();
  Eigen::ArrayXd z_buffer(points.size());
  for (Index k = 0; k < centers.size(); ++k) {
    const double reach = widths / inverse_scales(k);
    const Index first = std::lower_bound(begin, end, centers(k) - reach) - begin;
    const Index last = std::upper_bound(begin, end, centers(k) + reach) - begin;
    auto z = z_buffer.head(last - first);
    z = (points.segment(first, last - first) - centers(k)) * inverse_scales(k);
    visit(k, first, last, z);
  }
}

double ScalarMixture::ComponentArrays::density_near(double t) const {
  const auto [first, end] = near(t);
  const Index count = end - first;
  return (density_factors.segment(first, count) *
          (-0.5 *
           ((t - centers.segment(first, count)) * inverse_scales.segment(first, count)).square())
              .exp())
      .sum();
}

double ScalarMixture::searched_pdf(double t) const { return searched_.density_near(t); }

void ScalarMixture::searched_derivatives(double t, double& density, double& slope,
                                         double& curvature) const {
  const auto [first, end] = searched_.near(t);
  const Index count = end - first;
  const auto inverse_scales = searched_.inverse_scales.segment(first, count);
  const Eigen::ArrayXd z = (t - searched_.centers.segment(first, count)) * inverse_scales;
  const Eigen::ArrayXd terms =
      searched_.density_factors.segment(first, count) * (-0.5 * z.square()).exp();
  density = terms.sum();
  // N′(t) = −(z/s) N(t) and N″(t) = ((z² − 1)/s²) N(t) for z = (t − c)/s.
  slope = -(terms * z * inverse_scales).sum();
  curvature = (terms * (z.square() - 1.0) * inverse_scales.square()).sum();
}

template <class Use>
auto ScalarMixture::with_component_cdf(const Use& use) const {
  if (tabulated_cdf_) {
    const NormalCdfTable& table = NormalCdfTable::instance();
    return use([&table](double z) { return table.cdf(z); });
  }
  return use([](double z) { return normal_cdf(z); });
}

double ScalarMixture::cdf(double t) const {
  // The components far below t add their weights, those far above nothing (ComponentArrays).
  const auto [first, end] = all_.near(t);
  double probability = all_.weights_before[static_cast<std::size_t>(first)];
  with_component_cdf([&, first = first, end = end](const auto& phi) {
    for (Index k = first; k < end; ++k) {
      probability += all_.weights(k) * phi((t - all_.centers(k)) * all_.inverse_scales(k));
    }
  });
  return std::clamp(probability, 0.0, 1.0);
}

void ScalarMixture::pdfs_and_cdfs_within(const std::vector<double>& t, double widths,
                                         std::vector<double>* densities,
                                         std::vector<double>* probabilities) const {
  const auto count = static_cast<Index>(t.size());
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });
  Eigen::ArrayXd sorted(count);
  for (Index g = 0; g < count; ++g) sorted(g) = t[order[static_cast<std::size_t>(g)]];
  Eigen::ArrayXd density = Eigen::ArrayXd::Zero(count);
  Eigen::ArrayXd probability = Eigen::ArrayXd::Zero(count);
  std::vector<double> passed(t.size() + 1, 0.0);  // weights of the components wholly below
  with_component_cdf([&](const auto& phi) {
    all_.for_each_window(sorted, widths, [&](Index k, Index first, Index last, const auto& z) {
      if (densities) {
        density.segment(first, last - first) += all_.density_factors(k) * (-0.5 * z.square()).exp();
      }
      if (probabilities) {
        for (Index g = 0; g < z.size(); ++g) probability(first + g) += all_.weights(k) * phi(z(g));
      }
      passed[static_cast<std::size_t>(last)] += all_.weights(k);
    });
  });
  if (densities) densities->resize(t.size());
  if (probabilities) probabilities->resize(t.size());
  double below = 0.0;
  for (Index g = 0; g < count; ++g) {
    const std::size_t at = order[static_cast<std::size_t>(g)];
    below += passed[static_cast<std::size_t>(g)];
    if (densities) (*densities)[at] = density(g);
    if (probabilities) (*probabilities)[at] = std::clamp(probability(g) + below, 0.0, 1.0);
  }
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
  // Newton's steps start at the centre where the components' cumulative probability, in order of
  // centre, reaches p: the mixture's CDF there is within about the nearby components' weight of
  // p (auto's pool on protein, 5,700 reduced components: 9.4 CDF evaluations a quantile from here
  // where the middle of the bracket took 12.5, under inverted_cdf's earlier convergence test; 5.4
  // under its present one).
  const auto reached = std::lower_bound(all_.weights_before.begin() + 1, all_.weights_before.end(),
                                        p * all_.weights_before.back());
  const auto component =
      std::min<Index>(reached - (all_.weights_before.begin() + 1), all_.centers.size() - 1);
  return inverted_cdf(
      lower, upper, all_.centers(component), p, [this](double t) { return cdf(t); },
      [this](double t) { return all_.density_near(t); },
      [](double t) { return 1e-15 * (1.0 + std::abs(t)); });
}

double ScalarMixture::absolute_deviation(double t) const {
  double sum = 0.0;
  for (std::size_t k = 0; k < weights_.size(); ++k) {
    sum += weights_[k] * absolute_normal_mean(centers_[k] - t, scales_[k] * scales_[k]);
  }
  return sum;
}

ScalarMixture::TrapezoidGrid ScalarMixture::trapezoid_grid() const {
  constexpr double kExactSpacing = 0.5;
  if (!(tolerance_ > 0.0)) return {kExactSpacing, kExactWindowWidths};
  const double log_share = std::log(16.0 / tolerance_);  // −log(τ/16)
  return {std::max(kExactSpacing, kPi / std::sqrt(log_share)),
          std::min(kExactWindowWidths, std::sqrt(2.0 * (log_share - std::log(2.0))))};
}

template <class Pair, class SumOnGrid>
double ScalarMixture::pairs_or_trapezoid(const Pair& pair, const SumOnGrid& sum_on_grid) const {
  const std::size_t count = weights_.size();
  const double narrowest = *std::min_element(scales_.begin(), scales_.end());
  const TrapezoidGrid grid = trapezoid_grid();
  // lowest_ and highest_ lie ten widths beyond every component.
  const double points = std::ceil((highest_ - lowest_) / (grid.spacing * narrowest)) + 1.0;
  // The cheaper of the two, counting terms: the pairs' K(K + 1)/2, or the grid's points and
  // each component's points within its window (pdfs_and_cdfs_within). A grid of more than 2²⁰
  // points (8 MB: one component far narrower than the mixture's range) only where there are
  // more components still.
  const double window_points = 2.0 * grid.window_widths / grid.spacing;
  double grid_terms = points;
  for (const double scale : scales_) {
    grid_terms += std::min(points, window_points * scale / narrowest + 2.0);
  }
  const double pair_terms = 0.5 * static_cast<double>(count) * static_cast<double>(count + 1);
  const bool large_grid = points > 1048576.0;
  if (large_grid ? static_cast<double>(count) <= points : pair_terms <= grid_terms) {
    double sum = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
      sum += weights_[k] * weights_[k] * pair(k, k);
      for (std::size_t l = k + 1; l < count; ++l)
        sum += 2.0 * weights_[k] * weights_[l] * pair(k, l);
    }
    return sum;
  }
  const auto intervals = static_cast<Index>(points) - 1;
  const double step = (highest_ - lowest_) / static_cast<double>(intervals);
  std::vector<double> inner(static_cast<std::size_t>(intervals - 1));
  for (Index g = 1; g < intervals; ++g) {
    inner[static_cast<std::size_t>(g - 1)] = lowest_ + step * static_cast<double>(g);
  }
  return step * sum_on_grid(inner, grid.window_widths);
}

double ScalarMixture::mean_absolute_difference() const {
  // F(1 − F) < 10⁻²² beyond lowest_ and highest_.
  return pairs_or_trapezoid(
      [this](std::size_t k, std::size_t l) {
        return absolute_normal_mean(centers_[k] - centers_[l],
                                    scales_[k] * scales_[k] + scales_[l] * scales_[l]);
      },
      [this](const std::vector<double>& points, double window_widths) {
        std::vector<double> probabilities;
        pdfs_and_cdfs_within(points, window_widths, nullptr, &probabilities);
        double sum = 0.0;
        for (const double probability : probabilities)
          sum += 2.0 * probability * (1.0 - probability);
        return sum;
      });
}

double ScalarMixture::squared_norm() const {
  return pairs_or_trapezoid(
      [this](std::size_t k, std::size_t l) {
        const double variance = scales_[k] * scales_[k] + scales_[l] * scales_[l];
        const double offset = centers_[k] - centers_[l];
        return kInverseSqrt2Pi / std::sqrt(variance) * std::exp(-0.5 * offset * offset / variance);
      },
      [this](const std::vector<double>& points, double window_widths) {
        std::vector<double> densities;
        pdfs_and_cdfs_within(points, window_widths, &densities, nullptr);
        double sum = 0.0;
        for (const double density : densities) sum += density * density;
        return sum;
      });
}

double ScalarMixture::crps(double t) const {
  return std::max(0.0, absolute_deviation(t) - 0.5 * mean_absolute_difference());
}

std::vector<double> ScalarMixture::search_points() const {
  prepare_search();
  return window_walk().points;
}

ScalarMixture::SearchGrid ScalarMixture::window_walk() const {
  // Every point whose density is not negligible lies within ten standard deviations of some
  // component, so points spaced at most s_k / 8 wherever they lie in the window c_k ± 10 s_k of
  // component k resolve every mode, however far apart and however different in width the
  // components are. One walk places them: from each point the next is the smallest step of the
  // windows that reach the gap between them, so overlapping windows share their points (a
  // thousand kernels over one range of y cost the points of one range, not a thousand).
  constexpr double kPointsPerDeviation = 8.0;
  struct Window {
    double start;
    double end;
    double step;
  };
  std::vector<Window> windows;
  double largest_step = 0.0;
  for (Index k = 0; k < searched_.centers.size(); ++k) {
    const double scale = 1.0 / searched_.inverse_scales(k);
    windows.push_back({searched_.centers(k) - 10.0 * scale, searched_.centers(k) + 10.0 * scale,
                       scale / kPointsPerDeviation});
    largest_step = std::max(largest_step, windows.back().step);
  }
  std::sort(windows.begin(), windows.end(),
            [](const Window& a, const Window& b) { return a.start < b.start; });
  // A window joins the walk one largest step before it starts, so that no step jumps over its
  // start with a longer stride than its own; it leaves once a point lies at or beyond its end.
  std::multiset<double> steps;
  using End = std::pair<double, double>;  // (end, step)
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends;
  SearchGrid grid;
  std::size_t next = 0;
  double t = windows.front().start;
  bool linked = false;
  while (true) {
    while (next < windows.size() && windows[next].start - largest_step <= t) {
      steps.insert(windows[next].step);
      ends.emplace(windows[next].end, windows[next].step);
      ++next;
    }
    if (!grid.points.empty()) grid.linked.push_back(linked);
    grid.points.push_back(t);
    while (!ends.empty() && ends.top().first <= t) {
      steps.erase(steps.find(ends.top().second));
      ends.pop();
    }
    if (steps.empty()) {
      if (next == windows.size()) break;
      t = windows[next].start;  // no window reaches the gap up to it
      linked = false;
      continue;
    }
    const double stepped = t + *steps.begin();
    t = stepped > t ? stepped : std::nextafter(t, INFINITY);
    linked = true;
  }
  return grid;
}

const ScalarMixture::SearchGrid& ScalarMixture::search_grid() const {
  prepare_search();
  if (!grid_) grid_ = grid_with_extrema(window_walk());
  return *grid_;
}

ScalarMixture::SearchGrid ScalarMixture::grid_with_extrema(SearchGrid grid) const {
  // The density and slope at every point; where the slope changes sign between two linked
  // points, the extremum between them joins the grid (a dip below a threshold or a peak above it
  // can be narrower than any spacing).
  // Each component adds its terms at the points of its window (ComponentArrays::for_each_window):
  // the grid costs the points of each window, not every component at every point.
  const std::size_t count = grid.points.size();
  const Eigen::Map<const Eigen::ArrayXd> points(grid.points.data(), static_cast<Index>(count));
  Eigen::ArrayXd density = Eigen::ArrayXd::Zero(static_cast<Index>(count));
  Eigen::ArrayXd slope = Eigen::ArrayXd::Zero(static_cast<Index>(count));
  // One buffer for the terms of every window (a temporary per component cost an allocation per
  // component and query).
  Eigen::ArrayXd terms_buffer(static_cast<Index>(count));
  searched_.for_each_window(points, kExactWindowWidths,
                            [&](Index k, Index first, Index last, const auto& z) {
                              auto terms = terms_buffer.head(last - first);
                              terms = searched_.density_factors(k) * (-0.5 * z.square()).exp();
                              density.segment(first, last - first) += terms;
                              slope.segment(first, last - first) -=
                                  terms * z * searched_.inverse_scales(k);  // N′ = −(z/s) N
                            });
  grid.densities.assign(density.data(), density.data() + density.size());
  const std::vector<double> slopes(slope.data(), slope.data() + slope.size());
  SearchGrid refined;
  const auto slope_of = [&](double t, double& value, double& derivative) {
    double density = 0.0;
    searched_derivatives(t, density, value, derivative);
  };
  for (std::size_t g = 0; g < count; ++g) {
    refined.points.push_back(grid.points[g]);
    refined.densities.push_back(grid.densities[g]);
    if (g + 1 == count) break;
    const bool linked = grid.linked[g];
    if (linked &&
        ((slopes[g] > 0.0 && slopes[g + 1] < 0.0) || (slopes[g] < 0.0 && slopes[g + 1] > 0.0))) {
      // The slope is the function whose root is the extremum: negative on one side.
      const bool maximum = slopes[g] > 0.0;
      const double negative = maximum ? grid.points[g + 1] : grid.points[g];
      const double positive = maximum ? grid.points[g] : grid.points[g + 1];
      const double guess = grid.points[g] + (grid.points[g + 1] - grid.points[g]) * slopes[g] /
                                                (slopes[g] - slopes[g + 1]);
      double curvature = 0.0;
      const double extremum = bracketed_root(negative, positive, guess, slope_of, curvature);
      if (extremum > grid.points[g] && extremum < grid.points[g + 1]) {
        refined.linked.push_back(true);
        refined.points.push_back(extremum);
        refined.densities.push_back(searched_pdf(extremum));
      }
    }
    refined.linked.push_back(linked);
  }
  return refined;
}

std::vector<Interval> ScalarMixture::superlevel_set(const SearchGrid& grid, double threshold,
                                                    double* inverse_slopes) const {
  std::vector<Interval> intervals;
  const auto& points = grid.points;
  const auto& densities = grid.densities;
  const std::size_t n = points.size();
  // Refines the crossing between grid points g (below the threshold) and h (at or above it).
  const auto refine = [&](std::size_t g, std::size_t h) {
    const double guess = points[g] + (points[h] - points[g]) * (threshold - densities[g]) /
                                         (densities[h] - densities[g]);
    double slope = 0.0;
    const double point = bracketed_root(
        points[g], points[h], guess,
        [&](double t, double& value, double& derivative) {
          double curvature = 0.0;
          searched_derivatives(t, value, derivative, curvature);
          value -= threshold;
        },
        slope);
    if (inverse_slopes != nullptr && slope != 0.0) *inverse_slopes += 1.0 / std::abs(slope);
    return point;
  };
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
    const double lower =
        first > 0 && grid.linked[first - 1] ? refine(first - 1, first) : points[first];
    const double upper = g + 1 < n && grid.linked[g] ? refine(g + 1, g) : points[g];
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

double ScalarMixture::highest_density_probability(double t) const {
  SearchGrid grid = search_grid();  // a copy: t joins it
  // t joins the grid (linked to its neighbours inside a window), so that its own interval of the
  // set is found however narrow.
  const double threshold = searched_pdf(t);
  const auto position = std::lower_bound(grid.points.begin(), grid.points.end(), t);
  const auto g = static_cast<std::size_t>(position - grid.points.begin());
  if (position == grid.points.end() || *position != t) {
    const bool inside = g > 0 && g < grid.points.size() && grid.linked[g - 1];
    grid.points.insert(position, t);
    grid.densities.insert(grid.densities.begin() + static_cast<std::ptrdiff_t>(g), threshold);
    if (g > 0) grid.linked[g - 1] = inside;
    if (g < grid.points.size() - 1) {
      grid.linked.insert(grid.linked.begin() + static_cast<std::ptrdiff_t>(g), inside);
    }
  } else {
    grid.densities[g] = threshold;
  }
  return probability_of(superlevel_set(grid, threshold));
}

HighestDensityRegion ScalarMixture::highest_density_region(double coverage) const {
  const SearchGrid& grid = search_grid();
  const double peak = *std::max_element(grid.densities.begin(), grid.densities.end());
  // The probability P(f) of {pdf ≥ f} falls continuously as f rises, with P′(f) = −f Σ 1/|p′|
  // over the crossings: Newton steps on P(f) = coverage inside a bracket [low, high], bisecting
  // where a step leaves the bracket or the residual |P − coverage| fails to halve in two steps
  // (near a mode or a merger of two intervals, where P′ is unbounded). Newton's steps close in
  // on the root from one side, so the bracket itself need not halve (a test on its width bisected
  // away converged steps: 27 iterations a region where 6 do). A step that ends just short of the
  // coverage (within kClose) is followed by one twice as long past it, so that the region
  // returned has P within kClose above the coverage (the crossings' own precision, 10⁻¹³ in y,
  // puts P's rounding near 10⁻¹⁴).
  constexpr double kClose = 1e-12;
  double low = 0.0;
  double high = peak;
  std::vector<Interval> low_set;
  bool have_low_set = false;
  double f = 0.5 * peak;
  double residual_before = INFINITY;
  for (int iteration = 0; iteration < 200 && high - low > 1e-15 * peak; ++iteration) {
    double inverse_slopes = 0.0;
    std::vector<Interval> set = superlevel_set(grid, f, &inverse_slopes);
    const double probability = probability_of(set);
    if (probability >= coverage) {
      low = f;
      low_set = std::move(set);
      have_low_set = true;
      if (probability - coverage <= kClose) break;
    } else {
      high = f;
    }
    const double residual = std::abs(probability - coverage);
    const double rate = f * inverse_slopes;  // −P′(f)
    double next = rate > 0.0 ? f + (probability - coverage) / rate : low;
    if (probability < coverage && residual <= kClose && rate > 0.0) {
      next = f - std::max(2.0 * residual / rate, 1e-14 * f);
    }
    if (iteration % 2 == 1) {
      if (residual > 0.5 * residual_before) next = low;  // did not halve: bisect
      residual_before = residual;
    }
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    f = next;
  }
  if (!have_low_set) low_set = superlevel_set(grid, low);
  return {std::move(low_set), low};
}

HighestDensityRegion rescaled(HighestDensityRegion region, double shift, double scale) {
  for (auto& interval : region.intervals) {
    interval = {shift + scale * interval.lower, shift + scale * interval.upper};
  }
  region.density_threshold /= scale;
  return region;
}

}  // namespace cdens::detail
