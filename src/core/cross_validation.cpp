#include "cdens/core/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"
#include "parallel/parallel.hpp"

namespace cdens {

std::vector<std::int32_t> draw_fold_labels(Index n, int folds, Rng& rng) {
  if (folds < 2) throw InvalidArgument("cross-validation needs at least 2 folds");
  if (n < folds) {
    // Both the data (x) and the option (folds) can be what the user must change.
    throw InvalidArgument("cannot split the " + std::to_string(n) + " samples of x into " +
                          std::to_string(folds) +
                          " cross-validation folds: give more samples or fewer folds");
  }
  const auto order = rng.permutation<std::uint32_t>(n);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (int k = 0; k < folds; ++k) {
    for (Index p = n * k / folds; p < n * (k + 1) / folds; ++p) {
      labels[order[static_cast<std::size_t>(p)]] = k;
    }
  }
  return labels;
}

KFold::KFold(Index n, int folds, Rng& rng)
    : n_(n), test_(static_cast<std::size_t>(std::max(folds, 0))) {
  const std::vector<std::int32_t> labels = draw_fold_labels(n, folds, rng);
  for (Index i = 0; i < n; ++i)
    test_[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])].push_back(i);
}

std::vector<Index> KFold::train(int k) const {
  std::vector<Index> indices;
  indices.reserve(static_cast<std::size_t>(n_));
  const auto& held_out = test(k);
  auto next = held_out.begin();
  for (Index i = 0; i < n_; ++i) {
    if (next != held_out.end() && *next == i) {
      ++next;
    } else {
      indices.push_back(i);
    }
  }
  return indices;
}

std::vector<int> KFold::fold_of() const {
  std::vector<int> folds(static_cast<std::size_t>(n_));
  for (int k = 0; k < n_folds(); ++k) {
    for (const Index i : test(k)) folds[static_cast<std::size_t>(i)] = k;
  }
  return folds;
}

Index best_candidate(const Vector& mean_loss) {
  Index best = -1;
  for (Index r = 0; r < mean_loss.size(); ++r) {
    if (std::isfinite(mean_loss(r)) && (best < 0 || mean_loss(r) < mean_loss(best))) best = r;
  }
  return best;
}

Index one_standard_error_row(const CvTable& table, Index parameter, bool simplest_is_largest) {
  if (table.best < 0) return -1;
  const double limit = table.mean_loss(table.best) + table.standard_error(table.best);
  const auto simpler = [&](Index a, Index b) {
    const double value = table.candidates(a, parameter), other = table.candidates(b, parameter);
    return simplest_is_largest ? value > other : value < other;
  };
  Index chosen = table.best;
  for (Index row = 0; row < table.candidates.rows(); ++row) {
    bool same_others = true;
    for (Index p = 0; p < table.candidates.cols(); ++p) {
      if (p != parameter && table.candidates(row, p) != table.candidates(table.best, p)) {
        same_others = false;
      }
    }
    if (same_others && table.mean_loss(row) <= limit && simpler(row, chosen)) chosen = row;
  }
  return chosen;
}

CvTable make_cv_table(std::vector<std::string> parameter_names, Matrix candidates,
                      const MatrixView& fold_loss, std::string loss) {
  const Index folds = fold_loss.cols();
  if (fold_loss.rows() != candidates.rows() || folds < 2 ||
      candidates.cols() != static_cast<Index>(parameter_names.size())) {
    throw InvalidArgument("make_cv_table: candidates, names and fold losses disagree in shape");
  }
  CvTable table;
  table.parameter_names = std::move(parameter_names);
  table.candidates = std::move(candidates);
  table.loss = std::move(loss);
  table.mean_loss = fold_loss.rowwise().mean();
  const Matrix deviations = fold_loss.colwise() - table.mean_loss;
  table.standard_error = (deviations.rowwise().squaredNorm() / (folds - 1.0)).cwiseSqrt() /
                         std::sqrt(static_cast<double>(folds));
  table.best = best_candidate(table.mean_loss);
  return table;
}

Matrix product_grid(const std::vector<double>& first, const std::vector<double>& second) {
  const auto first_count = static_cast<Index>(first.size());
  const auto second_count = static_cast<Index>(second.size());
  Matrix candidates(first_count * second_count, 2);
  for (Index i = 0; i < first_count; ++i) {
    for (Index j = 0; j < second_count; ++j) {
      candidates(i * second_count + j, 0) = first[static_cast<std::size_t>(i)];
      candidates(i * second_count + j, 1) = second[static_cast<std::size_t>(j)];
    }
  }
  return candidates;
}

