#include "evaluation/level_forecasts.hpp"

#include "cdens/core/types.hpp"

namespace cdens::detail {

bool has_discrete_scalar_output(const ConditionalMixture& model) {
  return model.output_dim() == 1 && model.output_kernels().front().is_discrete();
}

const ColumnKernel& require_discrete_scalar_output(const ConditionalMixture& model,
                                                   const std::string& query, bool ordered) {
  const ColumnKernels& kernels = model.output_kernels();
  const bool scalar = model.output_dim() == 1;
  if (!scalar || !kernels.front().is_discrete() ||
      (ordered && kernels.front().kind() != ColumnKind::ordered)) {
    const std::string wanted = ordered ? "one ordered discrete y" : "one discrete y";
    const ColumnKind kind = kernels.front().kind();
    const std::string actual = !scalar ? "d_y = " + std::to_string(model.output_dim())
                               : kind == ColumnKind::continuous ? "a continuous y"
                                                                : "an " + to_string(kind) + " y";
    throw InvalidArgument(query + " needs " + wanted + "; this model has " + actual);
  }
  return kernels.front();
}

std::vector<LevelDistribution> level_forecasts(const ConditionalMixture& model,
                                               const MatrixView& x) {
  const std::vector<double>& levels = model.output_kernels().front().levels();
  const Matrix grid =
      Eigen::Map<const Eigen::RowVectorXd>(levels.data(), static_cast<Index>(levels.size()));
  // A discrete output is never standardised: the masses at the levels are the probabilities.
  const Matrix masses = model.pdf_grid(x, grid);  // levels × inputs
  std::vector<LevelDistribution> forecasts;
  forecasts.reserve(static_cast<std::size_t>(masses.cols()));
  for (Index j = 0; j < masses.cols(); ++j) forecasts.emplace_back(levels, masses.col(j));
  return forecasts;
}

}  // namespace cdens::detail
