#include "columns.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "io/text.hpp"
#include "table_cells.hpp"

namespace cdens::cli {

CsvTable load_table(const std::string& path, bool no_header) {
  CsvFormat format;
  format.has_header = !no_header;
  format.keep_text = true;  // choose_columns refuses the text cells of the columns it chooses
  return read_csv(path, format);
}

ColumnSelection choose_columns(const CsvTable& table, const std::vector<std::string>& specs,
                               const WordAdvice& word_advice) {
  const std::vector<Index> positions = resolve_columns(table, specs);
  refuse_text_cells(table, positions, word_advice);
  ColumnSelection selection;
  for (Index position : positions) {
    selection.names.push_back(table.column_names[static_cast<std::size_t>(position)]);
  }
  selection.values = select_columns(table, positions);
  return selection;
}

ColumnSelection choose_columns(const CsvTable& table, const std::string& option_text,
                               const std::string& option_name,
                               const std::vector<std::string>& fallback) {
  return choose_columns(table, column_specs(option_text, option_name, fallback));
}

std::vector<std::string> column_specs(const std::string& option_text,
                                      const std::string& option_name,
                                      const std::vector<std::string>& fallback) {
  return option_text.empty() ? fallback : split_list(option_text, ',', option_name);
}

void warn_renamed_columns(const std::string& model_path, bool no_header,
                          const std::vector<std::vector<std::string>>& chosen,
                          const std::vector<std::vector<std::string>>& variables) {
  if (no_header) return;
  std::string renamed;
  for (std::size_t g = 0; g < chosen.size() && g < variables.size(); ++g) {
    // A group of another size is refused later, by the dimension check.
    for (std::size_t d = 0; d < chosen[g].size() && d < variables[g].size(); ++d) {
      const std::string placeholder = (g == 0 ? "x" : "y") + std::to_string(d);
      if (chosen[g][d] == variables[g][d] || variables[g][d] == placeholder) continue;
      renamed += (renamed.empty() ? "" : ", ") + std::string("column '") + chosen[g][d] +
                 "' read as " + variables[g][d];
    }
  }
  if (renamed.empty()) return;
  std::cerr << "cdens: warning: " << model_path
            << ": the columns given are named otherwise than the model's variables: " << renamed
            << '\n';
}

void require_disjoint(const ColumnSelection& x, const ColumnSelection& y) {
  for (const auto& name : y.names) {
    if (std::find(x.names.begin(), x.names.end(), name) != x.names.end()) {
      throw InvalidArgument("column '" + name + "' is chosen both as an x and as a y column");
    }
  }
}

bool has_named_columns(const CsvTable& table, const std::vector<std::string>& names) {
  return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
    return std::find(table.column_names.begin(), table.column_names.end(), name) !=
           table.column_names.end();
  });
}

std::string describe_rows(const std::vector<Index>& pairs) {
  constexpr std::size_t kShown = 10;
  std::string text;
  for (std::size_t i = 0; i < pairs.size() && i < kShown; ++i) {
    text += std::string(i == 0 ? "" : ", ") + std::to_string(pairs[i] + 1);
  }
  if (pairs.size() > kShown) text += " and " + std::to_string(pairs.size() - kShown) + " more";
  return text;
}

void warn_of_extrapolation(const std::string& source, const ConditionalModel& model,
                           const MatrixView& x, const std::string& row_noun) {
  const ExtrapolatedRows rows = model.mixture.extrapolated_rows(x);
  if (rows.empty()) return;
  std::cerr << "cdens: warning: " << source << ": "
            << extrapolation_warning(rows, x.cols(), model.x_names) << " (" << row_noun
            << (rows.rows.size() > 1 ? "s " : " ") << describe_rows(rows.rows) << ")\n";
}

std::vector<Index> pairs_outside_levels(const ConditionalMixture& model, const MatrixView& y) {
  std::vector<Index> outside;
  const ColumnKernels& kernels = model.output_kernels();
  for (Index j = 0; j < y.cols(); ++j) {
    for (std::size_t d = 0; d < kernels.size(); ++d) {
      if (kernels[d].is_discrete() && kernels[d].level_index(y(static_cast<Index>(d), j)) < 0) {
        outside.push_back(j);
        break;
      }
    }
  }
  return outside;
}

}  // namespace cdens::cli
