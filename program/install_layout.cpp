#include "program/install_layout.h"

#include <system_error>

namespace gradlint {

std::filesystem::path executableDir() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : self.parent_path();
}

std::filesystem::path installedPrivateLibraryPath(std::string_view fileName) {
  return executableDir().parent_path() / "lib" / "gradlint" / fileName;
}

std::filesystem::path privateLibraryPath(std::string_view fileName) {
  std::filesystem::path installed = installedPrivateLibraryPath(fileName);
  std::error_code ec;
  if (std::filesystem::exists(installed, ec)) return installed;
  return executableDir().parent_path() / "lib" / fileName;
}

} // namespace gradlint
