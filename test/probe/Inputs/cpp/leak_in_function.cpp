// A LibTorch program whose loader turns grad mode off and returns without restoring it; the
// training step after it runs backward() with grad disabled. Run under the probe by
// test/probe/cpp_programs.test, which checks the CHECK lines here.
#include <c10/core/GradMode.h>
#include <torch/nn/modules/linear.h>

#include <iostream>

// CHECK: `loadFrozenBackbone()
__attribute__((noinline)) void loadFrozenBackbone() {
  // CHECK-SAME: leak_in_function.cpp:[[@LINE+1]]){{.*}} disabled grad mode and returned with it still disabled
  c10::GradMode::set_enabled(false);
  std::cout << "backbone frozen\n"; // (and the call above is not a tail call)
}

int main() {
  torch::nn::Linear model(4, 1);
  loadFrozenBackbone();
  try {
    // CHECK: = backward() ran with grad disabled at `main ({{.*}}leak_in_function.cpp:[[@LINE+1]])`
    model->forward(torch::randn({8, 4})).sum().backward();
  } catch (const std::exception&) {
    std::cout << "backward failed: no graph\n";
  }
  return 0;
}
