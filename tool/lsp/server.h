// `gradlint server`: a Language Server Protocol 3.17 server. Diagnostics are pushed
// (textDocument/publishDiagnostics) after a debounce, or pulled (textDocument/diagnostic) when
// the client supports that; code actions (noqa, quick fixes, source.fixAll.gradlint) and hover
// on noqa codes. The whole server runs over any istream/ostream pair, so tests and fuzzers can
// drive it in-process; the framing reader alone is in tool/lsp/jsonrpc.h.
#pragma once

#include "tool/lsp/analysis_scheduler.h"
#include "tool/lsp/jsonrpc.h"

#include <chrono>
#include <istream>
#include <ostream>

namespace gradlint::lsp {

struct ServerOptions {
  // How long after an edit its document is analysed; 0 analyses at once (tests, fuzzing).
  std::chrono::milliseconds debounce = kDefaultDebounce;
  size_t maxMessageBytes = kDefaultMaxMessageBytes;
  // An opened document whose context has more modules than this first gets the diagnostics of
  // the document alone (EarlyDiagnostics in tool/lsp/analysis.h).
  size_t earlyDiagnosticsModules = 50;
  // After `initialized`, summarise the workspace folder's modules in the background
  // (tool/lsp/workspace_warm_up.h), so that documents opened later lower only themselves.
  bool warmUp = true;
  // How long after `initialized` it starts, and how long documents must go unopened and
  // unedited before it starts or resumes a run: the documents an editor opens with the
  // workspace (its restored tabs), and edits, are analysed first.
  std::chrono::milliseconds warmUpDelay{500};
  // Modules per run of the warm-up: between runs it gives way to documents' analyses.
  size_t warmUpBatchModules = 256;
};

// Serves requests from `in`, writing responses and notifications to `out`, until an `exit`
// notification or the end of input. Returns the exit code LSP asks for: 0 when `shutdown` came
// first, 1 otherwise. Never throws for anything the input contains.
int runLanguageServer(std::istream& in, std::ostream& out, const ServerOptions& options = {});

// `gradlint server`: runLanguageServer over stdin/stdout (unsynchronised with C stdio, and with
// SIGPIPE ignored so a client that goes away ends the server through EOF, not a signal).
int runLanguageServerOnStdio(const ServerOptions& options);

} // namespace gradlint::lsp
