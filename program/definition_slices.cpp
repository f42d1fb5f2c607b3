#include "program/definition_slices.h"

#include <algorithm>

namespace gradlint {
namespace {

bool isNameByte(char c) { return python::isWordChar(c) || static_cast<unsigned char>(c) >= 0x80; }

size_t wordEnd(std::string_view text, size_t at) {
  while (at < text.size() && isNameByte(text[at])) ++at;
  return at;
}

size_t skipBlanks(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

// The names a line binds when it starts (after its indentation) with `def NAME`, `async def
// NAME`, `class NAME` or an assignment `NAME = ...` / `NAME: T = ...` / `a, b = ...`.
void lineBindings(std::string_view line, std::vector<std::string>& out) {
  size_t at = skipBlanks(line, 0);
  auto keyword = [&](std::string_view word) {
    if (line.substr(at, word.size()) != word || at + word.size() >= line.size() ||
        (line[at + word.size()] != ' ' && line[at + word.size()] != '\t')) {
      return false;
    }
    at = skipBlanks(line, at + word.size());
    return true;
  };
  const bool isAsync = keyword("async");
  if (keyword("def") || (!isAsync && keyword("class"))) {
    const size_t end = wordEnd(line, at);
    if (end > at) out.emplace_back(line.substr(at, end - at));
    return;
  }
  if (isAsync) return;
  std::vector<std::string> targets;
  while (true) {
    const size_t end = wordEnd(line, at);
    if (end == at || (line[at] >= '0' && line[at] <= '9')) return;
    targets.emplace_back(line.substr(at, end - at));
    at = skipBlanks(line, end);
    if (at < line.size() && line[at] == ',') {
      at = skipBlanks(line, at + 1);
      continue;
    }
    break;
  }
  const bool assigns = at < line.size() &&
                       ((line[at] == '=' && (at + 1 >= line.size() || line[at + 1] != '=')) ||
                        line[at] == ':');
  if (assigns) out.insert(out.end(), targets.begin(), targets.end());
}

// The chunk of `layout` holding byte `at` (chunks are in order and cover the text).
size_t chunkAt(const python::ChunkLayout& layout, size_t at) {
  const auto after = std::upper_bound(
      layout.chunks.begin(), layout.chunks.end(), at,
      [](size_t offset, const python::SourceChunk& chunk) { return offset < chunk.start; });
  return after == layout.chunks.begin() ? 0
                                        : static_cast<size_t>(after - layout.chunks.begin()) - 1;
}

// `if TYPE_CHECKING:` (or a condition naming it, `if TYPE_CHECKING or SLOW_IMPORT:`): imports
// for type checkers, which a lazily importing package's `__init__.py` lists by the hundred and
// which do not run.
bool typeCheckingOnly(std::string_view text, const python::SourceChunk& chunk) {
  std::string_view body = text.substr(chunk.start, chunk.end - chunk.start);
  // Past the comments and blank lines a chunk may start with.
  while (!body.empty() && (body.front() == '#' || body.front() == '\n' || body.front() == ' ' ||
                           body.front() == '\t' || body.front() == '\r')) {
    const size_t end = body.front() == '#' ? body.find('\n') : 0;
    body = end == std::string_view::npos ? std::string_view() : body.substr(end + 1);
  }
  body = body.substr(0, body.find(':'));
  return body.starts_with("if ") && body.find("TYPE_CHECKING") != std::string_view::npos;
}

// `definitions`: whether each import sits in a definition; otherwise whether it runs at import.
std::vector<bool> placeImports(std::string_view text, const python::ChunkLayout& layout,
                               const std::vector<python::ImportStatement>& imports,
                               bool definitions) {
  std::vector<bool> out(imports.size(), false);
  if (layout.chunks.empty()) return out;
  // Line starts, once: the statements know their line, the chunks their bytes.
  std::vector<size_t> lineStarts{0};
  for (size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1)) {
    lineStarts.push_back(at + 1);
  }
  for (size_t s = 0; s < imports.size(); ++s) {
    const uint32_t line = imports[s].line;
    if (line == 0 || line > lineStarts.size()) continue;
    const python::SourceChunk& chunk = layout.chunks[chunkAt(layout, lineStarts[line - 1])];
    out[s] = definitions ? chunk.definition : !chunk.definition && !typeCheckingOnly(text, chunk);
  }
  return out;
}

std::vector<bool> atModuleLevel(std::string_view text, const python::ChunkLayout& layout,
                                const std::vector<python::ImportStatement>& imports) {
  return placeImports(text, layout, imports, false);
}

} // namespace

std::vector<bool> importsInDefinitions(std::string_view text,
                                       const std::vector<python::ImportStatement>& imports) {
  return placeImports(text, python::scanChunks(text, 0, false), imports, true);
}

std::vector<bool> importsAtModuleLevel(std::string_view text,
                                       const std::vector<python::ImportStatement>& imports) {
  return atModuleLevel(text, python::scanChunks(text, 0, false), imports);
}

DefinitionSlices::DefinitionSlices(std::string_view text,
                                   const std::vector<python::ImportStatement>& imports)
    : text_(text), imports_(imports), layout_(python::scanChunks(text, 0, false)) {
  scanned_.assign(layout_.chunks.size(), false);
  for (uint32_t i = 0; i < layout_.chunks.size(); ++i) {
    const python::SourceChunk& chunk = layout_.chunks[i];
    if (chunk.imports) continue; // bound through boundBy_
    const std::string_view body = text.substr(chunk.start, chunk.end - chunk.start);
    std::vector<std::string> names;
    // A definition binds its name; a compound statement (`if`, `try`) what its lines bind at
    // any depth (`try: ... except ImportError: def f(): ...`).
    size_t line = 0;
    while (line < body.size()) {
      size_t end = body.find('\n', line);
      if (end == std::string_view::npos) end = body.size();
      lineBindings(body.substr(line, end - line), names);
      if (chunk.definition && !names.empty()) break;
      line = end + 1;
    }
    for (std::string& name : names) definedBy_[std::move(name)].push_back(i);
  }
  for (uint32_t s = 0; s < imports.size(); ++s) {
    const python::ImportStatement& statement = imports[s];
    for (size_t n = 0; n < statement.bound.size(); ++n) {
      if (statement.bound[n] == "*") {
        stars_.push_back(s);
        continue;
      }
      boundBy_[statement.bound[n]].emplace_back(s, statement.isFrom ? static_cast<int32_t>(n) : -1);
    }
  }
}

void DefinitionSlices::use(uint32_t statement, int32_t name, size_t after,
                           std::unordered_map<uint64_t, ImportUse>& uses) {
  const uint64_t key = (uint64_t{statement} << 32) | static_cast<uint32_t>(name + 1);
  ImportUse& entry = uses[key];
  entry.statement = statement;
  entry.name = name;
  if (after == std::string_view::npos) return;
  // `import a.b.c` binds `a`: what is read of the module is what follows `a.b.c.`.
  size_t at = after;
  const python::ImportStatement& import = imports_[statement];
  if (!import.isFrom && import.bound[0] == import.module.substr(0, import.module.find('.'))) {
    const std::string rest = import.module.substr(import.bound[0].size());
    if (text_.substr(at, rest.size()) != rest) return;
    at += rest.size();
  }
  if (at >= text_.size() || text_[at] != '.') return;
  const size_t start = skipBlanks(text_, at + 1);
  const size_t end = wordEnd(text_, start);
  if (end > start) entry.attributes.emplace(text_.substr(start, end - start));
}

void DefinitionSlices::scanChunk(uint32_t chunk, std::vector<uint32_t>& pending,
                                 std::unordered_map<uint64_t, ImportUse>& uses) {
  const python::SourceChunk& range = layout_.chunks[chunk];
  auto inert = std::lower_bound(
      layout_.inert.begin(), layout_.inert.end(), range.start,
      [](const python::ByteRange& r, uint32_t at) { return r.end <= at; });
  size_t at = range.start;
  while (at < range.end) {
    if (inert != layout_.inert.end() && at >= inert->start) {
      at = std::max<size_t>(at, inert->end);
      ++inert;
      continue;
    }
    if (!isNameByte(text_[at])) {
      ++at;
      continue;
    }
    const size_t end = wordEnd(text_, at);
    size_t before = at;
    while (before > range.start && (text_[before - 1] == ' ' || text_[before - 1] == '\t')) {
      --before;
    }
    const bool attribute = before > range.start && text_[before - 1] == '.';
    if (!attribute) {
      const std::string word(text_.substr(at, end - at));
      if (const auto defined = definedBy_.find(word); defined != definedBy_.end()) {
        for (uint32_t other : defined->second) {
          if (!scanned_[other]) {
            scanned_[other] = true;
            pending.push_back(other);
          }
        }
      }
      if (const auto bound = boundBy_.find(word); bound != boundBy_.end()) {
        for (const auto& [statement, name] : bound->second) use(statement, name, end, uses);
      }
    }
    at = end;
  }
}

std::vector<ImportUse> DefinitionSlices::usesOf(const std::set<std::string>& names) {
  std::unordered_map<uint64_t, ImportUse> uses;
  std::vector<uint32_t> pending;
  std::set<std::string> elsewhere; // defined nowhere here: maybe bound by a star import
  for (const std::string& name : names) {
    if (!asked_.insert(name).second) continue;
    if (name == kTopLevelName) {
      // Importing the module runs its module-level imports and statements.
      const std::vector<bool> runs = atModuleLevel(text_, layout_, imports_);
      for (uint32_t s = 0; s < imports_.size(); ++s) {
        if (!runs[s]) continue;
        const python::ImportStatement& statement = imports_[s];
        if (!statement.isFrom) {
          use(s, -1, std::string_view::npos, uses);
          continue;
        }
        for (size_t n = 0; n < statement.names.size(); ++n) {
          use(s, statement.names[n] == "*" ? -1 : static_cast<int32_t>(n), std::string_view::npos,
              uses);
        }
      }
      for (uint32_t chunk = 0; chunk < layout_.chunks.size(); ++chunk) {
        const python::SourceChunk& range = layout_.chunks[chunk];
        if (range.definition || scanned_[chunk] || typeCheckingOnly(text_, range)) continue;
        scanned_[chunk] = true;
        pending.push_back(chunk);
      }
      continue;
    }
    bool found = false;
    if (const auto defined = definedBy_.find(name); defined != definedBy_.end()) {
      found = true;
      for (uint32_t chunk : defined->second) {
        if (!scanned_[chunk]) {
          scanned_[chunk] = true;
          pending.push_back(chunk);
        }
      }
    }
    if (const auto bound = boundBy_.find(name); bound != boundBy_.end()) {
      found = true;
      // A re-export: the name itself is what is asked of the import.
      for (const auto& [statement, index] : bound->second) {
        use(statement, index, std::string_view::npos, uses);
      }
    }
    if (!found) elsewhere.insert(name);
  }
  while (!pending.empty()) {
    const uint32_t chunk = pending.back();
    pending.pop_back();
    scanChunk(chunk, pending, uses);
  }
  std::vector<ImportUse> out;
  out.reserve(uses.size() + stars_.size());
  for (auto& [key, entry] : uses) out.push_back(std::move(entry));
  if (!elsewhere.empty()) {
    for (uint32_t statement : stars_) out.push_back({statement, -1, elsewhere});
  }
  std::sort(out.begin(), out.end(), [](const ImportUse& a, const ImportUse& b) {
    return std::tie(a.statement, a.name) < std::tie(b.statement, b.name);
  });
  return out;
}

std::vector<std::vector<std::string>>
attributesReadOf(std::string_view text, const std::vector<std::string>& expressions) {
  size_t longest = 0;
  for (const std::string& expression : expressions) longest = std::max(longest, expression.size());
  std::vector<std::set<std::string>> read(expressions.size());
  for (size_t dot = text.find('.'); dot != std::string_view::npos; dot = text.find('.', dot + 1)) {
    // The dotted name that ends at this dot, whole (`obj.np.` is not `np.`): never walked back
    // further than the longest expression, so a long chain costs no more than that per dot.
    size_t start = dot;
    auto inName = [&](size_t at) { return isNameByte(text[at]) || text[at] == '.'; };
    while (start > 0 && dot - start <= longest && inName(start - 1)) --start;
    if (start == dot || (start > 0 && inName(start - 1))) continue;
    const std::string_view name = text.substr(start, dot - start);
    const size_t end = wordEnd(text, dot + 1);
    if (end == dot + 1) continue;
    // Only what runs matters to grad mode: an attribute called (`p.f(...)`, `with p.C():`), one
    // whose own attributes are (`p.C.from_pretrained(...)`, `p.sub.f(...)`), or a decorator
    // (`@p.wrap`). Reading `p.float32` or naming `p.ndarray` in an annotation runs nothing.
    const size_t after = skipBlanks(text, end);
    size_t before = start;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    const bool runs = (after < text.size() && (text[after] == '(' || text[after] == '.')) ||
                      (before > 0 && text[before - 1] == '@');
    if (!runs) continue;
    for (size_t e = 0; e < expressions.size(); ++e) {
      if (name == expressions[e]) read[e].emplace(text.substr(dot + 1, end - dot - 1));
    }
  }
  std::vector<std::vector<std::string>> out;
  out.reserve(read.size());
  for (std::set<std::string>& names : read) out.emplace_back(names.begin(), names.end());
  return out;
}

} // namespace gradlint
