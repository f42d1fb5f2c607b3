#include "tool/render.h"

#include "rules/rule.h"
#include "tool/display_width.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string_view>
#include <system_error>
#include <vector>

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
      // A character is a byte that does not continue one (as in SourceText); CJK and most
      // emoji take two cells, so the carets stay under the code.
      size_t length = 0;
      if (!continuation) column += c < 0x80 ? 1 : characterCells(line, i, length);
    }
  }
  display.columnAt.push_back(column);
  return display;
}

std::string location(const std::string& path, const ir::SourceRange& range) {
  return fmt::format("{}:{}:{}", path, range.startLine + 1, range.startColumn + 1);
}

// In `source`: `path:line:col`, or in a notebook `path:cell 3:2:5` (Ruff's spelling), the line
// counted within the cell.
std::string location(const SourceText& source, const std::string& path,
                     const ir::SourceRange& range) {
  const SourceText::ShownRange shown = source.shown(range);
  if (shown.cell == 0) return location(path, range);
  return fmt::format("{}:cell {}:{}", path, shown.cell, location("", shown.range).substr(1));
}

// A related location: in the diagnostic's own file (mapped through its cells) or in another.
std::string relatedLocation(const SourceText& source, const RelatedLocation& related) {
  if (related.path.empty() || related.path == source.path()) {
    return location(source, source.path(), related.range);
  }
  return location(related.path, related.range);
}

// ` [runtime: cpu confirmed, cuda needs-cuda]` after the message, from `check --confirm`.
std::string confirmationSuffix(const Diagnostic& d) {
  if (d.confirmation.empty()) return {};
  std::string text = " [runtime:";
  for (size_t i = 0; i < d.confirmation.size(); ++i) {
    text += fmt::format("{} {} {}", i == 0 ? "" : ",", d.confirmation[i].first,
                        d.confirmation[i].second);
  }
  return text + "]";
}

void renderFull(const FileReport& file, const Diagnostic& d, std::ostream& out) {
  const SourceText& source = *file.source;
  out << location(source, source.path(), d.range) << ": " << d.code << ' ' << d.message
      << confirmationSuffix(d) << '\n';
  const std::string_view rawLine = source.lineText(d.range.startLine);
  // Very long lines (minified or generated code) are not echoed whole.
  if (rawLine.size() <= 400) {
    const DisplayLine line = displayLine(rawLine);
    const std::string number = std::to_string(source.shownLine(d.range.startLine).line + 1);
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
    out << "  = note: " << relatedLocation(source, related) << ": " << related.message << '\n';
  }
  if (!d.help.empty()) out << "  = help: " << d.help << '\n';
  out << '\n';
}

ordered_json position(uint32_t line, uint32_t column) {
  return ordered_json{{"column", column + 1}, {"row", line + 1}};
}

// A cell number for JSON: null outside notebooks (as Ruff writes it).
ordered_json cellJson(uint32_t cell) { return cell == 0 ? ordered_json(nullptr) : ordered_json(cell); }

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

// ruff's `fix` object: null, or the applicability, a message and the edits with positions.
ordered_json fixJson(const SourceText& source, const std::optional<Fix>& fix) {
  if (!fix) return nullptr;
  ordered_json edits = ordered_json::array();
  for (const Edit& edit : fix->edits) {
    const ir::SourceRange range = source.shown(source.range(edit.startByte, edit.endByte)).range;
    edits.push_back({{"content", edit.replacement},
                     {"end_location", position(range.endLine, range.endColumn)},
                     {"location", position(range.startLine, range.startColumn)}});
  }
  return ordered_json{
      {"applicability", fix->applicability == Applicability::Safe ? "safe" : "unsafe"},
      {"edits", edits},
      {"message", fix->message}};
}

// Positions are relative to the cell in a notebook (Ruff's layout), with the cell named.
ordered_json toJson(const FileReport& file, const Diagnostic& d) {
  const SourceText& source = *file.source;
  ordered_json related = ordered_json::array();
  for (const RelatedLocation& r : d.related) {
    const bool here = r.path.empty() || r.path == source.path();
    const SourceText::ShownRange shown =
        here ? source.shown(r.range) : SourceText::ShownRange{0, r.range};
    ordered_json entry{{"filename", absolutePath(here ? source.path() : r.path)},
                       {"location", position(shown.range.startLine, shown.range.startColumn)},
                       {"end_location", position(shown.range.endLine, shown.range.endColumn)},
                       {"message", r.message}};
    if (shown.cell != 0) entry["cell"] = shown.cell;
    related.push_back(std::move(entry));
  }
  ordered_json witness = ordered_json::array();
  for (const WitnessStep& step : d.witness) {
    const SourceText::ShownRange shown = source.shown(step.range);
    ordered_json entry{{"kind", ir::toString(step.kind)},
                       {"row", shown.range.startLine + 1},
                       {"column", shown.range.startColumn + 1},
                       {"detail", step.detail}};
    if (shown.cell != 0) entry["cell"] = shown.cell;
    witness.push_back(std::move(entry));
  }
  const SourceText::ShownRange shown = source.shown(d.range);
  const ir::SourceRange& range = shown.range;
  ordered_json json{{"cell", cellJson(shown.cell)},
                    {"code", d.code},
                    {"end_location", position(range.endLine, range.endColumn)},
                    {"filename", absolutePath(source.path())},
                    {"fix", fixJson(source, d.fix)},
                    {"location", position(range.startLine, range.startColumn)},
                    {"message", d.message},
                    {"noqa_row", range.startLine + 1},
                    {"url", ruleUrl(d.code)},
                    {"severity", toString(d.severity)},
                    {"help", d.help},
                    {"related", related},
                    {"witness", witness}};
  if (!d.confirmation.empty()) {
    ordered_json confirmation = ordered_json::object();
    for (const auto& [device, verdict] : d.confirmation) confirmation[device] = verdict;
    json["confirmation"] = confirmation;
  }
  return json;
}

