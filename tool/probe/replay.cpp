#include "tool/probe/replay.h"

#include "checkers/ir/ascii.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/cuda.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gradlint::probe {
namespace {

using nlohmann::json;

// A Python `raise` (or an exception escaping a call) in the replayed function.
struct ReplayedException : std::runtime_error {
  ReplayedException() : std::runtime_error("replayed exception") {}
};

// What the victim needs: a model and a batch on the replay device.
struct Victim {
  torch::Device device;
  torch::nn::Linear model{4, 1};
  torch::Tensor batch;

  explicit Victim(const std::string& name) : device(name == "cuda" ? torch::kCUDA : torch::kCPU) {
    model->to(device);
    batch = torch::randn({8, 4}).to(device);
  }

  // A training step's backward: true when it computed a gradient for the weight.
  bool backwardComputesGradients() {
    model->zero_grad();
    try {
      model->forward(batch).sum().backward();
    } catch (const std::exception&) {
      return false; // "element 0 of tensors does not require grad": no graph was recorded
    }
    const torch::Tensor& grad = model->weight.grad();
    return grad.defined() && grad.abs().sum().item<float>() > 0;
  }
};

// Grad mode is restored before and after each replay, whatever the replay did.
struct CleanGradMode {
  CleanGradMode() { c10::GradMode::set_enabled(true); }
  ~CleanGradMode() { c10::GradMode::set_enabled(true); }
};

// The witness's events as a function body. Guards live in `guards` (scope ends destroy them,
// on a return or a throw alike); a `yield` suspends the function with its guards still in force,
// so those move to `suspended`, which outlives the call.
// A call at the finding's own location is a helper whose summary says it returns with grad
// disabled (`_disable()`): it replays as the toggle it stands for.
void replayFunctionBody(const json& witness, const json& findingLocation,
                        std::vector<std::unique_ptr<c10::AutoGradMode>>& suspended) {
  std::vector<std::unique_ptr<c10::AutoGradMode>> guards;
  std::vector<bool> saved;
  for (const json& step : witness) {
    const std::string kind = step.value("kind", "");
    const std::string detail = asciiLower(step.value("detail", ""));
    const bool atFinding = step.value("row", -1) == findingLocation.value("row", -2) &&
                           step.value("column", -1) == findingLocation.value("column", -2);
    if (kind == "SetGrad") {
      c10::GradMode::set_enabled(detail.find("true") != std::string::npos);
    } else if (kind == "Call" && atFinding) {
      c10::GradMode::set_enabled(false);
    } else if (kind == "SaveGrad") {
      saved.push_back(c10::GradMode::is_enabled());
    } else if (kind == "RestoreGrad" || kind == "RestoreArg") {
      c10::GradMode::set_enabled(saved.empty() ? true : saved.back());
    } else if (kind == "EnterGuard") {
      const bool enables = detail.find("enable_grad") != std::string::npos ||
                           detail.find("enablegrad") != std::string::npos;
      guards.push_back(std::make_unique<c10::AutoGradMode>(enables));
    } else if (kind == "ExitGuard") {
      if (!guards.empty()) guards.pop_back();
    } else if (kind == "Raise" || kind == "ExceptionalExit") {
      throw ReplayedException();
    } else if (kind == "Yield" || kind == "Await") {
      for (auto& guard : guards) suspended.push_back(std::move(guard));
      return;
    } else if (kind == "Return" || kind == "FallThrough" || kind == "NormalExit") {
      return;
    }
  }
}

// GL101-GL104: run the path, return to the caller, then train there.
ReplayVerdict replayToggles(const json& finding, Victim& victim) {
  json witness = finding.value("witness", json::array());
  if (witness.empty()) {
    // A toggle with no path recorded (GL103 alone): the call itself, then return.
    witness = json::array({{{"kind", "SetGrad"}, {"detail", "set_grad_enabled(False)"}}});
  }
  CleanGradMode clean;
  std::vector<std::unique_ptr<c10::AutoGradMode>> suspended;
  bool raised = false;
  try {
    replayFunctionBody(witness, finding.value("location", json::object()), suspended);
  } catch (const ReplayedException&) {
    raised = true; // the caller catches it and carries on, as a training loop with retries does
  }
  const bool enabledAfter = c10::GradMode::is_enabled();
  const bool trains = victim.backwardComputesGradients();
  suspended.clear();
  const std::string exit = raised ? "after the exception" : "after the return";
  if (!enabledAfter && !trains) {
    return {"confirmed", "grad mode disabled " + exit + "; backward() computed no gradients"};
  }
  return {"refuted", "grad mode enabled " + exit + "; backward() computed gradients"};
}

// GL105/GL106: the guard the code meant to make is not in force for the code below it.
ReplayVerdict replayGuardNotEntered(const json& finding, Victim& victim) {
  const std::string message = asciiLower(finding.value("message", ""));
  if (finding.value("code", "") == "GL105" && message.find("as a statement") == std::string::npos &&
      message.find("__enter__") == std::string::npos) {
    return {"not-replayable", "entering the class itself raises in Python; nothing to replay"};
  }
  const bool meantToEnable = message.find("enable_grad") != std::string::npos;
  CleanGradMode clean;
  c10::GradMode::set_enabled(!meantToEnable);
  { c10::AutoGradMode{meantToEnable}; } // made and destroyed at once: never in force
  const torch::Tensor output = victim.model->forward(victim.batch);
  const bool recordsGraph = output.requires_grad();
  if (recordsGraph != meantToEnable) {
    return {"confirmed", meantToEnable ? "grad mode is still disabled below the statement"
                                       : "the code below still records a graph"};
  }
  return {"refuted", "the guard took effect"};
}

// GL201/GL202: weights moved to the device around the forward and back after it, as offload
// hooks do, then backward and an optimizer step.
ReplayVerdict replayOffload(Victim& victim) {
  if (victim.device.is_cpu()) {
    return {"needs-cuda", "offload moves weights between CPU and GPU; replay with --device cuda"};
  }
  CleanGradMode clean;
  victim.model->to(torch::kCPU);
  torch::optim::SGD optimizer(victim.model->parameters(), torch::optim::SGDOptions(0.1));
  const torch::Tensor before = victim.model->weight.detach().clone();
  try {
    for (auto& parameter : victim.model->parameters()) {
      parameter.set_data(parameter.data().to(victim.device)); // pre-forward hook: onload
    }
    const torch::Tensor loss = victim.model->forward(victim.batch).sum();
    for (auto& parameter : victim.model->parameters()) {
      parameter.set_data(parameter.data().to(torch::kCPU)); // post-forward hook: offload
    }
    loss.backward();
    optimizer.step();
  } catch (const std::exception& error) {
    std::string what = error.what();
    what = what.substr(0, what.find('\n'));
    return {"confirmed", "training the offloaded model failed: " + what};
  }
  const bool changed = !torch::equal(before, victim.model->weight.detach().to(torch::kCPU));
  return changed ? ReplayVerdict{"refuted", "the optimizer step updated the weights"}
                 : ReplayVerdict{"confirmed", "the optimizer step left the weights unchanged"};
}

ReplayVerdict replayTrainingLoop(const std::string& code, Victim& victim) {
  CleanGradMode clean;
  auto& model = victim.model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  if (code == "GL301") { // backward -> step -> backward, no zero_grad between
    model->forward(victim.batch).sum().backward();
    optimizer.step();
    const torch::Tensor loss = model->forward(victim.batch).sum();
    const torch::Tensor fresh =
        torch::autograd::grad({loss}, {model->weight}, {}, /*retain_graph=*/true)[0];
    loss.backward();
    return torch::allclose(model->weight.grad(), fresh)
               ? ReplayVerdict{"refuted", "the second backward() started from zero"}
               : ReplayVerdict{"confirmed", "the second backward() added to the first one's "
                                            "gradients"};
  }
  if (code == "GL305") { // backward -> zero_grad -> step
    model->forward(victim.batch).sum().backward();
    optimizer.zero_grad();
    const torch::Tensor before = model->weight.detach().clone();
    optimizer.step();
    return torch::equal(before, model->weight.detach())
               ? ReplayVerdict{"confirmed", "the step applied zeroed gradients: no update"}
               : ReplayVerdict{"refuted", "the step updated the weights"};
  }
  if (code == "GL302") { // backward on a value computed under no_grad
    torch::Tensor loss;
    {
      torch::NoGradGuard noGrad;
      loss = model->forward(victim.batch).sum();
    }
    try {
      loss.backward();
    } catch (const std::exception&) {
      return {"confirmed", "backward() raised: the value has no graph"};
    }
    return {"refuted", "backward() ran"};
  }
  if (code == "GL304") { // a tensor made under inference_mode saved for backward
    torch::Tensor features;
    {
      c10::InferenceMode inference;
      features = victim.batch * 2;
    }
    try {
      model->forward(features).sum().backward();
    } catch (const std::exception&) {
      return {"confirmed", "backward() raised: an inference tensor was saved for backward"};
    }
    return {"refuted", "backward() ran"};
  }
  // GL303: eval() then forward with grad enabled.
  model->eval();
  const bool recordsGraph = model->forward(victim.batch).requires_grad();
  return recordsGraph ? ReplayVerdict{"confirmed", "the eval forward recorded a graph"}
                      : ReplayVerdict{"refuted", "no graph was recorded"};
}

} // namespace

bool cudaAvailable() { return torch::cuda::is_available(); }

ReplayVerdict replayFinding(const json& finding, const std::string& device) {
  const std::string code = finding.value("code", "");
  if (device == "cuda" && !cudaAvailable()) return {"no-gpu", "no CUDA device on this machine"};
  try {
    Victim victim(device);
    if (code == "GL101" || code == "GL102" || code == "GL103" || code == "GL104") {
      return replayToggles(finding, victim);
    }
    if (code == "GL105" || code == "GL106") return replayGuardNotEntered(finding, victim);
    if (code == "GL201" || code == "GL202") return replayOffload(victim);
    if (code == "GL301" || code == "GL302" || code == "GL303" || code == "GL304" ||
        code == "GL305") {
      return replayTrainingLoop(code, victim);
    }
  } catch (const std::exception& error) {
    std::string what = error.what();
    return {"error", what.substr(0, what.find('\n'))};
  }
  return {"not-replayable", "no run-time effect to replay"};
}

} // namespace gradlint::probe
