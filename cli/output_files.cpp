#include "output_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <sstream>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"
#include "io/json_io.hpp"

namespace cdens::cli {
namespace {

template <class Model, class Save>
void save_and_report(std::ostream& out, const std::string& path, const Model& model, Save save) {
  if (path.empty()) {
    out << "model: not saved (no --out)\n";
    return;
  }
  save(model, path);
  out << "model: " << path << '\n';
}

}  // namespace

void require_writable_file(const std::string& path, const std::string& option) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw IoError(option + ": " + path + " is a directory, not a file");
  }
  // The same temporary file that write_file_atomically creates, removed at once.
  std::string temporary = path + ".tmp.XXXXXX";
  const int descriptor = mkstemp(temporary.data());
  if (descriptor < 0) {
    throw IoError(option + ": cannot write " + path + ": " + std::strerror(errno));
  }
  close(descriptor);
  std::remove(temporary.c_str());
}

void write_table(const std::string& path, const std::vector<std::string>& names,
                 const MatrixView& columns, const std::string& minus_infinity_column,
                 const std::vector<std::vector<std::string>>& labels) {
  for (Index j = 0; j < columns.cols(); ++j) {
    for (Index i = 0; i < columns.rows(); ++i) {
      const bool allowed = columns(i, j) == -INFINITY && !minus_infinity_column.empty() &&
                           names[static_cast<std::size_t>(i)] == minus_infinity_column;
      if (!std::isfinite(columns(i, j)) && !allowed) {
        throw DataError("computed a non-finite value in column '" +
                        names[static_cast<std::size_t>(i)] + "' of output row " +
                        std::to_string(j + 1));
      }
    }
  }
  if (path.empty()) {
    // main() checks standard output once the command is done, for every command alike.
    write_csv(std::cout, names, columns, labels);
    return;
  }
  std::ostringstream text;
  write_csv(text, names, columns, labels);
  write_file_atomically(path, text.str());
}

void save_fitted_model(std::ostream& out, const std::string& path, const ConditionalModel& model) {
  save_and_report(out, path, model, &save_conditional_model);
}

void save_fitted_model(std::ostream& out, const std::string& path, const DensityModel& model) {
  save_and_report(out, path, model, &save_density_model);
}

void save_fitted_model_of_ranks(std::ostream& out, const std::string& path,
                                const ConditionalModel& model, const Communicator& communicator) {
  save_and_report(out, path, model, [&](const ConditionalModel& parts, const std::string& file) {
    save_conditional_model_of_ranks(parts, file, communicator, kBinaryModelFileNumbers);
  });
}

}  // namespace cdens::cli
