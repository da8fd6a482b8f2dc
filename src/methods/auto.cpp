#include "cdens/conditional/auto.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "conditional/declared_columns.hpp"
#include "conditional/kernel_queries_of_ranks.hpp"
#include "conditional/pooled_gate.hpp"
#include "core/sampling_plan.hpp"
#include "core/validate.hpp"
#include "io/text.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"
#include "methods/stacking_weights.hpp"
#include "model/tied_outputs.hpp"
#include "parallel/samples_of_ranks.hpp"

namespace cdens {
namespace {

using Clock = std::chrono::steady_clock;

/// validation = auto scores by K-fold refits up to this many pairs, where they take seconds, and
/// by the fits' own leave-one-out terms beyond (docs/methods/auto.md: at small n those terms of
/// KCDE around a Gaussian-process trend can miss a fragile fit that the refits expose).
constexpr Index kLargestKFoldScoring = 1000;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A candidate: a method with the option values of its spec, plus this fit's seed (its threads are
/// the context's) for the options of those types it did not set.
struct Candidate {
  std::string spec;
  const MethodEntry* method = nullptr;
  OptionValues values;
};

/// The option of `method` a candidate names by its name or its Python name.
const OptionInfo& option_named(const MethodEntry& method, const std::string& key,
                               const std::string& spec) {
  for (const OptionInfo& option : method.options) {
    if (option.name == key || option.python_name == key) return option;
  }
  throw InvalidArgument("candidate '" + spec + "': " + method.name + " has no option '" + key +
                        "'");
}

/// The option of `method` of type `type` called `name`, or nullptr.
const OptionInfo* typed_option(const MethodEntry& method, const std::string& name,
                               OptionType type) {
  for (const OptionInfo& option : method.options) {
    if (option.name == name && option.type == type) return &option;
  }
  return nullptr;
}

/// Every option value of a candidate, its method's default where the candidate sets none.
OptionValues every_value(const Candidate& candidate) {
  OptionValues values = candidate.values;
  for (const OptionInfo& option : candidate.method->options) {
    values.emplace(option.name, option.default_value);
  }
  return values;
}

std::vector<Candidate> parse_candidates(const AutoOptions& options) {
  std::vector<Candidate> candidates;
  for (const std::string& spec : split_list(options.candidates, ',', "candidates")) {
    const std::vector<std::string> parts = split_list(spec, ':', "candidate '" + spec + "'");
    const MethodEntry& method = [&]() -> const MethodEntry& {
      try {
        return find_method(parts.front(), MethodFamily::conditional);
      } catch (const InvalidArgument& error) {
        throw InvalidArgument("option candidates: " + std::string(error.what()));
      }
    }();
    if (method.name == "auto") {
      throw InvalidArgument("candidate '" + spec + "': auto cannot choose itself");
    }
    Candidate candidate{spec, &method, {}};
    for (std::size_t p = 1; p < parts.size(); ++p) {
      const auto equals = parts[p].find('=');
      if (equals == std::string::npos) {
        throw InvalidArgument("candidate '" + spec + "': '" + parts[p] +
                              "' is not an option setting NAME=VALUE");
      }
      const OptionInfo& option = option_named(method, parts[p].substr(0, equals), spec);
      if (option.name == "atom") {
        throw InvalidArgument("candidate '" + spec +
                              "': the atom is auto's option, decided once for every candidate "
                              "(set atom on auto)");
      }
      // The pool is one mixture: its bounds are auto's own, applied to the model it returns.
      if (option.name == "y_lower" || option.name == "y_upper") {
        throw InvalidArgument("candidate '" + spec + "': set " + option.name +
                              " on auto itself, which bounds the model it returns");
      }
      if (candidate.values.count(option.name) != 0) {
        throw InvalidArgument("candidate '" + spec + "': option '" + option.name +
                              "' is set twice");
      }
      candidate.values[option.name] = parse_option_text(
          option, parts[p].substr(equals + 1), "candidate '" + spec + "' option " + option.name);
    }
    for (const auto& [name, columns] :
         {std::pair{"discrete", &options.discrete}, std::pair{"ordered", &options.ordered}}) {
      if (!columns->empty() && typed_option(method, name, OptionType::columns) != nullptr) {
        candidate.values[name] = std::vector<std::int64_t>(columns->begin(), columns->end());
      }
    }
    for (const OptionInfo& option : method.options) {
      if (candidate.values.count(option.name) != 0) continue;
      if (option.type == OptionType::seed) candidate.values[option.name] = options.seed;
    }
    for (const Candidate& earlier : candidates) {
      if (earlier.method == &method && every_value(earlier) == every_value(candidate)) {
        throw InvalidArgument("candidate '" + spec + "' is the same as '" + earlier.spec +
                              "': a candidate is listed once");
      }
    }
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

/// Whether `columns` (positions among the inputs, then the outputs) name an output.
bool declares(const std::vector<Index>& columns, Index input_dim) {
  return std::any_of(columns.begin(), columns.end(),
                     [&](Index column) { return column >= input_dim; });
}

/// Whether the candidate sets the choice `name` to something other than "none" (KCDE's trend =
/// linear or gp, a y_transform).
bool sets_choice(const Candidate& candidate, const char* name) {
  const auto value = candidate.values.find(name);
  return value != candidate.values.end() && std::get<std::string>(value->second) != "none";
}

/// InvalidArgument unless every fold can hold a pair (the table's rules are checked before).
void require_pairs_for_folds(const AutoOptions& options, Index n) {
  if (options.folds > n) {
    throw InvalidArgument("folds (" + std::to_string(options.folds) + ") exceed the " +
                          std::to_string(n) + " pairs");
  }
}

/// Mean and standard error (standard deviation / √n) of `values`; with sample `weights` (one
/// per value, positive; empty: unweighted) the weighted mean, and the weighted standard deviation
/// over √n_e with Kish's effective size n_e = (Σw)² / Σw², as the weighted standardiser. On
/// several ranks of `communicator` the values are this rank's and the sums every rank's (a
/// collective call).
std::pair<double, double> mean_and_standard_error(const Vector& values, const Vector& weights,
                                                  const Communicator& communicator) {
  const auto summed = [&](std::vector<double> sums) {
    communicator.allreduce_sum(sums.data(), sums.size());
    return sums;
  };
  if (weights.size() == 0) {
    const auto first = summed({values.sum(), static_cast<double>(values.size())});
    const double n = first[1];
    const double mean = first[0] / n;
    const double variance =
        summed({(values.array() - mean).square().sum()})[0] / std::max(n - 1.0, 1.0);
    return {mean, std::sqrt(variance / n)};
  }
  const auto first = summed({weights.sum(), weights.dot(values), weights.squaredNorm()});
  const double total = first[0];
  const double mean = first[1] / total;
  const double effective = total * total / first[2];
  const double variance = summed({weights.dot((values.array() - mean).square().matrix())})[0] /
                          total * effective / std::max(effective - 1.0, 1e-300);
  return {mean, std::sqrt(variance / effective)};
}

}  // namespace

std::string to_string(IntegerOutput choice) {
  return choice == IntegerOutput::pmf ? "pmf" : "density";
}

std::string to_string(CandidateCombination combination) {
  return combination == CandidateCombination::stacking ? "stacking" : "selection";
}

std::string to_string(CandidateValidation validation) {
  switch (validation) {
    case CandidateValidation::leave_one_out:
      return "loo";
    case CandidateValidation::kfold:
      return "kfold";
    case CandidateValidation::automatic:
      break;
  }
  return "auto";
}

const OptionTable<AutoOptions>& auto_option_table() {
  using namespace registry_internal;
  using Options = AutoOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add(option("candidates", OptionType::name_list,
                    "The conditional methods to choose among, cheapest first, each optionally "
                    "with option settings (kcde:trend=linear)"),
             CDENS_OPTION_FIELD(Options, candidates));
    rows.add(declared_columns_option("discrete",
                                     "Unordered discrete columns, passed to the candidates that "
                                     "take them (kcde); with a discrete output the "
                                     "scores are probability masses and only those "
                                     "candidates are run"),
             CDENS_OPTION_FIELD(Options, discrete));
    rows.add(declared_columns_option("ordered",
                                     "Ordered discrete columns, passed to the candidates that take "
                                     "them (kcde)"),
             CDENS_OPTION_FIELD(Options, ordered));
    rows.add_choice(option("integer_output", OptionType::choice,
                           "An undeclared y of at most 20 integer levels gets a probability mass "
                           "function over its levels (pmf: declared ordered) or a density "
                           "(density, which can spike on the levels)"),
                    CDENS_OPTION_FIELD(Options, integer_output),
                    {IntegerOutput::pmf, IntegerOutput::density},
                    [](IntegerOutput choice) { return to_string(choice); });
    rows.add(output_atom_option(
                 "decided on every pair and passed to the candidates that model it (kcde "
                 "without a trend or transform); the others are then not run, since a density "
                 "and the atom's probability do not compare"),
             CDENS_OPTION_FIELD(Options, atom));
    rows.add_choice(option("combine", OptionType::choice,
                           "stacking: the linear pool of the candidates with the weights of the "
                           "best held-out log score (weights below 0.01 dropped); "
                           "selection: the candidate of the smallest held-out NLL"),
                    CDENS_OPTION_FIELD(Options, combine),
                    {CandidateCombination::stacking, CandidateCombination::selection},
                    [](CandidateCombination choice) { return to_string(choice); });
    rows.add_choice(option("validation", OptionType::choice,
                           "How the candidates are scored: loo, each fitted once on every pair "
                           "and scored by its own leave-one-out log-densities where its fit "
                           "computes them (kcde, linear), by K-fold refits otherwise; kfold, "
                           "every candidate refitted on K - 1 folds; auto, kfold up to 1,000 "
                           "pairs and loo beyond"),
                    CDENS_OPTION_FIELD(Options, validation),
                    {CandidateValidation::automatic, CandidateValidation::leave_one_out,
                     CandidateValidation::kfold},
                    [](CandidateValidation choice) { return to_string(choice); });
    rows.add(folds_option(), CDENS_OPTION_FIELD(Options, folds));
    rows.add(
        positive(option("time_budget", OptionType::real,
                        "Seconds for scoring the candidates: once one is scored, a later one is "
                        "not started when the budget is spent and is stopped after its first "
                        "fold when its folds would overrun; the final refit is not counted")),
        CDENS_OPTION_FIELD(Options, time_budget));
    rows.add(seed_option(), CDENS_OPTION_FIELD(Options, seed));
    return rows;
  }();
  return table;
}

/// Why `model` may not compete where y is recorded on a grid of steps `steps` (0: none): a
/// component of a group without trend whose spread in y's units is below half the step of its
/// output. Around a trend or through an output transform, the spread in y varies with x; KCDE
/// keeps its own floor there (docs/methods/kcde.md) and the line's spread is that of its
/// residuals.
std::optional<std::string> narrower_than_recording(const ConditionalMixture& model,
                                                   const std::vector<double>& steps) {
  for (Index d = 0; d < model.output_dim(); ++d) {
    const double step = steps[static_cast<std::size_t>(d)];
    if (step == 0.0 || model.output_kernels()[static_cast<std::size_t>(d)].is_discrete()) continue;
    const auto& groups = model.trend_groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].trend || groups[g].transform) continue;
      const Index first = groups[g].first_component;
      const double spread =
          model.scales().row(d).segment(first, model.trend_group_end(g) - first).minCoeff() *
          model.y_scaling().scale()(d);
      if (spread < narrowest_width_on_grid(step) * (1.0 - 1e-9)) {
        return "excluded: its kernels (spread " + format_short(spread) +
               ") are narrower than half the recording step of y" +
               (model.output_dim() > 1 ? std::to_string(d) : std::string()) + " (" +
               format_short(step) + "): spikes on the recorded values";
      }
    }
  }
  return std::nullopt;
}

