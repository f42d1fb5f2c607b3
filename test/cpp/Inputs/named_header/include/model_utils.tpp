// Template bodies, included by model_utils.h.
template <typename M>
void evaluate(M& model) {
  torch::NoGradGuard();
  model.forward(torch::randn(1));
}
