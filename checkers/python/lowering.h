// Lowering of parsed Python to the Grad IR.
#pragma once

#include "checkers/python/frontend.h"

#include <tree_sitter/api.h>

#include <vector>

namespace gradlint::python {

// `roots` are the module trees in source order (one, or one per definition after a syntax
// error). Appends the units to result.module, GL000 diagnostics, and suppressions.
void lowerModule(const SourceText& source, const ModuleContext& context,
                 const std::vector<TSNode>& roots, PythonFileResult& result);

} // namespace gradlint::python
