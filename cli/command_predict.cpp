// cdens predict MODEL.json DATA.csv: per row of the data the conditional mean and variance of y,
// its quantiles (one-dimensional y), the probability of its atom where it has one
// (atom_probability) and, where the file holds y, the log-density; with --query
// the answers of queries the model's method declares (the registry's MethodEntry::queries: PRESS's
// state weights, LSCE's z = Wx).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "columns.hpp"
#include "command_progress.hpp"
#include "commands.hpp"
#include "core/validate.hpp"
#include "io/csv.hpp"
#include "io/text.hpp"
#include "model_kinds.hpp"
#include "model_of_processes.hpp"
#include "output_files.hpp"
#include "table_cells.hpp"

namespace cdens::cli {
namespace {

struct PredictArguments {
  std::string model_path;
  std::string data_path;
  std::string x_columns;  // empty: the model's x names
  std::string y_columns;  // empty: the model's y names, if the file has them
  std::string quantiles = "0.05,0.5,0.95";
  std::string out_path;
  bool no_header = false;
  std::string queries;        // --query: the method's queries, comma-separated
  bool drop_missing = false;  // --missing drop
  bool quiet = false;         // --quiet: no progress line
};

// Rows per step of the quantiles' progress: their searches take seconds per thousand rows.
constexpr Index kQuantileRowsPerBlock = 1024;
// Rows per step of the means' and variances': the kernel-sum engine's dual tree prunes better
// the more queries it is given at once (one sum of a 10^6-row KCDE, d = 5, query blocks of 256:
// 0.83 ms a row in calls of 1,024 rows, 0.15 ms in calls of 10^4, 0.054 ms in calls of 10^5).
constexpr Index kMomentRowsPerBlock = 65536;

/// `query(x block)` (a matrix with a column per row of the block) for every row of x,
/// `rows_per_block` rows at a time, each block a step of `progress` in a stage called `label`.
/// Every row's answer depends on that row alone, so the blocks change nothing.
template <class Query>
Matrix by_row_blocks(const std::string& label, const Matrix& x, Index rows_per_block,
                     Progress& progress, const Query& query) {
  Matrix result;
  progress.begin(label, x.cols());
  for (Index first = 0; first < x.cols(); first += rows_per_block) {
    const Index count = std::min(rows_per_block, x.cols() - first);
    const Matrix block = query(x.middleCols(first, count));
    if (first == 0) result.resize(block.rows(), x.cols());
    result.middleCols(first, count) = block;
    progress.advance(count);
  }
  progress.end();
  return result;
}

/// Output columns gathered one at a time, each a row of `values` (one entry per input row), at
/// most `column_count` of them.
class OutputColumns {
 public:
  OutputColumns(Index column_count, Index row_count) : values_(column_count, row_count) {}

  void add(const std::string& name, const Eigen::RowVectorXd& values) {
    names_.push_back(name);
    values_.row(next_++) = values;
  }
  const std::vector<std::string>& names() const { return names_; }
  Matrix values() const { return values_.topRows(next_); }

