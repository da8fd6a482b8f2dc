// What the long fits and evaluations report to their Progress: stages named after the work, whose
// steps add up to their totals (so that a rate and a time left can be shown), counted against
// what the fit's report says it did.

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Every stage a fit began: its label, announced total and the steps it was advanced by.
class RecordingProgress final : public Progress {
 public:
  struct Stage {
    std::string label;
    Index total = 0;
    Index steps = 0;
    bool ended = false;
  };

  void begin(std::string_view label, Index total) override {
    std::lock_guard<std::mutex> lock(mutex_);
    stages.push_back({std::string(label), total, 0, false});
  }
  void advance(Index steps) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ASSERT_FALSE(stages.empty());
    stages.back().steps += steps;
  }
  void end() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ASSERT_FALSE(stages.empty());
    stages.back().ended = true;
  }

  std::vector<Stage> stages;

 private:
  std::mutex mutex_;
};

/// Each stage ended with as many steps as it announced (a stage of unknown total: any number).
void expect_complete(const std::vector<RecordingProgress::Stage>& stages) {
  for (const auto& stage : stages) {
    EXPECT_TRUE(stage.ended) << stage.label;
    if (stage.total > 0) {
      EXPECT_EQ(stage.steps, stage.total) << stage.label;
    }
  }
}

FitContext recording(RecordingProgress& progress) { return {local_communicator(), progress}; }

TEST(FitProgress, GmmCountsEveryEmIteration) {
  Rng rng(3);
  const Matrix x = test::normal_matrix(2, 200, rng);
  GmmOptions options;
  options.n_components = 2;
  RecordingProgress progress;
  const DensityFit fit = fit_gmm(x, options, recording(progress));
  ASSERT_EQ(progress.stages.size(), 1u);
  EXPECT_EQ(progress.stages[0].label, "EM iterations");
  EXPECT_EQ(progress.stages[0].total, 0);  // EM stops where it levels off: no total ahead
  EXPECT_EQ(progress.stages[0].steps, fit.report.statistics.at("iterations"));
  expect_complete(progress.stages);
  EXPECT_EQ(fit.report.parameter_choice,
            "none: n_components = 2 is given, not selected (compare the held-out scores of fits "
            "with several); EM from one start");

  options.n_init = 3;
  RecordingProgress restarts;
  EXPECT_NE(
      fit_gmm(x, options, recording(restarts))
          .report.parameter_choice.find("EM from 3 starts, the one of the largest likelihood kept"),
      std::string::npos);
  EXPECT_EQ(restarts.stages.at(0).label, "EM iterations of 3 starts");
}

TEST(FitProgress, ParzenCountsItsGridsSamplesAndItsRefinementsPasses) {
  Rng rng(6);
  const Matrix x = test::normal_matrix(1, 300, rng);
  RecordingProgress progress;
  const DensityFit fit = fit_parzen(x, {}, recording(progress));
  ASSERT_EQ(progress.stages.size(), 2u);
  const int grid = ParzenOptions{}.search_points;
  EXPECT_EQ(progress.stages[0].label, "width grid of " + std::to_string(grid) + ", samples");
  EXPECT_EQ(progress.stages[0].total, 300);
  EXPECT_EQ(progress.stages[1].label, "width refinement, golden-section passes");
  expect_complete(progress.stages);
  // Every pass scored one width of the table, after the grid's.
  EXPECT_EQ(fit.report.cross_validation->candidates.rows(), grid + progress.stages[1].steps);

  ParzenOptions per_dimension;
  per_dimension.per_dimension = true;
  const DensityFit widths = fit_parzen(x, per_dimension);
  EXPECT_FALSE(widths.report.cross_validation);
  EXPECT_EQ(
      widths.report.parameter_choice.rfind(
          "leave-one-out likelihood of the widths, one per dimension, maximised by L-BFGS (", 0),
      0u)
      << widths.report.parameter_choice;
}

TEST(FitProgress, GskdNamesTheStagesOfItsTargetHoldOutAndConstruction) {
  Rng rng(7);
  const Matrix x = test::normal_matrix(1, 80, rng);
  RecordingProgress progress;
  fit_gskd(x, {}, recording(progress));
  std::vector<std::string> labels;
  for (const auto& stage : progress.stages) labels.push_back(stage.label);
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0].rfind("Parzen target width, width grid of", 0), 0u) << labels[0];
  EXPECT_EQ(labels[1], "Parzen target width, width refinement, golden-section passes");
  EXPECT_EQ(labels[2], "hold-out of variance_upper and stages, constructions");
  EXPECT_EQ(labels[3].rfind("kernel construction, stages (at most ", 0), 0u) << labels[3];
  EXPECT_GE(progress.stages[3].steps, 1);
  expect_complete(progress.stages);
}

TEST(FitProgress, KcdeCountsTheRunsOfItsBandwidthSearch) {
  const test::PairSample data = test::sine_sample(120, 2, 5);
  KcdeOptions options;
  RecordingProgress progress;
  const ConditionalFit fit = fit_kcde(data.x, data.y, options, recording(progress));
  ASSERT_EQ(progress.stages.size(), 1u);
  EXPECT_EQ(progress.stages[0].label, "bandwidth search, L-BFGS runs");
  // Every start is a run; at this n no screening subsample, so no polish run after them.
  EXPECT_EQ(progress.stages[0].total, fit.report.statistics.at("starts"));
  expect_complete(progress.stages);
  const std::string& choice = fit.report.parameter_choice;
  EXPECT_EQ(
      choice.rfind("leave-one-out likelihood of the bandwidths, maximised by L-BFGS (" +
                       std::to_string(static_cast<int>(fit.report.statistics.at("evaluations"))) +
                       " evaluations from 3 starts): a search, not a grid, so no table",
                   0),
      0u)
      << choice;
  EXPECT_FALSE(fit.report.cross_validation);

  options.bandwidth = {0.5, 0.5, 0.3};
  EXPECT_EQ(fit_kcde(data.x, data.y, options)
                .report.parameter_choice.rfind("none: the bandwidths are given", 0),
            0u);
}

