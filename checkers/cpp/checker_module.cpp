// libgradlint-cpp.so's entry point (checker_module.h): forwards to the LibTooling frontend.
#include "checkers/cpp/checker_module.h"

#include <cstring>

namespace gradlint::cpp {
namespace {

class LibToolingChecker final : public CheckerModule {
public:
  std::shared_ptr<const CompileCommands> loadCompileCommands(const CompileOptions& options,
                                                             std::string& error) const override {
    return CompileCommands::load(options, error);
  }
  CppFileResult analyzeFile(const SourceText& source, const CompileCommands* commands,
                            const std::vector<RuleName>& ruleNames) const override {
    return analyzeCppFile(source, commands, ruleNames);
  }
};

} // namespace
} // namespace gradlint::cpp

extern "C" __attribute__((visibility("default"))) const gradlint::cpp::CheckerModule*
gradlint_cpp_checker_module(const char* abi) {
  if (abi == nullptr || std::strcmp(abi, gradlint::cpp::kCheckerModuleAbi) != 0) return nullptr;
  static const gradlint::cpp::LibToolingChecker checker;
  return &checker;
}
