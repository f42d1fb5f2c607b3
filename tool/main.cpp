// gradlint: finds PyTorch grad-mode misuse. `gradlint check`, `gradlint rule`, `gradlint debug`.
#include "checkers/cpp/checker_module.h"
#include "checkers/ir/ascii.h"
#include "checkers/ir/cfg_dump.h"
#include "checkers/ir/grad_state.h"
#include "checkers/python/frontend.h"
#include "rules/rule.h"
#include "tool/cli_docs.h"
#include "tool/config.h"
#include "tool/cpp_module.h"
#include "tool/discover.h"
#include "tool/engine.h"
#include "tool/fixes.h"
#include "tool/lsp/server.h"
#include "tool/probe/confirm.h"
#include "tool/probe/probe_command.h"
#include "tool/project_context.h"
#include "tool/read_file.h"
#include "tool/render.h"
#include "tool/result_cache.h"
#include "tool/summary_store.h"

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

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct CheckArgs {
  std::vector<std::string> paths;
  std::string outputFormat = "full";
  std::vector<std::string> select;
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  std::vector<std::string> exclude;
  std::string stdinFilename;
  std::string configPath;
  bool preview = false;
  bool forceExclude = false;
  bool fix = false;
  bool unsafeFixes = false;
  bool diff = false;
  bool exitZero = false;
  bool statistics = false;
  bool noPrefilter = false;
  bool stats = false; // hidden: where the work went, for profiling
  bool noRespectGitignore = false;
  bool noCache = false;
  bool confirm = false;              // --confirm: replay the findings in LibTorch (tool/probe)
  std::string confirmDevices = "cpu";
  std::string cacheDir; // default: .gradlint_cache next to --config, else in the working folder
  unsigned threads = 0;
  // C++ files: compile flags from -p (compile_commands.json) and/or after `--`, as clang-tidy.
  std::string buildPath;
  std::optional<std::string> headerFilter; // --header-filter: which headers' bodies are checked
  std::vector<std::string> compileArgs;
  bool compileArgsGiven = false;
  // The program around the checked files (docs/context.md).
  std::string projectRoot;
  std::string python;
  bool noContext = false;
  bool showContext = false;
  std::vector<std::string> summaryFiles; // --summaries: summaries of code outside the run
  std::string summarizeTo; // `gradlint summarize -o FILE` ("-": stdout): write, do not report
};

bool validateCodes(const std::vector<std::string>& codes, const char* option) {
  for (const std::string& code : codes) {
    if (!isKnownSelector(code)) {
      std::cerr << fmt::format("gradlint: error: {} `{}` matches no rule (see `gradlint rule "
                               "--all`)\n",
                               option, code);
      return false;
    }
  }
  return true;
}

std::string plural(size_t count) { return count == 1 ? "error" : "errors"; }

// --fix and --diff: apply the fixes in memory, then write them, print them as a diff, or (for
// stdin) print the fixed source.
int fixAndReport(const CheckArgs& args, OutputFormat format, std::vector<FileInput> inputs,
                 const CheckOptions& options, bool readsStdin, std::vector<std::string> errors) {
  const std::string stdinText = readsStdin ? inputs.front().contents.value_or("") : "";
  FixRun run = runFixes(std::move(inputs), options, args.unsafeFixes);
  errors.insert(errors.end(), run.remaining.errors.begin(), run.remaining.errors.end());
  std::vector<std::string> warnings = run.remaining.warnings;
  warnings.insert(warnings.end(), run.warnings.begin(), run.warnings.end());
  auto finish = [&](int status) {
    for (const std::string& warning : warnings) {
      std::cerr << "gradlint: warning: " << warning << '\n';
    }
    for (const std::string& error : errors) std::cerr << "gradlint: error: " << error << '\n';
    return errors.empty() ? status : kExitError;
  };

  if (args.diff) {
    for (const FixedFile& file : run.files) {
      std::cout << unifiedDiff(file.path, file.original, file.fixed);
    }
    if (run.fixed > 0) std::cerr << fmt::format("Would fix {} {}.\n", run.fixed, plural(run.fixed));
    return finish(run.files.empty() ? kExitClean : kExitFindings);
  }

  size_t fixed = 0;
  const FixedFile* stdinFix = nullptr;
  for (const FixedFile& file : run.files) {
    if (readsStdin && file.input == 0) {
      stdinFix = &file;
      fixed += file.fixes;
      continue;
    }
    std::string error;
    if (writeFileAtomically(file.path, file.fixed, error)) {
      fixed += file.fixes;
    } else {
      errors.push_back(error + " (left unchanged)");
    }
  }
  // Fixed source goes to stdout when it came from stdin (as ruff does), the report to stderr.
  std::ostream& report = readsStdin ? std::cerr : std::cout;
  if (readsStdin) {
    if (stdinFix != nullptr) {
      std::cout << stdinFix->fixed;
    } else {
      std::cout << stdinText;
    }
  }
  if (args.statistics) {
    renderStatistics(run.remaining, report);
  } else {
    render(run.remaining, format, report);
  }
  if (fixed > 0) {
    std::ostream& summary = isMachineReadable(format) ? std::cerr : report;
    summary << fmt::format("Fixed {} {}.\n", fixed, plural(fixed));
  }
  const bool findingsLeft = !run.remaining.files.empty();
  return finish(findingsLeft && !args.exitZero ? kExitFindings : kExitClean);
}

