#include <algorithm>
#include <cmath>
#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/math_constants.hpp"
#include "core/random_streams.hpp"
#include "core/validate.hpp"
#include "evaluation/draw_blocks.hpp"
#include "evaluation/level_forecasts.hpp"
#include "evaluation/randomized_values.hpp"

namespace cdens {
namespace {

/// Kolmogorov's limiting survival function Q(λ) = P(√n D > λ): the alternating series
/// 2 Σ (−1)^{k−1} exp(−2 k² λ²) for λ ≥ 1.18 and 1 − (√(2π)/λ) Σ exp(−(2k − 1)² π² / (8 λ²))
/// below, where each converges within a few terms (Numerical Recipes, §6.14).
double kolmogorov_survival(double lambda) {
  if (lambda <= 0.0) return 1.0;
  double sum = 0.0;
  if (lambda < 1.18) {
    for (int k = 1; k <= 20; ++k) {
      const double odd = 2.0 * k - 1.0;
      sum += std::exp(-odd * odd * kPi * kPi / (8.0 * lambda * lambda));
    }
    return std::clamp(1.0 - std::sqrt(2.0 * kPi) / lambda * sum, 0.0, 1.0);
  }
  for (int k = 1; k <= 100; ++k) {
    sum += (k % 2 == 1 ? 2.0 : -2.0) * std::exp(-2.0 * k * k * lambda * lambda);
  }
  return std::clamp(sum, 0.0, 1.0);
}

/// The smallest k with P(Binomial(n, p) ≤ k) ≥ probability, summing the probabilities in log
/// space from k = 0.
Index binomial_quantile(Index n, double p, double probability) {
  if (p <= 0.0) return 0;
  if (p >= 1.0) return n;
  const double log_p = std::log(p);
  const double log_q = std::log1p(-p);
  const double n_real = static_cast<double>(n);
  double cumulative = 0.0;
  for (Index k = 0; k < n; ++k) {
    const double k_real = static_cast<double>(k);
    cumulative +=
        std::exp(std::lgamma(n_real + 1.0) - std::lgamma(k_real + 1.0) -
                 std::lgamma(n_real - k_real + 1.0) + k_real * log_p + (n_real - k_real) * log_q);
    if (cumulative >= probability) return k;
  }
  return n;
}

void require_level(double level, const char* what) {
  if (!(level > 0.0 && level < 1.0)) {
    throw InvalidArgument(std::string(what) + " must lie strictly between 0 and 1, got " +
                          std::to_string(level));
  }
}

void require_unit_values(const Vector& values, const char* what) {
  if (values.size() == 0) throw DataError(std::string(what) + ": no values");
  if (!((values.array() >= 0.0) && (values.array() <= 1.0)).all()) {
    throw InvalidArgument(std::string(what) + ": the values must lie in [0, 1]");
  }
}

/// HPD values by Monte Carlo for any d_y (HighestDensityValues::draws).
Vector sampled_highest_density_values(const ConditionalMixture& model, const MatrixView& x,
                                      const MatrixView& y, Index draws, std::uint64_t seed,
                                      Progress& progress) {
  const Vector observed = model.log_pdf(x, y);
  Vector values(x.cols());
  detail::for_each_draw_block(
      model, x, draws, seed, progress, [&](Index first, const Matrix& sample) {
        const Index count = sample.cols() / draws;
        Matrix repeated(x.rows(), sample.cols());
        for (Index b = 0; b < count; ++b) {
          repeated.middleCols(b * draws, draws).colwise() = x.col(first + b);
        }
        const Vector log_density = model.log_pdf(repeated, sample);
        for (Index b = 0; b < count; ++b) {
          const Index j = first + b;
          const auto drawn = log_density.segment(b * draws, draws).array();
          const double above = (drawn > observed(j)).cast<double>().sum();
          const double ties = (drawn == observed(j)).cast<double>().sum();
          // The uniform draw uses a stream of its own per pair, apart from the sample's. Scaled by
          // ties + 1 it is a uniform integer in 0 … ties (y's place among the draws as probable as
          // it) plus a uniform fraction.
          Rng rng(seed, random_stream::randomized_hpd(j));
          values(j) = (above + (ties + 1.0) * rng.uniform()) / static_cast<double>(draws + 1);
        }
      });
  return values;
}

/// below(p̂_i, y_i) + V_i p̂(y_i|x_i) for every pair of a one-dimensional discrete y, V_i ~
/// Uniform(0, 1) from the stream stream(i) of `seed`: a step of height p̂(y_i|x_i) at y_i, where
/// below is the probability under it, randomised over the step.
template <class Below>
Vector randomized_over_levels(const ConditionalMixture& model, const MatrixView& x,
                              const MatrixView& y, std::uint64_t seed,
                              std::uint64_t (*stream)(Index), Below below) {
  require_dimension(y, 1, "y");
  require_finite(y, "y");
  const std::vector<detail::LevelDistribution> forecasts = detail::level_forecasts(model, x);
  Vector values(y.cols());
  for (Index j = 0; j < y.cols(); ++j) {
    const detail::LevelDistribution& forecast = forecasts[static_cast<std::size_t>(j)];
    Rng rng(seed, stream(j));
    values(j) =
        std::min(1.0, below(forecast, y(0, j)) + rng.uniform() * forecast.probability(y(0, j)));
  }
  return values;
}

}  // namespace

namespace detail {

Vector randomized_at_atom(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                          std::uint64_t seed, std::uint64_t (*stream)(Index), Vector values) {
  if (!model.atom()) return values;
  const double atom = model.atom()->value;
  std::vector<Index> pairs;
  for (Index j = 0; j < y.cols(); ++j) {
    if (y(0, j) == atom) pairs.push_back(j);
  }
  if (pairs.empty()) return values;
  Matrix at_atom(x.rows(), static_cast<Index>(pairs.size()));
  for (std::size_t p = 0; p < pairs.size(); ++p)
    at_atom.col(static_cast<Index>(p)) = x.col(pairs[p]);
  const Vector probabilities = model.atom_probability(at_atom);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const Index j = pairs[p];
    const double mass = probabilities(static_cast<Index>(p));
    Rng rng(seed, stream(j));
    values(j) = std::clamp(values(j) - (1.0 - rng.uniform()) * mass, 0.0, 1.0);
  }
  return values;
}

}  // namespace detail

