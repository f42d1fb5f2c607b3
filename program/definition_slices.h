// What the top-level definitions of a module need of its imports, from its text alone (no
// parse): the closure of a name over the module's own definitions (a function that calls a
// helper of the same module), and the imported names, with the attributes read of them
// (`np.linalg` of `import numpy as np`), that closure uses. Installed code is followed through
// these slices only (docs/context.md): what a checked file asks of a package is read, not the
// package.
#pragma once

#include "checkers/python/chunks.h"
#include "checkers/python/imports.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint {

struct ImportUse {
  uint32_t statement = 0; // index into the module's imports
  int32_t name = -1;      // a from-import's name (index); -1: the statement whole, or its star
  // Attributes read of the bound name (`X` of `np.X`); for a star import, the names looked for.
  std::set<std::string> attributes;
};

// For each plain `import m` / `import m as n` statement of a module (index into `imports`; others
// get an empty list), the attributes of its bound name that run code anywhere in `text`, sorted
// and unique: called (`X` of `n.X(...)`, `m.X(...)` of `import m`), used through (`n.X.f(...)`,
// `n.X.attr`) or as a decorator (`@n.X`): what the module asks of a package it imports whole.
// A text search (strings and comments count too: asking for a name too many only reads a
// little more); statements `wanted` rejects get an empty list. One pass over the text's dots.
// The list is empty when no statement reads anything.
template <typename Wanted>
std::vector<std::vector<std::string>> attributesRead(
    std::string_view text, const std::vector<python::ImportStatement>& imports, Wanted wanted);

// The name that asks for a module's top level: what importing the module runs. Its imports at
// module level (not inside a `def` or `class`) run, and so do the definitions its top-level
// statements use: `import pkg` runs `pkg/__init__.py`, which may import `pkg._setup`, whose top
// level runs in turn. Never a Python name, so no definition or import binds it.
inline constexpr std::string_view kTopLevelName = "<module>";

// For each of `imports` (scanImports of `text`), whether it sits at module level (under `if` or
// `try` too), outside every `def` and `class`: whether importing the module runs it.
std::vector<bool> importsAtModuleLevel(std::string_view text,
                                       const std::vector<python::ImportStatement>& imports);

// For each of `imports`, whether it sits inside a `def` or `class` (it runs when that does),
// rather than at module level (an `if TYPE_CHECKING:` block counts as module level here: a lazy
// package runs those imports when the names they bind are asked for).
std::vector<bool> importsInDefinitions(std::string_view text,
                                       const std::vector<python::ImportStatement>& imports);

class DefinitionSlices {
public:
  // `text` and `imports` (scanImports of it) must outlive the object.
  DefinitionSlices(std::string_view text, const std::vector<python::ImportStatement>& imports);

  // The imports the definitions of `names` use, counting only what no earlier call scanned: a
  // definition is scanned once however often it is asked for. kTopLevelName asks for what the
  // module's top level runs: its module-level imports, and what its statements use.
  std::vector<ImportUse> usesOf(const std::set<std::string>& names);

private:
  void scanChunk(uint32_t chunk, std::vector<uint32_t>& pending,
                 std::unordered_map<uint64_t, ImportUse>& uses);
  void use(uint32_t statement, int32_t name, size_t after,
           std::unordered_map<uint64_t, ImportUse>& uses);

  std::string_view text_;
  const std::vector<python::ImportStatement>& imports_;
  python::ChunkLayout layout_;
  std::vector<bool> scanned_; // per chunk
  std::unordered_map<std::string, std::vector<uint32_t>> definedBy_; // name -> chunks
  // name -> (statement, name index) of the imports that bind it
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, int32_t>>> boundBy_;
  std::vector<uint32_t> stars_; // statements `from m import *`
  std::set<std::string> asked_;
};

// For each of `expressions` (`np`, `a.b`), the attributes read of it in `text`.
std::vector<std::vector<std::string>> attributesReadOf(std::string_view text,
                                                       const std::vector<std::string>& expressions);

template <typename Wanted>
std::vector<std::vector<std::string>> attributesRead(
    std::string_view text, const std::vector<python::ImportStatement>& imports, Wanted wanted) {
  std::vector<std::string> expressions;
  std::vector<size_t> statements;
  for (size_t s = 0; s < imports.size(); ++s) {
    const python::ImportStatement& statement = imports[s];
    if (statement.isFrom || statement.bound.empty() || !wanted(statement)) continue;
    // `import a.b` binds `a`, read as `a.b.X`; `import a.b as n` binds `n`, read as `n.X`.
    const bool aliased =
        statement.bound[0] != statement.module.substr(0, statement.module.find('.'));
    expressions.push_back(aliased ? statement.bound[0] : statement.module);
    statements.push_back(s);
  }
  std::vector<std::vector<std::string>> out;
  if (expressions.empty()) return out;
  std::vector<std::vector<std::string>> read = attributesReadOf(text, expressions);
  for (size_t e = 0; e < expressions.size(); ++e) {
    if (read[e].empty()) continue;
    out.resize(imports.size());
    out[statements[e]] = std::move(read[e]);
  }
  return out;
}

} // namespace gradlint
