// Output formats: full (default), concise, json (ruff's field names) and json-lines for people
// and scripts; github (workflow annotations), sarif (code scanning) and junit for CI; plus
// --statistics.
#pragma once

#include "program/engine.h"

#include <ostream>
#include <string>
#include <string_view>

namespace gradlint {

enum class OutputFormat { Full, Concise, Json, JsonLines, Github, Sarif, Junit };

bool parseOutputFormat(std::string_view name, OutputFormat& format);

// The documentation URL of a rule.
std::string ruleUrl(std::string_view code);

// The names --output-format accepts, for messages.
std::string_view outputFormatNames();

void render(const CheckResult& result, OutputFormat format, std::ostream& out);

// True for formats meant for programs, where nothing but the report may go to stdout.
bool isMachineReadable(OutputFormat format);

// A path as CI systems want it: relative to the current folder when inside it, else as given.
std::string pathFromWorkingDirectory(const std::string& path);

// SARIF 2.1.0 (tool/sarif.cpp), also reached through render().
void renderSarif(const CheckResult& result, std::ostream& out);

void renderStatistics(const CheckResult& result, std::ostream& out);

} // namespace gradlint