/// The candidates of `scored` (indices, in order) whose held-out NLLs differ from every earlier
/// kept one's on some pair, by more than 10⁻⁶ nats on any rank: one that equals another
/// everywhere is the same model (Yeo–Johnson at λ = 1 is the identity), whose stacking weights
/// would split their share arbitrarily and double every query's cost. 10⁻⁶ is the kernel-sum
/// engine's accuracy of a log-density, below which two candidates' terms are the same numbers
/// computed two ways (auto's pool on 200,000 rows kept `kcde:trend=gp` and its Yeo–Johnson
/// variant at λ = 1, weight 0.40 each, under a bound of 10⁻⁹: their terms differed by rounding
/// by up to more than that). A note names each one left out and the candidate it equals.
std::vector<std::size_t> distinct_candidates(const std::vector<std::size_t>& scored,
                                             const std::vector<Vector>& pair_nll,
                                             const std::vector<Candidate>& candidates,
                                             const Communicator& communicator,
                                             std::vector<std::string>& notes) {
  constexpr double kSameNll = 1e-6;
  std::vector<std::size_t> kept;
  for (const std::size_t c : scored) {
    const auto equal = std::find_if(kept.begin(), kept.end(), [&](std::size_t earlier) {
      double largest =
          pair_nll[c].size() > 0 ? (pair_nll[c] - pair_nll[earlier]).cwiseAbs().maxCoeff() : 0.0;
      communicator.allreduce_max(&largest, 1);
      return largest <= kSameNll;
    });
    if (equal == kept.end()) {
      kept.push_back(c);
    } else {
      notes.push_back("stacking: " + candidates[c].spec + " scores as " + candidates[*equal].spec +
                      " on every held-out pair (within 1e-6 nats), so the pool keeps " +
                      candidates[*equal].spec + " only");
    }
  }
  return kept;
}

