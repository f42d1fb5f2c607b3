// RUN: %python %srcroot/test/lit-support/expect_exit.py 1 %check-file %s %cpp-flags 2>&1 | FileCheck %s --implicit-check-not=': GL' --implicit-check-not=warning:
// A third-party header missing from the flags (MPI, OpenCV, Eigen), included before LibTorch:
// the file does not compile (GL001), but the error is not a fatal one, so Clang still
// instantiates LibTorch's templates (a ModuleHolder's `->`) and the functions that do not use
// what is missing are checked. One that does has no paths (a warning): Clang's recovery may
// have dropped statements of it, a guard among them.
// CHECK: [[@LINE+1]]:10: GL001 compile error: 'no/such/mpi.h' file not found (and 1 more error)
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

// CHECK: Found 1 error and 1 warning.
// CHECK: warning: {{.*}}missing-headers.cpp:[[@LINE+2]]: `uses_missing` has a compile error in its body; only how guards are written was checked
// CHECK: gradlint: warning: 1 of 1 C++ file did not compile with its flags (GL001); findings in it may be incomplete
float uses_missing(Net& model) {
  mpi::Communicator world;
  model->eval();
  float total = 0;
  for (int i = 0; i < 10; ++i) total += model->forward(batch()).item();
  (void)world;
  return total;
}
