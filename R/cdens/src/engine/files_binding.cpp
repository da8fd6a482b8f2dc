// Model files from R: the files of the `cdens` command and the Python package, both ways.

#include <nlohmann/json.hpp>
#include <string>

#include "arrays.hpp"
#include "cdens/methods/registry.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "io/json_io.hpp"
#include "models.hpp"

using namespace cdens;
using namespace cdens::r;

extern "C" SEXP cdens_save_model(SEXP model, SEXP path) {
  return guarded([&] {
    const std::string file = string_of(path, "file");
    if (holds<DensityModel>(model)) {
      save_density_model(model_of<DensityModel>(model), file);
    } else {
      save_conditional_model(model_of<ConditionalModel>(model), file);
    }
    return R_NilValue;
  });
}

// list(shape, model): the file's shape ("gaussian_mixture" or "conditional_mixture") and model.
extern "C" SEXP cdens_load_model(SEXP path) {
  return guarded([&] {
    // Read once; its shape says which model it holds (the reader says what is wrong with a file
    // that is neither).
    const nlohmann::json document = read_model_document(string_of(path, "file"));
    const std::string shape = model_file_shape(document);
    if (shape == model_shape(MethodFamily::density)) {
      return Rcpp::wrap(Rcpp::List::create(
          Rcpp::Named("shape") = shape,
          Rcpp::Named("model") = model_handle(density_model_from_json(document))));
    }
    return Rcpp::wrap(Rcpp::List::create(
        Rcpp::Named("shape") = shape,
        Rcpp::Named("model") = model_handle(conditional_model_from_json(document))));
  });
}
