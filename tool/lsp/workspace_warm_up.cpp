#include "tool/lsp/workspace_warm_up.h"

#include "program/config.h"
#include "program/discover.h"
#include "program/project_context.h"
#include "program/read_file.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

namespace gradlint::lsp {

WorkspaceModules collectWorkspaceModules(const std::string& root, const WarmUpLimits& limits) {
  const auto start = std::chrono::steady_clock::now();
  WorkspaceModules result;
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::absolute(root, ec).lexically_normal();
  if (!std::filesystem::is_directory(folder, ec) || !findProjectRoot(folder)) {
    result.trace = fmt::format("workspace {}: no warm-up (not a project folder)", root);
    return result;
  }
  std::vector<FileInput> inputs;
  size_t bytes = 0;
  try {
    ConfigResolver configs(std::nullopt);
    DiscoveryOptions discovery; // as `gradlint check ROOT`
    excludeByConfigurations(discovery, configs);
    DiscoveryResult found = discoverFiles({folder.string()}, discovery);
    for (SourceFileRef& ref : found.files) {
      if (!isPythonPath(ref.path)) continue;
      std::string text;
      std::string error;
      // An unreadable file is left to the analysis of a document that imports it.
      if (!readWholeFile(ref.path, text, error)) continue;
      bytes += text.size();
      if (inputs.size() >= limits.maxFiles || bytes > limits.maxBytes) {
        result.trace = fmt::format(
            "workspace {}: no warm-up (more than {} Python files or {} MiB of them)",
            folder.string(), limits.maxFiles, limits.maxBytes >> 20);
        return result;
      }
      FileInput input;
      input.ref = std::move(ref);
      input.contents = std::move(text);
      inputs.push_back(std::move(input));
    }
    result.projectModules = inputs.size();
    ContextSettings settings;
    settings.paths = {folder.string()};
    settings.threads = 0;
    ContextReport report;
    addProgramContext(settings, inputs, report);
  } catch (const std::exception& error) {
    result.problems.push_back(fmt::format("workspace warm-up of {}: {}", folder.string(),
                                          error.what()));
    return result;
  }
  for (FileInput& input : inputs) {
    input.context = true;
    if (input.contents) continue;
    std::string text;
    std::string error;
    if (readWholeFile(input.ref.path, text, error)) input.contents = std::move(text);
  }
  std::erase_if(inputs, [](const FileInput& input) { return !input.contents; });
  result.modules = std::move(inputs);
  result.trace = fmt::format(
      "workspace {}: warm-up: {} files of the workspace and {} modules they import from "
      "elsewhere found in {:.0f} ms",
      folder.string(), result.projectModules, result.modules.size() - result.projectModules,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count());
  return result;
}

} // namespace gradlint::lsp
