#include "program/result_cache.h"
#include "program/cache_folder.h"
#include "program/file_stat.h"
#include "program/key_hasher.h"
#include "program/read_file.h"

#include "program/test_hooks.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <optional>
#include <thread>
#include <unordered_map>

#include <sys/stat.h>
#include <unistd.h>

namespace gradlint {
namespace {

using nlohmann::json;

// Bumped whenever the entry layout changes; old entries are then misses.
constexpr int kEntryFormat = 3;

json rangeToJson(const ir::SourceRange& r) {
  return json::array({r.startByte, r.endByte, r.startLine, r.startColumn, r.endLine, r.endColumn});
}

ir::SourceRange rangeFromJson(const json& j) {
  return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>(),
          j.at(3).get<uint32_t>(), j.at(4).get<uint32_t>(), j.at(5).get<uint32_t>()};
}

json diagnosticToJson(const Diagnostic& d) {
  json related = json::array();
  for (const RelatedLocation& r : d.related) {
    related.push_back({{"path", r.path}, {"range", rangeToJson(r.range)}, {"message", r.message}});
  }
  json witness = json::array();
  for (const WitnessStep& step : d.witness) {
    witness.push_back({{"kind", static_cast<int>(step.kind)},
                       {"range", rangeToJson(step.range)},
                       {"detail", step.detail}});
  }
  json out = {{"code", d.code},         {"message", d.message},
              {"help", d.help},         {"severity", static_cast<int>(d.severity)},
              {"range", rangeToJson(d.range)}, {"related", std::move(related)},
              {"witness", std::move(witness)}};
  if (d.fix) {
    json edits = json::array();
    for (const Edit& edit : d.fix->edits) {
      edits.push_back(json::array({edit.startByte, edit.endByte, edit.replacement}));
    }
    out["fix"] = {{"message", d.fix->message},
                  {"applicability", static_cast<int>(d.fix->applicability)},
                  {"edits", std::move(edits)}};
  }
  return out;
}

Diagnostic diagnosticFromJson(const json& j) {
  Diagnostic d;
  d.code = j.at("code").get<std::string>();
  d.message = j.at("message").get<std::string>();
  d.help = j.at("help").get<std::string>();
  d.severity = static_cast<Severity>(j.at("severity").get<int>());
  d.range = rangeFromJson(j.at("range"));
  for (const json& r : j.at("related")) {
    d.related.push_back({r.at("path").get<std::string>(), rangeFromJson(r.at("range")),
                         r.at("message").get<std::string>()});
  }
  for (const json& step : j.at("witness")) {
    d.witness.push_back({static_cast<ir::EventKind>(step.at("kind").get<int>()),
                         rangeFromJson(step.at("range")), step.at("detail").get<std::string>()});
  }
  if (const auto fix = j.find("fix"); fix != j.end()) {
    Fix& out = d.fix.emplace();
    out.message = fix->at("message").get<std::string>();
    out.applicability = static_cast<Applicability>(fix->at("applicability").get<int>());
    for (const json& edit : fix->at("edits")) {
      out.edits.push_back({edit.at(0).get<uint32_t>(), edit.at(1).get<uint32_t>(),
                           edit.at(2).get<std::string>()});
    }
  }
  return d;
}

// Per file of a run: its stat when read, and the hash of what was read.
struct ContentMemo {
  std::vector<std::optional<FileStat>> stats;
  std::vector<uint64_t> hashes;
  int64_t takenNs = 0; // when the stats were taken (before the reads)
};

json memoToJson(const std::vector<FileInput>& inputs, const ContentMemo& memo) {
  json files = json::object();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!memo.stats[i]) continue;
    const FileStat& st = *memo.stats[i];
    files[inputs[i].ref.path] = {st.size,  st.mtimeNs, st.ctimeNs,
                                 st.inode, st.device,  memo.hashes[i]};
  }
  return {{"taken", memo.takenNs}, {"files", std::move(files)}};
}

json resultToJson(const CheckResult& result, const std::string& contentsKey) {
  json files = json::array();
  for (const FileReport& file : result.files) {
    json diagnostics = json::array();
    for (const Diagnostic& d : file.diagnostics) diagnostics.push_back(diagnosticToJson(d));
    files.push_back({{"path", file.source->path()},
                     {"diagnostics", std::move(diagnostics)},
                     {"scopes", file.scopes}});
  }
  return {{"format", kEntryFormat},        {"contents", contentsKey},
          {"files", std::move(files)},     {"warnings", result.warnings},
          {"filesRead", result.filesRead}, {"filesAnalysed", result.filesAnalysed}};
}

