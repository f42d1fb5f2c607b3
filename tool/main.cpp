// gradlint: finds PyTorch grad-mode misuse. `gradlint check`, `gradlint rule`, `gradlint debug`.
#include "checkers/ir/cfg_dump.h"
#include "checkers/python/frontend.h"
#include "rules/rule.h"
#include "tool/discover.h"
#include "tool/engine.h"
#include "tool/render.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

namespace {

using namespace gradlint;

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct CheckArgs {
  std::vector<std::string> paths;
  std::string outputFormat = "full";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::vector<std::string> exclude;
  std::string stdinFilename;
  bool exitZero = false;
  bool statistics = false;
  bool noPrefilter = false;
  bool noRespectGitignore = false;
  unsigned threads = 0;
};

std::vector<std::string> normaliseCodes(const std::vector<std::string>& codes) {
  std::vector<std::string> out;
  for (std::string code : codes) {
    for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!code.empty()) out.push_back(code);
  }
  return out;
}

bool validateCodes(const std::vector<std::string>& codes, const char* option) {
  for (const std::string& code : codes) {
    if (code == "ALL") continue;
    bool known = false;
    for (const rules::Rule* rule : rules::allRules()) {
      known = known || std::string_view(rule->info().code).starts_with(code);
    }
    if (!known) {
      std::cerr << fmt::format("gradlint: error: {} `{}` matches no rule (see `gradlint rule "
                               "--all`)\n",
                               option, code);
      return false;
    }
  }
  return true;
}

int runCheckCommand(const CheckArgs& args) {
  OutputFormat format{};
  if (!parseOutputFormat(args.outputFormat, format)) {
    std::cerr << fmt::format("gradlint: error: unknown output format `{}` (expected full, "
                             "concise or json)\n",
                             args.outputFormat);
    return kExitError;
  }
  CheckOptions options;
  options.select = normaliseCodes(args.select);
  options.ignore = normaliseCodes(args.ignore);
  options.prefilter = !args.noPrefilter;
  options.threads = args.threads;
  if (!validateCodes(options.select, "--select") || !validateCodes(options.ignore, "--ignore")) {
    return kExitError;
  }

  std::vector<FileInput> inputs;
  std::vector<std::string> roots;
  bool readsStdin = false;
  for (const std::string& path : args.paths) {
    if (path == "-") {
      readsStdin = true;
    } else {
      roots.push_back(path);
    }
  }
  if (args.paths.empty()) roots.push_back(".");
  std::vector<std::string> errors;
  if (readsStdin) {
    FileInput input;
    input.ref = describeFile(args.stdinFilename.empty() ? "-" : args.stdinFilename);
    input.contents = std::string(std::istreambuf_iterator<char>(std::cin), {});
    inputs.push_back(std::move(input));
  }
  if (!roots.empty()) {
    DiscoveryOptions discovery;
    discovery.excludes = args.exclude;
    discovery.respectGitignore = !args.noRespectGitignore;
    DiscoveryResult found = discoverFiles(roots, discovery);
    errors = std::move(found.errors);
    for (SourceFileRef& ref : found.files) inputs.push_back({std::move(ref), std::nullopt});
  }

  CheckResult result = runCheck(inputs, options);
  errors.insert(errors.end(), result.errors.begin(), result.errors.end());
  if (args.statistics) {
    renderStatistics(result, std::cout);
  } else {
    render(result, format, std::cout);
  }
  for (const std::string& warning : result.warnings) {
    std::cerr << "gradlint: warning: " << warning << '\n';
  }
  for (const std::string& error : errors) std::cerr << "gradlint: error: " << error << '\n';
  if (!errors.empty()) return kExitError;
  if (result.files.empty() || args.exitZero) return kExitClean;
  return kExitFindings;
}