// --cache-dir, else GRADLINT_CACHE_DIR, else .gradlint_cache next to --config or in the working
// folder.
std::filesystem::path defaultCacheDir(const CheckArgs& args) {
  if (!args.cacheDir.empty()) return args.cacheDir;
  if (const char* fromEnvironment = std::getenv("GRADLINT_CACHE_DIR");
      fromEnvironment != nullptr && *fromEnvironment != '\0') {
    return fromEnvironment;
  }
  if (!args.configPath.empty()) {
    return std::filesystem::path(args.configPath).parent_path() / ".gradlint_cache";
  }
  return ".gradlint_cache";
}

void printStats(const CheckStats& stats, std::ostream& out) {
  // A cached run did no work: its counters are all zero.
  out << fmt::format(
      "gradlint: stats: read {} bytes; first pass lowered {} files, parsing {} bytes ({:.1f}%); "
      "{} rescan rounds lowered {} files ({} from a kept tree), parsing {} bytes ({:.1f}%); "
      "phases: read+first pass {:.3f} s, summaries+rescan {:.3f} s, rules {:.3f} s\n",
      stats.bytesRead, stats.firstPassFiles, stats.firstPassBytes,
      stats.bytesRead == 0 ? 0.0 : 100.0 * stats.firstPassBytes / stats.bytesRead,
      stats.rescanRounds, stats.rescanLowerings, stats.rescanFromKeptTree, stats.rescanBytes,
      stats.bytesRead == 0 ? 0.0 : 100.0 * stats.rescanBytes / stats.bytesRead,
      stats.readAndFirstPassSeconds, stats.summariesAndRescanSeconds, stats.rulesSeconds);
}

// Adds the context modules the checked files reach (docs/context.md) to `inputs`; false when
// context is off. `snapshot`: a context snapshot may answer (ContextRequest::snapshot). Throws
// EnvironmentError and ConfigError.
bool addContext(const CheckArgs& args, std::vector<FileInput>& inputs, ContextReport& report,
                const std::filesystem::path& cacheDir, bool snapshot) {
  ContextSettings settings;
  settings.paths = args.paths.empty() ? std::vector<std::string>{"."} : args.paths;
  settings.configPath = args.configPath;
  settings.projectRoot = args.projectRoot;
  settings.python = args.python;
  settings.enabled = !args.noContext;
  settings.threads = args.threads;
  settings.cacheDir = cacheDir;
  settings.snapshot = snapshot;
  return addProgramContext(settings, inputs, report);
}

