// The context modules' summaries kept by a long-lived process (the language server), module by
// module, across analyses and documents: a module is summarised again only when its text
// changed, or when a module it imports got different summaries. Opening a second file of a
// project, or a helper changed on disk, then costs the modules that changed, not the project.
#pragma once

#include "checkers/ir/grad_state.h"
#include "program/engine.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gradlint {

// What one summarise() did, for the server's trace.
struct LiveSummariesStats {
  size_t modules = 0;    // context modules asked for
  size_t summarised = 0; // lowered and summarised (a module may count once per round)
  size_t rounds = 0;     // engine runs
};

class LiveSummaries {
public:
  // The summaries of `contextModules` (FileInput::context, their text read), equal to those of
  // one run over all of them. `options` are the engine's (keepSummaries is set here); summaries
  // kept under other analysis settings are dropped first. Not thread-safe: one caller at a time.
  std::shared_ptr<const ir::SummaryTable> summarise(const std::vector<FileInput>& contextModules,
                                                    const CheckOptions& options,
                                                    LiveSummariesStats& stats);

  // The same for a whole workspace (the server's warm-up, before any document asks): `modules`
  // (closed under imports, their text read) in import order, each module after those it imports
  // and an import cycle together, cut into runs of about `batchModules`. Each run is summarised
  // with the runs before it, so it is closed under imports and only its own modules are lowered.
  // `carryOn` is asked before each run; false stops there, keeping what was summarised (a later
  // call resumes). Returns whether every module is summarised.
  bool warmUp(const std::vector<FileInput>& modules, const CheckOptions& options,
              size_t batchModules, const std::function<bool()>& carryOn,
              LiveSummariesStats& stats);

  // How many of `contextModules` have no summaries kept for their text (at least that many
  // would be summarised).
  size_t unknownModules(std::span<const FileInput> contextModules) const;

private:
  struct Module {
    std::string name;
    uint64_t textHash = 0;
    ir::SummaryTable summaries; // of the functions it defines (and its own, as an import)
  };
  std::string settingsKey_;
  std::unordered_map<std::string, Module> modules_; // by absolute path
};

} // namespace gradlint
