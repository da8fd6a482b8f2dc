// `--method auto`: the table's cross-validated NLLs against K-fold refits written out, the
// leave-one-out scores against the fits' own terms and fold refits for a candidate without them,
// the choice and the refit, the paired standard errors, the time budget, candidates that fail,
// malformed candidate lists, and the table's model-file round trip.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "cdens/cdens.hpp"
#include "methods/stacking_weights.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// y = sin(2 x_0) + (0.1 + 0.3 |x_0|) ε with an irrelevant x_1: a kernel estimate beats a line.
test::PairSample curved_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(2, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    const double x = sample.x(0, i);
    sample.y(0, i) = std::sin(2.0 * x) + (0.1 + 0.3 * std::abs(x)) * rng.normal();
  }
  return sample;
}

/// Every pair's held-out NLL under the candidate `method` with `values`, fitted on the other
/// folds of KFold(n, folds, Rng(seed)) with their sample `weights` (empty: none), each fold after
/// the first started where the first fold's searches ended: the table's definition written out.
Vector explicit_fold_nll(const test::PairSample& sample, const std::string& method,
                         const OptionValues& values, int folds, std::uint64_t seed,
                         const Vector& weights = Vector()) {
  Rng rng(seed);
  const KFold split(sample.x.cols(), folds, rng);
  const MethodEntry& entry = find_method(method, MethodFamily::conditional);
  Vector nll(sample.x.cols());
  std::map<std::string, Vector> first_fold_ends;
  for (int k = 0; k < folds; ++k) {
    const std::vector<Index> train = split.train(k);
    const std::vector<Index>& test = split.test(k);
    const Matrix train_x = sample.x(Eigen::all, train), train_y = sample.y(Eigen::all, train);
    const Matrix test_x = sample.x(Eigen::all, test), test_y = sample.y(Eigen::all, test);
    FitContext context =
        test::weighted_context(weights.size() > 0 ? Vector(weights(train)) : Vector());
    if (k > 0) context.warm_start = &first_fold_ends;
    const ConditionalModel model =
        fit_method(entry, train_x, train_y, Matrix(2, 0), values, context);
    if (k == 0) first_fold_ends = model.report.search_ends;
    const Vector log_pdf = model.mixture.log_pdf(test_x, test_y);
    for (std::size_t j = 0; j < test.size(); ++j) nll(test[j]) = -log_pdf(Index(j));
  }
  return nll;
}

/// auto's options for `candidates` scored by 4-fold refits drawn with `seed`, on one thread.
AutoOptions four_fold_options(const std::string& candidates, std::uint64_t seed) {
  AutoOptions options;
  options.candidates = candidates;
  options.validation = CandidateValidation::kfold;
  options.folds = 4;
  options.seed = seed;
  return options;
}

/// `values` with auto's seed, as auto passes them to its candidates.
OptionValues with_seed(OptionValues values, std::uint64_t seed) {
  values["seed"] = seed;
  return values;
}

/// log Σ_c w_c p̂_c(y_i | x_i) at every pair of `sample`: the log-density a pool of `fits` with
/// `weights` must have.
Vector pooled_log_density(const std::vector<ConditionalModel>& fits, const Vector& weights,
                          const test::PairSample& sample) {
  Vector density = Vector::Zero(sample.x.cols());
  for (std::size_t c = 0; c < fits.size(); ++c) {
    density += weights(static_cast<Index>(c)) *
               fits[c].mixture.log_pdf(sample.x, sample.y).array().exp().matrix();
  }
  return density.array().log().matrix();
}

