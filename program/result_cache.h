// The result cache (.gradlint_cache/): a re-run over unchanged files with unchanged settings
// reads the stored result instead of analysing again.
//
// Diagnostics of one file can depend on summaries of functions in every other file of the run
// (and on which files are in the run at all), so an entry is keyed on what is provably enough:
// the gradlint version, the run's settings, the list of files with each one's own rule
// selection and package context (this names the entry), and the content hash of every file
// (stored in the entry and compared). Installed modules of a distribution are the exception:
// they stand for their distribution's identity (name, version, RECORD; ContextReport::
// installedKey), as they do for the distribution cache, so a run that reads them and one that
// takes their summaries from that cache share the entry. Any edit makes the whole run a miss;
// the entry for that list of files is then replaced.
#pragma once

#include "program/engine.h"
#include "program/key_hasher.h"

#include <filesystem>
#include <functional>
#include <vector>

namespace gradlint {

// Runs runCheck, or returns the stored result of a run over the same files, contents and
// settings from `cacheDir` (created when missing). Entries are written to a temporary file and
// renamed, so concurrent runs never read a partial entry; an unreadable or corrupted entry is a
// miss, and a cache that cannot be written adds one warning to the result. Runs with C++ files
// are not cached (their results depend on headers and compile flags).
//
// `analyse` runs a miss (runCheck, unless the caller gives the same result a cheaper way: the
// context summary cache leaves out the context modules it has summaries of).
using Analysis = std::function<CheckResult(const std::vector<FileInput>&, const CheckOptions&)>;
CheckResult runCheckWithCache(std::vector<FileInput> inputs, const CheckOptions& options,
                              const std::filesystem::path& cacheDir,
                              const Analysis& analyse = runCheck);

// Adds to `key` what of `options` (and this gradlint build) changes results: for caches of
// what a run computes.
void addAnalysisSettings(KeyHasher& key, const CheckOptions& options);

} // namespace gradlint
