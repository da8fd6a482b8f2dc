// cdens fit DATA.csv --method METHOD [options]: fits a method of any family — a conditional
// density p(y|x) (--x, --y), a density p(x) (--columns) or a regression (--x, --y) — prints
// what the fit found and optionally saves the model. The registry says which family a method is
// and which of its options and extras the report shows.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/core/communicator.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/methods/registry.hpp"
#include "columns.hpp"
#include "command_progress.hpp"
#include "commands.hpp"
#include "conditional/projected_gate.hpp"
#include "core/samples.hpp"
#include "core/sampling_plan.hpp"
#include "io/csv.hpp"
#include "io/text.hpp"
#include "method_flags.hpp"
#include "methods/constant_inputs.hpp"
#include "methods/option_tables.hpp"
#include "model_kinds.hpp"
#include "model_report.hpp"
#include "output_files.hpp"
#include "processes.hpp"
#include "seed_option.hpp"
#include "table_cells.hpp"
#include "weights_column.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `fit` that are not method options, as typed.
struct FitArguments {
  std::string data_path;
  std::string method;
  std::string x_columns;  // conditional and regression methods
  std::string y_columns;
  std::string columns;  // density methods; empty: every column of the file
  std::uint64_t seed = 0;
  int threads = 0;
  std::string unlabeled_path;
  double holdout_fraction = 0.0;
  std::string test_path;
  std::string out_path;
  std::string weights_column;  // empty: every row weighs 1
  bool no_header = false;
  std::vector<std::string> levels;  // --levels NAME=A,B,C: the labels of a column, in order
  bool drop_missing = false;        // --missing drop
  bool quiet = false;               // --quiet: no progress line
};

/// The options given on the command line, with what the method chose.
struct FitRequest {
  const FitArguments& arguments;
  const MethodEntry& method;
  const MethodFlags& flags;
  OptionValues options;
  bool holdout_requested;
};

/// The rows this process fits on, of the file or of the files a pattern names (`part-*.csv`,
/// their rows in file order): under mpirun its own share of them (read_csv_shards), alone all.
CsvTable load_training_table(const std::string& path_or_pattern, bool no_header) {
  const std::vector<std::string> paths = expand_path_pattern(path_or_pattern);
  if (paths.size() == 1 && processes().size() == 1) return load_table(paths.front(), no_header);
  CsvFormat format;
  format.has_header = !no_header;
  return read_csv_shards(paths, processes(), format).table;
}

/// Rank 0 prints the report and writes the model file; every rank learns whether that worked.
/// On many processes the report ends with the payload rank 0 sent and received in the fit's
/// collective calls (docs/distributed.md compares it with the scaling model).
template <class Model>
void report_and_save(std::ostringstream& out, const std::string& out_path, const Model& model) {
  if (processes().size() > 1)
    out << "bytes_between_processes: " << bytes_between_processes() << '\n';
  agree_on_errors(processes(), [&] {
    if (processes().rank() != 0) return;
    save_fitted_model(out, out_path, model);
    std::cout << out.str() << std::flush;
  });
}

/// The same for a conditional model each rank holds a part of (FitReport::rows_of_this_rank):
/// every rank takes part in writing it, and the payload counts the rows sent for the file.
void report_and_save(std::ostringstream& out, const std::string& out_path,
                     const ConditionalModel& model) {
  if (!model.report.rows_of_this_rank) {
    report_and_save<ConditionalModel>(out, out_path, model);
    return;
  }
  save_fitted_model_of_ranks(out, out_path, model, processes());
  // Rows sent to rank 0 for the file included.
  out << "bytes_between_processes: " << bytes_between_processes() << '\n';
  if (processes().rank() == 0) std::cout << out.str() << std::flush;
}

