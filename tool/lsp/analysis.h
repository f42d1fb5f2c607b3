// Checking one open buffer with the same engine and settings as `gradlint check`: the nearest
// pyproject.toml / gradlint.toml above the document's path, read afresh on every analysis so an
// edited configuration applies at once.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "program/engine.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gradlint {
class LiveSummaries; // program/live_summaries.h
} // namespace gradlint

namespace gradlint::python {
class DocumentMemo; // checkers/python/frontend.h
} // namespace gradlint::python

namespace gradlint::lsp {

// What the last analysis of a buffer collected around it (the summaries of its context
// modules), kept by the caller per document like the DocumentMemo. The next analysis reuses it
// instead of collecting and summarising the context again while the buffer's imports, the other
// open buffers, its configuration and every file and folder the collection looked at are
// unchanged: an edit re-lowers the buffer only.
struct ContextMemo;

struct BufferAnalysis {
  std::vector<Diagnostic> diagnostics; // sorted by position, suppressions applied
  std::vector<std::string> problems;   // configuration or engine errors, for a log message
  // How the context was had, for the client's trace ($/logTrace): "context collected: ..." or
  // "context reused: ...".
  std::string trace;
};

// The buffer's own diagnostics, published before a large context is summarised: opening a file
// of a large project shows what the file alone shows at once, and the full diagnostics replace
// them (docs/editors.md). `contextModules` is the size above which it is called (the context
// modules to summarise); the call has the diagnostics of a check of the buffer without context.
struct EarlyDiagnostics {
  size_t contextModules = 50;
  std::function<void(BufferAnalysis)> publish;
};

// `path` is where the buffer lives (for its settings, module name and related locations);
// `text` its current contents. Returns nothing for a file gradlint does not check.
// `memo`, kept by the caller per document, makes the next analysis of the same document parse
// only what changed.
// The buffer's context (docs/context.md) is found as for `gradlint check PATH`: the files of the
// project it imports, and the installed packages of its environment; `openTexts` (other open
// buffers by absolute path) stand for those files' text on disk. `contextMemo`, kept by the
// caller per document, lets the next analysis reuse this one's context. `early`, when set, is
// called on the document's first collection of a context larger than its bound (never when
// diagnostics from the context are already shown: they would flicker). `live`, kept by the
// caller for the workspace, summarises only the context modules that changed since it last
// saw them (in any document's context).
BufferAnalysis analyseBuffer(const std::string& path, const std::string& text,
                             std::shared_ptr<python::DocumentMemo> memo = nullptr,
                             const std::unordered_map<std::string, std::string>& openTexts = {},
                             bool notebook = false,
                             const std::shared_ptr<ContextMemo>& contextMemo = nullptr,
                             const EarlyDiagnostics* early = nullptr,
                             LiveSummaries* live = nullptr);

// The engine options a document's context modules are summarised with, and the workspace's
// warm-up: LiveSummaries keeps summaries under one set of options only.
CheckOptions contextSummaryOptions();

// A new, empty ContextMemo.
std::shared_ptr<ContextMemo> makeContextMemo();

// A notebook (`path` ends in .ipynb) given as nbformat JSON: diagnostics in the offsets of the
// module its cells form (checkers/python/notebook.h).
BufferAnalysis analyseNotebook(const std::string& path, const std::string& ipynb);

// The text after applying every safe fix (several rounds, as `check --fix`), or nullopt when
// no fix applies.
std::optional<std::string> fixAllSafe(const std::string& path, const std::string& text);

// True when the server checks files of this path's kind (Python: .py, .pyi).
bool isCheckedPath(const std::string& path);

} // namespace gradlint::lsp