/// The stacking weights over `pool` (candidate indices) from their held-out NLLs: the members
/// of positive weight and their weights, and the pool's mean held-out NLL.
struct Stack {
  std::vector<std::size_t> members;
  Vector weights;
  double mean_nll = NAN;
};

Stack stack_candidates(const std::vector<std::size_t>& pool, const std::vector<Vector>& pair_nll,
                       const Vector& pair_weights, const Communicator& communicator) {
  Matrix log_densities(pair_nll[pool.front()].size(), static_cast<Index>(pool.size()));
  for (std::size_t s = 0; s < pool.size(); ++s) {
    log_densities.col(static_cast<Index>(s)) = -pair_nll[pool[s]];
  }
  const StackingWeights stacked = stacking_weights(log_densities, pair_weights, communicator);
  Stack result;
  std::vector<double> kept;
  for (std::size_t s = 0; s < pool.size(); ++s) {
    if (stacked.weights(static_cast<Index>(s)) > 0.0) {
      result.members.push_back(pool[s]);
      kept.push_back(stacked.weights(static_cast<Index>(s)));
    }
  }
  result.weights = Eigen::Map<const Vector>(kept.data(), static_cast<Index>(kept.size()));
  result.mean_nll = -stacked.mean_log_score;
  return result;
}

