#include "model/tied_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "cdens/core/spelling.hpp"
#include "io/text.hpp"

namespace cdens {
namespace {

constexpr double kSpikeFraction = 0.25;

/// The largest step of which both a and b (a ≥ b > 0) are whole multiples within `tolerance`:
/// Euclid's algorithm on remainders, a remainder within the tolerance of 0 or of the divisor
/// counting as exact.
double common_step(double a, double b, double tolerance) {
  while (b > tolerance) {
    double remainder = std::fmod(a, b);
    if (remainder < tolerance || b - remainder < tolerance) return b;
    a = b;
    b = remainder;
  }
  return 0.0;
}

/// The distinct values, increasing.
std::vector<double> sorted_distinct(const VectorView& values) {
  std::vector<double> sorted(values.data(), values.data() + values.size());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  return sorted;
}

/// The differences between consecutive values of `sorted`.
std::vector<double> consecutive_gaps(const std::vector<double>& sorted) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < sorted.size(); ++i) gaps.push_back(sorted[i] - sorted[i - 1]);
  return gaps;
}

/// The common step (common_step) of `start` and every one of `gaps` in turn, 0 once there is
/// none.
double common_step_of(const std::vector<double>& gaps, double start, double tolerance) {
  double step = start;
  for (std::size_t i = 0; i < gaps.size() && step > 0.0; ++i) {
    step = common_step(std::max(step, gaps[i]), std::min(step, gaps[i]), tolerance);
  }
  return step;
}

}  // namespace

std::vector<OutputTies> output_ties(const MatrixView& y) {
  std::vector<OutputTies> result;
  for (Index d = 0; d < y.rows(); ++d) {
    std::vector<double> values(y.row(d).begin(), y.row(d).end());
    std::sort(values.begin(), values.end());
    OutputTies ties;
    ties.resolution = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0 && values[i] == values[i - 1]) continue;
      ++ties.distinct;
      if (i > 0) ties.resolution = std::min(ties.resolution, values[i] - values[i - 1]);
    }
    if (ties.distinct < 2) ties.resolution = 0.0;
    result.push_back(ties);
  }
  return result;
}

double recording_step(const VectorView& values) {
  if (!values.allFinite()) return 0.0;
  const std::vector<double> sorted = sorted_distinct(values);
  if (sorted.size() < 2) return 0.0;
  const double range = sorted.back() - sorted.front();
  const std::vector<double> gaps = consecutive_gaps(sorted);
  const double smallest_gap = std::min(range, *std::min_element(gaps.begin(), gaps.end()));
  const double step = common_step_of(gaps, smallest_gap, 1e-6 * smallest_gap);
  return step >= 1e-6 * range ? step : 0.0;
}

double recording_step(const VectorView& values, const Communicator& communicator) {
  if (communicator.size() == 1) return recording_step(values);
  // Every difference between two values is a whole multiple of Δ exactly when, on each rank, the
  // gaps between its consecutive values and the distance of its smallest value from the smallest
  // of all ranks are: each rank takes the common step of its own, then of the ranks' steps.
  const std::vector<double> sorted = sorted_distinct(values);
  double extremes[3] = {values.allFinite() ? 0.0 : 1.0, -INFINITY, -INFINITY};
  if (!sorted.empty()) {
    extremes[1] = sorted.back();
    extremes[2] = -sorted.front();
  }
  communicator.allreduce_max(extremes, 3);
  const double range = extremes[1] + extremes[2];
  if (extremes[0] > 0.0 || !(range > 0.0)) return 0.0;
  std::vector<double> gaps = consecutive_gaps(sorted);
  if (!sorted.empty() && sorted.front() + extremes[2] > 0.0) {
    gaps.push_back(sorted.front() + extremes[2]);
  }
  double negated_smallest = -range;
  for (const double gap : gaps) negated_smallest = std::max(negated_smallest, -gap);
  communicator.allreduce_max(&negated_smallest, 1);
  const double smallest_gap = -negated_smallest;
  const double tolerance = 1e-6 * smallest_gap;
  const std::vector<double> steps =
      communicator.gather_all({common_step_of(gaps, smallest_gap, tolerance)});
  if (std::find(steps.begin(), steps.end(), 0.0) != steps.end()) return 0.0;
  const double step = common_step_of(steps, smallest_gap, tolerance);
  return step >= 1e-6 * range ? step : 0.0;
}

bool is_tied(const OutputTies& ties, Index n) { return 2 * ties.distinct < n; }

