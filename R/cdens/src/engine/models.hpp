#pragma once
// Fitted models as R external pointers. R holds each model in an external pointer tagged with its
// shape, freed by R's garbage collector; an R object restored by readRDS() holds a null pointer,
// which every query refuses with the way to keep a model across sessions (a model file).

#include <Rcpp.h>

#include <string>
#include <utility>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/model_file.hpp"

namespace cdens::r {

/// The tag of a model's external pointer: "cdens_conditional_model" or "cdens_density_model" (and
/// "cdens_evaluation" for an evaluation, which a comparison reads).
template <class Model>
const char* model_tag();
template <>
inline const char* model_tag<ConditionalModel>() {
  return "cdens_conditional_model";
}
template <>
inline const char* model_tag<DensityModel>() {
  return "cdens_density_model";
}
template <>
inline const char* model_tag<ModelEvaluation>() {
  return "cdens_evaluation";
}

/// `model` as an R external pointer that owns it.
template <class Model>
Rcpp::XPtr<Model> model_handle(Model model) {
  return Rcpp::XPtr<Model>(new Model(std::move(model)), true, Rf_install(model_tag<Model>()));
}

/// Whether `handle` is an external pointer to a model of type Model.
template <class Model>
bool holds(SEXP handle) {
  return TYPEOF(handle) == EXTPTRSXP && R_ExternalPtrTag(handle) == Rf_install(model_tag<Model>());
}

/// The model of an external pointer made by model_handle; InvalidArgument for anything else and
/// for a pointer that R restored from a saved session.
template <class Model>
const Model& model_of(SEXP handle) {
  if (!holds<Model>(handle)) {
    throw InvalidArgument(std::string("not a cdens model handle of kind ") + model_tag<Model>());
  }
  const auto* model = static_cast<const Model*>(R_ExternalPtrAddr(handle));
  if (model == nullptr) {
    throw InvalidArgument(
        "this model's engine is gone: R restored it from a saved session (saveRDS, save), which "
        "cannot hold it; keep a model across sessions with cdens_save() and cdens_load()");
  }
  return *model;
}

}  // namespace cdens::r
