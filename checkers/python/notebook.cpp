#include "checkers/python/notebook.h"

#include "checkers/ir/diagnostic.h"
#include "checkers/ir/json_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace gradlint {
namespace {

using nlohmann::json;

// IPython's automagics (line magics callable without `%`), as Ruff lists them: a cell that starts
// with one is a shell-like cell (Jupyter allows no Python after it), so it is skipped whole.
constexpr std::array<std::string_view, 81> kAutomagics = {
    "alias",     "alias_magic", "autoawait", "autocall",  "automagic", "bookmark",  "cd",
    "code_wrap", "colors",      "conda",     "config",    "debug",     "dhist",     "dirs",
    "doctest_mode", "edit",     "env",       "gui",       "history",   "killbgscripts", "load",
    "load_ext",  "loadpy",      "logoff",    "logon",     "logstart",  "logstate",  "logstop",
    "lsmagic",   "macro",       "magic",     "mamba",     "matplotlib", "micromamba", "notebook",
    "page",      "pastebin",    "pdb",       "pdef",      "pdoc",      "pfile",     "pinfo",
    "pinfo2",    "pip",         "popd",      "pprint",    "precision", "prun",      "psearch",
    "psource",   "pushd",       "pwd",       "pycat",     "pylab",     "quickref",  "recall",
    "rehashx",   "reload_ext",  "rerun",     "reset",     "reset_selective", "run", "save",
    "sc",        "set_env",     "sx",        "system",    "tb",        "time",      "timeit",
    "unalias",   "unload_ext",  "who",       "who_ls",    "whos",      "xdel",      "xmode",
    "ls",        "cat",         "mkdir",     "rm"};

// Cell magics whose body is still Python run by the same kernel (Ruff's "transparent" ones);
// any other (`%%bash`, `%%writefile`, `%%html`, ...) makes the cell another language.
constexpr std::array<std::string_view, 8> kPythonCellMagics = {
    "capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"};

bool isSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view firstWord(std::string_view line) {
  size_t start = 0;
  while (start < line.size() && isSpace(line[start])) ++start;
  size_t end = start;
  while (end < line.size() && !isSpace(line[end]) && line[end] != '\n' && line[end] != '\r') ++end;
  return line.substr(start, end - start);
}

// Lines of `code`, each with its terminator.
std::vector<std::string_view> linesOf(std::string_view code) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < code.size()) {
    size_t end = code.find('\n', at);
    end = end == std::string_view::npos ? code.size() : end + 1;
    lines.push_back(code.substr(at, end - at));
    at = end;
  }
  return lines;
}

bool isPythonCell(std::string_view code) {
  const std::vector<std::string_view> lines = linesOf(code);
  for (std::string_view line : lines) {
    if (firstWord(line).empty()) continue;
    const std::string_view word = firstWord(line);
    // `pip install x` is an automagic; `pip = 3` or `cd(...)` is Python.
    const bool automagic =
        std::find(kAutomagics.begin(), kAutomagics.end(), word) != kAutomagics.end() &&
        line.find('=') == std::string_view::npos && line.find('(') == std::string_view::npos;
    if (automagic) return false;
    break;
  }
  bool first = true;
  for (std::string_view line : lines) {
    const std::string_view word = firstWord(line);
    if (word.starts_with("%%")) {
      const std::string_view name = word.substr(2);
      const bool python = std::find(kPythonCellMagics.begin(), kPythonCellMagics.end(), name) !=
                          kPythonCellMagics.end();
      if (!first || !python) return false;
    }
    if (!word.empty()) first = false;
  }
  return true;
}

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || static_cast<unsigned char>(c) >= 0x80;
}

// IPython syntax on one line: `%magic`, `!cmd`, `?obj`, `obj?`, `x = !cmd`, `x = %magic`, a
// first-line `%%time`.
bool isMagicLine(std::string_view line) {
  size_t start = 0;
  while (start < line.size() && isSpace(line[start])) ++start;
  std::string_view rest = line.substr(start);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r' || isSpace(rest.back()))) {
    rest.remove_suffix(1);
  }
  if (rest.empty()) return false;
  if (rest[0] == '%' || rest[0] == '!' || rest[0] == '?') return true;
  // `obj?` / `obj.attr??`: help on a name.
  if (rest.back() == '?') {
    std::string_view name = rest;
    while (!name.empty() && name.back() == '?') name.remove_suffix(1);
    return !name.empty() && std::all_of(name.begin(), name.end(), isIdentifierChar);
  }
  // `files = !ls`, `t = %timeit -o f()`.
  const size_t equals = rest.find('=');
  if (equals != std::string_view::npos && equals + 1 < rest.size() && rest[equals + 1] != '=') {
    const std::string_view target = rest.substr(0, equals);
    size_t value = equals + 1;
    while (value < rest.size() && isSpace(rest[value])) ++value;
    const bool targetIsNames = !target.empty() && std::all_of(target.begin(), target.end(), [](char c) {
      return isIdentifierChar(c) || isSpace(c) || c == ',';
    });
    if (targetIsNames && value < rest.size() && (rest[value] == '!' || rest[value] == '%')) {
      return true;
    }
  }
  return false;
}

