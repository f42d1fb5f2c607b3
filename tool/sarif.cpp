// SARIF 2.1.0 for code-scanning services (GitHub's upload-sarif, Azure DevOps, IDE viewers).
// Locations are relative to %SRCROOT%, the folder gradlint ran in, so the log does not depend on
// where the checkout lives; the result fingerprints do not depend on line numbers.
#include "rules/rule.h"
#include "tool/render.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <filesystem>
#include <map>
#include <system_error>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif
#ifndef GRADLINT_HOMEPAGE
#define GRADLINT_HOMEPAGE "https://github.com/gradlint/gradlint"
#endif

namespace gradlint {
namespace {

using nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr std::string_view kSourceRoot = "%SRCROOT%";

// RFC 3986: keep unreserved characters and `/`, percent-encode every other byte.
std::string percentEncode(std::string_view path) {
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

// SARIF asks for messages that are complete sentences.
std::string sentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (!text.empty() && text.back() != '.' && text.back() != '?' && text.back() != '!') {
    text += '.';
  }
  return text;
}

struct ArtifactLocation {
  ordered_json json;
  std::string relative; // what the fingerprint hashes: stable across checkouts
};

ArtifactLocation artifactLocation(const std::string& path) {
  const std::string relative = pathFromWorkingDirectory(path);
  std::error_code ec;
  const fs::path asPath(relative);
  if (!asPath.is_absolute()) {
    return {ordered_json{{"uri", percentEncode(fs::path(relative).generic_string())},
                         {"uriBaseId", kSourceRoot}},
            relative};
  }
  // Outside the working folder: an absolute file URI.
  return {ordered_json{{"uri", "file://" + percentEncode(asPath.lexically_normal().string())}},
          relative};
}

ordered_json region(const ir::SourceRange& range) {
  return ordered_json{{"startLine", range.startLine + 1},
                      {"startColumn", range.startColumn + 1},
                      {"endLine", range.endLine + 1},
                      {"endColumn", range.endColumn + 1}};
}

ordered_json physicalLocation(const ordered_json& artifact, const ir::SourceRange& range) {
  return ordered_json{{"artifactLocation", artifact}, {"region", region(range)}};
}

// In `source`'s own file: a notebook's region is in the .ipynb file's lines, and the region
// within the cell goes in the location's properties.
ordered_json physicalLocation(const ordered_json& artifact, const SourceText& source,
                              const ir::SourceRange& range) {
  ordered_json location = physicalLocation(artifact, source.inFile(range));
  const SourceText::ShownRange shown = source.shown(range);
  if (shown.cell != 0) {
    location["properties"] = {{"cell", shown.cell}, {"cellRegion", region(shown.range)}};
  }
  return location;
}

std::string_view level(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info: break;
  }
  return "note";
}

// The first paragraph of the rule page's "What it does" section, on one line.
std::string fullDescription(std::string_view page, std::string_view fallback) {
  const size_t heading = page.find("## What it does");
  if (heading == std::string_view::npos) return sentence(std::string(fallback));
  size_t start = page.find('\n', heading);
  if (start == std::string_view::npos) return sentence(std::string(fallback));
  ++start;
  size_t end = page.find("\n\n", start);
  if (end == std::string_view::npos) end = page.size();
  std::string text;
  for (const char c : page.substr(start, end - start)) text += c == '\n' ? ' ' : c;
  return sentence(text.empty() ? std::string(fallback) : text);
}

// The line's text with runs of whitespace collapsed and the ends trimmed: re-indenting or
// re-flowing spaces does not change a finding's identity.
std::string normalisedLine(std::string_view line) {
  std::string out;
  bool pendingSpace = false;
  for (const char c : line) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out += c;
  }
  return out;
}

ordered_json driver() {
  ordered_json rules = ordered_json::array();
  for (const rules::Rule* rule : rules::allRules()) {
    const rules::RuleInfo& info = rule->info();
    const std::string_view page = rules::ruleDocumentation(info.code);
    ordered_json entry{{"id", info.code},
                       {"name", info.name},
                       {"shortDescription", {{"text", sentence(std::string(info.summary))}}},
                       {"fullDescription", {{"text", fullDescription(page, info.summary)}}},
                       {"helpUri", ruleUrl(info.code)}};
    if (!page.empty()) {
      entry["help"] = {
          {"text", sentence(fmt::format("{} See {}", sentence(std::string(info.summary)),
                                        ruleUrl(info.code)))},
          {"markdown", page}};
    }
    entry["defaultConfiguration"] = {{"level", level(info.severity)}};
    entry["properties"] = {{"tags", ordered_json::array({"pytorch", "autograd"})},
                           {"preview", info.preview}};
    rules.push_back(std::move(entry));
  }
  return ordered_json{{"name", "gradlint"},
                      {"version", GRADLINT_VERSION},
                      {"semanticVersion", GRADLINT_VERSION},
                      {"informationUri", GRADLINT_HOMEPAGE},
                      {"rules", rules}};
}

