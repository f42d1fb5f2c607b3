#include "tool/lsp/notebooks.h"

#include "checkers/python/notebook.h"
#include "tool/lsp/jsonrpc.h"
#include "tool/lsp/lsp_diagnostics.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

namespace gradlint::lsp {
namespace {

using nlohmann::json;

constexpr int kCodeCell = 2; // LSP NotebookCellKind.Code

std::string stringMember(const json& object, const char* key) {
  const json& value = member(object, key);
  if (!value.is_string()) throw std::invalid_argument(fmt::format("`{}` must be a string", key));
  return value.get<std::string>();
}

Position positionFrom(const json& value) {
  const json& line = member(value, "line");
  const json& character = member(value, "character");
  if (!line.is_number_unsigned() || !character.is_number_unsigned()) {
    throw std::invalid_argument("a position needs unsigned `line` and `character`");
  }
  return Position{line.get<uint32_t>(), character.get<uint32_t>()};
}

} // namespace

NotebookCellRef NotebookDocument::cellFrom(const json& cell) const {
  NotebookCellRef ref;
  ref.uri = stringMember(cell, "document");
  ref.code = member(cell, "kind") == kCodeCell;
  return ref;
}

void NotebookDocument::openText(const json& item) {
  const std::string uri = stringMember(item, "uri");
  const json& version = member(item, "version");
  texts_.insert_or_assign(uri, TextDocument(uri, "", version.is_number_integer() ? version.get<int64_t>() : 0,
                                            stringMember(item, "text")));
  const json& language = member(item, "languageId");
  languages_[uri] = language.is_string() ? language.get<std::string>() : "python";
}

void NotebookDocument::open(const json& cells, const json& cellTextDocuments) {
  if (!cells.is_array()) throw std::invalid_argument("`cells` must be an array");
  cells_.clear();
  for (const json& cell : cells) cells_.push_back(cellFrom(cell));
  if (cellTextDocuments.is_array()) {
    for (const json& item : cellTextDocuments) openText(item);
  }
}

void NotebookDocument::change(const json& cellsChange) {
  if (!cellsChange.is_object()) return; // a metadata-only change
  const json& structure = member(cellsChange, "structure");
  if (structure.is_object()) {
    const json& array = member(structure, "array");
    const json& start = member(array, "start");
    const json& deleteCount = member(array, "deleteCount");
    if (!start.is_number_unsigned() || !deleteCount.is_number_unsigned()) {
      throw std::invalid_argument("`structure.array` needs unsigned `start` and `deleteCount`");
    }
    const size_t at = std::min<size_t>(start.get<size_t>(), cells_.size());
    const size_t removed = std::min<size_t>(deleteCount.get<size_t>(), cells_.size() - at);
    cells_.erase(cells_.begin() + static_cast<std::ptrdiff_t>(at),
                 cells_.begin() + static_cast<std::ptrdiff_t>(at + removed));
    const json& inserted = member(array, "cells");
    if (inserted.is_array()) {
      std::vector<NotebookCellRef> refs;
      for (const json& cell : inserted) refs.push_back(cellFrom(cell));
      cells_.insert(cells_.begin() + static_cast<std::ptrdiff_t>(at), refs.begin(), refs.end());
    }
    const json& opened = member(structure, "didOpen");
    if (opened.is_array()) {
      for (const json& item : opened) openText(item);
    }
    const json& closed = member(structure, "didClose");
    if (closed.is_array()) {
      for (const json& item : closed) {
        const std::string uri = stringMember(item, "uri");
        texts_.erase(uri);
        languages_.erase(uri);
      }
    }
  }
  const json& data = member(cellsChange, "data");
  if (data.is_array()) {
    for (const json& cell : data) {
      const NotebookCellRef ref = cellFrom(cell);
      for (NotebookCellRef& existing : cells_) {
        if (existing.uri == ref.uri) existing.code = ref.code;
      }
    }
  }
  const json& textContent = member(cellsChange, "textContent");
  if (textContent.is_array()) {
    for (const json& edit : textContent) {
      const json& document = member(edit, "document");
      const std::string uri = stringMember(document, "uri");
      const auto found = texts_.find(uri);
      if (found == texts_.end()) {
        throw std::invalid_argument(fmt::format("a change for a cell that is not open: {}", uri));
      }
      const json& changes = member(edit, "changes");
      if (!changes.is_array()) throw std::invalid_argument("`changes` must be an array");
      for (const json& change : changes) {
        const json& range = member(change, "range");
        std::optional<Range> replaced;
        if (!range.is_null()) {
          replaced = Range{positionFrom(member(range, "start")), positionFrom(member(range, "end"))};
        }
        found->second.applyChange(replaced, stringMember(change, "text"));
      }
      const json& version = member(document, "version");
      found->second.setVersion(version.is_number_integer() ? version.get<int64_t>()
                                                           : found->second.version() + 1);
    }
  }
}

const TextDocument* NotebookDocument::cellText(const std::string& cellUri) const {
  const auto found = texts_.find(cellUri);
  return found == texts_.end() ? nullptr : &found->second;
}

std::string NotebookDocument::toIpynb() const {
  json cells = json::array();
  for (const NotebookCellRef& cell : cells_) {
    const TextDocument* text = cellText(cell.uri);
    const auto language = languages_.find(cell.uri);
    const bool python = language == languages_.end() || language->second == "python";
    json entry = {{"cell_type", cell.code && python ? "code" : "markdown"},
                  {"metadata", json::object()},
                  {"source", text != nullptr ? text->text() : std::string()}};
    if (cell.code && python) {
      entry["outputs"] = json::array();
      entry["execution_count"] = nullptr;
    }
    cells.push_back(std::move(entry));
  }
  const json notebook = {{"cells", std::move(cells)},
                         {"metadata", json::object()},
                         {"nbformat", 4},
                         {"nbformat_minor", 5}};
  return notebook.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// The cells of the checked text, by their 1-based number (= position in the notebook).
struct CellLayout {
  std::optional<Notebook> notebook;
  explicit CellLayout(const std::string& ipynb) {
    std::string error;
    notebook = Notebook::parse(ipynb, error);
  }
  const NotebookCell* at(uint32_t byte) const {
    return notebook ? notebook->cellAtByte(byte) : nullptr;
  }
};

} // namespace

std::vector<Diagnostic> NotebookDocument::diagnosticsInCell(
    const std::vector<Diagnostic>& diagnostics, const std::string& cellUri) const {
  const CellLayout layout(toIpynb());
  std::vector<Diagnostic> out;
  for (const Diagnostic& diagnostic : diagnostics) {
    const NotebookCell* cell = layout.at(diagnostic.range.startByte);
    if (cell == nullptr || cell->number == 0 || cell->number > cells_.size() ||
        cells_[cell->number - 1].uri != cellUri) {
      continue;
    }
    Diagnostic shifted = diagnostic;
    auto inCell = [&](uint32_t byte) {
      return byte >= cell->moduleStart && byte <= cell->moduleEnd;
    };
    shifted.range.startByte -= cell->moduleStart;
    shifted.range.endByte = std::min(diagnostic.range.endByte, cell->moduleEnd) - cell->moduleStart;
    if (shifted.fix) {
      for (Edit& edit : shifted.fix->edits) {
        if (!inCell(edit.startByte) || !inCell(edit.endByte)) {
          shifted.fix.reset();
          break;
        }
        edit.startByte -= cell->moduleStart;
        edit.endByte -= cell->moduleStart;
      }
    }
    shifted.related.clear();
    shifted.witness.clear();
    out.push_back(std::move(shifted));
  }
  return out;
}

std::map<std::string, json> NotebookDocument::cellDiagnostics(
    const std::vector<Diagnostic>& diagnostics) const {
  const CellLayout layout(toIpynb());
  std::map<std::string, json> byCell;
  for (const NotebookCellRef& cell : cells_) {
    if (cell.code) byCell[cell.uri] = json::array();
  }
  // The cell holding a module byte, with the byte's offset inside its text.
  auto locate = [&](uint32_t startByte, uint32_t endByte) -> std::optional<json> {
    const NotebookCell* cell = layout.at(startByte);
    if (cell == nullptr || cell->number == 0 || cell->number > cells_.size()) return std::nullopt;
    const std::string& uri = cells_[cell->number - 1].uri;
    const TextDocument* text = cellText(uri);
    if (text == nullptr) return std::nullopt;
    const uint32_t start = startByte - std::min(startByte, cell->moduleStart);
    const uint32_t end = std::min(endByte, cell->moduleEnd) - std::min(endByte, cell->moduleStart);
    return json{{"uri", uri}, {"range", toJson(rangeOf(*text, start, std::max(start, end)))}};
  };
  for (const Diagnostic& diagnostic : diagnostics) {
    const std::optional<json> where = locate(diagnostic.range.startByte, diagnostic.range.endByte);
    if (!where) continue;
    const std::string uri = (*where)["uri"].get<std::string>();
    const TextDocument* text = cellText(uri);
    Diagnostic shifted = diagnosticsInCell({diagnostic}, uri).front();
    json lsp = toLspDiagnostic(shifted, *text);
    json related = json::array();
    for (const RelatedLocation& location : diagnostic.related) {
      if (!location.path.empty() && location.path != path_) continue; // another file's
      if (std::optional<json> at = locate(location.range.startByte, location.range.endByte)) {
        related.push_back({{"location", *at}, {"message", location.message}});
      }
    }
    const size_t steps = diagnostic.witness.size();
    for (size_t i = 0; i < steps; ++i) {
      const WitnessStep& step = diagnostic.witness[i];
      if (std::optional<json> at = locate(step.range.startByte, step.range.endByte)) {
        related.push_back({{"location", *at},
                           {"message", fmt::format("path {}/{}: {}", i + 1, steps, step.detail)}});
      }
    }
    if (!related.empty()) lsp["relatedInformation"] = std::move(related);
    byCell[uri].push_back(std::move(lsp));
  }
  return byCell;
}

} // namespace gradlint::lsp
