#include "program/context_snapshot.h"

#include "program/read_file.h"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

namespace gradlint {
namespace {

// One record per line, fields split by tabs, the path last; the last line says the file is
// whole. A text format read with no JSON tree: a warm run reads this file and little else.
constexpr std::string_view kHeader = "gradlint context snapshot 3";
constexpr std::string_view kEnd = "end";

bool writable(std::string_view text) {
  return text.find_first_of("\t\n\r") == std::string_view::npos;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos
                                                                    : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

template <typename Number> bool parseNumber(std::string_view text, Number& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

} // namespace

bool writeContextSnapshot(const std::filesystem::path& file, const ContextSnapshot& snapshot) {
  std::string text;
  text.reserve(128 * (snapshot.seen.size() + snapshot.inputs.size()) + 256);
  text += kHeader;
  text += '\n';
  text += fmt::format("taken\t{}\n", snapshot.takenNs);
  for (const auto& [path, stat] : snapshot.seen) {
    if (!writable(path)) return false;
    if (stat) {
      text += fmt::format("seen\t{}\t{}\t{}\t{}\t{}\t{}\n", stat->size, stat->mtimeNs,
                          stat->ctimeNs, stat->inode, stat->device, path);
    } else {
      text += fmt::format("absent\t{}\n", path);
    }
  }
  for (const ContextSnapshot::Input& input : snapshot.inputs) {
    if (!writable(input.path) || !writable(input.moduleName) || !writable(input.origin) ||
        !writable(input.file)) {
      return false;
    }
    text += fmt::format("input\t{}\t{}\t{}\t{}\t{}\n",
                        (input.isPackageInit ? 1 : 0) | (input.inPackage ? 2 : 0),
                        input.moduleName, input.origin, input.file, input.path);
  }
  for (const auto& [name, count] : snapshot.counts) {
    if (!writable(name)) return false;
    text += fmt::format("count\t{}\t{}\n", name, count);
  }
  for (const auto& [module, why] : snapshot.unresolved) {
    if (!writable(module) || !writable(why)) return false;
    text += fmt::format("unresolved\t{}\t{}\n", module, why);
  }
  for (const auto& [path, why] : snapshot.skipped) {
    if (!writable(path) || !writable(why)) return false;
    text += fmt::format("skipped\t{}\t{}\n", path, why);
  }
  for (const std::string& label : snapshot.distributions) {
    if (!writable(label)) return false;
    text += fmt::format("distribution\t{}\n", label);
  }
  for (const ContextSnapshot::CachedEntry& entry : snapshot.cachedEntries) {
    if (!writable(entry.label) || !writable(entry.file)) return false;
    text += fmt::format("cached\t{}\t{}\t{}\n", entry.textHash, entry.label, entry.file);
  }
  if (!writable(snapshot.installedKey)) return false;
  if (!snapshot.installedKey.empty()) {
    text += fmt::format("installed\t{}\n", snapshot.installedKey);
  }
  text += kEnd;
  text += '\n';
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::string error;
  return !ec && replaceFile(file, text, error);
}

std::optional<ContextSnapshot> readContextSnapshot(const std::filesystem::path& file) {
  std::string text;
  std::string error;
  if (!readWholeFile(file.string(), text, error)) return std::nullopt;
  ContextSnapshot snapshot;
  bool headed = false;
  bool ended = false;
  for (std::string_view line : Lines(text)) {
    if (ended) return std::nullopt; // nothing follows the end
    if (!headed) {
      if (line != kHeader) return std::nullopt;
      headed = true;
      continue;
    }
    if (line == kEnd) {
      ended = true;
      continue;
    }
    const std::vector<std::string_view> part = fields(line);
    const std::string_view kind = part[0];
    if (kind == "taken" && part.size() == 2) {
      if (!parseNumber(part[1], snapshot.takenNs)) return std::nullopt;
    } else if (kind == "seen" && part.size() == 7) {
      FileStat stat;
      if (!parseNumber(part[1], stat.size) || !parseNumber(part[2], stat.mtimeNs) ||
          !parseNumber(part[3], stat.ctimeNs) || !parseNumber(part[4], stat.inode) ||
          !parseNumber(part[5], stat.device)) {
        return std::nullopt;
      }
      snapshot.seen.emplace_back(std::string(part[6]), stat);
    } else if (kind == "absent" && part.size() == 2) {
      snapshot.seen.emplace_back(std::string(part[1]), std::nullopt);
    } else if (kind == "input" && part.size() == 6) {
      unsigned flags = 0;
      if (!parseNumber(part[1], flags) || flags > 3) return std::nullopt;
      snapshot.inputs.push_back({std::string(part[5]), std::string(part[2]),
                                 std::string(part[3]), (flags & 1) != 0, (flags & 2) != 0,
                                 std::string(part[4])});
    } else if (kind == "count" && part.size() == 3) {
      size_t count = 0;
      if (!parseNumber(part[2], count)) return std::nullopt;
      snapshot.counts[std::string(part[1])] = count;
    } else if (kind == "unresolved" && part.size() == 3) {
      snapshot.unresolved.emplace_back(std::string(part[1]), std::string(part[2]));
    } else if (kind == "skipped" && part.size() == 3) {
      snapshot.skipped.emplace_back(std::string(part[1]), std::string(part[2]));
    } else if (kind == "distribution" && part.size() == 2) {
      snapshot.distributions.emplace_back(part[1]);
    } else if (kind == "installed" && part.size() == 2) {
      snapshot.installedKey = part[1];
    } else if (kind == "cached" && part.size() == 4) {
      ContextSnapshot::CachedEntry entry;
      if (!parseNumber(part[1], entry.textHash)) return std::nullopt;
      entry.label = part[2];
      entry.file = part[3];
      snapshot.cachedEntries.push_back(std::move(entry));
    } else {
      return std::nullopt;
    }
  }
  if (!ended || snapshot.takenNs == 0) return std::nullopt;
  return snapshot;
}

bool contextSnapshotHolds(const ContextSnapshot& snapshot) {
  for (const auto& [path, recorded] : snapshot.seen) {
    if (recorded && !statTrusted(*recorded, snapshot.takenNs)) return false;
    if (statEntry(path) != recorded) return false;
  }
  return true;
}

std::optional<std::vector<std::pair<std::string, std::optional<FileStat>>>> statForSnapshot(
    const std::vector<std::string>& paths, int64_t takenNs) {
  std::vector<std::pair<std::string, std::optional<FileStat>>> seen;
  seen.reserve(paths.size());
  for (const std::string& path : paths) {
    std::optional<FileStat> stat = statEntry(path);
    if (stat && !statTrusted(*stat, takenNs)) return std::nullopt;
    seen.emplace_back(path, stat);
  }
  return seen;
}

} // namespace gradlint
