#include "cdens/methods/registry.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/spelling.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/support.hpp"
#include "cdens/core/types.hpp"
#include "core/duplicate_rows.hpp"
#include "core/sample_weights.hpp"
#include "core/validate.hpp"
#include "io/csv.hpp"
#include "methods/common_options.hpp"
#include "methods/constant_inputs.hpp"
#include "methods/method_entries.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

std::vector<MethodEntry> all_methods() {
  using namespace registry_internal;
  // One line per method (clang-format off keeps it so).
  // clang-format off
  std::vector<MethodEntry> entries = {
      lscde_method(),
      ekde_method(),
      nwcde_method(),
      rkde_method(),
      sacde_method(),
      salscde_method(),
      press_method(),
      parzen_method(),
      gmm_method(),
      rsde_method(),
      skd_method(),
      gskd_method(),
      kcde_method(),
      linear_method(),
      auto_method(),
  };
  // clang-format on
  for (auto* family : {&forward_selection_methods, &reduced_cde_methods}) {
    std::vector<MethodEntry> more = (*family)();
    std::move(more.begin(), more.end(), std::back_inserter(entries));
  }
  for (MethodEntry& entry : entries) {
    if (entry.fit_conditional) {
      for (OptionInfo& bound : output_bounds_table().describe()) {
        entry.options.push_back(std::move(bound));
      }
    }
    if (entry.threads) entry.options.push_back(threads_option());
    entry.options.push_back(duplicates_option());
  }
  std::sort(entries.begin(), entries.end(),
            [](const MethodEntry& a, const MethodEntry& b) { return a.name < b.name; });
  return entries;
}

/// The method of `candidates` called `name`; InvalidArgument listing them.
const MethodEntry& find_among(const std::vector<const MethodEntry*>& candidates,
                              const std::string& name, const std::string& kind) {
  std::string known;
  for (const MethodEntry* method : candidates) {
    if (method->name == name) return *method;
    known += (known.empty() ? "" : ", ") + method->name;
  }
  throw InvalidArgument("unknown " + kind + "method '" + name + "' (known methods: " + known + ")");
}

/// The rows a weighted fit sees and their weights.
struct WeighedRows {
  std::vector<Index> rows;  ///< the rows of positive weight
  Vector weights;           ///< theirs; empty where they are all equal (no weights, to the bit)
  double weight_of_a_copy;  ///< FitContext::weight_of_a_copy in the units of `weights`
};

/// The context's sample weights checked for `method` and n rows, and what the fit should see
/// instead of the rows and weights given: nothing when they stay as given (no weights, or every
/// row of its own positive weight, the largest 1). Only relative weights matter, so they are
/// divided by the largest (counts of copies too, with the weight of one copy), and equal ones
/// are dropped: the fit is the unweighted one.
std::optional<WeighedRows> rows_to_weigh(const MethodEntry& method, Index n,
                                         const FitContext& context) {
  if (!context.weighted()) return std::nullopt;
  if (!method.sample_weights) throw InvalidArgument(no_sample_weights_message(method));
  if (context.communicator.size() > 1) {
    throw InvalidArgument("sample weights are supported on one process only");
  }
  validate_sample_weights(context.sample_weights, n, "sample weights");
  // Relative to the largest: weights scaled by any positive constant give the same model (and
  // counts of merged rows the model of the weights equal to them, to the bit).
  const Vector relative = relative_sample_weights(context.sample_weights, "sample weights");
  WeighedRows weighed{positive_weight_rows(relative), Vector(),
                      context.weight_of_a_copy / context.sample_weights.maxCoeff()};
  const Vector positive = relative(weighed.rows);
  const bool equal = (positive.array() == positive(0)).all();
  // Every row kept with its own relative weight: the fit as asked.
  if (!equal && static_cast<Index>(weighed.rows.size()) == n && relative == context.sample_weights)
    return std::nullopt;
  if (!equal) weighed.weights = positive;
  return weighed;
}

