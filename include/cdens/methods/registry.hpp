#pragma once
// The registry of methods: every estimator the `cdens` command, the Python package and the
// model-file reader know, with its model shape, its option table and its fit. The front ends
// iterate it instead of keeping lists of their own, so a new estimator is one entry here (a
// `*_method()` function in src/methods/ and its line in registry.cpp) and one option table.

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <variant>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/methods/option_table.hpp"
#include "cdens/model_file.hpp"

namespace cdens {

/// What a method fits: a conditional density p(y|x), a density p(x) or a regression (PRESS: one
/// output, a point prediction, a scikit-learn regressor in Python; its models skip the
/// constant-input wrapper, since its queries read its own gate).
/// The family fixes the model shape: a density method's model is a Gaussian mixture, every other
/// a conditional mixture (docs/design.md); `cdens fit --method M` fits any of them, and the
/// commands that query a model file dispatch on the family of the method that fitted it.
enum class MethodFamily { conditional, density, regression };

/// "conditional", "density", "regression".
std::string to_string(MethodFamily family);

/// The model-file shape of a family's models: "gaussian_mixture" or "conditional_mixture".
std::string model_shape(MethodFamily family);

/// One array of a method's contract beyond its model: an extra its fit returns (PRESS's state
/// weights of the training rows) or the answer of a query for new inputs (LSCE's z = Wx).
struct ArrayDeclaration {
  std::string name;
  /// Its dimensions, each a size by name: "n" the rows (of the training data for an extra, of
  /// the query's inputs for a query), "d_x" the inputs, "d_y" the outputs, or a count of the
  /// fit report (a hyperparameter or statistic, such as PRESS's "n_states"); "*" as the last
  /// dimension makes it a list of one-dimensional arrays of their own lengths.
  std::vector<std::string> shape;
  /// One line for `cdens methods`, the Python docs and `--help`.
  std::string doc;
};

/// The values of a declared array: a matrix whose rows and columns are its first and second
/// dimension (one column for a one-dimensional array), or one vector per item of a list.
using ArrayValue = std::variant<Matrix, std::vector<Vector>>;

/// A fit's extras by name, as its method declares them (MethodEntry::extras).
using FitExtras = std::map<std::string, ArrayValue>;

/// What a registry fit returns: the model (with its report) and the method's declared extras.
template <class Model>
struct MethodFit {
  Model model;
  FitExtras extras;
};

/// Answers a query for inputs x (d_x × n, in the user's units) of a model of the method: one
/// row per input, one column per entry of the declared shape's second dimension.
using QueryAnswer = std::function<Matrix(const ConditionalModel& model, const MatrixView& x)>;

/// A query a method's models answer beyond the conditional mixture's (PRESS's state weights,
/// LSCE's transform): `cdens predict --query NAME` and a Python method of the same name.
struct MethodQuery {
  ArrayDeclaration result;  ///< its name, shape (first dimension "n") and doc
  QueryAnswer answer;
};

/// Fits a conditional method to pairs (x d_x × n, y d_y × n); unlabeled_x (d_x × n', n' ≥ 0)
/// only for a method that takes unlabelled inputs. The model has no variable names yet.
using ConditionalMethodFit = std::function<MethodFit<ConditionalModel>(
    const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
    const OptionValues& options, const FitContext& context)>;

/// Fits a density method to samples x (d × n). The model has no variable names yet.
using DensityMethodFit = std::function<MethodFit<DensityModel>(
    const MatrixView& x, const OptionValues& options, const FitContext& context)>;

/// Reads the gate parameters of one gate kind of a model file; `read_gate` reads the gates a
/// wrapping gate holds.
using GateKindReader = std::function<std::shared_ptr<const ConditionalGate>(
    const nlohmann::json& parameters, const GateReader& read_gate)>;

/// A gate kind of the model files and how to read it.
struct GateKind {
  std::string kind;
  GateKindReader read;
};

/// One method.
struct MethodEntry {
  /// The name of `--method`, of the model file's "method" field and of the report.
  std::string name;
  MethodFamily family = MethodFamily::conditional;
  /// One line for `--help` and the Python description.
  std::string summary;
  /// The estimator class of the Python package whose models this method fits.
  std::string python_class;
  /// Every option, with its default.
  std::vector<OptionInfo> options;
  /// Whether the fit takes inputs without outputs (semi-supervised LSCDE).
  bool takes_unlabeled_inputs = false;
  /// Whether the fit runs on rows spread over many processes (FitContext::communicator, each
  /// rank passing its own rows); fit_method refuses more than one process to the others.
  bool distributed = false;
  /// Why a method that is not distributed needs one process, for its refusal of several
  /// (not_distributed_message); empty: its fit needs every row in one place.
  std::string single_process_reason;
  /// Whether the fit honours FitContext::sample_weights (weighted criteria, docs/methods/*.md);
  /// fit_method refuses sample weights to the others.
  bool sample_weights = false;
  /// Whether the fit runs on several OpenMP threads: its options end with the shared `threads`
  /// option (`--threads`, Python's n_jobs), which fit_method moves into FitContext::threads.
  bool threads = true;
  /// Whether y may have several dimensions (PRESS regresses one output).
  bool multi_output = true;
  /// Options that make a fit cheap — short grids, few centres and candidates, few iterations —
  /// on a few dozen pairs: the conformance suite (tests/cpp/test_conformance.cpp,
  /// tests/python/test_conformance.py) fits every method with them.
  OptionValues test_options;
  /// The fit: fit_conditional for the conditional and regression families, fit_density for
  /// density methods.
  ConditionalMethodFit fit_conditional;
  DensityMethodFit fit_density;
  /// The gate kinds its models write to model files (a kind may be listed by several methods).
  std::vector<GateKind> gates;
  /// The arrays its fit returns beside the model (MethodFit::extras), which a model file does
  /// not keep: Python's fitted attributes; `cdens fit` prints those without an "n" or "*".
  std::vector<ArrayDeclaration> extras;
  /// The queries its models answer beyond the family's.
  std::vector<MethodQuery> queries;
  /// Options whose value `cdens fit` prints beside the report (PRESS's criterion: the loss its
  /// figures are of).
  std::vector<std::string> reported_options;
};

/// Every method, in alphabetical order of name.
const std::vector<MethodEntry>& methods();

/// The methods of one family, in alphabetical order of name.
std::vector<const MethodEntry*> methods_of(MethodFamily family);

/// The method called `name` in `family`. InvalidArgument listing the
/// family's methods for an unknown name.
const MethodEntry& find_method(const std::string& name, MethodFamily family);

/// The method called `name` of any family. InvalidArgument listing
/// every method for an unknown name.
const MethodEntry& find_method(const std::string& name);

/// The method whose models carry `name` in their "method" field, or nullptr.
const MethodEntry* method_named(const std::string& name);

/// Fits a conditional or regression method: its fit_conditional, after refusing unlabelled
/// inputs (unlabeled_x with columns) to a method that takes none, and more than one process to
/// a method that is not distributed. With context.sample_weights: refuses them to a method that
/// does not support them, on more than one process, and unless validate_sample_weights accepts
/// them (one per row of x); the rows of weight 0 are dropped before the fit sees them, and equal
/// weights are no weights (the unweighted fit, to the bit). The extras' "n" is then the rows
/// of positive weight.
MethodFit<ConditionalModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                                   const MatrixView& y,
                                                   const MatrixView& unlabeled_x,
                                                   const OptionValues& options,
                                                   const FitContext& context = {});

