// Reading a whole file into memory: one read(2) into a buffer of the file's size, not a stream
// copied twice (a warm run reads every file of the tree and does little else).
#pragma once

#include <string>

namespace gradlint {

// Returns false with `error` ("cannot read: REASON") when the file cannot be opened or read.
bool readWholeFile(const std::string& path, std::string& out, std::string& error);

} // namespace gradlint
