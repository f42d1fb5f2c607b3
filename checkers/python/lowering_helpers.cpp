// Small questions about syntax nodes that both lowering passes ask (lowering_units.h).
#include "checkers/python/lowering.h"
#include "checkers/python/lowering_units.h"

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/catalog/offload_api.h"
#include "checkers/python/names.h"
#include "checkers/python/syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::python::detail {

ir::GuardKind guardKindOf(GradApi api) {
  switch (api) {
  case GradApi::NoGrad: return ir::GuardKind::NoGrad;
  case GradApi::EnableGrad: return ir::GuardKind::EnableGrad;
  case GradApi::InferenceMode: return ir::GuardKind::InferenceMode;
  case GradApi::SetGradEnabled: return ir::GuardKind::SetGradEnabled;
  default: return ir::GuardKind::Other;
  }
}

bool headerDoesNotParse(TSNode definition) {
  TSNode body = field(definition, fields().body);
  if (isNull(body)) return true;
  const uint32_t count = ts_node_child_count(definition);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_child(definition, i);
    if (ts_node_eq(child, body)) continue;
    if (ts_node_is_missing(child) || ts_node_has_error(child)) return true;
  }
  return false;
}

bool definitionDoesNotParse(TSNode statement, std::string_view source) {
  switch (kindOf(statement)) {
  case Kind::decorated_definition: {
    TSNode definition = field(statement, fields().definition);
    return isNull(definition) || headerDoesNotParse(definition);
  }
  case Kind::function_definition:
  case Kind::class_definition: return headerDoesNotParse(statement);
  case Kind::ERROR: break;
  default: return false;
  }
  // A decorator starts it, or the keyword sits in the ERROR or in an ERROR nested in it
  // (`@dec(` then `def f(x):`); recovery may lex a keyword as an identifier, which no name
  // spelled `def` can be.
  if (ts_node_child_count(statement) > 0 &&
      std::string_view(ts_node_type(ts_node_child(statement, 0))) == "@") {
    return true;
  }
  std::vector<TSNode> errors{statement};
  while (!errors.empty()) {
    TSNode error = errors.back();
    errors.pop_back();
    const uint32_t count = ts_node_child_count(error);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_child(error, i);
      const Kind kind = kindOf(child);
      if (kind == Kind::ERROR) errors.push_back(child);
      const std::string_view spelled =
          kind == Kind::identifier ? text(child, source)
          : ts_node_is_named(child) ? std::string_view()
                                    : std::string_view(ts_node_type(child));
      if (spelled == "def" || spelled == "class") return true;
    }
  }
  return false;
}

std::vector<std::pair<TSNode, TSNode>> assignmentPairs(TSNode assignment) {
  const Fields& f = fields();
  TSNode left = field(assignment, f.left);
  TSNode right = field(assignment, f.right);
  while (!isNull(right) && kindOf(right) == Kind::assignment) right = field(right, f.right);
  right = unparenthesize(right);
  std::vector<std::pair<TSNode, TSNode>> pairs;
  if (isNull(left) || isNull(right)) return pairs;
  auto isName = [](TSNode n) {
    return kindOf(n) == Kind::identifier || kindOf(n) == Kind::attribute;
  };
  if (isName(left)) {
    pairs.emplace_back(left, right);
    return pairs;
  }
  const Kind leftKind = kindOf(left);
  const Kind rightKind = kindOf(right);
  if ((leftKind == Kind::pattern_list || leftKind == Kind::tuple_pattern) &&
      (rightKind == Kind::expression_list || rightKind == Kind::tuple)) {
    const std::vector<TSNode> targets = children(left);
    const std::vector<TSNode> values = children(right);
    if (targets.size() != values.size()) return pairs;
    for (size_t i = 0; i < targets.size(); ++i) {
      if (isName(targets[i])) pairs.emplace_back(targets[i], unparenthesize(values[i]));
    }
  }
  return pairs;
}

std::optional<std::string_view> stringValue(TSNode node, std::string_view source) {
  if (isNull(node) || kindOf(node) != Kind::string) return std::nullopt;
  std::string_view literal = text(node, source);
  while (!literal.empty() && std::isalpha(static_cast<unsigned char>(literal.front()))) {
    if (literal.front() == 'f' || literal.front() == 'F') return std::nullopt;
    literal.remove_prefix(1);
  }
  size_t quote = 0;
  while (quote < literal.size() && quote < 3 && (literal[quote] == '"' || literal[quote] == '\'')) {
    ++quote;
  }
  if (literal.size() < 2 * quote) return std::nullopt;
  return literal.substr(quote, literal.size() - 2 * quote);
}

TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source) {
  for (TSNode argument : children(field(call, fields().arguments))) {
    if (kindOf(argument) == Kind::keyword_argument &&
        text(field(argument, fields().name), source) == name) {
      return field(argument, fields().value);
    }
  }
  return TSNode{};
}

