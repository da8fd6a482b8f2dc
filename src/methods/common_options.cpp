#include "methods/common_options.hpp"

#include <utility>

#include "cdens/core/fit_context.hpp"
#include "kernel_sums/gaussian_kernel.hpp"

namespace cdens::registry_internal {
OptionInfo option(std::string name, OptionType type, std::string doc) {
  OptionInfo info;
  info.name = std::move(name);
  info.type = type;
  info.doc = std::move(doc);
  return info;
}

OptionInfo library_only(OptionInfo info) {
  info.offered = false;
  return info;
}

OptionInfo none_by_default(OptionInfo info) {
  info.none_is_default = true;
  return info;
}

OptionInfo in_range(OptionInfo info, double minimum, double maximum, bool exclusive) {
  info.minimum = minimum;
  info.maximum = maximum;
  info.exclusive_minimum = exclusive;
  return info;
}

OptionInfo positive(OptionInfo info) {
  return in_range(std::move(info), 0.0, std::numeric_limits<double>::infinity(), true);
}

OptionInfo kernel_widths(OptionInfo info) {
  info.minimum = kNarrowestKernelWidth;
  info.maximum = kWidestKernelWidth;
  info.range_reason = kKernelWidthRangeReason;
  return info;
}

namespace {

/// A grid whose default is the method's (a paper's) and whose chosen value the report holds
/// under the grid's name.
OptionInfo grid(std::string name, std::string doc) {
  return none_by_default(option(std::move(name), OptionType::real_list, std::move(doc)));
}

}  // namespace

OptionInfo sigma_grid() {
  return kernel_widths(
      grid("sigma",
           "Candidate kernel widths σ (standardised units); more than one candidate turns on "
           "cross-validation"));
}

OptionInfo lambda_grid() {
  return positive(grid("regularization", "Candidate regularisation parameters λ"));
}

OptionInfo epsilon_grid() {
  // A radius, not a kernel width: any positive radius gives a ball (a tiny one holds the query's
  // own pair or none, a huge one every pair); nothing is exponentiated.
  return positive(grid(
      "epsilon", "Candidate radii ε of ε-KDE's input ball ‖x_i − x‖ ≤ ε (standardised units)"));
}

OptionInfo width_grid() {
  return kernel_widths(grid(
      "bandwidth", "Candidate kernel widths (standardised units), compared by cross-validation"));
}

OptionInfo n_centers_option() {
  return in_range(option("n_centers", OptionType::integer,
                         "Number of kernel or basis centres drawn from the training pairs (all "
                         "pairs when at least n)"),
                  1);
}

OptionInfo folds_option() {
  return in_range(option("folds", OptionType::integer, "Cross-validation folds K"), 2);
}

OptionInfo seed_option() {
  return option("seed", OptionType::seed, "Seed of the random choices (centres, folds, starts)");
}

OptionInfo threads_option() {
  OptionTable<FitContext> row;
  row.add(option("threads", OptionType::threads,
                 "OpenMP threads, by default one per core that other processes leave free "
                 "(OMP_NUM_THREADS, if set); the result does not depend on it"),
          CDENS_OPTION_FIELD(FitContext, threads));
  return row.describe().front();
}

OptionInfo duplicates_option() {
  OptionTable<FitContext> row;
  row.add_choice(option("duplicates", OptionType::choice,
                        "Rows equal in every column, x and y: merge fits each group as one row "
                        "weighing their total (a method without sample weights: one in k copies "
                        "where every group has a multiple of k rows), so leave-one-out and "
                        "cross-validation hold a row out with its copies; keep fits the rows as "
                        "given, as the papers do, where a held-out row's twin pulls the kernel "
                        "widths towards 0"),
                 CDENS_OPTION_FIELD(FitContext, duplicates), {Duplicates::merge, Duplicates::keep},
                 [](Duplicates choice) { return to_string(choice); });
  return row.describe().front();
}

const OptionTable<OutputBounds>& output_bounds_table() {
  static const OptionTable<OutputBounds> table = [] {
    const char* why =
        "; every component of the model is truncated to the bounds and renormalised, so densities, "
        "CDFs, quantiles, draws and moments stay inside them (a one-dimensional continuous y, "
        "within which every training output must lie)";
    OptionTable<OutputBounds> rows;
    rows.add(none_by_default(option("y_lower", OptionType::real,
                                    std::string("The smallest value y can take (0 for a positive "
                                                "output)") +
                                        why)),
             CDENS_OPTION_FIELD(OutputBounds, y_lower));
    rows.add(none_by_default(
                 option("y_upper", OptionType::real,
                        std::string("The largest value y can take (1 for a proportion)") + why)),
             CDENS_OPTION_FIELD(OutputBounds, y_upper));
    rows.add_rule([](const OutputBounds& bounds) { bounds.require_valid(); });
    return rows;
  }();
  return table;
}

OptionInfo standardize_option() {
  return option(
      "standardize", OptionType::boolean,
      "Work on standardised data; off takes widths in the units of the data (the paper's setting)");
}

OptionInfo output_transform_option() {
  return option("y_transform", OptionType::choice,
                "Fit the output as it is (none), its logarithm (log, positive outputs) or its "
                "Yeo–Johnson transform with λ by the linear model's profile likelihood "
                "(yeo_johnson); densities, quantiles and draws stay in y's units");
}

const std::vector<OutputTransformChoice>& output_transform_choices() {
  static const std::vector<OutputTransformChoice> choices = {
      OutputTransformChoice::none, OutputTransformChoice::log, OutputTransformChoice::yeo_johnson};
  return choices;
}

std::string output_transform_refuses_weights(const OptionValues& values) {
  const auto given = values.find("y_transform");
  if (given == values.end() || std::get<std::string>(given->second) == "none") return {};
  return "an output transform takes no sample weights";
}

OptionInfo output_atom_option(const std::string& doc) {
  OptionInfo atom =
      option("atom", OptionType::choice,
             "A value of a one-dimensional continuous y carried by many rows (the zero of a "
             "zero-inflated output) as a point mass: auto finds it (the most frequent value, if "
             "it carries at least 5 % of the rows, at least 5 times as many as any other value, "
             "beside more than 20 other values), none models none, a number names it; " +
                 doc);
  atom.choices = {"auto", "none"};
  atom.takes_numbers = true;
  return atom;
}

OptionInfo declared_columns_option(const std::string& name, std::string doc) {
  return none_by_default(option(name, OptionType::columns, std::move(doc)));
}

}  // namespace cdens::registry_internal
