// Fixes for C++ guards written so that they guard nothing (GL105 temporaries, GL106 function
// declarations). Byte edits computed from the event and the file's text; header-only, shared
// by the two rules.
#pragma once

#include "checkers/ir/diagnostic.h"
#include "checkers/python/source_text.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace gradlint::rules::cppfix {

inline bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

inline std::string_view textOf(const SourceText& source, const ir::SourceRange& range) {
  const std::string& bytes = source.bytes();
  if (range.endByte > bytes.size() || range.startByte > range.endByte) return {};
  return std::string_view(bytes).substr(range.startByte, range.endByte - range.startByte);
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// A variable name the function does not use yet, after the usual spelling for the guard:
// `torch::NoGradGuard no_grad;` (PyTorch's docs), `c10::InferenceMode inference_mode;`.
inline std::string freshGuardName(const SourceText& source, const ir::FunctionIR& fn,
                                  ir::GuardKind kind) {
  std::unordered_set<std::string_view> used;
  const std::string_view body = textOf(source, fn.range);
  for (size_t i = 0; i < body.size();) {
    // Comments and string literals name nothing.
    if (body.substr(i, 2) == "//") {
      const size_t end = body.find('\n', i);
      i = end == std::string_view::npos ? body.size() : end;
      continue;
    }
    if (body.substr(i, 2) == "/*") {
      const size_t end = body.find("*/", i + 2);
      i = end == std::string_view::npos ? body.size() : end + 2;
      continue;
    }
    if (body[i] == '"') {
      size_t end = i + 1;
      while (end < body.size() && body[end] != '"' && body[end] != '\n') {
        end += body[end] == '\\' ? 2 : 1;
      }
      i = end + 1;
      continue;
    }
    if (!isIdentifierChar(body[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < body.size() && isIdentifierChar(body[end])) ++end;
    used.insert(body.substr(i, end - i));
    i = end;
  }
  std::string base;
  switch (kind) {
  case ir::GuardKind::NoGrad: base = "no_grad"; break;
  case ir::GuardKind::InferenceMode: base = "inference_mode"; break;
  case ir::GuardKind::SetGradEnabled: base = "grad_mode"; break;
  default: base = "dispatch_guard"; break;
  }
  std::string name = base;
  for (int n = 2; used.count(name) > 0; ++n) name = fmt::format("{}_{}", base, n);
  return name;
}

// `torch::NoGradGuard();` -> `torch::NoGradGuard no_grad;`, `c10::AutoGradMode(false);` ->
// `c10::AutoGradMode grad_mode(false);`. Only when the temporary is the whole statement as
// written (not in a macro, not behind a cast); `name` is the variable to introduce.
inline std::optional<Fix> nameTheTemporaryFix(const SourceText& source, const ir::Event& event,
                                              const std::string& name) {
  const std::string_view text = textOf(source, event.range);
  if (event.spelled.empty() || !text.starts_with(event.spelled)) return std::nullopt;
  const std::string& bytes = source.bytes();
  size_t after = event.range.endByte;
  while (after < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[after]))) ++after;
  if (after >= bytes.size() || bytes[after] != ';') return std::nullopt;
  size_t before = event.range.startByte;
  while (before > 0 && std::isspace(static_cast<unsigned char>(bytes[before - 1]))) --before;
  if (before > 0 && bytes[before - 1] != ';' && bytes[before - 1] != '{' &&
      bytes[before - 1] != '}' && bytes[before - 1] != ':') {
    return std::nullopt;
  }
  const std::string_view arguments = trim(text.substr(event.spelled.size()));
  Fix fix;
  // Unsafe: the code below then runs under the guard, which is what was meant but changes
  // what it computes.
  fix.applicability = Applicability::Unsafe;
  const uint32_t typeEnd = event.range.startByte + static_cast<uint32_t>(event.spelled.size());
  if (arguments.size() >= 2 && arguments.front() == '(' && arguments.back() == ')' &&
      trim(arguments.substr(1, arguments.size() - 2)).empty()) {
    // `T()` -> `T name`: `T name()` would declare a function (GL106).
    fix.edits.push_back(Edit{typeEnd, event.range.endByte, " " + name});
    fix.message = fmt::format("Name the guard: `{} {};`", event.spelled, name);
  } else if (!arguments.empty() && (arguments.front() == '(' || arguments.front() == '{')) {
    fix.edits.push_back(Edit{typeEnd, typeEnd, " " + name});
    fix.message = fmt::format("Name the guard: `{} {}{};`", event.spelled, name, arguments);
  } else {
    return std::nullopt;
  }
  return fix;
}

// `torch::NoGradGuard guard();` -> `torch::NoGradGuard guard;`. The event's range is
// `guard()`, from the name to the closing parenthesis.
inline std::optional<Fix> dropTheParenthesesFix(const SourceText& source, const ir::Event& event) {
  const std::string_view text = textOf(source, event.range);
  if (event.var.empty() || !text.starts_with(event.var)) return std::nullopt;
  const std::string_view parens = trim(text.substr(event.var.size()));
  if (parens.size() < 2 || parens.front() != '(' || parens.back() != ')' ||
      !trim(parens.substr(1, parens.size() - 2)).empty()) {
    return std::nullopt;
  }
  Fix fix;
  fix.applicability = Applicability::Unsafe; // the guard now exists: the code below changes
  fix.message = fmt::format("Drop the parentheses: `{} {};`",
                            event.spelled.empty() ? event.callee : event.spelled, event.var);
  fix.edits.push_back(Edit{event.range.startByte + static_cast<uint32_t>(event.var.size()),
                           event.range.endByte, ""});
  return fix;
}

// What a guard that is never made fails to do, for messages.
inline std::string_view missedEffect(ir::GuardKind kind) {
  return kind == ir::GuardKind::Other ? "the dispatch keys are unchanged for the code below"
                                      : "grad mode is unchanged for the code below";
}

} // namespace gradlint::rules::cppfix