TEST(MethodSelection, TableIsTheKFoldNllOfEachCandidateAndTheBestIsRefitted) {
  const test::PairSample sample = curved_sample(240, 3);
  AutoOptions options;
  options.candidates = "linear, kcde:trend=linear:n_restarts=0";
  options.combine = CandidateCombination::selection;
  options.validation = CandidateValidation::kfold;
  options.folds = 4;
  options.seed = 9;
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  ASSERT_TRUE(model.report.method_selection);
  const MethodSelection& table = *model.report.method_selection;
  ASSERT_EQ(table.candidates.size(), 2u);
  EXPECT_EQ(table.candidates[0].candidate, "linear");
  EXPECT_EQ(table.candidates[1].candidate, "kcde:trend=linear:n_restarts=0");

  const Vector linear = explicit_fold_nll(sample, "linear", {}, 4, 9);
  const OptionValues kcde_values = {{"trend", std::string("linear")},
                                    {"n_restarts", std::int64_t{0}},
                                    {"seed", std::uint64_t{9}}};
  const Vector kcde = explicit_fold_nll(sample, "kcde", kcde_values, 4, 9);
  EXPECT_NEAR(table.candidates[0].mean_nll, linear.mean(), 1e-12);
  EXPECT_NEAR(table.candidates[1].mean_nll, kcde.mean(), 1e-12);
  const Vector difference = linear - kcde;
  const double paired =
      std::sqrt((difference.array() - difference.mean()).square().sum() / (240.0 - 1.0) / 240.0);
  // The curve is far from a line: the kernel estimate wins by many paired standard errors.
  ASSERT_LT(kcde.mean(), linear.mean() - 5.0 * paired);
  EXPECT_EQ(table.chosen, 1);
  EXPECT_NEAR(table.candidates[0].difference_standard_error, paired, 1e-12);
  EXPECT_EQ(table.candidates[1].difference_standard_error, 0.0);
  EXPECT_EQ(table.candidates[0].weight, 0.0);
  EXPECT_EQ(table.candidates[1].weight, 1.0);
  EXPECT_TRUE(std::isnan(table.pooled_mean_nll));

  // The model is the chosen candidate refitted on every pair.
  EXPECT_EQ(model.report.method, "kcde");
  const ConditionalModel direct = fit_method(find_method("kcde", MethodFamily::conditional),
                                             sample.x, sample.y, Matrix(2, 0), kcde_values);
  EXPECT_TRUE(model.mixture.log_pdf(sample.x, sample.y)
                  .isApprox(direct.mixture.log_pdf(sample.x, sample.y), 1e-12));
}

TEST(MethodSelection, StackingPoolsTheCandidatesWithTheWeightsOfTheBestHeldOutLogScore) {
  // Kernels around a Gaussian-process trend, kernels on y and LSCDE: each is the better one on
  // some pairs, so the best pool mixes them.
  const test::PairSample sample = curved_sample(200, 12);
  AutoOptions options =
      four_fold_options("kcde:trend=gp:n_restarts=0, kcde:n_restarts=0, lscde", 3);
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  const MethodSelection& table = *model.report.method_selection;
  const std::vector<std::pair<std::string, OptionValues>> candidates = {
      {"kcde", {{"trend", std::string("gp")}, {"n_restarts", std::int64_t{0}}}},
      {"kcde", {{"n_restarts", std::int64_t{0}}}},
      {"lscde", {}}};
  Matrix log_densities(200, 3);
  for (std::size_t c = 0; c < 3; ++c) {
    log_densities.col(static_cast<Index>(c)) =
        -explicit_fold_nll(sample, candidates[c].first, with_seed(candidates[c].second, 3), 4, 3);
  }
  const StackingWeights expected = stacking_weights(log_densities);
  Index members = 0;
  for (Index c = 0; c < 3; ++c) {
    EXPECT_NEAR(table.candidates[static_cast<std::size_t>(c)].weight, expected.weights(c), 1e-12);
    members += expected.weights(c) > 0.0;
  }
  ASSERT_GE(members, 2) << "the sample should make a pool";
  EXPECT_NEAR(table.pooled_mean_nll, -expected.mean_log_score, 1e-12);
  EXPECT_LE(table.pooled_mean_nll,
            table.candidates[static_cast<std::size_t>(table.chosen)].mean_nll);
  // The model is the weighted sum of the candidates refitted on every pair.
  EXPECT_EQ(model.report.method, "auto");
  std::vector<ConditionalModel> refits;
  for (const auto& [method, values] : candidates) {
    refits.push_back(
        fit_method(find_method(method), sample.x, sample.y, Matrix(2, 0), with_seed(values, 3)));
  }
  EXPECT_TRUE(model.mixture.log_pdf(sample.x, sample.y)
                  .isApprox(pooled_log_density(refits, expected.weights, sample), 1e-10));
  const FitReport read = FitReport::from_json(model.report.to_json());
  EXPECT_EQ(read.method_selection->candidates[1].weight, table.candidates[1].weight);
  EXPECT_EQ(read.method_selection->pooled_mean_nll, table.pooled_mean_nll);
}

