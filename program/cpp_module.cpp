#include "program/cpp_module.h"

#include "checkers/cpp/checker_module.h"
#include "program/install_layout.h"
#include "rules/rule.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include <dlfcn.h>

namespace gradlint {
namespace {

struct LoadedModule {
  const cpp::CheckerModule* checker = nullptr;
  std::string error;
};

LoadedModule openModule() {
  LoadedModule loaded;
#ifndef GRADLINT_WITH_CPP
  loaded.error = "C++ checking needs gradlint's C++ module, and this gradlint was built without "
                 "it (GRADLINT_WITH_CPP=OFF)";
  return loaded;
#else
  const std::string path = privateLibraryPath("libgradlint-cpp.so").string();
  // RTLD_LOCAL: Clang's and LLVM's symbols stay out of the executable's namespace. The module is
  // never closed: the results it returns hold its code (destructors, shared_ptr deleters).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      // Missing: name where gradlint-cpp installs it, not the build tree's fallback path.
      loaded.error = fmt::format("C++ checking needs gradlint's C++ module: install gradlint-cpp "
                                 "({}: not found)",
                                 installedPrivateLibraryPath("libgradlint-cpp.so").string());
      return loaded;
    }
    loaded.error = fmt::format("C++ checking needs gradlint's C++ module: install gradlint-cpp "
                               "({})",
                               why != nullptr ? why : path);
    return loaded;
  }
  using EntryPoint = const cpp::CheckerModule* (*)(const char*);
  auto entry = reinterpret_cast<EntryPoint>(dlsym(handle, "gradlint_cpp_checker_module"));
  loaded.checker = entry != nullptr ? entry(cpp::kCheckerModuleAbi) : nullptr;
  if (loaded.checker == nullptr) {
    loaded.error = fmt::format("C++ checking needs gradlint's C++ module of this version: {} is "
                               "from another build (reinstall gradlint-cpp)",
                               path);
  }
  return loaded;
#endif
}

} // namespace

const cpp::CheckerModule* cppCheckerModule(std::string& error) {
  static const LoadedModule loaded = openModule();
  if (loaded.checker == nullptr) error = loaded.error;
  return loaded.checker;
}

const std::vector<cpp::RuleName>& cppRuleNames() {
  static const std::vector<cpp::RuleName> names = [] {
    std::vector<cpp::RuleName> out;
    for (const rules::Rule* rule : rules::allRules()) {
      out.push_back({std::string(rule->info().code), std::string(rule->info().name)});
    }
    return out;
  }();
  return names;
}

} // namespace gradlint
