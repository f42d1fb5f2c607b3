// What stat(2) says about a file, for caches that skip reading unchanged files (the result
// cache's content memo, the context's import memo). Equal stats mean unchanged contents, as
// git's index assumes: ctime changes on every write and cannot be set back by `touch`, and the
// inode on a replace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gradlint {

struct FileStat {
  int64_t size = -1;
  int64_t mtimeNs = 0;
  int64_t ctimeNs = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
  bool operator==(const FileStat&) const = default;
};

// nullopt for a path that is not a regular file.
std::optional<FileStat> statFile(const std::string& path);

// Any kind of entry (a folder's mtime moves when an entry is added, removed or renamed), links
// followed; nullopt for a path that is not there.
std::optional<FileStat> statEntry(const std::string& path);

// The wall clock, in nanoseconds since the epoch.
int64_t nowNs();

// A file changed within this long before its stat was stored may change again without its
// timestamps moving (coarse file system clocks): its stored hash is not trusted ("racy git").
constexpr int64_t kRacyNs = 3'000'000'000;

// Whether a stat stored at `takenNs` can vouch for the contents it was stored with.
inline bool statTrusted(const FileStat& stat, int64_t takenNs) {
  return stat.ctimeNs < takenNs - kRacyNs && stat.mtimeNs < takenNs - kRacyNs;
}

} // namespace gradlint
