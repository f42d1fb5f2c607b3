#include "tool/lsp/server.h"

#include "checkers/python/frontend.h"
#include "program/config.h"
#include "program/live_summaries.h"
#include "tool/lsp/workspace_warm_up.h"
#include "tool/lsp/analysis.h"
#include "tool/lsp/code_actions.h"
#include "tool/lsp/documents.h"
#include "tool/lsp/hover.h"
#include "tool/lsp/lsp_diagnostics.h"
#include "tool/lsp/notebooks.h"
#include "tool/lsp/uri.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

namespace gradlint::lsp {
namespace {

using nlohmann::json;

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

// LSP MessageType.
constexpr int kLogError = 1;
constexpr int kLogWarning = 2;
// The scheduler's key of the workspace's warm-up: no document's URI (those have a scheme and a
// colon before a path) is spelled so.
constexpr std::string_view kWarmUpJob = "gradlint:workspace-warm-up";

// Deeper JSON than this is refused before parsing: no LSP message nests more than a dozen
// levels, and the JSON library's copy and dump recurse.
constexpr size_t kMaxJsonDepth = 128;

struct RequestError : std::runtime_error {
  RequestError(int errorCode, const std::string& message)
      : std::runtime_error(message), code(errorCode) {}
  int code;
};

// True when the JSON text nests arrays and objects deeper than `limit` (strings skipped).
bool nestsDeeperThan(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// A required string member; InvalidParams when missing.
std::string stringMember(const json& object, const char* key) {
  const json& value = member(object, key);
  if (!value.is_string()) {
    throw RequestError(kInvalidParams, fmt::format("`{}` must be a string", key));
  }
  return value.get<std::string>();
}

uint32_t unsignedMember(const json& object, const char* key) {
  const json& value = member(object, key);
  if (!value.is_number_integer() && !value.is_number_unsigned()) {
    throw RequestError(kInvalidParams, fmt::format("`{}` must be an integer", key));
  }
  const auto number = value.get<int64_t>();
  return static_cast<uint32_t>(std::clamp<int64_t>(number, 0, UINT32_MAX));
}

Position positionFrom(const json& value) {
  return Position{unsignedMember(value, "line"), unsignedMember(value, "character")};
}

Range rangeFrom(const json& value) {
  return Range{positionFrom(member(value, "start")), positionFrom(member(value, "end"))};
}

bool isConfigFile(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return std::find(std::begin(kConfigFileNames), std::end(kConfigFileNames), name) !=
         std::end(kConfigFileNames);
}

struct OpenDocument {
  explicit OpenDocument(TextDocument text) : document(std::move(text)) {}
  TextDocument document;
  // The last analysis, valid while its version is the document's.
  std::optional<int64_t> analysedVersion;
  std::shared_ptr<const BufferAnalysis> analysis;
  std::vector<std::string> loggedProblems; // not logged again while they repeat
};

struct OpenNotebook {
  explicit OpenNotebook(NotebookDocument notebook) : document(std::move(notebook)) {}
  NotebookDocument document;
  // The last analysis (of the whole notebook, in the module's byte offsets), and the notebook
  // version it was made for.
  std::optional<int64_t> analysedVersion;
  std::vector<Diagnostic> diagnostics;
};

class LanguageServer {
public:
  LanguageServer(std::ostream& out, const ServerOptions& options)
      : writer_(out), options_(options),
        scheduler_(options.debounce,
                   [this](const std::string& uri) { analyseInBackground(uri); }) {}

  int serve(std::istream& in);

private:
  // --- messages ---------------------------------------------------------------------------
  void handle(const std::string& body);
  void dispatch(const json& message);
  json request(const std::string& method, const json& params);
  void notification(const std::string& method, const json& params);
  void respond(const json& id, json result) {
    writer_.write({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void respondError(const json& id, int code, const std::string& message) {
    writer_.write({{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, json params) {
    writer_.write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void log(int type, const std::string& message) {
    notify("window/logMessage", {{"type", type}, {"message", "gradlint: " + message}});
  }
  // With the client's trace on: how an analysis had its context, as $/logTrace.
  void traceAnalysis(const std::string& uri, const BufferAnalysis& analysis) {
    if (!traceOn_ || analysis.trace.empty()) return;
    notify("$/logTrace", {{"message", fmt::format("gradlint: {}: {}", uri, analysis.trace)}});
  }

  // --- requests and notifications ---------------------------------------------------------
  json initialize(const json& params);
  void didOpen(const json& params);
  void didChange(const json& params);
  void didClose(const json& params);
  void notebookDidOpen(const json& params);
  void notebookDidChange(const json& params);
  void notebookDidClose(const json& params);
  // Checks an open notebook as one module if its analysis is out of date, and in push mode
  // publishes each code cell's diagnostics. Returns the analysis' diagnostics.
  std::vector<Diagnostic> analyseNotebook(const std::string& uri, bool publish);
  // The notebook holding a cell URI ("" when none); caller holds mutex_.
  std::string notebookOfCellLocked(const std::string& cellUri) const;
  void settingsChanged();
  json pullDiagnostics(const json& params);
  json codeAction(const json& params);
  json hover(const json& params);

  // --- analysis ---------------------------------------------------------------------------
  struct Snapshot {
    TextDocument document;
    std::shared_ptr<const BufferAnalysis> analysis;
  };
  // The current text of an open document and its analysis (run now when out of date).
  Snapshot analysed(const std::string& uri);
  void analyseInBackground(const std::string& uri);
  // One step of the workspace's warm-up (on the scheduler's worker): collects its modules the
  // first time, then summarises runs of them until a document's analysis waits.
  void warmUpWorkspace();
  // `publishEarly`: a large context's first collection publishes the buffer's own diagnostics
  // before summarising it (EarlyDiagnostics).
  std::shared_ptr<const BufferAnalysis> runAnalysis(const TextDocument& document,
                                                    bool publishEarly = false);
  // Caller holds mutex_.
  void publishLocked(const OpenDocument& open);
  void publishLocked(const TextDocument& document, const std::vector<Diagnostic>& diagnostics);
  void logProblemsLocked(OpenDocument& open);
  void documentChanged(const std::string& uri);

  MessageWriter writer_;
  const ServerOptions options_;
  bool initialized_ = false;
  bool shutdown_ = false;
  bool exitRequested_ = false;
  bool pullMode_ = false;        // the client pulls diagnostics: none are pushed
  bool refreshSupport_ = false;  // workspace/diagnostic/refresh after a settings change
  bool watchSupport_ = false;    // the client watches files for us when asked
  int64_t settingsGeneration_ = 0;

  std::mutex mutex_; // documents_ and settingsGeneration_ between the reader and the worker
  std::map<std::string, OpenDocument> documents_;
  std::map<std::string, OpenNotebook> notebooks_; // by notebook URI
  std::atomic<bool> traceOn_{false}; // initialize's `trace`, then $/setTrace
  std::mutex analysisMutex_; // one engine run at a time
  // Per open document (under analysisMutex_): its last parse, for incremental parsing, and the
  // context its last analysis collected, reused while it holds.
  std::map<std::string, std::shared_ptr<python::DocumentMemo>> documentMemos_;
  std::map<std::string, std::shared_ptr<ContextMemo>> contextMemos_;
  // The context modules' summaries of the whole workspace (under analysisMutex_), module by
  // module: a collection summarises only what changed since any document's last one.
  LiveSummaries liveSummaries_;
  // The workspace folder (initialize's workspaceFolders or rootUri), and its warm-up's modules
  // until every one is summarised (only the scheduler's worker touches them).
  std::string workspaceRoot_;
  std::optional<WorkspaceModules> warmUp_;
  // Analyses on the reader's thread (a pull, a code action) waiting for analysisMutex_: the
  // warm-up gives way to them between its runs.
  std::atomic<int> analysesWaiting_{0};
  // The warm-up is scheduled and not done: a document's edit pushes its next run back.
  std::atomic<bool> warmUpPending_{false};
  // Last: destroyed (and its worker joined) before the state its job uses.
  AnalysisScheduler scheduler_;
};

int LanguageServer::serve(std::istream& in) {
  MessageReader reader(in, options_.maxMessageBytes);
  int exitCode = 1;
  while (true) {
    ReadResult read = reader.next();
    if (read.status == ReadStatus::Message) {
      handle(read.body);
      if (exitRequested_) {
        exitCode = shutdown_ ? 0 : 1;
        break;
      }
      continue;
    }
    if (read.status == ReadStatus::EndOfInput) {
      exitCode = shutdown_ ? 0 : 1;
      break;
    }
    log(kLogError, read.error);
    if (read.status == ReadStatus::Truncated) break;
  }
  scheduler_.stop();
  return exitCode;
}

void LanguageServer::handle(const std::string& body) {
  if (nestsDeeperThan(body, kMaxJsonDepth)) {
    respondError(nullptr, kInvalidRequest,
                 fmt::format("the message nests deeper than {} levels", kMaxJsonDepth));
    return;
  }
  const json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    respondError(nullptr, kParseError, "the message is not valid JSON");
    return;
  }
  dispatch(message);
}

void LanguageServer::dispatch(const json& message) {
  const json& method = member(message, "method");
  const json& id = member(message, "id");
  const bool hasId = message.is_object() && message.contains("id");
  if (!message.is_object() || (!method.is_string() && !hasId)) {
    respondError(nullptr, kInvalidRequest, "expected a JSON-RPC request or notification object");
    return;
  }
  if (!method.is_string()) return; // a response to one of our requests: nothing to do
  if (hasId && !id.is_string() && !id.is_number_integer() && !id.is_number_unsigned()) {
    respondError(nullptr, kInvalidRequest, "a request id must be an integer or a string");
    return;
  }
  const std::string name = method.get<std::string>();
  const json& params = member(message, "params");
  if (!hasId) {
    try {
      notification(name, params);
    } catch (const std::exception& error) {
      log(kLogError, fmt::format("{}: {}", name, error.what()));
    }
    return;
  }
  try {
    respond(id, request(name, params));
  } catch (const RequestError& error) {
    respondError(id, error.code, error.what());
  } catch (const json::exception& error) {
    respondError(id, kInvalidParams, error.what());
  } catch (const std::exception& error) {
    respondError(id, kInternalError, error.what());
  }
}

json LanguageServer::request(const std::string& method, const json& params) {
  if (method == "initialize") {
    if (initialized_) throw RequestError(kInvalidRequest, "initialize was already called");
    return initialize(params);
  }
  if (!initialized_) throw RequestError(kServerNotInitialized, "initialize must come first");
  if (shutdown_) throw RequestError(kInvalidRequest, "the server is shutting down");
  if (method == "shutdown") {
    shutdown_ = true;
    scheduler_.stop();
    return nullptr;
  }
  if (method == "textDocument/diagnostic") return pullDiagnostics(params);
  if (method == "textDocument/codeAction") return codeAction(params);
  if (method == "textDocument/hover") return hover(params);
  throw RequestError(kMethodNotFound, fmt::format("unknown method `{}`", method));
}

void LanguageServer::notification(const std::string& method, const json& params) {
  if (method == "exit") {
    exitRequested_ = true;
    return;
  }
  if (!initialized_ || shutdown_) return; // LSP: drop notifications before initialize
  if (method == "initialized") {
    if (options_.warmUp && !workspaceRoot_.empty()) {
      warmUpPending_ = true;
      scheduler_.schedule(std::string(kWarmUpJob), options_.warmUpDelay);
    }
    if (!watchSupport_) return;
    // Ask the client to tell us when a configuration file or a Python file changes on disk: a
    // helper that an open document's context reads is re-summarised and the document's
    // diagnostics re-published without waiting for its next edit (ids of our requests are
    // strings, so they cannot collide with the client's).
    json watchers = json::array();
    for (std::string_view name : kConfigFileNames) {
      watchers.push_back({{"globPattern", fmt::format("**/{}", name)}});
    }
    watchers.push_back({{"globPattern", "**/*.py"}});
    watchers.push_back({{"globPattern", "**/*.pyi"}});
    json registration = {{"id", "gradlint-watched-files"},
                         {"method", "workspace/didChangeWatchedFiles"},
                         {"registerOptions", {{"watchers", std::move(watchers)}}}};
    json registrations = json::array();
    registrations.push_back(std::move(registration));
    writer_.write({{"jsonrpc", "2.0"},
                   {"id", "gradlint/watch-config"},
                   {"method", "client/registerCapability"},
                   {"params", {{"registrations", std::move(registrations)}}}});
  } else if (method == "textDocument/didOpen") {
    didOpen(params);
  } else if (method == "textDocument/didChange") {
    didChange(params);
  } else if (method == "textDocument/didSave") {
    const std::string uri = stringMember(member(params, "textDocument"), "uri");
    if (isConfigFile(pathFromUri(uri))) {
      settingsChanged();
    } else {
      documentChanged(uri);
    }
  } else if (method == "textDocument/didClose") {
    didClose(params);
  } else if (method == "workspace/didChangeWatchedFiles") {
    // A configuration or a module changed: every open document is analysed again (each one's
    // context memo tells whether its context must be collected again).
    settingsChanged();
  } else if (method == "notebookDocument/didOpen") {
    notebookDidOpen(params);
  } else if (method == "notebookDocument/didChange") {
    notebookDidChange(params);
  } else if (method == "notebookDocument/didClose") {
    notebookDidClose(params);
  } else if (method == "$/setTrace") {
    traceOn_ = stringMember(params, "value") != "off";
  }
  // Anything else ($/cancelRequest, didChangeConfiguration, ...) is ignored.
}

json LanguageServer::initialize(const json& params) {
  const json& capabilities = member(params, "capabilities");
  const json& textDocument = member(capabilities, "textDocument");
  const json& workspace = member(capabilities, "workspace");
  pullMode_ = member(textDocument, "diagnostic").is_object();
  refreshSupport_ = member(member(workspace, "diagnostics"), "refreshSupport") == true;
  watchSupport_ =
      member(member(workspace, "didChangeWatchedFiles"), "dynamicRegistration") == true;
  traceOn_ = member(params, "trace").is_string() && member(params, "trace") != "off";
  // The first workspace folder, else the (deprecated) root URI or path.
  const json& folders = member(params, "workspaceFolders");
  if (folders.is_array() && !folders.empty()) {
    workspaceRoot_ = pathFromUri(stringMember(folders.front(), "uri"));
  } else if (member(params, "rootUri").is_string()) {
    workspaceRoot_ = pathFromUri(stringMember(params, "rootUri"));
  } else if (member(params, "rootPath").is_string()) {
    workspaceRoot_ = stringMember(params, "rootPath");
  }
  initialized_ = true;

  json serverCapabilities = {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2 /* incremental */}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider",
       {{"codeActionKinds", {"quickfix", std::string(kFixAllKind)}}, {"resolveProvider", false}}},
      {"hoverProvider", true},
      // Jupyter notebooks: their Python cells are synced as one notebook (LSP 3.17).
      {"notebookDocumentSync",
       {{"notebookSelector", json::array({{{"notebook", "*"},
                                           {"cells", json::array({{{"language", "python"}}})}}})}}},
  };
  if (pullMode_) {
    serverCapabilities["diagnosticProvider"] = {
        {"identifier", "gradlint"}, {"interFileDependencies", false},
        {"workspaceDiagnostics", false}};
  }
  return {{"capabilities", std::move(serverCapabilities)},
          {"serverInfo", {{"name", "gradlint"}, {"version", GRADLINT_VERSION}}}};
}

void LanguageServer::didOpen(const json& params) {
  const json& item = member(params, "textDocument");
  const std::string uri = stringMember(item, "uri");
  const json& version = member(item, "version");
  const json& language = member(item, "languageId");
  std::string path = pathFromUri(uri);
  // Unsaved buffers have no path: check them as a Python file in the working folder.
  if (path.empty() && language == "python") path = "untitled.py";
  TextDocument document(uri, path, version.is_number_integer() ? version.get<int64_t>() : 0,
                        stringMember(item, "text"));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    documents_.insert_or_assign(uri, OpenDocument(std::move(document)));
  }
  documentChanged(uri);
}

void LanguageServer::didChange(const json& params) {
  const json& item = member(params, "textDocument");
  const std::string uri = stringMember(item, "uri");
  const json& changes = member(params, "contentChanges");
  if (!changes.is_array()) throw RequestError(kInvalidParams, "`contentChanges` must be an array");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = documents_.find(uri);
    if (found == documents_.end()) {
      throw RequestError(kInvalidParams, fmt::format("didChange for a closed document {}", uri));
    }
    TextDocument& document = found->second.document;
    for (const json& change : changes) {
      const json& range = member(change, "range");
      std::optional<Range> replaced;
      if (!range.is_null()) replaced = rangeFrom(range);
      document.applyChange(replaced, stringMember(change, "text"));
    }
    const json& version = member(item, "version");
    document.setVersion(version.is_number_integer() ? version.get<int64_t>()
                                                    : document.version() + 1);
    found->second.analysedVersion.reset();
  }
  documentChanged(uri);
}

void LanguageServer::didClose(const json& params) {
  const std::string uri = stringMember(member(params, "textDocument"), "uri");
  scheduler_.cancel(uri);
  {
    std::lock_guard<std::mutex> analysisLock(analysisMutex_);
    documentMemos_.erase(uri);
    contextMemos_.erase(uri);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (documents_.erase(uri) == 0) return;
  // Clear what was shown for it (under the lock: no older analysis can publish after this).
  if (!pullMode_) {
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  }
}

void LanguageServer::notebookDidOpen(const json& params) {
  const json& item = member(params, "notebookDocument");
  const std::string uri = stringMember(item, "uri");
  std::string path = pathFromUri(uri);
  if (path.empty()) path = "untitled.ipynb";
  const json& version = member(item, "version");
  NotebookDocument notebook(uri, path, version.is_number_integer() ? version.get<int64_t>() : 0);
  try {
    notebook.open(member(item, "cells"), member(params, "cellTextDocuments"));
  } catch (const std::invalid_argument& error) {
    throw RequestError(kInvalidParams, error.what());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    notebooks_.insert_or_assign(uri, OpenNotebook(std::move(notebook)));
  }
  analyseNotebook(uri, !pullMode_);
}

void LanguageServer::notebookDidChange(const json& params) {
  const json& item = member(params, "notebookDocument");
  const std::string uri = stringMember(item, "uri");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = notebooks_.find(uri);
    if (found == notebooks_.end()) {
      throw RequestError(kInvalidParams, fmt::format("didChange for a closed notebook {}", uri));
    }
    try {
      found->second.document.change(member(member(params, "change"), "cells"));
    } catch (const std::invalid_argument& error) {
      throw RequestError(kInvalidParams, error.what());
    }
    const json& version = member(item, "version");
    found->second.document.setVersion(version.is_number_integer()
                                          ? version.get<int64_t>()
                                          : found->second.document.version() + 1);
    found->second.analysedVersion.reset();
  }
  analyseNotebook(uri, !pullMode_);
}

void LanguageServer::notebookDidClose(const json& params) {
  const std::string uri = stringMember(member(params, "notebookDocument"), "uri");
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = notebooks_.find(uri);
  if (found == notebooks_.end()) return;
  if (!pullMode_) {
    for (const NotebookCellRef& cell : found->second.document.cells()) {
      if (!cell.code) continue;
      notify("textDocument/publishDiagnostics",
             {{"uri", cell.uri}, {"diagnostics", json::array()}});
    }
  }
  notebooks_.erase(found);
}

std::vector<Diagnostic> LanguageServer::analyseNotebook(const std::string& uri, bool publish) {
  std::optional<NotebookDocument> copy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = notebooks_.find(uri);
    if (found == notebooks_.end()) return {};
    if (found->second.analysedVersion == found->second.document.version() && !publish) {
      return found->second.diagnostics;
    }
    copy = found->second.document;
  }
  BufferAnalysis analysis;
  {
    std::lock_guard<std::mutex> lock(analysisMutex_);
    analysis = lsp::analyseNotebook(copy->path(), copy->toIpynb());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& problem : analysis.problems) log(kLogWarning, problem);
  const auto found = notebooks_.find(uri);
  if (found == notebooks_.end() || found->second.document.version() != copy->version()) {
    return analysis.diagnostics; // changed meanwhile: its own analysis publishes
  }
  found->second.analysedVersion = copy->version();
  found->second.diagnostics = analysis.diagnostics;
  if (publish) {
    for (auto& [cellUri, diagnostics] : copy->cellDiagnostics(analysis.diagnostics)) {
      const TextDocument* text = copy->cellText(cellUri);
      json params = {{"uri", cellUri}, {"diagnostics", std::move(diagnostics)}};
      if (text != nullptr) params["version"] = text->version();
      notify("textDocument/publishDiagnostics", std::move(params));
    }
  }
  return analysis.diagnostics;
}

std::string LanguageServer::notebookOfCellLocked(const std::string& cellUri) const {
  for (const auto& [uri, open] : notebooks_) {
    if (open.document.cellText(cellUri) != nullptr) return uri;
  }
  return "";
}

void LanguageServer::documentChanged(const std::string& uri) {
  // While the user types, the warm-up starts no new run: it resumes once documents have been
  // quiet for its delay. Otherwise each edit, sent as soon as the last one was published, finds
  // a run just started and waits for most of it.
  if (warmUpPending_) scheduler_.schedule(std::string(kWarmUpJob), options_.warmUpDelay);
  // Another open document may call a helper of this one: its findings may change too.
  std::vector<std::string> others;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [other, open] : documents_) {
      if (other == uri) continue;
      open.analysedVersion.reset();
      others.push_back(other);
    }
  }
  if (pullMode_) return;
  scheduler_.schedule(uri);
  for (const std::string& other : others) scheduler_.schedule(other);
}

void LanguageServer::settingsChanged() {
  std::vector<std::string> uris;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++settingsGeneration_;
    for (auto& [uri, open] : documents_) {
      open.analysedVersion.reset();
      uris.push_back(uri);
    }
  }
  if (pullMode_) {
    if (refreshSupport_) {
      writer_.write({{"jsonrpc", "2.0"},
                     {"id", fmt::format("gradlint/refresh-{}", settingsGeneration_)},
                     {"method", "workspace/diagnostic/refresh"}});
    }
    return;
  }
  for (const std::string& uri : uris) scheduler_.schedule(uri);
}

std::shared_ptr<const BufferAnalysis> LanguageServer::runAnalysis(const TextDocument& document,
                                                                   bool publishEarly) {
  ++analysesWaiting_;
  std::unique_lock<std::mutex> lock(analysisMutex_);
  --analysesWaiting_;
  std::shared_ptr<python::DocumentMemo>& memo = documentMemos_[document.uri()];
  if (!memo) memo = std::make_shared<python::DocumentMemo>();
  std::shared_ptr<ContextMemo>& contextMemo = contextMemos_[document.uri()];
  if (!contextMemo) contextMemo = makeContextMemo();
  // Other open buffers stand for their files: a helper edited but not saved is what its callers
  // see.
  std::unordered_map<std::string, std::string> openTexts;
  {
    std::lock_guard<std::mutex> documentsLock(mutex_);
    for (const auto& [uri, open] : documents_) {
      if (uri != document.uri() && !open.document.path().empty()) {
        std::error_code ec;
        openTexts.emplace(
            std::filesystem::absolute(open.document.path(), ec).lexically_normal().string(),
            open.document.text());
      }
    }
  }
  EarlyDiagnostics early;
  early.contextModules = options_.earlyDiagnosticsModules;
  early.publish = [&](const BufferAnalysis& analysis) {
    std::lock_guard<std::mutex> documentsLock(mutex_);
    traceAnalysis(document.uri(), analysis);
    const auto found = documents_.find(document.uri());
    // Edited or closed meanwhile: a newer run is scheduled.
    if (found == documents_.end() || found->second.document.version() != document.version()) {
      return;
    }
    publishLocked(found->second.document, analysis.diagnostics);
  };
  return std::make_shared<const BufferAnalysis>(
      analyseBuffer(document.path(), document.text(), memo, openTexts, /*notebook=*/false,
                    contextMemo, publishEarly ? &early : nullptr, &liveSummaries_));
}

LanguageServer::Snapshot LanguageServer::analysed(const std::string& uri) {
  std::optional<TextDocument> copy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = documents_.find(uri);
    if (found == documents_.end()) {
      throw RequestError(kInvalidParams, fmt::format("the document is not open: {}", uri));
    }
    const OpenDocument& open = found->second;
    if (open.analysedVersion == open.document.version()) {
      return Snapshot{open.document, open.analysis};
    }
    copy = open.document;
  }
  std::shared_ptr<const BufferAnalysis> analysis = runAnalysis(*copy);
  std::lock_guard<std::mutex> lock(mutex_);
  traceAnalysis(uri, *analysis);
  const auto found = documents_.find(uri);
  if (found != documents_.end() && found->second.document.version() == copy->version()) {
    found->second.analysedVersion = copy->version();
    found->second.analysis = analysis;
    logProblemsLocked(found->second);
  }
  return Snapshot{std::move(*copy), std::move(analysis)};
}