TEST(MethodSelection, SampleWeightsWeighTheFitsTheScoresAndTheStack) {
  const test::PairSample sample = curved_sample(160, 21);
  const Vector weights = test::integer_weights(160) + Vector::LinSpaced(160, 0.0, 0.5);
  AutoOptions options = four_fold_options("linear, lscde, nwcde", 7);
  const ConditionalModel model =
      fit_auto(sample.x, sample.y, options, test::weighted_context(weights));
  const MethodSelection& table = *model.report.method_selection;
  EXPECT_EQ(table.candidates[2].status, "not run: it does not support sample weights");
  Matrix log_densities(160, 2);
  log_densities.col(0) = -explicit_fold_nll(sample, "linear", {}, 4, 7, weights);
  log_densities.col(1) = -explicit_fold_nll(sample, "lscde", with_seed({}, 7), 4, 7, weights);
  const StackingWeights expected = stacking_weights(log_densities, weights);
  for (Index c = 0; c < 2; ++c) {
    const CandidateScore& score = table.candidates[static_cast<std::size_t>(c)];
    EXPECT_NEAR(score.mean_nll, -weights.dot(log_densities.col(c)) / weights.sum(), 1e-12)
        << score.candidate;
    EXPECT_NEAR(score.weight, expected.weights(c), 1e-10) << score.candidate;
  }
  // The paired standard error: the weighted spread of the differences over Kish's n_e.
  const Vector difference = log_densities.col(1) - log_densities.col(0);
  const Index other = table.chosen == 0 ? 1 : 0;
  const Vector signed_difference = table.chosen == 0 ? Vector(-difference) : difference;
  const double mean = weights.dot(signed_difference) / weights.sum();
  const double effective = weights.sum() * weights.sum() / weights.squaredNorm();
  const double spread = weights.dot((signed_difference.array() - mean).square().matrix()) /
                        weights.sum() * effective / (effective - 1.0);
  EXPECT_NEAR(table.candidates[static_cast<std::size_t>(other)].difference_standard_error,
              std::sqrt(spread / effective), 1e-12);
}

TEST(MethodSelection, LeaveOneOutStacksTheFitsOwnTermsAndScoresTheOthersByFolds) {
  // KCDE and the line come with their fits' leave-one-out log-densities; LSCDE has none and is
  // scored by 4-fold refits. KCDE's criterion holds out 60 of the 150 pairs (exact_limit), so
  // the scores are compared on those 60.
  const test::PairSample sample = curved_sample(150, 8);
  AutoOptions options;
  options.candidates = "kcde:n_restarts=0:exact_limit=100:subsample_held_out=60, linear, lscde";
  options.validation = CandidateValidation::leave_one_out;
  options.folds = 4;
  options.seed = 5;
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  const MethodSelection& table = *model.report.method_selection;
  EXPECT_EQ(table.validation, "loo");
  EXPECT_EQ(table.scored_pairs, 60);
  const OptionValues kcde_values = with_seed({{"n_restarts", std::int64_t{0}},
                                              {"exact_limit", std::int64_t{100}},
                                              {"subsample_held_out", std::int64_t{60}}},
                                             5);
  const ConditionalModel kcde =
      fit_method(find_method("kcde"), sample.x, sample.y, Matrix(2, 0), kcde_values);
  const ConditionalModel linear =
      fit_method(find_method("linear"), sample.x, sample.y, Matrix(2, 0), {});
  const std::vector<Index>& pairs = kcde.report.held_out->pairs;
  ASSERT_EQ(pairs.size(), 60u);
  Matrix log_densities(60, 3);
  log_densities.col(0) = kcde.report.held_out->log_densities;
  log_densities.col(1) = linear.report.held_out->log_densities(pairs);
  log_densities.col(2) = -explicit_fold_nll(sample, "lscde", with_seed({}, 5), 4, 5)(pairs);
  EXPECT_EQ(table.candidates[0].validation, "loo");
  EXPECT_EQ(table.candidates[1].validation, "loo");
  EXPECT_EQ(table.candidates[2].validation, "kfold");
  const StackingWeights expected = stacking_weights(log_densities);
  for (Index c = 0; c < 3; ++c) {
    const CandidateScore& score = table.candidates[static_cast<std::size_t>(c)];
    EXPECT_NEAR(score.mean_nll, -log_densities.col(c).mean(), 1e-12) << score.candidate;
    EXPECT_NEAR(score.weight, expected.weights(c), 1e-12) << score.candidate;
  }
  // The model is the weighted sum of the fits on every pair: the same fits, not refitted.
  const std::vector<ConditionalModel> fits = {
      kcde, linear,
      fit_method(find_method("lscde"), sample.x, sample.y, Matrix(2, 0), with_seed({}, 5))};
  EXPECT_TRUE(model.mixture.log_pdf(sample.x, sample.y)
                  .isApprox(pooled_log_density(fits, expected.weights, sample), 1e-10));
  EXPECT_FALSE(model.report.held_out);
  const FitReport read = FitReport::from_json(model.report.to_json());
  EXPECT_EQ(read.method_selection->validation, "loo");
  EXPECT_EQ(read.method_selection->scored_pairs, 60);
  EXPECT_EQ(read.method_selection->candidates[2].validation, "kfold");
}

