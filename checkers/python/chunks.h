// Splits a Python file into top-level chunks without parsing it: each top-level definition
// (with its decorators) and each run of module-level statements. The engine parses only the
// chunks that can matter to the selected rules (plus all module-level code, which holds the
// imports), so a large file that mentions torch.no_grad once costs one function's parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::python {

struct SourceChunk {
  uint32_t start = 0; // byte offset of the chunk's first line
  uint32_t end = 0;   // exclusive: the next chunk's start, or the end of the file
  bool definition = false; // def/async def/class (with decorators); else module-level code
};

struct ByteRange {
  uint32_t start = 0;
  uint32_t end = 0;
};

// One linear pass that tracks strings (including triple-quoted ones), comments, brackets and
// backslash continuations, so a `def` at column 0 inside a docstring is not a boundary.
std::vector<SourceChunk> splitTopLevel(std::string_view text, uint32_t contentStart);

// The byte ranges worth parsing: every definition chunk that contains one of `needles`, plus all
// module-level code (imports live there), merged where adjacent. Empty when no definition and
// no module-level code mentions a needle: the file cannot matter.
std::vector<ByteRange> relevantRanges(std::string_view text, const std::vector<SourceChunk>& chunks,
                                      const std::vector<std::string>& needles);

} // namespace gradlint::python
