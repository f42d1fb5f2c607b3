// A function used as a decorator: which grad-mode region it runs the decorated function in, read
// from its syntax (`return torch.no_grad()(fn)`, a wrapper that calls `fn` inside `with
// torch.inference_mode():`, a factory returning either). The summary carries it to the decorator's
// uses in every module (see GradStateAnalysis::decoratorRegionOf).
#include "checkers/python/lowering_units.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace gradlint::python::detail {
namespace {

struct GuardRegion {
  ir::GuardKind guard = ir::GuardKind::Other;
  ir::GradValue mode = ir::GradValue::Unknown;
};

// The region a grad-mode context class spelled `expression` enters when called as `call`.
std::optional<GuardRegion> contextClassRegion(TSNode expression, TSNode call,
                                              std::string_view source,
                                              const NameResolver& resolver) {
  const GradApi api = catalog::classifyPythonName(resolver.resolve(expression, source));
  if (!catalog::isGradContext(api)) return std::nullopt;
  return GuardRegion{guardKindOf(api),
                     isNull(call) ? ir::GradValue::Unknown : modeArgument(call, source)};
}

// The region `context` enters: `torch.no_grad()`, `torch.inference_mode(False)`, or a choice of
// classes, `(torch.inference_mode if new_torch else torch.no_grad)()`. A choice of two regions that
// both turn grad off counts as `no_grad` (what both do); any other choice as none.
std::optional<GuardRegion> contextRegion(TSNode context, std::string_view source,
                                         const NameResolver& resolver) {
  if (isNull(context) || kindOf(context) != Kind::call) return std::nullopt;
  const TSNode function = unparenthesize(field(context, fields().function));
  if (isNull(function)) return std::nullopt;
  if (kindOf(function) != Kind::conditional_expression) {
    return contextClassRegion(function, context, source, resolver);
  }
  const std::vector<TSNode> parts = children(function); // value, condition, alternative
  if (parts.size() != 3) return std::nullopt;
  const auto first = contextClassRegion(unparenthesize(parts[0]), context, source, resolver);
  const auto second = contextClassRegion(unparenthesize(parts[2]), context, source, resolver);
  if (!first || !second) return std::nullopt;
  if (first->guard == second->guard && first->mode == second->mode) return first;
  if (ir::guardDisablesGrad(first->guard, first->mode) &&
      ir::guardDisablesGrad(second->guard, second->mode)) {
    return GuardRegion{ir::GuardKind::NoGrad, ir::GradValue::Unknown};
  }
  return std::nullopt;
}

// The name of a definition's first parameter (the function a decorator is handed); empty when it
// has none or the first takes `*args`.
std::string_view firstParameter(TSNode definition, std::string_view source) {
  const TSNode parameters = field(definition, fields().parameters);
  if (isNull(parameters)) return {};
  for (TSNode parameter : children(parameters)) {
    switch (kindOf(parameter)) {
    case Kind::identifier: return text(parameter, source);
    case Kind::default_parameter:
    case Kind::typed_default_parameter: return text(field(parameter, fields().name), source);
    case Kind::typed_parameter: {
      const std::vector<TSNode> parts = children(parameter);
      if (parts.empty() || kindOf(parts.front()) != Kind::identifier) return {};
      return text(parts.front(), source);
    }
    default: return {};
    }
  }
  return {};
}

// Visits the statements of `body` (into compound statements, not into nested definitions, which are
// visited but not entered).
template <typename Visit> void forEachStatement(TSNode body, Visit&& visit) {
  walkPreorder(body, [&](TSNode node) {
    switch (kindOf(node)) {
    case Kind::block:
    case Kind::if_statement:
    case Kind::elif_clause:
    case Kind::else_clause:
    case Kind::for_statement:
    case Kind::while_statement:
    case Kind::try_statement:
    case Kind::except_clause:
    case Kind::except_group_clause:
    case Kind::finally_clause:
    case Kind::with_statement:
    case Kind::match_statement:
    case Kind::case_clause: visit(node); return Walk::Descend;
    default: visit(node); return Walk::Skip;
    }
  });
}

// Whether `root` calls the function named `name` (not counting nested definitions' bodies).
bool callsName(TSNode root, std::string_view name, std::string_view source) {
  bool found = false;
  if (isNull(root)) return false;
  walkPreorder(root, [&](TSNode node) {
    const Kind kind = kindOf(node);
    if (kind == Kind::function_definition || kind == Kind::class_definition ||
        kind == Kind::lambda) {
      return Walk::Skip;
    }
    if (kind == Kind::call) {
      const TSNode function = unparenthesize(field(node, fields().function));
      if (!isNull(function) && kindOf(function) == Kind::identifier &&
          text(function, source) == name) {
        found = true;
        return Walk::Stop;
      }
    }
    return Walk::Descend;
  });
  return found;
}

// A wrapper defined in a decorator (`def wrapper(*args, **kwargs)`) that calls the decorated
// function `wrapped` in a grad-mode region: under a grad-mode decorator of its own, or inside `with
// torch.no_grad():`.
std::optional<GuardRegion> wrapperRegion(TSNode wrapper, TSNode decorated, std::string_view wrapped,
                                         std::string_view source, const NameResolver& resolver) {
  if (isNull(wrapper)) return std::nullopt;
  const TSNode body = field(wrapper, fields().body);
  if (wrapped.empty() || isNull(body)) return std::nullopt;
  if (!isNull(decorated)) {
    for (TSNode decorator : children(decorated)) {
      if (kindOf(decorator) != Kind::decorator) continue;
      const std::vector<TSNode> parts = children(decorator);
      if (parts.empty()) continue;
      const TSNode expression = unparenthesize(parts.front());
      const auto region = kindOf(expression) == Kind::call
                              ? contextRegion(expression, source, resolver)
                              : contextClassRegion(expression, TSNode{}, source, resolver);
      if (region && callsName(body, wrapped, source)) return region;
    }
  }
  std::optional<GuardRegion> found;
  forEachStatement(body, [&](TSNode statement) {
    if (found || kindOf(statement) != Kind::with_statement) return;
    for (TSNode clause : children(statement)) {
      if (kindOf(clause) != Kind::with_clause) continue;
      for (TSNode item : children(clause)) {
        if (kindOf(item) != Kind::with_item) continue;
        const auto region =
            contextRegion(unparenthesize(field(item, fields().value)), source, resolver);
        if (region && callsName(field(statement, fields().body), wrapped, source)) {
          found = region;
          return;
        }
      }
    }
  });
  return found;
}

// What one level of a decorator (a definition handed a function) returns: the region it runs that
// function in, or a nested definition that is the next level (a factory's decorator).
struct LevelResult {
  std::optional<GuardRegion> region;
  TSNode nextLevel{}; // a function_definition
};

// Every `return` of `definition` must agree; any other shape is no decorator we know.
std::optional<LevelResult> analyseLevel(TSNode definition, std::string_view source,
                                        const NameResolver& resolver) {
  if (isNull(definition)) return std::nullopt;
  const TSNode body = field(definition, fields().body);
  if (isNull(body)) return std::nullopt;
  const std::string_view wrapped = firstParameter(definition, source);
  std::vector<std::pair<std::string_view, TSNode>> nested; // name, decorated_definition or def
  std::vector<TSNode> returns;
  forEachStatement(body, [&](TSNode statement) {
    const Kind kind = kindOf(statement);
    if (kind == Kind::return_statement) returns.push_back(statement);
    TSNode definitionNode = statement;
    if (kind == Kind::decorated_definition) {
      definitionNode = field(statement, fields().definition);
    }
    if (!isNull(definitionNode) && kindOf(definitionNode) == Kind::function_definition) {
      nested.emplace_back(text(field(definitionNode, fields().name), source), statement);
    }
  });
  if (returns.empty()) return std::nullopt;
  std::optional<LevelResult> agreed;
  for (TSNode statement : returns) {
    const std::vector<TSNode> parts = children(statement);
    if (parts.size() != 1) return std::nullopt; // a bare `return`, or `return a, b`
    const TSNode value = unparenthesize(parts.front());
    LevelResult result;
    if (kindOf(value) == Kind::call) {
      // `torch.no_grad()(fn)`: the context object applied to the function.
      const TSNode applied = unparenthesize(field(value, fields().function));
      const TSNode argumentList = field(value, fields().arguments);
      if (isNull(applied) || isNull(argumentList)) return std::nullopt;
      const std::vector<TSNode> arguments = children(argumentList);
      if (wrapped.empty() || arguments.size() != 1 ||
          kindOf(arguments.front()) != Kind::identifier ||
          text(arguments.front(), source) != wrapped) {
        return std::nullopt;
      }
      result.region = contextRegion(applied, source, resolver);
      if (!result.region) return std::nullopt;
    } else if (kindOf(value) == Kind::identifier) {
      // The last definition of that name before the return wins, as at run time.
      TSNode statementNode{};
      for (const auto& [name, node] : nested) {
        if (name == text(value, source) &&
            ts_node_start_byte(node) < ts_node_start_byte(statement)) {
          statementNode = node;
        }
      }
      if (isNull(statementNode)) return std::nullopt;
      const bool decorated = kindOf(statementNode) == Kind::decorated_definition;
      const TSNode function = decorated ? field(statementNode, fields().definition) : statementNode;
      if (isNull(function)) return std::nullopt;
      result.region =
          wrapperRegion(function, decorated ? statementNode : TSNode{}, wrapped, source, resolver);
      if (!result.region) result.nextLevel = function;
    } else {
      return std::nullopt;
    }
    if (agreed && (agreed->region.has_value() != result.region.has_value() ||
                   (result.region && (agreed->region->guard != result.region->guard ||
                                      agreed->region->mode != result.region->mode)) ||
                   (!result.region && !ts_node_eq(agreed->nextLevel, result.nextLevel)))) {
      return std::nullopt;
    }
    agreed = result;
  }
  return agreed;
}

} // namespace

ir::DecoratorRegion decoratorRegionOf(TSNode definition, std::string_view source,
                                      const NameResolver& resolver) {
  // Every function is asked: a region needs a grad-mode class named in the definition, which a
  // substring search rules out for nearly all of them before any walk of the tree.
  const std::string_view code = text(definition, source);
  constexpr std::string_view kContexts[] = {"no_grad", "inference_mode", "enable_grad",
                                            "set_grad_enabled"};
  if (std::none_of(std::begin(kContexts), std::end(kContexts), [&](std::string_view name) {
        return code.find(name) != std::string_view::npos;
      })) {
    return {};
  }
  // Two levels: a decorator (`@d`), or a factory returning one (`@d(...)`).
  TSNode level = definition;
  for (const ir::DecoratorUse use : {ir::DecoratorUse::Bare, ir::DecoratorUse::Called}) {
    const std::optional<LevelResult> result = analyseLevel(level, source, resolver);
    if (!result) return {};
    if (result->region) return {use, result->region->guard, result->region->mode};
    level = result->nextLevel;
  }
  return {};
}

} // namespace gradlint::python::detail
