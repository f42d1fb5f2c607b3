// Exit 2 only when nothing at all could be checked: every file of the run is a C++ file whose
// errors stopped Clang before any function was read. Flags Clang cannot compile with at all do
// that (an unknown target CPU, as in a compile_commands.json written for another compiler):
// GL001 is still reported, and an error says why the run failed, whether GL001 is reported or
// ignored, with --exit-zero or not. The reports carry the error too.
// DEFINE: %{expect-exit} = %python %srcroot/test/lit-support/expect_exit.py
// RUN: %{expect-exit} 2 %check-file %s %cpp-flags -march=no-such-cpu 2>&1 | FileCheck %s --check-prefix=STOPPED --implicit-check-not=': GL'
// STOPPED: compile-errors-nothing-checked.cpp:1:1: GL001 compile error: unknown target CPU 'no-such-cpu'; gradlint analyses what Clang could recover, so findings in this file may be incomplete
// STOPPED: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
// STOPPED: gradlint: error: nothing could be checked: Clang recovered no function from the 1 C++ file of the run, which did not compile with its flags (GL001)
// RUN: %{expect-exit} 2 %check-file --ignore GL001 %s %cpp-flags -march=no-such-cpu 2>&1 | FileCheck %s --check-prefix=IGNORED --implicit-check-not=': GL'
// RUN: %{expect-exit} 2 %check-file --exit-zero %s %cpp-flags -march=no-such-cpu 2>&1 | FileCheck %s --check-prefix=IGNORED
// IGNORED: gradlint: error: nothing could be checked: Clang recovered no function from the 1 C++ file
// RUN: %{expect-exit} 2 %gradlint check --no-respect-gitignore --output-format sarif %s %cpp-flags -march=no-such-cpu > %t.sarif
// RUN: %python %srcroot/test/formats/Inputs/sarif_summary.py %t.sarif | FileCheck %s --check-prefix=SARIF
// SARIF: result GL001 error {{.*}}compile-errors-nothing-checked.cpp 1:1-
// SARIF: invocation executionSuccessful=False
// SARIF-NEXT: notification error: nothing could be checked: {{.+}}
//
// With another file checked (a Python file with nothing to report), the run did check
// something: GL001 is a finding (exit 1), and with GL001 ignored the run is clean.
// RUN: %{expect-exit} 1 %check-file %s %srcroot/test/cli/Inputs/clean.py %cpp-flags -march=no-such-cpu 2>&1 | FileCheck %s --check-prefix=OTHER --implicit-check-not='gradlint: error'
// OTHER: compile-errors-nothing-checked.cpp:1:1: GL001 compile error: unknown target CPU 'no-such-cpu'
// RUN: %{expect-exit} 0 %check-file --ignore GL001 %s %srcroot/test/cli/Inputs/clean.py %cpp-flags -march=no-such-cpu
//
// Clang carries on past an unknown option: the function is checked, and GL001 is a finding.
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags -fno-such-option 2>&1 | FileCheck %s --check-prefix=RECOVERED --implicit-check-not='gradlint: error'
// RECOVERED: compile-errors-nothing-checked.cpp:1:1: GL001 compile error: unknown argument: '-fno-such-option'
// RECOVERED: compile-errors-nothing-checked.cpp:[[@LINE+5]]:3: GL101
// RECOVERED: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
#include <torch/torch.h>

void leak() {
  c10::GradMode::set_enabled(false);
}
