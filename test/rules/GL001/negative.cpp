// GL001 compile-error stays silent on a file that compiles.
// DEFINE: %{expect-exit} = %python %srcroot/test/lit-support/expect_exit.py
// RUN: %{expect-exit} 0 %check-file %s %cpp-flags 2>&1 | count 0
//
// `--ignore GL001` (a check without the file's flags on purpose) turns it off: where a missing
// header is the only problem, the run is clean (exit 0) and says nothing. Without it, the same
// file is a GL001 finding (exit 1).
// RUN: %{expect-exit} 0 %check-file --ignore GL001 %s %cpp-flags -DMISSING_HEADER 2>&1 | count 0
// RUN: %{expect-exit} 1 %check-file %s %cpp-flags -DMISSING_HEADER 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: negative.cpp:[[@LINE+3]]:10: GL001 compile error: 'no/such/opencv.h' file not found
#include <torch/torch.h>
#ifdef MISSING_HEADER
#include <no/such/opencv.h>
#endif

torch::Tensor batch();

torch::Tensor evaluate(torch::nn::Linear& model) {
  torch::NoGradGuard no_grad;
  model->eval();
  return model->forward(batch());
}