TEST(MethodSelection, TheDefaultScoresByFoldsUpToAThousandPairsAndByLeaveOneOutBeyond) {
  AutoOptions options;
  options.candidates = "linear";
  const test::PairSample small = curved_sample(1000, 9);
  EXPECT_EQ(fit_auto(small.x, small.y, options).report.method_selection->validation, "kfold");
  const test::PairSample large = curved_sample(1001, 9);
  const MethodSelection table = *fit_auto(large.x, large.y, options).report.method_selection;
  EXPECT_EQ(table.validation, "loo");
  EXPECT_EQ(table.candidates[0].validation, "loo");
}

TEST(MethodSelection, TheFirstCandidateAlwaysRunsAndTheBudgetSkipsTheRest) {
  const test::PairSample sample = curved_sample(120, 4);
  AutoOptions options;
  options.candidates = "linear,kcde";
  options.time_budget = 1e-9;
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  const MethodSelection& table = *model.report.method_selection;
  EXPECT_TRUE(table.candidates[0].scored());
  EXPECT_FALSE(table.candidates[1].scored());
  // The status names the budget and the time the candidates before it took, which ran.
  const std::string& status = table.candidates[1].status;
  const std::string expected = "not run: the candidates before it used up the time budget (";
  EXPECT_EQ(status.substr(0, expected.size()), expected) << status;
  const std::string end = " s of 1e-09 s)";
  EXPECT_EQ(status.substr(status.size() - end.size()), end) << status;
  const double used = std::stod(status.substr(expected.size()));
  EXPECT_GE(used, table.candidates[0].seconds);
  EXPECT_LE(used, model.report.fit_seconds);
  EXPECT_FALSE(table.candidates[1].ran());
  EXPECT_TRUE(table.candidates[0].ran());
  EXPECT_TRUE(std::isnan(table.candidates[1].mean_nll));
  EXPECT_EQ(model.report.method, "linear");
}

TEST(MethodSelection, ACandidateThatFailsIsReportedAndTheOthersStillCompete) {
  const test::PairSample sample = curved_sample(100, 5);
  AutoOptions options;
  // One bandwidth for data of three dimensions: an error of the fit, not of the list.
  options.candidates = "kcde:bandwidth=0.5";
  EXPECT_THROW(fit_auto(sample.x, sample.y, options), DataError);
  options.candidates = "linear, kcde:bandwidth=0.5";
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  const MethodSelection& table = *model.report.method_selection;
  EXPECT_EQ(table.chosen, 0);
  EXPECT_EQ(table.candidates[1].status.rfind("failed: bandwidths", 0), 0u)
      << table.candidates[1].status;
}