/// The context with the rows_to_weigh weights in place of its sample weights.
FitContext with_weights(const FitContext& context, const WeighedRows& weighed) {
  FitContext weighted = context;
  weighted.sample_weights = weighed.weights;
  weighted.weight_of_a_copy = weighed.weight_of_a_copy;
  return weighted;
}

/// A fit's option values without the shared rows the registry appends (threads, duplicates),
/// and the context that holds their values instead.
struct ContextOptions {
  OptionValues values;
  FitContext context;
};

/// The shared options among `values` (threads if the method runs on threads, duplicates) moved
/// into the context; nothing when none is given. InvalidArgument naming the option for a value
/// that check_value refuses.
std::optional<ContextOptions> context_options(const MethodEntry& method, const OptionValues& values,
                                              const FitContext& context) {
  const auto threads = values.find("threads");
  const auto duplicates = values.find("duplicates");
  const bool given_threads = method.threads && threads != values.end();
  if (!given_threads && duplicates == values.end()) return std::nullopt;
  ContextOptions moved{values, context};
  if (given_threads) {
    check_value(find_option(method, "threads"), threads->second, "option threads");
    moved.context.threads = static_cast<int>(std::get<std::int64_t>(threads->second));
    moved.values.erase("threads");
  }
  if (duplicates != values.end()) {
    check_value(find_option(method, "duplicates"), duplicates->second, "option duplicates");
    moved.context.duplicates =
        std::get<std::string>(duplicates->second) == "keep" ? Duplicates::keep : Duplicates::merge;
    moved.values.erase("duplicates");
  }
  return moved;
}

/// "N of the n rows repeat an earlier row in every column".
std::string repeated_rows_text(Index repeated, Index rows) {
  return std::to_string(repeated) + " of the " + std::to_string(rows) + " rows " +
         (repeated == 1 ? "repeats" : "repeat") + " an earlier row in every column";
}

/// Records in the report of a fit that `repeated` of its `rows` rows repeat an earlier one
/// (statistic duplicate_rows) and, once, what was done with them (`what`).
void note_repeated_rows(FitReport& report, Index repeated, Index rows, const std::string& what) {
  report.statistics["duplicate_rows"] = static_cast<double>(repeated);
  report.warnings.insert(report.warnings.begin(), repeated_rows_text(repeated, rows) + ": " + what);
}

/// The extras of a fit on some of the rows at every row: an extra whose first dimension is the
/// rows ("n") takes, in row i, the values of the fitted row `fitted_row_of[i]` (an identical row:
/// such an extra is a function of the row, as PRESS's state weights of its x).
void expand_to_rows(const MethodEntry& method, const std::vector<Index>& fitted_row_of,
                    FitExtras& extras) {
  for (const ArrayDeclaration& declared : method.extras) {
    if (declared.shape.empty() || declared.shape.front() != "n") continue;
    const auto found = extras.find(declared.name);
    if (found == extras.end()) continue;
    if (auto* values = std::get_if<Matrix>(&found->second)) {
      *values = Matrix((*values)(fitted_row_of, Eigen::all));
    }
  }
}

/// `fit()`, whose errors end with `note`: a fit on fewer rows than were given says so, since a
/// refusal that counts rows (folds exceeding them) would otherwise count rows the caller never
/// gave.
template <class Fit>
auto noting_in_errors(const std::string& note, Fit fit) {
  try {
    return fit();
  } catch (const DataError& error) {
    throw DataError(error.what() + note);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(error.what() + note);
  }
}

