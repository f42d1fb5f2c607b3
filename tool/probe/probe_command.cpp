#include "tool/probe/probe_command.h"

#include "program/install_layout.h"
#include "tool/probe/probe_report.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace gradlint::probe {
namespace {

namespace fs = std::filesystem;

constexpr int kExitError = 2;

fs::path executableDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : self.parent_path();
}

// `NAME=value:$NAME` (or `value` when NAME is unset or empty).
void prependToEnvironment(const char* name, const std::string& value, char separator) {
  const char* old = std::getenv(name);
  const std::string joined = old && *old ? value + separator + std::string(old) : value;
  setenv(name, joined.c_str(), 1);
}

// The pytest plugin (gradlint_pytest.py) beside the tracer: BUILD/lib/gradlint-probe.
std::string pytestPluginDir(const std::string& library) {
  return (fs::path(library).parent_path() / "gradlint-probe").string();
}

// Runs `command` with the tracer preloaded; returns its exit status as a shell reports it.
// pytest (and its xdist workers, which inherit the environment) loads the plugin that names
// each test for the tracer; other programs ignore the variables.
int runTraced(const std::vector<std::string>& command, const std::string& library,
              const std::string& outputFolder, const RunOptions& options) {
  std::vector<char*> args;
  for (const std::string& word : command) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << "gradlint: error: fork failed\n";
    return kExitError;
  }
  if (child == 0) {
    const char* preload = std::getenv("LD_PRELOAD");
    const std::string value =
        preload && *preload ? library + ":" + std::string(preload) : library;
    setenv("LD_PRELOAD", value.c_str(), 1);
    setenv("GRADLINT_PROBE_OUTPUT", outputFolder.c_str(), 1);
    setenv("GRADLINT_PROBE_LIBRARY", library.c_str(), 1);
    prependToEnvironment("PYTHONPATH", pytestPluginDir(library), ':');
    const char* addopts = std::getenv("PYTEST_ADDOPTS");
    const std::string plugin = "-p gradlint_pytest";
    setenv("PYTEST_ADDOPTS",
           (addopts && *addopts ? std::string(addopts) + " " + plugin : plugin).c_str(), 1);
    setenv("GRADLINT_PROBE_PER_TEST", options.perTest ? "1" : "0", 1);
    setenv("GRADLINT_PROBE_FAIL_LEAKING_TESTS", options.failLeakingTests ? "1" : "0", 1);
    execvp(args[0], args.data());
    std::cerr << fmt::format("gradlint: error: cannot run `{}`: {}\n", command[0],
                             std::strerror(errno));
    _exit(127);
  }
  // Ctrl-C reaches the child (same process group); the report is still printed after it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction oldInt {};
  sigaction(SIGINT, &ignore, &oldInt);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &oldInt, nullptr);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitError;
}

int runCommand(const RunOptions& options, const std::vector<std::string>& command) {
  const std::string& findingsPath = options.findingsPath;
  const std::string library = tracerLibraryPath();
  if (!fs::exists(library)) {
    std::cerr << fmt::format("gradlint: error: {} not found: this gradlint was built without "
                             "the probe (GRADLINT_WITH_PROBE=OFF)\n",
                             library);
    return kExitError;
  }
  nlohmann::json findings = nlohmann::json::array();
  if (!findingsPath.empty()) {
    std::ifstream in(findingsPath);
    if (!in) {
      std::cerr << fmt::format("gradlint: error: {}: cannot read\n", findingsPath);
      return kExitError;
    }
    findings = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!findings.is_array()) {
      std::cerr << fmt::format("gradlint: error: {}: not gradlint JSON output (an array of "
                               "findings, from `gradlint check --output-format json`)\n",
                               findingsPath);
      return kExitError;
    }
  }
  std::string folder = (fs::temp_directory_path() / "gradlint-probe-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) {
    std::cerr << "gradlint: error: cannot create a temporary folder\n";
    return kExitError;
  }
  // Read before the run: the command may write an executed copy next to the notebook.
  std::vector<std::string> errors;
  const std::vector<NotebookCell> cells = readNotebookCells(command, errors);
  const int status = runTraced(command, library, folder, options);
  const std::vector<nlohmann::json> reports = readTracerReports(folder, errors);
  std::error_code ec;
  fs::remove_all(folder, ec);
  for (const std::string& error : errors) std::cerr << "gradlint: warning: " << error << '\n';
  std::cout.flush();
  const size_t leaks = printRuntimeReport(reports, cells, std::cerr);
  if (!findingsPath.empty()) printVerdicts(runtimeVerdicts(findings, reports), std::cerr);
  if (!options.reportPath.empty()) {
    // Written whole to a temporary file, then renamed: a CI upload never sees half a report.
    const std::string partial = options.reportPath + ".partial";
    {
      std::ofstream out(partial, std::ios::trunc);
      if (out) writeRuntimeFindings(reports, cells, options.reportFormat, out);
      if (!out) {
        std::cerr << fmt::format("gradlint: error: {}: cannot write the report\n",
                                 options.reportPath);
        fs::remove(partial, ec);
        return kExitError;
      }
    }
    fs::rename(partial, options.reportPath, ec);
    if (ec) {
      std::cerr << fmt::format("gradlint: error: {}: cannot write the report: {}\n",
                               options.reportPath, ec.message());
      fs::remove(partial, ec);
      return kExitError;
    }
  }
  // The command's own failure wins; otherwise a leak fails the run, as a finding fails a check.
  if (status != 0) return status;
  return leaks > 0 ? 1 : 0;
}

} // namespace

