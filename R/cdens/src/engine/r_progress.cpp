#include "r_progress.hpp"

#include <Rcpp.h>

#include <utility>

namespace cdens::r {

RProgress::RProgress(bool verbose, std::string prefix)
    : r_thread_(std::this_thread::get_id()), prefix_(std::move(prefix)) {
  if (verbose) {
    terminal_.emplace([this](std::string_view text) { queue(text); },
                      TerminalProgress::Finished::keep);
  }
}

void RProgress::begin(std::string_view label, Index total) {
  heed();
  if (terminal_) terminal_->begin(prefix_ + std::string(label), total);
}

void RProgress::advance(Index steps) {
  if (terminal_) terminal_->advance(steps);
  heed();
}

void RProgress::end() {
  if (terminal_) terminal_->end();
}

void RProgress::queue(std::string_view text) {
  const std::lock_guard<std::mutex> lock(queued_mutex_);
  queued_ += text;
}

void RProgress::heed() {
  if (interrupted_.load(std::memory_order_relaxed)) throw Rcpp::internal::InterruptedException();
  if (std::this_thread::get_id() != r_thread_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_heeded_ < std::chrono::milliseconds(100)) return;
  last_heeded_ = now;
  try {
    Rcpp::checkUserInterrupt();
  } catch (Rcpp::internal::InterruptedException&) {
    interrupted_ = true;
    throw;
  }
  flush();
}

void RProgress::flush() {
  std::string text;
  {
    const std::lock_guard<std::mutex> lock(queued_mutex_);
    std::swap(text, queued_);
  }
  if (text.empty()) return;
  // message() runs the handlers of the caller's R code, which may jump out (tryCatch): Rcpp's
  // evaluation turns the jump into an exception that the entry point resumes (guard.hpp).
  static const Rcpp::Function message("message", R_BaseEnv);
  message(text, Rcpp::Named("appendLF") = false);
}

}  // namespace cdens::r