/// `fit(x, y, context)` of `method` on the rows of (x, y) (y with no rows for a density) with its
/// identical rows grouped as context.duplicates says (docs/methods/duplicates.md). `merge`: each
/// group is one row whose weight is the sum of its rows' sample weights or, without weights, the
/// group's size divided by the greatest common divisor of the sizes (a common factor changes no
/// weighted fit, and equal weights are none: the table written k times is the table, to the bit).
/// A fit that takes no weights (the method's, or `weights_refused` says why with its options) is
/// given one copy in every common factor of each group instead (first_copies): the rows
/// themselves where the sizes share no factor. `keep`, and several processes (each holds its own
/// rows; a group can span them): the rows as given. The report counts the rows that repeat an
/// earlier one and says once what was done with them; the inner fit's context says that its rows
/// were looked at, so a fit inside it does not again.
template <class Model, class Fit>
MethodFit<Model> fit_with_identical_rows_grouped(const MethodEntry& method, const MatrixView& x,
                                                 const MatrixView& y, const FitContext& context,
                                                 const std::string& weights_refused, Fit fit) {
  FitContext inner = context;
  inner.merged_rows = 0;
  // Rows of unequal count are the method's to refuse.
  const bool paired = y.cols() == x.cols();
  if (context.communicator.size() > 1) {
    // Every rank takes part in the count, whatever its rows.
    const Index repeated = context.communicator.sum_counts(
        paired ? group_identical_rows(x, y).repeated_rows() : Index{0});
    MethodFit<Model> result = fit(x, y, inner);
    if (repeated > 0) {
      note_repeated_rows(
          result.model.report, repeated, context.communicator.sum_counts(x.cols()),
          "they were fitted as separate rows, since identical rows are merged on one process "
          "only, and rows repeated on different processes are not counted "
          "(docs/methods/duplicates.md)");
    }
    return result;
  }
  if (!paired) return fit(x, y, inner);
  const RowGroups groups = group_identical_rows(x, y);
  const Index repeated = groups.repeated_rows();
  if (repeated == 0) return fit(x, y, inner);
  // What an error of a fit on fewer rows adds.
  const auto fitted_rows_note = [&](Index fitted) {
    return " (" + repeated_rows_text(repeated, groups.rows()) + ", so " + std::to_string(fitted) +
           " were fitted: duplicates = merge; keep fits every row)";
  };
  const auto noted = [&](MethodFit<Model> result, const std::string& what) {
    note_repeated_rows(result.model.report, repeated, groups.rows(), what);
    return result;
  };
  if (context.duplicates == Duplicates::keep) {
    return noted(fit(x, y, inner),
                 "they were fitted as separate rows (duplicates = keep), so leave-one-out and "
                 "cross-validation hold a row out with its twin still in the sample");
  }
  const std::vector<Index> counts = reduced_counts(groups);
  Vector weights = group_weights(groups, context.sample_weights);
  if (!context.weighted()) {
    for (Index g = 0; g < groups.groups(); ++g) {
      weights(g) = static_cast<double>(counts[static_cast<std::size_t>(g)]);
    }
  }
  const bool equal = (weights.array() == weights(0)).all();
  const bool takes_weights = method.sample_weights && weights_refused.empty();
  if (takes_weights || equal) {
    inner.merged_rows = repeated;
    inner.sample_weights = equal ? Vector() : weights;
    inner.weight_of_a_copy = !equal && !context.weighted() ? 1.0 : 0.0;
    MethodFit<Model> result = noting_in_errors(fitted_rows_note(groups.groups()), [&] {
      return fit(x(Eigen::all, groups.first_rows), y(Eigen::all, groups.first_rows), inner);
    });
    expand_to_rows(method, groups.group_of, result.extras);
    return noted(std::move(result),
                 "each group of identical rows was fitted as one row weighing their total "
                 "(duplicates = merge; keep fits them as separate rows)");
  }
  // A fit without weights, given weights (it refuses them), or groups of unequal sizes.
  const std::string no_weights =
      method.sample_weights ? weights_refused : method.name + " takes no sample weights";
  const std::vector<Index> rows = first_copies(groups, counts);
  if (context.weighted() || static_cast<Index>(rows.size()) == groups.rows()) {
    return noted(fit(x, y, inner),
                 no_weights +
                     " and they do not all repeat equally often, so they were fitted as separate "
                     "rows; its criterion holds a row out with its twin still in the sample "
                     "(docs/methods/duplicates.md)");
  }
  inner.merged_rows = groups.rows() - static_cast<Index>(rows.size());
  std::vector<Index> position(static_cast<std::size_t>(groups.rows()), 0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    position[static_cast<std::size_t>(rows[k])] = static_cast<Index>(k);
  }
  std::vector<Index> fitted_row_of;
  for (const Index group : groups.group_of) {
    const Index first = groups.first_rows[static_cast<std::size_t>(group)];
    fitted_row_of.push_back(position[static_cast<std::size_t>(first)]);
  }
  MethodFit<Model> result =
      noting_in_errors(fitted_rows_note(static_cast<Index>(rows.size())),
                       [&] { return fit(x(Eigen::all, rows), y(Eigen::all, rows), inner); });
  expand_to_rows(method, fitted_row_of, result.extras);
  const Index factor = groups.rows() / static_cast<Index>(rows.size());
  return noted(std::move(result),
               "every group has a multiple of " + std::to_string(factor) + " rows, so one in " +
                   std::to_string(factor) + " was fitted (" + std::to_string(rows.size()) +
                   " rows); " + no_weights +
                   ", so the identical rows that remain were fitted as separate rows "
                   "(docs/methods/duplicates.md)");
}

