// Cache keys: a 128-bit hash of length-prefixed parts, and the identity of this gradlint build
// (shared by the result cache and the context caches).
#pragma once

#include <fmt/format.h>
#include <xxhash.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

namespace gradlint {

// Accumulates the parts of a key, each length-prefixed so that ("ab","c") != ("a","bc").
class KeyHasher {
public:
  KeyHasher() { XXH3_128bits_reset(state_); }
  ~KeyHasher() { XXH3_freeState(state_); }
  KeyHasher(const KeyHasher&) = delete;
  KeyHasher& operator=(const KeyHasher&) = delete;

  void add(std::string_view part) {
    const uint64_t size = part.size();
    XXH3_128bits_update(state_, &size, sizeof size);
    XXH3_128bits_update(state_, part.data(), part.size());
  }
  void add(uint64_t value) { XXH3_128bits_update(state_, &value, sizeof value); }
  std::string hex() const {
    const XXH128_hash_t hash = XXH3_128bits_digest(state_);
    return fmt::format("{:016x}{:016x}", hash.high64, hash.low64);
  }

private:
  XXH3_state_t* state_ = XXH3_createState();
};

// The version and, since a rebuilt binary keeps its version number but may analyse
// differently, the binary's size and modification time: a developer's rebuild never reads a
// stale entry.
inline void addBuildIdentity(KeyHasher& key) {
  key.add(GRADLINT_VERSION);
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    key.add(static_cast<uint64_t>(std::filesystem::file_size(self, ec)));
    key.add(static_cast<uint64_t>(
        std::filesystem::last_write_time(self, ec).time_since_epoch().count()));
  }
}

} // namespace gradlint
