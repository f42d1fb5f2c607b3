// Output formats: full (default), concise and json (ruff's field names), plus --statistics.
#pragma once

#include "tool/engine.h"

#include <ostream>
#include <string>
#include <string_view>

namespace gradlint {

enum class OutputFormat { Full, Concise, Json };

bool parseOutputFormat(std::string_view name, OutputFormat& format);

// The documentation URL of a rule.
std::string ruleUrl(std::string_view code);

void render(const CheckResult& result, OutputFormat format, std::ostream& out);
void renderStatistics(const CheckResult& result, std::ostream& out);

} // namespace gradlint