// Whether the run did its work: a run that could not read some of its input is not
// successful, and each problem is a notification, so code scanning does not show it as clean.
ordered_json invocation(const CheckResult& result) {
  ordered_json notifications = ordered_json::array();
  for (const std::string& problem : result.errors) {
    notifications.push_back({{"level", "error"}, {"message", {{"text", sentence(problem)}}}});
  }
  ordered_json json{{"executionSuccessful", result.errors.empty()}};
  if (!notifications.empty()) json["toolExecutionNotifications"] = notifications;
  return json;
}

} // namespace

void renderSarif(const CheckResult& result, std::ostream& out) {
  std::map<std::string_view, size_t> ruleIndex;
  for (size_t i = 0; i < rules::allRules().size(); ++i) {
    ruleIndex[rules::allRules()[i]->info().code] = i;
  }
  ordered_json results = ordered_json::array();
  for (const FileReport& file : result.files) {
    const SourceText& source = *file.source;
    const ArtifactLocation artifact = artifactLocation(source.path());
    // Findings with the same fingerprint in one file are told apart by their order.
    std::map<uint64_t, size_t> seen;
    for (size_t index = 0; index < file.diagnostics.size(); ++index) {
      const Diagnostic& d = file.diagnostics[index];
      ordered_json entry{{"ruleId", d.code}};
      if (auto it = ruleIndex.find(d.code); it != ruleIndex.end()) entry["ruleIndex"] = it->second;
      entry["level"] = level(d.severity);
      std::string text = sentence(d.message);
      if (!d.help.empty()) text += " Help: " + sentence(d.help);
      entry["message"] = {{"text", text}};
      entry["locations"] =
          ordered_json::array({{{"physicalLocation", physicalLocation(artifact.json, source, d.range)}}});

      if (!d.related.empty()) {
        ordered_json related = ordered_json::array();
        for (size_t r = 0; r < d.related.size(); ++r) {
          const RelatedLocation& location = d.related[r];
          const bool here = location.path.empty() || location.path == source.path();
          related.push_back(
              {{"id", r + 1},
               {"physicalLocation",
                here ? physicalLocation(artifact.json, source, location.range)
                     : physicalLocation(artifactLocation(location.path).json, location.range)},
               {"message", {{"text", sentence(location.message)}}}});
        }
        entry["relatedLocations"] = related;
      }
      if (!d.witness.empty()) {
        // The witness is the path that proves the finding: one thread flow, step by step.
        ordered_json steps = ordered_json::array();
        for (const WitnessStep& step : d.witness) {
          steps.push_back({{"location",
                            {{"physicalLocation", physicalLocation(artifact.json, source, step.range)},
                             {"message", {{"text", sentence(step.detail)}}}}},
                           {"kinds", ordered_json::array({std::string(ir::toString(step.kind))})}});
        }
        entry["codeFlows"] =
            ordered_json::array({{{"threadFlows", ordered_json::array({{{"locations", steps}}})}}});
      }

      // Identity without line numbers: code, file, the reported line's text and the enclosing
      // function. XXH3 (libxxhash) is fast, and its output is specified and frozen, so the same
      // finding hashes the same on every machine and release (std::hash promises neither).
      const std::string scope = index < file.scopes.size() ? file.scopes[index] : "";
      const std::string key =
          fmt::format("{}\n{}\n{}\n{}", d.code, artifact.relative,
                      normalisedLine(source.lineText(d.range.startLine)), scope);
      const uint64_t hash = XXH3_64bits(key.data(), key.size());
      const size_t occurrence = ++seen[hash];
      entry["partialFingerprints"] = {
          {"gradlintFingerprint/v1", fmt::format("{:016x}:{}", hash, occurrence)}};
      // Runtime verdicts from `check --confirm`, per device.
      if (!d.confirmation.empty()) {
        ordered_json confirmation = ordered_json::object();
        for (const auto& [device, verdict] : d.confirmation) confirmation[device] = verdict;
        entry["properties"] = {{"confirmation", confirmation}};
      }
      results.push_back(std::move(entry));
    }
  }

  std::error_code ec;
  std::string root = fs::current_path(ec).generic_string();
  if (!root.ends_with('/')) root += '/';
  ordered_json run{{"tool", {{"driver", driver()}}},
                   {"originalUriBaseIds",
                    {{std::string(kSourceRoot), {{"uri", "file://" + percentEncode(root)}}}}},
                   {"columnKind", "unicodeCodePoints"},
                   {"invocations", ordered_json::array({invocation(result)})},
                   {"results", results}};
  ordered_json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                   {"version", "2.1.0"},
                   {"runs", ordered_json::array({run})}};
  out << log.dump(2, ' ', false, ordered_json::error_handler_t::replace) << '\n';
}

} // namespace gradlint