Vector pit_values(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                  std::uint64_t seed) {
  require_same_samples(x, "x", y, "y");
  require_nonempty(y, "the evaluation data");
  if (model.atom()) {
    require_dimension(y, 1, "y");
    return detail::randomized_at_atom(model, x, y, seed, random_stream::randomized_pit,
                                      model.cdf(x, y));
  }
  if (!detail::has_discrete_scalar_output(model)) return model.cdf(x, y);
  detail::require_discrete_scalar_output(model, "the PIT", true);
  return randomized_over_levels(model, x, y, seed, random_stream::randomized_pit,
                                [](const detail::LevelDistribution& forecast, double value) {
                                  return forecast.probability_below(value);
                                });
}

HighestDensityValues highest_density_values(const ConditionalMixture& model, const MatrixView& x,
                                            const MatrixView& y, Index draws, std::uint64_t seed,
                                            Progress& progress) {
  require_same_samples(x, "x", y, "y");
  require_nonempty(y, "the evaluation data");
  if (detail::has_discrete_scalar_output(model)) {
    // Ranked as the highest-probability sets rank the levels: h_i ≤ α only where y_i is in the
    // set of level α.
    return {randomized_over_levels(model, x, y, seed, random_stream::randomized_hpd,
                                   [](const detail::LevelDistribution& forecast, double value) {
                                     return forecast.probability_ranked_before(value);
                                   }),
            0};
  }
  if (model.atom()) {
    // The atom is ranked first: at it the randomised value V_j π_a(x_j).
    require_dimension(y, 1, "y");
    return {detail::randomized_at_atom(model, x, y, seed, random_stream::randomized_hpd,
                                       model.highest_density_probability(x, y)),
            0};
  }
  if (model.output_dim() == 1) return {model.highest_density_probability(x, y), 0};
  if (draws < 1) {
    throw InvalidArgument("HPD values of a " + std::to_string(model.output_dim()) +
                          "-dimensional y need at least one draw per pair");
  }
  require_dimension(y, model.output_dim(), "y");
  require_finite(y, "y");
  return {sampled_highest_density_values(model, x, y, draws, seed, progress), draws};
}

