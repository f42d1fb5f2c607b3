// gradlint: finds PyTorch grad-mode misuse. `gradlint check`, `gradlint rule`, `gradlint debug`.
#include "checkers/cpp/checker_module.h"
#include "checkers/ir/ascii.h"
#include "checkers/ir/cfg_dump.h"
#include "checkers/ir/grad_state.h"
#include "checkers/python/frontend.h"
#include "program/config.h"
#include "program/cpp_module.h"
#include "program/discover.h"
#include "program/engine.h"
#include "program/project_context.h"
#include "program/read_file.h"
#include "program/result_cache.h"
#include "program/summary_store.h"
#include "rules/rule.h"
#include "tool/check_command.h"
#include "tool/cli_docs.h"
#include "tool/fixes.h"
#include "tool/lsp/server.h"
#include "tool/probe/confirm.h"
#include "tool/probe/probe_command.h"
#include "tool/render.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <unordered_map>

#ifndef GRADLINT_VERSION
#define GRADLINT_VERSION "0.0.0"
#endif

namespace {

using namespace gradlint;

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
  const rules::Rule* rule = rules::findRule(asciiUpper(code));
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

int runDebugCfg(const std::string& path, const std::vector<std::string>& compileArgs) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    std::cerr << fmt::format("gradlint: error: {}: cannot read\n", path);
    return kExitError;
  }
  std::string bytes((std::istreambuf_iterator<char>(stream)), {});
  const SourceFileRef ref = describeFile(path);
  SourceText source(path, std::move(bytes));
  if (isCppPath(path)) {
    std::string error;
    const cpp::CheckerModule* checker = cppCheckerModule(error);
    cpp::CompileOptions options;
    options.extraArgs = compileArgs;
    options.extraArgsGiven = true;
    const auto commands =
        checker == nullptr ? nullptr : checker->loadCompileCommands(options, error);
    if (commands == nullptr) {
      std::cerr << "gradlint: error: " << path << ": " << error << '\n';
      return kExitError;
    }
    const cpp::CppFileResult lowered = checker->analyzeFile(source, commands.get(), cppRuleNames());
    for (const Diagnostic& compileError : lowered.frontendDiagnostics) {
      std::cerr << fmt::format("gradlint: warning: {}:{}:{}: {}\n", path,
                               compileError.range.startLine + 1, compileError.range.startColumn + 1,
                               compileError.message);
    }
    for (const std::string& warning : lowered.warnings) {
      std::cerr << "gradlint: warning: " << warning << '\n';
    }
    for (const ir::FunctionIR& fn : lowered.module.units) std::cout << ir::dumpCfg(fn);
    return kExitClean;
  }
  python::PythonFileResult result = python::analyzePythonFile(
      source, python::ModuleContext{ref.moduleName, ref.isPackageInit, ref.inPackage});
  for (const ir::FunctionIR& fn : result.module.units) std::cout << ir::dumpCfg(fn);
  return kExitClean;
}

} // namespace

