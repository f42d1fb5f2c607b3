#include "tool/probe/confirm.h"

#include "tool/probe/probe_command.h"
#include "tool/render.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace gradlint::probe {
namespace {

namespace fs = std::filesystem;

// Runs argv (no shell), returns its exit status, or -1 when it could not run.
int runProgram(std::vector<std::string> command) {
  std::vector<char*> args;
  for (std::string& word : command) args.push_back(word.data());
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

bool confirmFindings(CheckResult& result, const std::string& devices, std::string& error) {
  size_t count = 0;
  for (const FileReport& file : result.files) count += file.diagnostics.size();
  if (count == 0) return true;
  const std::string replayer = replayerPath();
  if (!fs::exists(replayer)) {
    error = fmt::format("--confirm: {} not found: this gradlint was built without the probe "
                        "(GRADLINT_WITH_PROBE=OFF)",
                        replayer);
    return false;
  }
  std::string folder = (fs::temp_directory_path() / "gradlint-confirm-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) {
    error = "--confirm: cannot create a temporary folder";
    return false;
  }
  const std::string input = folder + "/findings.json";
  const std::string output = folder + "/verdicts.json";
  {
    std::ofstream out(input);
    render(result, OutputFormat::Json, out);
  }
  const int status = runProgram({replayer, input, "--device", devices, "--output-format", "json",
                                 "--output", output});
  std::ifstream in(output);
  const nlohmann::json verdicts = nlohmann::json::parse(in, nullptr, false);
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (status != 0 || !verdicts.is_array() || verdicts.size() != count) {
    error = fmt::format("--confirm: {} failed (exit status {})", replayer, status);
    return false;
  }
  // The replayer answers in the order of the JSON output: files, then their findings.
  size_t index = 0;
  for (FileReport& file : result.files) {
    for (Diagnostic& d : file.diagnostics) {
      const nlohmann::json& confirmation = verdicts[index++]["confirmation"];
      if (!confirmation.is_object()) continue;
      for (const auto& [device, verdict] : confirmation.items()) {
        if (verdict.is_string()) d.confirmation.emplace_back(device, verdict.get<std::string>());
      }
    }
  }
  return true;
}

} // namespace gradlint::probe