// What IPython strips from a cell before compiling it (inputtransformer2's leading_indent,
// classic_prompt and ipython_prompt): a common indentation, or the prompts of code pasted from a console or a doctest, `>>> x = 1` /
// `... `, or `In [3]: x = 1` / `   ...: `. As IPython does, the prompts of a cell are stripped
// only when its first line has one (or, for `...`-continuations, its second line), each line's
// first prompt only. Returns (offset in the cell, length) of each prompt.
std::vector<std::pair<uint32_t, uint32_t>> promptsOf(std::string_view code) {
  std::vector<std::string_view> lines = linesOf(code);
  size_t first = 0; // IPython drops leading empty lines first
  while (first < lines.size() && lines[first].find_first_not_of(" \t\r\n") == std::string_view::npos) {
    ++first;
  }
  // `>>>` or `...` followed by a space or the line's end.
  auto classic = [](std::string_view line, bool initial) -> size_t {
    for (std::string_view prompt : {std::string_view(">>>"), std::string_view("...")}) {
      if (initial && prompt == "...") break;
      if (!line.starts_with(prompt)) continue;
      const std::string_view rest = line.substr(3);
      if (rest.empty() || rest.front() == '\n' || rest.front() == '\r') return 3;
      if (rest.front() == ' ') return 4;
    }
    return 0;
  };
  // `In [12]: ` or spaces, three or more dots, a colon and an optional space.
  auto ipython = [](std::string_view line, bool) -> size_t {
    if (line.starts_with("In [")) {
      size_t at = 4;
      while (at < line.size() && line[at] >= '0' && line[at] <= '9') ++at;
      if (at > 4 && line.substr(at).starts_with("]: ")) return at + 3;
      return 0;
    }
    size_t at = 0;
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    const size_t dots = at;
    while (at < line.size() && line[at] == '.') ++at;
    if (at - dots < 3 || at >= line.size() || line[at] != ':') return 0;
    ++at;
    if (at < line.size() && line[at] == ' ') ++at;
    return at;
  };
  std::vector<std::pair<uint32_t, uint32_t>> prompts;
  if (first < lines.size() && (lines[first].front() == ' ' || lines[first].front() == '\t')) {
    // IPython's leading_indent: a cell whose first line is indented (code pasted from inside a
    // block) loses that indentation on every line that has it.
    const std::string_view line = lines[first];
    const std::string_view indent = line.substr(0, line.find_first_not_of(" \t"));
    uint32_t at = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i >= first && lines[i].starts_with(indent)) {
        prompts.emplace_back(at, static_cast<uint32_t>(indent.size()));
      }
      at += static_cast<uint32_t>(lines[i].size());
    }
    return prompts;
  }
  using Matcher = size_t (*)(std::string_view, bool);
  for (Matcher match : {static_cast<Matcher>(classic), static_cast<Matcher>(ipython)}) {
    if (first >= lines.size()) break;
    const bool applies = match(lines[first], true) > 0 ||
                         (first + 1 < lines.size() && match(lines[first + 1], false) > 0);
    if (!applies) continue;
    uint32_t at = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i >= first) {
        if (const size_t length = match(lines[i], false); length > 0) {
          prompts.emplace_back(at, static_cast<uint32_t>(length));
        }
      }
      at += static_cast<uint32_t>(lines[i].size());
    }
    break; // a cell pasted from one console has one kind of prompt
  }
  return prompts;
}

