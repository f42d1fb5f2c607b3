// RUN: not %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// clang-tidy's suppression comments work in `gradlint check` too: NOLINT (with check names,
// globs or GL codes), NOLINTNEXTLINE and NOLINTBEGIN/NOLINTEND.
#include <torch/torch.h>

void work();

void bare() {
  c10::GradMode::set_enabled(false); // NOLINT
}

void by_check_name() {
  c10::GradMode::set_enabled(false); // NOLINT(gradlint-grad-mode-leak)
}

void by_code() {
  c10::GradMode::set_enabled(false); // NOLINT(GL101)
}

void by_glob() {
  torch::NoGradGuard(); // NOLINT(gradlint-*)
}

void next_line() {
  // NOLINTNEXTLINE(gradlint-grad-context-not-entered)
  torch::NoGradGuard();
}

// NOLINTBEGIN(GL1*)
void in_block() {
  c10::GradMode::set_enabled(false);
  torch::NoGradGuard();
}
// NOLINTEND(GL1*)

// Another check's name, or another rule's code, suppresses nothing of this finding.
void other_checks() {
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `other_checks` returns
  c10::GradMode::set_enabled(false); // NOLINT(bugprone-unused-return-value, GL105)
}

// The next line only: the toggle two lines down is still reported.
void too_far() {
  // NOLINTNEXTLINE
  work();
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `too_far` returns
  c10::GradMode::set_enabled(false);
}

// "NOLINT" inside a string literal is not a comment.
void in_string() {
  const char* text = "// NOLINT";
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed
  torch::NoGradGuard(); const char* more = "NOLINT"; (void)text; (void)more;
}
