// Fault injection for the reliability tests (docs/reliability.md), through environment variables
// that no user sets. Each hook does nothing unless its variable is set.
#pragma once

#include <cstddef>
#include <string>

namespace gradlint {

// GRADLINT_TEST_DELETE_BEFORE_READ=NAME: deletes a file named NAME just before gradlint reads
// it, as another process could between discovery and reading.
void deleteBeforeReadHook(const std::string& path);

// GRADLINT_TEST_CHANGE_BEFORE_REREAD=NAME: appends a line to a file named NAME just before
// gradlint reads it again (the check drops a file's text between steps), as an editor saving it
// mid-run could. GRADLINT_TEST_CHANGE_BEFORE_FIX_WRITE=NAME: the same just before `--fix` checks
// that the file still holds the text its fixes edit.
void changeBeforeRereadHook(const std::string& path);
void changeBeforeFixWriteHook(const std::string& path);

// GRADLINT_TEST_WHOLE_IR_BUDGET=BYTES: the budget of lowerings the check keeps whole (else
// `bytes`); 0 makes every file read from disk go through the digests and a second lowering.
size_t wholeIrBudgetHook(size_t bytes);

// GRADLINT_TEST_KEPT_TEXT_BUDGET=BYTES: the budget of file texts a run keeps between its steps
// (kKeptTextBudgetBytes); 0 makes every step read its file again.
size_t keptTextBudgetHook(size_t bytes);

} // namespace gradlint
