#include "kernel_sums/binned_kernel_sums.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_sums/exact_kernel_sums.hpp"
#include "kernel_sums/fft_convolution.hpp"

namespace cdens {
namespace {

// Points farther than U along an axis may add at most relative_tolerance · kFarShare / 2
// (relative to W = 1) to a sum: grid points whose sum is not well above it are recomputed.
constexpr double kFarShare = 1e-8;
// The cell side is chosen so that the bound is within half the tolerance for contributions from
// this distance (in kernel widths); grid points whose mass comes from farther have a larger bound
// and may be recomputed.
constexpr double kTypicalDistance = 2.0;

/// The bound's relative size for contributions from distance u: e^{‖δ‖ u} Σ_k (δ_k²/8)((u + δ_k)² +
/// 1).
double typical_relative_error(double distance, const std::vector<double>& cell) {
  double diagonal = 0.0;
  double sum = 0.0;
  for (const double side : cell) {
    diagonal += side * side;
    sum += side * side / 8.0 * ((distance + side) * (distance + side) + 1.0);
  }
  return std::exp(std::sqrt(diagonal) * distance) * sum;
}

/// max of e^{−w²/2} over |w − v| ≤ δ.
double kernel_envelope(double v, double side) {
  const double nearest = std::max(0.0, std::abs(v) - side);
  return std::exp(-0.5 * nearest * nearest);
}

/// max of (w² + 1) e^{−w²/2} (a bound of |∂²/∂w² e^{−w²/2}| = |w² − 1| e^{−w²/2}) over
/// |w − v| ≤ δ: the function rises on [0, 1] and falls beyond.
double curvature_envelope(double v, double side) {
  const auto g = [](double w) { return (w * w + 1.0) * std::exp(-0.5 * w * w); };
  const double low = std::max(0.0, std::abs(v) - side);
  const double high = std::abs(v) + side;
  if (low <= 1.0 && high >= 1.0) return g(1.0);
  return std::max(g(low), g(high));
}

/// value(t δ) for t = 0 … reach: one even factor of a separable kernel, on the binning grid.
template <class Function>
Vector kernel_samples(Index reach, double side, Function value) {
  Vector samples(reach + 1);
  for (Index t = 0; t <= reach; ++t) samples(t) = value(static_cast<double>(t) * side);
  return samples;
}

/// The DFT of the even sequence t ↦ samples(|t|) for |t| ≤ reach, wrapped around a circle of
/// `size`.
Vector sampled_spectrum(Index size, const Vector& samples, FftPlans& fft) {
  Vector kernel = Vector::Zero(size);
  for (Index t = 0; t < samples.size() && t < size; ++t) {
    kernel(t) = samples(t);
    kernel((size - t) % size) = samples(t);
  }
  return even_sequence_spectrum(kernel, fft);
}

/// Σ_t values[node + t] Π_k samples[k](|t_k|) over the offsets |t_k| ≤ reach_k that stay on the
/// binning grid, for dimensions 0 … k (those above fixed by `base`): the value the circular
/// convolution has at a node (the FFT is long enough for nothing to wrap around), summed
/// directly, with no FFT rounding.
double direct_convolution(const std::vector<double>& values, const BinnedPlan& plan,
                          const std::vector<std::size_t>& strides, const std::vector<Index>& node,
                          const std::vector<Vector>& samples, Index k, std::size_t base) {
  const std::size_t kk = static_cast<std::size_t>(k);
  const Index low = std::max<Index>(0, node[kk] - plan.reach[kk]);
  const Index high = std::min<Index>(plan.nodes[kk] - 1, node[kk] + plan.reach[kk]);
  double sum = 0.0;
  for (Index cell = low; cell <= high; ++cell) {
    const std::size_t at = base + static_cast<std::size_t>(cell) * strides[kk];
    const double inner =
        k == 0 ? values[at] : direct_convolution(values, plan, strides, node, samples, k - 1, at);
    sum += samples[kk](std::abs(cell - node[kk])) * inner;
  }
  return sum;
}

}  // namespace

std::optional<BinnedPlan> plan_binned_kernel_sums(const KernelSumReference& reference,
                                                  const RegularGrid& grid,
                                                  double relative_tolerance, double cell_budget) {
  const Index d = reference.dimension();
  if (d > 3 || !(relative_tolerance > 0.0) || static_cast<Index>(grid.counts.size()) != d) {
    return std::nullopt;
  }
  // The largest common cell side δ whose typical error is within half the tolerance, by
  // bisection in log δ (the error increases with δ).
  const auto error_at = [&](double side) {
    return typical_relative_error(kTypicalDistance,
                                  std::vector<double>(static_cast<std::size_t>(d), side));
  };
  double low = 1e-9;
  double high = 1.0;
  if (error_at(low) > 0.5 * relative_tolerance) return std::nullopt;
  for (int step = 0; step < 60; ++step) {
    const double middle = std::sqrt(low * high);
    (error_at(middle) <= 0.5 * relative_tolerance ? low : high) = middle;
  }
  BinnedPlan plan;
  double widest = 0.0;
  for (Index k = 0; k < d; ++k) {
    const Index refinement = static_cast<Index>(std::ceil(grid.spacing(k) / low));
    plan.refinement.push_back(refinement);
    plan.cell.push_back(grid.spacing(k) / static_cast<double>(refinement));
    widest = std::max(widest, plan.cell.back());
  }
  plan.radius = std::sqrt(2.0 * std::log(2.0 / (relative_tolerance * kFarShare))) + widest;
  plan.cells = 1.0;
  for (Index k = 0; k < d; ++k) {
    const std::size_t kk = static_cast<std::size_t>(k);
    const double side = plan.cell[kk];
    const double start = grid.start(k);
    const double stop = start + static_cast<double>(grid.counts[kk] - 1) * grid.spacing(k);
    // Points farther than U + δ_k from the grid's box along an axis are farther than U from
    // every grid point: they are left out (the far term of the bound).
    const double margin = plan.radius + side;
    const double lowest =
        std::min(start, std::max(reference.points.row(k).minCoeff(), start - margin));
    const double highest =
        std::max(stop, std::min(reference.points.row(k).maxCoeff(), stop + margin));
    const Index first = static_cast<Index>(std::floor((lowest - start) / side));
    const Index last = std::max(static_cast<Index>(std::ceil((highest - start) / side)),
                                (grid.counts[kk] - 1) * plan.refinement[kk]);
    plan.first.push_back(first);
    plan.nodes.push_back(last - first + 1);
    // Offsets up to U + δ_k: every corner of a point within U of a grid point is in reach.
    plan.reach.push_back(static_cast<Index>(std::ceil(plan.radius / side)) + 1);
    plan.fft_size.push_back(fft_friendly_size(plan.nodes.back() + plan.reach.back()));
    plan.cells *= static_cast<double>(plan.fft_size.back());
  }
  if (plan.cells > cell_budget) return std::nullopt;
  return plan;
}

Vector binned_log_kernel_sums(const KernelSumReference& reference, const RegularGrid& grid,
                              const MatrixView& centred_queries, const BinnedPlan& plan,
                              double relative_tolerance, int threads, BinnedFallbacks* fallbacks) {
  const Index d = reference.dimension();
  const auto& sizes = plan.fft_size;
  std::size_t total = 1;
  for (const Index size : sizes) total *= static_cast<std::size_t>(size);
  std::vector<double> binned(total, 0.0);

  // Linear binning (Wand 1994): each point's weight is shared among the 2^d corners of its cell
  // in proportion to the volume of the opposite sub-box.
  std::vector<std::size_t> strides(static_cast<std::size_t>(d), 1);
  for (std::size_t k = 1; k < strides.size(); ++k) {
    strides[k] = strides[k - 1] * static_cast<std::size_t>(sizes[k - 1]);
  }
  const Index corners = Index{1} << d;
  for (Index i = 0; i < reference.size(); ++i) {
    std::size_t base = 0;
    double fraction[3] = {0.0, 0.0, 0.0};
    bool inside = true;
    for (Index k = 0; k < d; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const double position = (reference.points(k, i) - grid.start(k)) / plan.cell[kk] -
                              static_cast<double>(plan.first[kk]);
      if (!(position >= 0.0 && position <= static_cast<double>(plan.nodes[kk] - 1))) {
        inside = false;  // farther than U from every grid point: in the far term
        break;
      }
      const Index cell = std::min(static_cast<Index>(position), plan.nodes[kk] - 2);
      fraction[kk] = position - static_cast<double>(cell);
      base += static_cast<std::size_t>(cell) * strides[kk];
    }
    if (!inside) continue;
    for (Index corner = 0; corner < corners; ++corner) {
      double share = reference.weights(i);
      std::size_t position = base;
      for (Index k = 0; k < d; ++k) {
        const std::size_t kk = static_cast<std::size_t>(k);
        if ((corner >> k) & 1) {
          share *= fraction[kk];
          position += strides[kk];
        } else {
          share *= 1.0 - fraction[kk];
        }
      }
      binned[position] += share;
    }
  }
  double binned_norm = 0.0;
  for (const double value : binned) binned_norm += value * value;
  binned_norm = std::sqrt(binned_norm);

  // Kernel 0 is the Gaussian; kernel 1 + k bounds the interpolation error along axis k (its
  // curvature envelope along k, the kernel's envelope along the others), before the factor δ_k²/8.
  // samples[i][k]: factor k of kernel i on the binning grid; kernels[i][k]: its spectrum.
  FftPlans fft;
  std::vector<std::vector<Vector>> samples(static_cast<std::size_t>(d + 1));
  std::vector<std::vector<Vector>> kernels(static_cast<std::size_t>(d + 1));
  for (Index k = 0; k < d; ++k) {
    const std::size_t kk = static_cast<std::size_t>(k);
    const double side = plan.cell[kk];
    const Index reach = std::min(plan.reach[kk], sizes[kk] - 1);
    const Vector gaussian =
        kernel_samples(reach, side, [](double v) { return std::exp(-0.5 * v * v); });
    const Vector curvature =
        kernel_samples(reach, side, [&](double v) { return curvature_envelope(v, side); });
    const Vector envelope =
        d == 1 ? Vector()
               : kernel_samples(reach, side, [&](double v) { return kernel_envelope(v, side); });
    const Vector curvature_spectrum = sampled_spectrum(sizes[kk], curvature, fft);
    const Vector envelope_spectrum = d == 1 ? Vector() : sampled_spectrum(sizes[kk], envelope, fft);
    samples[0].push_back(gaussian);
    kernels[0].push_back(sampled_spectrum(sizes[kk], gaussian, fft));
    for (Index l = 0; l < d; ++l) {
      const auto i = static_cast<std::size_t>(l + 1);
      samples[i].push_back(l == k ? curvature : envelope);
      kernels[i].push_back(l == k ? curvature_spectrum : envelope_spectrum);
    }
  }
  const std::vector<std::vector<double>> convolved =
      convolve_with_separable_kernels(binned, sizes, kernels, fft);

  // Absolute allowances (W = 1): the far points, and the rounding of every convolution.
  double widest = 0.0;
  for (const double side : plan.cell) widest = std::max(widest, side);
  const double far = std::exp(-0.5 * std::pow(plan.radius - widest, 2));
  double absolute = far;
  const double rounding_scale =
      5.0 * std::numeric_limits<double>::epsilon() * std::log2(plan.cells) * binned_norm;
  std::vector<double> error_factors;  // δ_k²/8
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    double peak = 1.0;
    for (const Vector& spectrum : kernels[i]) peak *= spectrum.cwiseAbs().maxCoeff();
    const double factor = i == 0 ? 1.0 : plan.cell[i - 1] * plan.cell[i - 1] / 8.0;
    error_factors.push_back(factor);
    absolute += factor * rounding_scale * peak;
  }