void printContext(bool contextRead, const ContextReport& report, std::ostream& out) {
  if (!contextRead) {
    out << "gradlint: context: off (only the named files are read)\n";
    return;
  }
  out << fmt::format("gradlint: context: project root: {}\n",
                     report.projectRoot.empty()
                         ? std::string("none (no pyproject.toml, gradlint.toml, setup.cfg, "
                                       "setup.py or .git above the checked paths)")
                         : fmt::format("{} (by {})", report.projectRoot.string(),
                                       report.projectRootFoundBy));
  if (report.environment) {
    out << fmt::format("gradlint: context: environment: {} (from {}{})\n",
                       report.environment->prefix.string(), report.environment->foundBy,
                       report.environment->version.empty()
                           ? std::string()
                           : ", Python " + report.environment->version);
    for (const SearchPath& path : report.environment->searchPaths) {
      out << fmt::format("gradlint: context:   search path: {}{}\n", path.folder.string(),
                         path.kind == SearchPathKind::Stdlib ? " (standard library, not read)"
                                                             : "");
    }
  } else {
    out << "gradlint: context: environment: none found (no --python, VIRTUAL_ENV, "
           "CONDA_PREFIX, .venv or venv at the project root, or python3 on PATH)\n";
  }
  if (report.fromSnapshot) {
    out << fmt::format("gradlint: context: {} project modules and {} installed modules ({} "
                       "distributions{}{}) as an earlier run found them: none of the {} paths "
                       "it looked at changed (checked in {:.3f} s)\n",
                       report.projectModules, report.installedModules,
                       report.distributions.size(), report.distributions.empty() ? "" : ": ",
                       fmt::join(report.distributions, ", "), report.snapshotPaths,
                       report.seconds);
  } else {
    out << fmt::format("gradlint: context: {} project modules and {} installed modules read "
                       "({} distributions{}{}) in {:.3f} s\n",
                       report.projectModules, report.installedModules,
                       report.distributions.size(), report.distributions.empty() ? "" : ": ",
                       fmt::join(report.distributions, ", "), report.seconds);
  }
  if (report.importsFromMemo > 0) {
    out << fmt::format("gradlint: context: imports of {} checked files from the cache (not read)\n",
                       report.importsFromMemo);
  }
  if (report.cachedModules > 0) {
    out << fmt::format("gradlint: context: {} installed modules from the cache ({})\n",
                       report.cachedModules, fmt::join(report.cachedDistributions, ", "));
  }
  out << fmt::format("gradlint: context: not read: {} standard library, {} modelled by the "
                     "catalogs (torch), {} stub-only, {} compiled, {} namespace packages, {} too "
                     "large, {} unreadable, {} over the installed-code budget\n",
                     report.stdlib, report.modelled, report.stubOnly, report.compiled,
                     report.namespaces, report.skippedTooLarge, report.skippedUnreadable,
                     report.skippedOverBudget);
  for (const auto& [module, why] : report.unresolved) {
    out << fmt::format("gradlint: context: unresolved import `{}`: {}\n", module, why);
  }
}

// After the run (--show-context): what the context summary cache gave it.
void printContextSummaries(bool analysed, const ContextReport& report, std::ostream& out) {
  if (report.contextSummaryDir.empty() || report.projectModules == 0) return;
  if (!analysed) {
    out << "gradlint: context: project modules: none summarised (the run's result came from the "
           "cache)\n";
    return;
  }
  out << fmt::format("gradlint: context: project modules: {} summaries from the cache (not "
                     "lowered), {} summarised\n",
                     report.projectFromCache, report.projectModules - report.projectFromCache);
}

// `gradlint summarize`: the summaries of the named files' functions and modules (those a caller
// elsewhere needs), computed with their context, written as a summary file.
int writeSummaries(const CheckArgs& args, std::vector<FileInput> inputs, CheckOptions options) {
  options.keepSummaries = true;
  std::vector<std::string> ownModules;
  for (const FileInput& input : inputs) {
    if (!input.context && !input.ref.moduleName.empty()) ownModules.push_back(input.ref.moduleName);
  }
  const CheckResult result = runCheck(inputs, options);
  for (const std::string& error : result.errors) std::cerr << "gradlint: error: " << error << '\n';
  auto own = [&](const std::string& name) {
    return std::any_of(ownModules.begin(), ownModules.end(), [&](const std::string& module) {
      return name == module || (name.size() > module.size() && name.starts_with(module) &&
                                name[module.size()] == '.');
    });
  };
  const std::filesystem::path cwd = std::filesystem::current_path();
  auto relative = [&](const std::string& path) {
    const std::filesystem::path given(path);
    return given.is_absolute() ? given.lexically_relative(cwd).generic_string()
                               : given.lexically_normal().generic_string();
  };
  const std::string text = result.summaries ? summariesToText(*result.summaries, own, relative)
                                            : summariesToText(ir::SummaryTable(), own, relative);
  if (args.summarizeTo == "-") {
    std::cout << text;
  } else {
    std::string error;
    if (!replaceFile(args.summarizeTo, text, error)) {
      std::cerr << fmt::format("gradlint: error: {}: cannot write: {}\n", args.summarizeTo, error);
      return kExitError;
    }
  }
  return result.errors.empty() ? kExitClean : kExitError;
}

