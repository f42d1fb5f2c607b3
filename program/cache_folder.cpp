#include "program/cache_folder.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

namespace gradlint {
namespace {

int64_t toNs(const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

// A file replaceFile is writing: ".NAME.PID.N.tmp".
bool isTemporary(const std::string& name) {
  return name.size() > 5 && name.front() == '.' && name.ends_with(".tmp");
}

struct Entry {
  std::filesystem::path path;
  uint64_t size = 0;
  int64_t usedNs = 0; // the later of atime and mtime
  ino_t inode = 0;
};

} // namespace

std::optional<uint64_t> parseByteSize(std::string_view text) {
  uint64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.ends_with("ib")) {
    unit.resize(unit.size() - 2);
    if (unit.empty()) return std::nullopt; // "iB" alone names no unit
  } else if (unit.ends_with("b")) {
    unit.pop_back();
  }
  int shift = 0;
  if (unit == "k") {
    shift = 10;
  } else if (unit == "m") {
    shift = 20;
  } else if (unit == "g") {
    shift = 30;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (shift > 0 && number > (UINT64_MAX >> shift)) return std::nullopt;
  return number << shift;
}

void markCacheEntryUsed(const std::filesystem::path& entry) {
  const timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  ::utimensat(AT_FDCWD, entry.c_str(), times, 0);
}

CacheTrim trimCacheFolder(const std::filesystem::path& dir, uint64_t maxBytes) {
  CacheTrim trim;
  std::vector<Entry> entries;
  std::error_code ec;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  constexpr int64_t kAbandonedNs = int64_t{3600} * 1'000'000'000;
  std::filesystem::recursive_directory_iterator it(
      dir, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    std::error_code kindError;
    if (it.depth() == 0 && path.filename() == "pch" && it->is_directory(kindError)) {
      it.disable_recursion_pending(); // precompiled headers: trimmed apart
      continue;
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue; // gone, or a folder
    const std::string name = path.filename().string();
    if (path.parent_path() == dir && (name == ".gitignore" || name == "CACHEDIR.TAG")) continue;
    if (isTemporary(name)) {
      // Being written by another run, unless its writer died long ago.
      std::error_code ignored;
      if (toNs(now) - toNs(st.st_mtim) > kAbandonedNs) std::filesystem::remove(path, ignored);
      continue;
    }
    entries.push_back({path, static_cast<uint64_t>(st.st_size),
                       std::max(toNs(st.st_atim), toNs(st.st_mtim)), st.st_ino});
    trim.bytesBefore += static_cast<uint64_t>(st.st_size);
  }
  trim.bytesAfter = trim.bytesBefore;
  if (trim.bytesBefore <= maxBytes) return trim;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.usedNs < b.usedNs; });
  for (const Entry& entry : entries) {
    if (trim.bytesAfter <= maxBytes) break;
    struct stat st {};
    if (::lstat(entry.path.c_str(), &st) != 0) {
      trim.bytesAfter -= entry.size; // another run removed it
      continue;
    }
    // Renamed over since it was listed (another run stored a new entry there), or used since:
    // it is recent now; leave it.
    if (st.st_ino != entry.inode ||
        std::max(toNs(st.st_atim), toNs(st.st_mtim)) != entry.usedNs) {
      continue;
    }
    std::error_code removeError;
    if (std::filesystem::remove(entry.path, removeError) || !removeError) {
      trim.bytesAfter -= entry.size;
      ++trim.removed;
    }
  }
  return trim;
}

} // namespace gradlint
