// cdens sample MODEL.json --x-values … --n N: draws from p(y|x) for each x point.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "common.hpp"

namespace cdens::cli {
namespace {

struct SampleArguments {
  std::string model_path;
  InputPointOptions inputs;
  Index draws_per_input = 0;
  std::uint64_t seed = 0;
  std::string out_path;
};

void run_sample(const SampleArguments& arguments) {
  const ConditionalModel model = load_model_file(arguments.model_path).model;
  const Matrix x = read_input_points(model, arguments.inputs);
  const Index n = arguments.draws_per_input;
  // The draws, and the table of x and y beside them.
  require_draw_count(
      n, static_cast<double>(x.cols()) *
             static_cast<double>(model.mixture.input_dim() + 2 * model.mixture.output_dim()));
  // Draws for x_j occupy columns j·n … j·n + n − 1.
  const Matrix draws = model.mixture.sample(x, n, arguments.seed);
  const Index input_dim = model.mixture.input_dim();
  Matrix rows(input_dim + model.mixture.output_dim(), draws.cols());
  for (Index j = 0; j < x.cols(); ++j) rows.block(0, j * n, input_dim, n).colwise() = x.col(j);
  rows.bottomRows(draws.rows()) = draws;
  std::vector<std::string> names = model.x_names;
  names.insert(names.end(), model.y_names.begin(), model.y_names.end());
  write_table(arguments.out_path, names, rows);
}

}  // namespace

void add_sample_command(CLI::App& app) {
  auto arguments = std::make_shared<SampleArguments>();
  CLI::App* command = app.add_subcommand("sample", "Draw y from p(y|x) for each x point");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  add_input_point_options(*command, arguments->inputs);
  command->add_option("--n", arguments->draws_per_input, "Draws per x point")->required();
  add_seed_option(*command, arguments->seed, "Seed of the draws (default 0)");
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->callback([arguments] { run_sample(*arguments); });
}

}  // namespace cdens::cli