std::string tracerLibraryPath() {
  // PREFIX/lib/gradlint/ once installed, build/lib/ in the build tree.
  return privateLibraryPath("libgradlint_probe.so").string();
}

std::string replayerPath() { return (executableDir() / "gradlint-probe-replay").string(); }

ProbeSubcommands addProbeSubcommands(CLI::App& probe, ProbeArguments& arguments) {
  probe.require_subcommand(1);
  RunOptions& runOptions = arguments.run;
  CLI::App* run = probe.add_subcommand(
      "run", "Run a command with the grad-mode tracer preloaded: gradlint probe run -- CMD...");
  run->add_option("--findings", runOptions.findingsPath,
                  "gradlint JSON output: give each finding a runtime verdict");
  run->add_flag("--per-test", runOptions.perTest,
                "pytest: give each test the session's grad/inference mode back and report a "
                "test that changed it");
  run->add_flag("--fail-leaking-tests", runOptions.failLeakingTests,
                "with --per-test: a test that changed the mode fails (in its teardown)");
  run->add_option("--report", runOptions.reportPath,
                  "also write the leaks as findings to this file (see --output-format)");
  run->add_option("--output-format", arguments.runFormat,
                  "format of --report: json (default; sarif for a .sarif file) or sarif")
      ->check(CLI::IsMember({"json", "sarif"}));
  CLI::App* replay =
      probe.add_subcommand("replay", "Replay findings (their witness) with real LibTorch");
  replay->add_option("findings", arguments.replayInput, "gradlint JSON output")->required();
  replay->add_option("--device", arguments.devices, "cpu, cuda or cpu,cuda")
      ->capture_default_str();
  replay->add_option("--output-format", arguments.replayFormat, "text or json")
      ->capture_default_str();
  return {run, replay};
}

int runProbeCommand(int argc, char** argv) {
  // Words after `--` are the command to run, taken before CLI11 sees them.
  std::vector<std::string> command;
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    command.assign(argv + i + 1, argv + argc);
    argc = i;
    break;
  }
  // Named, so that help and usage lines say `gradlint probe`, like the other commands'.
  CLI::App app{"gradlint probe: confirm findings against the real LibTorch runtime",
               "gradlint probe"};
  ProbeArguments arguments;
  const ProbeSubcommands subcommands = addProbeSubcommands(app, arguments);
  RunOptions& runOptions = arguments.run;
  const std::string& runFormat = arguments.runFormat;
  std::vector<std::string> words{"gradlint probe"};
  for (int i = 2; i < argc; ++i) words.emplace_back(argv[i]);
  try {
    std::vector<std::string> reversed(words.rbegin(), words.rend() - 1);
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitError;
  }
  if (subcommands.run->parsed()) {
    if (command.empty()) {
      std::cerr << "gradlint: error: give the command to run after `--`: gradlint probe run -- "
                   "python3 train.py\n";
      return kExitError;
    }
    if (runOptions.failLeakingTests && !runOptions.perTest) {
      std::cerr << "gradlint: error: --fail-leaking-tests needs --per-test\n";
      return kExitError;
    }
    if (!runFormat.empty() && runOptions.reportPath.empty()) {
      std::cerr << "gradlint: error: --output-format is the format of --report FILE; give "
                   "--report too (the summary on stderr is always text)\n";
      return kExitError;
    }
    runOptions.reportFormat = runFormat;
    if (runFormat.empty()) {
      runOptions.reportFormat =
          fs::path(runOptions.reportPath).extension() == ".sarif" ? "sarif" : "json";
    }
    return runCommand(runOptions, command);
  }
  const std::string replayer = replayerPath();
  if (!fs::exists(replayer)) {
    std::cerr << fmt::format("gradlint: error: {} not found: this gradlint was built without "
                             "the probe (GRADLINT_WITH_PROBE=OFF)\n",
                             replayer);
    return kExitError;
  }
  std::vector<std::string> replayCommand{replayer, arguments.replayInput, "--device",
                                         arguments.devices, "--output-format",
                                         arguments.replayFormat};
  std::vector<char*> args;
  for (std::string& word : replayCommand) args.push_back(word.data());
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::cerr << fmt::format("gradlint: error: cannot run {}: {}\n", replayer,
                           std::strerror(errno));
  return kExitError;
}

} // namespace gradlint::probe
