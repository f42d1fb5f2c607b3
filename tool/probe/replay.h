// Replays a static finding with real LibTorch (gradlint-probe-replay): the witness's events
// become LibTorch operations - toggles as GradMode::set_enabled, with-blocks and decorators as
// guard scopes, raises as C++ throws, exits as scope ends - followed by a small
// torch::nn::Linear forward/backward, the victim. Training-loop rules replay their loop.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace gradlint::probe {

struct ReplayVerdict {
  // confirmed: the finding's effect happened; refuted: it did not; needs-cuda: the effect
  // only shows with a GPU (offload); no-gpu: --device cuda on a machine without one;
  // not-replayable: the rule has no run-time effect to replay (syntax errors).
  std::string verdict;
  std::string detail; // what was observed
};

// `finding`: one element of `gradlint check --output-format json`. `device`: "cpu" or "cuda".
ReplayVerdict replayFinding(const nlohmann::json& finding, const std::string& device);

bool cudaAvailable();

} // namespace gradlint::probe
