// The cache folder's size bound (.gradlint_cache: result entries, distribution entries, context
// summaries, snapshots, import memos). After a run that wrote to it, the least recently used
// entries are removed until the folder is within the bound. Every entry is a cache of what can
// be computed again, so removing one only costs a later run the work.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace gradlint {

// The bound when neither --cache-max-size nor GRADLINT_CACHE_MAX_SIZE sets one.
constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{64} << 20;
// The least bound of the cache folder's pch/ (C++ precompiled headers), which is trimmed apart:
// one precompiled header of LibTorch's is larger than the whole default bound.
constexpr uint64_t kDefaultPrecompiledHeaderMaxBytes = uint64_t{1} << 30;

// A size as the command line and the environment give it: a number of bytes, or with a suffix
// K, M or G (powers of 1024, an optional trailing B or iB, any case). nullopt when malformed.
std::optional<uint64_t> parseByteSize(std::string_view text);

// Records that a run used `entry` (read it and relied on it): it is removed after entries used
// longer ago. Sets the access time explicitly, as file systems mounted noatime or relatime do
// not. Never fails: an entry that cannot be marked is only removed earlier.
void markCacheEntryUsed(const std::filesystem::path& entry);

struct CacheTrim {
  uint64_t bytesBefore = 0; // the entries' sizes before (temporary files not counted)
  uint64_t bytesAfter = 0;
  size_t removed = 0;
};

// Removes the least recently used entries of `dir` (by the later of their access and
// modification times) until the rest hold at most `maxBytes`. Entries are written to a
// temporary file and renamed (replaceFile), so a file another process is writing is a
// temporary one: those are neither counted nor removed, unless older than an hour (left by a
// crash). An entry that another process removes or replaces meanwhile is skipped; nothing
// throws. The folder's own .gitignore and CACHEDIR.TAG stay, and so does its pch/ subfolder,
// bounded apart (kDefaultPrecompiledHeaderMaxBytes).
CacheTrim trimCacheFolder(const std::filesystem::path& dir, uint64_t maxBytes);

} // namespace gradlint