// The stored result, when `entry` is a complete entry for exactly these contents.
std::optional<CheckResult> resultFromJson(const json& entry, const std::string& contentsKey,
                                          const std::vector<FileInput>& inputs) {
  if (!entry.is_object() || entry.value("format", json()) != kEntryFormat ||
      entry.value("contents", "") != contentsKey) {
    return std::nullopt;
  }
  std::unordered_map<std::string_view, const FileInput*> byPath;
  for (const FileInput& input : inputs) byPath.emplace(input.ref.path, &input);
  CheckResult result;
  for (const json& file : entry.at("files")) {
    const std::string path = file.at("path").get<std::string>();
    const auto input = byPath.find(path);
    if (input == byPath.end()) return std::nullopt;
    FileReport report;
    const std::string& bytes = *input->second->contents;
    if (isNotebookPath(path)) {
      // The stored ranges are in the text of the notebook's joined cells: rebuild it.
      std::string error;
      std::optional<Notebook> notebook = Notebook::parse(bytes, error);
      if (!notebook) return std::nullopt;
      report.source = std::make_shared<SourceText>(
          path, std::make_shared<const Notebook>(std::move(*notebook)));
    } else {
      report.source = std::make_shared<SourceText>(path, bytes);
    }
    for (const json& d : file.at("diagnostics")) {
      report.diagnostics.push_back(diagnosticFromJson(d));
    }
    report.scopes = file.at("scopes").get<std::vector<std::string>>();
    if (report.scopes.size() != report.diagnostics.size()) return std::nullopt;
    result.files.push_back(std::move(report));
  }
  result.warnings = entry.at("warnings").get<std::vector<std::string>>();
  result.filesRead = entry.at("filesRead").get<size_t>();
  result.filesAnalysed = entry.at("filesAnalysed").get<size_t>();
  return result;
}

// An installed module of a known distribution: keyed by its distribution's identity (in
// CheckOptions::knownSummariesKey), not by its path and text. A run that takes its summaries
// from the distribution cache does not have it as an input, and must have the same key as the
// run that read it.
bool keyedByDistribution(const FileInput& input) {
  return input.context && !input.origin.empty();
}

// The entry's name: everything about the run except the files' contents.
std::string runKey(const std::vector<FileInput>& inputs, const CheckOptions& options) {
  KeyHasher key;
  key.add(static_cast<uint64_t>(kEntryFormat));
  addAnalysisSettings(key, options);
  key.add(static_cast<uint64_t>(std::count_if(
      inputs.begin(), inputs.end(), [](const FileInput& in) { return !keyedByDistribution(in); })));
  for (const FileInput& input : inputs) {
    if (keyedByDistribution(input)) continue;
    key.add(input.ref.path);
    key.add(input.ref.moduleName);
    key.add(static_cast<uint64_t>(input.context) << 2 |
            static_cast<uint64_t>(input.ref.isPackageInit) << 1 |
            static_cast<uint64_t>(input.ref.inPackage));
    key.add(input.origin);
    key.add(static_cast<uint64_t>(input.enabledRules != nullptr));
    if (input.enabledRules) {
      key.add(static_cast<uint64_t>(input.enabledRules->size()));
      for (const std::string& code : *input.enabledRules) key.add(code);
    }
  }
  return key.hex();
}

bool readWhole(const std::filesystem::path& path, std::string& out) {
  std::string error;
  return readWholeFile(path.string(), out, error);
}

// A folder only gradlint writes to: git and backup tools leave it alone.
bool prepareCacheDir(const std::filesystem::path& dir, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  const std::filesystem::path ignore = dir / ".gitignore";
  if (!std::filesystem::exists(ignore, ec)) {
    std::ofstream(ignore) << "# Created by gradlint.\n*\n";
    std::ofstream(dir / "CACHEDIR.TAG")
        << "Signature: 8a477f597d28d172789f06886806bc55\n# Created by gradlint.\n";
  }
  return true;
}

// Writes to a name no other process uses, then renames over the entry: readers see the old
// entry or the new one, whole.
bool writeEntry(const std::filesystem::path& dir, const std::string& name, const std::string& text,
                std::string& error) {
  if (!prepareCacheDir(dir, error)) return false;
  return replaceFile(dir / name, text, error);
}

} // namespace

void addAnalysisSettings(KeyHasher& key, const CheckOptions& options) {
  addBuildIdentity(key);
  key.add(static_cast<uint64_t>(options.prefilter));
  key.add(options.knownSummariesKey);
  for (const auto* list : {&options.select, &options.ignore}) {
    key.add(static_cast<uint64_t>(list->size()));
    for (const std::string& code : *list) key.add(code);
  }
}

