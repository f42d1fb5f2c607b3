#include "tool/fixes.h"

#include <dtl/dtl.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace gradlint {
namespace {

bool overlaps(const Edit& a, const Edit& b) {
  // Two insertions at one offset conflict too: their order would be arbitrary.
  return (a.startByte < b.endByte && b.startByte < a.endByte) || a.startByte == b.startByte;
}

bool sameEdits(const std::vector<Edit>& a, const std::vector<Edit>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Edit& x, const Edit& y) {
    return x.startByte == y.startByte && x.endByte == y.endByte && x.replacement == y.replacement;
  });
}

// A Python syntax error or a C++ file that does not compile: no fix is applied to the file.
bool hasSyntaxError(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
    return d.code == "GL000" || d.code == kCompileErrorCode;
  });
}

// Lines with their terminators, so a missing final newline is a difference too.
std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

void printLine(std::ostringstream& out, char prefix, const std::string& line) {
  out << prefix << line;
  if (!line.ends_with('\n')) out << "\n\\ No newline at end of file\n";
}

} // namespace

AppliedFixes applyFixes(std::string_view text, const std::vector<Diagnostic>& diagnostics,
                        bool unsafe) {
  std::vector<const Fix*> candidates;
  for (const Diagnostic& d : diagnostics) {
    if (!d.fix || d.fix->edits.empty()) continue;
    if (d.fix->applicability == Applicability::Unsafe && !unsafe) continue;
    const bool inBounds = std::all_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const Edit& e) {
      return e.startByte <= e.endByte && e.endByte <= text.size();
    });
    // A fix is applied whole or not at all: one whose own edits overlap cannot be.
    std::vector<Edit> own = d.fix->edits;
    std::sort(own.begin(), own.end(),
              [](const Edit& a, const Edit& b) { return a.startByte < b.startByte; });
    bool selfOverlapping = false;
    for (size_t i = 1; i < own.size(); ++i) selfOverlapping |= overlaps(own[i - 1], own[i]);
    if (inBounds && !selfOverlapping) candidates.push_back(&*d.fix);
  }
  auto firstByte = [](const Fix* fix) {
    uint32_t first = UINT32_MAX;
    for (const Edit& edit : fix->edits) first = std::min(first, edit.startByte);
    return first;
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const Fix* a, const Fix* b) { return firstByte(a) < firstByte(b); });

  AppliedFixes result;
  std::vector<const Fix*> accepted;
  std::vector<Edit> edits;
  for (const Fix* fix : candidates) {
    const bool duplicate = std::any_of(accepted.begin(), accepted.end(), [&](const Fix* other) {
      return sameEdits(other->edits, fix->edits);
    });
    if (duplicate) {
      ++result.fixed; // the same change fixes this finding too
      continue;
    }
    const bool conflicts = std::any_of(fix->edits.begin(), fix->edits.end(), [&](const Edit& e) {
      return std::any_of(edits.begin(), edits.end(),
                         [&](const Edit& taken) { return overlaps(e, taken); });
    });
    // Deferred, not lost: runFixes checks the fixed text again and the finding, if it still
    // holds, offers its fix against that text.
    if (conflicts) continue;
    accepted.push_back(fix);
    edits.insert(edits.end(), fix->edits.begin(), fix->edits.end());
    ++result.fixed;
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return std::tie(a.startByte, a.endByte) < std::tie(b.startByte, b.endByte);
  });
  size_t at = 0;
  for (const Edit& edit : edits) {
    if (edit.startByte < at) continue; // accepted fixes do not overlap: never taken
    result.text.append(text.substr(at, edit.startByte - at));
    result.text += edit.replacement;
    at = edit.endByte;
    result.edits.push_back(edit);
  }
  result.text.append(text.substr(at));
  return result;
}

