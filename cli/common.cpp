#include "common.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/validate.hpp"

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

}  // namespace

GridAxis parse_grid_axis(const std::string& spec, const std::string& flag) {
  const std::string what = flag + " '" + spec + "'";
  const auto parts = split_list(spec, ':', what);
  if (parts.size() != 3) throw InvalidArgument(what + ": expected START:STOP:COUNT");
  const double start = parse_number(parts[0], what + " START");
  const double stop = parse_number(parts[1], what + " STOP");
  const double count = parse_number(parts[2], what + " COUNT");
  if (!(start < stop)) throw InvalidArgument(what + ": START must be smaller than STOP");
  // The upper bound only keeps the conversion to Index defined; memory runs out long before.
  if (count != std::floor(count) || count < 2 || count > 1e12) {
    throw InvalidArgument(what + ": COUNT must be an integer of at least 2");
  }
  return {start, stop, static_cast<Index>(count)};
}

Matrix cartesian_grid(const std::vector<GridAxis>& axes, const std::string& flag,
                      double per_point) {
  double points = 1.0;
  for (const auto& axis : axes) points *= static_cast<double>(axis.count);
  // Checked before the product is formed as an Index, which it might overflow.
  require_memory_for(points * (static_cast<double>(axes.size()) + per_point), flag);
  const auto total = static_cast<Index>(points);
  Matrix grid(static_cast<Index>(axes.size()), total);
  for (Index point = 0; point < total; ++point) {
    Index rest = point;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const GridAxis& axis = axes[a];
      const Index step = rest % axis.count;
      rest /= axis.count;
      // The last value is STOP exactly, not STOP plus rounding error.
      grid(static_cast<Index>(a), point) =
          step == axis.count - 1
              ? axis.stop
              : axis.start + (axis.stop - axis.start) * static_cast<double>(step) /
                                 static_cast<double>(axis.count - 1);
    }
  }
  return grid;
}

CsvTable load_table(const std::string& path, bool no_header) {
  CsvFormat format;
  format.has_header = !no_header;
  return read_csv(path, format);
}

ColumnSelection choose_columns(const CsvTable& table, const std::vector<std::string>& specs) {
  const std::vector<Index> positions = resolve_columns(table, specs);
  ColumnSelection selection;
  for (Index position : positions) {
    selection.names.push_back(table.column_names[static_cast<std::size_t>(position)]);
  }
  selection.values = select_columns(table, positions);
  return selection;
}

ColumnSelection choose_columns(const CsvTable& table, const std::string& option_text,
                               const std::string& option_name,
                               const std::vector<std::string>& fallback) {
  return choose_columns(table,
                        option_text.empty() ? fallback : split_list(option_text, ',', option_name));
}

void require_disjoint(const ColumnSelection& x, const ColumnSelection& y) {
  for (const auto& name : y.names) {
    if (std::find(x.names.begin(), x.names.end(), name) != x.names.end()) {
      throw InvalidArgument("column '" + name + "' is chosen both as an x and as a y column");
    }
  }
}

bool has_named_columns(const CsvTable& table, const std::vector<std::string>& names) {
  return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
    return std::find(table.column_names.begin(), table.column_names.end(), name) !=
           table.column_names.end();
  });
}

namespace {

/// `read(document)` of the JSON file at `path`, with the path put in front of a format error.
template <class Read>
auto read_model_file(const std::string& path, const Read& read) {
  const nlohmann::json document = read_json_file(path);
  try {
    return read(document);
  } catch (const Error& error) {
    // A format error, or a value the model's parts refuse (a zero scale, coefficients that are
    // all zero): either way the file is what the user must look at.
    throw ModelFormatError(path + ": " + error.what());
  } catch (const nlohmann::json::exception& error) {
    // A field of the wrong JSON type that the library's reader did not check itself.
    throw ModelFormatError(path + ": " + error.what());
  }
}

}  // namespace

ModelFile load_model_file(const std::string& path) {
  return read_model_file(path, [](const nlohmann::json& document) {
    ConditionalModel model = conditional_model_from_json(document);
    // conditional_model_from_json has checked that the version is a supported integer.
    return ModelFile{std::move(model), document.at("version").get<int>()};
  });
}

DensityModel load_density_model_file(const std::string& path) {
  return read_model_file(path, density_model_from_json);
}

void require_draw_count(Index n, double numbers_per_draw) {
  if (n < 1) throw InvalidArgument("--n must be at least 1, got " + std::to_string(n));
  require_memory_for(static_cast<double>(n) * numbers_per_draw, "--n");
}

void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description) {
  const CLI::Validator digits_only(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
            status == std::errc() && end == text.data() + text.size()) {
          return {};
        }
        // A seed beyond 2⁶⁴ − 1 must not saturate into a different seed.
        return "must be an integer from 0 to 18446744073709551615, got '" + text + "'";
      },
      "UINT");
  command.add_option("--seed", seed, description)->check(digits_only);
}

