// What the fuzz targets that run the check share: every rule's code, a checked input with all
// of them enabled, and rendering a result in every output format.
#pragma once

#include "program/engine.h"
#include "rules/rule.h"
#include "tool/render.h"

#include <sstream>
#include <string>
#include <vector>

namespace gradlint::fuzz {

inline std::vector<std::string> everyRuleCode() {
  std::vector<std::string> codes;
  for (const rules::Rule* rule : rules::allRules()) codes.emplace_back(rule->info().code);
  return codes;
}

// `text` as the file `path` of module pkg.fuzzed (a package module, so the import-time rules
// such as GL102 run too), checked with every rule, preview ones included.
inline FileInput inputFor(const char* path, std::string text) {
  FileInput input;
  input.ref.path = path;
  input.ref.moduleName = "pkg.fuzzed";
  input.ref.inPackage = true;
  input.contents = std::move(text);
  static const auto kAllCodes = std::make_shared<const std::vector<std::string>>(everyRuleCode());
  input.enabledRules = kAllCodes;
  return input;
}

inline void renderEveryFormat(const CheckResult& result) {
  for (OutputFormat format : {OutputFormat::Full, OutputFormat::Concise, OutputFormat::Json,
                              OutputFormat::JsonLines, OutputFormat::Github, OutputFormat::Sarif,
                              OutputFormat::Junit}) {
    std::ostringstream out;
    render(result, format, out);
  }
  std::ostringstream statistics;
  renderStatistics(result, statistics);
}

} // namespace gradlint::fuzz
