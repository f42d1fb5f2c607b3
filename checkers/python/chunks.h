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
  bool definition = false; // def/async def/class (with decorators); else a module statement
  bool imports = false;    // a module statement that imports (always parsed: names resolve)
};

struct ByteRange {
  uint32_t start = 0;
  uint32_t end = 0;
};

// One linear pass that tracks strings (including triple-quoted ones), comments, brackets and
// backslash continuations, so a `def` at column 0 inside a docstring is not a boundary.
std::vector<SourceChunk> splitTopLevel(std::string_view text, uint32_t contentStart);

// Names bound by `import x as NAME` / `from m import x as NAME` where the imported name
// contains one of `needles`: calls through the alias mention only NAME.
std::vector<std::string> importAliases(std::string_view text, const std::vector<SourceChunk>& chunks,
                                       const std::vector<std::string>& needles);

enum class Match : uint8_t {
  Substring, // rule markers: `grad_enabled` matches `set_grad_enabled`
  Marker,    // like Substring, but not a name right after `def` (`def backward(ctx, g):` of an
             // autograd Function calls nothing; a call elsewhere in the chunk still counts)
  Word,      // function names: whole identifiers, in one pass whatever their number
  Use, // like Word, but not where no call can resolve to the name: after `def`, or `).NAME`
};

// Marks the chunks that contain one of `needles` (`chosen` has one flag per chunk and keeps
// earlier marks). Returns true when a chunk was newly marked.
bool chooseChunks(std::string_view text, const std::vector<SourceChunk>& chunks,
                  const std::vector<std::string>& needles, std::vector<bool>& chosen,
                  Match match = Match::Substring);

// The byte ranges worth parsing: the chosen chunks plus every import, merged where adjacent.
// Empty when no chunk is chosen.
std::vector<ByteRange> chosenRanges(const std::vector<SourceChunk>& chunks,
                                    const std::vector<bool>& chosen);

} // namespace gradlint::python
