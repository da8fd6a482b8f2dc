#pragma once
// `cdens predict|evaluate|sample` under mpirun: every process reads the model file and keeps its
// stretch of a KCDE model's pairs; rank 0 runs the command with a model that answers each query
// through every rank's stretch, while the others serve their parts of it
// (conditional/kernel_queries_of_ranks.hpp; docs/distributed.md, "Queries of a model on many
// ranks"). On one process the command runs with the model as read.

#include <functional>
#include <string>

#include "model_files.hpp"

namespace cdens::cli {

/// `command(file)` for the model file that `load` reads: as read on one process; under mpirun
/// on rank 0 with its conditional model answering through the ranks (every rank reads the file),
/// the other ranks serving until rank 0 is done. InvalidArgument on every rank for a model that
/// cannot be split over the ranks, or whose y is discrete or multivariate (`verb` names the
/// command).
void with_model_of_processes(const std::string& verb, const std::function<ModelFile()>& load,
                             const std::function<void(const ModelFile&)>& command);

}  // namespace cdens::cli