int main(int argc, char** argv) {
  // Named here, not from argv[0]: help, the man page and the completion say `gradlint`.
  CLI::App app{"gradlint: finds PyTorch grad-mode misuse before it ships", "gradlint"};
  app.set_version_flag("--version", GRADLINT_VERSION);
  app.require_subcommand(1);

  CheckArgs check;
  CLI::App* checkCommand =
      app.add_subcommand("check", "Check Python and C++ files for grad-mode misuse");
  checkCommand->add_option("paths", check.paths,
                           "Files or folders to check (default: .; - reads stdin)");
  checkCommand
      ->add_option("--output-format", check.outputFormat,
                   "full, concise, json, json-lines, github, sarif or junit")
      ->capture_default_str();
  checkCommand
      ->add_option("--select", check.select, "Rule codes, prefixes or names to enable (ALL)")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand
      ->add_option("--extend-select", check.extendSelect,
                   "Rule codes or prefixes to enable on top of the configured selection")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--ignore", check.ignore, "Rule codes, prefixes or names to disable")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--exclude", check.exclude, "Glob of files or folders to skip")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand->add_option("--stdin-filename", check.stdinFilename,
                           "Check stdin (with or without `-`), reported as this path");
  checkCommand->add_option("--config", check.configPath,
                           "Configuration file for every path (pyproject.toml or gradlint.toml); "
                           "default: the nearest one above each file");
  checkCommand->add_flag("--preview", check.preview, "Let ALL select preview rules too");
  checkCommand->add_flag("--force-exclude", check.forceExclude,
                         "Apply exclusions to files named on the command line too");
  checkCommand->add_flag("--fix", check.fix, "Apply safe fixes");
  checkCommand->add_flag("--unsafe-fixes", check.unsafeFixes,
                         "With --fix or --diff, apply unsafe fixes too");
  checkCommand->add_flag("--diff", check.diff,
                         "Print the fixes as a unified diff instead of writing them (exit 1 "
                         "when there are any)");
  checkCommand->add_flag("--exit-zero", check.exitZero, "Exit 0 even when there are findings");
  checkCommand->add_flag("--statistics", check.statistics, "Print counts per rule instead");
  checkCommand->add_flag("--no-respect-gitignore", check.noRespectGitignore,
                         "Check files that .gitignore excludes");
  checkCommand->add_flag("--no-cache", check.noCache,
                         "Analyse every file again, without reading or writing the cache");
  checkCommand->add_flag("--no-pch", check.noPch,
                         "C++: each translation unit parses all its headers, without a "
                         "precompiled header of the third-party ones they share (also "
                         "GRADLINT_NO_PCH=1)");
  checkCommand->add_option("--cache-dir", check.cacheDir,
                           "Where results are cached (default: .gradlint_cache next to --config, "
                           "else in the working folder)");
  checkCommand->add_option("--cache-max-size", check.cacheMaxSize,
                           "Bound on the cache folder's size, e.g. 64M (the default), 500K, 1G; "
                           "least recently used entries are removed first; 0: no bound");
  checkCommand->add_flag("--confirm", check.confirm,
                         "Replay each finding with real LibTorch and show its verdict");
  checkCommand->add_option("--confirm-devices", check.confirmDevices, "cpu, cuda or cpu,cuda")
      ->capture_default_str();
  checkCommand->add_option("-j,--threads", check.threads, "Worker threads (default: all cores)");
  checkCommand->add_option("--header-filter", check.headerFilter,
                           "C++: regular expression over header paths whose function bodies "
                           "are checked (default: the project's headers, not system ones); "
                           "overrides the `header-filter` key");
  checkCommand->add_option("-p,--build-path", check.buildPath,
                           "C++: a folder with compile_commands.json (or below one), as for "
                           "clang-tidy; compile flags can also follow `--`");
  checkCommand->add_option("--project-root", check.projectRoot,
                           "The project's folder: its other files are context (default: the "
                           "nearest folder above the paths with pyproject.toml, gradlint.toml, "
                           "setup.cfg, setup.py or .git)");
  checkCommand->add_option("--python", check.python,
                           "The Python environment whose installed packages are context: an "
                           "environment folder or an interpreter (default: VIRTUAL_ENV, "
                           "CONDA_PREFIX, the .venv or venv nearest to the checked paths, "
                           "python3 on PATH)");
  checkCommand->add_flag("--no-context", check.noContext,
                         "Read only the named files: no project context, no installed packages");
  checkCommand->add_flag("--show-context", check.showContext,
                         "Print the project root, the environment and what context was read "
                         "(to stderr)");
  // One file per use, so the paths after it stay paths: `--summaries a.sum --summaries b.sum`.
  checkCommand
      ->add_option("--summaries", check.summaryFiles,
                   "A summary file (from `gradlint summarize`) of code outside the run; "
                   "repeat for more")
      ->allow_extra_args(false);
  checkCommand->add_flag("--no-prefilter", check.noPrefilter,
                         "Parse every file, even those that name no grad-mode API");
  checkCommand->add_flag("--stats", check.stats,
                         "Print where the run's work went (bytes parsed, phase times) to stderr");

  std::string ruleCode;
  bool allRules = false;
  std::string ruleFormat = "text";
  CLI::App* ruleCommand = app.add_subcommand("rule", "Explain a rule, or list them all");
  ruleCommand->add_option("code", ruleCode, "Rule code or name, e.g. GL101");
  ruleCommand->add_flag("--all", allRules, "List every rule");
  ruleCommand->add_option("--output-format", ruleFormat, "text or json (with --all)");

  CheckArgs summarize;
  CLI::App* summarizeCommand = app.add_subcommand(
      "summarize", "Write the summaries of files (what their callers need) to a summary file");
  summarizeCommand->add_option("paths", summarize.paths, "Files or folders (default: .)");
  summarizeCommand
      ->add_option("-o,--output", summarize.summarizeTo, "The summary file (- : stdout)")
      ->required();
  summarizeCommand
      ->add_option("--summaries", summarize.summaryFiles,
                   "A summary file of the code these files depend on; repeat for more")
      ->allow_extra_args(false);
  summarizeCommand->add_option("--python", summarize.python, "As for `check`");
  summarizeCommand->add_option("--project-root", summarize.projectRoot, "As for `check`");
  summarizeCommand->add_flag("--no-context", summarize.noContext, "As for `check`");
  summarizeCommand->add_option("--config", summarize.configPath, "As for `check`");

  std::string debugPath;
  CLI::App* debugCommand = app.add_subcommand("debug", "Developer views of the analysis");
  CLI::App* cfgCommand = debugCommand->add_subcommand("cfg", "Print the Grad IR CFG of a file");
  cfgCommand->add_option("file", debugPath, "Python or C++ file (C++ flags after `--`)")
      ->required();
  CheckArgs debugSummaries;
  CLI::App* summariesCommand = debugCommand->add_subcommand(
      "summaries", "Print the summaries of a file's functions (with its context)");
  summariesCommand->add_option("paths", debugSummaries.paths, "Python files or folders")
      ->required();
  summariesCommand->add_option("--python", debugSummaries.python, "As for `check`");
  summariesCommand->add_flag("--no-context", debugSummaries.noContext, "As for `check`");
  debugCommand->require_subcommand(1);

  lsp::ServerOptions serverOptions;
  unsigned serverDebounceMs = static_cast<unsigned>(serverOptions.debounce.count());
  CLI::App* serverCommand =
      app.add_subcommand("server", "Language server (LSP 3.17 over stdio) for editors");
  serverCommand->add_option("--debounce-ms", serverDebounceMs, "Delay before analysing an edit")
      ->capture_default_str();
  serverCommand
      ->add_option("--early-diagnostics-above", serverOptions.earlyDiagnosticsModules,
                   "Publish an opened file's own diagnostics first when its context has more "
                   "modules than this")
      ->capture_default_str();
  bool serverNoWarmUp = false;
  serverCommand->add_flag("--no-warm-up", serverNoWarmUp,
                          "Do not summarise the workspace's modules in the background after "
                          "`initialized`");
  serverCommand->add_option("--max-message-bytes", serverOptions.maxMessageBytes,
                            "Largest message accepted")
      ->group("");
  CLI::App* probeCommand =
      app.add_subcommand("probe", "Runtime probe: `probe run -- CMD...`, `probe replay F.json`");
  // Parsed by runProbeCommand, not here: declared for --help, the man page and the completion.
  probe::ProbeArguments probeArguments;
  probe::addProbeSubcommands(*probeCommand, probeArguments);

  std::string completionShell;
  CLI::App* completionCommand = app.add_subcommand(
      "generate-shell-completion", "Print the shell completion script (bash) to stdout");
  completionCommand->add_option("shell", completionShell, "bash")->required();
  // The build runs it to write gradlint.1 (docs: CMakeLists.txt).
  CLI::App* manPageCommand =
      app.add_subcommand("generate-man-page", "Print the man page (roff) to stdout")->group("");

  // `probe run -- CMD...`: the words after `--` are a command, not compile flags.
  if (argc > 1 && std::string_view(argv[1]) == "probe") return probe::runProbeCommand(argc, argv);

  // Everything after `--` is C++ compile flags, as for clang-tidy: `gradlint check f.cpp --
  // -std=c++17 -Iinclude`. CLI11 would take them for paths.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    check.compileArgs.assign(argv + i + 1, argv + argc);
    check.compileArgsGiven = true;
    argc = i;
    break;
  }
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
    if (completionCommand->parsed()) {
      if (completionShell != "bash") {
        std::cerr << fmt::format("gradlint: error: no completion for `{}` (bash only; zsh "
                                 "can load it with bashcompinit)\n",
                                 completionShell);
        return kExitError;
      }
      std::vector<std::string> codes;
      for (const rules::Rule* rule : rules::allRules()) codes.emplace_back(rule->info().code);
      // "full, concise, ... or junit"
      std::vector<std::string> formats;
      std::string names(outputFormatNames());
      for (char& c : names) {
        if (c == ',') c = ' ';
      }
      std::istringstream words(names);
      for (std::string word; words >> word;) {
        if (word != "or") formats.push_back(word);
      }
      std::vector<std::string> selectors = codes;
      selectors.insert(selectors.begin(), "ALL");
      std::cout << bashCompletion(app, {{"check --output-format", formats},
                                        {"check --select", selectors},
                                        {"check --extend-select", selectors},
                                        {"check --ignore", selectors},
                                        {"rule code", codes},
                                        {"rule --output-format", {"text", "json"}},
                                        {"probe run --output-format", {"json", "sarif"}},
                                        {"probe replay --device", {"cpu", "cuda", "cpu,cuda"}},
                                        {"probe replay --output-format", {"text", "json"}},
                                        {"generate-shell-completion shell", {"bash"}}});
      return kExitClean;
    }
    if (manPageCommand->parsed()) {
      std::cout << manPage(app);
      return kExitClean;
    }
    if (cfgCommand->parsed()) return runDebugCfg(debugPath, check.compileArgs);
    if (summarizeCommand->parsed()) return runCheckCommand(summarize);
    if (summariesCommand->parsed()) {
      debugSummaries.summarizeTo = "-";
      return runCheckCommand(debugSummaries);
    }
    if (serverCommand->parsed()) {
      serverOptions.debounce = std::chrono::milliseconds(serverDebounceMs);
      serverOptions.warmUp = !serverNoWarmUp;
      return lsp::runLanguageServerOnStdio(serverOptions);
    }
  } catch (const std::exception& e) {
    std::cerr << "gradlint: internal error: " << e.what() << '\n';
    return kExitError;
  }
  return kExitError;
}
