// GL001 compile-error: the file does not compile with its flags. No comment silences it: not
// NOLINT naming it on its line, nor NOLINTNEXTLINE above it, nor a NOLINTBEGIN/NOLINTEND region
// around it, though they silence the other findings there (the GL105 below).
// DEFINE: %{expect-exit} = %python %srcroot/test/lit-support/expect_exit.py
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL'
// CHECK: positive.cpp:[[@LINE+13]]:3: GL001 compile error: use of undeclared identifier 'undefined_function'; gradlint analyses what Clang could recover, so findings in this file may be incomplete
// CHECK: Found 1 error.
// CHECK: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
//
// A selection of other rules keeps it, and it is counted on a row of its own.
// RUN: %{expect-exit} 1 %gradlint check --no-respect-gitignore --select GL105 --statistics %s %cpp-flags 2>/dev/null | FileCheck %s --check-prefix=STATS --match-full-lines --strict-whitespace
// STATS:    1	GL001	compile-error
// STATS-NOT:{{.}}
#include <torch/torch.h>

// NOLINTBEGIN
void broken() {
  // NOLINTNEXTLINE(gradlint-compile-error)
  undefined_function(1); // NOLINT(GL001)
  torch::NoGradGuard(); // NOLINT(GL105)
}
// NOLINTEND