CheckResult runCheckWithCache(std::vector<FileInput> inputs, const CheckOptions& options,
                              const std::filesystem::path& cacheDir, const Analysis& analyse) {
  for (const FileInput& input : inputs) {
    // A C++ result also depends on headers and compile flags, which the key does not hash.
    if (isCppPath(input.ref.path)) {
      return analyse(inputs, options);
    }
  }
  const std::string name = "run-" + runKey(inputs, options) + ".json";
  std::optional<json> entry;
  std::string stored;
  if (readWhole(cacheDir / name, stored)) {
    try {
      entry = json::parse(stored);
    } catch (const json::exception&) {
      // A truncated or corrupted entry is a miss; the run below replaces it.
    }
  }
  // The stored stats and hashes of the last run over these files: a file whose stat is
  // unchanged (and was not changed just before it was read) keeps its hash without a read.
  std::unordered_map<std::string, std::pair<FileStat, uint64_t>> remembered;
  try {
    if (entry && entry->is_object() && entry->value("format", 0) == kEntryFormat) {
      const json& memo = entry->at("memo");
      const int64_t taken = memo.at("taken").get<int64_t>();
      for (const auto& [path, row] : memo.at("files").items()) {
        const FileStat st{row.at(0).get<int64_t>(), row.at(1).get<int64_t>(),
                          row.at(2).get<int64_t>(), row.at(3).get<uint64_t>(),
                          row.at(4).get<uint64_t>()};
        if (statTrusted(st, taken)) {
          remembered.emplace(path, std::make_pair(st, row.at(5).get<uint64_t>()));
        }
      }
    }
  } catch (const json::exception&) {
    remembered.clear();
  }

  // Hash every file's contents: from the memo where its stat is unchanged, else read (runCheck
  // then uses these bytes).
  ContentMemo memo;
  memo.takenNs = nowNs();
  memo.stats.resize(inputs.size());
  memo.hashes.resize(inputs.size());
  std::atomic<bool> unreadable{false};
  auto readAndHash = [&](size_t i) {
    FileInput& input = inputs[i];
    if (input.contents) {
      if (input.contentsStat) memo.stats[i] = input.contentsStat;
      memo.hashes[i] = XXH3_64bits(input.contents->data(), input.contents->size());
    } else if (input.contentsHash) {
      memo.stats[i] = input.contentsStat;
      memo.hashes[i] = *input.contentsHash;
    } else {
      memo.stats[i] = statFile(input.ref.path); // before the read: a later write changes it
      std::string bytes;
      deleteBeforeReadHook(input.ref.path);
      if (!readWhole(input.ref.path, bytes)) {
        unreadable = true; // runCheck reports it
        return;
      }
      // Hashed, and kept while the budget has room: else runCheck reads the file again
      // against the hash (FileInput).
      memo.hashes[i] = XXH3_64bits(bytes.data(), bytes.size());
      input.contentsHash = memo.hashes[i];
      if (options.keptTexts && options.keptTexts->take(bytes.size())) {
        input.keptText = std::make_shared<std::optional<std::string>>(std::move(bytes));
      }
    }
  };
  parallelFor(inputs.size(), options.threads, [&](size_t i) {
    const FileInput& input = inputs[i];
    // Bytes read earlier in the run are hashed as read (readAndHash), not taken from the memo.
    if (!input.contents && !input.contentsHash) {
      if (auto known = remembered.find(input.ref.path); known != remembered.end()) {
        if (const std::optional<FileStat> st = statFile(input.ref.path);
            st && *st == known->second.first) {
          memo.stats[i] = st;
          memo.hashes[i] = known->second.second;
          return;
        }
      }
    }
    readAndHash(i);
  });
  if (unreadable) return analyse(inputs, options);
  auto contentsKey = [&] {
    KeyHasher contents;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!keyedByDistribution(inputs[i])) contents.add(memo.hashes[i]);
    }
    return contents.hex();
  };

  if (entry) {
    try {
      // Findings are shown with their source lines: read the files that have any.
      std::unordered_map<std::string_view, size_t> byPath;
      for (size_t i = 0; i < inputs.size(); ++i) byPath.emplace(inputs[i].ref.path, i);
      bool readable = entry->value("contents", "") == contentsKey();
      if (readable) {
        for (const json& file : entry->at("files")) {
          const auto found = byPath.find(file.at("path").get<std::string>());
          if (found == byPath.end()) break;
          FileInput& input = inputs[found->second];
          std::string error;
          std::string bytes;
          if (!input.contents && !(readWholeFile(input.ref.path, bytes, error) &&
                                   XXH3_64bits(bytes.data(), bytes.size()) ==
                                       memo.hashes[found->second])) {
            readable = false; // changed since its stat: analyse again
            break;
          }
          if (!input.contents) input.contents = std::move(bytes);
        }
      }
      if (readable) {
        if (std::optional<CheckResult> hit = resultFromJson(*entry, contentsKey(), inputs)) {
          markCacheEntryUsed(cacheDir / name);
          return std::move(*hit);
        }
      }
    } catch (const json::exception&) {
      // A malformed entry is a miss.
    }
  }

  // A miss: analyse the bytes that were hashed, so the stored hashes describe them.
  parallelFor(inputs.size(), options.threads, [&](size_t i) {
    if (!inputs[i].contents && !inputs[i].contentsHash) readAndHash(i);
  });
  if (unreadable) return analyse(inputs, options);
  CheckResult result = analyse(inputs, options);
  if (!result.errors.empty()) return result; // an I/O error is not a result to repeat
  std::string text;
  try {
    json fresh = resultToJson(result, contentsKey());
    fresh["memo"] = memoToJson(inputs, memo);
    text = fresh.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const json::exception&) {
    return result; // text that is not UTF-8 in a message: not stored, still correct
  }
  std::string error;
  if (!writeEntry(cacheDir, name, text, error)) {
    result.warnings.push_back(fmt::format("cannot write the cache in {}: {} (continuing without "
                                          "it; --no-cache turns it off)",
                                          cacheDir.string(), error));
  }
  return result;
}

} // namespace gradlint
