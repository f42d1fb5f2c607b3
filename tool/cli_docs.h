// Documentation generated from the command line itself (CLI11 has no generator of its own in
// Debian 12's 2.1): the man page (`gradlint generate-man-page`, run by the build) and the bash
// completion script (`gradlint generate-shell-completion bash`).
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace gradlint {

// gradlint(1) in man(7) markup: every command's --help, the rules' pages, files, environment
// and exit status. `app` must have its name set ("gradlint").
std::string manPage(const CLI::App& app);

// The words that may follow an option or stand for a positional argument, keyed
// "SUBCOMMAND OPTION" ("check --output-format", "rule code"); other values complete as files.
using CompletionWords = std::map<std::string, std::vector<std::string>>;

// A bash script (`complete -F`) for the subcommands and options of `app`.
std::string bashCompletion(const CLI::App& app, const CompletionWords& words);

} // namespace gradlint
