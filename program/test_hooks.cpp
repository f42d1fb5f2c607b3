#include "program/test_hooks.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gradlint {

void deleteBeforeReadHook(const std::string& path) {
  const char* name = std::getenv("GRADLINT_TEST_DELETE_BEFORE_READ");
  if (name == nullptr || std::filesystem::path(path).filename() != name) return;
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

} // namespace gradlint
