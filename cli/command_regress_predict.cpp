// cdens regress predict MODEL.json DATA.csv: per row the PRESS point prediction (eq. 20), the
// entropy of its state (eq. 18), the state weights w_j(x) and quantiles of p(y|x).

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cdens/core/validate.hpp"
#include "cdens/regression/press.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

struct RegressPredictArguments {
  std::string model_path;
  std::string data_path;
  std::string x_columns;  // empty: the model's x names
  std::string quantiles = "0.05,0.5,0.95";
  std::string out_path;
  bool no_header = false;
};

void run_regress_predict(const RegressPredictArguments& arguments) {
  const ConditionalModel model = load_model_file(arguments.model_path).model;
  press_gate_of(model.mixture);
  const std::vector<double> probabilities = parse_number_list(arguments.quantiles, "--q");
  require_open_unit_interval(probabilities, "--q");
  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x = choose_columns(table, arguments.x_columns, "--x", model.x_names);

  const Matrix weights = press_state_weights(model.mixture, x.values);
  const Matrix quantiles = model.mixture.quantiles(x.values, probabilities);
  std::vector<std::string> names = x.names;
  names.insert(names.end(), {"prediction", "entropy"});
  for (double p : probabilities) names.push_back("q" + format_number(p));
  for (Index j = 0; j < weights.rows(); ++j) names.push_back("w" + std::to_string(j + 1));
  Matrix columns(static_cast<Index>(names.size()), x.values.cols());
  Index row = 0;
  columns.middleRows(row, x.values.rows()) = x.values;
  row += x.values.rows();
  columns.row(row++) = press_predict(model.mixture, x.values).transpose();
  columns.row(row++) = press_state_entropies(weights).transpose();
  columns.middleRows(row, quantiles.rows()) = quantiles;
  row += quantiles.rows();
  columns.middleRows(row, weights.rows()) = weights;
  write_table(arguments.out_path, names, columns);
}

}  // namespace

void add_regress_predict_command(CLI::App& regress) {
  auto arguments = std::make_shared<RegressPredictArguments>();
  CLI::App* command = regress.add_subcommand(
      "predict", "Point prediction, state entropy, quantiles and state weights for each row");
  command->add_option("model", arguments->model_path, "Model file written by cdens regress fit")
      ->required();
  command->add_option("data", arguments->data_path, "CSV file with the x columns")->required();
  command->add_option("--x", arguments->x_columns, "Input columns (default: the model's names)");
  command->add_option("--q", arguments->quantiles, "Quantile probabilities in (0, 1)")
      ->capture_default_str();
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->add_flag("--no-header", arguments->no_header, "The CSV file has no header line");
  command->callback([arguments] { run_regress_predict(*arguments); });
}

}  // namespace cdens::cli
