#include "cdens/core/progress.hpp"

namespace cdens {
namespace {

class SilentProgress final : public Progress {
 public:
  void begin(std::string_view, Index) override {}
  void advance(Index) override {}
  void end() override {}
};

}  // namespace

Progress& silent_progress() {
  static SilentProgress instance;
  return instance;
}

void TerminalProgress::begin(std::string_view label, Index total) {
  std::lock_guard<std::mutex> lock(mutex_);
  label_ = label;
  total_ = total;
  done_ = 0;
  draw();
}

void TerminalProgress::advance(Index steps) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ += steps;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ >= std::chrono::milliseconds(100)) draw();
}

void TerminalProgress::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(stream_, "\r\033[K");
  std::fflush(stream_);
}

void TerminalProgress::draw() {
  last_draw_ = std::chrono::steady_clock::now();
  std::fprintf(stream_, "\r\033[K%s: %ld/%ld", label_.c_str(), static_cast<long>(done_),
               static_cast<long>(total_));
  std::fflush(stream_);
}

}  // namespace cdens