/// fit_method_with_extras without the extras.
ConditionalModel fit_method(const MethodEntry& method, const MatrixView& x, const MatrixView& y,
                            const MatrixView& unlabeled_x, const OptionValues& options,
                            const FitContext& context = {});

/// Fits a density method: its fit_density, after refusing more than one process to a method that
/// is not distributed; sample weights as for the conditional fit_method.
MethodFit<DensityModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                               const OptionValues& options,
                                               const FitContext& context = {});

/// fit_method_with_extras without the extras.
DensityModel fit_method(const MethodEntry& method, const MatrixView& x, const OptionValues& options,
                        const FitContext& context = {});

/// The size a dimension of a declared array stands for (ArrayDeclaration::shape): `rows` for
/// "n", the model's d_x or d_y, or the count of that name in the fit report. InvalidArgument for
/// "*" or a name the report lacks.
Index declared_size(const std::string& dimension, Index rows, Index input_dim, Index output_dim,
                    const FitReport& report);

/// The query of `method` called `name`; InvalidArgument listing the method's queries.
const MethodQuery& find_query(const MethodEntry& method, const std::string& name);

/// The answer of the query `name` of the method that fitted `model` (its report's method) for
/// inputs x (d_x × n, the user's units): n × (the declared second dimension, or 1).
/// InvalidArgument for a method without that query or x of another dimension.
Matrix answer_query(const ConditionalModel& model, const std::string& name, const MatrixView& x);

/// Why `method` refuses sample weights, and which methods take them.
std::string no_sample_weights_message(const MethodEntry& method);

/// Why `method` refuses to run on more than one process, and which methods do run there.
std::string not_distributed_message(const MethodEntry& method);

/// The option of `method` called `name` (OptionInfo::name); InvalidArgument otherwise.
const OptionInfo& find_option(const MethodEntry& method, const std::string& name);

}  // namespace cdens
