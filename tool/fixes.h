// Applying the fixes rules attach to their findings: pick the applicable ones, apply those whose
// edits do not overlap, check again (a fix can enable another) for at most 10 rounds; then write
// the files atomically, or show the changes as a unified diff.
#pragma once

#include "program/engine.h"

#include <string>
#include <string_view>
#include <vector>

namespace gradlint {

inline constexpr int kMaxFixRounds = 10;

struct AppliedFixes {
  std::string text;
  std::vector<Edit> edits; // those applied, sorted
  size_t fixed = 0; // findings fixed (one fix shared by several findings counts for each)
};

// Applies the fixes of `diagnostics` to `text`: safe ones, and unsafe ones when `unsafe`. A fix
// whose edits overlap an earlier one's is left for the next round.
AppliedFixes applyFixes(std::string_view text, const std::vector<Diagnostic>& diagnostics,
                        bool unsafe);

struct FixedFile {
  size_t input = 0; // index into the inputs
  std::string path;
  std::string original; // as read
  std::string fixed;
  size_t fixes = 0;
  size_t lastRoundFixes = 0; // undone with the round's edits when they break the syntax
};

struct FixRun {
  CheckResult remaining;        // the check of the fixed text: what is left
  std::vector<FixedFile> files; // files whose text changed, in input order
  size_t fixed = 0;
  std::vector<std::string> warnings; // fixes undone because they broke the syntax
};

// Checks `inputs`, applies fixes and checks again until nothing changes or kMaxFixRounds.
// Writes nothing.
FixRun runFixes(std::vector<FileInput> inputs, const CheckOptions& options, bool unsafe);

// A unified diff (3 lines of context) from `before` to `after`, with `a/PATH` and `b/PATH`
// headers; "" when they are equal.
std::string unifiedDiff(const std::string& path, const std::string& before,
                        const std::string& after);

// Replaces the file at `path` (through symlinks) with `contents`: written to a temporary file in
// the same folder, given the original's mode bits, synced, then renamed over it, so a reader
// sees the old or the new file and a failure leaves the old one intact. Returns false with
// `error` ("path: why") on failure. GRADLINT_TEST_FAIL_WRITE=1 makes it fail after writing the
// temporary file, for tests of that path.
bool writeFileAtomically(const std::string& path, std::string_view contents, std::string& error);

} // namespace gradlint