/// `fit(context)` with a progress line on standard error (command_progress.hpp); the context
/// carries the rows' sample weights (empty: none).
template <class Fit>
auto fit_with_progress(const FitArguments& arguments, const std::vector<std::string>& column_names,
                       const Vector& sample_weights, const Fit& fit) {
  CommandProgress shown(arguments.quiet);
  // A KCDE model keeps each rank's own pairs: report_and_save writes it from every rank.
  return fit(FitContext{processes(), shown.progress(), column_names, sample_weights, true});
}

/// The rows a fit sees and, with --holdout, the rows it is scored on.
struct SplitRows {
  Matrix fit;
  Matrix held_out;
};

/// `values` (taken, so that no second copy of every row outlives this call) split by `split`,
/// or all of them for the fit.
SplitRows split_rows(Matrix values, const std::optional<HoldoutSplit>& split) {
  if (!split) {
    const Index dimension = values.rows();
    return {std::move(values), Matrix(dimension, 0)};
  }
  return {gather_samples(values, split->fit_rows), gather_samples(values, split->held_out_rows)};
}

/// The sample weights of the rows a fit sees and of the rows --holdout scores it on; both empty
/// without --weights.
struct SplitWeights {
  Vector fit;
  Vector held_out;
};

/// The --weights column of `table`, split as the data are.
/// `columns` and, when --weights is given, the weights column: what --missing drop reads.
std::vector<Index> with_weights_column(const FitArguments& arguments, const CsvTable& table,
                                       std::vector<Index> columns) {
  if (!arguments.weights_column.empty()) {
    columns.push_back(
        resolve_columns(table, {weights_column_name(table, arguments.weights_column)}).front());
  }
  return columns;
}

SplitWeights weights_of(const FitArguments& arguments, const CsvTable& table,
                        const std::vector<std::string>& modelled,
                        const std::optional<HoldoutSplit>& split) {
  if (arguments.weights_column.empty()) return {};
  const std::string name = weights_column_name(table, arguments.weights_column);
  SplitRows rows = split_rows(weights_column(table, name, modelled).transpose(), split);
  return {rows.fit.row(0).transpose(), rows.held_out.row(0).transpose()};
}

/// The mean log-likelihood of held-out rows from their log-densities, weighted by the rows'
/// weights when the fit was.
double held_out_mean(const Vector& log_densities, const SplitWeights& weights) {
  if (weights.fit.size() == 0) return log_densities.mean();
  return weighted_mean(log_densities, weights.held_out);
}

/// The hold-out split of --holdout over n rows, if it was asked for.
std::optional<HoldoutSplit> requested_split(const FitRequest& request, Index n) {
  if (!request.holdout_requested) return std::nullopt;
  return draw_holdout_split(n, request.arguments.holdout_fraction, request.arguments.seed,
                            "--holdout");
}

/// --x and --y, which conditional and regression methods need.
void require_inputs_and_outputs(const FitArguments& arguments) {
  if (arguments.x_columns.empty()) throw InvalidArgument("--x is required");
  if (arguments.y_columns.empty()) throw InvalidArgument("--y is required");
}

/// The stated labels of --levels NAME=A,B,C, by column name; InvalidArgument for a malformed
/// item or a column stated twice.
std::map<std::string, ColumnLabels> stated_levels(const std::vector<std::string>& items) {
  std::map<std::string, ColumnLabels> stated;
  for (const std::string& item : items) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InvalidArgument("--levels takes NAME=LABEL,LABEL,…, got '" + item + "'");
    }
    const std::string name = item.substr(0, equals);
    ColumnLabels labels = split_list(item.substr(equals + 1), ',', "--levels " + name);
    // Read as the data's cells are: "1.0" is the label "1".
    for (std::string& label : labels) label = label_of_text(label);
    ColumnLabels sorted = labels;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw InvalidArgument("--levels " + name + " lists a label twice");
    }
    if (!stated.emplace(name, std::move(labels)).second) {
      throw InvalidArgument("--levels states column '" + name + "' twice");
    }
  }
  return stated;
}

