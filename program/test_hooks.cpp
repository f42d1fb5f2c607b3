#include "program/test_hooks.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace gradlint {

void deleteBeforeReadHook(const std::string& path) {
  const char* name = std::getenv("GRADLINT_TEST_DELETE_BEFORE_READ");
  if (name == nullptr || std::filesystem::path(path).filename() != name) return;
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

namespace {

void appendIfNamed(const char* variable, const std::string& path) {
  const char* name = std::getenv(variable);
  if (name == nullptr || std::filesystem::path(path).filename() != name) return;
  std::ofstream(path, std::ios::app) << "# edited\n";
}

} // namespace

void changeBeforeRereadHook(const std::string& path) {
  appendIfNamed("GRADLINT_TEST_CHANGE_BEFORE_REREAD", path);
}

void changeBeforeFixWriteHook(const std::string& path) {
  appendIfNamed("GRADLINT_TEST_CHANGE_BEFORE_FIX_WRITE", path);
}

size_t wholeIrBudgetHook(size_t bytes) {
  const char* value = std::getenv("GRADLINT_TEST_WHOLE_IR_BUDGET");
  return value == nullptr ? bytes : std::strtoull(value, nullptr, 10);
}

size_t keptTextBudgetHook(size_t bytes) {
  const char* value = std::getenv("GRADLINT_TEST_KEPT_TEXT_BUDGET");
  return value == nullptr ? bytes : std::strtoull(value, nullptr, 10);
}

} // namespace gradlint
