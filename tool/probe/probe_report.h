// What `gradlint probe run` prints: the tracer's per-process reports (libgradlint_probe.so writes
// them at exit), the leaks they saw with the test or notebook cell of each, and verdicts on
// static findings; and the same leaks as JSON or SARIF for CI (`--report`).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace gradlint::probe {

// The tracer's reports (probe-<pid>.json) in `folder`; unreadable ones are reported in `errors`.
std::vector<nlohmann::json> readTracerReports(const std::string& folder,
                                              std::vector<std::string>& errors);

// The notebooks the traced command ran (its `.ipynb` arguments): a cell compiled by ipykernel
// has no file on disk, and the tracer records its source, which names the cell here.
struct NotebookCell {
  std::string notebook;
  size_t index = 0; // in the notebook's `cells` (0-based, markdown cells counted)
  std::string source;
};
std::vector<NotebookCell> readNotebookCells(const std::vector<std::string>& command,
                                            std::vector<std::string>& errors);

// Each leak (where grad mode was disabled or inference mode entered, how it escaped, the test
// or cell it ran in, the backward() calls that ran in that state), tests that ended in another
// mode (--per-test), and the toggle sites seen. Returns the number of leaks.
size_t printRuntimeReport(const std::vector<nlohmann::json>& reports,
                          const std::vector<NotebookCell>& cells, std::ostream& out);

// The leaks as findings, in the fields of `gradlint check`'s JSON output (plus `test`, `cell`
// and `runtime`), or as a SARIF 2.1.0 log. `format` is "json" or "sarif".
void writeRuntimeFindings(const std::vector<nlohmann::json>& reports,
                          const std::vector<NotebookCell>& cells, const std::string& format,
                          std::ostream& out);

// Runtime verdicts for static findings (gradlint's JSON output): a finding is matched to the
// toggles seen at its file and line (or its witness's toggle lines), and a finding on a call
// into a helper that toggles to the helper's toggles that ran through that call.
//   confirmed    the toggle ran and leaked (GL105's inference form: inference mode ended in the
//                statement that entered it; GL304: autograd refused an inference tensor after
//                the inference-mode block ran)
//   refuted      the toggle ran and was always restored in its own frame
//   not-reached  the toggle never ran
//   not-traced   the rule is not about a toggle the tracer sees (use `gradlint probe replay`)
nlohmann::json runtimeVerdicts(const nlohmann::json& findings,
                               const std::vector<nlohmann::json>& reports);
void printVerdicts(const nlohmann::json& verdicts, std::ostream& out);

} // namespace gradlint::probe
