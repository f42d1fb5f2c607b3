# Generates a C++ file that maps each docs/rules/<CODE>.md to its text, so `gradlint rule`
# prints the same page the docs publish. Run as: cmake -DDOCS_DIR=... -DOUTPUT=... -P this.
file(GLOB pages "${DOCS_DIR}/GL*.md")
list(SORT pages)
set(body "")
foreach(page IN LISTS pages)
  get_filename_component(code "${page}" NAME_WE)
  file(READ "${page}" text)
  string(APPEND body "    {\"${code}\", R\"GLDOC(${text})GLDOC\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from docs/rules by cmake/EmbedRuleDocs.cmake. Do not edit.
#include \"rules/rule.h\"

#include <string_view>
#include <utility>

namespace gradlint::rules {

std::string_view ruleDocumentation(std::string_view code) {
  static constexpr std::pair<std::string_view, std::string_view> kPages[] = {
${body}  };
  for (const auto& [pageCode, text] : kPages) {
    if (pageCode == code) return text;
  }
  return {};
}

} // namespace gradlint::rules
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
