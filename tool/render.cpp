#include "tool/render.h"

#include "rules/rule.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

#ifndef GRADLINT_DOCS_URL
#define GRADLINT_DOCS_URL "https://github.com/gradlint/gradlint/blob/main/docs/rules/"
#endif

namespace gradlint {
namespace {

using nlohmann::ordered_json;

constexpr int kTabWidth = 4;

// The line as displayed (tabs expanded) and the display column of a character column.
struct DisplayLine {
  std::string text;
  std::vector<uint32_t> columnAt; // character column -> display column
};

DisplayLine displayLine(std::string_view line) {
  DisplayLine display;
  uint32_t column = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    const bool continuation = (c & 0xC0) == 0x80;
    if (!continuation) display.columnAt.push_back(column);
    if (c == '\t') {
      const uint32_t spaces = kTabWidth - column % kTabWidth;
      display.text.append(spaces, ' ');
      column += spaces;
    } else if (c < 0x20 || c == 0x7F) {
      display.text += ' '; // control characters would garble the terminal
      ++column;
    } else {
      display.text += static_cast<char>(c);
      column += continuation ? 0 : 1;
    }
  }
  display.columnAt.push_back(column);
  return display;
}

std::string location(const std::string& path, const ir::SourceRange& range) {
  return fmt::format("{}:{}:{}", path, range.startLine + 1, range.startColumn + 1);
}

void renderFull(const FileReport& file, const Diagnostic& d, std::ostream& out) {
  const SourceText& source = *file.source;
  out << location(source.path(), d.range) << ": " << d.code << ' ' << d.message << '\n';
  const std::string_view rawLine = source.lineText(d.range.startLine);
  // Very long lines (minified or generated code) are not echoed whole.
  if (rawLine.size() <= 400) {
    const DisplayLine line = displayLine(rawLine);
    const std::string number = std::to_string(d.range.startLine + 1);
    const std::string gutter(number.size(), ' ');
    auto displayColumn = [&](uint32_t column) {
      return line.columnAt[std::min<size_t>(column, line.columnAt.size() - 1)];
    };
    const uint32_t start = displayColumn(d.range.startColumn);
    const uint32_t end = d.range.endLine == d.range.startLine ? displayColumn(d.range.endColumn)
                                                              : displayColumn(UINT32_MAX);
    out << gutter << " |\n";
    out << number << " | " << line.text << '\n';
    out << gutter << " | " << std::string(start, ' ')
        << std::string(std::max<uint32_t>(1, end > start ? end - start : 1), '^') << ' '
        << d.code << '\n';
    out << gutter << " |\n";
  }
  for (const RelatedLocation& related : d.related) {
    out << "  = note: "
        << location(related.path.empty() ? source.path() : related.path, related.range) << ": "
        << related.message << '\n';
  }
  if (!d.help.empty()) out << "  = help: " << d.help << '\n';
  out << '\n';
}

ordered_json position(uint32_t line, uint32_t column) {
  return ordered_json{{"column", column + 1}, {"row", line + 1}};
}

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

ordered_json toJson(const FileReport& file, const Diagnostic& d) {
  ordered_json related = ordered_json::array();
  for (const RelatedLocation& r : d.related) {
    related.push_back({{"filename", absolutePath(r.path.empty() ? file.source->path() : r.path)},
                       {"location", position(r.range.startLine, r.range.startColumn)},
                       {"end_location", position(r.range.endLine, r.range.endColumn)},
                       {"message", r.message}});
  }
  ordered_json witness = ordered_json::array();
  for (const WitnessStep& step : d.witness) {
    witness.push_back({{"kind", ir::toString(step.kind)},
                       {"row", step.range.startLine + 1},
                       {"column", step.range.startColumn + 1},
                       {"detail", step.detail}});
  }
  return ordered_json{{"cell", nullptr},
                      {"code", d.code},
                      {"end_location", position(d.range.endLine, d.range.endColumn)},
                      {"filename", absolutePath(file.source->path())},
                      {"fix", nullptr},
                      {"location", position(d.range.startLine, d.range.startColumn)},
                      {"message", d.message},
                      {"noqa_row", d.range.startLine + 1},
                      {"url", ruleUrl(d.code)},
                      {"severity", toString(d.severity)},
                      {"help", d.help},
                      {"related", related},
                      {"witness", witness}};
}

} // namespace

bool parseOutputFormat(std::string_view name, OutputFormat& format) {
  if (name == "full") format = OutputFormat::Full;
  else if (name == "concise") format = OutputFormat::Concise;
  else if (name == "json") format = OutputFormat::Json;
  else return false;
  return true;
}

std::string ruleUrl(std::string_view code) {
  return fmt::format("{}{}.md", GRADLINT_DOCS_URL, code);
}

void render(const CheckResult& result, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::Json) {
    ordered_json all = ordered_json::array();
    for (const FileReport& file : result.files) {
      for (const Diagnostic& d : file.diagnostics) all.push_back(toJson(file, d));
    }
    // Bad bytes in a message (from the user's source) must not make the output invalid JSON.
    out << all.dump(2, ' ', false, ordered_json::error_handler_t::replace) << '\n';
    return;
  }
  size_t count = 0;
  for (const FileReport& file : result.files) {
    for (const Diagnostic& d : file.diagnostics) {
      ++count;
      if (format == OutputFormat::Concise) {
        out << location(file.source->path(), d.range) << ": " << d.code << ' ' << d.message
            << '\n';
      } else {
        renderFull(file, d, out);
      }
    }
  }
  if (count > 0) out << fmt::format("Found {} error{}.\n", count, count == 1 ? "" : "s");
}

void renderStatistics(const CheckResult& result, std::ostream& out) {
  std::map<std::string, size_t> counts;
  for (const FileReport& file : result.files) {
    for (const Diagnostic& d : file.diagnostics) ++counts[d.code];
  }
  std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [code, count] : sorted) {
    const rules::Rule* rule = rules::findRule(code);
    out << fmt::format("{:>5}\t{}\t{}\n", count, code, rule ? rule->info().name : "");
  }
}

} // namespace gradlint
