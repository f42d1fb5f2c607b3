// Debounced background analysis: each edit (re)starts its document's delay, and one worker
// thread runs the job for documents whose delay has passed. A newer edit during an analysis
// schedules another run; the job itself drops results for versions that are no longer current.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace gradlint::lsp {

// 50 ms: longer than the gap between keystrokes of fast typing, short enough to feel instant.
inline constexpr std::chrono::milliseconds kDefaultDebounce{50};

class AnalysisScheduler {
public:
  using Job = std::function<void(const std::string& uri)>;

  AnalysisScheduler(std::chrono::milliseconds delay, Job job);
  ~AnalysisScheduler();
  AnalysisScheduler(const AnalysisScheduler&) = delete;
  AnalysisScheduler& operator=(const AnalysisScheduler&) = delete;

  // Runs the job for `uri` once the delay (by default the debounce) has passed with no newer
  // schedule() for it.
  void schedule(const std::string& uri);
  void schedule(const std::string& uri, std::chrono::milliseconds delay);
  void cancel(const std::string& uri);
  // Nothing is scheduled (the job running now aside) and no stop was asked: a long job gives
  // way when false.
  bool idle();
  // Drops what is pending and joins the worker (after the job in progress, if any).
  void stop();

private:
  void run();

  const std::chrono::milliseconds delay_;
  const Job job_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, std::chrono::steady_clock::time_point> due_; // uri -> when to analyse
  bool stopping_ = false;
  std::thread worker_;
};

} // namespace gradlint::lsp
