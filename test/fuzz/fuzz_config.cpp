// libFuzzer target: bytes -> the configuration parser (toml++ and our validation), read both as
// a pyproject.toml ([tool.gradlint] table) and as a gradlint.toml (top level). A broken file
// must give a ConfigError naming the problem, never a crash or any other exception.
#include "program/config.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"/project/pyproject.toml", "/project/gradlint.toml"}) {
    try {
      const auto settings = gradlint::parseConfig(text, name);
      if (settings) {
        gradlint::CliSelection cli;
        (void)gradlint::enabledRules(*settings, cli, "/project/src/module.py");
        (void)gradlint::isExcluded(*settings, "/project/src/module.py");
      }
    } catch (const gradlint::ConfigError&) {
      // The expected answer to a broken file.
    }
  }
  return 0;
}