/// Codes the labels of the declared discrete columns (`declared`: positions among `used`, the
/// --x then --y columns) in `table` and returns them by column name; a declared column of
/// numbers keeps its values, which must be exact integers' doubles. --levels (`level_items`)
/// may state the labels of a declared column only.
std::map<std::string, ColumnLabels> code_declared_columns(
    CsvTable& table, const std::vector<Index>& used, const OptionValues& declared,
    const std::vector<std::string>& level_items) {
  std::map<std::string, ColumnLabels> stated = stated_levels(level_items);
  std::map<std::string, ColumnLabels> labels;
  for (const auto& [option, value] : declared) {
    for (const std::int64_t position : std::get<std::vector<std::int64_t>>(value)) {
      const Index column = used[static_cast<std::size_t>(position)];
      const std::string& name = table.column_names[static_cast<std::size_t>(column)];
      const auto given = stated.find(name);
      const ColumnLabels column_labels =
          labels_of_column(table, column, option == "ordered",
                           given == stated.end() ? ColumnLabels{} : given->second);
      if (given != stated.end()) stated.erase(given);
      if (column_labels.empty()) {
        refuse_inexact_levels(table, column);
        continue;
      }
      code_labels(table, column, column_labels, false);
      labels[name] = column_labels;
    }
  }
  if (!stated.empty()) {
    throw InvalidArgument("--levels names column '" + stated.begin()->first +
                          "', which is declared neither --discrete nor --ordered");
  }
  return labels;
}

/// Whether `method` takes columns declared discrete (--discrete, --ordered).
bool takes_discrete_columns(const MethodEntry& method) {
  return std::any_of(method.options.begin(), method.options.end(), [](const OptionInfo& option) {
    return option.name == "discrete" && option.type == OptionType::columns;
  });
}

/// What a word in a column of a fit by `method` is told: to declare the column discrete where
/// the method takes discrete columns, else which methods do (a --discrete it would refuse is no
/// advice).
WordAdvice word_advice_for(const MethodEntry& method) {
  if (takes_discrete_columns(method)) {
    return [](const std::string& name) {
      return ": if it holds labels, declare it discrete (--discrete " + name + ")";
    };
  }
  std::vector<std::string> taking;
  for (const MethodEntry& other : methods()) {
    if (takes_discrete_columns(other)) taking.push_back(other.name);
  }
  const std::string methods_taking = join(taking, ", ");
  const std::string reads = "--method " + method.name + " reads numbers only";
  if (method.family == MethodFamily::density) {
    return [reads, methods_taking](const std::string&) {
      return ": " + reads +
             " (a column of labels can be an input or output of a conditional "
             "method that takes discrete columns: " +
             methods_taking + ")";
    };
  }
  return [reads, methods_taking](const std::string& name) {
    return ": " + reads + "; if it holds labels, fit a method that takes discrete columns (" +
           methods_taking + ") with --discrete " + name;
  };
}

/// `name: value` of each option the method reports (MethodEntry::reported_options), as given
/// or its default.
void print_reported_options(std::ostream& out, const MethodEntry& method,
                            const OptionValues& options) {
  for (const std::string& name : method.reported_options) {
    const auto given = options.find(name);
    out << name << ": "
        << (given != options.end() ? describe_value(given->second)
                                   : describe_default(find_option(method, name)))
        << '\n';
  }
}

/// The extras of a fit that summarise it rather than its rows (no dimension "n", no list), in
/// full precision: a one-dimensional one as `name: v1,v2,…`, a matrix as one line
/// `name_row_r: v1 v2 …` per row.
void print_summary_extras(std::ostream& out, const MethodEntry& method, const FitExtras& extras) {
  for (const ArrayDeclaration& declared : method.extras) {
    const auto& shape = declared.shape;
    if (std::find(shape.begin(), shape.end(), "n") != shape.end() || shape.back() == "*") continue;
    const Matrix& values = std::get<Matrix>(extras.at(declared.name));
    if (shape.size() == 1) {
      out << declared.name << ": ";
      for (Index j = 0; j < values.rows(); ++j) {
        out << (j ? "," : "") << format_number(values(j, 0));
      }
      out << '\n';
      continue;
    }
    for (Index r = 0; r < values.rows(); ++r) {
      out << declared.name << "_row_" << r << ":";
      for (Index c = 0; c < values.cols(); ++c) out << ' ' << format_number(values(r, c));
      out << '\n';
    }
  }
}

