// The distribution cache's entries and the import memo, as files under the cache folder.
#include "program/context_collector.h"
#include "program/cache_folder.h"

#include "checkers/python/imports.h"
#include "program/config.h"
#include "program/context_snapshot.h"
#include "program/definition_slices.h"
#include "program/discover.h"
#include "program/file_stat.h"
#include "program/key_hasher.h"
#include "program/module_resolver.h"
#include "program/read_file.h"
#include "program/result_cache.h"
#include "program/summary_store.h"
#include "program/test_hooks.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::context_detail {

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

std::string distributionKey(const Distribution& distribution) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  auto add = [&](std::string_view part) {
    const uint64_t size = part.size();
    XXH3_64bits_update(state, &size, sizeof size);
    XXH3_64bits_update(state, part.data(), part.size());
  };
  add(GRADLINT_VERSION);
  add(std::to_string(kDistributionEntryFormat));
  std::error_code ec;
  // A rebuilt gradlint may summarise differently: its binary's stat is part of the key.
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    add(std::to_string(fs::file_size(self, ec)));
    add(std::to_string(fs::last_write_time(self, ec).time_since_epoch().count()));
  }
  add(distribution.name);
  add(distribution.version);
  std::string record;
  std::string error;
  if (readWholeFile((distribution.metadataFolder / "RECORD").string(), record, error)) {
    add(record);
  } else {
    add(std::to_string(
        fs::last_write_time(distribution.metadataFolder, ec).time_since_epoch().count()));
  }
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  std::string name = distribution.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  return fmt::format("{}-{:016x}.json", name, hash);
}

std::string installedKeyOf(const std::map<std::string, std::set<std::string>>& reached) {
  std::string out; // one line without tabs: a snapshot stores it as it is
  for (const auto& [key, modules] : reached) {
    if (!out.empty()) out += ' ';
    out += key; // a file name without spaces (distributionKey)
    char separator = ':';
    for (const std::string& module : modules) {
      out += separator;
      out += module; // a dotted name
      separator = ',';
    }
  }
  return out;
}

nlohmann::json issuedToJson(const IssuedDemand& issued) {
  return {{"module", issued.module}, {"names", issued.names}, {"name", issued.mayBeName}};
}

IssuedDemand issuedFromJson(const nlohmann::json& value) {
  return {value.at("module").get<std::string>(), value.at("names").get<std::vector<std::string>>(),
          value.at("name").get<bool>()};
}

nlohmann::json importToJson(const python::ImportStatement& statement) {
  return {{"level", statement.level}, {"module", statement.module}, {"names", statement.names},
          {"bound", statement.bound},  {"from", statement.isFrom},   {"line", statement.line}};
}

python::ImportStatement importFromJson(const nlohmann::json& value) {
  python::ImportStatement statement;
  statement.level = value.at("level").get<int>();
  statement.module = value.at("module").get<std::string>();
  statement.names = value.at("names").get<std::vector<std::string>>();
  statement.bound = value.at("bound").get<std::vector<std::string>>();
  statement.isFrom = value.at("from").get<bool>();
  statement.line = value.at("line").get<uint32_t>();
  return statement;
}


fs::path importMemoPath(const fs::path& cacheDir, size_t bucket) {
  return cacheDir / "context" / fmt::format("imports-{:02x}.json", bucket);
}

// Loads the buckets of `paths`.
void loadImportMemo(const fs::path& cacheDir, const std::vector<std::string>& paths,
                    ImportMemo& memo) {
  if (cacheDir.empty()) return;
  for (const std::string& path : paths) {
    const size_t index = ImportMemo::bucketOf(path);
    if (memo.loaded[index]) continue;
    memo.loaded[index] = 1;
    std::string text;
    std::string error;
    if (!readWholeFile(importMemoPath(cacheDir, index).string(), text, error)) continue;
    markCacheEntryUsed(importMemoPath(cacheDir, index));
    auto& bucket = memo.buckets[index];
    try {
      const nlohmann::json entry = nlohmann::json::parse(text);
      if (entry.at("format") != kImportMemoFormat) continue;
      for (const auto& [file, row] : entry.at("files").items()) {
        ImportMemo::Entry memoEntry;
        memoEntry.stat = {row.at(0).get<int64_t>(), row.at(1).get<int64_t>(),
                          row.at(2).get<int64_t>(), row.at(3).get<uint64_t>(),
                          row.at(4).get<uint64_t>()};
        memoEntry.takenNs = row.at(5).get<int64_t>();
        for (const nlohmann::json& statement : row.at(6)) {
          memoEntry.imports.push_back(importFromJson(statement));
        }
        memoEntry.contentKey = row.at(7).get<std::string>();
        memoEntry.attributesRead = row.at(8).get<std::vector<std::vector<std::string>>>();
        bucket.emplace(file, std::move(memoEntry));
      }
    } catch (const nlohmann::json::exception&) {
      bucket.clear(); // a damaged bucket is a miss
    }
  }
}

