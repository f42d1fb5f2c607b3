// Where a Python line's comment and its `# noqa` codes are, by byte offset in the line: what
// the "Disable GLxxx for this line" action edits and what hover looks at. The grammar is
// checkers/ir/suppressions.cpp's (docs/suppressions.md); this finds positions, not meaning.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::lsp {

struct LineComment {
  size_t start = std::string_view::npos; // the `#`, npos when the line has no comment
  // The line ends inside a string or with a backslash continuation: text appended to it would
  // not be a comment.
  bool continues = false;
};

// Scans one line of Python that starts outside a string.
LineComment findComment(std::string_view line);

struct NoqaCode {
  size_t start = 0;
  size_t end = 0;
  std::string code; // upper-cased
};

struct NoqaDirective {
  bool found = false;
  bool bare = false;   // `# noqa` with no code list: suppresses everything on the line
  size_t listEnd = 0;  // where another code is appended (after the last code or the colon)
  std::vector<NoqaCode> codes;
};

// The `# noqa` (or `# gradlint: noqa`) directive in the comment starting at `commentStart`.
NoqaDirective findNoqa(std::string_view line, size_t commentStart);

} // namespace gradlint::lsp
