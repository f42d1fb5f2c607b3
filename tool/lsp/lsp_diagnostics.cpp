#include "tool/lsp/lsp_diagnostics.h"

#include "tool/lsp/uri.h"
#include "tool/render.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>

namespace gradlint::lsp {
namespace {

int lspSeverity(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return 1;
  case Severity::Warning:
    return 2;
  case Severity::Info:
    return 3;
  }
  return 1;
}

// Related locations may be in other files (a helper's module): their UTF-16 positions need
// that file's text, read once per diagnostic conversion.
class LocationResolver {
public:
  explicit LocationResolver(const TextDocument& document) : document_(document) {}

  nlohmann::json location(const std::string& path, const ir::SourceRange& range) {
    const TextDocument* file = fileFor(path);
    // A range read from a summary file has lines and columns but no byte offsets.
    const bool noBytes = range.endByte == 0 && (range.endLine != 0 || range.endColumn != 0);
    if (file == nullptr || noBytes) {
      // Unreadable: code points are the closest thing to UTF-16 units we have.
      const Range fallback{{range.startLine, range.startColumn}, {range.endLine, range.endColumn}};
      return {{"uri", file != nullptr ? file->uri() : uriFromPath(absolute(path))},
              {"range", toJson(fallback)}};
    }
    return {{"uri", file->uri()},
            {"range", toJson(rangeOf(*file, range.startByte, range.endByte))}};
  }

private:
  static std::string absolute(const std::string& path) {
    std::error_code error;
    const std::filesystem::path full = std::filesystem::absolute(path, error);
    return error ? path : full.lexically_normal().string();
  }

  const TextDocument* fileFor(const std::string& path) {
    if (path.empty() || path == document_.path()) return &document_;
    auto found = others_.find(path);
    if (found == others_.end()) {
      std::unique_ptr<TextDocument> loaded;
      std::ifstream stream(path, std::ios::binary);
      if (stream) {
        std::string text((std::istreambuf_iterator<char>(stream)), {});
        const std::string full = absolute(path);
        loaded = std::make_unique<TextDocument>(uriFromPath(full), full, 0, std::move(text));
      }
      found = others_.emplace(path, std::move(loaded)).first;
    }
    return found->second.get();
  }

  const TextDocument& document_;
  std::map<std::string, std::unique_ptr<TextDocument>> others_;
};

bool sameRange(const ir::SourceRange& a, const ir::SourceRange& b) {
  return a.startByte == b.startByte && a.endByte == b.endByte;
}

} // namespace

nlohmann::json toJson(const Range& range) {
  return {{"start", {{"line", range.start.line}, {"character", range.start.character}}},
          {"end", {{"line", range.end.line}, {"character", range.end.character}}}};
}

Range rangeOf(const TextDocument& document, uint32_t startByte, uint32_t endByte) {
  return Range{document.positionOf(startByte), document.positionOf(endByte)};
}

nlohmann::json toLspDiagnostic(const Diagnostic& diagnostic, const TextDocument& document) {
  nlohmann::json json = {
      {"range", toJson(rangeOf(document, diagnostic.range.startByte, diagnostic.range.endByte))},
      {"severity", lspSeverity(diagnostic.severity)},
      {"code", diagnostic.code},
      {"codeDescription", {{"href", ruleUrl(diagnostic.code)}}},
      {"source", "gradlint"},
      {"message", diagnostic.message},
  };
  LocationResolver resolver(document);
  nlohmann::json related = nlohmann::json::array();
  for (const RelatedLocation& location : diagnostic.related) {
    related.push_back({{"location", resolver.location(location.path, location.range)},
                       {"message", location.message}});
  }
  // The witness: the path that proves the finding, step by step (in the diagnostic's file).
  const size_t steps = diagnostic.witness.size();
  for (size_t i = 0; i < steps; ++i) {
    const WitnessStep& step = diagnostic.witness[i];
    if (steps == 1 && sameRange(step.range, diagnostic.range)) continue; // says nothing new
    related.push_back({{"location", resolver.location("", step.range)},
                       {"message", fmt::format("path {}/{}: {}", i + 1, steps, step.detail)}});
  }
  if (!related.empty()) json["relatedInformation"] = std::move(related);
  if (diagnostic.fix) json["data"] = {{"fixable", true}};
  return json;
}

} // namespace gradlint::lsp