bool at_grid_edge(const std::vector<double>& grid, double value) {
  return grid.size() > 1 && (value == *std::min_element(grid.begin(), grid.end()) ||
                             value == *std::max_element(grid.begin(), grid.end()));
}

std::vector<std::string> grid_edge_warnings(const CvTable& table,
                                            const std::vector<std::vector<double>>& grids) {
  std::vector<std::string> warnings;
  for (std::size_t p = 0; p < grids.size() && p < table.parameter_names.size(); ++p) {
    if (table.best >= 0 &&
        at_grid_edge(grids[p], table.candidates(table.best, static_cast<Index>(p)))) {
      warnings.push_back("the chosen " + table.parameter_names[p] +
                         " lies at the edge of its grid");
    }
  }
  return warnings;
}

Matrix k_fold_sample_losses(const KFold& folds, Index candidates, int threads,
                            const HeldOutLosses& losses, Progress& progress,
                            const std::string& label) {
  constexpr std::size_t kRun = 256;
  struct Run {
    int fold;
    std::vector<Index> samples;
  };
  std::vector<Run> runs;
  for (int k = 0; k < folds.n_folds(); ++k) {
    const auto& held_out = folds.test(k);
    for (std::size_t begin = 0; begin < held_out.size(); begin += kRun) {
      const auto end = std::min(held_out.size(), begin + kRun);
      runs.push_back({k, std::vector<Index>(held_out.begin() + static_cast<std::ptrdiff_t>(begin),
                                            held_out.begin() + static_cast<std::ptrdiff_t>(end))});
    }
  }
  Matrix result(candidates, folds.n_samples());
  progress.begin(label, static_cast<Index>(runs.size()));
  parallel_for(threads, static_cast<Index>(runs.size()), [&](Index r) {
    const Run& run = runs[static_cast<std::size_t>(r)];
    const Matrix run_losses = losses(run.fold, run.samples);
    if (run_losses.rows() != candidates ||
        run_losses.cols() != static_cast<Index>(run.samples.size())) {
      throw InvalidArgument("k_fold_sample_losses: a run returned losses of the wrong shape");
    }
    for (std::size_t j = 0; j < run.samples.size(); ++j) {
      result.col(run.samples[j]) = run_losses.col(static_cast<Index>(j));
    }
    progress.advance();
  });
  progress.end();
  return result;
}

Matrix fold_mean_losses(const MatrixView& sample_losses, const KFold& folds) {
  Matrix means = Matrix::Zero(sample_losses.rows(), folds.n_folds());
  for (int k = 0; k < folds.n_folds(); ++k) {
    for (Index i : folds.test(k)) means.col(k) += sample_losses.col(i);
    means.col(k) /= static_cast<double>(folds.test(k).size());
  }
  return means;
}

std::vector<double> log_spaced(double low, double high, int count) {
  if (!(low > 0.0 && high >= low && std::isfinite(high) && count >= 1)) {
    throw InvalidArgument("log_spaced needs finite 0 < low ≤ high and count ≥ 1");
  }
  std::vector<double> values(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const double fraction = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
    values[static_cast<std::size_t>(i)] =
        std::exp(std::log(low) + fraction * (std::log(high) - std::log(low)));
  }
  values.front() = low;
  values.back() = count == 1 ? low : high;
  return values;
}

nlohmann::json CvTable::to_json() const {
  return {{"parameter_names", parameter_names},
          {"candidates", matrix_to_json(candidates)},
          {"mean_loss", vector_to_json(mean_loss)},
          {"standard_error", vector_to_json(standard_error)},
          {"loss", loss},
          {"best", best}};
}

CvTable CvTable::from_json(const nlohmann::json& document) {
  CvTable table;
  reading_json("cross-validation table", [&] {
    table.parameter_names =
        json_member(document, "parameter_names").get<std::vector<std::string>>();
    table.loss = json_member(document, "loss").get<std::string>();
    table.best = json_integer(json_member(document, "best"), "cross-validation table: best", -1);
  });
  table.candidates = matrix_from_json(json_member(document, "candidates"), "CV candidates");
  table.mean_loss = vector_from_json(json_member(document, "mean_loss"), "CV mean loss");
  table.standard_error = vector_from_json(json_member(document, "standard_error"), "CV error");
  const Index rows = table.candidates.rows();
  if (table.candidates.cols() != static_cast<Index>(table.parameter_names.size()) ||
      table.mean_loss.size() != rows || table.standard_error.size() != rows || table.best < 0 ||
      table.best >= rows) {
    throw ModelFormatError("cross-validation table: its parts disagree in size");
  }
  return table;
}

}  // namespace cdens
