#include "program/read_file.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gradlint {

bool readWholeFile(const std::string& path, std::string& out, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot read: ") + std::strerror(errno);
    return false;
  }
  struct stat info {};
  // The size is a hint: a file that shrinks while being read, or grows before its stat's size
  // is reached, is read to its end.
  size_t capacity = ::fstat(fd, &info) == 0 && info.st_size > 0
                        ? static_cast<size_t>(info.st_size) + 1
                        : 4096;
  out.resize(capacity);
  size_t size = 0;
  while (true) {
    if (size == capacity) {
      capacity *= 2;
      out.resize(capacity);
    }
    const size_t asked = capacity - size;
    const ssize_t got = ::read(fd, out.data() + size, asked);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      error = std::string("read failed: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    size += static_cast<size_t>(got);
    // A regular file that gave all the bytes its stat counted, and fewer than asked (the
    // capacity is one past that size), is at its end: no second read to see it.
    if (S_ISREG(info.st_mode) && size >= static_cast<size_t>(info.st_size) &&
        static_cast<size_t>(got) < asked) {
      break;
    }
  }
  ::close(fd);
  out.resize(size);
  return true;
}

bool replaceFile(const std::filesystem::path& path, std::string_view text, std::string& error) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path temp =
      path.parent_path() /
      fmt::format(".{}.{}.{}.{}.tmp", path.filename().string(), ::getpid(),
                  std::hash<std::thread::id>{}(std::this_thread::get_id()), counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) ||
        !out.flush()) {
      error = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    error = ec.message();
    std::filesystem::remove(temp, ec);
    return false;
  }
  return true;
}

} // namespace gradlint