void LanguageServer::analyseInBackground(const std::string& uri) {
  if (uri == kWarmUpJob) {
    warmUpWorkspace();
    return;
  }
  std::optional<TextDocument> copy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = documents_.find(uri);
    if (found == documents_.end()) return;
    if (found->second.analysedVersion == found->second.document.version()) {
      publishLocked(found->second);
      return;
    }
    copy = found->second.document;
  }
  std::shared_ptr<const BufferAnalysis> analysis = runAnalysis(*copy, /*publishEarly=*/true);
  std::lock_guard<std::mutex> lock(mutex_);
  traceAnalysis(uri, *analysis);
  const auto found = documents_.find(uri);
  // Edited (or closed) meanwhile: this result is stale, and a newer run is already scheduled.
  if (found == documents_.end() || found->second.document.version() != copy->version()) return;
  found->second.analysedVersion = copy->version();
  found->second.analysis = std::move(analysis);
  logProblemsLocked(found->second);
  publishLocked(found->second);
}

void LanguageServer::warmUpWorkspace() {
  auto trace = [&](const std::string& message) {
    if (traceOn_) notify("$/logTrace", {{"message", "gradlint: " + message}});
  };
  // Only this worker touches warmUp_; the collection shares nothing with analyses, which may
  // run meanwhile on the reader's thread.
  if (!warmUp_) {
    warmUp_ = collectWorkspaceModules(workspaceRoot_, WarmUpLimits{});
    trace(warmUp_->trace);
    for (const std::string& problem : warmUp_->problems) log(kLogWarning, problem);
  }
  std::lock_guard<std::mutex> lock(analysisMutex_);
  const auto start = std::chrono::steady_clock::now();
  // A document's analysis goes first: one scheduled on this worker, or one the reader's thread
  // waits to run.
  auto carryOn = [&] { return scheduler_.idle() && analysesWaiting_ == 0; };
  LiveSummariesStats stats;
  const bool done = liveSummaries_.warmUp(warmUp_->modules, contextSummaryOptions(),
                                          options_.warmUpBatchModules, carryOn, stats);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!done) {
    trace(fmt::format("workspace: warm-up paused for a document's analysis after summarising {} "
                      "modules in {:.0f} ms",
                      stats.summarised, ms));
    scheduler_.schedule(std::string(kWarmUpJob), options_.warmUpDelay);
    return;
  }
  warmUpPending_ = false;
  if (!warmUp_->modules.empty()) {
    trace(fmt::format("workspace: warm-up done: summarised {} of {} modules in {:.0f} ms",
                      stats.summarised, stats.modules, ms));
  }
  warmUp_->modules.clear();
  warmUp_->modules.shrink_to_fit();
}

