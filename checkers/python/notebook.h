// Jupyter notebooks (nbformat 4): the code cells that one kernel runs in order, joined into one
// Python module, with the map from module lines back to (cell, line) and from edited cells back
// into the notebook's own bytes. Only the source layer knows notebooks exist: rules see a module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gradlint {

struct Edit; // checkers/ir/diagnostic.h

struct NotebookCell {
  uint32_t number = 0;      // 1-based position among all cells, as Jupyter shows it (and Ruff)
  uint32_t moduleStart = 0; // where the cell's code starts in the module text
  uint32_t moduleEnd = 0;   // its end (the joining newline that follows is not the cell's)
  uint32_t firstLine = 0;   // module line of the cell's first line
  uint32_t lineCount = 0;
  std::string code;         // the source as written (magics not blanked)
  // The "source" value in the file's bytes, and where each element of an array value starts
  // (for a string value: the one string's start).
  uint32_t valueStart = 0;
  uint32_t valueEnd = 0;
  std::vector<uint32_t> elementStarts;
  bool valueIsArray = true;
};

class Notebook {
public:
  const std::string& fileBytes() const { return fileBytes_; }
  // The code cells analysed (cells a cell magic turns into another language are left out).
  const std::vector<NotebookCell>& cells() const { return cells_; }
  // The module text: every analysed cell's code, magics blanked to spaces (or `pass` where a
  // block needs a statement), each followed by one newline. Byte lengths are kept, so a byte
  // offset inside a cell maps to the same offset in its code.
  const std::string& module() const { return module_; }
  // Console prompts IPython strips before compiling a cell (`>>> `, `... `, `In [3]: `,
  // `   ...: `): (module byte, length), in order. The module text keeps them; parses leave
  // them out, so columns stay the cell's.
  const std::vector<std::pair<uint32_t, uint32_t>>& prompts() const { return prompts_; }
  // The cell holding a module line (the last cell for lines past the end); null without cells.
  const NotebookCell* cellAtLine(uint32_t moduleLine) const;
  const NotebookCell* cellAtByte(uint32_t moduleByte) const;
  // 0-based line in the notebook file where the cell's line `lineInCell` is written, and the
  // column of its first character there (JSON string quoting counted as one byte per byte).
  std::pair<uint32_t, uint32_t> filePosition(const NotebookCell& cell, uint32_t lineInCell) const;

  // Reads nbformat 4 JSON. Returns nullopt and sets `error` when the bytes are not JSON or not a
  // version 4 notebook. A notebook whose kernel is not Python has no cells to analyse.
  static std::optional<Notebook> parse(std::string bytes, std::string& error);

  // The file's bytes with `edits` (module byte offsets, non-overlapping) applied: only the
  // "source" values of the cells they touch are rewritten, every other byte is kept. Returns
  // nullopt when an edit spans two cells or touches a blanked magic line.
  std::optional<std::string> applyEdits(const std::vector<Edit>& edits) const;

private:
  std::string fileBytes_;
  std::vector<NotebookCell> cells_;
  std::string module_;
  std::vector<uint32_t> fileLineStarts_;
  std::vector<std::pair<uint32_t, uint32_t>> prompts_;
};

bool isNotebookPath(std::string_view path);

} // namespace gradlint
