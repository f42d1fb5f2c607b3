// Notebook documents (LSP 3.17 notebookDocument/*): the cells an editor sends one by one,
// checked together as the notebook they form, with each finding published on its cell's URI.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "tool/lsp/documents.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace gradlint::lsp {

struct NotebookCellRef {
  std::string uri;   // the cell's text document
  bool code = false; // a Python code cell (markup and other languages are not analysed)
};

class NotebookDocument {
public:
  NotebookDocument(std::string uri, std::string path, int64_t version)
      : uri_(std::move(uri)), path_(std::move(path)), version_(version) {}

  const std::string& uri() const { return uri_; }
  // Where the notebook lives, for its settings ("untitled.ipynb" when not a file).
  const std::string& path() const { return path_; }
  int64_t version() const { return version_; }
  void setVersion(int64_t version) { version_ = version; }
  const std::vector<NotebookCellRef>& cells() const { return cells_; }

  // notebookDocument/didOpen and the `cells` part of notebookDocument/didChange. Throws
  // std::invalid_argument on a malformed change.
  void open(const nlohmann::json& cells, const nlohmann::json& cellTextDocuments);
  void change(const nlohmann::json& cellsChange);

  // The text document of a cell of this notebook, or null.
  const TextDocument* cellText(const std::string& cellUri) const;

  // The cells as nbformat 4 JSON, the form the checker reads notebooks in.
  std::string toIpynb() const;

  // Per code cell URI, the LSP diagnostics of `diagnostics` (computed on toIpynb()'s text)
  // that start in it; related locations and witness steps point at whichever cell holds them.
  std::map<std::string, nlohmann::json> cellDiagnostics(const std::vector<Diagnostic>& diagnostics) const;
  // The diagnostics that start in one cell, with byte offsets (fix edits included) relative to
  // the cell's text; a fix reaching outside the cell is dropped.
  std::vector<Diagnostic> diagnosticsInCell(const std::vector<Diagnostic>& diagnostics,
                                            const std::string& cellUri) const;

private:
  NotebookCellRef cellFrom(const nlohmann::json& cell) const;
  void openText(const nlohmann::json& item);

  std::string uri_;
  std::string path_;
  int64_t version_ = 0;
  std::vector<NotebookCellRef> cells_;
  std::map<std::string, TextDocument> texts_;
  std::map<std::string, std::string> languages_; // cell URI -> languageId
};

} // namespace gradlint::lsp
