// `gradlint probe run [--findings F.json] -- CMD ARGS...` and
// `gradlint probe replay F.json [--device cpu,cuda]` (docs/probe.md). The LibTorch pieces live
// outside `gradlint` (a process linked to torch pays ~0.5 s at start): the tracer library and
// the replayer are found next to the running executable.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gradlint::probe {

// What `probe run` and `probe replay` take.
struct RunOptions {
  std::string findingsPath;
  bool perTest = false;          // the pytest plugin gives each test the session's mode back
  bool failLeakingTests = false; // ... and fails the teardown of a test that changed it
  std::string reportPath;        // --report: the leaks as findings
  std::string reportFormat;      // json or sarif
};
struct ProbeArguments {
  RunOptions run;
  std::string runFormat; // --output-format of `run`, empty when not given
  std::string replayInput;
  std::string devices = "cpu";
  std::string replayFormat = "text";
};
struct ProbeSubcommands {
  CLI::App* run;
  CLI::App* replay;
};

// Declares `run` and `replay`, with their options, under `probe`: in the parser of
// runProbeCommand, and in gradlint's own parser, whose `probe` is never parsed (main hands it
// to runProbeCommand first) but gives --help, the man page and the completion script.
ProbeSubcommands addProbeSubcommands(CLI::App& probe, ProbeArguments& arguments);

// argv[1] is "probe". Returns the exit status.
int runProbeCommand(int argc, char** argv);

// BUILD/lib/libgradlint_probe.so and BUILD/bin/gradlint-probe-replay, from BUILD/bin/gradlint.
std::string tracerLibraryPath();
std::string replayerPath();

} // namespace gradlint::probe