  // A grid point off its node by η per coordinate changes each term within U by a factor within
  // e^{±√d η (U + √d η)}.
  const double shift = std::sqrt(static_cast<double>(d)) * grid.largest_deviation;
  const double deviation = std::expm1(shift * (plan.radius + shift));
  // |Ŝ − S| ≤ bound, so S ≥ Ŝ − bound: within ε S when bound ≤ ε (Ŝ − bound).
  const auto within_tolerance = [&](double value, double bound) {
    bound += deviation * (std::abs(value) + bound);
    return bound <= relative_tolerance * (value - bound);
  };

  const Index m = centred_queries.cols();
  Vector result(m);
  std::vector<Index> recompute;
  std::vector<std::vector<Index>> nodes;  // the binning-grid node of each grid point recomputed
  for (Index j = 0; j < m; ++j) {
    Index rest = j;
    std::size_t position = 0;
    std::vector<Index> node(static_cast<std::size_t>(d));
    for (Index k = 0; k < d; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const Index step = rest % grid.counts[kk];
      rest /= grid.counts[kk];
      node[kk] = step * plan.refinement[kk] - plan.first[kk];
      position += static_cast<std::size_t>(node[kk]) * strides[kk];
    }
    const double value = convolved[0][position];
    double bound = absolute;
    for (std::size_t i = 1; i < convolved.size(); ++i) {
      bound += error_factors[i] * std::max(0.0, convolved[i][position]);
    }
    if (within_tolerance(value, bound)) {
      result(j) = std::log(value);
    } else {
      recompute.push_back(j);
      nodes.push_back(std::move(node));
    }
  }

