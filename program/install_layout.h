// Where gradlint's parts lie, found from the running executable (/proc/self/exe), never from a
// path fixed at build time: an installed tree (PREFIX/bin/gradlint, PREFIX/lib/gradlint/*) and
// the build tree (build/bin/gradlint, build/lib/*) both work wherever they are moved.
#pragma once

#include <filesystem>
#include <string_view>

namespace gradlint {

// The folder of the running executable ("." if /proc is not mounted).
std::filesystem::path executableDir();

// Where the packages install a private library or module: BIN/../lib/gradlint/NAME.
std::filesystem::path installedPrivateLibraryPath(std::string_view fileName);

// A private library or module: BIN/../lib/gradlint/NAME when it exists (installed), else
// BIN/../lib/NAME (the build tree). When neither exists, messages name the installed path.
std::filesystem::path privateLibraryPath(std::string_view fileName);

} // namespace gradlint
