#include "tool/probe/probe_command.h"

#include "tool/install_layout.h"
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

// Runs `command` with the tracer preloaded; returns its exit status as a shell reports it.
int runTraced(const std::vector<std::string>& command, const std::string& library,
              const std::string& outputFolder) {
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

int runCommand(const std::string& findingsPath, const std::vector<std::string>& command) {
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
  const int status = runTraced(command, library, folder);
  std::vector<std::string> errors;
  const std::vector<nlohmann::json> reports = readTracerReports(folder, errors);
  std::error_code ec;
  fs::remove_all(folder, ec);
  for (const std::string& error : errors) std::cerr << "gradlint: warning: " << error << '\n';
  std::cout.flush();
  const size_t leaks = printRuntimeReport(reports, std::cerr);
  if (!findingsPath.empty()) printVerdicts(runtimeVerdicts(findings, reports), std::cerr);
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

int runProbeCommand(int argc, char** argv) {
  // Words after `--` are the command to run, taken before CLI11 sees them.
  std::vector<std::string> command;
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    command.assign(argv + i + 1, argv + argc);
    argc = i;
    break;
  }
  CLI::App app{"gradlint probe: confirm findings against the real LibTorch runtime"};
  app.require_subcommand(1);
  std::string findingsPath;
  CLI::App* run = app.add_subcommand(
      "run", "Run a command with the grad-mode tracer preloaded: gradlint probe run -- CMD...");
  run->add_option("--findings", findingsPath,
                  "gradlint JSON output: give each finding a runtime verdict");
  std::string replayInput;
  std::string devices = "cpu";
  std::string format = "text";
  CLI::App* replay =
      app.add_subcommand("replay", "Replay findings (their witness) with real LibTorch");
  replay->add_option("findings", replayInput, "gradlint JSON output")->required();
  replay->add_option("--device", devices, "cpu, cuda or cpu,cuda")->capture_default_str();
  replay->add_option("--output-format", format, "text or json")->capture_default_str();
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
  if (run->parsed()) {
    if (command.empty()) {
      std::cerr << "gradlint: error: give the command to run after `--`: gradlint probe run -- "
                   "python3 train.py\n";
      return kExitError;
    }
    return runCommand(findingsPath, command);
  }
  const std::string replayer = replayerPath();
  if (!fs::exists(replayer)) {
    std::cerr << fmt::format("gradlint: error: {} not found: this gradlint was built without "
                             "the probe (GRADLINT_WITH_PROBE=OFF)\n",
                             replayer);
    return kExitError;
  }
  std::vector<std::string> replayCommand{replayer, replayInput, "--device", devices,
                                         "--output-format", format};
  std::vector<char*> args;
  for (std::string& word : replayCommand) args.push_back(word.data());
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::cerr << fmt::format("gradlint: error: cannot run {}: {}\n", replayer,
                           std::strerror(errno));
  return kExitError;
}

} // namespace gradlint::probe
