#include "tool/probe/probe_report.h"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <system_error>

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

std::string siteName(const json& site) {
  if (site.value("python", false)) {
    return fmt::format("{}:{}: `{}`", site.value("file", ""), site.value("line", 0),
                       site.value("function", ""));
  }
  const std::string symbol = symbolize(site.value("module", ""), site.value("offset", 0ULL));
  return fmt::format("`{}`", symbol.empty() ? site.value("caller", "?") : symbol);
}

std::string placeName(const json& location) {
  if (location.contains("module")) { // a C++ call site
    const std::string symbol =
        symbolize(location.value("module", ""), location.value("offset", 0ULL));
    return fmt::format("`{}`", symbol.empty() ? location.value("module", "?") : symbol);
  }
  return fmt::format("{}:{} in `{}`", location.value("file", ""), location.value("line", 0),
                     location.value("function", ""));
}

std::string_view howText(const std::string& how) {
  if (how == "thread-exit") return "its thread ended";
  if (how == "process-exit") return "the process ended";
  return "returned";
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

size_t printRuntimeReport(const std::vector<json>& reports, std::ostream& out) {
  size_t leakCount = 0;
  size_t backwardDisabled = 0;
  for (const json& report : reports) {
    const json& sites = report["sites"];
    for (const json& leak : report["leaks"]) {
      ++leakCount;
      const json& site = sites.at(leak.value("site", 0));
      const std::string thread = leak.value("main_thread", false)
                                     ? std::string("main thread")
                                     : fmt::format("thread {}", leak.value("thread", 0));
      out << fmt::format("{} disabled grad mode and {} with it still disabled (pid {}, {})\n",
                         siteName(site), howText(leak.value("how", "")),
                         report.value("pid", 0), thread);
      if (leak.contains("noticed_at") && leak.value("backward_calls", 0) == 0) {
        out << "  = noticed at " << placeName(leak["noticed_at"]) << '\n';
      }
      if (leak.value("backward_calls", 0) > 0) {
        const size_t calls = leak.value("backward_calls", 0);
        out << "  = backward() ran with grad disabled"
            << (leak.contains("backward_at") ? " at " + placeName(leak["backward_at"]) : "")
            << (calls > 1 ? fmt::format(" ({} times)", calls) : "") << '\n';
      }
      out << "  = C++ caller: " << site.value("caller", "?") << '\n';
    }
    for (const json& event : report["backward_with_grad_disabled"]) {
      if (event["leak"].is_null()) ++backwardDisabled;
    }
  }
  // Every place grad mode was turned off by user code, and what became of it.
  std::vector<std::string> siteLines;
  for (const json& report : reports) {
    for (const json& site : report["sites"]) {
      siteLines.push_back(fmt::format("  {}: disabled {}, restored {}, leaked {}\n",
                                      siteName(site), site.value("disabled", 0),
                                      site.value("restored", 0), site.value("leaked", 0)));
    }
  }
  if (!siteLines.empty()) {
    out << "grad mode disabled at:\n";
    for (const std::string& line : siteLines) out << line;
  }
  if (backwardDisabled > 0) {
    out << fmt::format("gradlint probe: {} backward() call{} with grad disabled by no traced "
                       "toggle (inference mode or an untraced thread state)\n",
                       backwardDisabled, backwardDisabled == 1 ? "" : "s");
  }
  out << fmt::format("gradlint probe: {} grad-mode leak{}\n", leakCount,
                     leakCount == 1 ? "" : "s");
  return leakCount;
}

json runtimeVerdicts(const json& findings, const std::vector<json>& reports) {
  // (file, line) -> (times disabled, times leaked), over every process.
  std::map<std::pair<std::string, int>, std::pair<size_t, size_t>> seen;
  for (const json& report : reports) {
    for (const json& site : report["sites"]) {
      if (!site.value("python", false)) continue; // C++ sites have no source line here
      auto& counts = seen[{canonicalPath(site.value("file", "")), site.value("line", 0)}];
      counts.first += site.value("disabled", 0);
      counts.second += site.value("leaked", 0);
    }
  }
  static const std::set<std::string> traced{"GL101", "GL102", "GL103", "GL104"};
  json verdicts = json::array();
  for (const json& finding : findings) {
    if (!finding.is_object()) continue;
    const std::string code = finding.value("code", "");
    const std::string file = canonicalPath(finding.value("filename", ""));
    const int row = finding.contains("location") ? finding["location"].value("row", 0) : 0;
    std::string verdict = "not-traced";
    if (traced.count(code) != 0) {
      std::set<int> rows{row};
      for (const json& step : finding.value("witness", json::array())) {
        const std::string kind = step.value("kind", "");
        if (kind == "SetGrad" || kind == "EnterGuard") rows.insert(step.value("row", 0));
      }
      size_t disabled = 0;
      size_t leaked = 0;
      for (const int line : rows) {
        if (auto it = seen.find({file, line}); it != seen.end()) {
          disabled += it->second.first;
          leaked += it->second.second;
        }
      }
      verdict = leaked > 0 ? "confirmed" : disabled > 0 ? "refuted" : "not-reached";
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
    out << fmt::format("{}:{}: {} {}\n", verdict.value("filename", ""), verdict.value("row", 0),
                       verdict.value("code", ""), verdict.value("verdict", ""));
  }
}

} // namespace gradlint::probe
