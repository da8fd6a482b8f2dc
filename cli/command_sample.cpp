// cdens sample MODEL.json --n N: draws from the model — y from p(y|x) for each x point
// (--x-values or --x-file) of a conditional or PRESS model, x from p(x) of a density model.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "commands.hpp"
#include "core/validate.hpp"
#include "input_points.hpp"
#include "model_kinds.hpp"
#include "model_of_processes.hpp"
#include "output_files.hpp"
#include "seed_option.hpp"
#include "table_cells.hpp"

namespace cdens::cli {
namespace {

struct SampleArguments {
  std::string model_path;
  InputPointOptions inputs;
  Index n = 0;
  std::uint64_t seed = 0;
  std::string out_path;
};

/// InvalidArgument naming --n unless it is at least 1 and `n` draws of `numbers_per_draw`
/// numbers each (draws and the table written from them) fit in memory.
void require_draw_count(Index n, double numbers_per_draw) {
  if (n < 1) throw InvalidArgument("--n must be at least 1, got " + std::to_string(n));
  require_memory_for(static_cast<double>(n) * numbers_per_draw, "--n");
}

void sample_conditional(const SampleArguments& arguments, const ConditionalModel& model) {
  const Matrix x = read_input_points(model, arguments.inputs);
  const Index n = arguments.n;
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
  write_table(arguments.out_path, names, rows, "", labels_of_names(names, model.labels));
}

void sample_density(const SampleArguments& arguments, const DensityModel& model) {
  // The draws and the table written from them.
  require_draw_count(arguments.n, 2.0 * static_cast<double>(model.mixture.dimension()));
  write_table(arguments.out_path, model.names, model.mixture.sample(arguments.n, arguments.seed));
}

}  // namespace

void add_sample_command(CLI::App& app) {
  using F = MethodFamily;
  auto arguments = std::make_shared<SampleArguments>();
  CLI::App* command = app.add_subcommand(
      "sample", "Draw from the model: y from p(y|x) for each x point, or x from p(x)");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  add_input_point_options(*command, arguments->inputs);
  const std::vector<FamilyOption> family_options = {
      {arguments->inputs.values_option, {F::conditional, F::regression}},
      {arguments->inputs.file_option, {F::conditional, F::regression}},
      {arguments->inputs.missing_option, {F::conditional, F::regression}},
  };
  command->add_option("--n", arguments->n, "Draws (per x point of a conditional model)")
      ->required();
  add_seed_option(*command, arguments->seed, "Seed of the draws (default 0)");
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->callback([arguments, family_options] {
    with_model_of_processes(
        "sample", [&] { return load_model_for("sample", arguments->model_path, family_options); },
        [&](const ModelFile& file) {
          if (file.density) return sample_density(*arguments, *file.density);
          sample_conditional(*arguments, *file.conditional);
        });
  });
}

}  // namespace cdens::cli