AtomSearch find_output_atom(const VectorView& values, const Vector& weights) {
  const bool weighted = weights.size() > 0;
  if (weighted && weights.size() != values.size()) {
    throw InvalidArgument("find_output_atom: one weight per value is needed");
  }
  std::vector<std::pair<double, double>> sorted;  // (value, weight) of the finite values
  for (Index i = 0; i < values.size(); ++i) {
    if (std::isfinite(values(i))) sorted.emplace_back(values(i), weighted ? weights(i) : 1.0);
  }
  std::sort(sorted.begin(), sorted.end());
  AtomSearch search;
  search.weighted = weighted;
  search.n = weighted ? weights.sum() : static_cast<double>(values.size());
  // Runs of equal values: the heaviest is the candidate, the second heaviest its rival.
  for (std::size_t start = 0; start < sorted.size();) {
    std::size_t end = start;
    double count = 0.0;
    while (end < sorted.size() && sorted[end].first == sorted[start].first) {
      count += sorted[end].second;
      ++end;
    }
    if (count > search.count) {
      search.next_count = search.count;
      search.count = count;
      search.value = sorted[start].first;
    } else if (count > search.next_count) {
      search.next_count = count;
    }
    ++search.other_values;
    start = end;
  }
  if (search.other_values > 0) --search.other_values;  // the candidate's own
  search.found = search.n > 0.0 && search.count >= kAtomShare * search.n &&
                 search.count >= kAtomDominance * search.next_count &&
                 search.other_values > kAtomOtherLevels;
  return search;
}

AtomDecision decide_output_atom(const std::string& atom, const VectorView& values,
                                const Vector& weights) {
  if (atom == "none") return {};
  if (atom == "auto") {
    const AtomSearch search = find_output_atom(values, weights);
    if (!search.found) return {};
    return {search.value, "atom found (atom = auto): " + search.description()};
  }
  const double value = parse_number(atom, "option atom");
  const Index count = (values.array() == value).count();
  if (count < 2 || values.size() - count < 2) {
    throw InvalidArgument("atom = " + atom + ": " + std::to_string(count) + " of the " +
                          std::to_string(values.size()) +
                          " rows of y are at it; an atom needs at least 2 rows at it and 2 "
                          "beside it");
  }
  return {value, "atom given: " + std::to_string(count) + " of the " +
                     std::to_string(values.size()) + " rows at " + exact_text(value)};
}

std::string AtomSearch::description() const {
  char text[256];
  const double share = n > 0.0 ? 100.0 * count / n : 0.0;
  const double ratio =
      next_count > 0.0 ? count / next_count : std::numeric_limits<double>::infinity();
  char rows[64];
  if (weighted) {
    std::snprintf(rows, sizeof(rows), "the rows by weight");
  } else {
    std::snprintf(rows, sizeof(rows), "the %lld rows", static_cast<long long>(n));
  }
  std::snprintf(text, sizeof(text),
                "%.6g carries %.3g %% of %s, %.3g times the next most frequent value, beside %lld "
                "other values",
                value, share, rows, ratio, static_cast<long long>(other_values));
  return text;
}

std::optional<std::string> spike_warning(const MatrixView& y_standard, double sigma,
                                         const std::vector<double>& sigmas,
                                         const std::vector<std::string>& y_names) {
  const Spelling& spelling = message_spelling();
  // Only a width that cross-validation chose; one the user fixed is the user's decision.
  if (sigmas.size() < 2) return {};
  const std::vector<OutputTies> ties = output_ties(y_standard);
  std::string tied;
  std::string first_tied;  // the column a declaration names
  double resolution = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < ties.size(); ++d) {
    // Below a quarter of the gap between neighbouring values the density halfway between two
    // of them is under e⁻² of its peaks: a train of spikes. Above it the atoms blend.
    if (!is_tied(ties[d], y_standard.cols()) || !(sigma < kSpikeFraction * ties[d].resolution)) {
      continue;
    }
    const std::string name =
        d < y_names.size() ? "'" + y_names[d] + "'" : "dimension " + std::to_string(d + 1);
    if (first_tied.empty()) first_tied = d < y_names.size() ? y_names[d] : "COLUMN";
    tied += (tied.empty() ? "" : ", ") + name + " (" + std::to_string(ties[d].distinct) +
            " distinct values in " + std::to_string(y_standard.cols()) + ")";
    resolution = std::min(resolution, ties[d].resolution);
  }
  if (tied.empty()) return {};
  char floor[32];
  std::snprintf(floor, sizeof(floor), "%.3g", resolution);
  return "the chosen sigma is below a quarter of the gap between neighbouring values of the "
         "output " +
         tied +
         ", which repeats its values: cross-validation rewards spikes on the repeated values, so "
         "the model is a set of spikes, not a density. If the output is discrete, declare it (" +
         spelling.method("kcde", {{"ordered", first_tied}}) +
         ") for a probability mass function; otherwise keep sigma at the data's resolution (" +
         spelling.option_name("sigma") + " candidates from " + floor +
         " up, in standardised units)";
}

}  // namespace cdens
