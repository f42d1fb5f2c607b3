// gradlint-probe-replay FINDINGS.json [--device cpu,cuda] [--output-format text|json]
//                       [--output FILE] | --cuda-available
// Started by `gradlint probe replay` and `gradlint check --confirm`; links LibTorch.
#include "tool/probe/replay.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using nlohmann::json;

constexpr int kExitError = 2;

std::vector<std::string> splitDevices(const std::string& list) {
  std::vector<std::string> devices;
  std::stringstream stream(list);
  for (std::string device; std::getline(stream, device, ',');) {
    if (!device.empty()) devices.push_back(device);
  }
  return devices;
}

int usage(const std::string& message) {
  std::cerr << "gradlint-probe-replay: error: " << message
            << "\nusage: gradlint-probe-replay FINDINGS.json [--device cpu,cuda] "
               "[--output-format text|json] [--output FILE]\n";
  return kExitError;
}

} // namespace

int main(int argc, char** argv) {
  std::string input;
  std::string deviceList = "cpu";
  std::string format = "text";
  std::string outputPath;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--cuda-available") {
      std::cout << (gradlint::probe::cudaAvailable() ? "yes" : "no") << '\n';
      return 0;
    }
    if (arg == "--device") deviceList = value();
    else if (arg == "--output-format") format = value();
    else if (arg == "--output") outputPath = value();
    else if (input.empty() && !arg.starts_with("--")) input = arg;
    else return usage("unexpected argument `" + std::string(arg) + "`");
  }
  if (input.empty()) return usage("give the findings file (gradlint check --output-format json)");
  if (format != "text" && format != "json") return usage("--output-format is text or json");
  const std::vector<std::string> devices = splitDevices(deviceList);
  for (const std::string& device : devices) {
    if (device != "cpu" && device != "cuda") return usage("unknown device `" + device + "`");
  }
  if (devices.empty()) return usage("--device needs cpu, cuda or cpu,cuda");

  std::ifstream in(input);
  if (!in) return usage(input + ": cannot read");
  const json findings = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!findings.is_array()) {
    return usage(input + ": not gradlint JSON output (an array of findings)");
  }

  json results = json::array();
  std::ostringstream text;
  for (const json& finding : findings) {
    if (!finding.is_object()) return usage(input + ": a finding is not an object");
    json confirmation = json::object();
    json details = json::object();
    const std::string code = finding.value("code", "");
    const std::string file = finding.value("filename", "");
    const json location = finding.value("location", json::object());
    const int row = location.value("row", 0);
    const int column = location.value("column", 0);
    for (const std::string& device : devices) {
      const gradlint::probe::ReplayVerdict verdict =
          gradlint::probe::replayFinding(finding, device);
      confirmation[device] = verdict.verdict;
      details[device] = verdict.detail;
      text << file << ':' << row << ':' << column << ": " << code << ' ' << device << ' '
           << verdict.verdict << " (" << verdict.detail << ")\n";
    }
    results.push_back({{"code", code},
                       {"filename", file},
                       {"row", row},
                       {"column", column},
                       {"confirmation", confirmation},
                       {"details", details}});
  }
  const std::string report = format == "json" ? results.dump(2) + "\n" : text.str();
  if (outputPath.empty()) {
    std::cout << report;
  } else {
    std::ofstream out(outputPath);
    out << report;
    if (!out) return usage(outputPath + ": cannot write");
  }
  return 0;
}