// GitHub workflow commands: data escapes %, CR and LF; property values also `:` and `,`.
std::string githubEscape(std::string_view text, bool property) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
    case '%': out += "%25"; break;
    case '\r': out += "%0D"; break;
    case '\n': out += "%0A"; break;
    case ':': out += property ? "%3A" : ":"; break;
    case ',': out += property ? "%2C" : ","; break;
    default: out += c;
    }
  }
  return out;
}

std::string_view githubCommand(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info: break;
  }
  return "notice";
}

void renderGithub(const CheckResult& result, std::ostream& out) {
  for (const FileReport& file : result.files) {
    const std::string path = pathFromWorkingDirectory(file.source->path());
    for (const Diagnostic& d : file.diagnostics) {
      // Columns are 1-based; the end column is exclusive, as in the JSON output. In a notebook
      // the annotation points into the .ipynb file's lines; the message names the cell.
      const ir::SourceRange range = file.source->inFile(d.range);
      out << "::" << githubCommand(d.severity) << " file=" << githubEscape(path, true)
          << ",line=" << range.startLine + 1 << ",col=" << range.startColumn + 1
          << ",endLine=" << range.endLine + 1 << ",endColumn=" << range.endColumn + 1
          << ",title=" << githubEscape(d.code, true) << "::"
          << githubEscape(fmt::format("{}: {} {}{}", location(*file.source, path, d.range), d.code,
                                      d.message, confirmationSuffix(d)),
                          false)
          << '\n';
    }
  }
}

