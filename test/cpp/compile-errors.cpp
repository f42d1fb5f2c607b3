// A file that does not compile: what Clang could parse is still checked, and the compiler's
// errors are summarised in one line on stderr (not dumped), after the findings.
// RUN: not %check-file %s %cpp-flags 2> %t.err | FileCheck %s --implicit-check-not=': GL'
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.err
// ERR: gradlint: warning: {{.*}}compile-errors.cpp: 2 compiler errors, first: {{.*}}compile-errors.cpp:[[@LINE+14]]:3: use of undeclared identifier 'undefined_function'
// ERR-NOT: {{.}}
//
// A missing header is a fatal error: Clang reports nothing after it, but still reads the rest
// of the file with what could be declared.
// RUN: not %check-file %s %cpp-flags -DMISSING_HEADER 2> %t.missing | FileCheck %s --implicit-check-not=': GL'
// RUN: FileCheck %s --check-prefix=MISSING --input-file %t.missing
// MISSING: gradlint: warning: {{.*}}compile-errors.cpp: 1 compiler error, first: {{.*}}compile-errors.cpp:[[@LINE+3]]:10: 'no/such/header.h' file not found
#include <torch/torch.h>
#ifdef MISSING_HEADER
#include <no/such/header.h>
#endif

void broken() {
  undefined_function(1);
  // CHECK: [[@LINE+1]]:3: GL101 `c10::GradMode::set_enabled(false)` disables grad mode and `broken` returns
  c10::GradMode::set_enabled(false);
}

void also_broken() {
  int x = "not an int";
  // CHECK: [[@LINE+1]]:3: GL105 `torch::NoGradGuard()` creates an unnamed
  torch::NoGradGuard();
  (void)x;
}
