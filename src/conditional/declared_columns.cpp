#include "conditional/declared_columns.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "cdens/core/spelling.hpp"
#include "cdens/core/types.hpp"
#include "conditional/kernel_cde_engine.hpp"
#include "parallel/samples_of_ranks.hpp"

namespace cdens {
namespace {

/// Looks-discrete rule: at most this many distinct values of any kind, …
constexpr std::size_t kFewValues = 10;
/// … or at most this many distinct integer values.
constexpr std::size_t kFewIntegers = 20;

/// Row d of the stacked (x, y).
Vector column_of(const MatrixView& x, const MatrixView& y, Index d) {
  return d < x.rows() ? Vector(x.row(d).transpose()) : Vector(y.row(d - x.rows()).transpose());
}

/// `fitted` with the identity map on its discrete dimensions (their kernels are kernels[first +
/// d]).
Standardizer keeping_discrete_raw(const Standardizer& fitted, const ColumnKernels& kernels,
                                  Index first) {
  Vector mean = fitted.mean();
  Vector scale = fitted.scale();
  for (Index d = 0; d < mean.size(); ++d) {
    if (kernels[static_cast<std::size_t>(first + d)].is_discrete()) {
      mean(d) = 0.0;
      scale(d) = 1.0;
    }
  }
  return Standardizer(mean, scale);
}

}  // namespace

std::string column_name(Index d, Index input_dim, const std::vector<std::string>& names) {
  return d < static_cast<Index>(names.size()) ? names[static_cast<std::size_t>(d)]
                                              : dimension_name(d, input_dim);
}

std::string dimension_name(Index d, Index input_dim) {
  return d < input_dim ? "x" + std::to_string(d) : "y" + std::to_string(d - input_dim);
}

ColumnKernels declared_column_kernels(const MatrixView& x, const MatrixView& y,
                                      const std::vector<Index>& unordered,
                                      const std::vector<Index>& ordered,
                                      const std::vector<std::string>& names,
                                      const Communicator& communicator) {
  const Index dimension = x.rows() + y.rows();
  const auto name_of = [&](Index d) { return column_name(d, x.rows(), names); };
  ColumnKernels kernels(static_cast<std::size_t>(dimension));
  std::set<Index> declared;
  for (const auto& [positions, kind] :
       {std::pair{&unordered, ColumnKind::unordered}, std::pair{&ordered, ColumnKind::ordered}}) {
    for (const Index d : *positions) {
      if (d < 0 || d >= dimension) {
        throw InvalidArgument("the " + to_string(kind) + " column " + std::to_string(d) +
                              " is out of range: the data have " + std::to_string(dimension) +
                              " columns (inputs, then outputs)");
      }
      if (!declared.insert(d).second) {
        throw InvalidArgument("column " + name_of(d) + " is declared discrete more than once");
      }
      const Vector values = column_of(x, y, d);
      kernels[static_cast<std::size_t>(d)] =
          communicator.size() == 1
              ? ColumnKernel::of_values(kind, values, name_of(d))
              : ColumnKernel(
                    kind,
                    *distinct_values_of_ranks(values, static_cast<std::size_t>(-1), communicator),
                    name_of(d));
    }
  }
  return kernels;
}

bool looks_discrete(const VectorView& values) {
  std::set<double> distinct;
  bool integers = true;
  for (Index i = 0; i < values.size(); ++i) {
    distinct.insert(values(i));
    integers = integers && values(i) == std::round(values(i));
    if (distinct.size() > std::max(kFewValues, kFewIntegers)) return false;
  }
  return distinct.size() <= (integers ? kFewIntegers : kFewValues);
}

bool has_few_integer_levels(const VectorView& values) {
  std::set<double> levels;
  for (Index i = 0; i < values.size(); ++i) {
    if (values(i) != std::round(values(i))) return false;
    levels.insert(values(i));
    if (levels.size() > kFewIntegers) return false;
  }
  return levels.size() >= 2;
}

bool has_few_integer_levels(const VectorView& values, const Communicator& communicator) {
  if (communicator.size() == 1) return has_few_integer_levels(values);
  double fractional = (values.array() != values.array().round()).any() ? 1.0 : 0.0;
  communicator.allreduce_max(&fractional, 1);
  const auto levels = distinct_values_of_ranks(values, kFewIntegers, communicator);
  return fractional == 0.0 && levels && levels->size() >= 2 && levels->size() <= kFewIntegers;
}

std::vector<std::string> undeclared_discrete_warnings(const MatrixView& x, const MatrixView& y,
                                                      const ColumnKernels& kernels,
                                                      const std::vector<std::string>& names,
                                                      const Communicator& communicator) {
  const Spelling& spelling = message_spelling();
  // Whether a column looks discrete depends on its distinct values only, and a rank with more
  // than looks_discrete allows makes the column continuous.
  const auto looks_discrete_on_every_rank = [&](const Vector& values) {
    if (communicator.size() == 1) return looks_discrete(values);
    const auto distinct =
        distinct_values_of_ranks(values, std::max(kFewValues, kFewIntegers), communicator);
    return distinct && looks_discrete(Eigen::Map<const Vector>(
                           distinct->data(), static_cast<Index>(distinct->size())));
  };
  std::vector<std::string> warnings;
  for (Index d = 0; d < x.rows() + y.rows(); ++d) {
    if (kernels[static_cast<std::size_t>(d)].is_discrete() ||
        !looks_discrete_on_every_rank(column_of(x, y, d))) {
      continue;
    }
    const std::string name = column_name(d, x.rows(), names);
    warnings.push_back(
        "column " + name + " looks discrete (few distinct values) but is smoothed as continuous" +
        (d >= x.rows() ? ", which can collapse its bandwidth onto the values" : "") +
        ": declare it ordered (integer levels) or discrete (unordered): " +
        spelling.option("ordered", name) + " or " + spelling.option("discrete", name));
  }
  return warnings;
}

std::vector<std::string> many_levels_warnings(const ColumnKernels& kernels, Index n,
                                              Index input_dim,
                                              const std::vector<std::string>& names) {
  std::vector<std::string> warnings;
  for (std::size_t d = 0; d < kernels.size(); ++d) {
    const ColumnKernel& kernel = kernels[d];
    if (!kernel.is_discrete() || 2 * kernel.n_levels() <= n) continue;
    const auto position = static_cast<Index>(d);
    warnings.push_back("column " + column_name(position, input_dim, names) + " is declared " +
                       to_string(kernel.kind()) + " discrete but has " +
                       std::to_string(kernel.n_levels()) + " levels in " + std::to_string(n) +
                       " rows (more than half): most levels are seen once" +
                       (position >= input_dim ? ", so a new value of it has probability 0" : "") +
                       "; is it continuous?");
  }
  return warnings;
}

StandardizedPairs standardize_continuous_columns(const MatrixView& x, const MatrixView& y,
                                                 const ColumnKernels& kernels,
                                                 const FitContext& context) {
  StandardizedPairs pairs = context.communicator.size() == 1 ? standardize_pairs(x, y, context)
                                                             : standardize_shard(x, y, context);
  if (!any_discrete(kernels)) return pairs;
  pairs.x_scaling = keeping_discrete_raw(pairs.x_scaling, kernels, 0);
  pairs.y_scaling = keeping_discrete_raw(pairs.y_scaling, kernels, x.rows());
  pairs.samples = {pairs.x_scaling.transform(x), pairs.y_scaling.transform(y)};
  return pairs;
}

}  // namespace cdens