/// --test: the size and mean negative log-likelihood of the rows of the test file and, for a
/// one-dimensional numeric y that is not unordered, the MSE and MAD of the point prediction (the
/// method's query point_prediction where it declares one, else the conditional mean).
void print_test_scores(std::ostream& out, const FitRequest& request,
                       const ConditionalModel& model) {
  const FitArguments& arguments = request.arguments;
  if (model.report.rows_of_this_rank) {
    throw InvalidArgument(
        "--test of a model whose rows stay on their processes runs on one "
        "process: start the fit without mpirun");
  }
  CsvTable test = load_table(arguments.test_path, arguments.no_header);
  code_model_labels(test, model);
  drop_rows_with_missing_if(arguments.drop_missing, test, {model.x_names, model.y_names});
  const ColumnSelection test_inputs = choose_columns(test, model.x_names);
  const Matrix& test_x = test_inputs.values;
  const Matrix test_y = choose_columns(test, model.y_names).values;
  // The test file is queried as predict would query it (--holdout's rows are part of the fit's
  // own evaluation, which never warns).
  warn_of_extrapolation(test.source, model, test_x);
  const double nll = -model.mixture.log_pdf(test_x, test_y).mean();
  out << "test_n: " << test_y.cols() << '\n';
  const ColumnKernels& output_kernels = model.mixture.output_kernels();
  const bool labelled = model.labels.count(model.y_names.front()) > 0;
  if (test_y.rows() == 1 &&
      ((!output_kernels.empty() && output_kernels.front().kind() == ColumnKind::unordered) ||
       labelled)) {
    // The codes of an unordered y (or of labels) have no distances: no MSE or MAD of them.
    out << "test_point_scores: none (y '" << model.y_names.front() << "' is "
        << (labelled ? "labelled" : "unordered")
        << ": an error of its codes means nothing; test_nll is its log-score)\n";
  } else if (test_y.rows() == 1) {
    const auto& queries = request.method.queries;
    const bool declared = std::any_of(queries.begin(), queries.end(), [](const MethodQuery& query) {
      return query.result.name == "point_prediction";
    });
    const Vector prediction = declared ? Vector(answer_query(model, "point_prediction", test_x))
                                       : Vector(model.mixture.mean(test_x).row(0).transpose());
    const Vector residuals = test_y.row(0).transpose() - prediction;
    out << "test_mse: " << format_number(residuals.squaredNorm() / residuals.size()) << '\n'
        << "test_mad: " << format_number(residuals.cwiseAbs().mean()) << '\n';
  }
  out << "test_nll: " << format_number(nll) << '\n';
}

/// The report's warnings of a labelled input constant on the fitted rows `x` name its label (as
/// in the data: 'Oslo'), not its code.
void name_constant_labels(ConditionalModel& model, const Matrix& x) {
  if (x.cols() < 2) return;
  for (std::size_t d = 0; d < model.x_names.size(); ++d) {
    const auto labels = model.labels.find(model.x_names[d]);
    const auto row = static_cast<Index>(d);
    if (labels == model.labels.end() || !(x.row(row).array() == x(row, 0)).all()) continue;
    const std::string name = "'" + model.x_names[d] + "'";
    const std::string coded = constant_input_warning(name, format_number(x(row, 0)));
    const std::string named =
        constant_input_warning(name, labels->second[static_cast<std::size_t>(x(row, 0))]);
    for (std::string& warning : model.report.warnings) {
      for (auto at = warning.find(coded); at != std::string::npos; at = warning.find(coded, at)) {
        warning.replace(at, coded.size(), named);
        at += named.size();
      }
    }
  }
}

void fit_conditional(const FitRequest& request) {
  const FitArguments& arguments = request.arguments;
  const MethodEntry& method = request.method;
  if (!arguments.unlabeled_path.empty() && !method.takes_unlabeled_inputs) {
    throw InvalidArgument("option --unlabeled does not apply to --method " + method.name);
  }
  require_inputs_and_outputs(arguments);
  CsvTable table = load_training_table(arguments.data_path, arguments.no_header);
  const std::vector<std::string> x_specs = split_list(arguments.x_columns, ',', "--x");
  const std::vector<std::string> y_specs = split_list(arguments.y_columns, ',', "--y");
  std::vector<Index> used = resolve_columns(table, x_specs);
  for (const Index column : resolve_columns(table, y_specs)) used.push_back(column);
  // Column options (--discrete, --ordered) name CSV columns; the method takes their positions
  // among the inputs, then the outputs.
  OptionValues declared = request.flags.column_values_for(method, [&](const std::string& column) {
    const Index position = resolve_columns(table, {column}).front();
    const auto found = std::find(used.begin(), used.end(), position);
    if (found == used.end()) {
      throw InvalidArgument("column '" + column + "' is declared discrete or ordered but is " +
                            "neither an --x nor a --y column");
    }
    return static_cast<std::int64_t>(found - used.begin());
  });
  std::map<std::string, ColumnLabels> labels;
  // Under mpirun a process holds numbers only (read_csv_shards refuses words), but a level too
  // large to be exact may be in one process's rows only.
  agree_on_errors(processes(),
                  [&] { labels = code_declared_columns(table, used, declared, arguments.levels); });
  if (arguments.drop_missing)
    drop_rows_with_missing(table, with_weights_column(arguments, table, used));
  const WordAdvice advice = word_advice_for(method);
  ColumnSelection x = choose_columns(table, x_specs, advice);
  ColumnSelection y = choose_columns(table, y_specs, advice);
  if (!method.multi_output && y.names.size() != 1) {
    throw InvalidArgument("--y names one output column for --method " + method.name);
  }
  require_disjoint(x, y);
  std::vector<std::string> column_names = x.names;
  column_names.insert(column_names.end(), y.names.begin(), y.names.end());
  const std::optional<HoldoutSplit> split = requested_split(request, table.values.cols());
  const SplitWeights weights = weights_of(arguments, table, column_names, split);
  OptionValues options = request.options;
  options.merge(declared);
  // From here on the rows live in x and y only.
  table.values.resize(0, 0);
  Matrix unlabeled_x(x.values.rows(), 0);
  if (!arguments.unlabeled_path.empty()) {
    CsvTable unlabeled = load_training_table(arguments.unlabeled_path, arguments.no_header);
    drop_rows_with_missing_if(arguments.drop_missing, unlabeled, {x.names});
    unlabeled_x = choose_columns(unlabeled, x.names, advice).values;
  }
  const SplitRows x_rows = split_rows(std::move(x.values), split);
  const SplitRows y_rows = split_rows(std::move(y.values), split);

  MethodFit<ConditionalModel> fit =
      fit_with_progress(arguments, column_names, weights.fit, [&](const FitContext& context) {
        return fit_method_with_extras(method, x_rows.fit, y_rows.fit, unlabeled_x, options,
                                      context);
      });
  ConditionalModel& model = fit.model;
  model.x_names = x.names;
  model.y_names = y.names;
  model.labels = std::move(labels);
  name_constant_labels(model, x_rows.fit);

  std::ostringstream out;
  out << "method: " << model.report.method << '\n'
      << "n: " << processes().sum_counts(x_rows.fit.cols()) << '\n';
  print_reported_options(out, method, options);
  print_variables(out, model.x_names, model.y_names);
  print_output_kinds(out, model);
  print_fit_report(out, model.report);
  print_summary_extras(out, method, fit.extras);
  print_feature_selection(out, model);
  if (split) {
    const double nll =
        -held_out_mean(model.mixture.log_pdf(x_rows.held_out, y_rows.held_out), weights);
    // Full precision: scripts compare these numbers.
    out << "held_out_n: " << split->held_out_rows.size() << '\n'
        << "held_out_nll: " << format_number(nll) << '\n'
        << "held_out_mean_log_likelihood: " << format_number(-nll) << '\n';
  }
  if (!arguments.test_path.empty()) print_test_scores(out, request, model);
  report_and_save(out, arguments.out_path, model);
}

void fit_density(const FitRequest& request) {
  const FitArguments& arguments = request.arguments;
  SplitWeights weights;
  std::optional<HoldoutSplit> split;
  ColumnSelection x = [&] {
    CsvTable table = load_training_table(arguments.data_path, arguments.no_header);
    // Every column but the weights by default.
    std::vector<std::string> modelled = table.column_names;
    if (!arguments.weights_column.empty()) {
      const std::string name = weights_column_name(table, arguments.weights_column);
      modelled.erase(std::find(modelled.begin(), modelled.end(), name));
    }
    const std::vector<std::string> specs = column_specs(arguments.columns, "--columns", modelled);
    if (arguments.drop_missing) {
      drop_rows_with_missing(table,
                             with_weights_column(arguments, table, resolve_columns(table, specs)));
    }
    split = requested_split(request, table.values.cols());
    ColumnSelection chosen = choose_columns(table, specs, word_advice_for(request.method));
    weights = weights_of(arguments, table, chosen.names, split);
    return chosen;
  }();
  const SplitRows rows = split_rows(std::move(x.values), split);
  DensityModel model =
      fit_with_progress(arguments, x.names, weights.fit, [&](const FitContext& context) {
        return fit_method(request.method, rows.fit, request.options, context);
      });
  model.names = x.names;

  std::ostringstream out;
  out << "method: " << model.report.method << '\n'
      << "n: " << processes().sum_counts(rows.fit.cols()) << '\n'
      << "variables: " << join(model.names, ",") << '\n'
      << "dimension: " << model.names.size() << '\n'
      << "n_kernels: " << model.mixture.n_components() << '\n';
  print_fit_report(out, model.report);
  if (split) {
    const double mean_log_likelihood = held_out_mean(model.mixture.log_pdf(rows.held_out), weights);
    // Full precision: scripts compare these numbers.
    out << "held_out_n: " << split->held_out_rows.size() << '\n'
        << "held_out_mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
        << "held_out_nll: " << format_number(-mean_log_likelihood) << '\n';
  }
  report_and_save(out, arguments.out_path, model);
}

}  // namespace

