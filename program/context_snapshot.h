// The context snapshot (under the cache folder, `context/collection-KEY.txt`): what a context
// collection found (the context modules, the report's counts) with the stat of every path it
// looked at: the checked files, the folders listed to resolve imports, the modules and
// metadata files read, the distribution cache entries missed. A later run over the same files, with
// the same settings and environment, whose paths all stat as recorded finds the same context
// without resolving or reading anything: it stats the paths instead (a folder's mtime moves
// when an entry is added, removed or renamed, so a new module that an import would now find
// is seen). Stats recorded within kRacyNs of the collection's start vouch for nothing
// (program/file_stat.h), so such a snapshot is not stored.
#pragma once

#include "program/file_stat.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gradlint {

struct ContextSnapshot {
  int64_t takenNs = 0; // when the collection started
  // Every path looked at, with its stat (nullopt: it was not there).
  std::vector<std::pair<std::string, std::optional<FileStat>>> seen;
  struct Input {
    std::string path;
    std::string moduleName;
    std::string origin; // installed: "name version"
    bool isPackageInit = false;
    bool inPackage = false;
    // Installed: the file itself (`path` names it inside its search folder, which the result
    // cache cannot read it by). Empty for the project's modules.
    std::string file;
  };
  std::vector<Input> inputs; // the context modules, in the collection's order
  std::map<std::string, size_t> counts; // the report's counters, by name
  std::vector<std::pair<std::string, std::string>> unresolved; // (module, why)
  std::vector<std::pair<std::string, std::string>> skipped;    // (path, why)
  std::vector<std::string> distributions;
  // The distribution cache entries whose summaries the collection used, with the hash of
  // their text (a replay loads them again and checks it).
  struct CachedEntry {
    std::string label;
    std::string file;
    uint64_t textHash = 0;
  };
  std::vector<CachedEntry> cachedEntries;
  std::string installedKey; // ContextReport::installedKey
};

// A snapshot taken by a collection that read installed distributions, stored after the run
// writes their cache entries: as the next run would collect, the modules of those distributions
// then come from the entries, not from their files.
struct PendingContextSnapshot {
  std::filesystem::path file;
  ContextSnapshot snapshot;
};

// Writes `snapshot` to `file` atomically; false when it cannot be written or holds a string the
// format cannot (a tab or a line break: such a run is not remembered).
bool writeContextSnapshot(const std::filesystem::path& file, const ContextSnapshot& snapshot);

// The snapshot in `file`; nullopt when there is none or it is damaged or of another format.
std::optional<ContextSnapshot> readContextSnapshot(const std::filesystem::path& file);

// Whether every path of `snapshot` stats as recorded, and each recorded stat is old enough to
// vouch for what was read then.
bool contextSnapshotHolds(const ContextSnapshot& snapshot);

// The stat of each of `paths` (statEntry), or nullopt when one changed too recently (within
// kRacyNs of `takenNs`) for a snapshot to trust it.
std::optional<std::vector<std::pair<std::string, std::optional<FileStat>>>> statForSnapshot(
    const std::vector<std::string>& paths, int64_t takenNs);

} // namespace gradlint
