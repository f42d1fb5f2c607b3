// What `gradlint probe run` prints: the tracer's per-process reports (libgradlint_probe.so writes
// them at exit), the leaks they saw, and verdicts on static findings.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace gradlint::probe {

// The tracer's reports (probe-<pid>.json) in `folder`; unreadable ones are reported in `errors`.
std::vector<nlohmann::json> readTracerReports(const std::string& folder,
                                              std::vector<std::string>& errors);

// Prints each leak (where grad was disabled, how it escaped, the backward() calls that ran in
// that state) and the toggle sites seen. Returns the number of leaks.
size_t printRuntimeReport(const std::vector<nlohmann::json>& reports, std::ostream& out);

// Runtime verdicts for static findings (gradlint's JSON output): a finding is matched to the
// toggles seen at its file and line (or its witness's toggle lines).
//   confirmed    the toggle ran and leaked
//   refuted      the toggle ran and was always restored in its own frame
//   not-reached  the toggle never ran
//   not-traced   the rule is not about a toggle the tracer sees (use `gradlint probe replay`)
nlohmann::json runtimeVerdicts(const nlohmann::json& findings,
                               const std::vector<nlohmann::json>& reports);
void printVerdicts(const nlohmann::json& verdicts, std::ostream& out);

} // namespace gradlint::probe