/// The output bounds among `values` (unbounded where none is given) and `values` without them:
/// fit_method applies them to the fitted model. InvalidArgument naming the option for a value
/// that is not a number, or bounds not in order.
std::pair<OutputBounds, OptionValues> split_output_bounds(OptionValues values) {
  OptionValues given;
  for (const char* name : {"y_lower", "y_upper"}) {
    if (const auto value = values.find(name); value != values.end()) {
      given.insert(*value);
      values.erase(value);
    }
  }
  const OutputBounds bounds = registry_internal::output_bounds_table().build(given);
  registry_internal::output_bounds_table().validate(bounds);
  return {bounds, std::move(values)};
}

/// Whether each row of n is one the fit sees (positive weight; every row without weights, or
/// where the weights are not one per row, which the fit refuses).
std::vector<bool> rows_seen(Index n, const FitContext& context) {
  std::vector<bool> seen(static_cast<std::size_t>(n), true);
  if (!context.weighted() || context.sample_weights.size() != n) return seen;
  for (Index i = 0; i < n; ++i) seen[static_cast<std::size_t>(i)] = context.sample_weights(i) > 0.0;
  return seen;
}

/// InvalidArgument unless every output the fit sees lies within `bounds` (over every rank: a
/// collective call): a bound the data break would truncate the model away from them.
void require_outputs_within(const OutputBounds& bounds, Index x_rows, const MatrixView& y,
                            const std::vector<bool>& seen, const FitContext& context) {
  if (y.rows() != 1) {
    throw InvalidArgument("y_lower and y_upper bound a one-dimensional y; this y has " +
                          std::to_string(y.rows()) + " columns");
  }
  const std::vector<std::string> names = context.pair_names(x_rows, 1).second;
  const std::string name = names.empty() ? "y" : names.front();
  const InputRange outputs = InputRange::of(y, seen, context.communicator);
  if (outputs.lower(0) < bounds.y_lower) {
    throw InvalidArgument("y_lower is " + format_number(bounds.y_lower) + " but " + name +
                          " takes " + format_number(outputs.lower(0)) +
                          " on a training row: the bounds must hold every training output");
  }
  if (outputs.upper(0) > bounds.y_upper) {
    throw InvalidArgument("y_upper is " + format_number(bounds.y_upper) + " but " + name +
                          " takes " + format_number(outputs.upper(0)) +
                          " on a training row: the bounds must hold every training output");
  }
}

