#include "model_report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <utility>

#include "cdens/core/types.hpp"
#include "io/text.hpp"

namespace cdens::cli {
namespace {

/// Position of `value` in `values`, appending it when new (first-appearance order).
std::size_t position_of(std::vector<double>& values, double value) {
  const auto found = std::find(values.begin(), values.end(), value);
  if (found != values.end()) return static_cast<std::size_t>(found - values.begin());
  values.push_back(value);
  return values.size() - 1;
}

std::string loss_description(const std::string& loss) {
  if (loss == "kl") return "kl (negative log-likelihood)";
  if (loss == "sq") return "sq (squared error up to a constant)";
  if (loss == "joint_nll") return "joint_nll (negative log-likelihood of the joint KDE p(x, y))";
  if (loss == "marginal_nll") return "marginal_nll (negative log-likelihood of the KDE p(x))";
  return loss;
}

/// A CV loss cell: non-finite losses (a candidate whose fit broke down) print as "-".
std::string format_loss(double loss) { return std::isfinite(loss) ? format_short(loss) : "-"; }

/// The table as a matrix: rows are the first parameter's values, columns the second's.
void print_cv_matrix(std::ostream& out, const CvTable& table) {
  std::vector<double> row_values, column_values;
  std::vector<std::pair<std::size_t, std::size_t>> cell_of_candidate;
  for (Index i = 0; i < table.candidates.rows(); ++i) {
    const std::size_t row = position_of(row_values, table.candidates(i, 0));
    const std::size_t column = position_of(column_values, table.candidates(i, 1));
    cell_of_candidate.emplace_back(row, column);
  }
  // Cells the grid did not contain stay empty.
  std::vector<std::vector<std::string>> cells(row_values.size(),
                                              std::vector<std::string>(column_values.size()));
  for (std::size_t i = 0; i < cell_of_candidate.size(); ++i) {
    const auto [row, column] = cell_of_candidate[i];
    const bool best = static_cast<Index>(i) == table.best;
    // A candidate listed twice keeps its first cell, where ties put the best mark.
    if (!cells[row][column].empty() && !best) continue;
    cells[row][column] = format_loss(table.mean_loss(static_cast<Index>(i))) + (best ? "*" : " ");
  }

  const std::string corner = table.parameter_names[0] + " \\ " + table.parameter_names[1];
  std::size_t label_width = corner.size();
  for (double value : row_values) label_width = std::max(label_width, format_short(value).size());
  std::size_t cell_width = 0;
  for (double value : column_values) cell_width = std::max(cell_width, format_short(value).size());
  for (const auto& row : cells) {
    for (const auto& cell : row) cell_width = std::max(cell_width, cell.size());
  }
  cell_width += 2;

  out << "cross-validation: mean held-out loss (rows " << table.parameter_names[0] << ", columns "
      << table.parameter_names[1] << "; * marks the smallest)\n";
  // Lines are assembled first so that the space reserved for a '*' does not trail them.
  const auto emit = [&out](const std::ostringstream& line) {
    std::string text = line.str();
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  };
  std::ostringstream header;
  header << "  " << std::setw(static_cast<int>(label_width)) << corner;
  // The '*' hangs after a number, so headers are padded to line up with the numbers.
  for (double value : column_values) {
    header << std::setw(static_cast<int>(cell_width)) << format_short(value) + " ";
  }
  emit(header);
  for (std::size_t row = 0; row < row_values.size(); ++row) {
    std::ostringstream line;
    line << "  " << std::setw(static_cast<int>(label_width)) << format_short(row_values[row]);
    for (const auto& cell : cells[row]) {
      line << std::setw(static_cast<int>(cell_width)) << (cell.empty() ? "  " : cell);
    }
    emit(line);
  }
}

/// The table as one line per candidate, for any number of hyper-parameters.
void print_cv_list(std::ostream& out, const CvTable& table) {
  out << "cross-validation: mean held-out loss per candidate (* marks the smallest)\n";
  constexpr int kWidth = 14;
  out << "  ";
  for (const auto& name : table.parameter_names) out << std::setw(kWidth) << name;
  out << std::setw(kWidth) << "mean loss" << std::setw(kWidth) << "std. error" << '\n';
  for (Index i = 0; i < table.candidates.rows(); ++i) {
    out << "  ";
    for (Index p = 0; p < table.candidates.cols(); ++p) {
      out << std::setw(kWidth) << format_short(table.candidates(i, p));
    }
    out << std::setw(kWidth) << format_loss(table.mean_loss(i)) << std::setw(kWidth)
        << format_loss(table.standard_error(i)) << (i == table.best ? " *" : "") << '\n';
  }
}

void print_method_selection(std::ostream& out, const MethodSelection& selection) {
  const std::string scores =
      selection.validation == "loo"
          ? "held-out NLL per candidate over " + std::to_string(selection.scored_pairs) +
                " pairs (loo: its fit's own leave-one-out terms; " +
                std::to_string(selection.folds) + "-fold: refits)"
          : std::to_string(selection.folds) + "-fold cross-validated NLL per candidate";
  out << "method_selection: " << scores
      << " (* marks the one of the largest weight; difference from it with its paired standard "
         "error; weight in the fitted pool)\n";
  constexpr int kWidth = 12;
  std::size_t name_width = 10;
  for (const auto& score : selection.candidates) {
    name_width = std::max(name_width, score.candidate.size() + 2);
  }
  out << "  " << std::left << std::setw(static_cast<int>(name_width)) << "candidate" << std::right
      << std::setw(kWidth) << "mean NLL" << std::setw(kWidth) << "std. error" << std::setw(kWidth)
      << "difference" << std::setw(kWidth) << "paired SE" << std::setw(kWidth) << "weight"
      << std::setw(kWidth) << "seconds" << std::setw(kWidth) << "scored by" << '\n';
  const auto& chosen = selection.candidates[static_cast<std::size_t>(selection.chosen)];
  for (std::size_t c = 0; c < selection.candidates.size(); ++c) {
    const CandidateScore& score = selection.candidates[c];
    out << "  " << std::left << std::setw(static_cast<int>(name_width)) << score.candidate
        << std::right;
    if (score.scored()) {
      out << std::setw(kWidth) << format_loss(score.mean_nll) << std::setw(kWidth)
          << format_loss(score.standard_error) << std::setw(kWidth)
          << format_loss(score.mean_nll - chosen.mean_nll) << std::setw(kWidth)
          << format_loss(score.difference_standard_error) << std::setw(kWidth)
          << format_short(score.weight) << std::setw(kWidth) << format_short(score.seconds)
          << std::setw(kWidth) << (score.validation.empty() ? "kfold" : score.validation)
          << (static_cast<Index>(c) == selection.chosen ? " *" : "");
    } else {
      out << "  " << score.status;
      if (score.ran()) out << " (after " << format_short(score.seconds) << " s)";
    }
    out << '\n';
  }
  if (!std::isnan(selection.pooled_mean_nll)) {
    out << "pooled_mean_nll: " << format_loss(selection.pooled_mean_nll)
        << " (the pool's held-out NLL, its weights chosen on the same scores)\n";
  }
  out << "time_budget: " << format_short(selection.time_budget)
      << " s (no candidate starts after it is used up; the first always runs)\n";
}

}  // namespace

void print_variables(std::ostream& out, const std::vector<std::string>& x_names,
                     const std::vector<std::string>& y_names) {
  out << "x_variables: " << join(x_names, ",") << '\n'
      << "y_variables: " << join(y_names, ",") << '\n'
      << "d_x: " << x_names.size() << '\n'
      << "d_y: " << y_names.size() << '\n';
}

void print_output_kinds(std::ostream& out, const ConditionalModel& model) {
  for (const auto& [name, labels] : model.labels) {
    out << "labels_" << name << ": " << join(labels, ",") << '\n';
  }
  const ColumnKernels& kernels = model.mixture.output_kernels();
  std::vector<std::string> kinds;
  std::vector<std::string> continuous;
  std::vector<std::string> discrete;
  for (std::size_t d = 0; d < kernels.size(); ++d) {
    kinds.push_back(to_string(kernels[d].kind()));
    const std::string name = d < model.y_names.size() ? model.y_names[d] : "y" + std::to_string(d);
    (kernels[d].is_discrete() ? discrete : continuous).push_back(name);
  }
  if (discrete.empty()) {
    out << "scores: log density\n";
    // The support the components are truncated to (docs/design.md, "Output bounds").
    const OutputBounds& bounds = model.mixture.output_bounds();
    if (std::isfinite(bounds.y_lower)) out << "y_lower: " << format_short(bounds.y_lower) << '\n';
    if (std::isfinite(bounds.y_upper)) out << "y_upper: " << format_short(bounds.y_upper) << '\n';
    return;
  }
  out << "output_kinds: " << join(kinds, ",") << '\n';
  if (continuous.empty()) {
    out << "scores: log probability mass\n";
  } else {
    out << "scores: log (density of " << join(continuous, ",") << " x probability mass of "
        << join(discrete, ",") << ")\n";
  }
}

void print_cv_table(std::ostream& out, const CvTable& table) {
  // CvTable::from_json does not check that the parts fit together; a damaged file must not
  // send the printer out of bounds.
  const Index candidates = table.candidates.rows();
  if (table.candidates.cols() != static_cast<Index>(table.parameter_names.size()) ||
      table.mean_loss.size() != candidates || table.standard_error.size() != candidates ||
      table.best < -1 || table.best >= candidates) {
    throw ModelFormatError("the cross-validation table's parts disagree in size");
  }
  if (table.parameter_names.size() == 2) {
    print_cv_matrix(out, table);
  } else {
    print_cv_list(out, table);
  }
  out << "cv_loss: " << loss_description(table.loss) << '\n';
}

void print_feature_selection(std::ostream& out, const ConditionalModel& model) {
  if (!model.report.feature_selection) return;
  std::vector<std::string> names;
  for (const Index d : model.report.feature_selection->selected) {
    names.push_back(model.x_names[static_cast<std::size_t>(d)]);
  }
  out << "selected_features: " << join(names, ", ") << '\n';
}

void print_fit_report(std::ostream& out, const FitReport& report) {
  if (report.method_selection) print_method_selection(out, *report.method_selection);
  if (report.cross_validation) {
    print_cv_table(out, *report.cross_validation);
  } else if (!report.parameter_choice.empty()) {
    out << "cross-validation: " << report.parameter_choice << '\n';
  } else {
    out << "cross-validation: none (a single candidate)\n";
  }
  for (const auto& [name, table] : report.auxiliary_cross_validation) {
    out << "auxiliary_cross_validation: " << name << '\n';
    print_cv_table(out, table);
  }
  // Hyper-parameters in the order of the CV table (sigma before lambda), then the rest.
  std::vector<std::string> order;
  if (report.cross_validation) order = report.cross_validation->parameter_names;
  for (const auto& [name, value] : report.hyperparameters) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  for (const auto& name : order) {
    const auto found = report.hyperparameters.find(name);
    if (found != report.hyperparameters.end()) {
      out << name << ": " << format_short(found->second) << '\n';
    }
  }
  for (const auto& [name, value] : report.statistics) {
    out << name << ": " << format_short(value) << '\n';
  }
  out << "fit_seconds: " << format_short(report.fit_seconds) << '\n';
  for (const auto& warning : report.warnings) out << "warning: " << warning << '\n';
}

}  // namespace cdens::cli