int runRuleCommand(const std::string& code, bool all, const std::string& outputFormat) {
  if (all) {
    if (outputFormat == "json") {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const rules::Rule* rule : rules::allRules()) {
        const rules::RuleInfo& info = rule->info();
        list.push_back({{"code", info.code},
                        {"name", info.name},
                        {"summary", info.summary},
                        {"severity", toString(info.severity)},
                        {"preview", info.preview},
                        {"url", ruleUrl(info.code)},
                        {"explanation", rules::ruleDocumentation(info.code)}});
      }
      std::cout << list.dump(2) << '\n';
      return kExitClean;
    }
    for (const rules::Rule* rule : rules::allRules()) {
      const rules::RuleInfo& info = rule->info();
      std::cout << fmt::format("{}  {:<38} {}{}\n", info.code, info.name, info.summary,
                               info.preview ? " (preview)" : "");
    }
    return kExitClean;
  }
  std::string upper = code;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const rules::Rule* rule = rules::findRule(upper);
  if (rule == nullptr) {
    // Names work too: `gradlint rule grad-mode-leak`.
    for (const rules::Rule* candidate : rules::allRules()) {
      if (candidate->info().name == code) rule = candidate;
    }
  }
  if (rule == nullptr) {
    std::cerr << fmt::format("gradlint: error: unknown rule `{}` (see `gradlint rule --all`)\n",
                             code);
    return kExitError;
  }
  std::cout << rules::ruleDocumentation(rule->info().code);
  return kExitClean;
}

int runDebugCfg(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    std::cerr << fmt::format("gradlint: error: {}: cannot read\n", path);
    return kExitError;
  }
  std::string bytes((std::istreambuf_iterator<char>(stream)), {});
  const SourceFileRef ref = describeFile(path);
  SourceText source(path, std::move(bytes));
  python::PythonFileResult result = python::analyzePythonFile(
      source, python::ModuleContext{ref.moduleName, ref.isPackageInit, ref.inPackage});
  for (const ir::FunctionIR& fn : result.module.units) std::cout << ir::dumpCfg(fn);
  return kExitClean;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"gradlint: finds PyTorch grad-mode misuse before it ships"};
  app.set_version_flag("--version", GRADLINT_VERSION);
  app.require_subcommand(1);

  CheckArgs check;
  CLI::App* checkCommand = app.add_subcommand("check", "Check Python files for grad-mode misuse");
  checkCommand->add_option("paths", check.paths, "Files or folders to check (default: .; - reads stdin)");
  checkCommand->add_option("--output-format", check.outputFormat, "full, concise or json")
      ->capture_default_str();
  checkCommand->add_option("--select", check.select, "Rule codes or prefixes to enable (ALL)")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--ignore", check.ignore, "Rule codes or prefixes to disable")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--exclude", check.exclude, "Glob of files or folders to skip")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--stdin-filename", check.stdinFilename,
                           "The path to report for input read from stdin");
  checkCommand->add_flag("--exit-zero", check.exitZero, "Exit 0 even when there are findings");
  checkCommand->add_flag("--statistics", check.statistics, "Print counts per rule instead");
  checkCommand->add_flag("--no-respect-gitignore", check.noRespectGitignore,
                         "Check files that .gitignore excludes");
  checkCommand->add_option("-j,--threads", check.threads, "Worker threads (default: all cores)");
  checkCommand->add_flag("--no-prefilter", check.noPrefilter,
                         "Parse every file, even those that name no grad-mode API")
      ->group("");

  std::string ruleCode;
  bool allRules = false;
  std::string ruleFormat = "text";
  CLI::App* ruleCommand = app.add_subcommand("rule", "Explain a rule, or list them all");
  ruleCommand->add_option("code", ruleCode, "Rule code or name, e.g. GL101");
  ruleCommand->add_flag("--all", allRules, "List every rule");
  ruleCommand->add_option("--output-format", ruleFormat, "text or json (with --all)");

  std::string debugPath;
  CLI::App* debugCommand = app.add_subcommand("debug", "Developer views of the analysis");
  CLI::App* cfgCommand = debugCommand->add_subcommand("cfg", "Print the Grad IR CFG of a file");
  cfgCommand->add_option("file", debugPath, "Python file")->required();
  debugCommand->require_subcommand(1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitError;
  }

  try {
    if (checkCommand->parsed()) return runCheckCommand(check);
    if (ruleCommand->parsed()) {
      if (!allRules && ruleCode.empty()) {
        std::cerr << "gradlint: error: give a rule code or --all\n";
        return kExitError;
      }
      return runRuleCommand(ruleCode, allRules, ruleFormat);
    }
    if (cfgCommand->parsed()) return runDebugCfg(debugPath);
  } catch (const std::exception& e) {
    std::cerr << "gradlint: internal error: " << e.what() << '\n';
    return kExitError;
  }
  return kExitError;
}
