#include <algorithm>
#include <cmath>
#include <utility>

#include "cdens/core/fit_context.hpp"

namespace cdens {
namespace {

class SilentProgress final : public Progress {
 public:
  void begin(std::string_view, Index) override {}
  void advance(Index) override {}
  void end() override {}
};

/// A line is redrawn at most this often: a terminal (or a notebook) drawing thousands of lines a
/// second would slow the fit it reports on.
constexpr std::chrono::milliseconds kRedrawInterval(100);

/// Three significant digits, whole numbers from 100 on (1310, not 1.31e+03).
std::string format_figure(double value) {
  char text[48];
  std::snprintf(text, sizeof(text), value >= 100.0 ? "%.0f" : "%.3g", value);
  return text;
}

std::string format_rate(Index done, double elapsed_seconds) {
  const double per_second = static_cast<double>(done) / elapsed_seconds;
  if (per_second >= 1.0) return format_figure(per_second) + "/s";
  return format_figure(1.0 / per_second) + " s/step";
}

}  // namespace

Progress& silent_progress() {
  static SilentProgress instance;
  return instance;
}

void PrefixedProgress::begin(std::string_view label, Index total) {
  inner_.begin(prefix_ + std::string(label), total);
}

std::string format_duration(double seconds) {
  const long total = std::isfinite(seconds) && seconds > 0.0 ? std::lround(seconds) : 0;
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof(text), "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(text, sizeof(text), "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

std::string progress_line(std::string_view label, Index done, Index total, double elapsed_seconds) {
  std::string line(label);
  line += ": " + std::to_string(done);
  if (total > 0) {
    line += "/" + std::to_string(total) + " (" +
            std::to_string(static_cast<long>(100 * std::min(done, total) / total)) + "%)";
  }
  // No rate before a step is done, nor over an elapsed time too short to measure.
  if (done <= 0 || !(elapsed_seconds > 0.0)) return line;
  line += ", " + format_rate(done, elapsed_seconds);
  if (total > 0) {
    const double left = static_cast<double>(total - std::min(done, total)) *
                        (elapsed_seconds / static_cast<double>(done));
    line += ", " + format_duration(left) + " left";
  } else {
    line += ", " + format_duration(elapsed_seconds) + " elapsed";
  }
  return line;
}

TerminalProgress::TerminalProgress(std::FILE* stream, Finished finished)
    : TerminalProgress(
          [stream](std::string_view text) {
            std::fwrite(text.data(), 1, text.size(), stream);
            std::fflush(stream);
          },
          finished) {}

TerminalProgress::TerminalProgress(Writer write, Finished finished, Clock now)
    : write_(std::move(write)), finished_(finished), now_(std::move(now)) {}

TerminalProgress::~TerminalProgress() {
  if (!open_) return;
  // A stage left open by an exception: erased, whatever `finished_` says, so that the error
  // message the exception becomes starts on a clean line.
  finished_ = Finished::erase;
  finish();
}

void TerminalProgress::begin(std::string_view label, Index total) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_) finish();  // a stage that was never ended (a fit that failed and was caught)
  open_ = true;
  label_ = label;
  total_ = total;
  done_ = 0;
  started_ = now_();
  last_draw_ = started_;
  draw(progress_line(label_, 0, total_, 0.0));
}

void TerminalProgress::advance(Index steps) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return;
  done_ += steps;
  const auto now = now_();
  if (now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  draw(progress_line(label_, done_, total_, std::chrono::duration<double>(now - started_).count()));
}

void TerminalProgress::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_) finish();
}

void TerminalProgress::draw(const std::string& line) {
  // Spaces over what is left of a longer previous line: a notebook's output knows "\r" but not
  // every terminal escape.
  std::string text = "\r" + line;
  if (line.size() < drawn_width_) text += std::string(drawn_width_ - line.size(), ' ');
  drawn_width_ = line.size();
  write_(text);
}

void TerminalProgress::finish() {
  open_ = false;
  if (finished_ == Finished::keep) {
    const double seconds = std::chrono::duration<double>(now_() - started_).count();
    std::string line = label_ + ": " + std::to_string(done_);
    if (total_ > 0) line += "/" + std::to_string(total_);
    draw(line + " in " + format_duration(seconds));
    write_("\n");
  } else {
    write_("\r" + std::string(drawn_width_, ' ') + "\r");
  }
  drawn_width_ = 0;
}

}  // namespace cdens
