// The progress line (core/progress.hpp): its text against a fake clock — steps, share, rate and
// time left — how often it is redrawn, and how a stage ends (erased, kept, or left open by an
// exception).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cdens/core/fit_context.hpp"

namespace cdens {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ProgressLine, TellsStepsShareRateAndTimeLeft) {
  EXPECT_EQ(progress_line("cross-validation", 0, 30, 0.0), "cross-validation: 0/30 (0%)");
  // 10 steps in 5 s: 2 a second, so the 20 left take 10 s.
  EXPECT_EQ(progress_line("cross-validation", 10, 30, 5.0),
            "cross-validation: 10/30 (33%), 2/s, 0:10 left");
  // A step slower than a second is told in seconds per step: 2 in 10 s, 3 left at 5 s each.
  EXPECT_EQ(progress_line("PRESS starts", 2, 5, 10.0),
            "PRESS starts: 2/5 (40%), 5 s/step, 0:15 left");
  EXPECT_EQ(progress_line("done", 4, 4, 2.0), "done: 4/4 (100%), 2/s, 0:00 left");
  // 1000 steps in 1.5 h: 3.6 s a step, 500 left take half an hour.
  EXPECT_EQ(progress_line("slow", 1000, 1500, 5400.0),
            "slow: 1000/1500 (66%), 5.4 s/step, 45:00 left");
}

TEST(ProgressLine, LargeRatesAreWholeNumbers) {
  EXPECT_EQ(progress_line("pairs", 1310, 2620, 1.0), "pairs: 1310/2620 (50%), 1310/s, 0:01 left");
  EXPECT_EQ(progress_line("starts", 1, 3, 250.0), "starts: 1/3 (33%), 250 s/step, 8:20 left");
}

TEST(ProgressLine, WithoutATotalTellsTheElapsedTime) {
  EXPECT_EQ(progress_line("EM iterations", 0, 0, 0.0), "EM iterations: 0");
  EXPECT_EQ(progress_line("EM iterations", 150, 0, 3.0), "EM iterations: 150, 50/s, 0:03 elapsed");
}

TEST(ProgressLine, NoRateBeforeAStepOrAMeasurableTime) {
  EXPECT_EQ(progress_line("fit", 0, 3, 12.0), "fit: 0/3 (0%)");
  EXPECT_EQ(progress_line("fit", 2, 3, 0.0), "fit: 2/3 (66%)");
}

TEST(FormatDuration, MinutesAndHours) {
  EXPECT_EQ(format_duration(0.0), "0:00");
  EXPECT_EQ(format_duration(59.6), "1:00");
  EXPECT_EQ(format_duration(125.0), "2:05");
  EXPECT_EQ(format_duration(3725.0), "1:02:05");
  EXPECT_EQ(format_duration(-3.0), "0:00");
  EXPECT_EQ(format_duration(std::nan("")), "0:00");
}

/// A TerminalProgress writing into a string, on a clock the test moves.
struct Recorded {
  std::string text;
  Clock::time_point now{};
  TerminalProgress progress;

  explicit Recorded(TerminalProgress::Finished finished)
      : progress([this](std::string_view written) { text += written; }, finished,
                 [this] { return now; }) {}

  void wait(double seconds) {
    now += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
};

TEST(TerminalProgress, RedrawsAtMostTenTimesASecondAndErasesAtTheEnd) {
  Recorded run(TerminalProgress::Finished::erase);
  run.progress.begin("cross-validation", 30);
  EXPECT_EQ(run.text, "\rcross-validation: 0/30 (0%)");
  run.text.clear();
  run.wait(0.05);
  run.progress.advance(5);  // within 0.1 s of the last line: not drawn
  EXPECT_EQ(run.text, "");
  run.wait(4.95);
  run.progress.advance(5);
  EXPECT_EQ(run.text, "\rcross-validation: 10/30 (33%), 2/s, 0:10 left");
  run.text.clear();
  run.progress.end();
  // The whole line overwritten by spaces, the cursor back at its start.
  const std::size_t width = std::string("cross-validation: 10/30 (33%), 2/s, 0:10 left").size();
  EXPECT_EQ(run.text, "\r" + std::string(width, ' ') + "\r");
  run.text.clear();
  run.progress.advance();  // no stage open: nothing
  run.progress.end();
  EXPECT_EQ(run.text, "");
}

TEST(TerminalProgress, AStageNotEndedIsErasedBeforeTheNextBegins) {
  Recorded run(TerminalProgress::Finished::erase);
  const std::string first = "\ra long label of a first stage: 0/2 (0%)";
  run.progress.begin("a long label of a first stage", 2);
  EXPECT_EQ(run.text, first);
  run.text.clear();
  // A fit that failed inside the stage and was caught (auto's candidates) never ended it.
  run.progress.begin("short", 2);
  EXPECT_EQ(run.text, "\r" + std::string(first.size() - 1, ' ') + "\r\rshort: 0/2 (0%)");
}

TEST(TerminalProgress, KeptStagesEndWithTheirStepsAndTime) {
  Recorded run(TerminalProgress::Finished::keep);
  run.progress.begin("PRESS starts", 5);
  run.wait(2.0);
  run.progress.advance();
  run.wait(13.0);
  run.progress.advance(4);
  run.text.clear();
  run.progress.end();
  const std::string previous = "PRESS starts: 5/5 (100%), 3 s/step, 0:00 left";
  const std::string kept = "PRESS starts: 5/5 in 0:15";
  EXPECT_EQ(run.text, "\r" + kept + std::string(previous.size() - kept.size(), ' ') + "\n");
}

TEST(TerminalProgress, AStageLeftOpenIsErasedWhenTheProgressGoes) {
  std::string text;
  {
    TerminalProgress progress([&](std::string_view written) { text += written; },
                              TerminalProgress::Finished::keep);
    progress.begin("search", 3);
    text.clear();
    // A fit that throws never ends its stage; the progress goes with the stack.
  }
  const std::size_t width = std::string("search: 0/3 (0%)").size();
  EXPECT_EQ(text, "\r" + std::string(width, ' ') + "\r");
}

TEST(TerminalProgress, CountsTheStepsOfEveryThread) {
  Recorded run(TerminalProgress::Finished::keep);
  run.progress.begin("parallel", 4000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) run.progress.advance();
    });
  }
  for (auto& thread : threads) thread.join();
  run.text.clear();
  run.progress.end();
  EXPECT_NE(run.text.find("parallel: 4000/4000 in 0:00"), std::string::npos) << run.text;
}

TEST(PrefixedProgress, NamesThePartInEveryStage) {
  Recorded run(TerminalProgress::Finished::erase);
  PrefixedProgress part(run.progress, "model 2 of 3 (kcde.json): ");
  part.begin("highest-density regions", 60);
  EXPECT_EQ(run.text, "\rmodel 2 of 3 (kcde.json): highest-density regions: 0/60 (0%)");
  run.wait(3.0);
  part.advance(30);
  EXPECT_NE(run.text.find("30/60 (50%), 10/s, 0:03 left"), std::string::npos) << run.text;
  part.end();
  EXPECT_EQ(run.text.back(), '\r');
}

}  // namespace
}  // namespace cdens