 private:
  std::vector<std::string> names_;
  Matrix values_;
  Index next_ = 0;
};

/// The rows whose log-density is −∞ (written as -inf) are named in a warning, with the cause
/// where it is a level of a discrete y that the model never saw.
void warn_of_zero_densities(const std::string& source, const ConditionalMixture& model,
                            const Matrix& y, const Vector& log_density) {
  std::vector<Index> rows;
  for (Index j = 0; j < log_density.size(); ++j) {
    if (log_density(j) == -INFINITY) rows.push_back(j);
  }
  if (rows.empty()) return;
  const std::vector<Index> outside = pairs_outside_levels(model, y);
  std::cerr << "cdens: warning: " << source << ": log_density is -inf on " << rows.size() << " of "
            << log_density.size() << " rows (data row" << (rows.size() > 1 ? "s " : " ")
            << describe_rows(rows) << ")"
            << (outside.size() == rows.size()
                    ? ": their y is not a level the model was fitted on"
                    : (outside.empty() ? ": the model's density there is 0 in double precision"
                                       : ": " + std::to_string(outside.size()) +
                                             " of them have a y that is not a level the model "
                                             "was fitted on"))
            << '\n';
}

/// The most probable level of a one-dimensional discrete y at each x (the lowest of ties).
Vector most_probable_levels(const ConditionalMixture& model, const Matrix& x) {
  const std::vector<double>& levels = model.output_kernels().front().levels();
  Vector best = Vector::Constant(x.cols(), -INFINITY);
  Vector modes = Vector::Constant(x.cols(), levels.front());
  for (const double level : levels) {
    const Vector log_mass = model.log_pdf(x, Matrix::Constant(1, x.cols(), level));
    for (Index j = 0; j < x.cols(); ++j) {
      if (log_mass(j) > best(j)) {
        best(j) = log_mass(j);
        modes(j) = level;
      }
    }
  }
  return modes;
}

/// The model's labels, and those of its one-dimensional y for the columns `levels_of_y` (the
/// mode and quantiles: levels of y) where y is labelled.
std::map<std::string, ColumnLabels> labels_of_outputs(const ConditionalModel& model,
                                                      const std::vector<std::string>& levels_of_y) {
  std::map<std::string, ColumnLabels> labels = model.labels;
  const auto output = model.labels.find(model.y_names.front());
  if (output == model.labels.end()) return labels;
  for (const std::string& name : levels_of_y) labels[name] = output->second;
  return labels;
}

/// The number of dimensions of the query `name` of the method that fitted `model`.
std::size_t query_shape_rank(const ConditionalModel& model, const std::string& name) {
  return find_query(*method_named(model.report.method), name).result.shape.size();
}

void predict_distribution(const PredictArguments& arguments, const ConditionalModel& model,
                          bool quantiles_requested, Progress& progress) {
  std::vector<std::string> query_names;
  if (!arguments.queries.empty()) {
    query_names = split_list(arguments.queries, ',', "--query");
    // Refused by name before the data are read.
    const MethodEntry* method = method_named(model.report.method);
    if (method == nullptr) {
      throw InvalidArgument("--query: the method '" + model.report.method +
                            "' of this model declares no queries");
    }
    for (std::size_t q = 0; q < query_names.size(); ++q) {
      find_query(*method, query_names[q]);
      // One column per query: a second would repeat its name (as --candidates lists each once).
      if (std::find(query_names.begin(), query_names.begin() + static_cast<std::ptrdiff_t>(q),
                    query_names[q]) != query_names.begin() + static_cast<std::ptrdiff_t>(q)) {
        throw InvalidArgument("--query: '" + query_names[q] +
                              "' is listed twice; a query is listed once");
      }
    }
  }
  const Index output_dim = model.mixture.output_dim();
  const std::vector<double> probabilities = parse_number_list(arguments.quantiles, "--q");
  require_open_unit_interval(probabilities, "--q");
  if (quantiles_requested && output_dim != 1) {
    throw InvalidArgument("--q needs a one-dimensional y; this model has d_y = " +
                          std::to_string(output_dim));
  }

  CsvTable table = load_table(arguments.data_path, arguments.no_header);
  code_model_labels(table, model);
  // The outputs are optional: without them there is simply no log-density to report.
  const std::vector<std::string> y_specs =
      !arguments.y_columns.empty()              ? split_list(arguments.y_columns, ',', "--y")
      : has_named_columns(table, model.y_names) ? model.y_names
                                                : std::vector<std::string>{};
  drop_rows_with_missing_if(arguments.drop_missing, table,
                            {column_specs(arguments.x_columns, "--x", model.x_names), y_specs});
  const ColumnSelection x = choose_columns(table, arguments.x_columns, "--x", model.x_names);
  warn_of_extrapolation(table.source, model, x.values);
  std::optional<Matrix> y;
  if (!y_specs.empty()) y = choose_columns(table, y_specs).values;
  const bool labelled_output = output_dim == 1 && model.labels.count(model.y_names.front()) > 0;
  // Quantiles of an unordered y would follow the order of its labels' codes, which means nothing.
  const bool labelled_unordered =
      labelled_output && model.mixture.output_kernels().front().kind() == ColumnKind::unordered;
  if (labelled_unordered && quantiles_requested) {
    throw InvalidArgument("--q needs an ordered y; '" + model.y_names.front() +
                          "' is unordered (its mode is written instead)");
  }

  // One pass (the covariances need the means): the means' rows above the covariances'.
  const Matrix moments = by_row_blocks(
      "predict: means and variances", x.values, kMomentRowsPerBlock, progress,
      [&](const Matrix& rows) {
        const ConditionalMixture::OutputMoments answer = model.mixture.mean_and_covariance(rows);
        Matrix stacked(answer.means.rows() + answer.covariances.rows(), rows.cols());
        stacked << answer.means, answer.covariances;
        return stacked;
      });
  const auto mean = moments.topRows(output_dim);
  const auto covariance = moments.bottomRows(output_dim * output_dim);
  const auto quantile_count = output_dim == 1 ? static_cast<Index>(probabilities.size()) : 0;
  std::vector<std::pair<std::string, Matrix>> answers;
  for (const std::string& name : query_names) {
    answers.emplace_back(name, answer_query(model, name, x.values));
  }
  Index answer_columns = 0;
  for (const auto& answer : answers) answer_columns += answer.second.cols();
  const bool atom = model.mixture.atom().has_value();
  const Index column_count = x.values.rows() + (y ? 1 : 0) + 2 * output_dim + (atom ? 1 : 0) +
                             quantile_count + answer_columns;
  OutputColumns output(column_count, x.values.cols());
  for (Index i = 0; i < x.values.rows(); ++i) {
    output.add(x.names[static_cast<std::size_t>(i)], x.values.row(i));
  }
  if (y) {
    const Vector log_density = model.mixture.log_pdf(x.values, *y);
    warn_of_zero_densities(table.source, model.mixture, *y, log_density);
    output.add("log_density", log_density.transpose());
  }
  std::vector<std::string> levels_of_y;  // the columns that hold levels of a labelled y
  if (output_dim == 1) {
    if (labelled_output) {
      // The labels of y name its levels; a mean or a variance of their codes means nothing.
      output.add("mode", most_probable_levels(model.mixture, x.values).transpose());
      levels_of_y.push_back("mode");
    } else {
      output.add("mean", mean.row(0));
      output.add("variance", covariance.row(0));
    }
    // P(y = a | x) of a y with an atom (a zero-inflated output: the probability of a zero).
    if (atom) output.add("atom_probability", model.mixture.atom_probability(x.values).transpose());
    const Matrix quantiles =
        labelled_unordered ? Matrix(0, x.values.cols())
                           : by_row_blocks("predict: quantiles", x.values, kQuantileRowsPerBlock,
                                           progress, [&](const Matrix& rows) {
                                             return model.mixture.quantiles(rows, probabilities);
                                           });
    for (Index r = 0; r < quantiles.rows(); ++r) {
      const std::string name = "q" + format_number(probabilities[static_cast<std::size_t>(r)]);
      output.add(name, quantiles.row(r));
      levels_of_y.push_back(name);
    }
  } else {
    for (Index d = 0; d < output_dim; ++d) {
      output.add("mean_" + model.y_names[static_cast<std::size_t>(d)], mean.row(d));
    }
    for (Index d = 0; d < output_dim; ++d) {
      // Diagonal entry (d, d) of the column-major d_y × d_y covariance.
      output.add("var_" + model.y_names[static_cast<std::size_t>(d)],
                 covariance.row(d * output_dim + d));
    }
  }
  // A query of one value per row is one column of its name, of k values k columns NAME_1 … _k.
  for (const auto& [name, answer] : answers) {
    for (Index c = 0; c < answer.cols(); ++c) {
      output.add(answer.cols() == 1 && query_shape_rank(model, name) == 1
                     ? name
                     : name + "_" + std::to_string(c + 1),
                 answer.col(c).transpose());
    }
  }
  write_table(arguments.out_path, output.names(), output.values(), "log_density",
              labels_of_names(output.names(), labels_of_outputs(model, levels_of_y)));
}

/// The help of --query: the queries of every method that declares some, from the registry.
std::string query_flag_help() {
  std::string help =
      "Comma-separated queries of the model's method, added as columns (a query of k values "
      "per row as NAME_1 … NAME_k; cdens methods NAME describes them):";
  for (const MethodEntry& method : methods()) {
    if (method.queries.empty()) continue;
    std::vector<std::string> names;
    for (const MethodQuery& query : method.queries) names.push_back(query.result.name);
    help += "\n  " + method.name + ": " + join(names, ", ");
  }
  return help;
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto arguments = std::make_shared<PredictArguments>();
  CLI::App* command = app.add_subcommand(
      "predict",
      "Conditional mean, variance, quantiles and log-density for each row, and the queries of "
      "the model's method (--query)");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  command->add_option("data", arguments->data_path, "CSV file with the x columns")->required();
  command->add_option("--x", arguments->x_columns, "Input columns (default: the model's names)");
  command->add_option("--y", arguments->y_columns,
                      "Output columns for log_density (default: the model's names, if present)");
  CLI::Option* quantiles =
      command
          ->add_option("--q", arguments->quantiles,
                       "Quantile probabilities in (0, 1), for a one-dimensional y")
          ->capture_default_str();
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->add_flag("--no-header", arguments->no_header, "The CSV file has no header line");
  add_missing_option(*command, arguments->drop_missing);
  add_quiet_flag(*command, arguments->quiet);
  command->add_option("--query", arguments->queries, query_flag_help());
  command->callback([arguments, quantiles] {
    with_model_of_processes(
        "predict", [&] { return load_model_for("predict", arguments->model_path); },
        [&](const ModelFile& file) {
          CommandProgress shown(arguments->quiet);
          predict_distribution(*arguments, *file.conditional, quantiles->count() > 0,
                               shown.progress());
        });
  });
}

}  // namespace cdens::cli