void LanguageServer::publishLocked(const OpenDocument& open) {
  publishLocked(open.document, open.analysis->diagnostics);
}

void LanguageServer::publishLocked(const TextDocument& document,
                                   const std::vector<Diagnostic>& diagnostics) {
  json items = json::array();
  for (const Diagnostic& diagnostic : diagnostics) {
    items.push_back(toLspDiagnostic(diagnostic, document));
  }
  notify("textDocument/publishDiagnostics", {{"uri", document.uri()},
                                             {"version", document.version()},
                                             {"diagnostics", std::move(items)}});
}

void LanguageServer::logProblemsLocked(OpenDocument& open) {
  if (open.analysis->problems == open.loggedProblems) return;
  open.loggedProblems = open.analysis->problems;
  for (const std::string& problem : open.loggedProblems) log(kLogWarning, problem);
}

json LanguageServer::pullDiagnostics(const json& params) {
  const std::string uri = stringMember(member(params, "textDocument"), "uri");
  std::string notebookUri;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (documents_.count(uri) == 0) notebookUri = notebookOfCellLocked(uri);
  }
  if (!notebookUri.empty()) {
    const std::vector<Diagnostic> diagnostics = analyseNotebook(notebookUri, false);
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = notebooks_.find(notebookUri);
    json items = json::array();
    if (found != notebooks_.end()) items = found->second.document.cellDiagnostics(diagnostics)[uri];
    if (items.is_null()) items = json::array();
    return {{"kind", "full"}, {"items", std::move(items)}};
  }
  const Snapshot snapshot = analysed(uri);
  int64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation = settingsGeneration_;
  }
  const std::string resultId = fmt::format("{}.{}", snapshot.document.version(), generation);
  if (member(params, "previousResultId") == resultId) {
    return {{"kind", "unchanged"}, {"resultId", resultId}};
  }
  json items = json::array();
  for (const Diagnostic& diagnostic : snapshot.analysis->diagnostics) {
    items.push_back(toLspDiagnostic(diagnostic, snapshot.document));
  }
  return {{"kind", "full"}, {"resultId", resultId}, {"items", std::move(items)}};
}

