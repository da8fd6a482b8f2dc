#include "methods/constant_inputs.hpp"

#include <algorithm>
#include <string>

#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "conditional/declared_columns.hpp"
#include "conditional/selected_features_gate.hpp"
#include "io/csv.hpp"

namespace cdens {
namespace {

/// The option values with every column position among the inputs moved to its place among the
/// kept inputs (a position of a dropped input is left out), outputs shifted down by the dropped
/// count.
OptionValues follow_kept_columns(const MethodEntry& method, OptionValues values,
                                 const std::vector<Index>& kept, Index input_dim) {
  const auto position_among_kept = [&](Index column) -> Index {
    if (column >= input_dim) return column - input_dim + static_cast<Index>(kept.size());
    const auto found = std::find(kept.begin(), kept.end(), column);
    return found == kept.end() ? -1 : static_cast<Index>(found - kept.begin());
  };
  for (const OptionInfo& option : method.options) {
    const auto value = values.find(option.name);
    if (value == values.end()) continue;
    if (option.type == OptionType::columns) {
      std::vector<std::int64_t> moved;
      for (const std::int64_t column : std::get<std::vector<std::int64_t>>(value->second)) {
        const Index position = position_among_kept(static_cast<Index>(column));
        if (position >= 0) moved.push_back(position);
      }
      value->second = moved;
    } else if (option.per_column) {
      const auto& per_column = std::get<std::vector<double>>(value->second);
      std::vector<double> moved;
      for (std::size_t d = 0; d < per_column.size(); ++d) {
        if (position_among_kept(static_cast<Index>(d)) >= 0) moved.push_back(per_column[d]);
      }
      value->second = moved;
    }
  }
  return values;
}

/// "bandwidth_x2" of a fit on the kept inputs is the bandwidth of input kept[2]: every report
/// key ending in _x<position> (or _y<d>_x<position>) takes the full input's position.
std::map<std::string, double> at_full_positions(const std::map<std::string, double>& values,
                                                const std::vector<Index>& kept) {
  std::map<std::string, double> moved;
  for (const auto& [key, value] : values) {
    const auto marker = key.rfind("_x");
    const auto digits = marker == std::string::npos ? std::string() : key.substr(marker + 2);
    const bool numbered = !digits.empty() && digits.size() < 10 &&
                          digits.find_first_not_of("0123456789") == std::string::npos;
    if (numbered) {
      const auto position = static_cast<std::size_t>(std::stoul(digits));
      if (position < kept.size()) {
        moved[key.substr(0, marker + 2) + std::to_string(kept[position])] = value;
        continue;
      }
    }
    moved[key] = value;
  }
  return moved;
}

/// The extras of `method` whose last dimension is "d_x", fitted on the inputs `kept`, as arrays
/// over all `input_dim` inputs: an ignored input's column is 0 (it enters nothing).
void on_all_inputs(const MethodEntry& method, FitExtras& extras, const std::vector<Index>& kept,
                   Index input_dim) {
  for (const ArrayDeclaration& declared : method.extras) {
    if (declared.shape.size() != 2 || declared.shape.back() != "d_x") continue;
    const auto found = extras.find(declared.name);
    if (found == extras.end()) continue;
    const Matrix& on_kept = std::get<Matrix>(found->second);
    Matrix on_all = Matrix::Zero(on_kept.rows(), input_dim);
    on_all(Eigen::all, kept) = on_kept;
    found->second = std::move(on_all);
  }
}

}  // namespace

std::vector<Index> constant_inputs(const MatrixView& x) {
  std::vector<Index> constant;
  // With fewer than two rows every column is constant: the method's own check of the sample
  // count speaks first.
  if (x.cols() < 2) return constant;
  for (Index d = 0; d < x.rows(); ++d) {
    if ((x.row(d).array() == x(d, 0)).all()) constant.push_back(d);
  }
  return constant;
}

std::string constant_input_warning(const std::string& name, const std::string& value) {
  return "input " + name + " is constant on the training rows (" + value + "): ignored";
}

MethodFit<ConditionalModel> fit_without_constant_inputs(const MethodEntry& method,
                                                        const MatrixView& x, const MatrixView& y,
                                                        const MatrixView& unlabeled_x,
                                                        const OptionValues& options,
                                                        const FitContext& context,
                                                        const std::vector<Index>& constant) {
  const Index input_dim = x.rows();
  std::vector<Index> kept;
  for (Index d = 0; d < input_dim; ++d) {
    if (std::find(constant.begin(), constant.end(), d) == constant.end()) kept.push_back(d);
  }
  std::vector<std::string> warnings;
  std::string values;
  for (const Index d : constant) {
    // As the data wrote it: 288.15, not 288.14999999999998.
    const std::string value = format_number(x(d, 0));
    const std::string name = "'" + column_name(d, input_dim, context.column_names) + "'";
    warnings.push_back(constant_input_warning(name, value));
    values += (values.empty() ? "" : ", ") + name + " = " + value;
  }
  if (kept.empty()) {
    throw DataError("every input is constant on the training rows (" + values +
                    "): there is nothing to condition on");
  }
  // The fit on the kept inputs names each by its own name, given or not: without names its
  // "x0" would be the first kept input, not the data's x0.
  std::vector<std::string> kept_names;
  for (const Index d : kept) kept_names.push_back(column_name(d, input_dim, context.column_names));
  for (Index d = input_dim; d < input_dim + y.rows(); ++d) {
    kept_names.push_back(column_name(d, input_dim, context.column_names));
  }
  FitContext on_kept = context;
  on_kept.column_names = kept_names;
  MethodFit<ConditionalModel> fit = method.fit_conditional(
      x(kept, Eigen::all), y,
      unlabeled_x.cols() > 0 ? Matrix(unlabeled_x(kept, Eigen::all)) : Matrix(kept.size(), 0),
      follow_kept_columns(method, options, kept, input_dim), on_kept);
  // A dropped input gets the identity scaling about its value: it enters no gate or trend.
  const Standardizer full_scaling(x.col(0), Vector::Ones(input_dim));
  ConditionalModel& model = fit.model;
  model.mixture = model_on_all_features(model.mixture, kept, full_scaling);
  model.report.hyperparameters = at_full_positions(model.report.hyperparameters, kept);
  model.report.warnings.insert(model.report.warnings.begin(), warnings.begin(), warnings.end());
  on_all_inputs(method, fit.extras, kept, input_dim);
  return fit;
}

}  // namespace cdens
