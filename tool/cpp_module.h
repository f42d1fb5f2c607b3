// Opens the C++ checker module (checkers/cpp/checker_module.h) the first time a run needs it.
#pragma once

#include <string>

namespace gradlint {

namespace cpp {
class CheckerModule;
} // namespace cpp

// The C++ checker, loaded once per process (thread-safe); null when it is missing or from
// another build, with `error` set to a message for the user that names the C++ module.
const cpp::CheckerModule* cppCheckerModule(std::string& error);

} // namespace gradlint
