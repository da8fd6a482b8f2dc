#include "model_of_processes.hpp"

#include <optional>
#include <utility>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/communicator.hpp"
#include "conditional/kernel_queries_of_ranks.hpp"
#include "processes.hpp"

namespace cdens::cli {

void with_model_of_processes(const std::string& verb, const std::function<ModelFile()>& load,
                             const std::function<void(const ModelFile&)>& command) {
  const Communicator& communicator = processes();
  if (communicator.size() == 1) {
    command(load());
    return;
  }
  std::optional<ModelFile> file;
  std::optional<ConditionalMixture> stretch;
  agree_on_errors(communicator, [&] {
    file.emplace(load());
    const ConditionalMixture* model = file->conditional ? &file->conditional->mixture : nullptr;
    // The queries on many processes answer a continuous one-dimensional y
    // (kernel_queries_of_ranks.hpp).
    if (model && model->output_dim() == 1 && !any_discrete(model->output_kernels())) {
      stretch = stretch_of_rank(*model, communicator);
    }
    if (!stretch) {
      throw InvalidArgument(
          "'cdens " + verb +
          "' runs on many processes for a kcde model of a continuous one-dimensional y, "
          "without sample weights, trend = gp or an atom (each process keeps a stretch of its "
          "pairs); " +
          file->path + " (" + file->method() + ") is not one: start it without mpirun");
    }
    // The whole model goes; this rank keeps its stretch.
    file->conditional->mixture = *stretch;
  });
  if (communicator.rank() != 0) {
    serve_queries_of_ranks(*stretch, communicator);
    return;
  }
  file->conditional->mixture = model_of_ranks(*stretch, communicator);
  stretch.reset();
  try {
    command(*file);
  } catch (...) {
    stop_serving_queries(communicator);
    throw;
  }
  stop_serving_queries(communicator);
}

}  // namespace cdens::cli
