// `gradlint check` and `gradlint summarize`: their options and the run, step by step.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gradlint {

inline constexpr int kExitClean = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

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
  bool noPch = false; // C++: no precompiled header of the headers translation units share
  bool confirm = false;              // --confirm: replay the findings in LibTorch (tool/probe)
  std::string confirmDevices = "cpu";
  std::string cacheDir; // default: .gradlint_cache next to --config, else in the working folder
  std::string cacheMaxSize; // --cache-max-size; default: GRADLINT_CACHE_MAX_SIZE, else 64M
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

// Runs `gradlint check` (or `gradlint summarize`, with `summarizeTo`): the exit code.
int runCheckCommand(const CheckArgs& args);

} // namespace gradlint