json LanguageServer::codeAction(const json& params) {
  const std::string uri = stringMember(member(params, "textDocument"), "uri");
  const Range range = rangeFrom(member(params, "range"));
  std::vector<std::string> only;
  const json& kinds = member(member(params, "context"), "only");
  if (kinds.is_array()) {
    for (const json& kind : kinds) {
      if (kind.is_string()) only.push_back(kind.get<std::string>());
    }
  }
  std::string notebookUri;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (documents_.count(uri) == 0) notebookUri = notebookOfCellLocked(uri);
  }
  if (!notebookUri.empty()) {
    // A cell: the notebook's findings in it, with offsets and fixes relative to the cell.
    const std::vector<Diagnostic> diagnostics = analyseNotebook(notebookUri, false);
    std::optional<TextDocument> cell;
    std::vector<Diagnostic> inCell;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = notebooks_.find(notebookUri);
      if (found == notebooks_.end()) return json::array();
      if (const TextDocument* text = found->second.document.cellText(uri)) cell = *text;
      inCell = found->second.document.diagnosticsInCell(diagnostics, uri);
    }
    if (!cell) return json::array();
    std::lock_guard<std::mutex> lock(analysisMutex_);
    return codeActions(*cell, inCell, range, only);
  }
  const Snapshot snapshot = analysed(uri);
  std::lock_guard<std::mutex> lock(analysisMutex_); // source.fixAll runs the engine
  return codeActions(snapshot.document, snapshot.analysis->diagnostics, range, only);
}

json LanguageServer::hover(const json& params) {
  const std::string uri = stringMember(member(params, "textDocument"), "uri");
  const Position position = positionFrom(member(params, "position"));
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = documents_.find(uri);
  if (found == documents_.end()) {
    throw RequestError(kInvalidParams, fmt::format("the document is not open: {}", uri));
  }
  return noqaHover(found->second.document, position);
}

} // namespace

int runLanguageServer(std::istream& in, std::ostream& out, const ServerOptions& options) {
  LanguageServer server(out, options);
  return server.serve(in);
}

int runLanguageServerOnStdio(const ServerOptions& options) {
  std::signal(SIGPIPE, SIG_IGN);
  std::ios::sync_with_stdio(false);
  return runLanguageServer(std::cin, std::cout, options);
}

} // namespace gradlint::lsp
