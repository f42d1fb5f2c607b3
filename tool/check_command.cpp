// `gradlint check`: runCheckCommand (at the end) is a short sequence of named steps, each a
// function here.
#include "tool/check_command.h"

#include "checkers/cpp/checker_module.h"
#include "program/cache_folder.h"
#include "program/config.h"
#include "program/cpp_module.h"
#include "program/discover.h"
#include "program/engine.h"
#include "program/project_context.h"
#include "program/read_file.h"
#include "program/result_cache.h"
#include "program/summary_store.h"
#include "program/test_hooks.h"
#include "tool/fixes.h"
#include "tool/probe/confirm.h"
#include "tool/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace gradlint {
namespace {

// `given`: the selectors as typed, so the message echoes them unchanged.
bool validateCodes(const std::vector<std::string>& given, const char* option) {
  for (const std::string& code : given) {
    const std::vector<std::string> normalised = normaliseCodes({code});
    if (!normalised.empty() && !isKnownSelector(normalised.front())) {
      std::cerr << fmt::format("gradlint: error: {} `{}` matches no rule (see `gradlint rule "
                               "--all`)\n",
                               option, code);
      return false;
    }
  }
  return true;
}

// Fixes count findings, whatever their severity ("Found N errors and M warnings." counts them).
std::string plural(size_t count) { return count == 1 ? "finding" : "findings"; }

// Where nothing at all could be checked: every file the run read is a C++ file whose errors
// stopped Clang before any function was lowered (flags it rejects: an unknown target, CPU or
// language). Such a run is an error, whether GL001 is reported or not: a clean exit would claim
// a check that did not happen. Anything else checked, a function recovered among them, leaves
// GL001 a finding like any other.
std::optional<std::string> nothingChecked(const CheckResult& result) {
  const size_t failed = result.cppFilesNothingLowered;
  if (failed == 0 || failed != result.filesRead) return std::nullopt;
  return fmt::format("nothing could be checked: Clang recovered no function from the {} C++ "
                     "file{} of the run, which did not compile with {} flags (GL001)",
                     failed, failed == 1 ? "" : "s", failed == 1 ? "its" : "their");
}

// One line for the C++ files reported as not compiling (their GL001 findings say where and
// why): the run's other findings in them rest on what Clang could recover.
void printCompileSummary(const CheckResult& result) {
  if (result.cppFilesNotCompiled == 0) return;
  std::cerr << fmt::format("gradlint: warning: {} of {} C++ file{} did not compile with {} "
                           "flags (GL001); findings in {} may be incomplete\n",
                           result.cppFilesNotCompiled, result.cppFilesCompiled,
                           result.cppFilesCompiled == 1 ? "" : "s",
                           result.cppFilesNotCompiled == 1 ? "its" : "their",
                           result.cppFilesNotCompiled == 1 ? "it" : "them");
}

// --fix and --diff: apply the fixes in memory, then write them, print them as a diff, or (for
// stdin) print the fixed source.
int fixAndReport(const CheckArgs& args, OutputFormat format, std::vector<FileInput> inputs,
                 const CheckOptions& options, bool readsStdin, std::vector<std::string> errors) {
  const std::string stdinText = readsStdin ? inputs.front().contents.value_or("") : "";
  FixRun run = runFixes(std::move(inputs), options, args.unsafeFixes);
  errors.insert(errors.end(), run.remaining.errors.begin(), run.remaining.errors.end());
  std::vector<std::string> warnings = run.remaining.warnings;
  warnings.insert(warnings.end(), run.warnings.begin(), run.warnings.end());
  if (std::optional<std::string> error = nothingChecked(run.remaining)) {
    errors.push_back(std::move(*error));
  }
  auto finish = [&](int status) {
    for (const std::string& warning : warnings) {
      std::cerr << "gradlint: warning: " << warning << '\n';
    }
    printCompileSummary(run.remaining);
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
    // The fixes edit the text the check read: a file saved since then keeps what it holds.
    std::string onDisk;
    changeBeforeFixWriteHook(file.path);
    if (readWholeFile(file.path, onDisk, error) && onDisk != file.original) {
      errors.push_back(file.path + ": changed while being checked (left unchanged)");
      continue;
    }
    if (writeFileAtomically(file.path, file.fixed, error)) {
      fixed += file.fixes;
    } else {
      errors.push_back(error + " (left unchanged)");
    }
  }
  // The reports (JUnit, SARIF) show the problems that kept files from being checked.
  run.remaining.errors = errors;
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

// A variable set to anything but "" or "0".
bool environmentFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

// GRADLINT_NO_CACHE=1 is --no-cache for a whole environment (a test suite, a CI job).
bool noCacheRequested(const CheckArgs& args) {
  return args.noCache || environmentFlag("GRADLINT_NO_CACHE");
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
      "{} rescan rounds lowered {} files ({} with their last lowering kept), parsing {} bytes "
      "({:.1f}%); "
      "phases: read+first pass {:.3f} s, summaries+rescan {:.3f} s, rules {:.3f} s\n",
      stats.bytesRead, stats.firstPassFiles, stats.firstPassBytes,
      stats.bytesRead == 0 ? 0.0 : 100.0 * stats.firstPassBytes / stats.bytesRead,
      stats.rescanRounds, stats.rescanLowerings, stats.rescanFromKeptMemo, stats.rescanBytes,
      stats.bytesRead == 0 ? 0.0 : 100.0 * stats.rescanBytes / stats.bytesRead,
      stats.readAndFirstPassSeconds, stats.summariesAndRescanSeconds, stats.rulesSeconds);
}

// Adds the context modules the checked files reach (docs/context.md) to `inputs`; false when
// context is off. `snapshot`: a context snapshot may answer (ContextRequest::snapshot). Throws
// EnvironmentError and ConfigError.
bool addContext(const CheckArgs& args, std::vector<FileInput>& inputs, ContextReport& report,
                const std::filesystem::path& cacheDir, bool snapshot,
                const std::shared_ptr<ByteBudget>& keptTexts) {
  ContextSettings settings;
  settings.paths = args.paths.empty() ? std::vector<std::string>{"."} : args.paths;
  settings.configPath = args.configPath;
  settings.projectRoot = args.projectRoot;
  settings.python = args.python;
  settings.enabled = !args.noContext;
  settings.threads = args.threads;
  settings.cacheDir = cacheDir;
  settings.snapshot = snapshot;
  settings.keptTexts = keptTexts;
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
           "CONDA_PREFIX, .venv or venv at or above the checked paths, the working folder or "
           "the project root, or python3 on PATH)\n";
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
  // What was left out, each with its reason; a hostile environment could make thousands.
  constexpr size_t kShown = 20;
  std::vector<std::pair<std::string, std::string>> skipped;
  if (report.environment) {
    for (const std::string& line : report.environment->skipped) skipped.emplace_back(line, "");
  }
  skipped.insert(skipped.end(), report.skipped.begin(), report.skipped.end());
  for (size_t at = 0; at < skipped.size() && at < kShown; ++at) {
    const auto& [what, why] = skipped[at];
    out << fmt::format("gradlint: context: skipped {}{}{}\n", what, why.empty() ? "" : ": ", why);
  }
  if (skipped.size() > kShown) {
    out << fmt::format("gradlint: context: skipped {} more\n", skipped.size() - kShown);
  }
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

// What the steps of one check hand each other.
struct CheckRun {
  explicit CheckRun(const CheckArgs& given) : args(given) {}
  const CheckArgs& args;
  OutputFormat format{};
  CliSelection cli;
  CheckOptions options;
  std::vector<FileInput> inputs;
  std::vector<std::string> errors; // of discovery, then of the analysis
  bool readsStdin = false;
  std::optional<std::string> headerFilter;
  bool noCache = false;
  uint64_t cacheMaxBytes = kDefaultCacheMaxBytes; // 0: no bound
  ContextReport contextReport;
  bool contextRead = false;

  // Summaries to write into the distribution cache / the context summary cache after the run.
  bool storeDistributions() const {
    return std::any_of(contextReport.distributionsRead.begin(),
                       contextReport.distributionsRead.end(),
                       [](const DistributionRead& read) { return read.grew; });
  }
  bool storeProjectContext() const { return contextReport.summaryGraph != nullptr; }
};

// The output format, the rule selection and the options of the analysis; false on a usage error.
bool resolveSelection(CheckRun& run) {
  const CheckArgs& args = run.args;
  if (!parseOutputFormat(args.outputFormat, run.format)) {
    std::cerr << fmt::format("gradlint: error: unknown output format `{}` (expected {})\n",
                             args.outputFormat, outputFormatNames());
    return false;
  }
  CliSelection& cli = run.cli;
  if (!args.select.empty()) cli.select = normaliseCodes(args.select);
  cli.extendSelect = normaliseCodes(args.extendSelect);
  cli.ignore = normaliseCodes(args.ignore);
  cli.preview = args.preview;
  if (!validateCodes(args.select, "--select") ||
      !validateCodes(args.extendSelect, "--extend-select") ||
      !validateCodes(args.ignore, "--ignore")) {
    return false;
  }
  if (args.unsafeFixes && !args.fix && !args.diff) {
    std::cerr << "gradlint: warning: --unsafe-fixes applies nothing without --fix or --diff\n";
  }
  run.options.select = cli.select.value_or(std::vector<std::string>{});
  run.options.ignore = cli.ignore;
  run.options.prefilter = !args.noPrefilter;
  run.options.threads = args.threads;
  // --cache-max-size, else GRADLINT_CACHE_MAX_SIZE (a CI job's setting), else the default.
  const char* fromEnvironment = std::getenv("GRADLINT_CACHE_MAX_SIZE");
  const std::string maxSize = !args.cacheMaxSize.empty() ? args.cacheMaxSize
                              : fromEnvironment != nullptr ? fromEnvironment
                                                           : std::string();
  if (!maxSize.empty()) {
    const std::optional<uint64_t> bytes = parseByteSize(maxSize);
    if (!bytes) {
      std::cerr << fmt::format("gradlint: error: {} `{}` is not a size (expected bytes, or a "
                               "number with K, M or G, e.g. 64M)\n",
                               args.cacheMaxSize.empty() ? "GRADLINT_CACHE_MAX_SIZE"
                                                         : "--cache-max-size",
                               maxSize);
      return false;
    }
    run.cacheMaxBytes = *bytes;
  }
  return true;
}

// The files to check: stdin and what discovery finds under the paths, each with the rules its
// configuration enables. False on a configuration error.
bool gatherInputs(CheckRun& run) {
  const CheckArgs& args = run.args;
  const bool cppFlags = !args.buildPath.empty() || args.compileArgsGiven;
  std::vector<FileInput>& inputs = run.inputs;
  run.headerFilter = args.headerFilter;
  try {
    ConfigResolver configs(args.configPath.empty() ? std::nullopt
                                                   : std::optional<std::string>(args.configPath));
    std::vector<std::string> roots;
    for (const std::string& path : args.paths) {
      if (path == "-") {
        run.readsStdin = true;
      } else {
        roots.push_back(path);
      }
    }
    if (args.paths.empty()) roots.push_back(".");
    if (run.readsStdin) {
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
      excludeByConfigurations(discovery, configs);
      DiscoveryResult found = discoverFiles(roots, discovery);
      run.errors = std::move(found.errors);
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
    if (!run.headerFilter) {
      for (const FileInput& input : inputs) {
        if (!isCppPath(input.ref.path)) continue;
        const std::filesystem::path path = input.ref.path;
        run.headerFilter = configs.settingsForFile(path)->headerFilter;
        break;
      }
    }
    // Each file runs the rules its nearest configuration and the command line select.
    // Without per-file ignores the answer is the same for every file under one configuration.
    std::unordered_map<const Settings*, std::shared_ptr<const std::vector<std::string>>>
        rulesBySettings;
    for (FileInput& input : inputs) {
      const std::filesystem::path path = input.ref.path;
      const std::shared_ptr<const Settings> settings = configs.settingsForFile(path);
      if (!settings->perFileIgnores.empty()) {
        input.enabledRules =
            std::make_shared<const std::vector<std::string>>(enabledRules(*settings, run.cli, path));
        continue;
      }
      auto [entry, added] = rulesBySettings.try_emplace(settings.get());
      if (added) {
        entry->second =
            std::make_shared<const std::vector<std::string>>(enabledRules(*settings, run.cli, path));
      }
      input.enabledRules = entry->second;
    }
  } catch (const ConfigError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return false;
  }
  return true;
}

// The C++ module is opened only when the run has C++ files (program/cpp_module.h). Without it,
// each C++ file reports that it needs the module and the Python files are still checked. False
// when the compile commands cannot be loaded.
bool openCppChecker(CheckRun& run) {
  const CheckArgs& args = run.args;
  if (std::none_of(run.inputs.begin(), run.inputs.end(),
                   [](const FileInput& input) { return isCppPath(input.ref.path); })) {
    return true;
  }
  std::string error;
  if (const cpp::CheckerModule* checker = cppCheckerModule(error)) {
    cpp::CompileOptions compile;
    compile.buildPath = args.buildPath;
    compile.extraArgs = args.compileArgs;
    compile.extraArgsGiven = args.compileArgsGiven;
    compile.headerFilter = run.headerFilter;
    // The precompiled header of the third-party headers units share is kept with the cached
    // results, and is for this run only without a cache.
    compile.precompileHeaders = !args.noPch && !environmentFlag("GRADLINT_NO_PCH");
    if (!noCacheRequested(args)) {
      compile.precompiledHeaderFolder = (defaultCacheDir(args) / "pch").string();
    }
    compile.translationUnits = static_cast<size_t>(
        std::count_if(run.inputs.begin(), run.inputs.end(),
                      [](const FileInput& input) { return isCppSourcePath(input.ref.path); }));
    compile.traceCompiledHeaders = args.stats;
    run.options.cppCommands = checker->loadCompileCommands(compile, error);
    if (!run.options.cppCommands) {
      std::cerr << "gradlint: error: " << error << '\n';
      return false;
    }
  }
  return true;
}

// The program around the checked files (docs/context.md), and the summaries known from summary
// files and from the distribution cache. False on an environment or configuration error, or an
// unreadable summary file.
bool addProgram(CheckRun& run) {
  const CheckArgs& args = run.args;
  CheckOptions& options = run.options;
  run.noCache = noCacheRequested(args);
  options.keptTexts = keptTextBudgetFor(run.inputs, options.threads);
  try {
    // Only a check the result cache may answer takes the context from a snapshot: fixes,
    // diffs and summary files need the context modules' text.
    const bool snapshot = !args.fix && !args.diff && args.summarizeTo.empty();
    run.contextRead =
        addContext(args, run.inputs, run.contextReport,
                   run.noCache ? std::filesystem::path() : defaultCacheDir(args), snapshot,
                   options.keptTexts);
  } catch (const EnvironmentError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return false;
  } catch (const ConfigError& error) {
    std::cerr << "gradlint: error: " << error.what() << '\n';
    return false;
  }
  if (!args.summaryFiles.empty()) {
    auto known = std::make_shared<ir::SummaryTable>();
    for (const std::string& file : args.summaryFiles) {
      std::string text;
      std::string error;
      if (!readWholeFile(file, text, error) || !readSummaries(text, *known, error)) {
        std::cerr << fmt::format("gradlint: error: --summaries {}: {}\n", file, error);
        return false;
      }
      options.knownSummariesKey += text;
    }
    options.knownSummaries = std::move(known);
  }
  if (args.showContext) printContext(run.contextRead, run.contextReport, std::cerr);
  if (run.contextReport.cachedSummaries) {
    // Installed distributions summarised by an earlier run (their modules were not read).
    auto known = options.knownSummaries
                     ? std::make_shared<ir::SummaryTable>(*options.knownSummaries)
                     : std::make_shared<ir::SummaryTable>();
    for (const auto& [name, summary] : run.contextReport.cachedSummaries->all()) {
      if (known->find(name) == nullptr) known->update(name, summary);
    }
    options.knownSummaries = std::move(known);
  }
  // Installed code is keyed on its distributions, whether this run reads their modules or takes
  // their summaries from the distribution cache: the run after a cold one has the same key.
  options.knownSummariesKey += run.contextReport.installedKey;
  return true;
}

// The analysis, answered by the result cache when it can. Context modules of the project
// summarised by an earlier run are not lowered again; only a run the result cache does not
// answer looks for their entries (its key covers every input).
CheckResult analyse(CheckRun& run) {
  const CheckArgs& args = run.args;
  run.options.releaseMemory = false; // the process ends after reporting
  run.options.keepSummaries = run.storeDistributions() || run.storeProjectContext();
  bool analysed = false;
  auto analyseInputs = [&](const std::vector<FileInput>& all, const CheckOptions& given) {
    analysed = true;
    CheckOptions options = given;
    std::vector<FileInput> collected;
    const std::vector<FileInput>* toAnalyse = &all;
    if (run.contextReport.fromSnapshot) {
      // A snapshot names the context modules for the result cache's key; the analysis collects
      // the context again (it needs the import graph). The same files on disk give the same
      // context, so the result stored under the snapshot's key is this run's.
      for (const FileInput& input : all) {
        if (!input.context) collected.push_back(input);
      }
      ContextReport fresh;
      try {
        addContext(args, collected, fresh, defaultCacheDir(args), false, options.keptTexts);
        run.contextReport = std::move(fresh);
        toAnalyse = &collected;
        options.keepSummaries = run.storeDistributions() || run.storeProjectContext();
      } catch (const std::exception&) {
        // The environment changed under the run: analyse what the snapshot named.
        collected.clear();
      }
    }
    if (!run.storeProjectContext()) return runCheck(*toAnalyse, options);
    const std::optional<std::vector<FileInput>> kept =
        useCachedContextSummaries(*toAnalyse, options, run.contextReport);
    return runCheck(kept ? *kept : *toAnalyse, options);
  };
  CheckResult result = run.noCache ? analyseInputs(run.inputs, run.options)
                                   : runCheckWithCache(std::move(run.inputs), run.options,
                                                       defaultCacheDir(args), analyseInputs);
  if (args.showContext) printContextSummaries(analysed, run.contextReport, std::cerr);
  return result;
}

// Writes what the run summarised into the distribution cache and the context summary cache.
void storeSummaries(const CheckRun& run, CheckResult& result) {
  if (!result.summaries) return;
  std::vector<std::string> warnings;
  if (run.storeDistributions()) {
    warnings.push_back(storeDistributionSummaries(run.contextReport, *result.summaries));
  }
  if (run.storeProjectContext()) {
    warnings.push_back(
        storeContextSummaries(run.contextReport, *result.summaries, run.options.threads));
  }
  for (std::string& warning : warnings) {
    if (!warning.empty()) result.warnings.push_back(std::move(warning));
  }
}

// --confirm, then the report, the warnings and the errors: the exit code.
int report(CheckRun& run, CheckResult& result) {
  const CheckArgs& args = run.args;
  std::vector<std::string>& errors = run.errors;
  errors.insert(errors.end(), result.errors.begin(), result.errors.end());
  std::string confirmError;
  if (args.confirm && !probe::confirmFindings(result, args.confirmDevices, confirmError)) {
    errors.push_back(confirmError);
  }
  if (std::optional<std::string> error = nothingChecked(result)) errors.push_back(*error);
  // The reports (JUnit, SARIF) show every problem of the run, discovery's included.
  result.errors = errors;
  if (args.statistics) {
    renderStatistics(result, std::cout);
  } else {
    render(result, run.format, std::cout);
  }
  for (const std::string& warning : result.warnings) {
    std::cerr << "gradlint: warning: " << warning << '\n';
  }
  printCompileSummary(result);
  if (args.stats) printStats(result.stats, std::cerr);
  for (const std::string& error : errors) std::cerr << "gradlint: error: " << error << '\n';
  if (!errors.empty()) return kExitError;
  if (result.files.empty() || args.exitZero) return kExitClean;
  return kExitFindings;
}

// --stdin-filename says what stdin holds, so it reads stdin with or without `-`, as ruff does.
// Without `-`, paths named beside it are not checked (ruff's rule too), and a warning says so.
CheckArgs readStdinWhenNamed(const CheckArgs& given) {
  CheckArgs args = given;
  if (args.stdinFilename.empty() ||
      std::find(args.paths.begin(), args.paths.end(), "-") != args.paths.end()) {
    return args;
  }
  for (const std::string& path : args.paths) {
    std::cerr << fmt::format("gradlint: warning: {}: not checked: --stdin-filename reads "
                             "stdin instead (add `-` to check both)\n",
                             path);
  }
  args.paths = {"-"};
  return args;
}

} // namespace

int runCheckCommand(const CheckArgs& given) {
  const CheckArgs args = readStdinWhenNamed(given);
  CheckRun run(args);
  if (!resolveSelection(run) || !gatherInputs(run) || !openCppChecker(run) || !addProgram(run)) {
    return kExitError;
  }
  if (!args.summarizeTo.empty()) return writeSummaries(args, std::move(run.inputs), run.options);
  if (args.fix || args.diff) {
    return fixAndReport(args, run.format, std::move(run.inputs), run.options, run.readsStdin,
                        std::move(run.errors));
  }
  CheckResult result = analyse(run);
  storeSummaries(run, result);
  // Every run may have added to the cache folder (a result, summaries, a snapshot, imports): it
  // is brought back within its bound. A run the cache answered walks the folder's names too,
  // which costs little next to what it reads.
  if (!run.noCache && run.cacheMaxBytes > 0) {
    trimCacheFolder(defaultCacheDir(args), run.cacheMaxBytes);
    // Precompiled headers (C++) are bounded apart: one for LibTorch is ~100 MB.
    trimCacheFolder(defaultCacheDir(args) / "pch",
                    std::max(run.cacheMaxBytes, kDefaultPrecompiledHeaderMaxBytes));
  }
  return report(run, result);
}

} // namespace gradlint
