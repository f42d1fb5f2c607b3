// Template bodies, included by tools.h.
template <typename T>
void predict(T& model) {
  torch::NoGradGuard();
  model.forward(torch::randn(1));
}
