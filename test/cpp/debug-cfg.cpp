// The Grad IR a C++ function lowers to (`gradlint debug cfg`): a guard saves the mode and is
// entered where it is declared; a call that may throw has an exception edge (!N) that runs the
// guard's destructor (restore, exit) on the way out; the normal path runs it at the `}`.
// RUN: %gradlint debug cfg %s %cpp-flags 2>&1 | FileCheck %s
#include <torch/torch.h>

void work();

// CHECK-LABEL: unit guarded
// CHECK-NEXT:   0: Entry -> 3
// CHECK-NEXT:   1: NormalExit
// CHECK-NEXT:   2: ExceptionalExit
// CHECK-NEXT:   3: Nop -> 4
// CHECK-NEXT:   4: SaveGrad var=no_grad @[[@LINE+7]]:3 -> 5
// CHECK-NEXT:   5: EnterGuard(no_grad) c10::NoGradGuard var=no_grad @[[@LINE+6]]:3 -> 6
// CHECK-NEXT:   6: Call work @[[@LINE+6]]:3 -> 9 !7
// CHECK-NEXT:   7: RestoreGrad var=no_grad @[[@LINE+4]]:3 -> 8
// CHECK-NEXT:   8: ExitGuard(no_grad) c10::NoGradGuard var=no_grad @[[@LINE+3]]:3 -> 2
// CHECK-NEXT:   9: RestoreGrad var=no_grad @[[@LINE+4]]:1 -> 10
void guarded() {
  torch::NoGradGuard no_grad;
  work();
}
// CHECK-NEXT:   10: ExitGuard(no_grad) c10::NoGradGuard var=no_grad @[[@LINE-1]]:1 -> 11
// CHECK-NEXT:   11: FallThrough @[[@LINE-2]]:1 -> 1

// A noexcept function has no exception edges: an exception there terminates.
// CHECK-LABEL: unit quiet
// CHECK-NOT: !
// CHECK: FallThrough
void quiet() noexcept { work(); }
