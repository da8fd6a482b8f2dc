// The registry for R: the description of every method (the package generates its functions and
// Rd pages from it) and the fit of any method, whose options are checked and named as R spells
// them.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "models.hpp"
#include "options.hpp"
#include "r_progress.hpp"

namespace cdens::r {
namespace {

/// A declared array as R: a vector for one dimension, a matrix for two (rows, columns as
/// declared), a list of vectors for a list.
Rcpp::RObject array_to_r(const ArrayValue& value, std::size_t dimensions) {
  if (const auto* list = std::get_if<std::vector<Vector>>(&value)) {
    Rcpp::List arrays;
    for (const Vector& item : *list) arrays.push_back(vector_to_r(item));
    return arrays;
  }
  const Matrix& matrix = std::get<Matrix>(value);
  if (dimensions == 1) return vector_to_r(matrix.col(0));
  return matrix_to_r(matrix);
}

Rcpp::List extras_to_r(const MethodEntry& method, const FitExtras& extras) {
  Rcpp::List arrays;
  std::vector<std::string> names;
  for (const ArrayDeclaration& declared : method.extras) {
    arrays.push_back(array_to_r(extras.at(declared.name), declared.shape.size()));
    names.push_back(declared.name);
  }
  arrays.attr("names") = strings_to_r(names);
  return arrays;
}

/// The labels of the discrete columns by variable name, from a named list of character vectors.
std::map<std::string, ColumnLabels> labels_of(SEXP labels) {
  std::map<std::string, ColumnLabels> result;
  if (Rf_isNull(labels)) return result;
  const Rcpp::List given(labels);
  const std::vector<std::string> names = strings_of(given.names(), "labels");
  for (R_xlen_t k = 0; k < given.size(); ++k) {
    const std::string& name = names[static_cast<std::size_t>(k)];
    result[name] = strings_of(given[k], "labels of " + name);
  }
  return result;
}

Vector weights_of(SEXP weights) {
  if (Rf_isNull(weights)) return Vector();
  const std::vector<double> values = numbers_of(weights, "weights");
  return Eigen::Map<const Vector>(values.data(), static_cast<Index>(values.size()));
}

const MethodEntry& method_called(const std::string& name) {
  const MethodEntry* method = method_named(name);
  if (method == nullptr) throw InvalidArgument("unknown method '" + name + "'");
  return *method;
}

std::vector<std::string> joined(std::vector<std::string> first,
                                const std::vector<std::string>& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

}  // namespace

}  // namespace cdens::r

using namespace cdens;
using namespace cdens::r;

extern "C" SEXP cdens_methods() {
  return guarded([] { return Rcpp::wrap(methods_to_r()); });
}

extern "C" SEXP cdens_fit(SEXP method_name, SEXP x, SEXP y, SEXP options, SEXP weights,
                          SEXP x_names, SEXP y_names, SEXP labels, SEXP verbose) {
  return guarded([&]() -> SEXP {
    const MethodEntry& method = method_called(string_of(method_name, "method"));
    const bool density = method.family == MethodFamily::density;
    if (density != Rf_isNull(y)) {
      throw InvalidArgument(
          "method " + method.name +
          (density ? " fits a density p(x): y must be NULL" : " fits p(y|x): y is required"));
    }
    const OptionValues values = option_values_of(method, options);
    const Matrix xs = samples_of(x, "x");
    const std::vector<std::string> input_names = strings_of(x_names, "x_names");
    const std::vector<std::string> output_names = strings_of(y_names, "y_names");
    RProgress progress(flag_of(verbose, "verbose"));
    const FitContext context{local_communicator(), progress, joined(input_names, output_names),
                             weights_of(weights)};
    Rcpp::List result;
    if (density) {
      MethodFit<DensityModel> fit = fit_method_with_extras(method, xs, values, context);
      fit.model.names = input_names;
      result = Rcpp::List::create(Rcpp::Named("model") = model_handle(std::move(fit.model)),
                                  Rcpp::Named("extras") = extras_to_r(method, fit.extras));
    } else {
      const Matrix ys = samples_of(y, "y");
      const Matrix no_unlabeled(xs.rows(), 0);
      MethodFit<ConditionalModel> fit =
          fit_method_with_extras(method, xs, ys, no_unlabeled, values, context);
      fit.model.x_names = input_names;
      fit.model.y_names = output_names;
      fit.model.labels = labels_of(labels);
      result = Rcpp::List::create(Rcpp::Named("model") = model_handle(std::move(fit.model)),
                                  Rcpp::Named("extras") = extras_to_r(method, fit.extras));
    }
    progress.flush();
    return result;
  });
}
