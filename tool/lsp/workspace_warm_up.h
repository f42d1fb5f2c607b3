// The language server's warm-up: once after `initialized`, in the background, the workspace's
// modules are summarised into the server's LiveSummaries (program/live_summaries.h), so that a
// document opened later finds its context's summaries kept and lowers only itself.
#pragma once

#include "program/engine.h"

#include <string>
#include <vector>

namespace gradlint::lsp {

// Past these, a workspace is not warmed up (a home folder opened as one): each document
// summarises its own context as it is opened.
struct WarmUpLimits {
  size_t maxFiles = 20000;
  size_t maxBytes = 64u << 20;
};

struct WorkspaceModules {
  std::vector<FileInput> modules; // as context modules, their text read
  size_t projectModules = 0;      // the workspace's own files (the rest are installed)
  std::string trace;              // what was found, or why nothing was
  std::vector<std::string> problems;
};

// The Python files of the project at `root` as `gradlint check ROOT` finds them (.gitignore and
// the configurations' excludes apply) and the installed modules they import, as the context
// modules of a document's analysis would be: the same names and settings, so that the summaries
// kept for them serve the documents. Nothing for a folder in no project (no pyproject.toml,
// setup.py, setup.cfg, gradlint.toml or .git at or above it), or past `limits`.
WorkspaceModules collectWorkspaceModules(const std::string& root, const WarmUpLimits& limits);

} // namespace gradlint::lsp