FixRun runFixes(std::vector<FileInput> inputs, const CheckOptions& options, bool unsafe) {
  FixRun run;
  std::map<std::string, size_t> inputByPath;
  for (size_t i = 0; i < inputs.size(); ++i) inputByPath.emplace(inputs[i].ref.path, i);
  std::map<size_t, FixedFile> fixedFiles;
  std::map<size_t, std::string> previousText; // before the last round's fixes
  std::set<size_t> frozen;                    // a fix broke the syntax: no more fixes there

  for (int round = 0;; ++round) {
    CheckResult result = runCheck(inputs, options);
    bool changed = false;
    for (const FileReport& report : result.files) {
      const auto found = inputByPath.find(report.source->path());
      if (found == inputByPath.end()) continue;
      const size_t index = found->second;
      if (frozen.count(index)) continue;
      const bool broken = hasSyntaxError(report.diagnostics);
      if (broken && previousText.count(index)) {
        // The last round's fixes made the file unparsable: undo them and stop fixing it.
        FixedFile& file = fixedFiles[index];
        run.warnings.push_back(
            fmt::format("{}: a fix produced invalid syntax and was undone; please report it",
                        report.source->path()));
        inputs[index].contents = previousText[index];
        file.fixed = previousText[index];
        file.fixes -= file.lastRoundFixes;
        frozen.insert(index);
        changed = true;
        continue;
      }
      if (broken || round >= kMaxFixRounds) continue;
      AppliedFixes applied = applyFixes(report.source->bytes(), report.diagnostics, unsafe);
      if (applied.fixed == 0 || applied.text == report.source->bytes()) continue;
      // The file's text: a notebook's JSON, whose edited cells alone are written again.
      const Notebook* notebook = report.source->notebook();
      const std::string& text = notebook ? notebook->fileBytes() : report.source->bytes();
      if (notebook != nullptr) {
        std::optional<std::string> written = notebook->applyEdits(applied.edits);
        if (!written) continue; // an edit across cells or over a magic: left alone
        applied.text = std::move(*written);
      }
      FixedFile& file = fixedFiles[index];
      if (file.fixes == 0 && file.path.empty()) {
        file.input = index;
        file.path = report.source->path();
        file.original = text;
      }
      previousText[index] = text;
      file.fixed = applied.text;
      file.fixes += applied.fixed;
      file.lastRoundFixes = applied.fixed;
      inputs[index].contents = std::move(applied.text);
      changed = true;
    }
    // Files fixed in earlier rounds and clean now are not in result.files: nothing to undo.
    if (!changed) {
      run.remaining = std::move(result);
      break;
    }
  }
  for (auto& [index, file] : fixedFiles) {
    if (file.fixed == file.original) continue;
    run.fixed += file.fixes;
    run.files.push_back(std::move(file));
  }
  return run;
}

std::string unifiedDiff(const std::string& path, const std::string& before,
                        const std::string& after) {
  if (before == after) return "";
  const std::vector<std::string> a = splitLines(before);
  const std::vector<std::string> b = splitLines(after);
  dtl::Diff<std::string> diff(a, b);
  diff.onHuge(); // bounds the memory of the edit-path search on long files
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- a/" << path << '\n' << "+++ b/" << path << '\n';
  for (const auto& hunk : diff.getUniHunks()) {
    // A hunk that starts at the first line has no context line to take its number from.
    const long long oldStart = hunk.b == 0 ? hunk.a : std::max<long long>(hunk.a, 1);
    const long long newStart = hunk.d == 0 ? hunk.c : std::max<long long>(hunk.c, 1);
    out << fmt::format("@@ -{},{} +{},{} @@\n", oldStart, hunk.b, newStart, hunk.d);
    for (const auto& element : hunk.common[0]) printLine(out, ' ', element.first);
    for (const auto& element : hunk.change) {
      const char prefix = element.second.type == dtl::SES_ADD      ? '+'
                          : element.second.type == dtl::SES_DELETE ? '-'
                                                                   : ' ';
      printLine(out, prefix, element.first);
    }
    for (const auto& element : hunk.common[1]) printLine(out, ' ', element.first);
  }
  return out.str();
}

bool writeFileAtomically(const std::string& path, std::string_view contents, std::string& error) {
  std::error_code ec;
  // Write through a symlink to its target, so the link stays a link.
  const bool isLink = fs::is_symlink(fs::symlink_status(path, ec));
  const fs::path target = isLink ? fs::canonical(path, ec) : fs::path(path);
  if (isLink && ec) {
    error = fmt::format("{}: cannot resolve the link: {}", path, ec.message());
    return false;
  }
  struct stat original {};
  if (::stat(target.c_str(), &original) != 0) {
    error = fmt::format("{}: cannot write the fix: {}", path, std::strerror(errno));
    return false;
  }
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temporary =
      (folder / fmt::format(".{}.gradlint-XXXXXX", target.filename().string())).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = fmt::format("{}: cannot write the fix: cannot create a temporary file in {}: {}", path,
                        folder.string(), std::strerror(errno));
    return false;
  }
  auto failWith = [&](std::string why) {
    ::close(fd);
    ::unlink(temporary.c_str());
    error = fmt::format("{}: cannot write the fix: {}", path, why);
    return false;
  };
  for (size_t written = 0; written < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failWith(std::strerror(errno));
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd, original.st_mode & 07777) != 0) return failWith(std::strerror(errno));
  // Keep the owner when we can (as root); as anyone else the file becomes ours, as with editors.
  if (::fchown(fd, original.st_uid, original.st_gid) != 0) {
    // Not fatal: an unprivileged user cannot give files away.
  }
  if (::fsync(fd) != 0) return failWith(std::strerror(errno));
  const char* injected = std::getenv("GRADLINT_TEST_FAIL_WRITE");
  if (injected != nullptr && std::string_view(injected) == "1") {
    return failWith("simulated failure (GRADLINT_TEST_FAIL_WRITE=1)");
  }
  if (::close(fd) != 0) {
    ::unlink(temporary.c_str());
    error = fmt::format("{}: cannot write the fix: {}", path, std::strerror(errno));
    return false;
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int renameError = errno;
    ::unlink(temporary.c_str());
    error = fmt::format("{}: cannot write the fix: {}", path, std::strerror(renameError));
    return false;
  }
  return true;
}

} // namespace gradlint