/// The linear pool of the fitted members with `weights` under method "auto", whose report keeps
/// the members' warnings, each once, named by the candidates that gave it ("kcde, kcde:trend=gp:
/// input 'x3' …" where both warned alike), and n_train; the one model of a single member.
ConditionalModel pooled_model(std::vector<ConditionalModel> fitted, const Vector& weights,
                              const std::vector<std::string>& specs, Index n_train) {
  if (fitted.size() == 1) return std::move(fitted.front());
  std::vector<const ConditionalMixture*> mixtures;
  FitReport report;
  report.method = "auto";
  report.statistics["n_train"] = static_cast<double>(n_train);
  report.statistics["pool_members"] = static_cast<double>(fitted.size());
  // The pool has no hyper-parameter grid of its own: its members chose theirs.
  report.parameter_choice = "by each of the " + std::to_string(fitted.size()) +
                            " pool members (the pool's weights by stacking their held-out "
                            "densities: method_selection)";
  std::vector<std::pair<std::string, std::string>> warned;  // (warning, its candidates)
  for (std::size_t m = 0; m < fitted.size(); ++m) {
    mixtures.push_back(&fitted[m].mixture);
    for (const std::string& warning : fitted[m].report.warnings) {
      const auto same = std::find_if(warned.begin(), warned.end(),
                                     [&](const auto& given) { return given.first == warning; });
      if (same == warned.end()) {
        warned.emplace_back(warning, specs[m]);
      } else {
        same->second += ", " + specs[m];
      }
    }
  }
  for (const auto& [warning, candidates] : warned) {
    report.warnings.push_back(candidates + ": " + warning);
  }
  return ConditionalModel{pool_mixtures(mixtures, weights),
                          std::move(fitted.front().x_names),
                          std::move(fitted.front().y_names),
                          std::move(report),
                          {}};
}

/// A candidate's held-out log-densities, and its fit on every pair where scoring made one.
struct CandidateScores {
  HeldOutLogDensities held_out;
  std::optional<ConditionalModel> full_fit;
};

/// The position of every pair of `common` among `pairs` (both ascending global indices, `common` a
/// subset of `pairs`; empty `pairs`: every pair of this rank, the first of global index `first`).
std::vector<Index> positions_of(const std::vector<Index>& common, const std::vector<Index>& pairs,
                                Index first) {
  std::vector<Index> positions;
  if (pairs.empty()) {
    for (const Index pair : common) positions.push_back(pair - first);
    return positions;
  }
  for (const Index pair : common) {
    positions.push_back(
        static_cast<Index>(std::lower_bound(pairs.begin(), pairs.end(), pair) - pairs.begin()));
  }
  return positions;
}

