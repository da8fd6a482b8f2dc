// The registry of methods for the Python package: the description of every method, its options
// (the estimator classes take their defaults and spellings from it), extras and queries; the fit
// of every method, which builds its options from its table and returns the model with its
// extras; and the answer of a method's query.

#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/methods/registry.hpp"
#include "io/text.hpp"
#include "methods/option_tables.hpp"
#include "methods/python_spelling.hpp"
#include "python_communicator.hpp"
#include "python_progress.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

py::object value_to_python(const OptionValue& value) {
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

py::dict option_to_dict(const OptionInfo& option) {
  py::dict row;
  row["name"] = option.name;
  row["type"] = to_string(option.type);
  row["doc"] = option.doc;
  row["cli_flag"] = option.cli_flag;
  row["python_name"] = option.python_name;
  row["choices"] = option.choices;
  row["takes_numbers"] = option.takes_numbers;
  row["none_is_default"] = option.none_is_default;
  row["ordered"] = option.type == OptionType::real_pair && option.ordered;
  row["default"] = value_to_python(option.default_value);
  row["default_text"] = describe_default(option);
  return row;
}

py::dict array_to_dict(const ArrayDeclaration& array) {
  py::dict row;
  row["name"] = array.name;
  row["shape"] = array.shape;
  row["doc"] = array.doc;
  return row;
}

py::dict method_to_dict(const MethodEntry& method) {
  py::dict entry;
  entry["name"] = method.name;
  entry["family"] = to_string(method.family);
  entry["shape"] = model_shape(method.family);
  entry["summary"] = method.summary;
  entry["python_class"] = method.python_class;
  entry["takes_unlabeled_inputs"] = method.takes_unlabeled_inputs;
  entry["distributed"] = method.distributed;
  entry["sample_weights"] = method.sample_weights;
  entry["multi_output"] = method.multi_output;
  py::dict test_options;
  for (const auto& [name, value] : method.test_options)
    test_options[py::str(name)] = value_to_python(value);
  entry["test_options"] = test_options;
  py::list options;
  for (const OptionInfo& option : method.options) options.append(option_to_dict(option));
  entry["options"] = options;
  py::list extras;
  for (const ArrayDeclaration& extra : method.extras) extras.append(array_to_dict(extra));
  entry["extras"] = extras;
  py::list queries;
  for (const MethodQuery& query : method.queries) queries.append(array_to_dict(query.result));
  entry["queries"] = queries;
  return entry;
}

/// A declared array as numpy: shape (rows,) for one dimension, (rows, columns) for two, a list
/// of 1-D arrays for a list.
py::object array_to_numpy(ArrayValue value, std::size_t dimensions) {
  if (auto* list = std::get_if<std::vector<Vector>>(&value)) {
    py::list arrays;
    for (Vector& item : *list) arrays.append(vector_to_numpy(std::move(item)));
    return std::move(arrays);
  }
  Matrix& matrix = std::get<Matrix>(value);
  if (dimensions == 1) return vector_to_numpy(Vector(matrix.col(0)));
  // samples_to_numpy writes a d × n matrix as (n, d).
  return samples_to_numpy(Matrix(matrix.transpose()));
}

/// {name: array} of a fit's extras, as `method` declares them.
py::dict extras_to_dict(const MethodEntry& method, FitExtras extras) {
  py::dict arrays;
  for (const ArrayDeclaration& declared : method.extras) {
    arrays[py::str(declared.name)] =
        array_to_numpy(std::move(extras.at(declared.name)), declared.shape.size());
  }
  return arrays;
}

/// A whole number from a Python int, numpy integer or integral float; ValueError naming `name`.
std::int64_t integer_of(const py::handle& value, const std::string& name) {
  if (py::isinstance<py::bool_>(value))
    throw InvalidArgument(name + " must be an integer, not a bool");
  const double number = py::cast<double>(value);
  if (!std::isfinite(number) || number != std::floor(number)) {
    throw InvalidArgument(name + " must be an integer, got " + py::repr(value).cast<std::string>());
  }
  return py::cast<std::int64_t>(py::int_(py::reinterpret_borrow<py::object>(value)));
}

/// A seed from 0 to 2⁶⁴ − 1 (a Python int has no upper bound; a larger one must not wrap or
/// saturate); ValueError naming `name`.
std::uint64_t seed_of(const py::handle& value, const std::string& name) {
  if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value)) {
    // numpy integers are no Python ints but convert exactly.
    integer_of(value, name);
  }
  const py::int_ seed(py::reinterpret_borrow<py::object>(value));
  if (seed < py::int_(0) || seed > py::int_(std::numeric_limits<std::uint64_t>::max())) {
    throw InvalidArgument(name + " must be an integer from 0 to 2**64 - 1, got " +
                          py::repr(value).cast<std::string>());
  }
  return seed.cast<std::uint64_t>();
}

