#pragma once
// What the commands write besides their reports: CSV tables (to standard output or a file) and
// fitted model files, each written atomically so that an interrupted run loses nothing.

#include <iosfwd>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace cdens::cli {

/// Checks, before the work that produces it, that a file can be written at `path` the way the
/// commands write (a temporary file beside it, then a rename): the directory exists and takes a
/// new file, and `path` is not a directory. IoError naming `option` and the cause otherwise;
/// nothing is left behind.
void require_writable_file(const std::string& path, const std::string& option);

/// Writes a CSV table (one column of `columns` per row of the file) to standard output when
/// `path` is empty, else atomically to `path`. Refuses to write a non-finite number, except −∞
/// in the column named `minus_infinity_column` (a log-density of a value the model gives
/// probability 0). Rows of `columns` with labels (write_csv's `labels`) are written as labels.
void write_table(const std::string& path, const std::vector<std::string>& names,
                 const MatrixView& columns, const std::string& minus_infinity_column = "",
                 const std::vector<std::vector<std::string>>& labels = {});

/// After a successful fit: writes the model to `path` atomically when one was given (only now is
/// an existing file replaced) and says in `out` where it went, or that it was not saved.
void save_fitted_model(std::ostream& out, const std::string& path, const ConditionalModel& model);
void save_fitted_model(std::ostream& out, const std::string& path, const DensityModel& model);
/// save_fitted_model for a model every rank of `communicator` holds a part of, written by all
/// of them (save_conditional_model_of_ranks); a collective call.
void save_fitted_model_of_ranks(std::ostream& out, const std::string& path,
                                const ConditionalModel& model, const Communicator& communicator);

}  // namespace cdens::cli
