// RUN: %python %srcroot/test/lit-support/expect_exit.py 1 %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// A third-party header missing from the flags (MPI, OpenCV, Eigen), included before LibTorch:
// the file does not compile (GL001), but the error is not a fatal one, so Clang still
// instantiates LibTorch's templates (a ModuleHolder's `->`) and the functions that do not use
// what is missing are checked. So is one whose only errors are in statements that name no
// grad-mode or training API (an object of a missing MPI type). One whose erroneous statement
// does (a guard type of the missing header) has no paths (a warning): that statement may have
// been a guard.
// CHECK: [[@LINE+1]]:10: GL001 compile error: 'no/such/mpi.h' file not found (and 2 more errors)
#include <no/such/mpi.h>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x);
};
struct Net : torch::nn::ModuleHolder<NetImpl> {};

torch::Tensor batch();

float evaluate(Net& model) {
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) {
    // CHECK: [[@LINE+1]]:14: GL303 `model` runs in evaluation mode but with grad enabled
    total += model->forward(batch()).item();
  }
  return total;
}

float evaluate_no_grad(Net& model) {
  torch::NoGradGuard no_grad;
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  return total;
}

float uses_missing(Net& model) {
  mpi::Communicator world;
  model->eval();
  float total = 0;
  // CHECK: [[@LINE+1]]:41: GL303 `model` runs in evaluation mode but with grad enabled
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  (void)world;
  return total;
}

float uses_missing_guard(Net& model) {
  mpi::NoGradScope no_grad;
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  return total;
}
// CHECK: Found 1 error and 2 warnings.
// CHECK: warning: {{.*}}missing-headers.cpp:[[@LINE-8]]: `uses_missing_guard` has a compile error in its body; only how guards are written was checked
// CHECK: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