std::vector<double> numbers_from(const py::handle& value, const std::string& name) {
  const py::array_t<double, py::array::forcecast> array(
      py::module_::import("numpy").attr("atleast_1d")(value));
  if (array.ndim() != 1) throw InvalidArgument(name + " must be a number or a 1-D list of numbers");
  return numbers_of(array, name.c_str());
}

/// A name list from a string or a sequence of strings, joined by commas as the engine keeps it.
std::string names_from(const py::handle& value, const std::string& name) {
  if (py::isinstance<py::str>(value)) return py::cast<std::string>(value);
  std::string joined;
  for (const py::handle item : py::iter(value)) {
    if (!py::isinstance<py::str>(item)) {
      throw InvalidArgument(name + " must hold strings, not " + py::repr(item).cast<std::string>());
    }
    joined += (joined.empty() ? "" : ",") + py::cast<std::string>(item);
  }
  return joined;
}

/// The value of a Python object for `option`, checked; errors name the Python parameter.
OptionValue value_of(const OptionInfo& option, const py::handle& value) {
  const std::string& name = option.python_name.empty() ? option.name : option.python_name;
  OptionValue converted;
  try {
    switch (option.type) {
      case OptionType::boolean: {
        // Truthiness would take 2.5 or "no" as true: only a bool (Python's or numpy's) is one.
        const py::object numpy_bool = py::module_::import("numpy").attr("bool_");
        if (!py::isinstance<py::bool_>(value) && !py::isinstance(value, numpy_bool)) {
          throw InvalidArgument(name + " must be True or False, got " +
                                py::repr(value).cast<std::string>());
        }
        converted = py::cast<bool>(py::bool_(py::reinterpret_borrow<py::object>(value)));
        break;
      }
      case OptionType::integer:
      case OptionType::threads:
        converted = integer_of(value, name);
        break;
      case OptionType::seed:
        converted = seed_of(value, name);
        break;
      case OptionType::real:
        converted = py::cast<double>(value);
        break;
      case OptionType::real_list:
      case OptionType::real_pair:
        converted = numbers_from(value, name);
        break;
      case OptionType::choice:
        // A choice that takes numbers too keeps a number as its exact text (17 digits).
        if (option.takes_numbers && !py::isinstance<py::str>(value) &&
            !py::isinstance<py::bool_>(value)) {
          converted = exact_text(py::cast<double>(value));
        } else {
          converted = py::cast<std::string>(value);
        }
        break;
      case OptionType::name_list:
        converted = names_from(value, name);
        break;
      case OptionType::columns: {
        if (py::isinstance<py::str>(value) || !py::isinstance<py::iterable>(value)) {
          throw InvalidArgument(name + " must be a list of column indices (inputs, then outputs)");
        }
        std::vector<std::int64_t> columns;
        for (const auto& column : value) columns.push_back(integer_of(column, name));
        converted = columns;
        break;
      }
    }
  } catch (const py::cast_error&) {
    throw InvalidArgument(name + " has the wrong type: " + py::repr(value).cast<std::string>());
  } catch (const py::error_already_set&) {
    throw InvalidArgument(name + " has the wrong type: " + py::repr(value).cast<std::string>());
  }
  check_value(option, converted, name);
  return converted;
}

/// The options of `method` from {option name: Python value}.
OptionValues values_of(const MethodEntry& method, const py::dict& options) {
  OptionValues values;
  for (const auto& [key, value] : options) {
    const OptionInfo& option = find_option(method, py::cast<std::string>(key));
    values[option.name] = value_of(option, value);
  }
  return values;
}

/// The sample weights of a fit from sample_weight (None: empty, every row weighs 1).
Vector sample_weights_of(const std::optional<py::array>& sample_weight) {
  if (!sample_weight) return Vector();
  const std::vector<double> weights = numbers_of(*sample_weight, "sample_weight");
  return Eigen::Map<const Vector>(weights.data(), static_cast<Index>(weights.size()));
}

/// The processes of a fit's `comm` (None: this process alone) and its progress, which under
/// mpirun rank 0 alone shows, as the command does.
class FitProcesses {
 public:
  FitProcesses(const py::object& comm, long verbose)
      : processes_(communicator_of(comm)),
        shown_(processes_ && processes_->rank() > 0 ? 0 : verbose) {}

  /// The context of a fit on these processes, with the names of the columns of X then Y (the
  /// user's, for the fit's messages; empty: x0, …, y0, …) and the rows' sample weights (empty:
  /// none).
  FitContext context(std::vector<std::string> column_names, Vector sample_weights) {
    return {processes_ ? *processes_ : local_communicator(), shown_.progress(),
            std::move(column_names), std::move(sample_weights)};
  }

 private:
  std::unique_ptr<Communicator> processes_;
  PythonProgress shown_;
};

/// The method called `name`; InvalidArgument otherwise.
const MethodEntry& method_called(const std::string& name) {
  const MethodEntry* method = method_named(name);
  if (method == nullptr) throw InvalidArgument("unknown method '" + name + "'");
  return *method;
}