/// The range of the inputs the fit sees, labelled (`seen` of x) and unlabelled, over every rank
/// (a collective call).
InputRange range_of_inputs(const MatrixView& x, const MatrixView& unlabeled_x,
                           const std::vector<bool>& seen, const FitContext& context) {
  if (unlabeled_x.cols() == 0 || unlabeled_x.rows() != x.rows()) {
    return InputRange::of(x, seen, context.communicator);
  }
  Matrix every(x.rows(), x.cols() + unlabeled_x.cols());
  every << x, unlabeled_x;
  std::vector<bool> kept = seen;
  kept.resize(static_cast<std::size_t>(every.cols()), true);
  return InputRange::of(every, kept, context.communicator);
}

}  // namespace

namespace {

/// The methods for which `has` holds, as message_spelling() names them (Python's classes once
/// each), comma-separated.
std::string methods_that(const std::function<bool(const MethodEntry&)>& has) {
  std::vector<std::string> names;
  for (const MethodEntry& entry : methods()) {
    const std::string name = message_spelling().method_name(entry.name);
    if (has(entry) && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

std::string no_sample_weights_message(const MethodEntry& method) {
  return message_spelling().method_name(method.name) +
         " does not support sample weights; supported: " +
         methods_that([](const MethodEntry& entry) { return entry.sample_weights; });
}

std::string to_string(MethodFamily family) {
  switch (family) {
    case MethodFamily::conditional:
      return "conditional";
    case MethodFamily::density:
      return "density";
    case MethodFamily::regression:
      return "regression";
  }
  return "unknown";
}

std::string model_shape(MethodFamily family) {
  return family == MethodFamily::density ? "gaussian_mixture" : "conditional_mixture";
}

const std::vector<MethodEntry>& methods() {
  static const std::vector<MethodEntry> entries = all_methods();
  return entries;
}

std::vector<const MethodEntry*> methods_of(MethodFamily family) {
  std::vector<const MethodEntry*> chosen;
  for (const MethodEntry& method : methods()) {
    if (method.family == family) chosen.push_back(&method);
  }
  return chosen;
}

const MethodEntry& find_method(const std::string& name, MethodFamily family) {
  // A method of another family is known: say what it fits rather than call it unknown.
  const MethodEntry* other = method_named(name);
  if (other != nullptr && other->family != family) {
    std::string known;
    for (const MethodEntry* method : methods_of(family)) {
      known += (known.empty() ? "" : ", ") + method->name;
    }
    throw InvalidArgument("method '" + name + "' is a " + to_string(other->family) +
                          " method, not a " + to_string(family) + " one (" + to_string(family) +
                          " methods: " + known + ")");
  }
  return find_among(methods_of(family), name, family == MethodFamily::density ? "density " : "");
}

const MethodEntry& find_method(const std::string& name) {
  std::vector<const MethodEntry*> every;
  for (const MethodEntry& method : methods()) every.push_back(&method);
  return find_among(every, name, "");
}

std::string r_function_of(const MethodEntry& method) {
  std::string name = method.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return (method.family == MethodFamily::density ? "kde_" : "cde_") + name;
}

const MethodEntry* method_named(const std::string& name) {
  for (const MethodEntry& method : methods()) {
    if (method.name == name) return &method;
  }
  return nullptr;
}

const OptionInfo& find_option(const MethodEntry& method, const std::string& name) {
  for (const OptionInfo& option : method.options) {
    if (option.name == name) return option;
  }
  throw InvalidArgument("method " + method.name + " has no option '" + name + "'");
}

std::string not_distributed_message(const MethodEntry& method) {
  return "method " + message_spelling().method_name(method.name) + " runs on one process only: " +
         (method.single_process_reason.empty() ? "its fit needs every row in one place"
                                               : method.single_process_reason) +
         " (docs/distributed.md); methods that run on many processes: " +
         methods_that([](const MethodEntry& entry) { return entry.distributed; });
}

namespace {

/// The fit of fit_method_with_extras on the method's own options (the output bounds taken out).
MethodFit<ConditionalModel> fit_conditional_method(const MethodEntry& method, const MatrixView& x,
                                                   const MatrixView& y,
                                                   const MatrixView& unlabeled_x,
                                                   const OptionValues& options,
                                                   const FitContext& context) {
  if (unlabeled_x.cols() > 0 && !method.takes_unlabeled_inputs) {
    throw InvalidArgument("method " + method.name + " takes no unlabelled inputs");
  }
  if (context.communicator.size() > 1 && !method.distributed) {
    throw InvalidArgument(not_distributed_message(method));
  }
  if (context.weighted()) require_same_samples(x, "x", y, "y");
  // A row of weight 0 is a row the fit never sees.
  if (const auto weighed = rows_to_weigh(method, x.cols(), context)) {
    return fit_conditional_method(method, x(Eigen::all, weighed->rows),
                                  y(Eigen::all, weighed->rows), unlabeled_x, options,
                                  with_weights(context, *weighed));
  }
  // Identical pairs: one weighted pair, or kept (unlabelled inputs stay as they are).
  if (context.merged_rows < 0) {
    const std::string weights_refused =
        method.weights_refused ? method.weights_refused(options, unlabeled_x.cols() > 0)
                               : std::string();
    return fit_with_identical_rows_grouped<ConditionalModel>(
        method, x, y, context, weights_refused,
        [&](const MatrixView& rows_x, const MatrixView& rows_y, const FitContext& grouped) {
          return fit_conditional_method(method, rows_x, rows_y, unlabeled_x, options, grouped);
        });
  }
  // A y too widely spread for its variance to be answered is refused before any fit, by name
  // (every model would refuse it, as y0). On many processes a rank sees its shard only.
  if (context.communicator.size() == 1) {
    const std::vector<std::string> y_names = context.pair_names(x.rows(), y.rows()).second;
    std::optional<Standardizer> y_scaling;
    try {
      y_scaling = Standardizer::fit(y, "y", y_names);
    } catch (const DataError&) {
      // A constant y or too few rows: the method's own refusal says what it needs.
    }
    if (y_scaling) require_answerable_output_scales(*y_scaling, y_names);
  }
  // A constant input is ignored (its model wraps the fit on the others). On many processes a
  // rank sees its shard only, so the standardiser's global check refuses it there; PRESS's model
  // is queried through its own gate, which a wrapper would hide.
  if (context.communicator.size() == 1 && method.family == MethodFamily::conditional) {
    const std::vector<Index> constant = constant_inputs(x);
    if (!constant.empty()) {
      return fit_without_constant_inputs(method, x, y, unlabeled_x, options, context, constant);
    }
  }
  return method.fit_conditional(x, y, unlabeled_x, options, context);
}

}  // namespace

MethodFit<ConditionalModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                                   const MatrixView& y,
                                                   const MatrixView& unlabeled_x,
                                                   const OptionValues& options,
                                                   const FitContext& context) {
  use_one_blas_thread();  // before the fit's first product
  if (!method.fit_conditional) {
    throw InvalidArgument("method " + method.name + " fits a density p(x), not p(y|x)");
  }
  if (const auto moved = context_options(method, options, context)) {
    return fit_method_with_extras(method, x, y, unlabeled_x, moved->values, moved->context);
  }
  // What the model keeps of its data beyond its parameters (docs/design.md, "Beyond the data"):
  // the range of its inputs, by which queries are told that they extrapolate, and the bounds of
  // its output, taken first so that a bound the data break is refused before the fit.
  const auto [bounds, method_options] = split_output_bounds(options);
  const std::vector<bool> seen = rows_seen(x.cols(), context);
  if (bounds.bounded()) require_outputs_within(bounds, x.rows(), y, seen, context);
  const InputRange inputs = range_of_inputs(x, unlabeled_x, seen, context);
  MethodFit<ConditionalModel> fit =
      fit_conditional_method(method, x, y, unlabeled_x, method_options, context);
  ConditionalMixture& model = fit.model.mixture;
  if (bounds.bounded() && model.atom()) {
    throw InvalidArgument(
        "y_lower and y_upper bound a continuous model, and this one has an atom of y at " +
        format_number(model.atom()->value) +
        " (atom = auto found it): give atom = none for a bounded model without the atom, or "
        "leave out the bounds");
  }
  if (bounds.bounded()) {
    model = ConditionalMixture(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                               model.outputs().with_bounds(bounds));
  }
  model = model.with_input_range(inputs);
  return fit;
}

MethodFit<DensityModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                               const OptionValues& options,
                                               const FitContext& context) {
  use_one_blas_thread();  // before the fit's first product
  if (!method.fit_density) {
    throw InvalidArgument("method " + method.name + " fits p(y|x), not a density p(x)");
  }
  if (const auto moved = context_options(method, options, context)) {
    return fit_method_with_extras(method, x, moved->values, moved->context);
  }
  if (context.communicator.size() > 1 && !method.distributed) {
    throw InvalidArgument(not_distributed_message(method));
  }
  if (const auto weighed = rows_to_weigh(method, x.cols(), context)) {
    return fit_method_with_extras(method, x(Eigen::all, weighed->rows), options,
                                  with_weights(context, *weighed));
  }
  if (context.merged_rows < 0) {
    return fit_with_identical_rows_grouped<DensityModel>(
        method, x, Matrix(0, x.cols()), context, std::string(),
        [&](const MatrixView& rows, const MatrixView&, const FitContext& grouped) {
          return fit_method_with_extras(method, rows, options, grouped);
        });
  }
  return method.fit_density(x, options, context);
}

ConditionalModel fit_method(const MethodEntry& method, const MatrixView& x, const MatrixView& y,
                            const MatrixView& unlabeled_x, const OptionValues& options,
                            const FitContext& context) {
  return fit_method_with_extras(method, x, y, unlabeled_x, options, context).model;
}

DensityModel fit_method(const MethodEntry& method, const MatrixView& x, const OptionValues& options,
                        const FitContext& context) {
  return fit_method_with_extras(method, x, options, context).model;
}

Index declared_size(const std::string& dimension, Index rows, Index input_dim, Index output_dim,
                    const FitReport& report) {
  if (dimension == "n") return rows;
  if (dimension == "d_x") return input_dim;
  if (dimension == "d_y") return output_dim;
  for (const auto* counts : {&report.hyperparameters, &report.statistics}) {
    const auto found = counts->find(dimension);
    if (found != counts->end()) return static_cast<Index>(found->second);
  }
  throw InvalidArgument("the fit report of " + report.method + " has no size '" + dimension + "'");
}

const MethodQuery& find_query(const MethodEntry& method, const std::string& name) {
  std::string known;
  for (const MethodQuery& query : method.queries) {
    if (query.result.name == name) return query;
    known += (known.empty() ? "" : ", ") + query.result.name;
  }
  throw InvalidArgument("models of method " + method.name + " answer no query '" + name + "' (" +
                        (known.empty() ? "they answer none" : "their queries: " + known) + ")");
}

Matrix answer_query(const ConditionalModel& model, const std::string& name, const MatrixView& x) {
  const MethodEntry* method = method_named(model.report.method);
  if (method == nullptr) {
    throw InvalidArgument("no method '" + model.report.method + "' answers query '" + name + "'");
  }
  const MethodQuery& query = find_query(*method, name);
  require_dimension(x, model.mixture.input_dim(), "x");
  return query.answer(model, x);
}

}  // namespace cdens
