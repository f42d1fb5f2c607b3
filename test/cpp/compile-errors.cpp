// A file that does not compile gets a GL001 finding (the first error, where it is, how many
// followed), counted apart from GL000 (a Python syntax error), a line on stderr says how many
// files did not compile, and the run exits 1; what Clang could parse is still checked. A
// function whose body lost a statement to an error (Clang dropped it, or could not type one
// that names the grad-mode API) has no paths (what was lost would read as absent): only how its
// guards are written is checked, and a warning says so. One whose errors are all in statements
// Clang kept that name no grad-mode or training API is analysed as recovered.
// DEFINE: %{expect-exit} = %python %srcroot/test/lit-support/expect_exit.py
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
//
// A missing header is an error, not a fatal one: Clang still reads the rest of the file and
// the headers included after it, and counts the errors that follow.
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags -DMISSING_HEADER 2>&1 | FileCheck %s --check-prefixes=MISSING,COMMON --implicit-check-not=': GL'
// MISSING: compile-errors.cpp:[[@LINE+22]]:10: GL001 compile error: 'no/such/header.h' file not found (and 3 more errors); gradlint analyses what Clang could recover, so findings in this file may be incomplete
//
// An error in an included header is reported at the #include.
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags -DBROKEN_HEADER 2>&1 | FileCheck %s --check-prefixes=HEADER,COMMON --implicit-check-not=': GL'
// HEADER: compile-errors.cpp:[[@LINE+21]]:10: GL001 compile error: {{.*}}Inputs/broken/broken.h:3:1: unknown type name 'undeclared_type' (in a file included here) (and 3 more errors)
//
// No flags at all: the fix is named.
// RUN: %{expect-exit} 1 %gradlint check --no-respect-gitignore %s 2>&1 | FileCheck %s --check-prefix=NOFLAGS
// NOFLAGS: compile-errors.cpp:[[@LINE+12]]:10: GL001 compile error: 'torch/torch.h' file not found
// NOFLAGS: help: gradlint needs the file's compile flags: pass `-p BUILD_DIR` (a folder with compile_commands.json, e.g. from `cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON`) or give them after `--` (`gradlint check FILE -- -std=c++17 -I...`)
//
// --statistics counts GL001 on a row of its own, and the JSON report names it.
// RUN: %{expect-exit} 1 %gradlint check --no-respect-gitignore --statistics %s %cpp-flags 2>/dev/null | FileCheck %s --check-prefix=STATS --implicit-check-not=GL000
// STATS: 1 GL001 compile-error
// RUN: %{expect-exit} 1 %gradlint check --no-respect-gitignore --output-format json %s %cpp-flags 2>/dev/null | FileCheck %s --check-prefix=JSON --implicit-check-not=GL000
// JSON: "code": "GL001"
//
// COMMON: GL105
// COMMON: GL101
// COMMON: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
#include <torch/torch.h>
#ifdef MISSING_HEADER
#include <no/such/header.h>
#endif
#ifdef BROKEN_HEADER
#include "Inputs/broken/broken.h"
#endif

void broken() {
  c10::GradMode::set_enabled(false);
  // CHECK: [[@LINE+1]]:3: GL001 compile error: use of undeclared identifier 'restore_grad_mode' (and 2 more errors); gradlint analyses what Clang could recover, so findings in this file may be incomplete
  restore_grad_mode();
}

void also_broken() {
  int x = 0;
  x = ;
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed
  torch::NoGradGuard();
}

void recovered() {
  undefined_function(1);
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `recovered` returns with it still disabled
  c10::GradMode::set_enabled(false);
}
// CHECK: Found 3 errors.
// CHECK: warning: {{.*}}compile-errors.cpp:[[@LINE-19]]: `broken` has a compile error in its body; only how guards are written was checked
// CHECK: warning: {{.*}}compile-errors.cpp:[[@LINE-14]]: `also_broken` has a compile error in its body; only how guards are written was checked
// CHECK: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
