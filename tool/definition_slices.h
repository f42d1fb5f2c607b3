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

class DefinitionSlices {
public:
  // `text` and `imports` (scanImports of it) must outlive the object.
  DefinitionSlices(std::string_view text, const std::vector<python::ImportStatement>& imports);

  // The imports the definitions of `names` use, counting only what no earlier call scanned: a
  // definition is scanned once however often it is asked for.
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

} // namespace gradlint
