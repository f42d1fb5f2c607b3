#include "tool/probe/probe_report.h"

#include "rules/rule.h"
#include "tool/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <set>
#include <system_error>

// The project's page, as tool/sarif.cpp names it in the static SARIF log.
#ifndef GRADLINT_HOMEPAGE
#define GRADLINT_HOMEPAGE "https://github.com/gradlint/gradlint"
#endif

namespace gradlint::probe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string canonicalPath(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

// A C++ toggle site named through its debug information: "function (file:line)". With inlined
// code (a guard's constructor, Tensor::backward) the outermost function is the user's.
std::string symbolize(const std::string& module, uint64_t offset) {
  if (module.empty() || offset == 0 || module.find('\'') != std::string::npos) return {};
  // offset - 1: the return address is the instruction after the call.
  const std::string command =
      fmt::format("addr2line -i -f -C -e '{}' {:#x} 2>/dev/null", module, offset - 1);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::array<char, 4096> buffer{};
  std::vector<std::string> lines;
  while (fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) {
    std::string line = buffer.data();
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    lines.push_back(std::move(line));
  }
  if (lines.size() < 2) return {};
  const std::string& function = lines[lines.size() - 2]; // pairs: function, file:line
  std::string place = lines.back();
  if (function.empty() || function == "??") return {};
  if (const size_t space = place.find(" ("); space != std::string::npos) place.resize(space);
  if (place.empty() || place.rfind("??", 0) == 0) return function;
  return fmt::format("{} ({})", function, place);
}

// A place in the user's code as printed and as written to JSON: a Python file and line (or a
// notebook cell and the line in it), or a C++ function named through its debug information.
struct Place {
  std::string text;
  std::string file; // "" when unknown (C++ without debug information)
  int line = 0;
  std::string function;
  const NotebookCell* cell = nullptr;
};

// Cell sources compare with trailing blanks and blank lines dropped: IPython keeps the code it
// compiled, nbformat the text as typed.
std::string normalizedSource(std::string_view source) {
  std::string out;
  size_t start = 0;
  while (start <= source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(start, end - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    out.append(line);
    out.push_back('\n');
    start = end + 1;
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  return out;
}

class PlaceNames {
public:
  PlaceNames(const json& report, const std::vector<NotebookCell>& cells) {
    if (!report.contains("sources") || !report["sources"].is_object()) return;
    for (const auto& [file, source] : report["sources"].items()) {
      if (!source.is_string()) continue;
      const std::string wanted = normalizedSource(source.get<std::string>());
      for (const NotebookCell& cell : cells) {
        if (normalizedSource(cell.source) == wanted) {
          cellOfFile_.emplace(file, &cell);
          break;
        }
      }
    }
  }

  // A location of the tracer's report ({file, line, function} or a C++ {module, offset}).
  Place place(const json& location) const {
    Place place;
    if (!location.contains("file")) { // a C++ call site: {module, offset}
      describeCpp(symbolize(location.value("module", ""), location.value("offset", 0ULL)),
                  location.value("module", "?"), place);
      return place;
    }
    place.file = location.value("file", "");
    place.line = location.value("line", 0);
    place.function = location.value("function", "");
    if (auto it = cellOfFile_.find(place.file); it != cellOfFile_.end()) place.cell = it->second;
    place.text = fmt::format("{} in `{}`", fileAndLine(place), place.function);
    return place;
  }

  // A toggle site: "file:line: `function`" (Python) or "`function (file:line)`" (C++).
  Place site(const json& site) const {
    if (!site.value("python", false)) {
      Place place;
      describeCpp(symbolize(site.value("module", ""), site.value("offset", 0ULL)),
                  site.value("caller", "?"), place);
      return place;
    }
    Place place = this->place(site);
    place.text = fmt::format("{}: `{}`", fileAndLine(place), place.function);
    return place;
  }

private:
  static std::string fileAndLine(const Place& place) {
    if (place.cell != nullptr) {
      return fmt::format("{} cell {}, line {}", place.cell->notebook, place.cell->index + 1,
                         place.line);
    }
    // Shown as `gradlint check` shows a path: relative to the working folder when below it.
    // The JSON report keeps the file as `check`'s JSON does (absolute), SARIF makes it relative.
    return fmt::format("{}:{}", pathFromWorkingDirectory(place.file), place.line);
  }

  // addr2line's "function (file:line)", or the fallback name when there is no debug info.
  static void describeCpp(const std::string& symbol, const std::string& fallback, Place& place) {
    place.text = fmt::format("`{}`", symbol.empty() ? fallback : symbol);
    place.function = symbol.empty() ? fallback : symbol;
    const size_t open = symbol.rfind(" (");
    const size_t colon = symbol.rfind(':');
    if (open == std::string::npos || colon == std::string::npos || colon < open) return;
    place.function = symbol.substr(0, open);
    place.file = symbol.substr(open + 2, colon - open - 2);
    place.line = std::atoi(symbol.c_str() + colon + 1);
  }

  std::map<std::string, const NotebookCell*> cellOfFile_;
};

std::string_view howText(const std::string& how) {
  if (how == "thread-exit") return "its thread ended";
  if (how == "process-exit") return "the process ended";
  if (how == "test-end") return "its test ended";
  return "returned";
}

// The test or fixture a context index names ("" when none).
std::string contextName(const json& report, const json& index) {
  if (!index.is_number_unsigned() || !report.contains("contexts")) return {};
  const json& contexts = report["contexts"];
  const size_t i = index.get<size_t>();
  return i < contexts.size() && contexts[i].is_string() ? contexts[i].get<std::string>() : "";
}

// "in test tests/test_x.py::test_a" or "in fixture `db` (session scope)".
std::string contextText(const std::string& context) {
  if (context.empty()) return {};
  if (context.rfind("fixture ", 0) == 0) return "in " + context;
  return "in test " + context;
}

// One leak of one process, with every name resolved.
struct RuntimeLeak {
  std::string mode; // "grad" or "inference"
  Place site;
  std::string caller;
  long pid = 0;
  std::string worker; // the pytest-xdist worker (gw0, ...), "" outside one
  long thread = 0;
  bool mainThread = false;
  std::string how;
  std::string test;
  std::optional<Place> noticedAt;
  std::optional<Place> backwardAt;
  std::string backwardTest;
  size_t backwardCalls = 0;
};

std::vector<RuntimeLeak> collectLeaks(const std::vector<json>& reports,
                                      const std::vector<NotebookCell>& cells) {
  std::vector<RuntimeLeak> leaks;
  for (const json& report : reports) {
    const PlaceNames names(report, cells);
    const json& sites = report["sites"];
    for (const json& entry : report["leaks"]) {
      const size_t siteIndex = entry.value("site", 0);
      if (!sites.is_array() || siteIndex >= sites.size()) continue;
      const json& site = sites[siteIndex];
      RuntimeLeak leak;
      leak.mode = entry.value("mode", "grad");
      leak.site = names.site(site);
      leak.caller = site.value("caller", "?");
      leak.pid = report.value("pid", 0L);
      leak.worker = report.value("xdist_worker", "");
      leak.thread = entry.value("thread", 0L);
      leak.mainThread = entry.value("main_thread", false);
      leak.how = entry.value("how", "");
      leak.test = contextName(report, entry.value("context", json(0)));
      if (entry.contains("noticed_at")) leak.noticedAt = names.place(entry["noticed_at"]);
      leak.backwardCalls = entry.value("backward_calls", 0);
      if (leak.backwardCalls > 0) {
        if (entry.contains("backward_at")) leak.backwardAt = names.place(entry["backward_at"]);
        leak.backwardTest = contextName(report, entry.value("backward_context", json(0)));
      }
      leaks.push_back(std::move(leak));
    }
  }
  return leaks;
}

std::string modeChange(const std::string& mode) {
  return mode == "inference" ? "entered inference mode" : "disabled grad mode";
}

std::string stillEngaged(const std::string& mode) {
  return mode == "inference" ? "still on" : "still disabled";
}

} // namespace

std::vector<json> readTracerReports(const std::string& folder, std::vector<std::string>& errors) {
  std::vector<json> reports;
  std::error_code ec;
  std::set<fs::path> files; // sorted: the output does not depend on directory order
  for (const auto& entry : fs::directory_iterator(folder, ec)) files.insert(entry.path());
  for (const fs::path& path : files) {
    if (path.extension() != ".json") continue;
    std::ifstream in(path);
    json report = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (report.is_discarded() || !report.is_object()) {
      errors.push_back(fmt::format("{}: unreadable tracer report", path.string()));
      continue;
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

std::vector<NotebookCell> readNotebookCells(const std::vector<std::string>& command,
                                            std::vector<std::string>& errors) {
  std::vector<NotebookCell> cells;
  for (const std::string& word : command) {
    if (word.size() < 6 || word.compare(word.size() - 6, 6, ".ipynb") != 0) continue;
    std::ifstream in(word);
    if (!in) continue; // an output name, or not a file: nothing to match
    const json notebook = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!notebook.is_object() || !notebook.contains("cells") || !notebook["cells"].is_array()) {
      errors.push_back(fmt::format("{}: not a notebook (no `cells` list); its cells are not "
                                   "named",
                                   word));
      continue;
    }
    const json& list = notebook["cells"];
    for (size_t i = 0; i < list.size(); ++i) {
      const json& cell = list[i];
      if (!cell.is_object() || cell.value("cell_type", "") != "code") continue;
      NotebookCell entry{word, i, {}};
      const json source = cell.value("source", json(""));
      if (source.is_string()) {
        entry.source = source.get<std::string>();
      } else if (source.is_array()) {
        for (const json& line : source) {
          if (line.is_string()) entry.source += line.get<std::string>();
        }
      }
      cells.push_back(std::move(entry));
    }
  }
  return cells;
}

size_t printRuntimeReport(const std::vector<json>& reports,
                          const std::vector<NotebookCell>& cells, std::ostream& out) {
  const std::vector<RuntimeLeak> leaks = collectLeaks(reports, cells);
  size_t inferenceLeaks = 0;
  for (const RuntimeLeak& leak : leaks) {
    if (leak.mode == "inference") ++inferenceLeaks;
    std::string thread =
        leak.mainThread ? std::string("main thread") : fmt::format("thread {}", leak.thread);
    if (!leak.worker.empty()) thread += ", xdist worker " + leak.worker;
    out << fmt::format("{} {} and {} with it {} (pid {}, {})\n", leak.site.text,
                       modeChange(leak.mode), howText(leak.how), stillEngaged(leak.mode),
                       leak.pid, thread);
    if (!leak.test.empty()) out << "  = " << contextText(leak.test) << '\n';
    if (leak.noticedAt && leak.backwardCalls == 0) {
      out << "  = noticed at " << leak.noticedAt->text << '\n';
    }
    if (leak.backwardCalls > 0) {
      out << "  = backward() ran with grad disabled"
          << (leak.backwardAt ? " at " + leak.backwardAt->text : "")
          << (leak.backwardCalls > 1 ? fmt::format(" ({} times)", leak.backwardCalls) : "")
          << (leak.backwardTest.empty() ? "" : ", " + contextText(leak.backwardTest)) << '\n';
    }
    out << "  = C++ caller: " << leak.caller << '\n';
  }
  size_t backwardDisabled = 0;
  size_t processes = 0;
  for (const json& report : reports) {
    ++processes;
    for (const json& event : report["backward_with_grad_disabled"]) {
      if (event["leak"].is_null()) ++backwardDisabled;
    }
    // --per-test: tests that ended in another mode than the session's.
    for (const json& end : report.value("test_ends", json::array())) {
      std::vector<std::string> changes;
      if (!end.value("grad_enabled", true)) changes.emplace_back("grad mode disabled");
      if (end.value("inference_mode", false)) changes.emplace_back("inference mode on");
      if (changes.empty()) changes.emplace_back("grad mode enabled");
      out << fmt::format("test {} ended with {}{}\n",
                         contextName(report, end.value("context", json(0))),
                         fmt::join(changes, " and "),
                         end.value("restored", false) ? "; the session's mode was restored" : "");
    }
    // GL304 at run time: autograd refused a tensor made in inference mode.
    // Each is told with the inference-mode block its thread left last (where the tensor was
    // most likely made) and the test it ran in.
    const PlaceNames names(report, cells);
    std::map<std::pair<std::string, std::string>, size_t> refusals;
    for (const json& error : report.value("inference_tensor_errors", json::array())) {
      std::string block;
      const size_t site = error.value("last_inference_site", report["sites"].size());
      if (site < report["sites"].size()) block = names.site(report["sites"][site]).text;
      ++refusals[{block, contextName(report, error.value("context", json(0)))}];
    }
    for (const auto& [key, count] : refusals) {
      const auto& [block, context] = key;
      out << fmt::format("autograd refused an inference tensor (\"Inference tensors cannot be "
                         "saved for backward\"){}{} (pid {})\n",
                         count > 1 ? fmt::format(" {} times", count) : "",
                         context.empty() ? "" : " " + contextText(context),
                         report.value("pid", 0));
      if (!block.empty()) out << "  = after the inference-mode block at " << block << '\n';
    }
  }
  // Every place grad mode was turned off (or inference mode entered) by user code, and what
  // became of it.
  for (const std::string mode : {"grad", "inference"}) {
    std::vector<std::string> siteLines;
    for (const json& report : reports) {
      const PlaceNames names(report, cells);
      for (const json& site : report["sites"]) {
        if (site.value("mode", "grad") != mode) continue;
        siteLines.push_back(fmt::format("  {}: {} {}, restored {}, leaked {}\n",
                                        names.site(site).text,
                                        mode == "grad" ? "disabled" : "entered",
                                        site.value("disabled", 0), site.value("restored", 0),
                                        site.value("leaked", 0)));
      }
    }
    if (siteLines.empty()) continue;
    out << (mode == "grad" ? "grad mode disabled at:\n" : "inference mode entered at:\n");
    for (const std::string& line : siteLines) out << line;
  }
  if (backwardDisabled > 0) {
    out << fmt::format("gradlint probe: {} backward() call{} with grad disabled by no traced "
                       "toggle (an untraced thread state)\n",
                       backwardDisabled, backwardDisabled == 1 ? "" : "s");
  }
  const size_t gradLeaks = leaks.size() - inferenceLeaks;
  out << fmt::format("gradlint probe: {} grad-mode leak{}", gradLeaks, gradLeaks == 1 ? "" : "s");
  if (inferenceLeaks > 0) {
    out << fmt::format(", {} inference-mode leak{}", inferenceLeaks,
                       inferenceLeaks == 1 ? "" : "s");
  }
  if (processes > 1) out << fmt::format(" ({} processes reported)", processes);
  out << '\n';
  return leaks.size();
}

namespace {

json position(int row) { return {{"row", row}, {"column", 1}}; }

std::string findingMessage(const RuntimeLeak& leak) {
  std::string message = fmt::format(
      "runtime: `{}` {} and {} with it {}", leak.site.function, modeChange(leak.mode),
      howText(leak.how), stillEngaged(leak.mode));
  if (!leak.test.empty()) message += " (" + contextText(leak.test) + ")";
  if (leak.backwardCalls > 0) {
    message += fmt::format("; backward() then ran with grad disabled{}{}",
                           leak.backwardAt ? " at " + leak.backwardAt->text : "",
                           leak.backwardTest.empty() ? "" : ", " + contextText(leak.backwardTest));
  }
  return message;
}

json cellJson(const Place& place) {
  if (place.cell == nullptr) return nullptr;
  return {{"notebook", place.cell->notebook}, {"index", place.cell->index},
          {"line", place.line}};
}

json findingJson(const RuntimeLeak& leak) {
  json related = json::array();
  if (leak.backwardAt && !leak.backwardAt->file.empty()) {
    related.push_back({{"filename", leak.backwardAt->file},
                       {"location", position(leak.backwardAt->line)},
                       {"end_location", position(leak.backwardAt->line)},
                       {"message", "backward() ran here with grad disabled" +
                                       (leak.backwardTest.empty()
                                            ? std::string()
                                            : " " + contextText(leak.backwardTest))},
                       {"cell", cellJson(*leak.backwardAt)},
                       {"test", leak.backwardTest.empty() ? json(nullptr)
                                                          : json(leak.backwardTest)}});
  }
  return {{"cell", cellJson(leak.site)},
          {"code", "GL101"},
          {"end_location", position(leak.site.line)},
          {"filename", leak.site.file},
          {"fix", nullptr},
          {"location", position(leak.site.line)},
          {"message", findingMessage(leak)},
          {"noqa_row", leak.site.line},
          {"url", ruleUrl("GL101")},
          {"severity", "error"},
          {"help", leak.mode == "inference"
                       ? "enter inference mode with `with torch.inference_mode():` (or the "
                         "decorator), so that it ends with the block"
                       : "wrap the code in `with torch.no_grad():`, or restore the previous "
                         "mode in a `finally:` block"},
          {"related", related},
          {"witness", json::array()},
          {"test", leak.test.empty() ? json(nullptr) : json(leak.test)},
          {"runtime",
           {{"mode", leak.mode},
            {"how", leak.how},
            {"pid", leak.pid},
            {"xdist_worker", leak.worker.empty() ? json(nullptr) : json(leak.worker)},
            {"thread", leak.mainThread ? json("main") : json(leak.thread)},
            {"backward_calls", leak.backwardCalls},
            {"caller", leak.caller}}}};
}

// SARIF wants URIs: a relative path as is (against %SRCROOT%, the working folder), an absolute
// one as file://.
json artifactLocation(const std::string& file) {
  const std::string path = pathFromWorkingDirectory(file);
  if (!path.empty() && path[0] == '/') return {{"uri", "file://" + path}};
  return {{"uri", path}, {"uriBaseId", "%SRCROOT%"}};
}

json sarifLocation(const Place& place, const std::string& message) {
  json location{{"physicalLocation",
                 {{"artifactLocation", artifactLocation(place.cell ? place.cell->notebook
                                                                   : place.file)}}}};
  if (place.line > 0 && place.cell == nullptr) {
    location["physicalLocation"]["region"] = {{"startLine", place.line}};
  }
  if (!message.empty()) location["message"] = {{"text", message}};
  return location;
}

void writeSarif(const std::vector<RuntimeLeak>& leaks, std::ostream& out) {
  const rules::Rule* rule = rules::findRule("GL101");
  json driverRule{{"id", "GL101"}, {"helpUri", ruleUrl("GL101")}};
  if (rule != nullptr) {
    driverRule["name"] = std::string(rule->info().name);
    driverRule["shortDescription"] = {{"text", std::string(rule->info().summary)}};
  }
  json results = json::array();
  for (const RuntimeLeak& leak : leaks) {
    json result{{"ruleId", "GL101"},
                {"ruleIndex", 0},
                {"level", "error"},
                {"message", {{"text", findingMessage(leak)}}}};
    if (!leak.site.file.empty()) result["locations"] = json::array({sarifLocation(leak.site, "")});
    if (leak.backwardAt && !leak.backwardAt->file.empty()) {
      json related = sarifLocation(*leak.backwardAt, "backward() ran here with grad disabled");
      related["id"] = 0;
      result["relatedLocations"] = json::array({related});
    }
    json properties = findingJson(leak)["runtime"];
    if (!leak.test.empty()) properties["test"] = leak.test;
    if (!leak.backwardTest.empty()) properties["backwardTest"] = leak.backwardTest;
    if (leak.site.cell) properties["cell"] = cellJson(leak.site);
    result["properties"] = properties;
    results.push_back(std::move(result));
  }
  json run{{"tool", {{"driver", {{"name", "gradlint"},
                                 {"version", GRADLINT_VERSION},
                                 {"informationUri", GRADLINT_HOMEPAGE},
                                 {"rules", json::array({driverRule})}}}}},
           {"results", results}};
  std::error_code ec;
  const std::string root = fs::current_path(ec).string();
  if (!ec) run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", "file://" + root + "/"}}}};
  const json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                 {"version", "2.1.0"},
                 {"runs", json::array({run})}};
  out << log.dump(2) << '\n';
}

} // namespace

void writeRuntimeFindings(const std::vector<json>& reports, const std::vector<NotebookCell>& cells,
                          const std::string& format, std::ostream& out) {
  const std::vector<RuntimeLeak> leaks = collectLeaks(reports, cells);
  if (format == "sarif") {
    writeSarif(leaks, out);
    return;
  }
  json findings = json::array();
  for (const RuntimeLeak& leak : leaks) findings.push_back(findingJson(leak));
  out << findings.dump(2) << '\n';
}

namespace {

// What ran at each (file, line), over every process, per mode.
struct SiteCounts {
  size_t disabled = 0; // grad mode disabled, or inference mode entered
  size_t leaked = 0;
  size_t exitedInStatement = 0;
  size_t refusals = 0; // inference mode: autograd refused a tensor after this block
};

using FileLine = std::pair<std::string, int>;

struct SeenSites {
  std::map<FileLine, SiteCounts> grad;
  std::map<FileLine, SiteCounts> inference;
  // Grad mode disabled in Python, per (toggle, a call that led to it): what ran through the
  // calls of a finding whose toggle is a call into a helper.
  std::map<std::pair<FileLine, FileLine>, SiteCounts> gradThroughCall;
};

SeenSites seenSites(const std::vector<json>& reports) {
  SeenSites seen;
  for (const json& report : reports) {
    for (const json& site : report["sites"]) {
      if (!site.value("python", false)) continue; // C++ sites have no source line here
      const std::pair<std::string, int> key{canonicalPath(site.value("file", "")),
                                            site.value("line", 0)};
      const bool inference = site.value("mode", "grad") == "inference";
      SiteCounts& counts = (inference ? seen.inference : seen.grad)[key];
      counts.disabled += site.value("disabled", 0);
      counts.leaked += site.value("leaked", 0);
      counts.exitedInStatement += site.value("exited_in_statement", 0);
      counts.refusals += site.value("refusals", 0);
      if (inference) continue;
      for (const json& call : site.value("calls", json::array())) {
        SiteCounts& through = seen.gradThroughCall[{
            key, {canonicalPath(call.value("file", "")), call.value("line", 0)}}];
        through.disabled += call.value("disabled", 0);
        through.leaked += call.value("leaked", 0);
      }
    }
  }
  return seen;
}

SiteCounts countsAt(const std::map<std::pair<std::string, int>, SiteCounts>& seen,
                    const std::string& file, const std::set<int>& rows) {
  SiteCounts total;
  for (const int row : rows) {
    if (auto it = seen.find({file, row}); it != seen.end()) {
      total.disabled += it->second.disabled;
      total.leaked += it->second.leaked;
      total.exitedInStatement += it->second.exitedInStatement;
      total.refusals += it->second.refusals;
    }
  }
  return total;
}

// A finding whose toggle is a call into a helper (`freeze()` returns with grad mode disabled):
// its note "`freeze` disables grad mode here" names the helper's toggle, which the tracer saw in
// the helper's file. Counted are the toggles there that ran through this call, `file`:`row`.
SiteCounts countsThroughCall(const SeenSites& seen, const json& finding, const std::string& file,
                             int row) {
  SiteCounts total;
  for (const json& related : finding.value("related", json::array())) {
    if (!related.is_object() || !related.contains("location") ||
        related.value("message", "").find("disables grad mode here") == std::string::npos) {
      continue;
    }
    const FileLine toggle{canonicalPath(related.value("filename", "")),
                          related["location"].value("row", 0)};
    if (auto it = seen.gradThroughCall.find({toggle, {file, row}});
        it != seen.gradThroughCall.end()) {
      total.disabled += it->second.disabled;
      total.leaked += it->second.leaked;
    }
  }
  return total;
}

std::string leakVerdict(const SiteCounts& counts) {
  return counts.leaked > 0 ? "confirmed" : counts.disabled > 0 ? "refuted" : "not-reached";
}

} // namespace

json runtimeVerdicts(const json& findings, const std::vector<json>& reports) {
  const SeenSites seen = seenSites(reports);
  static const std::set<std::string> toggleRules{"GL101", "GL102", "GL103", "GL104"};
  json verdicts = json::array();
  for (const json& finding : findings) {
    if (!finding.is_object()) continue;
    const std::string code = finding.value("code", "");
    const std::string file = canonicalPath(finding.value("filename", ""));
    const std::string message = finding.value("message", "");
    const int row = finding.contains("location") ? finding["location"].value("row", 0) : 0;
    std::string verdict = "not-traced";
    if (toggleRules.count(code) != 0) {
      std::set<int> rows{row};
      for (const json& step : finding.value("witness", json::array())) {
        const std::string kind = step.value("kind", "");
        if (kind == "SetGrad" || kind == "EnterGuard") rows.insert(step.value("row", 0));
      }
      SiteCounts counts = countsAt(seen.grad, file, rows);
      const SiteCounts throughCall = countsThroughCall(seen, finding, file, row);
      counts.disabled += throughCall.disabled;
      counts.leaked += throughCall.leaked;
      verdict = leakVerdict(counts);
    } else if (code == "GL105" && message.find("does nothing lasting") != std::string::npos) {
      // `torch.inference_mode().__enter__()`: the claim is that inference mode ends with the
      // statement, as the dropped guard is freed.
      const SiteCounts counts = countsAt(seen.inference, file, {row});
      verdict = counts.disabled == 0                          ? "not-reached"
                : counts.exitedInStatement == counts.disabled ? "confirmed"
                                                              : "refuted";
    } else if (code == "GL105" && message.find("changes grad mode and drops") !=
                                      std::string::npos &&
               message.find("enable_grad") == std::string::npos) {
      // `torch.no_grad().__enter__()`: a toggle that nothing restores, as GL101's.
      verdict = leakVerdict(countsAt(seen.grad, file, {row}));
    } else if (code == "GL304") {
      // The inference-mode block (the related location) ran; autograd then refused an
      // inference tensor while that block was the last one its thread had left, or never did.
      std::set<int> rows;
      for (const json& related : finding.value("related", json::array())) {
        if (related.contains("location")) rows.insert(related["location"].value("row", 0));
      }
      const SiteCounts counts = countsAt(seen.inference, file, rows);
      verdict = counts.disabled == 0  ? "not-reached"
                : counts.refusals > 0 ? "confirmed"
                                      : "refuted";
    }
    verdicts.push_back({{"code", code},
                        {"filename", finding.value("filename", "")},
                        {"row", row},
                        {"verdict", verdict}});
  }
  return verdicts;
}

void printVerdicts(const json& verdicts, std::ostream& out) {
  if (!verdicts.empty()) out << "runtime verdicts:\n";
  for (const json& verdict : verdicts) {
    out << fmt::format("{}:{}: {} {}\n", pathFromWorkingDirectory(verdict.value("filename", "")),
                       verdict.value("row", 0), verdict.value("code", ""),
                       verdict.value("verdict", ""));
  }
}

} // namespace gradlint::probe