UniformityTest uniformity_test(const Vector& values) {
  require_unit_values(values, "the uniformity test");
  Vector sorted = values;
  std::sort(sorted.data(), sorted.data() + sorted.size());
  const double n = static_cast<double>(sorted.size());
  double statistic = 0.0;
  for (Index i = 0; i < sorted.size(); ++i) {
    const double rank = static_cast<double>(i);
    statistic = std::max({statistic, (rank + 1.0) / n - sorted(i), sorted(i) - rank / n});
  }
  const double root_n = std::sqrt(n);
  return {statistic, kolmogorov_survival((root_n + 0.12 + 0.11 / root_n) * statistic)};
}

ShareBand binomial_band(Index n, double p, double level) {
  require_level(level, "the band level");
  if (n < 1) throw DataError("a binomial band needs at least one trial");
  const double n_real = static_cast<double>(n);
  return {static_cast<double>(binomial_quantile(n, p, 0.5 * (1.0 - level))) / n_real,
          static_cast<double>(binomial_quantile(n, p, 0.5 * (1.0 + level))) / n_real};
}

UniformHistogram uniform_histogram(const Vector& values, Index bins, double band_level) {
  require_unit_values(values, "the histogram");
  if (bins < 1) throw InvalidArgument("the histogram needs at least one bin");
  UniformHistogram histogram;
  histogram.edges = Vector::LinSpaced(bins + 1, 0.0, 1.0);
  histogram.counts = Vector::Zero(bins);
  for (Index i = 0; i < values.size(); ++i) {
    // A value of exactly 1 belongs to the last bin.
    const auto bin = std::min(bins - 1, static_cast<Index>(values(i) * static_cast<double>(bins)));
    histogram.counts(bin) += 1.0;
  }
  const ShareBand band = binomial_band(values.size(), 1.0 / static_cast<double>(bins), band_level);
  const double n = static_cast<double>(values.size());
  histogram.band_lower = band.lower * n;
  histogram.band_upper = band.upper * n;
  return histogram;
}

Matrix central_coverage(const Vector& pit, const std::vector<double>& levels) {
  require_unit_values(pit, "central coverage");
  require_open_unit_interval(levels, "coverage levels");
  Matrix inside(static_cast<Index>(levels.size()), pit.size());
  for (Index r = 0; r < inside.rows(); ++r) {
    const double level = levels[static_cast<std::size_t>(r)];
    inside.row(r) = ((pit.array() - 0.5).abs() <= 0.5 * level).cast<double>().matrix().transpose();
  }
  return inside;
}

Matrix highest_density_coverage(const Vector& hpd, const std::vector<double>& levels) {
  require_unit_values(hpd, "highest-density coverage");
  require_open_unit_interval(levels, "coverage levels");
  Matrix inside(static_cast<Index>(levels.size()), hpd.size());
  for (Index r = 0; r < inside.rows(); ++r) {
    inside.row(r) =
        (hpd.array() <= levels[static_cast<std::size_t>(r)]).cast<double>().matrix().transpose();
  }
  return inside;
}

CoverageCurve coverage_curve(const Vector& pit, const Vector& hpd,
                             const std::vector<double>& levels, double band_level) {
  if (pit.size() == 0 && hpd.size() == 0) {
    throw InvalidArgument("the coverage curve needs PIT or HPD values");
  }
  if (pit.size() != 0 && hpd.size() != 0 && pit.size() != hpd.size()) {
    throw InvalidArgument("the coverage curve got " + std::to_string(pit.size()) +
                          " PIT values for " + std::to_string(hpd.size()) + " HPD values");
  }
  CoverageCurve curve;
  curve.levels = Eigen::Map<const Vector>(levels.data(), static_cast<Index>(levels.size()));
  if (hpd.size() != 0)
    curve.highest_density = highest_density_coverage(hpd, levels).rowwise().mean();
  if (pit.size() != 0) curve.central = central_coverage(pit, levels).rowwise().mean();
  const Index n = std::max(pit.size(), hpd.size());
  curve.band_lower.resize(curve.levels.size());
  curve.band_upper.resize(curve.levels.size());
  for (Index r = 0; r < curve.levels.size(); ++r) {
    const ShareBand band = binomial_band(n, curve.levels(r), band_level);
    curve.band_lower(r) = band.lower;
    curve.band_upper(r) = band.upper;
  }
  return curve;
}

}  // namespace cdens
