// A compile command written for GCC with -fopenmp includes <omp.h>, which GCC ships with the
// compiler and Clang finds only where LLVM's OpenMP headers are installed: GL001's help says
// which package holds it. (-nostdinc hides it here whether it is installed or not.)
// DEFINE: %{expect-exit} = %python %srcroot/test/lit-support/expect_exit.py
// RUN: %{expect-exit} 1 %gradlint check --no-respect-gitignore --output-format full %s -- -std=c++17 -fopenmp -nostdinc -I%cpp-inputs 2>&1 | FileCheck %s
// CHECK: openmp-header.cpp:[[@LINE+2]]:10: GL001 compile error: 'omp.h' file not found
// CHECK: help: `omp.h` is OpenMP's header: GCC ships it with the compiler, Clang 19 finds it once LLVM's OpenMP headers are installed (Debian: `apt install libomp-19-dev`)
#include <omp.h>
#include <torch/torch.h>

void evaluate() {
  torch::NoGradGuard no_grad;
}
