// Lowering of parsed Python to the Grad IR.
#pragma once

#include "checkers/python/frontend.h"
#include "checkers/python/lowering_memo.h"

#include <tree_sitter/api.h>

#include <vector>

namespace gradlint::python {

// `roots` are the module trees in source order (one, or one per definition after a syntax
// error), `parsed` the byte ranges they were parsed from. Appends the units to result.module,
// GL000 diagnostics, and suppressions. With `memo`, top-level definitions it holds are taken
// from it, and it is left holding this lowering's.
void lowerModule(const SourceText& source, const ModuleContext& context,
                 const std::vector<TSNode>& roots, const std::vector<ByteRange>& parsed,
                 PythonFileResult& result, LoweringMemo* memo = nullptr);

} // namespace gradlint::python