// Replaces the magic lines of a cell with text of the same length that parses: spaces, or `pass`
// (`0` when shorter) at an indentation where a block may need a statement.
std::string blankMagics(std::string_view code) {
  std::string out(code);
  bool continued = false; // the previous magic line ended with a backslash
  size_t at = 0;
  for (std::string_view line : linesOf(code)) {
    const bool magic = continued || isMagicLine(line);
    if (magic) {
      size_t indent = 0;
      while (indent < line.size() && isSpace(line[indent])) ++indent;
      size_t end = line.size();
      while (end > indent && (line[end - 1] == '\n' || line[end - 1] == '\r')) --end;
      for (size_t i = indent; i < end; ++i) out[at + i] = ' ';
      if (!continued && indent > 0 && end > indent) {
        const std::string_view filler = end - indent >= 4 ? "pass" : "0";
        out.replace(at + indent, filler.size(), filler);
      }
      std::string_view body = line.substr(0, end);
      continued = body.ends_with('\\');
    }
    at += line.size();
  }
  return out;
}

// A minimal scanner over JSON already validated by the parser: where values start and end.
class JsonScanner {
public:
  explicit JsonScanner(std::string_view text) : text_(text) {}
  size_t at = 0;

  void skipSpace() {
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\n' ||
                                 text_[at] == '\r')) {
      ++at;
    }
  }
  bool consume(char c) {
    skipSpace();
    if (at < text_.size() && text_[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  char peek() {
    skipSpace();
    return at < text_.size() ? text_[at] : '\0';
  }
  // At a string's opening quote: moves past its closing quote and returns the raw text.
  std::string_view string() {
    skipSpace();
    const size_t start = at++;
    while (at < text_.size() && text_[at] != '"') at += text_[at] == '\\' ? 2 : 1;
    ++at;
    return text_.substr(start, at - start);
  }
  // Skips one value of any kind, iteratively.
  void skipValue() {
    skipSpace();
    int depth = 0;
    do {
      const char c = text_[at];
      if (c == '"') {
        string();
      } else {
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        ++at;
        if (depth == 0 && c != '{' && c != '[' && c != '}' && c != ']') {
          // A scalar: runs to the next delimiter.
          while (at < text_.size() && text_[at] != ',' && text_[at] != '}' && text_[at] != ']' &&
                 text_[at] != ' ' && text_[at] != '\n' && text_[at] != '\r' && text_[at] != '\t') {
            ++at;
          }
        }
      }
      skipSpace();
    } while (depth > 0 && at < text_.size());
  }
  // Inside an object, at a key: returns the key (decoded: `"sour\u0063e"` is "source", as the
  // parser reads it) and moves past the colon.
  std::string key() {
    const std::string_view raw = string();
    consume(':');
    skipSpace();
    if (raw.find('\\') == std::string_view::npos) {
      return std::string(raw.substr(1, raw.size() >= 2 ? raw.size() - 2 : 0));
    }
    return json::parse(raw).get<std::string>();
  }

private:
  std::string_view text_;
};

// The byte ranges of each cell's "source" value, found by scanning the file itself (the parser
// keeps no positions). False when the layout is not the one the parser saw. A key written twice
// is read as the parser reads it: its last value counts (of "cells" and of a cell's "source").
bool locateSources(std::string_view text, size_t cellCount, std::vector<NotebookCell>& located) {
  JsonScanner scan(text);
  if (!scan.consume('{')) return false;
  bool found = false;
  while (scan.peek() == '"') {
    const std::string key = scan.key();
    if (key != "cells") {
      scan.skipValue();
      scan.consume(',');
      continue;
    }
    if (!scan.consume('[')) return false;
    found = true;
    located.clear();
    while (scan.peek() == '{') {
      scan.consume('{');
      NotebookCell cell;
      while (scan.peek() == '"') {
        const std::string cellKey = scan.key();
        if (cellKey == "source") {
          cell.elementStarts.clear();
          cell.valueIsArray = true;
          cell.valueStart = static_cast<uint32_t>(scan.at);
          if (scan.peek() == '[') {
            scan.consume('[');
            while (scan.peek() == '"') {
              cell.elementStarts.push_back(static_cast<uint32_t>(scan.at));
              scan.string();
              scan.consume(',');
            }
            scan.consume(']');
          } else {
            cell.valueIsArray = false;
            cell.elementStarts.push_back(static_cast<uint32_t>(scan.at));
            scan.skipValue();
          }
          cell.valueEnd = static_cast<uint32_t>(scan.at);
          scan.skipSpace();
          // skipValue leaves trailing space consumed; the value ends at its last byte.
          while (cell.valueEnd > cell.valueStart &&
                 std::string_view(" \t\r\n").find(text[cell.valueEnd - 1]) !=
                     std::string_view::npos) {
            --cell.valueEnd;
          }
        } else {
          scan.skipValue();
        }
        scan.consume(',');
      }
      scan.consume('}');
      scan.consume(',');
      located.push_back(std::move(cell));
    }
    if (!scan.consume(']')) return false;
    scan.consume(',');
  }
  return found && located.size() == cellCount;
}

// The cell's new "source" value, written as nbformat writes it: an array of lines, each keeping
// its newline, indented like the value it replaces.
std::string sourceValue(const NotebookCell& cell, std::string_view file, std::string_view code) {
  if (!cell.valueIsArray) return json(std::string(code)).dump();
  std::string itemIndent = "\n";
  std::string closeIndent = "\n";
  if (!cell.elementStarts.empty()) {
    // The whitespace between `[` and the first element, and before the closing `]`.
    itemIndent = std::string(file.substr(cell.valueStart + 1,
                                         cell.elementStarts.front() - cell.valueStart - 1));
    size_t close = cell.valueEnd - 1;
    size_t closeStart = close;
    while (closeStart > cell.valueStart &&
           std::string_view(" \t\r\n").find(file[closeStart - 1]) != std::string_view::npos) {
      --closeStart;
    }
    closeIndent = std::string(file.substr(closeStart, close - closeStart));
  } else {
    // `[]`: indent one level past the line holding the key.
    size_t lineStart = file.rfind('\n', cell.valueStart);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    size_t indent = lineStart;
    while (indent < file.size() && isSpace(file[indent])) ++indent;
    const std::string keyIndent(file.substr(lineStart, indent - lineStart));
    itemIndent = "\n" + keyIndent + " ";
    closeIndent = "\n" + keyIndent;
  }
  std::vector<std::string_view> lines = linesOf(code);
  if (lines.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += ',';
    out += itemIndent;
    out += json(std::string(lines[i])).dump();
  }
  out += closeIndent;
  out += ']';
  return out;
}

} // namespace

bool isNotebookPath(std::string_view path) { return path.ends_with(".ipynb"); }

std::optional<Notebook> Notebook::parse(std::string bytes, std::string& error) {
  json document;
  try {
    document = json::parse(bytes);
  } catch (const json::exception& e) {
    error = "not a valid notebook: " + jsonErrorText(e.what());
    return std::nullopt;
  }
  if (!document.is_object() || !document.contains("nbformat") ||
      !document["nbformat"].is_number_integer() || document["nbformat"].get<int>() != 4 ||
      !document.contains("cells") || !document["cells"].is_array()) {
    error = "not a valid notebook: expected nbformat 4 JSON with a \"cells\" list";
    return std::nullopt;
  }
  const json& cells = document["cells"];
  Notebook notebook;
  std::vector<NotebookCell> located;
  if (!locateSources(bytes, cells.size(), located)) {
    error = "not a valid notebook: a cell has no \"source\"";
    return std::nullopt;
  }
  bool python = true;
  if (document.contains("metadata") && document["metadata"].is_object()) {
    const json& metadata = document["metadata"];
    const auto info = metadata.find("language_info");
    if (info != metadata.end() && info->is_object() && info->contains("name") &&
        (*info)["name"].is_string() && (*info)["name"].get<std::string>() != "python") {
      python = false;
    }
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    const json& cell = cells[i];
    if (!cell.is_object() || !cell.contains("source") || !cell.contains("cell_type")) {
      error = "not a valid notebook: cell " + std::to_string(i + 1) +
              " has no \"cell_type\" or \"source\"";
      return std::nullopt;
    }
    std::string code;
    const json& source = cell["source"];
    if (source.is_string()) {
      code = source.get<std::string>();
    } else if (source.is_array()) {
      for (const json& piece : source) {
        if (!piece.is_string()) {
          error = "not a valid notebook: cell " + std::to_string(i + 1) + " has a non-text source";
          return std::nullopt;
        }
        code += piece.get_ref<const std::string&>();
      }
    } else {
      error = "not a valid notebook: cell " + std::to_string(i + 1) + " has a non-text source";
      return std::nullopt;
    }
    if (!python || cell["cell_type"] != "code" || !isPythonCell(code)) continue;
    NotebookCell entry = std::move(located[i]);
    entry.number = static_cast<uint32_t>(i + 1);
    entry.moduleStart = static_cast<uint32_t>(notebook.module_.size());
    entry.firstLine = static_cast<uint32_t>(
        notebook.cells_.empty() ? 0 : notebook.cells_.back().firstLine + notebook.cells_.back().lineCount);
    entry.lineCount = static_cast<uint32_t>(std::count(code.begin(), code.end(), '\n') + 1);
    for (const auto& [offset, length] : promptsOf(code)) {
      notebook.prompts_.emplace_back(entry.moduleStart + offset, length);
    }
    notebook.module_ += blankMagics(code);
    entry.moduleEnd = static_cast<uint32_t>(notebook.module_.size());
    notebook.module_ += '\n';
    entry.code = std::move(code);
    notebook.cells_.push_back(std::move(entry));
  }
  notebook.fileBytes_ = std::move(bytes);
  notebook.fileLineStarts_.push_back(0);
  for (size_t i = 0; i < notebook.fileBytes_.size(); ++i) {
    if (notebook.fileBytes_[i] == '\n') notebook.fileLineStarts_.push_back(static_cast<uint32_t>(i + 1));
  }
  return notebook;
}

const NotebookCell* Notebook::cellAtLine(uint32_t moduleLine) const {
  if (cells_.empty()) return nullptr;
  auto it = std::upper_bound(cells_.begin(), cells_.end(), moduleLine,
                             [](uint32_t line, const NotebookCell& c) { return line < c.firstLine; });
  return it == cells_.begin() ? &cells_.front() : &*(it - 1);
}

const NotebookCell* Notebook::cellAtByte(uint32_t moduleByte) const {
  if (cells_.empty()) return nullptr;
  auto it = std::upper_bound(cells_.begin(), cells_.end(), moduleByte,
                             [](uint32_t byte, const NotebookCell& c) { return byte < c.moduleStart; });
  return it == cells_.begin() ? &cells_.front() : &*(it - 1);
}

std::pair<uint32_t, uint32_t> Notebook::filePosition(const NotebookCell& cell,
                                                     uint32_t lineInCell) const {
  if (cell.elementStarts.empty()) return {0, 0};
  // An array holds one line per element; a string value holds them all (its first line stands in).
  const uint32_t element = cell.valueIsArray
                               ? cell.elementStarts[std::min<size_t>(lineInCell, cell.elementStarts.size() - 1)]
                               : cell.elementStarts.front();
  auto it = std::upper_bound(fileLineStarts_.begin(), fileLineStarts_.end(), element);
  const uint32_t line = static_cast<uint32_t>(it - fileLineStarts_.begin() - 1);
  return {line, element - fileLineStarts_[line] + 1}; // past the opening quote
}

std::optional<std::string> Notebook::applyEdits(const std::vector<Edit>& edits) const {
  // Per touched cell, its edits (sorted by the caller's order is not assumed).
  std::vector<std::vector<Edit>> byCell(cells_.size());
  for (const Edit& edit : edits) {
    const NotebookCell* cell = cellAtByte(edit.startByte);
    if (cell == nullptr || edit.startByte < cell->moduleStart || edit.endByte > cell->moduleEnd) {
      return std::nullopt;
    }
    // A blanked magic line reads differently in the module than in the cell.
    const std::string_view written =
        std::string_view(cell->code).substr(edit.startByte - cell->moduleStart,
                                            edit.endByte - edit.startByte);
    const std::string_view analysed =
        std::string_view(module_).substr(edit.startByte, edit.endByte - edit.startByte);
    if (written != analysed) return std::nullopt;
    byCell[static_cast<size_t>(cell - cells_.data())].push_back(edit);
  }
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < cells_.size(); ++i) {
    std::vector<Edit>& cellEdits = byCell[i];
    if (cellEdits.empty()) continue;
    const NotebookCell& cell = cells_[i];
    std::sort(cellEdits.begin(), cellEdits.end(),
              [](const Edit& a, const Edit& b) { return a.startByte < b.startByte; });
    std::string code;
    size_t at = 0;
    for (const Edit& edit : cellEdits) {
      const size_t start = edit.startByte - cell.moduleStart;
      if (start < at) return std::nullopt; // overlapping
      code.append(cell.code, at, start - at);
      code += edit.replacement;
      at = edit.endByte - cell.moduleStart;
    }
    code.append(cell.code, at);
    out.append(fileBytes_, copied, cell.valueStart - copied);
    out += sourceValue(cell, fileBytes_, code);
    copied = cell.valueEnd;
  }
  out.append(fileBytes_, copied);
  return out;
}

} // namespace gradlint