TEST(MethodSelection, MalformedCandidatesAreRefusedNamingThem) {
  const test::PairSample sample = curved_sample(50, 6);
  const auto message = [&](const std::string& candidates) {
    AutoOptions options;
    options.candidates = candidates;
    try {
      fit_auto(sample.x, sample.y, options);
    } catch (const InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("linear,nonesuch").find("nonesuch"), std::string::npos);
  EXPECT_NE(message("kcde:colour=red").find("has no option 'colour'"), std::string::npos);
  EXPECT_NE(message("kcde:trend").find("not an option setting"), std::string::npos);
  EXPECT_NE(message("kcde:trend=sideways").find("sideways"), std::string::npos);
  EXPECT_NE(message("auto").find("cannot choose itself"), std::string::npos);
  EXPECT_NE(message("linear,,kcde").find("empty item"), std::string::npos);
  EXPECT_NE(message("parzen").find("parzen"), std::string::npos);  // a density method
  EXPECT_NE(message("kcde:trend=linear:trend=none").find("option 'trend' is set twice"),
            std::string::npos);
  EXPECT_NE(message("kcde,linear,kcde").find("'kcde' is the same as 'kcde'"), std::string::npos);
  // The same settings spelled otherwise: the default written out, the Python name.
  EXPECT_NE(message("kcde,kcde:trend=none").find("is the same as 'kcde'"), std::string::npos);
  EXPECT_NE(message("lscde:folds=3,lscde:cv=3").find("is the same as"), std::string::npos);
  EXPECT_EQ(message("kcde,kcde:trend=linear"), "no error");
  AutoOptions options;
  options.folds = 51;
  EXPECT_THROW(fit_auto(sample.x, sample.y, options), InvalidArgument);
  options.folds = 5;
  options.time_budget = 0.0;
  EXPECT_THROW(fit_auto(sample.x, sample.y, options), InvalidArgument);
}

TEST(MethodSelection, TheTableSurvivesTheModelFile) {
  const test::PairSample sample = curved_sample(80, 7);
  AutoOptions options;
  options.candidates = "linear,kcde:n_restarts=0";
  options.time_budget = 1e-9;  // the second is not run: a row of NaNs must survive too
  const ConditionalModel model = fit_auto(sample.x, sample.y, options);
  const FitReport read = FitReport::from_json(model.report.to_json());
  ASSERT_TRUE(read.method_selection);
  const MethodSelection& table = *read.method_selection;
  EXPECT_EQ(table.chosen, 0);
  EXPECT_EQ(table.folds, 5);
  EXPECT_EQ(table.candidates[0].mean_nll, model.report.method_selection->candidates[0].mean_nll);
  EXPECT_TRUE(std::isnan(table.candidates[1].mean_nll));
  EXPECT_EQ(table.candidates[1].status, model.report.method_selection->candidates[1].status);
}

TEST(MethodSelection, AnIntegerOutputOfFewLevelsGetsAMassFunctionByDefault) {
  // y = ⌊1.5 x_0 + 3.5⌋ clipped to 1 … 6 with x ~ N(0, I₂): six integer levels, undeclared,
  // the rarest (6) on about 5 % of the 200 pairs, so every training fold holds every level.
  Rng rng(21);
  const test::PairSample data{test::normal_matrix(2, 200, rng), Matrix(1, 200)};
  Matrix levels(1, 200);
  for (Index i = 0; i < 200; ++i) {
    levels(0, i) = std::clamp(std::floor(1.5 * data.x(0, i) + 3.5), 1.0, 6.0);
  }
  const MethodEntry& automatic = find_method("auto", MethodFamily::conditional);
  const OptionValues candidates = {{"candidates", std::string("linear,kcde,kcde:trend=gp")}};
  const ConditionalModel pmf = fit_method(automatic, data.x, levels, Matrix(2, 0), candidates);
  EXPECT_TRUE(pmf.mixture.output_kernels()[0].is_discrete());
  EXPECT_EQ(pmf.report.warnings.front().rfind("y takes few integer levels", 0), 0u);
  const auto& rows = pmf.report.method_selection->candidates;
  EXPECT_EQ(rows[0].status.rfind("not run", 0), 0u);  // the line models a density
  EXPECT_EQ(rows[1].status, "scored");
  EXPECT_EQ(rows[2].status.rfind("not run: a trend", 0), 0u);
  // A mass: the probabilities of the six levels at any x sum to 1.
  Matrix grid(1, 6);
  grid << 1, 2, 3, 4, 5, 6;
  EXPECT_NEAR(pmf.mixture.pdf_grid(data.x.leftCols(1), grid).sum(), 1.0, 1e-12);
  OptionValues density = candidates;
  density["integer_output"] = std::string("density");
  const ConditionalModel continuous = fit_method(automatic, data.x, levels, Matrix(2, 0), density);
  EXPECT_FALSE(continuous.mixture.output_kernels()[0].is_discrete());
}

TEST(MethodSelection, ACandidateOfKernelsNarrowerThanHalfTheRecordingStepIsExcluded) {
  // y rounded to integers, six levels, modelled as a density: LSCDE's cross-validation picks
  // spikes on the levels (σ = 0.01 of y's spread), which no candidate may win with; the line and
  // KCDE (which keeps its own kernels half a step wide) compete.
  Rng rng(23);
  const test::PairSample data{test::normal_matrix(1, 200, rng), Matrix(1, 200)};
  Matrix levels(1, 200);
  for (Index i = 0; i < 200; ++i) {
    levels(0, i) = std::clamp(std::round(1.2 * data.x(0, i) + 3.5 + 0.5 * rng.normal()), 1.0, 6.0);
  }
  const MethodEntry& automatic = find_method("auto", MethodFamily::conditional);
  const OptionValues values = {{"candidates", std::string("lscde,linear,kcde:n_restarts=0")},
                               {"integer_output", std::string("density")}};
  const ConditionalModel model = fit_method(automatic, data.x, levels, Matrix(1, 0), values);
  const auto& rows = model.report.method_selection->candidates;
  EXPECT_EQ(rows[0].status.rfind("excluded: its kernels", 0), 0u) << rows[0].status;
  EXPECT_EQ(rows[0].weight, 0.0);
  EXPECT_TRUE(rows[1].scored());
  EXPECT_TRUE(rows[2].scored());
  // LSCDE alone on the same pairs does pick the spikes the rule keeps out.
  const ConditionalModel lscde =
      fit_method(find_method("lscde", MethodFamily::conditional), data.x, levels, Matrix(1, 0), {});
  EXPECT_LT(lscde.report.hyperparameters.at("sigma") * lscde.mixture.y_scaling().scale()(0), 0.5);
}

TEST(MethodSelection, AMemberThatStandardisesOtherwiseJoinsThePoolWithItsOwn) {
  // A declared discrete input stays raw in KCDE and is standardised by LSCDE and the linear
  // model: the pool keeps each member's standardisation (pooled_gate.hpp), so LSCDE, which the
  // weights over all three candidates include on this sample, stays in it, without a warning.
  const test::PairSample sample = curved_sample(200, 2);
  Matrix x(3, 200);
  x.topRows(2) = sample.x;
  for (Index i = 0; i < 200; ++i) x(2, i) = static_cast<double>(i % 3);
  const MethodEntry& automatic = find_method("auto", MethodFamily::conditional);
  const OptionValues values = {{"candidates", std::string("kcde:n_restarts=0,linear,lscde")},
                               {"ordered", std::vector<std::int64_t>{2}},
                               {"validation", std::string("kfold")},
                               {"seed", std::uint64_t{3}}};
  const ConditionalModel model = fit_method(automatic, x, sample.y, Matrix(3, 0), values);
  const MethodSelection& table = *model.report.method_selection;
  for (const CandidateScore& score : table.candidates) EXPECT_TRUE(score.scored());
  EXPECT_GT(table.candidates[2].weight, 0.0);
  EXPECT_GT(table.candidates[0].weight, 0.0);
  EXPECT_NEAR(table.candidates[0].weight + table.candidates[1].weight + table.candidates[2].weight,
              1.0, 1e-12);
  for (const std::string& warning : model.report.warnings) {
    EXPECT_EQ(warning.find("standardises x or y otherwise"), std::string::npos) << warning;
  }
  // The pool's inputs are the raw x: KCDE's raw discrete column is read as it is.
  const std::vector<PooledMember> members = model.mixture.gate().pooled_members();
  ASSERT_GE(members.size(), 2u);
  EXPECT_TRUE(members.front().input_scaling.has_value());
  EXPECT_EQ(model.mixture.x_scaling().scale(), Vector::Ones(3));
  // The pool answers every pair.
  EXPECT_TRUE(model.mixture.log_pdf(x, sample.y).allFinite());
}

}  // namespace
}  // namespace cdens
