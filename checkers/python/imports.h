// The import statements of a Python file, found without parsing it: what the project context
// follows to reach the modules a checked file depends on (program/project_context.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::python {

struct ImportStatement {
  int level = 0;      // leading dots of `from ..m import x`; 0 for absolute imports
  std::string module; // `a.b` of `import a.b` / `from a.b import c`; may be empty (`from . import`)
  std::vector<std::string> names; // `from m import c, d`: c, d (`*` for a star import)
  std::vector<std::string> bound; // the names the statement binds (`as` names where given)
  bool isFrom = false;
  uint32_t line = 0; // 1-based
};

// Every `import`/`from ... import` statement of `text`, at any depth (imports under `if`, `try`
// or in functions count too), skipping strings and comments. One linear pass.
std::vector<ImportStatement> scanImports(std::string_view text);

// The absolute name `statement` imports from a module named `importer` (a package's
// `__init__` when `isPackageInit`); empty when a relative import climbs above the top package.
std::string absoluteImport(const ImportStatement& statement, const std::string& importer,
                           bool isPackageInit);

} // namespace gradlint::python