ConditionalModel fit_auto(const MatrixView& x, const MatrixView& y, const AutoOptions& options,
                          const FitContext& context) {
  const auto started = Clock::now();
  // On several ranks each passes its own pairs (docs/distributed.md): the folds are rank 0's draw
  // for the global n, every candidate's fits are fits of every rank's pairs, each rank scores its
  // own held-out pairs, and the table and the stacking weights are sums over the ranks. Every
  // decision of the time budget is rank 0's clock, so that every rank takes it alike.
  const Communicator& communicator = context.communicator;
  const Index local_n = x.cols();
  auto_option_table().validate(options);
  // The candidates' folds index x and y alike: pairs of one length (a y shorter than x was read
  // past its end), none of them empty or non-finite.
  agree_on_errors(communicator, [&] {
    if (communicator.size() > 1 && context.weighted()) {
      throw InvalidArgument(
          "sample weights run on one process: auto's weighted scores are one process's");
    }
    require_training_shard(x, y, communicator);
  });
  require_equal_on_every_rank(communicator,
                              {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                              "the dimensions of x and y");
  const Index n = communicator.sum_counts(local_n);
  const Index first_row = communicator.sum_counts_below(local_n);
  const auto elapsed = [&](Clock::time_point since) {
    double seconds = seconds_since(since);
    communicator.broadcast(&seconds, 1, 0);
    return seconds;
  };
  // Every candidate standardises x and y and would fail on a constant column: refused here, the
  // column is named once rather than in every candidate's failure (and no pairs at all as the
  // data error it is, before the folds are compared with them).
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  Standardizer::fit(x, communicator, "x", x_names);
  Standardizer::fit(y, communicator, "y", y_names);
  require_pairs_for_folds(options, n);
  // A y of few integer levels, undeclared: by default a mass function over its levels, so no
  // candidate wins by spikes of a density on the levels (docs/methods/auto.md).
  AutoOptions chosen_options = options;
  std::string integer_note;
  if (y.rows() == 1 && options.integer_output == IntegerOutput::pmf &&
      !declares(options.discrete, x.rows()) && !declares(options.ordered, x.rows()) &&
      has_few_integer_levels(y.row(0).transpose(), communicator)) {
    chosen_options.ordered.push_back(x.rows());
    integer_note =
        "y takes few integer levels: modelled as an ordered discrete output, a "
        "probability mass function over its levels (integer_output = density for a "
        "density)";
  }
  std::vector<Candidate> candidates = parse_candidates(chosen_options);
  // The fold of each of this rank's pairs: rank 0 draws the folds of every pair.
  std::vector<std::int32_t> every_fold;
  if (communicator.rank() == 0) {
    for (const int fold : draw_folds(n, options.folds, options.seed).fold_of()) {
      every_fold.push_back(fold);
    }
  }
  const std::vector<std::int32_t> fold_of = communicator.scatter_from_root(every_fold, local_n);
  // This rank's pairs in fold k (`in_fold`) or outside it, ascending.
  const auto fold_rows = [&](int k, bool in_fold) {
    std::vector<Index> rows;
    for (Index i = 0; i < local_n; ++i) {
      if ((fold_of[static_cast<std::size_t>(i)] == k) == in_fold) rows.push_back(i);
    }
    return rows;
  };
  const Matrix no_inputs(x.rows(), 0);
  // The candidates' own stages are not shown: each candidate is a stage of the selection. With
  // sample weights, each fit weighs its training pairs and each held-out pair counts by its
  // weight. A fold's KCDE keeps each rank's pairs on their rank (its scores sum over the ranks,
  // log_pdf_of_ranks); the fits that become the model hold every pair.
  const Vector& weights = context.sample_weights;
  // The candidates' fits take the pairs as auto has them: fit_method grouped their identical
  // pairs before auto (docs/methods/duplicates.md), and a fit_auto called directly keeps them, as
  // every method's fit called directly does.
  FitContext grouped = context;
  grouped.merged_rows = std::max<Index>(context.merged_rows, 0);
  const auto quiet = [&](bool rows_stay_on_ranks) {
    FitContext part = grouped.reporting_to(silent_progress());
    part.rows_stay_on_ranks = rows_stay_on_ranks;
    return part;
  };
  // Merged duplicates (docs/methods/duplicates.md): where the weights are the copies of each pair
  // that fit_method merged, a candidate that takes no weights is fitted on every pair with its
  // copies, and the folds, drawn over the merged pairs, hold a pair out with all its copies.
  std::vector<bool> on_copies(candidates.size(), false);
  // Candidate c fitted on this rank's `rows` with `part`, whose weights become those rows' (or
  // none, each row repeated its count times, for a candidate fitted on copies).
  const auto fit_candidate = [&](std::size_t c, const std::vector<Index>& rows, FitContext part) {
    std::vector<Index> fitted;
    if (on_copies[c]) {
      for (const Index row : rows) {
        // The weights are relative to the largest: a row's copies are its weight in copies.
        const auto copies = std::lround(weights(row) / context.weight_of_a_copy);
        fitted.insert(fitted.end(), static_cast<std::size_t>(copies), row);
      }
      part.sample_weights = Vector();
    } else {
      fitted = rows;
      part.sample_weights = context.weighted() ? Vector(weights(rows)) : Vector();
    }
    return fit_method(*candidates[c].method, x(Eigen::all, fitted), y(Eigen::all, fitted),
                      no_inputs, candidates[c].values, part);
  };
  std::vector<Index> all_pairs(static_cast<std::size_t>(local_n));
  for (Index i = 0; i < local_n; ++i) all_pairs[static_cast<std::size_t>(i)] = i;
  const bool leave_one_out =
      options.validation == CandidateValidation::leave_one_out ||
      (options.validation == CandidateValidation::automatic && n > kLargestKFoldScoring);

  const bool discrete_output =
      declares(chosen_options.discrete, x.rows()) || declares(chosen_options.ordered, x.rows());
  // The recording step of every continuous output (0: none): no candidate may win by kernels
  // narrower than half of it, spikes on the recorded values (docs/methods/auto.md).
  std::vector<double> steps(static_cast<std::size_t>(y.rows()), 0.0);
  if (!discrete_output) {
    for (Index d = 0; d < y.rows(); ++d) {
      steps[static_cast<std::size_t>(d)] = recording_step(y.row(d).transpose(), communicator);
    }
  }
  std::string fitted_on_copies;  // the specs of the candidates scored on copies
  // The atom of y, decided once on every pair and given to every candidate that takes it (each
  // fold's fit then models the same one; docs/methods/auto.md, "Outputs with an atom").
  std::optional<double> atom;
  std::string atom_note;
  const bool one_continuous = y.rows() == 1 && !discrete_output;
  if (!one_continuous && options.atom != "auto" && options.atom != "none") {
    throw InvalidArgument("atom = " + options.atom + " needs one continuous output");
  }
  if (one_continuous && options.atom != "none") {
    AtomDecision decision;
    agree_on_errors(communicator, [&] {
      // Rows counted by their weights (merged identical rows too), over every rank.
      const Vector weights =
          context.weighted()
              ? Vector(gather_every_sample(context.sample_weights.transpose(), communicator).row(0))
              : Vector();
      decision = decide_output_atom(
          options.atom, gather_every_sample(y, communicator).row(0).transpose(), weights);
    });
    atom = decision.value;
    if (atom) {
      atom_note = "y has an atom (" + decision.description +
                  "): a point mass in the candidates that model it (kcde without a trend or "
                  "transform), the others not run (atom = none scores them all as densities)";
    }
  }
  for (Candidate& candidate : candidates) {
    if (typed_option(*candidate.method, "atom", OptionType::choice) != nullptr) {
      candidate.values["atom"] = atom ? exact_text(*atom) : std::string("none");
    }
  }
  MethodSelection selection;
  selection.folds = options.folds;
  selection.time_budget = options.time_budget;
  selection.validation = leave_one_out ? "loo" : "kfold";
  std::vector<std::optional<CandidateScores>> scores(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& candidate = candidates[c];
    // A stage per candidate, named: their fits differ too much in cost for one line's time left.
    const std::string stage = "candidate " + std::to_string(c + 1) + " of " +
                              std::to_string(candidates.size()) + " (" + candidate.spec + "): ";
    CandidateScore score;
    score.candidate = candidate.spec;
    const bool any_scored = std::any_of(scores.begin(), scores.end(),
                                        [](const auto& scored) { return scored.has_value(); });
    const auto candidate_started = Clock::now();
    const std::string unweighted = candidate.method->weights_refused
                                       ? candidate.method->weights_refused(candidate.values, false)
                                       : std::string();
    const bool takes_weights = candidate.method->sample_weights && unweighted.empty();
    on_copies[c] = context.weighted() && context.weight_of_a_copy > 0.0 && !takes_weights;
    if (context.weighted() && !on_copies[c] && !candidate.method->sample_weights) {
      score.status = "not run: it does not support sample weights";
    } else if (context.weighted() && !on_copies[c] && !unweighted.empty()) {
      score.status = "not run: " + unweighted;
    } else if (discrete_output &&
               typed_option(*candidate.method, "discrete", OptionType::columns) == nullptr) {
      score.status = "not run: it models densities, and a discrete y is scored by masses";
    } else if (discrete_output && sets_choice(candidate, "trend")) {
      score.status = "not run: a trend moves a continuous y, and this y is discrete";
    } else if (discrete_output && sets_choice(candidate, "y_transform")) {
      score.status = "not run: a transform maps a continuous y, and this y is discrete";
    } else if (y.rows() != 1 && sets_choice(candidate, "y_transform")) {
      score.status = "not run: a transform maps a one-dimensional y";
    } else if (atom && typed_option(*candidate.method, "atom", OptionType::choice) == nullptr) {
      score.status = "not run: it models densities, and y has an atom at " + exact_text(*atom) +
                     " scored by its probability";
    } else if (atom && (sets_choice(candidate, "trend") || sets_choice(candidate, "y_transform"))) {
      score.status = "not run: y has an atom at " + exact_text(*atom) +
                     ", and a trend or transform beside an atom is not built";

    } else if (const double spent = any_scored ? elapsed(started) : 0.0;
               any_scored && spent >= options.time_budget) {
      score.status = "not run: the candidates before it used up the time budget (" +
                     format_short(spent) + " s of " + format_short(options.time_budget) + " s)";
    } else {
      CandidateScores scored;
      try {
        // Leave-one-out: the fit on every pair first; its own leave-one-out terms are the
        // scores where its selection computes them (on every rank: each rank's own pairs'),
        // K-fold refits otherwise — and for a fit on copies, whose terms keep a pair's copies.
        if (leave_one_out && !on_copies[c]) {
          context.progress.begin(stage + "fit on every pair", 1);
          scored.full_fit = fit_candidate(c, all_pairs, quiet(false));
          double without_terms = scored.full_fit->report.held_out ? 0.0 : 1.0;
          communicator.allreduce_max(&without_terms, 1);
          if (auto spikes = narrower_than_recording(scored.full_fit->mixture, steps)) {
            score.status = std::move(*spikes);
          } else if (without_terms == 0.0) {
            scored.held_out = std::move(*scored.full_fit->report.held_out);
            scored.full_fit->report.held_out.reset();
            score.validation = "loo";
          }
          context.progress.advance();
          context.progress.end();
        }
        if (score.status.empty() && score.validation.empty()) {
          score.validation = "kfold";
          context.progress.begin(stage + "fold fits", options.folds);
          scored.held_out.log_densities.resize(local_n);
          // Where the first fold's searches ended: the later folds start there
          // (FitContext::warm_start; docs/methods/auto.md, "Cost"), but for a candidate fitted on
          // the copies of merged rows, where a search from scratch can end at a degenerate
          // optimum (the trend's noise → 0 at the repeated rows) that the folds must show as the
          // refit may reach it. The refit that becomes the model searches from scratch.
          std::map<std::string, Vector> first_fold_ends;
          for (int k = 0; k < options.folds; ++k) {
            const std::vector<Index> train = fold_rows(k, false);
            const std::vector<Index> test = fold_rows(k, true);
            FitContext fold_context = quiet(true);
            fold_context.held_out_scoring = true;
            if (k > 0 && !on_copies[c]) fold_context.warm_start = &first_fold_ends;
            ConditionalModel model = fit_candidate(c, train, fold_context);
            if (k == 0) first_fold_ends = std::move(model.report.search_ends);
            if (auto spikes = narrower_than_recording(model.mixture, steps)) {
              score.status = std::move(*spikes);
              break;
            }
            const Vector log_pdf =
                model.report.rows_of_this_rank
                    ? log_pdf_of_ranks(model.mixture, x(Eigen::all, test), y(Eigen::all, test),
                                       communicator)
                    : model.mixture.log_pdf(x(Eigen::all, test), y(Eigen::all, test));
            for (std::size_t j = 0; j < test.size(); ++j) {
              scored.held_out.log_densities(test[j]) = log_pdf(Index(j));
            }
            context.progress.advance();
            // One reading of each clock (rank 0's, broadcast) for the whole decision.
            const double so_far = elapsed(started);
            const double candidate_so_far = elapsed(candidate_started);
            const double projected = candidate_so_far * options.folds / (k + 1);
            if (any_scored && k + 1 < options.folds &&
                so_far + projected - candidate_so_far > options.time_budget) {
              score.status = "stopped after " + std::to_string(k + 1) + " of " +
                             std::to_string(options.folds) + " folds: all would take about " +
                             format_short(projected) + " s, beyond the time budget of " +
                             format_short(options.time_budget) + " s";
              break;
            }
          }
          context.progress.end();
        }
        if (score.status.empty()) score.status = "scored";
      } catch (const Error& error) {
        score.status = std::string("failed: ") + error.what();
      }
      double not_finite = score.scored() && !scored.held_out.log_densities.allFinite() ? 1.0 : 0.0;
      communicator.allreduce_max(&not_finite, 1);
      if (not_finite > 0.0) score.status = "failed: a held-out NLL is not finite";
      if (score.scored()) {
        if (on_copies[c]) {
          fitted_on_copies += (fitted_on_copies.empty() ? "" : ", ") + candidate.spec;
        }
        scores[c] = std::move(scored);
      } else {
        score.validation.clear();
      }
    }
    score.seconds = elapsed(candidate_started);
    selection.candidates.push_back(std::move(score));
  }
  std::vector<std::size_t> scored;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (scores[c]) scored.push_back(c);
  }
  if (scored.empty()) {
    std::string reasons;
    for (const CandidateScore& score : selection.candidates) {
      reasons += (reasons.empty() ? "" : "; ") + score.candidate + ": " + score.status;
    }
    throw DataError("no candidate could be scored (" + reasons + ")");
  }
  // The pairs every scored candidate has a held-out score of: all, or the subsample KCDE's
  // criterion holds out beyond its exact_limit (the same pairs for every KCDE candidate of one
  // seed). By global index; each rank takes its own.
  std::vector<Index> common(static_cast<std::size_t>(local_n));
  for (Index i = 0; i < local_n; ++i) common[static_cast<std::size_t>(i)] = first_row + i;
  for (const std::size_t c : scored) {
    const std::vector<Index>& pairs = scores[c]->held_out.pairs;
    if (pairs.empty() && scores[c]->held_out.log_densities.size() == local_n) continue;
    std::vector<Index> kept;
    std::set_intersection(common.begin(), common.end(), pairs.begin(), pairs.end(),
                          std::back_inserter(kept));
    common = std::move(kept);
  }
  const Index scored_pairs = communicator.sum_counts(static_cast<Index>(common.size()));
  if (scored_pairs == 0) {
    throw DataError(
        "the candidates' leave-one-out scores share no pair (their held-out subsamples differ): "
        "use validation = kfold");
  }
  const Vector common_weights = context.weighted() ? Vector(weights(common)) : Vector();
  std::vector<Vector> pair_nll(candidates.size());
  for (const std::size_t c : scored) {
    const HeldOutLogDensities& held_out = scores[c]->held_out;
    const std::vector<Index> positions = positions_of(common, held_out.pairs, first_row);
    pair_nll[c] = -held_out.log_densities(positions);
    CandidateScore& score = selection.candidates[c];
    std::tie(score.mean_nll, score.standard_error) =
        mean_and_standard_error(pair_nll[c], common_weights, communicator);
    if (selection.chosen < 0 ||
        score.mean_nll < selection.candidates[std::size_t(selection.chosen)].mean_nll) {
      selection.chosen = static_cast<Index>(c);
    }
  }
  selection.scored_pairs = scored_pairs;
  // Stacking: the weights of the pool's best held-out log score over the scored candidates.
  // Members of their own standardisations are pooled as they are (pooled_gate.hpp), except for
  // an output with an atom or discrete levels: there a member that standardises otherwise than
  // the one of the largest weight leaves the candidates the weights are chosen from, with a
  // warning, and the weights are chosen again.
  std::vector<std::string> notes;
  std::vector<std::size_t> pool =
      options.combine == CandidateCombination::selection
          ? std::vector<std::size_t>{static_cast<std::size_t>(selection.chosen)}  // smallest NLL
          : distinct_candidates(scored, pair_nll, candidates, communicator, notes);
  std::map<std::size_t, ConditionalModel> refitted;
  Stack stack;
  for (;;) {
    stack = pool.size() > 1 ? stack_candidates(pool, pair_nll, common_weights, communicator)
                            : Stack{pool, Vector::Ones(1), NAN};
    Index largest = 0;
    stack.weights.maxCoeff(&largest);
    const std::size_t top = stack.members[static_cast<std::size_t>(largest)];
    for (const std::size_t c : stack.members) {
      if (refitted.count(c) != 0) continue;
      if (scores[c]->full_fit) {
        refitted.emplace(c, std::move(*scores[c]->full_fit));
        scores[c]->full_fit.reset();
      } else {
        // The refit's own stages, named as its candidate.
        PrefixedProgress refitting(context.progress,
                                   "refit of " + candidates[c].spec + " on every pair: ");
        FitContext refit = grouped.reporting_to(refitting);
        refit.rows_stay_on_ranks = false;
        refitted.emplace(c, fit_candidate(c, all_pairs, refit));
      }
    }
    std::vector<std::size_t> apart;
    for (const std::size_t c : stack.members) {
      if (!can_pool(refitted.at(c).mixture, refitted.at(top).mixture)) apart.push_back(c);
    }
    if (apart.empty()) {
      selection.chosen = static_cast<Index>(top);
      break;
    }
    for (const std::size_t c : apart) {
      notes.push_back("stacking: " + candidates[c].spec + " standardises x or y otherwise than " +
                      candidates[top].spec + ", and an output with " +
                      (refitted.at(top).mixture.atom() ? "an atom" : "discrete levels") +
                      " is pooled on one standardisation only, so the pool is formed without it");
      pool.erase(std::find(pool.begin(), pool.end(), c));
    }
  }
  if (stack.members.size() > 1) selection.pooled_mean_nll = stack.mean_nll;
  std::vector<ConditionalModel> members;
  std::vector<std::string> specs;
  for (std::size_t m = 0; m < stack.members.size(); ++m) {
    selection.candidates[stack.members[m]].weight = stack.weights(static_cast<Index>(m));
    members.push_back(std::move(refitted.at(stack.members[m])));
    specs.push_back(candidates[stack.members[m]].spec);
  }
  const auto chosen = static_cast<std::size_t>(selection.chosen);
  for (const std::size_t c : scored) {
    selection.candidates[c].difference_standard_error =
        mean_and_standard_error(pair_nll[c] - pair_nll[chosen], common_weights, communicator)
            .second;
  }
  if (!fitted_on_copies.empty()) {
    notes.insert(notes.begin(),
                 "candidates that take no sample weights (" + fitted_on_copies +
                     ") were fitted on the merged duplicate rows with their copies, each held "
                     "out with its copies by the folds (docs/methods/duplicates.md)");
  }
  ConditionalModel model = pooled_model(std::move(members), stack.weights, specs, n);
  model.report.held_out.reset();  // a member's own, not the pool's
  model.report.warnings.insert(model.report.warnings.begin(), notes.begin(), notes.end());
  model.report.method_selection = std::move(selection);
  if (!atom_note.empty()) model.report.warnings.insert(model.report.warnings.begin(), atom_note);
  if (!integer_note.empty())
    model.report.warnings.insert(model.report.warnings.begin(), integer_note);
  model.report.fit_seconds = seconds_since(started);
  return model;
}

namespace registry_internal {

MethodEntry auto_method() {
  MethodEntry entry;
  entry.name = "auto";
  entry.summary = "the candidate method with the smallest cross-validated NLL within a time budget";
  entry.python_class = "AutoCDE";
  entry.options = auto_option_table().describe();
  entry.sample_weights = true;
  // Its folds' fits are fits of every rank's pairs, its scores and stacking sums over the ranks.
  entry.distributed = true;
  entry.fit_conditional = [](const MatrixView& x, const MatrixView& y, const MatrixView&,
                             const OptionValues& values, const FitContext& context) {
    return MethodFit<ConditionalModel>{fit_auto(x, y, auto_option_table().build(values), context),
                                       {}};
  };
  entry.gates = {wrapping_gate_kind<PooledGate>("pooled")};
  entry.test_options = {{"candidates", std::string("linear,kcde:n_restarts=0:max_iter=50")},
                        {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens
