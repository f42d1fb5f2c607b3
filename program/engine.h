// The check pipeline over many files: read, prefilter, parse and lower in parallel, summarise
// across files, run the rules in parallel, apply selection and suppressions.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/python/source_text.h"
#include "program/byte_budget.h"
#include "program/discover.h"
#include "program/file_stat.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint {

namespace cpp {
class CompileCommands; // checkers/cpp/frontend.h
} // namespace cpp
namespace ir {
class SummaryTable; // checkers/ir/grad_state.h
} // namespace ir
namespace python {
class DocumentMemo; // checkers/python/frontend.h
} // namespace python

// GL001 compile-error: a C++ file that does not compile with its flags. Unlike GL000 it can be
// turned off (an ignore), but a selection of other rules keeps it and no comment silences it.
inline constexpr std::string_view kCompileErrorCode = "GL001";

// program/result_cache.cpp keys cached results on every field that changes results (here and in
// FileInput): a new one must be added to its key.
struct CheckOptions {
  std::vector<std::string> select; // code prefixes or "ALL"; empty: every non-preview rule
  std::vector<std::string> ignore;
  bool prefilter = true; // skip files that cannot mention a grad-mode API
  unsigned threads = 0;  // 0: all cores
  // C++ files: where their compile flags come from (-p, --); null: Clang's defaults.
  std::shared_ptr<const cpp::CompileCommands> cppCommands;
  // false: the process exits after this run, so the run's IR and trees are left to the OS
  // instead of freed piece by piece (like clang's -disable-free). Ignored under AddressSanitizer.
  bool releaseMemory = true;
  // Summaries from outside the run (`check --summaries FILE`, program/summary_store.h), and a key
  // for their contents (the result cache's); the run's own definitions replace them.
  std::shared_ptr<const ir::SummaryTable> knownSummaries;
  std::string knownSummariesKey;
  // The budget of file texts kept between steps (kKeptTextBudgetBytes), shared with the steps
  // before the run that read the files (the context's import scan); null: the run's own.
  std::shared_ptr<ByteBudget> keptTexts;
  // Keep the run's final summaries in CheckResult::summaries (`gradlint summarize`).
  bool keepSummaries = false;
};

struct FileInput {
  SourceFileRef ref;
  std::optional<std::string> contents; // set for stdin, and for text being fixed
  // The codes of the rules to run on this file (from its configuration); null: the run's
  // selection from CheckOptions. Shared: the files under one configuration run the same rules.
  std::shared_ptr<const std::vector<std::string>> enabledRules;
  // Python: what the previous analysis of this buffer left, to parse and lower only what changed
  // (the LSP server keeps one per open document). Changes no result.
  std::shared_ptr<python::DocumentMemo> documentMemo;
  // A context module (program/project_context.h): read and summarised for the checked files'
  // sake, never reported (no findings, warnings or errors of its own).
  bool context = false;
  // Installed code: the distribution it comes from ("name version"), for related locations.
  std::string origin;
  // The file read by an earlier step (the context's import scan, the result cache's hashing):
  // the file's stat taken just before that read, for the result cache's memo.
  std::optional<FileStat> contentsStat;
  // That read's bytes, hashed (XXH3-64) instead of kept: runCheck reads the file again and
  // reports it as changed when its bytes differ, so the run checks what the earlier step saw.
  std::optional<uint64_t> contentsHash;
  // Those bytes themselves, when the kept-text budget (CheckOptions::keptTexts) had room: the
  // first runCheck takes them (moves them out, leaving nullopt) instead of reading the file
  // again. Shared: copies of this input hand over the same bytes once.
  std::shared_ptr<std::optional<std::string>> keptText;
};

// The kept-text budget (CheckOptions::keptTexts) for a run over `inputs`: kKeptTextBudgetBytes
// (GRADLINT_TEST_KEPT_TEXT_BUDGET) when the files read from disk fit in it, else none. A tree that
// fits is read once; a larger one keeps no text at all, so its peak memory does not grow by the
// whole budget for a part of the gain. Stats each such file (threads: as CheckOptions::threads).
std::shared_ptr<ByteBudget> keptTextBudgetFor(const std::vector<FileInput>& inputs,
                                              unsigned threads);

struct FileReport {
  std::shared_ptr<const SourceText> source;
  std::vector<Diagnostic> diagnostics; // sorted by position
  // Per diagnostic: the qualified name of the innermost function or class around it, "" at
  // module level (SARIF fingerprints use it instead of the line number).
  std::vector<std::string> scopes;
};

// Where a run's work went (`check --stats`, for profiling): what the prefilter and partial
// parsing let through, and the wall time of each phase.
struct CheckStats {
  size_t bytesRead = 0;
  size_t firstPassFiles = 0;  // lowered because they name a marker of a selected rule
  size_t firstPassBytes = 0;  // of those, the bytes handed to the parser
  size_t rescanRounds = 0;    // rounds that looked for callers of summarised functions
  size_t rescanLowerings = 0; // files lowered (again) by those rounds
  size_t rescanBytes = 0;
  size_t rescanFromKeptMemo = 0; // of those files, lowered again beside their last lowering
  size_t contextFiles = 0;         // context modules read (FileInput::context)
  size_t contextLowered = 0;       // of those, lowered (they name a marker or a summarised name)
  double readAndFirstPassSeconds = 0;
  double summariesAndRescanSeconds = 0;
  double rulesSeconds = 0;
};

struct CheckResult {
  std::vector<FileReport> files; // only files with diagnostics, sorted by path
  std::vector<std::string> errors;   // I/O problems: "path: why"
  std::vector<std::string> warnings; // parts of files that could not be analysed
  size_t filesRead = 0;
  size_t filesAnalysed = 0; // parsed and lowered (the rest were prefiltered)
  // C++ files compiled (adopted headers aside); of those, the ones reported as not compiling
  // (GL001 among their findings), and the ones whose errors stopped Clang before any function
  // was lowered, reported or not. Never from the result cache, which keeps no C++ result.
  size_t cppFilesCompiled = 0;
  size_t cppFilesNotCompiled = 0;
  size_t cppFilesNothingLowered = 0;
  CheckStats stats;
  std::shared_ptr<const ir::SummaryTable> summaries; // with CheckOptions::keepSummaries
};

CheckResult runCheck(const std::vector<FileInput>& inputs, const CheckOptions& options);

bool isRuleSelected(std::string_view code, bool preview, const CheckOptions& options);

// Runs fn(i) for i in [0, count) on `threads` workers (0: all cores).
void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& fn);

} // namespace gradlint
