#include "program/file_stat.h"

#include <chrono>

#include <sys/stat.h>

namespace gradlint {

namespace {

FileStat fromStat(const struct stat& info) {
  FileStat out;
  out.size = info.st_size;
  out.mtimeNs = int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec;
  out.ctimeNs = int64_t{info.st_ctim.tv_sec} * 1'000'000'000 + info.st_ctim.tv_nsec;
  out.inode = info.st_ino;
  out.device = info.st_dev;
  return out;
}

} // namespace

std::optional<FileStat> statFile(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return fromStat(info);
}

std::optional<FileStat> statEntry(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return fromStat(info);
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace gradlint