void add_input_point_options(CLI::App& command, InputPointOptions& options) {
  command.add_option("--x-values", options.values,
                     "x points: '1,2,3' for a one-dimensional x, '1,2;3,4' (points separated by "
                     "';') otherwise");
  command.add_option("--x-file", options.file,
                     "CSV file holding the model's x columns (by name), one point per row");
}

Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options) {
  if (options.values.empty() == options.file.empty()) {
    throw InvalidArgument("give the x points with exactly one of --x-values and --x-file");
  }
  if (!options.file.empty()) {
    return choose_columns(load_table(options.file, false), model.x_names).values;
  }
  const Index dimension = model.mixture.input_dim();
  // For a one-dimensional x a comma separates points; otherwise it separates coordinates.
  const bool point_per_comma = dimension == 1 && options.values.find(';') == std::string::npos;
  const auto points = split_list(options.values, point_per_comma ? ',' : ';', "--x-values");
  Matrix x(dimension, static_cast<Index>(points.size()));
  for (std::size_t j = 0; j < points.size(); ++j) {
    const auto coordinates = parse_number_list(points[j], "--x-values");
    if (static_cast<Index>(coordinates.size()) != dimension) {
      throw InvalidArgument("--x-values: the point '" + points[j] + "' has " +
                            std::to_string(coordinates.size()) + " values but the model's x (" +
                            join(model.x_names, ",") + ") has " + std::to_string(dimension));
    }
    for (Index i = 0; i < dimension; ++i) {
      x(i, static_cast<Index>(j)) = coordinates[static_cast<std::size_t>(i)];
    }
  }
  return x;
}

void write_table(const std::string& path, const std::vector<std::string>& names,
                 const MatrixView& columns) {
  for (Index j = 0; j < columns.cols(); ++j) {
    for (Index i = 0; i < columns.rows(); ++i) {
      if (!std::isfinite(columns(i, j))) {
        throw DataError("computed a non-finite value in column '" +
                        names[static_cast<std::size_t>(i)] + "' of output row " +
                        std::to_string(j + 1));
      }
    }
  }
  if (path.empty()) {
    // main() checks standard output once the command is done, for every command alike.
    write_csv(std::cout, names, columns);
    return;
  }
  std::ostringstream text;
  write_csv(text, names, columns);
  write_file_atomically(path, text.str());
}

std::string join(const std::vector<std::string>& names, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) joined += (i ? separator : "") + names[i];
  return joined;
}

std::string format_short(double value) {
  if (std::isfinite(value) && value == std::round(value) && std::abs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

void print_variables(std::ostream& out, const std::vector<std::string>& x_names,
                     const std::vector<std::string>& y_names) {
  out << "x_variables: " << join(x_names, ",") << '\n'
      << "y_variables: " << join(y_names, ",") << '\n'
      << "d_x: " << x_names.size() << '\n'
      << "d_y: " << y_names.size() << '\n';
}

void print_output_kinds(std::ostream& out, const ConditionalModel& model) {
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

namespace {

void print_method_selection(std::ostream& out, const MethodSelection& selection) {
  out << "method_selection: " << selection.folds
      << "-fold cross-validated NLL per candidate (* marks the chosen one; difference from it "
         "with its paired standard error)\n";
  constexpr int kWidth = 12;
  std::size_t name_width = 10;
  for (const auto& score : selection.candidates) {
    name_width = std::max(name_width, score.candidate.size() + 2);
  }
  out << "  " << std::left << std::setw(static_cast<int>(name_width)) << "candidate" << std::right
      << std::setw(kWidth) << "mean NLL" << std::setw(kWidth) << "std. error" << std::setw(kWidth)
      << "difference" << std::setw(kWidth) << "paired SE" << std::setw(kWidth) << "seconds" << '\n';
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
          << format_short(score.seconds) << (static_cast<Index>(c) == selection.chosen ? " *" : "");
    } else {
      out << "  " << score.status << " (" << format_short(score.seconds) << " s)";
    }
    out << '\n';
  }
  out << "time_budget: " << format_short(selection.time_budget) << '\n';
}

}  // namespace

void print_fit_report(std::ostream& out, const FitReport& report) {
  if (report.method_selection) print_method_selection(out, *report.method_selection);
  if (report.cross_validation) {
    print_cv_table(out, *report.cross_validation);
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

HoldoutSplit split_for_holdout(Index n, double fraction, std::uint64_t seed) {
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw InvalidArgument("--holdout must lie strictly between 0 and 1, got " +
                          format_short(fraction));
  }
  const std::vector<Index> order = Rng(seed, 1).permutation(n);
  const auto held_out = static_cast<Index>(std::llround(fraction * static_cast<double>(n)));
  if (held_out < 1 || held_out >= n) {
    throw InvalidArgument("--holdout " + format_short(fraction) + " of " + std::to_string(n) +
                          " rows leaves " +
                          (held_out < 1 ? "no row to evaluate on" : "no row to fit"));
  }
  HoldoutSplit split;
  split.held_out_rows.assign(order.begin(), order.begin() + held_out);
  split.fit_rows.assign(order.begin() + held_out, order.end());
  std::sort(split.held_out_rows.begin(), split.held_out_rows.end());
  std::sort(split.fit_rows.begin(), split.fit_rows.end());
  return split;
}

namespace {

template <class Model, class Save>
void save_and_report(std::ostream& out, const std::string& path, const Model& model, Save save) {
  if (path.empty()) {
    out << "model: not saved (no --out)\n";
    return;
  }
  save(model, path);
  out << "model: " << path << '\n';
}

}  // namespace

void save_fitted_model(std::ostream& out, const std::string& path, const ConditionalModel& model) {
  save_and_report(out, path, model, &save_conditional_model);
}

void save_fitted_model(std::ostream& out, const std::string& path, const DensityModel& model) {
  save_and_report(out, path, model, &save_density_model);
}

}  // namespace cdens::cli
