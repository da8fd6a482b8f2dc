#pragma once
// What the commands write besides their reports: CSV tables (to standard output or a file) and
// fitted model files, each written atomically so that an interrupted run loses nothing.

#include <iosfwd>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace cdens::cli {

/// Writes a CSV table (one column of `columns` per row of the file) to standard output when
/// `path` is empty, else atomically to `path`. Refuses to write a non-finite number.
void write_table(const std::string& path, const std::vector<std::string>& names,
                 const MatrixView& columns);

/// After a successful fit: writes the model to `path` atomically when one was given (only now is
/// an existing file replaced) and says in `out` where it went, or that it was not saved.
void save_fitted_model(std::ostream& out, const std::string& path, const ConditionalModel& model);
void save_fitted_model(std::ostream& out, const std::string& path, const DensityModel& model);

}  // namespace cdens::cli