TEST(FitProgress, ForwardSelectionReportsEachRoundOfCandidateFits) {
  const test::PairSample data = test::sine_sample(90, 3, 8);
  ForwardSelectionNwcdeOptions options;
  RecordingProgress progress;
  const ConditionalFit fit =
      fit_forward_selection_nwcde(data.x, data.y, options, recording(progress));
  const auto selected = static_cast<std::size_t>(fit.report.statistics.at("n_selected_features"));
  // A round per kept feature, and one more that found no improvement unless every one was kept.
  ASSERT_EQ(progress.stages.size(), selected == 3 ? 3u : selected + 1);
  for (std::size_t round = 0; round < progress.stages.size(); ++round) {
    EXPECT_EQ(progress.stages[round].label, "forward selection, feature " +
                                                std::to_string(round + 1) +
                                                " of at most 3: candidate fits");
    EXPECT_EQ(progress.stages[round].total, static_cast<Index>(3 - round));
  }
  // The candidates' own fits report nothing: they run side by side.
  expect_complete(progress.stages);
}

TEST(FitProgress, AutoNamesEachCandidateInItsStage) {
  const test::PairSample data = test::sine_sample(80, 1, 9);
  AutoOptions options;
  options.candidates = "linear,nwcde";
  options.validation = CandidateValidation::kfold;
  RecordingProgress progress;
  fit_auto(data.x, data.y, options, recording(progress));
  ASSERT_GE(progress.stages.size(), 2u);
  EXPECT_EQ(progress.stages[0].label, "candidate 1 of 2 (linear): fold fits");
  EXPECT_EQ(progress.stages[1].label, "candidate 2 of 2 (nwcde): fold fits");
  EXPECT_EQ(progress.stages[1].total, options.folds);
  // Then the pool's members are fitted on every pair, their own stages named by the candidate.
  for (std::size_t s = 2; s < progress.stages.size(); ++s) {
    EXPECT_EQ(progress.stages[s].label.rfind("refit of ", 0), 0u) << progress.stages[s].label;
  }
  expect_complete(progress.stages);
}

TEST(FitProgress, PressNamesTheStatesOfEachFitOfItsAicChoice) {
  const test::PairSample data = test::sine_sample(80, 1, 10);
  PressRegressionOptions options;
  options.max_states = 3;
  options.press.n_restarts = 2;
  RecordingProgress progress;
  const PressFit fit = fit_press_regression(data.x, data.y, options, recording(progress));
  // J = 1 has no coefficients to search.
  ASSERT_EQ(progress.stages.size(), 2u);
  EXPECT_EQ(progress.stages[0].label, "J = 2 of 3, PRESS starts");
  EXPECT_EQ(progress.stages[1].label, "J = 3 of 3, PRESS starts");
  EXPECT_EQ(progress.stages[1].total, 2);
  expect_complete(progress.stages);
  // The AIC table is the choice: no words instead of it.
  EXPECT_TRUE(fit.report.cross_validation);
  EXPECT_EQ(fit.report.parameter_choice, "");

  PressOptions fixed;
  fixed.n_states = 2;
  fixed.n_restarts = 2;
  EXPECT_EQ(fit_press(data.x, data.y, fixed).report.parameter_choice,
            "none: n_states = 2 is given (max_states chooses it by AIC); the states' coefficients "
            "minimise the PRESS criterion from 2 random starts, the start of the smallest "
            "hold-out MSE kept");
}

TEST(FitProgress, TheParameterChoiceSurvivesTheModelFile) {
  FitReport report;
  report.method = "gmm";
  report.parameter_choice = "none: n_components = 2 is given";
  EXPECT_EQ(FitReport::from_json(report.to_json()).parameter_choice, report.parameter_choice);
  // Files written before it have none; and none is written where there is none.
  report.parameter_choice.clear();
  EXPECT_FALSE(report.to_json().contains("parameter_choice"));
  nlohmann::json damaged = report.to_json();
  damaged["parameter_choice"] = 3;
  EXPECT_THROW(FitReport::from_json(damaged), ModelFormatError);
}

TEST(EvaluationProgress, TheDrawsOfEveryPairAreCounted) {
  // Two outputs: the energy score and the HPD values are drawn, a block of pairs at a time.
  Rng rng(4);
  const Matrix points = test::normal_matrix(2, 300, rng);
  const DensityFit fit = fit_gmm(points, {});
  EvaluationOptions options;
  options.draws = 100;
  RecordingProgress progress;
  evaluate_density(fit.model, points, options, progress);
  // The CDE loss is one closed form over all pairs: one step.
  ASSERT_EQ(progress.stages.size(), 3u);
  EXPECT_EQ(progress.stages[0].label, "CDE loss");
  EXPECT_EQ(progress.stages[0].total, 1);
  EXPECT_EQ(progress.stages[1].label, "energy score");
  EXPECT_EQ(progress.stages[2].label, "HPD values by sampling");
  EXPECT_EQ(progress.stages[1].total, 300);
  EXPECT_EQ(progress.stages[2].total, 300);
  expect_complete(progress.stages);
}

}  // namespace
}  // namespace cdens