// XML text and attribute content: markup characters escaped, characters XML 1.0 forbids
// (controls, invalid UTF-8 from file names) replaced by U+FFFD so the report stays well-formed.
std::string xmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default: out += c < 0x20 || c == 0x7F ? std::string("\xEF\xBF\xBD") : std::string(1, text[i]);
      }
      ++i;
      continue;
    }
    // A well-formed multi-byte sequence is copied; anything else becomes U+FFFD.
    size_t length = 0; // of the sequence `c` starts: 0 for a byte that cannot start one
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    else if (c >= 0xE0 && c <= 0xEF) length = 3;
    else if (c >= 0xF0 && c <= 0xF4) length = 4;
    bool valid = length > 0 && i + length <= text.size();
    uint32_t codePoint = c & (0x7F >> length);
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xC0) == 0x80;
      codePoint = (codePoint << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and the non-characters XML excludes are not text.
    const bool overlong =
        (length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000);
    const bool excluded = (codePoint >= 0xD800 && codePoint <= 0xDFFF) || codePoint == 0xFFFE ||
                          codePoint == 0xFFFF || codePoint > 0x10FFFF;
    valid = valid && !overlong && !excluded;
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// JUnit XML as GitLab and Jenkins read it (ruff's layout): a testsuite per file, a failing
// testcase per finding. A problem that stopped files from being checked (a missing or
// unreadable path) is an <error> testcase, so a CI report of a failed run is not green. A
// single passing testcase when there is nothing to report.
void renderJunit(const CheckResult& result, std::ostream& out) {
  size_t total = 0;
  for (const FileReport& file : result.files) total += file.diagnostics.size();
  const size_t problems = result.errors.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"gradlint\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
      std::max<size_t>(total + problems, 1), total, problems);
  if (total == 0 && problems == 0) {
    out << "  <testsuite name=\"gradlint\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
           "    <testcase name=\"No errors found\" classname=\"gradlint\"/>\n"
           "  </testsuite>\n";
  }
  if (problems > 0) {
    out << fmt::format("  <testsuite name=\"gradlint\" tests=\"{}\" failures=\"0\" "
                       "errors=\"{}\">\n",
                       problems, problems);
    for (const std::string& problem : result.errors) {
      const std::string text = xmlEscape(problem);
      out << fmt::format("    <testcase name=\"{}\" classname=\"gradlint\">\n", text);
      out << fmt::format("      <error message=\"{}\" type=\"error\">{}</error>\n", text, text);
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  for (const FileReport& file : result.files) {
    const std::string path = xmlEscape(file.source->path());
    out << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                       path, file.diagnostics.size(), file.diagnostics.size());
    for (const Diagnostic& d : file.diagnostics) {
      // In a notebook: the file's own line in the attribute, the cell's in the text.
      const ir::SourceRange inFile = file.source->inFile(d.range);
      const SourceText::ShownRange shown = file.source->shown(d.range);
      const uint32_t row = shown.range.startLine + 1;
      const uint32_t column = shown.range.startColumn + 1;
      out << fmt::format("    <testcase name=\"org.gradlint.{}\" classname=\"{}\" file=\"{}\" "
                         "line=\"{}\" column=\"{}\">\n",
                         xmlEscape(d.code), path, path, inFile.startLine + 1,
                         inFile.startColumn + 1);
      out << fmt::format(
          "      <failure message=\"{}\" type=\"{}\">{}line {}, col {}, {} {}</failure>\n",
          xmlEscape(d.message + confirmationSuffix(d)), xmlEscape(d.code),
          shown.cell == 0 ? std::string() : fmt::format("cell {}, ", shown.cell), row, column,
          xmlEscape(d.code), xmlEscape(d.message + confirmationSuffix(d)));
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

} // namespace

std::string pathFromWorkingDirectory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return path;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec) return path;
  const fs::path relative = absolute.lexically_relative(cwd);
  if (relative.empty() || *relative.begin() == "..") return path;
  return relative.generic_string();
}

bool isMachineReadable(OutputFormat format) {
  return format != OutputFormat::Full && format != OutputFormat::Concise;
}

std::string_view outputFormatNames() {
  return "full, concise, json, json-lines, github, sarif or junit";
}

bool parseOutputFormat(std::string_view name, OutputFormat& format) {
  if (name == "full") format = OutputFormat::Full;
  else if (name == "concise") format = OutputFormat::Concise;
  else if (name == "json") format = OutputFormat::Json;
  else if (name == "json-lines") format = OutputFormat::JsonLines;
  else if (name == "github") format = OutputFormat::Github;
  else if (name == "sarif") format = OutputFormat::Sarif;
  else if (name == "junit") format = OutputFormat::Junit;
  else return false;
  return true;
}

std::string ruleUrl(std::string_view code) {
  return fmt::format("{}{}.md", GRADLINT_DOCS_URL, code);
}

namespace {

// How many findings of each severity a run printed, for the closing line.
struct FindingCounts {
  size_t errors = 0;
  size_t warnings = 0;
  size_t infos = 0;

  void add(Severity severity) {
    switch (severity) {
    case Severity::Error: ++errors; return;
    case Severity::Warning: ++warnings; return;
    case Severity::Info: ++infos; return;
    }
  }
  size_t total() const { return errors + warnings + infos; }
};

// "Found 2 errors and 5 warnings.": each severity that occurred, so that a run of warnings only
// does not read as failing with errors.
std::string summaryLine(const FindingCounts& counts) {
  std::vector<std::string> parts;
  auto add = [&parts](size_t count, std::string_view one, std::string_view many) {
    if (count > 0) parts.push_back(fmt::format("{} {}", count, count == 1 ? one : many));
  };
  add(counts.errors, "error", "errors");
  add(counts.warnings, "warning", "warnings");
  add(counts.infos, "info finding", "info findings");
  std::string line = "Found ";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) line += i + 1 == parts.size() ? " and " : ", ";
    line += parts[i];
  }
  return line + ".";
}

} // namespace

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
  switch (format) {
  case OutputFormat::JsonLines:
    for (const FileReport& file : result.files) {
      for (const Diagnostic& d : file.diagnostics) {
        out << toJson(file, d).dump(-1, ' ', false, ordered_json::error_handler_t::replace)
            << '\n';
      }
    }
    return;
  case OutputFormat::Github: renderGithub(result, out); return;
  case OutputFormat::Sarif: renderSarif(result, out); return;
  case OutputFormat::Junit: renderJunit(result, out); return;
  case OutputFormat::Full:
  case OutputFormat::Concise:
  case OutputFormat::Json: break;
  }
  FindingCounts counts;
  for (const FileReport& file : result.files) {
    for (const Diagnostic& d : file.diagnostics) {
      counts.add(d.severity);
      if (format == OutputFormat::Concise) {
        out << location(*file.source, file.source->path(), d.range) << ": " << d.code << ' '
            << d.message
            << confirmationSuffix(d) << '\n';
      } else {
        renderFull(file, d, out);
      }
    }
  }
  if (counts.total() > 0) out << summaryLine(counts) << '\n';
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
