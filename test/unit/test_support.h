// Helpers shared by the unit tests: lower a Python snippet to the Grad IR.
#pragma once

#include "checkers/python/frontend.h"

#include <string>

namespace gradlint::testing {

inline python::PythonFileResult lowerSnippet(const std::string& code,
                                             const std::string& module = "snippet") {
  SourceText source("snippet.py", code);
  return python::analyzePythonFile(source, python::ModuleContext{module, false, true});
}

inline const ir::FunctionIR* findUnit(const python::PythonFileResult& result,
                                      const std::string& name) {
  for (const ir::FunctionIR& fn : result.module.units) {
    if (fn.name == name) return &fn;
  }
  return nullptr;
}

inline size_t countEvents(const ir::FunctionIR& fn, ir::EventKind kind) {
  size_t count = 0;
  for (const ir::Node& node : fn.nodes) count += node.event.kind == kind;
  return count;
}

} // namespace gradlint::testing