int runCheckCommand(const CheckArgs& args) {
  OutputFormat format{};
  if (!parseOutputFormat(args.outputFormat, format)) {
    std::cerr << fmt::format("gradlint: error: unknown output format `{}` (expected {})\n",
                             args.outputFormat, outputFormatNames());
    return kExitError;
  }
  CliSelection cli;
  if (!args.select.empty()) cli.select = normaliseCodes(args.select);
  cli.extendSelect = normaliseCodes(args.extendSelect);
  cli.ignore = normaliseCodes(args.ignore);
  cli.preview = args.preview;
  if (!validateCodes(cli.select.value_or(std::vector<std::string>{}), "--select") ||
      !validateCodes(cli.extendSelect, "--extend-select") ||
      !validateCodes(cli.ignore, "--ignore")) {
    return kExitError;
  }
  if (args.unsafeFixes && !args.fix && !args.diff) {
    std::cerr << "gradlint: warning: --unsafe-fixes applies nothing without --fix or --diff\n";
  }
  CheckOptions options;
  options.select = cli.select.value_or(std::vector<std::string>{});
  options.ignore = cli.ignore;
  options.prefilter = !args.noPrefilter;
  options.threads = args.threads;
  const bool cppFlags = !args.buildPath.empty() || args.compileArgsGiven;
  std::vector<FileInput> inputs;
  std::vector<std::string> errors;
  bool readsStdin = false;
  std::optional<std::string> headerFilter = args.headerFilter;
  try {
    ConfigResolver configs(args.configPath.empty() ? std::nullopt
                                                   : std::optional<std::string>(args.configPath));
    std::vector<std::string> roots;
    for (const std::string& path : args.paths) {
      if (path == "-") {
        readsStdin = true;
      } else {
        roots.push_back(path);
      }
    }
    if (args.paths.empty()) roots.push_back(".");
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
      discovery.forceExclude = args.forceExclude;
      discovery.includeCppSources = cppFlags;
      discovery.isExcluded = [&](const std::string& path) {
        // A folder is governed by its parent's settings, like a file.
        const auto settings = configs.settingsForFile(std::string_view(path));
        return !settings->exclude.empty() && isExcluded(*settings, path);
      };
      discovery.onFolderListed = [&](const std::string& folder,
                                     const std::vector<std::string>& names) {
        configs.noteFolderListing(folder, names);
      };
      DiscoveryResult found = discoverFiles(roots, discovery);
      errors = std::move(found.errors);
      for (const std::string& warning : found.warnings) {
        std::cerr << "gradlint: warning: " << warning << '\n';
      }
      for (SourceFileRef& ref : found.files) {
        FileInput input;
        input.ref = std::move(ref);
        inputs.push_back(std::move(input));
      }
    }
    // C++: --header-filter, else the `header-filter` of the configuration that governs the first
    // C++ file (one run shares its headers between translation units, like clang-tidy).
    if (!headerFilter) {
      for (const FileInput& input : inputs) {
        if (!isCppPath(input.ref.path)) continue;
        const std::filesystem::path path = input.ref.path;
        headerFilter = configs.settingsForFile(path)->headerFilter;
        break;
      }
    }
    // Each file runs the rules its nearest configuration and the command line select.
    // Without per-file ignores the answer is the same for every file under one configuration.
    std::unordered_map<const Settings*, std::vector<std::string>> rulesBySettings;
    for (FileInput& input : inputs) {
      const std::filesystem::path path = input.ref.path;
      const std::shared_ptr<const Settings> settings = configs.settingsForFile(path);
      if (!settings->perFileIgnores.empty()) {
        input.enabledRules = enabledRules(*settings, cli, path);
        continue;
      }
      auto [entry, added] = rulesBySettings.try_emplace(settings.get());
      if (added) entry->second = enabledRules(*settings, cli, path);
      input.enabledRules = entry->second;
    }
  } catch (const ConfigError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return kExitError;
  }

  // The C++ module is opened only when the run has C++ files (tool/cpp_module.h). Without it,
  // each C++ file reports that it needs the module and the Python files are still checked.
  if (std::any_of(inputs.begin(), inputs.end(),
                  [](const FileInput& input) { return isCppPath(input.ref.path); })) {
    std::string error;
    if (const cpp::CheckerModule* checker = cppCheckerModule(error)) {
      options.cppCommands = checker->loadCompileCommands(
          cpp::CompileOptions{args.buildPath, args.compileArgs, args.compileArgsGiven,
                              headerFilter},
          error);
      if (!options.cppCommands) {
        std::cerr << "gradlint: error: " << error << '\n';
        return kExitError;
      }
    }
  }
  // GRADLINT_NO_CACHE=1 is --no-cache for a whole environment (a test suite, a CI job).
  const char* noCacheVariable = std::getenv("GRADLINT_NO_CACHE");
  const bool noCache = args.noCache || (noCacheVariable != nullptr && *noCacheVariable != '\0' &&
                                        std::string_view(noCacheVariable) != "0");
  ContextReport contextReport;
  bool contextRead = false;
  try {
    // Only a check the result cache may answer takes the context from a snapshot: fixes,
    // diffs and summary files need the context modules' text.
    const bool snapshot = !args.fix && !args.diff && args.summarizeTo.empty();
    contextRead = addContext(args, inputs, contextReport,
                             noCache ? std::filesystem::path() : defaultCacheDir(args), snapshot);
  } catch (const EnvironmentError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return kExitError;
  } catch (const ConfigError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return kExitError;
  }
  if (!args.summaryFiles.empty()) {
    auto known = std::make_shared<ir::SummaryTable>();
    for (const std::string& file : args.summaryFiles) {
      std::string text;
      std::string error;
      if (!readWholeFile(file, text, error) || !readSummaries(text, *known, error)) {
        std::cerr << fmt::format("gradlint: error: --summaries {}: {}\n", file, error);
        return kExitError;
      }
      options.knownSummariesKey += text;
    }
    options.knownSummaries = std::move(known);
  }
  if (args.showContext) printContext(contextRead, contextReport, std::cerr);
  if (contextReport.cachedSummaries) {
    // Installed distributions summarised by an earlier run (their modules were not read).
    auto known = options.knownSummaries
                     ? std::make_shared<ir::SummaryTable>(*options.knownSummaries)
                     : std::make_shared<ir::SummaryTable>();
    for (const auto& [name, summary] : contextReport.cachedSummaries->all()) {
      if (known->find(name) == nullptr) known->update(name, summary);
    }
    options.knownSummaries = std::move(known);
    options.knownSummariesKey += contextReport.cachedSummariesKey;
  }
  auto storeDistributions = [&] {
    return std::any_of(contextReport.distributionsRead.begin(),
                       contextReport.distributionsRead.end(),
                       [](const DistributionRead& read) { return read.grew; });
  };
  if (!args.summarizeTo.empty()) return writeSummaries(args, std::move(inputs), options);

  if (args.fix || args.diff) {
    return fixAndReport(args, format, std::move(inputs), options, readsStdin, std::move(errors));
  }
  options.releaseMemory = false; // the process ends after reporting
  auto storeProjectContext = [&] { return contextReport.summaryGraph != nullptr; };
  options.keepSummaries = storeDistributions() || storeProjectContext();
  // Context modules of the project summarised by an earlier run are not lowered again. Only a
  // run the result cache does not answer looks for their entries (its key covers every input).
  bool analysed = false;
  auto analyse = [&](const std::vector<FileInput>& all, const CheckOptions& given) {
    analysed = true;
    CheckOptions run = given;
    std::vector<FileInput> collected;
    const std::vector<FileInput>* toAnalyse = &all;
    if (contextReport.fromSnapshot) {
      // A snapshot names the context modules for the result cache's key; the analysis collects
      // the context again (it needs the import graph). The same files on disk give the same
      // context, so the result stored under the snapshot's key is this run's.
      for (const FileInput& input : all) {
        if (!input.context) collected.push_back(input);
      }
      ContextReport fresh;
      try {
        addContext(args, collected, fresh, defaultCacheDir(args), false);
        contextReport = std::move(fresh);
        toAnalyse = &collected;
        run.keepSummaries = storeDistributions() || storeProjectContext();
      } catch (const std::exception&) {
        // The environment changed under the run: analyse what the snapshot named.
        collected.clear();
      }
    }
    if (!storeProjectContext()) return runCheck(*toAnalyse, run);
    const std::optional<std::vector<FileInput>> kept =
        useCachedContextSummaries(*toAnalyse, run, contextReport);
    return runCheck(kept ? *kept : *toAnalyse, run);
  };
  CheckResult result = noCache ? analyse(inputs, options)
                               : runCheckWithCache(std::move(inputs), options,
                                                   defaultCacheDir(args), analyse);
  if (args.showContext) printContextSummaries(analysed, contextReport, std::cerr);
  if (result.summaries) {
    std::vector<std::string> warnings;
    if (storeDistributions()) {
      warnings.push_back(storeDistributionSummaries(contextReport, *result.summaries));
    }
    if (storeProjectContext()) {
      warnings.push_back(storeContextSummaries(contextReport, *result.summaries, options.threads));
    }
    for (std::string& warning : warnings) {
      if (!warning.empty()) result.warnings.push_back(std::move(warning));
    }
  }
  errors.insert(errors.end(), result.errors.begin(), result.errors.end());
  std::string confirmError;
  if (args.confirm && !probe::confirmFindings(result, args.confirmDevices, confirmError)) {
    errors.push_back(confirmError);
  }
  if (args.statistics) {
    renderStatistics(result, std::cout);
  } else {
    render(result, format, std::cout);
  }
  for (const std::string& warning : result.warnings) {
    std::cerr << "gradlint: warning: " << warning << '\n';
  }
  if (args.stats) printStats(result.stats, std::cerr);
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
    const auto commands =
        checker == nullptr
            ? nullptr
            : checker->loadCompileCommands(
                  cpp::CompileOptions{"", compileArgs, true, std::nullopt}, error);
    if (commands == nullptr) {
      std::cerr << "gradlint: error: " << path << ": " << error << '\n';
      return kExitError;
    }
    const cpp::CppFileResult lowered = checker->analyzeFile(source, commands.get());
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
  checkCommand->add_option("paths", check.paths, "Files or folders to check (default: .; - reads stdin)");
  checkCommand
      ->add_option("--output-format", check.outputFormat,
                   "full, concise, json, json-lines, github, sarif or junit")
      ->capture_default_str();
  checkCommand->add_option("--select", check.select, "Rule codes or prefixes to enable (ALL)")
      ->delimiter(',')
      ->allow_extra_args(false);
  checkCommand
      ->add_option("--extend-select", check.extendSelect,
                   "Rule codes or prefixes to enable on top of the configured selection")
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
  checkCommand->add_option("--cache-dir", check.cacheDir,
                           "Where results are cached (default: .gradlint_cache next to --config, "
                           "else in the working folder)");
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
                           "CONDA_PREFIX, .venv or venv at the project root, python3 on PATH)");
  checkCommand->add_flag("--no-context", check.noContext,
                         "Read only the named files: no project context, no installed packages");
  checkCommand->add_flag("--show-context", check.showContext,
                         "Print the project root, the environment and what context was read "
                         "(to stderr)");
  checkCommand->add_option("--summaries", check.summaryFiles,
                           "Summary files (from `gradlint summarize`) of code outside the run");
  checkCommand->add_flag("--no-prefilter", check.noPrefilter,
                         "Parse every file, even those that name no grad-mode API")
      ->group("");
  checkCommand->add_flag("--stats", check.stats,
                         "Print where the run's work went (bytes parsed, phase times) to stderr")
      ->group("");

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
  summarizeCommand->add_option("-o,--output", summarize.summarizeTo, "The summary file (- : stdout)")
      ->required();
  summarizeCommand->add_option("--summaries", summarize.summaryFiles,
                               "Summary files of the code these files depend on");
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
      ->group("");
  serverCommand->add_option("--max-message-bytes", serverOptions.maxMessageBytes,
                            "Largest message accepted")
      ->group("");
  app.add_subcommand("probe", "Runtime probe: `probe run -- CMD...`, `probe replay F.json`");

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
      return lsp::runLanguageServerOnStdio(serverOptions);
    }
  } catch (const std::exception& e) {
    std::cerr << "gradlint: internal error: " << e.what() << '\n';
    return kExitError;
  }
  return kExitError;
}
