#pragma once
// What a fit tells besides the model: chosen hyper-parameters, the CV table, timings, warnings.

#include <cmath>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// ‖α_d‖₂ of every input feature d along a regularisation path (SA-CDE paper, Figure 4).
struct RegularizationPath {
  Vector lambdas;              ///< the path's λ, decreasing
  Matrix group_norms;          ///< d_x × |lambdas|: ‖α_d‖₂ at each λ
  double chosen_lambda = 0.0;  ///< the λ of the fitted model (the CV choice)
};

/// Which input features a fit kept (SA-CDE, SA-LSCDE, forward selection).
struct FeatureSelection {
  std::vector<Index> selected;  ///< 0-based input dimensions, increasing
  /// One value per input dimension, zero for a dropped feature: ‖α_d‖₂ for SA-CDE, the decrease
  /// of the cross-validated NLL when the feature was added for forward selection.
  Vector importances;
  std::optional<RegularizationPath> path;  ///< SA-CDE and SA-LSCDE only

  nlohmann::json to_json() const;
  static FeatureSelection from_json(const nlohmann::json& document);
};

/// One candidate of a choice among methods (`--method auto`), scored by its held-out NLL of y
/// given x (leave-one-out or K-fold on folds shared by every candidate) on the same pairs.
struct CandidateScore {
  std::string candidate;  ///< a method, with option settings: "kcde:trend=linear"
  /// Mean held-out NLL over the scored pairs (MethodSelection::scored_pairs), in the user's units.
  double mean_nll = NAN;
  double standard_error = NAN;  ///< standard deviation of the pairs' NLLs / √n
  /// Paired standard error of its mean NLL minus the chosen candidate's (0 for that one).
  double difference_standard_error = NAN;
  double seconds = 0.0;  ///< wall time of its fits (about 0 for one not run)
  /// "scored", or why it was not: "not run: …" (the time budget was used up before it, or it
  /// does not apply), "stopped …" (the budget ran out during its folds), "failed: …" (the error
  /// its fit raised).
  std::string status;
  /// Its weight in the fitted model, the linear pool of the candidates (stacking): 0 for one
  /// not in the pool, 1 for the only one.
  double weight = 0.0;
  /// How its held-out scores were obtained: "loo" (its fit's own leave-one-out terms) or
  /// "kfold" (refits on K − 1 folds); empty where it was not scored.
  std::string validation;

  bool scored() const { return status == "scored"; }
  /// Whether its fits ran at all, so that `seconds` means something.
  bool ran() const { return status.rfind("not run", 0) != 0; }
};

/// The table of a choice among methods: every candidate, the chosen one (smallest mean NLL).
struct MethodSelection {
  std::vector<CandidateScore> candidates;
  /// The candidate of the largest weight (of the smallest mean NLL where stacking is off).
  Index chosen = -1;
  /// The mean held-out NLL of the pool with its weights, which were chosen on the same folds
  /// (so slightly optimistic); NaN where the model is one candidate.
  double pooled_mean_nll = NAN;
  int folds = 0;
  double time_budget = 0.0;  ///< seconds
  /// auto's validation option: "loo" or "kfold" (files written before it: "kfold").
  std::string validation = "kfold";
  /// The pairs the scores are averaged over: those every scored candidate has a held-out score
  /// of (all n, or the subsample KCDE's criterion holds out at large n); 0 in older files.
  Index scored_pairs = 0;

  nlohmann::json to_json() const;
  static MethodSelection from_json(const nlohmann::json& document);
};

/// A fit's own held-out log-densities of its training pairs, where its selection computes them
/// (KCDE's leave-one-out terms at the chosen bandwidths, the linear model's leave-one-out
/// likelihood): log p̂_{−i}(y_i | x_i) in the units of y (a log mass for a discrete y).
/// On several ranks each rank's report holds its own held-out pairs, by their global indices
/// (empty, with one log-density per row of the rank: every one of them).
struct HeldOutLogDensities {
  /// The held-out pairs' indices, ascending; empty: every pair, in order.
  std::vector<Index> pairs;
  Vector log_densities;  ///< one per held-out pair
};

struct FitReport {
  std::string method;                             ///< "lscde", …
  std::map<std::string, double> hyperparameters;  ///< the chosen values, e.g. sigma, lambda
  std::map<std::string, double> statistics;       ///< sizes and counts, e.g. n_train, n_basis
  std::optional<CvTable> cross_validation;        ///< absent when nothing was selected by CV
  /// How a fit without a cross-validation table chose its hyper-parameters, in words: a search
  /// that leaves no grid (KCDE's leave-one-out likelihood), or nothing chosen (GMM's given
  /// n_components). Empty: a grid method given a single candidate.
  std::string parameter_choice;
  /// Further tables of a fit that selects several things by separate cross-validations, by name
  /// (RKDE: "marginal_kde"); `cross_validation` holds the one that selects the model's widths.
  std::map<std::string, CvTable> auxiliary_cross_validation;
  /// The features a feature-selecting fit kept; absent for the other estimators.
  std::optional<FeatureSelection> feature_selection;
  /// The table of `--method auto`, whose choice the model is; absent for a method's own fit.
  std::optional<MethodSelection> method_selection;
  double fit_seconds = 0.0;  ///< wall time of the whole fit
  std::vector<std::string> warnings;
  /// The fit's held-out log-densities (auto stacks its candidates on them); kept in memory
  /// only, not written to model files.
  std::optional<HeldOutLogDensities> held_out;
  /// Whether the model holds this rank's training pairs only, each other rank its own (a fit on
  /// several ranks with FitContext::rows_stay_on_ranks): such a model is written by every rank
  /// together (save_conditional_model_of_ranks), not used alone. Kept in memory only.
  bool rows_of_this_rank = false;
  /// Where the fit's hyper-parameter searches ended, by search (KCDE: "bandwidths", the
  /// parameters θ of its bandwidth search; "trend_y0", … the Gaussian-process trend's θ of each
  /// output), for a later fit of the same method and options on overlapping rows to start from
  /// (FitContext::warm_start). Kept in memory only.
  std::map<std::string, Vector> search_ends;

  nlohmann::json to_json() const;
  static FitReport from_json(const nlohmann::json& document);
};

class ConditionalMixture;
class GaussianMixture;

/// What every fit returns: the fitted model and what the fit found out.
template <class Model>
struct Fit {
  Model model;
  FitReport report;
};

/// A fitted conditional density p(y|x).
using ConditionalFit = Fit<ConditionalMixture>;
/// A fitted density p(x).
using DensityFit = Fit<GaussianMixture>;

}  // namespace cdens