void add_fit_command(CLI::App& app) {
  using F = MethodFamily;
  std::vector<const MethodEntry*> fitted;
  for (const MethodEntry& method : methods()) fitted.push_back(&method);
  // LSCDE stays the default although auto estimates better (issue 53, measured on two shared
  // cores: data/faithful.csv, 272 rows, lscde 0.1 s, auto 1.1 s; 10,000 rows of one input, lscde
  // 1.1 s and a test NLL of 1.03, auto 36 s and 0.88): scripts that give LSCDE's options without
  // --method (--sigma, --regularization, --n-centers) would be refused under auto, and auto's
  // cost grows to its time budget (300 s) on larger tables. --help says so.
  const std::string default_method = "lscde";
  auto arguments = std::make_shared<FitArguments>();
  arguments->method = default_method;
  CLI::App* command = app.add_subcommand(
      "fit", "Fit a model: a conditional density p(y|x), a density p(x) or a regression");
  command
      ->add_option("data", arguments->data_path,
                   "CSV file with the training data, or a pattern of files with the same header "
                   "('part-*.csv', rows in file order); under mpirun each process reads its share")
      ->required();
  command->add_option(
      "--method", arguments->method,
      method_flag_help(fitted, default_method) +
          ": lscde is one fast fit (0.1 s on 272 rows, 1 s on 10,000) and takes --sigma, "
          "--regularization without --method; --method auto pools the best of several estimators "
          "by held-out log score, usually the better model, at 10 to 30 times the cost (1 s, 36 "
          "s)");
  std::vector<FamilyOption> family_options;
  const auto serving = [&](CLI::Option* option, std::vector<MethodFamily> families) {
    family_options.push_back({option, std::move(families)});
  };
  serving(command->add_option("--x", arguments->x_columns,
                              "Input columns, by name or 0-based index: a,b (p(y|x), regression)"),
          {F::conditional, F::regression});
  serving(command->add_option("--y", arguments->y_columns,
                              "Output columns, by name or 0-based index (p(y|x); regression: one)"),
          {F::conditional, F::regression});
  serving(command->add_option(
              "--columns", arguments->columns,
              "Density p(x): columns to model, by name or 0-based index: a,b (default: all)"),
          {F::density});
  auto flags = std::make_shared<MethodFlags>(*command, fitted);
  add_seed_option(*command, arguments->seed,
                  "Seed of centres, starts, folds and --holdout (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  serving(
      command->add_option("--unlabeled", arguments->unlabeled_path,
                          "lscde: CSV file of extra inputs without outputs (same x column names)"),
      {F::conditional});
  CLI::Option* holdout =
      command->add_option("--holdout", arguments->holdout_fraction,
                          "Fraction of rows to hold out and score the fit on, in (0, 1)");
  serving(holdout, {F::conditional, F::density});
  serving(command->add_option("--test", arguments->test_path,
                              "CSV file with the --x and --y columns: report the test NLL and, "
                              "for one output, the MSE and MAD of the point prediction"),
          {F::conditional, F::regression});
  command->add_option("--weights", arguments->weights_column,
                      "Column of sample weights, by name or 0-based index: non-negative, not all "
                      "zero, an integer weight k counting as the row k times; neither an input nor "
                      "an output (methods that support them: see cdens methods)");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  // One NAME=… per --levels, so that a following positional argument stays the data file.
  serving(command
              ->add_option("--levels", arguments->levels,
                           "NAME=A,B,C: the labels of a discrete column in their order (needed "
                           "for words in an --ordered column; repeat for more columns)")
              ->allow_extra_args(false),
          {F::conditional});
  add_missing_option(*command, arguments->drop_missing);
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV files have no header line; columns are numbered 0, 1, …");
  add_quiet_flag(*command, arguments->quiet);
  command->callback([arguments, flags, holdout, family_options] {
    // Everything that can be checked without the data is checked before reading it.
    const MethodEntry& method = find_method(arguments->method);
    refuse_options_of_other_families(
        family_options, method.family,
        "--method " + method.name + ", which fits " + describe_kind(method.family));
    if (processes().size() > 1) {
      if (!method.distributed) throw InvalidArgument(not_distributed_message(method));
      // The held-out rows are a permutation of all rows, which no rank holds.
      if (holdout->count() > 0) {
        throw InvalidArgument("--holdout runs on one process: start the fit without mpirun");
      }
    }
    if (!arguments->weights_column.empty()) {
      if (!method.sample_weights) throw InvalidArgument(no_sample_weights_message(method));
      if (processes().size() > 1) {
        throw InvalidArgument("--weights runs on one process: start the fit without mpirun");
      }
    }
    const FitRequest request{*arguments, method, *flags,
                             flags->values_for(method, arguments->seed, arguments->threads),
                             holdout->count() > 0};
    if (method.family == MethodFamily::density) return fit_density(request);
    fit_conditional(request);
  });
}

}  // namespace cdens::cli
