// `gradlint check --confirm`: the findings of a check are replayed with real LibTorch (by
// gradlint-probe-replay, a separate process: `gradlint` does not link torch) and each gets a
// verdict per device, which every output format shows.
#pragma once

#include "program/engine.h"

#include <string>

namespace gradlint::probe {

// Fills Diagnostic::confirmation. `devices`: "cpu", "cuda" or "cpu,cuda". False, with `error`
// set, when the replayer is missing or fails.
bool confirmFindings(CheckResult& result, const std::string& devices, std::string& error);

} // namespace gradlint::probe