  // Where the FFT's rounding swamps a small sum (the tails), the same convolutions summed
  // directly over the kernel's reach have no FFT rounding: worth it while they cost less than the
  // exact sums. Their own rounding is below (terms) · ε relative, all terms being non-negative.
  double direct_terms = static_cast<double>(d + 1);
  for (Index k = 0; k < d; ++k) {
    direct_terms *= static_cast<double>(2 * plan.reach[static_cast<std::size_t>(k)] + 1);
  }
  const bool direct = direct_terms < static_cast<double>(reference.size());
  const double direct_rounding = direct_terms * std::numeric_limits<double>::epsilon();
  std::vector<Index> exact_queries;
  BinnedFallbacks counts;
  for (std::size_t r = 0; r < recompute.size(); ++r) {
    if (direct) {
      std::vector<double> sums(samples.size());
      for (std::size_t i = 0; i < samples.size(); ++i) {
        sums[i] = direct_convolution(binned, plan, strides, nodes[r], samples[i], d - 1, 0);
      }
      double bound = far;
      for (std::size_t i = 1; i < sums.size(); ++i) bound += error_factors[i] * sums[i];
      bound += direct_rounding * (sums[0] + bound);
      if (within_tolerance(sums[0], bound)) {
        result(recompute[r]) = std::log(sums[0]);
        ++counts.direct;
        continue;
      }
    }
    exact_queries.push_back(recompute[r]);
  }
  if (!exact_queries.empty()) {
    Matrix queries(d, static_cast<Index>(exact_queries.size()));
    for (std::size_t r = 0; r < exact_queries.size(); ++r) {
      queries.col(static_cast<Index>(r)) = centred_queries.col(exact_queries[r]);
    }
    const Vector exact = exact_log_kernel_sums(reference, queries, threads);
    for (std::size_t r = 0; r < exact_queries.size(); ++r) {
      result(exact_queries[r]) = exact(static_cast<Index>(r));
    }
  }
  counts.exact = static_cast<Index>(exact_queries.size());
  if (fallbacks != nullptr) *fallbacks = counts;
  return result;
}

}  // namespace cdens
