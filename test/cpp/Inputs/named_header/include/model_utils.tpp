// Template bodies, included by model_utils.h.
template <typename M>
void evaluate(M& model) {
  torch::NoGradGuard();
  model.forward(torch::randn(1));
}

// A loop over a dependent range: Clang builds no control-flow graph for it as written, so its
// paths are read from an instantiation, here the one in src/model.cpp.
template <typename Loader>
void fit(torch::nn::Linear& model, Loader& loader, torch::optim::SGD& optimizer) {
  for (auto& batch : loader) {
    model(batch).backward();
    optimizer.step();
  }
}
