#include "tool/lsp/analysis_scheduler.h"

#include <algorithm>

namespace gradlint::lsp {

AnalysisScheduler::AnalysisScheduler(std::chrono::milliseconds delay, Job job)
    : delay_(delay), job_(std::move(job)), worker_([this] { run(); }) {}

AnalysisScheduler::~AnalysisScheduler() { stop(); }

void AnalysisScheduler::schedule(const std::string& uri) { schedule(uri, delay_); }

void AnalysisScheduler::schedule(const std::string& uri, std::chrono::milliseconds delay) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    due_[uri] = std::chrono::steady_clock::now() + delay;
  }
  wake_.notify_one();
}

void AnalysisScheduler::cancel(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  due_.erase(uri);
}

bool AnalysisScheduler::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return due_.empty() && !stopping_;
}

void AnalysisScheduler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    due_.clear();
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void AnalysisScheduler::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (due_.empty()) {
      wake_.wait(lock, [this] { return stopping_ || !due_.empty(); });
      continue;
    }
    const auto next = std::min_element(due_.begin(), due_.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    });
    if (next->second > std::chrono::steady_clock::now()) {
      // Woken early by a new schedule() or stop(): look again at what is due.
      wake_.wait_until(lock, next->second);
      continue;
    }
    const std::string uri = next->first;
    due_.erase(next);
    lock.unlock();
    job_(uri);
    lock.lock();
  }
}

} // namespace gradlint::lsp
