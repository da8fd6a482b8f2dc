#include "evaluation/score_selection.hpp"

#include <algorithm>

#include "cdens/core/types.hpp"
#include "io/text.hpp"

namespace cdens::detail {
namespace {

/// What the applicability of a score depends on.
struct OutputShape {
  Index dimension = 0;
  bool any_discrete = false;
  bool all_discrete = true;
  ColumnKind kind = ColumnKind::continuous;  ///< of the first output (the only one when d_y = 1)
};

OutputShape output_shape(const ConditionalMixture& model) {
  OutputShape shape;
  shape.dimension = model.output_dim();
  for (const ColumnKernel& kernel : model.output_kernels()) {
    shape.any_discrete = shape.any_discrete || kernel.is_discrete();
    shape.all_discrete = shape.all_discrete && kernel.is_discrete();
  }
  shape.kind = model.output_kernels().front().kind();
  return shape;
}

/// Why `score` does not apply to a y of this shape, or nothing when it does.
std::string inapplicability(const std::string& score, const OutputShape& shape) {
  const bool scalar = shape.dimension == 1;
  const std::string one_dimensional =
      "a one-dimensional y; this model has d_y = " + std::to_string(shape.dimension);
  const bool ordered = scalar && shape.kind == ColumnKind::ordered;
  const bool unordered = scalar && shape.kind == ColumnKind::unordered;
  if (score == "crps") {
    if (!scalar) return "the CRPS needs " + one_dimensional;
    if (ordered) {
      return "the CRPS is for a continuous y: for an ordered y the ranked probability score (rps) "
             "takes its place";
    }
    if (unordered) return "the CRPS is for a continuous y; this y is unordered";
  } else if (score == "rps") {
    if (!ordered) {
      return std::string("the ranked probability score is for one ordered discrete y") +
             (scalar && !shape.any_discrete ? " (for a continuous y ask for crps)" : "");
    }
  } else if (score == "pinball") {
    if (!scalar) return "the pinball loss needs " + one_dimensional;
    if (shape.any_discrete) {
      return "pinball losses are for a continuous y (a discrete y's quantiles are its levels" +
             std::string(ordered ? ", which the ranked probability score rps scores all at once)"
                                 : "; this y is unordered)");
    }
  } else if (score == "cde_loss") {
    if (shape.all_discrete) {
      return "for a discrete y the CDE loss is the Brier score minus 1: ask for brier";
    }
  } else if (score == "brier") {
    if (!shape.all_discrete) {
      return "the Brier score is for a discrete y; a continuous output's quadratic score is "
             "cde_loss";
    }
  } else if (score == "energy_score") {
    if (scalar && !shape.any_discrete) {
      return "the energy score is for a y of several dimensions (for one it is the CRPS: ask for "
             "crps)";
    }
    if (shape.any_discrete) {
      return "the energy score is for continuous outputs: the distances between a discrete "
             "output's levels are no lengths of y";
    }
  } else if (score == "central") {
    if (!scalar) return "central intervals need " + one_dimensional;
    if (unordered) return "central sets need an order of the levels; this y is unordered";
  }
  return {};
}

}  // namespace

std::vector<InapplicableScore> inapplicable_scores(const ConditionalMixture& model) {
  const OutputShape shape = output_shape(model);
  std::vector<InapplicableScore> result;
  for (const std::string& name : evaluation_score_names()) {
    std::string reason = inapplicability(name, shape);
    if (!reason.empty()) result.push_back({name, std::move(reason)});
  }
  return result;
}

ScoreSelection select_scores(const std::vector<std::string>& names,
                             const ConditionalMixture& model) {
  const OutputShape shape = output_shape(model);
  std::vector<std::string> applicable;
  for (const std::string& name : evaluation_score_names()) {
    if (inapplicability(name, shape).empty()) applicable.push_back(name);
  }
  const std::vector<std::string>& chosen = names.empty() ? applicable : names;
  ScoreSelection selection;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::string& name = chosen[i];
    const auto before = chosen.begin() + static_cast<std::ptrdiff_t>(i);
    if (std::find(chosen.begin(), before, name) != before) {
      throw InvalidArgument("the score '" + name + "' is asked for twice");
    }
    bool* flag = name == "log_likelihood" ? &selection.log_likelihood
                 : name == "crps"         ? &selection.crps
                 : name == "rps"          ? &selection.rps
                 : name == "pinball"      ? &selection.pinball
                 : name == "cde_loss"     ? &selection.cde_loss
                 : name == "brier"        ? &selection.brier
                 : name == "energy_score" ? &selection.energy_score
                 : name == "central"      ? &selection.central
                 : name == "hpd"          ? &selection.hpd
                                          : nullptr;
    if (flag == nullptr) {
      throw InvalidArgument("unknown score '" + name +
                            "' (known: " + join(evaluation_score_names(), ", ") + ")");
    }
    const std::string reason = inapplicability(name, shape);
    if (!reason.empty()) {
      throw InvalidArgument("the score '" + name + "' does not apply to this model: " + reason +
                            " (the scores that apply: " + join(applicable, ", ") + ")");
    }
    *flag = true;
  }
  return selection;
}

}  // namespace cdens::detail
