// cdens score MODEL.json DATA.csv: the mean log-likelihood of a model on data — pairs (x, y) for
// a conditional or PRESS model, samples for a density model.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cdens/evaluation/scores.hpp"
#include "columns.hpp"
#include "commands.hpp"
#include "io/csv.hpp"
#include "kernel_sum_tolerance.hpp"
#include "model_kinds.hpp"
#include "output_files.hpp"
#include "table_cells.hpp"

namespace cdens::cli {
namespace {

struct ScoreArguments {
  std::string model_path;
  std::string data_path;
  std::string x_columns;  // empty: the model's x names
  std::string y_columns;  // empty: the model's y names
  std::string columns;    // density models; empty: the model's variable names
  std::string out_path;   // density models: log p(x) of every row
  bool no_header = false;
  bool drop_missing = false;
  double tolerance = DensityQuery{}.log_tolerance;  // density models: of the kernel sums
};

void score_conditional(const ScoreArguments& arguments, const ConditionalModel& model,
                       const CsvTable& table) {
  const ColumnSelection x_columns =
      choose_columns(table, arguments.x_columns, "--x", model.x_names);
  const ColumnSelection y_columns =
      choose_columns(table, arguments.y_columns, "--y", model.y_names);
  warn_renamed_columns(arguments.model_path, arguments.no_header,
                       {x_columns.names, y_columns.names}, {model.x_names, model.y_names});
  const Matrix& x = x_columns.values;
  const Matrix& y = y_columns.values;
  warn_of_extrapolation(table.source, model, x);
  const double mean_log_likelihood = cdens::mean_log_likelihood(model.mixture, x, y);
  // Full precision: scripts compare these numbers.
  std::cout << "n: " << x.cols() << '\n';
  if (any_discrete(model.mixture.output_kernels())) {
    // Pairs of a level the model never saw have probability 0: they make the mean −∞.
    const std::vector<Index> outside = pairs_outside_levels(model.mixture, y);
    std::cout << "outside_levels: " << outside.size() << '\n';
    if (!outside.empty()) {
      std::cerr << "cdens: warning: " << table.source << ": " << outside.size() << " of "
                << x.cols() << " pairs have a y that is not a level the model was fitted on "
                << "(data row" << (outside.size() > 1 ? "s " : " ") << describe_rows(outside)
                << "): their log-likelihood is -inf\n";
    }
  }
  std::cout << "mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
            << "nll: " << format_number(-mean_log_likelihood) << '\n'
            << std::flush;
}

/// What the kernel-sum path a density query took (DensityQuery::path) did, in a user's words.
std::string kernel_sum_description(const std::string& path) {
  if (path == "exact") return "every kernel of every sample summed, no approximation";
  if (path == "tree") {
    return "a k-d tree skipped the far kernels, each log-density within --tolerance of the "
           "exact one";
  }
  if (path == "binned") return "kernels binned on a grid and summed by FFT, within --tolerance";
  if (path == "gauss_transform") {
    return "a fast Gauss transform summed the kernels near each box of samples as one series, "
           "each log-density within --tolerance of the exact one";
  }
  // "components": a mixture whose kernels differ in width, not a Parzen window.
  return "the mixture's kernels differ in width, so each sample's density summed every "
         "component exactly, no approximation (--tolerance applies to Parzen windows only)";
}

void score_density(const ScoreArguments& arguments, const DensityModel& model,
                   const CsvTable& table) {
  const ColumnSelection columns =
      choose_columns(table, arguments.columns, "--columns", model.names);
  warn_renamed_columns(arguments.model_path, arguments.no_header, {columns.names}, {model.names});
  const Matrix& x = columns.values;
  DensityQuery query;
  query.log_tolerance = arguments.tolerance;
  const Vector log_densities = model.mixture.log_pdf(x, query);
  if (!arguments.out_path.empty()) {
    write_table(arguments.out_path, {"log_density"}, log_densities.transpose());
  }
  const double mean_log_likelihood = log_densities.mean();
  // Full precision: scripts compare these numbers.
  std::cout << "n: " << x.cols() << '\n'
            << "mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
            << "total_log_likelihood: " << format_number(log_densities.sum()) << '\n'
            << "nll: " << format_number(-mean_log_likelihood) << '\n'
            << "kernel_sums: " << query.path << " (" << kernel_sum_description(query.path) << ")\n"
            << std::flush;
}

}  // namespace

void add_score_command(CLI::App& app) {
  using F = MethodFamily;
  auto arguments = std::make_shared<ScoreArguments>();
  CLI::App* command = app.add_subcommand("score", "Mean log-likelihood and NLL of a model on data");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  command->add_option("data", arguments->data_path, "CSV file with the model's columns")
      ->required();
  const std::vector<FamilyOption> family_options = {
      {command->add_option("--x", arguments->x_columns,
                           "Conditional models: input columns (default: the model's names)"),
       {F::conditional, F::regression}},
      {command->add_option("--y", arguments->y_columns,
                           "Conditional models: output columns (default: the model's names)"),
       {F::conditional, F::regression}},
      {command->add_option("--columns", arguments->columns,
                           "Density models: columns to score (default: the model's names)"),
       {F::density}},
      {command->add_option("--out", arguments->out_path,
                           "Density models: also write log p(x) of every row to this CSV file"),
       {F::density}},
      {add_kernel_sum_tolerance(*command, arguments->tolerance), {F::density}},
  };
  command->add_flag("--no-header", arguments->no_header, "The CSV file has no header line");
  add_missing_option(*command, arguments->drop_missing);
  command->callback([arguments, family_options] {
    const ModelFile file = load_model_for("score", arguments->model_path, family_options);
    CsvTable table = load_table(arguments->data_path, arguments->no_header);
    if (file.density) {
      drop_rows_with_missing_if(
          arguments->drop_missing, table,
          {column_specs(arguments->columns, "--columns", file.density->names)});
      return score_density(*arguments, *file.density, table);
    }
    const ConditionalModel& model = *file.conditional;
    code_model_labels(table, model);
    drop_rows_with_missing_if(arguments->drop_missing, table,
                              {column_specs(arguments->x_columns, "--x", model.x_names),
                               column_specs(arguments->y_columns, "--y", model.y_names)});
    score_conditional(*arguments, model, table);
  });
}

}  // namespace cdens::cli