catalog::DeviceMapPlacement mapPlacement(TSNode map, std::string_view source, int depth) {
  map = unparenthesize(map);
  if (kindOf(map) == Kind::conditional_expression && depth < 8) {
    const std::vector<TSNode> parts = children(map); // value, condition, other value
    if (parts.size() != 3) return catalog::DeviceMapPlacement::MayOffload;
    return worsePlacement(mapPlacement(parts[0], source, depth + 1),
                          mapPlacement(parts[2], source, depth + 1));
  }
  if (auto value = stringValue(map, source)) return catalog::classifyDeviceMapString(*value);
  if (kindOf(map) == Kind::dictionary) {
    // Offloads when some modules go to "cpu"/"disk" and others elsewhere (hooks move them).
    bool toHost = false;
    bool toDisk = false;
    bool elsewhere = false;
    for (TSNode entry : children(map)) {
      if (kindOf(entry) != Kind::pair) continue;
      const auto value = stringValue(field(entry, fields().value), source);
      if (value && *value == "disk") toDisk = true;
      else if (value && *value == "cpu") toHost = true;
      else elsewhere = true;
    }
    return toDisk || (toHost && elsewhere) ? catalog::DeviceMapPlacement::Offloads
                                           : catalog::DeviceMapPlacement::OnDevice;
  }
  if (kindOf(map) == Kind::call &&
      catalog::buildsAutomaticDeviceMap(text(field(map, fields().function), source))) {
    return catalog::DeviceMapPlacement::MayOffload;
  }
  // Literals name one device or none. What cannot be read here (a name bound elsewhere, an
  // attribute, a subscript, another call) is not reported: real code passes a device string or
  // `{"": index}` this way far more often than an automatic map.
  return catalog::DeviceMapPlacement::OnDevice;
}

catalog::DeviceMapPlacement worsePlacement(catalog::DeviceMapPlacement a,
                                           catalog::DeviceMapPlacement b) {
  auto rank = [](catalog::DeviceMapPlacement p) {
    switch (p) {
    case catalog::DeviceMapPlacement::OnDevice: return 0;
    case catalog::DeviceMapPlacement::MayOffload: return 1;
    case catalog::DeviceMapPlacement::Offloads: return 2;
    }
    return 1;
  };
  return rank(a) >= rank(b) ? a : b;
}

bool handedToExitStack(TSNode call, std::string_view source) {
  TSNode arguments = ts_node_parent(call);
  if (isNull(arguments) || kindOf(arguments) != Kind::argument_list) return false;
  TSNode outer = ts_node_parent(arguments);
  if (isNull(outer) || kindOf(outer) != Kind::call) return false;
  TSNode function = unparenthesize(field(outer, fields().function));
  if (kindOf(function) != Kind::attribute) return false;
  const std::string_view method = text(field(function, fields().attribute), source);
  return method == "enter_context" || method == "enter_async_context";
}

bool isExitStackClass(std::string_view qualifiedName) {
  return qualifiedName == "contextlib.ExitStack" || qualifiedName == "contextlib.AsyncExitStack";
}

TSNode modeExpression(TSNode call, std::string_view source) {
  const Fields& f = fields();
  TSNode value{};
  for (TSNode argument : children(field(call, f.arguments))) {
    if (kindOf(argument) == Kind::keyword_argument) {
      if (text(field(argument, f.name), source) == "mode") value = field(argument, f.value);
      continue;
    }
    if (kindOf(argument) == Kind::comment) continue;
    value = argument;
    break;
  }
  return unparenthesize(value);
}

ir::GradValue modeArgument(TSNode call, std::string_view source) {
  const TSNode value = modeExpression(call, source);
  if (isNull(value)) return ir::GradValue::Unknown;
  if (kindOf(value) == Kind::true_) return ir::GradValue::Enabled;
  if (kindOf(value) == Kind::false_) return ir::GradValue::Disabled;
  return ir::GradValue::Unknown;
}

bool isMainGuard(TSNode condition, std::string_view source) {
  if (isNull(condition) || kindOf(condition) != Kind::comparison_operator) return false;
  std::string_view text = python::text(condition, source);
  return text.find("__name__") != std::string_view::npos &&
         text.find("__main__") != std::string_view::npos;
}

