// `gradlint probe run [--findings F.json] -- CMD ARGS...` and
// `gradlint probe replay F.json [--device cpu,cuda]` (docs/probe.md). The LibTorch pieces live
// outside `gradlint` (a process linked to torch pays ~0.5 s at start): the tracer library and
// the replayer are found next to the running executable.
#pragma once

#include <string>

namespace gradlint::probe {

// argv[1] is "probe". Returns the exit status.
int runProbeCommand(int argc, char** argv);

// BUILD/lib/libgradlint_probe.so and BUILD/bin/gradlint-probe-replay, from BUILD/bin/gradlint.
std::string tracerLibraryPath();
std::string replayerPath();

} // namespace gradlint::probe
