#include "checkers/python/imports.h"

#include "checkers/python/chunks.h"
#include "checkers/python/plain_bytes.h"

#include <cstring>

namespace gradlint::python {
namespace {

// One logical line (brackets and backslashes joined), comments and strings blanked.
struct LogicalLine {
  std::string text;
  uint32_t line = 0;
};

size_t skipSpaces(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

std::string_view word(std::string_view text, size_t& at) {
  at = skipSpaces(text, at);
  const size_t start = at;
  // Identifiers may be non-ASCII: any byte of a UTF-8 sequence belongs to the word.
  while (at < text.size() &&
         (isWordChar(text[at]) || static_cast<unsigned char>(text[at]) >= 0x80)) {
    ++at;
  }
  return text.substr(start, at - start);
}

// A dotted name at `at` (`a.b.c`), spaces around the dots allowed as Python allows them.
std::string dottedName(std::string_view text, size_t& at) {
  std::string name(word(text, at));
  while (!name.empty()) {
    const size_t dot = skipSpaces(text, at);
    if (dot >= text.size() || text[dot] != '.') break;
    size_t next = dot + 1;
    const std::string_view part = word(text, next);
    if (part.empty()) break;
    name += '.';
    name += part;
    at = next;
  }
  return name;
}

bool keyword(std::string_view text, size_t& at, std::string_view expected) {
  size_t next = at;
  if (word(text, next) != expected) return false;
  at = next;
  return true;
}

void parseStatement(std::string_view text, uint32_t line, std::vector<ImportStatement>& out) {
  size_t at = 0;
  ImportStatement statement;
  statement.line = line;
  if (keyword(text, at, "import")) {
    while (true) {
      ImportStatement one = statement;
      one.module = dottedName(text, at);
      if (one.module.empty()) return;
      if (keyword(text, at, "as")) {
        one.bound.emplace_back(word(text, at));
      } else {
        one.bound.push_back(one.module.substr(0, one.module.find('.')));
      }
      out.push_back(std::move(one));
      at = skipSpaces(text, at);
      if (at >= text.size() || text[at] != ',') return;
      ++at;
    }
  }
  if (!keyword(text, at, "from")) return;
  statement.isFrom = true;
  at = skipSpaces(text, at);
  while (at < text.size() && text[at] == '.') {
    ++statement.level;
    at = skipSpaces(text, at + 1);
  }
  size_t afterModule = at;
  if (!keyword(text, afterModule, "import")) {
    statement.module = dottedName(text, at);
    if (statement.module.empty() || !keyword(text, at, "import")) return;
  } else {
    at = afterModule;
  }
  if (statement.level == 0 && statement.module.empty()) return;
  at = skipSpaces(text, at);
  if (at < text.size() && text[at] == '(') ++at;
  while (true) {
    at = skipSpaces(text, at);
    if (at < text.size() && text[at] == '*') {
      statement.names.emplace_back("*");
      statement.bound.emplace_back("*");
      break;
    }
    const std::string_view name = word(text, at);
    if (name.empty()) break;
    statement.names.emplace_back(name);
    statement.bound.emplace_back(keyword(text, at, "as") ? word(text, at) : name);
    at = skipSpaces(text, at);
    if (at >= text.size() || text[at] != ',') break;
    ++at;
  }
  out.push_back(std::move(statement));
}

} // namespace

std::vector<ImportStatement> scanImports(std::string_view text) {
  std::vector<ImportStatement> out;
  std::string logical; // the statement being collected, strings blanked
  uint32_t line = 1;
  uint32_t logicalStart = 1;
  int depth = 0;
  // Only a statement's first word can start an import; other statements are skipped without
  // being collected (most of a file).
  bool atStatementStart = true;
  bool collecting = false;
  const size_t size = text.size();
  size_t i = 0;
  auto finish = [&] {
    if (collecting) parseStatement(logical, logicalStart, out);
    logical.clear();
    collecting = false;
    depth = 0;
  };
  auto startsWord = [&](size_t at, std::string_view word) {
    return text.substr(at, word.size()) == word &&
           (at + word.size() >= size || !isWordChar(text[at + word.size()]));
  };
  while (i < size) {
    if (atStatementStart) {
      i = skipSpaces(text, i);
      if (i >= size) break;
      atStatementStart = false;
      logicalStart = line;
      collecting = startsWord(i, "import") || startsWord(i, "from");
    }
    if (!collecting) {
      i = skipPlainBytes<PlainRun::CodeToStatementEnd>(text, i);
      if (i >= size) break;
    }
    const char c = text[i];
    if (c == '#') {
      const void* newline = std::memchr(text.data() + i, '\n', size - i);
      i = newline == nullptr ? size : static_cast<const char*>(newline) - text.data();
      continue;
    }
    if (c == '"' || c == '\'') {
      // A string: skipped whole (triple-quoted ones across lines), leaving a blank in its place.
      const bool triple = i + 2 < size && text[i + 1] == c && text[i + 2] == c;
      const size_t quoteLength = triple ? 3 : 1;
      i += quoteLength;
      while (i < size) {
        // Plain string bytes in one tight loop: only quotes, backslashes and line ends matter.
        i = skipPlainBytes<PlainRun::String>(text, i);
        if (i >= size) break;
        if (text[i] == '\\') {
          if (i + 1 < size && text[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        if (text[i] == '\n') {
          ++line;
          if (!triple) break; // an unterminated string ends at the line
        }
        if (text[i] == c &&
            (!triple || (i + 2 < size && text[i + 1] == c && text[i + 2] == c))) {
          i += quoteLength;
          break;
        }
        ++i;
      }
      if (collecting) logical += ' ';
      continue;
    }
    if (c == '\\' && i + 1 < size && text[i + 1] == '\n') {
      i += 2;
      ++line;
      if (collecting) logical += ' ';
      continue;
    }
    if (c == '\n') {
      ++line;
      ++i;
      if (depth > 0) {
        if (collecting) logical += ' ';
        continue;
      }
      finish();
      atStatementStart = true;
      continue;
    }
    if ((c == ';' || c == ':') && depth == 0) {
      // `a; import x`, and `try: import x` / `if ok: import x`: what follows is a statement.
      finish();
      ++i;
      atStatementStart = true;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (collecting) logical += c;
    ++i;
  }
  finish();
  return out;
}

std::string absoluteImport(const ImportStatement& statement, const std::string& importer,
                           bool isPackageInit) {
  if (statement.level == 0) return statement.module;
  // One dot is the importer's package: the module itself for an __init__, else its parent.
  std::string package = importer;
  int climb = statement.level - (isPackageInit ? 1 : 0);
  for (; climb > 0; --climb) {
    const size_t dot = package.rfind('.');
    if (dot == std::string::npos) return {}; // above the top-level package
    package.resize(dot);
  }
  if (package.empty()) return {};
  if (statement.module.empty()) return package;
  return package + "." + statement.module;
}

} // namespace gradlint::python