/// (model, extras) of a fit of method `name` to X and, for a conditional or regression method,
/// Y (None for a density method).
py::tuple fit_binding(const std::string& name, const py::array& x,
                      const std::optional<py::array>& y, const py::dict& options,
                      const std::optional<py::array>& unlabeled, const py::object& comm,
                      const std::optional<py::array>& sample_weight, long verbose,
                      std::vector<std::string> column_names) {
  const MethodEntry& method = method_called(name);
  const bool density = method.family == MethodFamily::density;
  if (density == y.has_value()) {
    throw InvalidArgument(
        "method " + name +
        (density ? " fits a density p(x): Y must be None" : " fits p(y|x): Y is required"));
  }
  if (density && unlabeled) throw InvalidArgument("method " + name + " takes no X_unlabeled");
  const OptionValues values = values_of(method, options);
  const auto xs = samples_of(x, "X");
  FitProcesses processes(comm, verbose);
  const std::size_t columns =
      static_cast<std::size_t>(xs.rows() + (y ? samples_of(*y, "Y").rows() : 0));
  if (!column_names.empty() && column_names.size() != columns) {
    throw InvalidArgument(std::to_string(column_names.size()) + " column names for " +
                          std::to_string(columns) + " columns of X and Y");
  }
  const FitContext context =
      processes.context(std::move(column_names), sample_weights_of(sample_weight));
  if (density) {
    MethodFit<DensityModel> fit =
        without_gil([&] { return fit_method_with_extras(method, xs, values, context); });
    py::dict extras = extras_to_dict(method, std::move(fit.extras));
    return py::make_tuple(std::move(fit.model), extras);
  }
  const auto ys = samples_of(*y, "Y");
  const Matrix no_unlabeled(xs.rows(), 0);
  const MatrixView unlabeled_x =
      unlabeled ? MatrixView(samples_of(*unlabeled, "X_unlabeled")) : MatrixView(no_unlabeled);
  MethodFit<ConditionalModel> fit = without_gil(
      [&] { return fit_method_with_extras(method, xs, ys, unlabeled_x, values, context); });
  py::dict extras = extras_to_dict(method, std::move(fit.extras));
  return py::make_tuple(std::move(fit.model), extras);
}

/// The answer of a model's query (the registry's, of the method that fitted it) for X (n, d_x):
/// shape (n,) for a one-dimensional answer, (n, k) otherwise.
py::object query_binding(const ConditionalModel& model, const std::string& name,
                         const py::array& x) {
  const auto xs = samples_of(x, "X");
  Matrix answer = without_gil([&] { return answer_query(model, name, xs); });
  const std::size_t dimensions =
      find_query(*method_named(model.report.method), name).result.shape.size();
  return array_to_numpy(std::move(answer), dimensions);
}

}  // namespace

void bind_methods(py::module_& module) {
  // The library's messages in this process advise Python's classes and parameters.
  set_message_spelling(python_spelling());
  module.def(
      "methods",
      [] {
        py::list entries;
        for (const MethodEntry& method : methods()) entries.append(method_to_dict(method));
        return entries;
      },
      "Every method: name, family, model shape, Python class and its options (name, type, doc, "
      "CLI flag, Python name, default, ...).");
  module.def(
      "no_sample_weights_message",
      [](const std::string& name) { return no_sample_weights_message(find_method(name)); },
      py::arg("method"), "Why a method refuses sample weights, and which methods take them.");
  module.def(
      "not_distributed_message",
      [](const std::string& name) { return not_distributed_message(find_method(name)); },
      py::arg("method"), "Why a method refuses to run on more than one process.");
  module.def("fit", &fit_binding, py::arg("method"), py::arg("X"), py::arg("Y"), py::arg("options"),
             py::arg("X_unlabeled") = py::none(), py::arg("comm") = py::none(),
             py::arg("sample_weight") = py::none(), py::arg("verbose") = 0,
             py::arg("column_names") = std::vector<std::string>(),
             "Fits any method: (model, extras), extras the method's declared arrays by name. Y: "
             "the outputs of a conditional or regression method, None for a density method. "
             "options maps option names (not Python names) to values, the rest keep their "
             "defaults. comm: a collective of cdens._collectives (an mpi4py adapter or a Dask "
             "fit's sockets) whose processes each pass their own rows (methods with "
             "'distributed'), or None. sample_weight: one weight per row (methods with "
             "'sample_weights'), or None. verbose: 1 writes the fit's progress to sys.stderr, 0 "
             "nothing. column_names: the names of the columns of X, then Y, by which the fit's "
             "messages name them (empty: x0, ..., y0, ...); the messages advise Python's "
             "classes and parameters.");
  module.def("query", &query_binding, py::arg("model"), py::arg("name"), py::arg("X"),
             "The answer of the query `name` that the model's method declares, for the rows of "
             "X.");
}

}  // namespace cdens::python