// Writes the buckets that changed; one not written is only slower next time.
void storeImportMemo(const fs::path& cacheDir, const ImportMemo& memo) {
  std::error_code ec;
  fs::create_directories(cacheDir / "context", ec);
  if (ec) return;
  for (size_t index = 0; index < kImportMemoBuckets; ++index) {
    if (!memo.changed[index]) continue;
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [path, file] : memo.buckets[index]) {
      nlohmann::json imports = nlohmann::json::array();
      for (const python::ImportStatement& statement : file.imports) {
        imports.push_back(importToJson(statement));
      }
      files[path] = {file.stat.size,  file.stat.mtimeNs, file.stat.ctimeNs, file.stat.inode,
                     file.stat.device, file.takenNs,     std::move(imports), file.contentKey,
                     file.attributesRead};
    }
    std::string text;
    try {
      text = nlohmann::json{{"format", kImportMemoFormat}, {"files", std::move(files)}}.dump();
    } catch (const nlohmann::json::exception&) {
      // A path or an import that is not UTF-8 (a Latin-1 file's `import caf\xe9`) cannot be
      // written as JSON: the bucket is not stored, and the run is as correct, only slower next
      // time (like the result cache's entries).
      continue;
    }
    std::string error;
    replaceFile(importMemoPath(cacheDir, index), text, error);
  }
}

// Loads the distribution cache entry `file` of the distribution `label`: its summaries join
// the report's cached summaries, and its modules `modules` (when given). `textHash` is the
// hash of its text: when given nonzero, the entry must have that text (what a snapshot saw).
// False when there is no entry or it is damaged (a miss: the modules are read again and the
// entry rewritten).
bool loadDistributionEntry(const fs::path& file, const std::string& label,
                           std::unordered_map<std::string, CachedModule>* modules,
                           ContextReport& report, uint64_t& textHash) {
  std::string text;
  std::string error;
  if (!readWholeFile(file.string(), text, error)) return false;
  const uint64_t hash = XXH3_64bits(text.data(), text.size());
  if (textHash != 0 && hash != textHash) return false;
  textHash = hash;
  std::unordered_map<std::string, CachedModule> cached;
  auto summaries = std::make_shared<ir::SummaryTable>();
  try {
    const nlohmann::json entry = nlohmann::json::parse(text);
    if (entry.at("format") != kDistributionEntryFormat ||
        entry.at("distribution").get<std::string>() != label ||
        !readSummaries(entry.at("summaries").dump(), *summaries, error)) {
      return false;
    }
    for (const nlohmann::json& item : entry.at("modules")) {
      CachedModule module;
      module.name = item.at("name").get<std::string>();
      module.isPackageInit = item.at("init").get<bool>();
      module.followed = item.at("followed").get<std::vector<std::string>>();
      for (const nlohmann::json& issued : item.at("issued")) {
        module.issued.push_back(issuedFromJson(issued));
      }
      cached.emplace(module.name, std::move(module));
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  markCacheEntryUsed(file);
  if (!report.cachedSummaries) report.cachedSummaries = std::make_shared<ir::SummaryTable>();
  for (const auto& [name, summary] : summaries->all())
    report.cachedSummaries->update(name, summary);
  report.cachedDistributions.push_back(label);
  if (modules != nullptr) *modules = std::move(cached);
  return true;
}

} // namespace gradlint::context_detail