std::optional<ModuleFlag> moduleFlag(std::string_view source, std::string_view name) {
  auto isNameChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  auto lineStart = [&](size_t at) {
    const size_t newline = source.rfind('\n', at == 0 ? 0 : at - 1);
    return at == 0 || newline == std::string_view::npos ? size_t{0} : newline + 1;
  };
  std::optional<ModuleFlag> flag;
  size_t bindings = 0;
  for (size_t at = source.find(name); at != std::string_view::npos;
       at = source.find(name, at + name.size())) {
    const size_t end = at + name.size();
    if ((at > 0 && (isNameChar(source[at - 1]) || source[at - 1] == '.')) ||
        (end < source.size() && isNameChar(source[end]))) {
      continue; // part of another name, or an attribute
    }
    // The word before it on its line: a statement that binds the name.
    size_t wordEnd = at;
    while (wordEnd > 0 && (source[wordEnd - 1] == ' ' || source[wordEnd - 1] == '\t')) --wordEnd;
    size_t wordStart = wordEnd;
    while (wordStart > 0 && isNameChar(source[wordStart - 1])) --wordStart;
    static constexpr std::string_view kBinders[] = {"global", "nonlocal", "as", "for", "import",
                                                    "del", "def", "class", "case", "lambda"};
    const std::string_view wordBefore = source.substr(wordStart, wordEnd - wordStart);
    if (std::find(std::begin(kBinders), std::end(kBinders), wordBefore) != std::end(kBinders)) {
      return std::nullopt;
    }
    const size_t line = lineStart(at);
    // In a comment (`# set FP8 = True for ...`): a `#` before it on its line, with no quote
    // before that `#` that could open a string holding it.
    const std::string_view beforeOnLine = source.substr(line, at - line);
    const size_t hash = beforeOnLine.find('#');
    if (hash != std::string_view::npos &&
        beforeOnLine.substr(0, hash).find_first_of("'\"") == std::string_view::npos) {
      continue;
    }
    const std::string_view lineText = source.substr(line);
    if (lineText.find_first_not_of(" \t") != std::string_view::npos) {
      const std::string_view trimmed = lineText.substr(lineText.find_first_not_of(" \t"));
      if (trimmed.starts_with("from ") || trimmed.starts_with("import ")) return std::nullopt;
    }
    size_t next = end;
    while (next < source.size() && (source[next] == ' ' || source[next] == '\t')) ++next;
    const std::string_view rest = source.substr(next);
    // `x += 1`, `x //= 2`, `(x := v)`, `x: bool = v`, `x, y = ...`, `f(x=v)`, `def f(x=v)`.
    static constexpr std::string_view kRebinders[] = {"+=", "-=", "*=", "/=", "%=", "&=", "|=",
                                                      "^=", "@=", "//=", "**=", ">>=", "<<=",
                                                      ":="};
    for (std::string_view op : kRebinders) {
      if (rest.starts_with(op)) return std::nullopt;
    }
    // First on its line: `x: bool = v` (annotated) or `x, y = ...` (a target among others).
    if (line == at && (rest.starts_with(":") || rest.starts_with(","))) return std::nullopt;
    if (!rest.starts_with("=") || rest.starts_with("==")) continue; // a use
    ++bindings;
    if (line != at) return std::nullopt; // indented
    size_t valueStart = next + 1;
    while (valueStart < source.size() && source[valueStart] == ' ') ++valueStart;
    const std::string_view literal = source.substr(valueStart);
    const bool isTrue = literal.starts_with("True");
    if (!isTrue && !literal.starts_with("False")) return std::nullopt;
    const size_t after = valueStart + (isTrue ? 4 : 5);
    const size_t lineEnd = source.find('\n', after);
    const std::string_view tail =
        source.substr(after, lineEnd == std::string_view::npos ? std::string_view::npos
                                                                : lineEnd - after);
    const size_t content = tail.find_first_not_of(" \t\r");
    if (content != std::string_view::npos && tail[content] != '#') return std::nullopt;
    flag = ModuleFlag{isTrue, end};
  }
  if (bindings != 1) return std::nullopt;
  return flag;
}

TSNode sameModuleSource(TSNode call, std::string_view source) {
  const Fields& f = fields();
  TSNode function = unparenthesize(field(call, f.function));
  const bool method = kindOf(function) == Kind::attribute;
  const std::string_view last =
      method ? text(field(function, f.attribute), source) : text(function, source);
  if (catalog::returnsSameModel(last) ||
      (method && catalog::wrapsFirstArgument(text(field(function, f.object), source), last))) {
    return unparenthesize(firstPositionalArgument(call));
  }
  if (method && catalog::isModuleMoveMethod(last)) return unparenthesize(field(function, f.object));
  // `accelerator.prepare(m)` of one object returns that object (of several: a tuple).
  if (method && last == "prepare" &&
      text(field(function, f.object), source).ends_with("accelerator")) {
    TSNode only = firstPositionalArgument(call);
    if (!isNull(only) && ts_node_named_child_count(field(call, f.arguments)) == 1) {
      return unparenthesize(only);
    }
  }
  return TSNode{};
}

std::string componentObject(TSNode value, std::string_view source) {
  const Fields& f = fields();
  TSNode node = unparenthesize(value);
  for (int hop = 0; hop < 8 && !isNull(node); ++hop) {
    switch (kindOf(node)) {
    case Kind::identifier: return std::string(text(node, source));
    case Kind::attribute:
      if (text(field(node, f.attribute), source) != "components") {
        return std::string(text(node, source));
      }
      node = unparenthesize(field(node, f.object));
      break;
    case Kind::call: {
      node = sameModuleSource(node, source);
      if (isNull(node)) return {};
      break;
    }
    default: return {};
    }
  }
  return {};
}

std::string sameModuleObject(TSNode value, std::string_view source) {
  TSNode node = unparenthesize(value);
  bool followed = false;
  for (int hop = 0; hop < 8 && !isNull(node) && kindOf(node) == Kind::call; ++hop) {
    node = sameModuleSource(node, source);
    followed = true;
  }
  if (!followed || isNull(node)) return {};
  if (kindOf(node) != Kind::identifier && kindOf(node) != Kind::attribute) return {};
  return std::string(text(node, source));
}

} // namespace gradlint::python::detail
