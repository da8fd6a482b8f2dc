// The helpers of model_binding.hpp that need no template.

#include "model_binding.hpp"

#include "arrays.hpp"

namespace py = pybind11;

namespace cdens::python {

py::dict cv_table_to_dict(const CvTable& table) {
  py::dict result;
  result["parameter_names"] = table.parameter_names;
  result["candidates"] = samples_to_numpy(table.candidates.transpose());
  result["mean_loss"] = vector_to_numpy(Vector(table.mean_loss));
  result["standard_error"] = vector_to_numpy(Vector(table.standard_error));
  result["loss"] = table.loss;
  result["best"] = table.best;
  return result;
}

py::dict feature_selection_to_dict(const FeatureSelection& selection) {
  py::dict result;
  result["selected"] = selection.selected;
  result["importances"] = vector_to_numpy(Vector(selection.importances));
  result["path"] = py::none();
  if (selection.path) {
    py::dict path;
    path["lambdas"] = vector_to_numpy(Vector(selection.path->lambdas));
    path["group_norms"] = samples_to_numpy(selection.path->group_norms.transpose());
    path["chosen_lambda"] = selection.path->chosen_lambda;
    result["path"] = path;
  }
  return result;
}

py::object method_selection_to_dict(const MethodSelection& selection) {
  return py::module_::import("json").attr("loads")(selection.to_json().dump());
}

py::tuple region_to_tuple(const HighestDensityRegion& region) {
  Matrix bounds(2, static_cast<Index>(region.intervals.size()));
  for (std::size_t k = 0; k < region.intervals.size(); ++k) {
    bounds(0, static_cast<Index>(k)) = region.intervals[k].lower;
    bounds(1, static_cast<Index>(k)) = region.intervals[k].upper;
  }
  return py::make_tuple(samples_to_numpy(std::move(bounds)), region.density_threshold);
}

}  // namespace cdens::python
