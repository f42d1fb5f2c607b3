// Pass B, expressions: calls (grad-mode APIs, training events, offload and placement) and values.
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

void UnitLowerer::lowerExpression(TSNode expression, Role role, std::string_view target,
                                  std::vector<std::string>* deps) {
  TSNode root = unparenthesize(expression);
  if (isNull(root)) return;
  const Fields& f = fields();
  // Post-order (arguments before the call that takes them), iteratively: expressions can nest
  // thousands deep.
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  auto visit = [&](TSNode node) {
    if (deps != nullptr && kindOf(node) == Kind::identifier) {
      // Only for identifiers: the field lookup walks the hidden nodes above, which a long
      // literal (`[1, 1, ...]` of millions) makes costly for every element.
      const TSFieldId fieldId =
          ts_node_eq(node, root) ? 0 : ts_tree_cursor_current_field_id(&cursor);
      const bool selfOfAttribute = fieldId == f.object && text(node, source_) == "self";
      if (fieldId != f.attribute && fieldId != f.name && !selfOfAttribute) {
        // `self.student(x)` depends on `self.student` (added below), not on all of `self`:
        // whatever else `self` holds (an offloaded teacher) is not reached through it.
        deps->emplace_back(text(node, source_));
      }
    } else if (deps != nullptr && kindOf(node) == Kind::attribute &&
               text(field(node, f.object), source_) == "self") {
      deps->emplace_back(text(node, source_));
    }
    switch (kindOf(node)) {
    case Kind::call:
      if (deps != nullptr) dropClonedDependency(node, *deps);
      lowerCall(node, ts_node_eq(node, root) ? role : Role::Other, target);
      break;
    case Kind::list_comprehension:
    case Kind::set_comprehension:
    case Kind::dictionary_comprehension:
    case Kind::generator_expression: --comprehensionDepth_; break;
    case Kind::await:
    case Kind::yield: {
      Event event;
      event.kind = kindOf(node) == Kind::await ? EventKind::Await : EventKind::Yield;
      event.mayRaise = true; // a suspended frame can be resumed with an exception
      event.range = rangeOf(node);
      emit(event);
      break;
    }
    default: break;
    }
  };
  auto opaque = [](TSNode node) {
    switch (kindOf(node)) {
    case Kind::lambda:
    case Kind::function_definition:
    case Kind::class_definition: return true;
    default: return false;
    }
  };
  auto isComprehension = [](TSNode node) {
    switch (kindOf(node)) {
    case Kind::list_comprehension:
    case Kind::set_comprehension:
    case Kind::dictionary_comprehension:
    case Kind::generator_expression: return true;
    default: return false;
    }
  };
  while (true) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    // A comprehension is a loop: calls inside it count as in a loop (balanced in visit()).
    if (isComprehension(node)) ++comprehensionDepth_;
    if (!opaque(node) && ts_tree_cursor_goto_first_child(&cursor)) continue;
    visit(node);
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      visit(ts_tree_cursor_current_node(&cursor));
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
}

bool UnitLowerer::savedByEnclosingScope(const std::string& name) const {
  for (int at = unit_.parent; at >= 0; at = module_.units[static_cast<size_t>(at)].parent) {
    if (module_.units[static_cast<size_t>(at)].savedVars.count(name)) return true;
  }
  return false;
}

std::string UnitLowerer::resolveCallee(TSNode function) const {
  std::string resolved = module_.resolver.resolve(function, source_);
  if (!resolved.empty()) return resolved;
  // self.method(...) / cls.method(...) inside a method of a module-level class.
  function = unparenthesize(function);
  if (kindOf(function) != Kind::attribute || unit_.classUnit < 0) return {};
  TSNode object = field(function, fields().object);
  const std::string_view receiver = text(object, source_);
  if (receiver != "self" && receiver != "cls") return {};
  const UnitSource& owner = module_.units[static_cast<size_t>(unit_.classUnit)];
  if (owner.qualifiedName.empty()) return {};
  return owner.qualifiedName + "." +
         std::string(text(field(function, fields().attribute), source_));
}

void UnitLowerer::emitSetGrad(TSNode call, GradApi api, ir::ApiFlavor flavor,
                              const std::string& callee) {
  Event event;
  event.kind = EventKind::SetGrad;
  event.flavor = flavor;
  event.callee = callee.empty() ? std::string(catalog::displayName(api)) : callee;
  event.range = rangeOf(call);
  const TSNode value = modeExpression(call, source_);
  const Kind kind = isNull(value) ? Kind::other : kindOf(value);
  if (kind == Kind::true_) {
    event.value = ir::GradValue::Enabled;
  } else if (kind == Kind::false_) {
    event.value = ir::GradValue::Disabled;
  } else if (kind == Kind::identifier || kind == Kind::attribute) {
    const std::string name(text(value, source_));
    bool restoresClassSave = false;
    if (name.starts_with("self.") && unit_.classUnit >= 0) {
      restoresClassSave =
          module_.units[static_cast<size_t>(unit_.classUnit)].savedAttrs.count(name.substr(5)) > 0;
    }
    const auto param = std::find(fn_.params.begin(), fn_.params.end(), name);
    if (unit_.savedVars.count(name) || restoresClassSave || savedByEnclosingScope(name)) {
      event.kind = EventKind::RestoreGrad;
      event.var = name;
    } else if (kind == Kind::identifier && param != fn_.params.end()) {
      event.kind = EventKind::RestoreArg;
      event.argIndex = static_cast<int32_t>(param - fn_.params.begin());
      event.var = name;
    }
  }
  emit(event);
}

bool UnitLowerer::lowerEnterContext(TSNode call, TSNode function) {
  const Fields& f = fields();
  if (exitStacks_.empty() || kindOf(function) != Kind::attribute) return false;
  const std::string_view method = text(field(function, f.attribute), source_);
  if (method != "enter_context" && method != "enter_async_context") return false;
  TSNode object = unparenthesize(field(function, f.object));
  if (kindOf(object) != Kind::identifier) return false;
  const std::string_view name = text(object, source_);
  auto scope = std::find_if(exitStacks_.rbegin(), exitStacks_.rend(),
                            [&](const ExitStackScope& s) { return s.name == name; });
  // Inside a loop, `with` or `try` of the block, the exit would land at the wrong cleanup.
  if (scope == exitStacks_.rend() || cleanups_.size() != scope->cleanupsEnd ||
      loops_.size() != scope->loops) {
    return false;
  }
  TSNode context = unparenthesize(firstPositionalArgument(call));
  if (isNull(context) || kindOf(context) != Kind::call) return false;
  const std::string callee = resolveCallee(field(context, f.function));
  const GradApi api = catalog::classifyPythonName(callee);
  if (!catalog::isGradContext(api)) return false;
  // The same enter as `with torch.no_grad():` (lowerCall's WithItem role), keyed by the
  // context's position so that the stack's exit restores the mode saved here.
  Event enter;
  enter.kind = EventKind::EnterGuard;
  enter.guard = guardKindOf(api);
  enter.value = api == GradApi::SetGradEnabled || api == GradApi::InferenceMode
                    ? modeArgument(context, source_)
                    : ir::GradValue::Unknown;
  enter.callee = callee;
  enter.var = ir::contextSlot(ts_node_start_byte(context));
  enter.range = rangeOf(context);
  emit(enter);
  Cleanup cleanup;
  cleanup.guard = enter.guard;
  cleanup.key = enter.var;
  cleanup.callee = callee;
  cleanup.range = rangeOf(context);
  cleanups_.push_back(cleanup);
  scope->cleanupsEnd = cleanups_.size();
  return true;
}

void UnitLowerer::lowerCall(TSNode call, Role role, std::string_view target) {
  const Fields& f = fields();
  TSNode function = unparenthesize(field(call, f.function));
  const std::string callee = resolveCallee(function);
  const GradApi api = catalog::classifyPythonName(callee);

  if (api == GradApi::None && lowerEnterContext(call, function)) return;

  // torch.no_grad().__enter__() keeps no reference to the context, so nothing can exit it.
  if (api == GradApi::None && kindOf(function) == Kind::attribute &&
      text(field(function, f.attribute), source_) == "__enter__") {
    TSNode inner = unparenthesize(field(function, f.object));
    if (kindOf(inner) == Kind::call) {
      const std::string innerCallee = resolveCallee(field(inner, f.function));
      const GradApi innerApi = catalog::classifyPythonName(innerCallee);
      if (catalog::isGradContext(innerApi)) {
        if (innerApi == GradApi::SetGradEnabled) {
          // The constructor already toggled; only a literal mode makes this a GL105 toggle.
          emitSetGrad(inner, innerApi, ir::ApiFlavor::ContextEnteredByHand, innerCallee);
          fn_.nodes[current_].event.range = rangeOf(call);
          return;
        }
        Event event;
        if (innerApi == GradApi::InferenceMode) {
          // inference_mode keeps its guard on the context object, which dies with the
          // statement: nothing lasting happens, like a bare `torch.inference_mode()`.
          event.kind = EventKind::Call;
          event.callee = innerCallee;
          event.resultDiscarded = true;
          event.var = "__enter__";
          event.range = rangeOf(call);
          emit(event);
          return;
        }
        event.kind = EventKind::SetGrad;
        event.flavor = ir::ApiFlavor::ContextEnteredByHand;
        event.callee = innerCallee;
        event.value =
            innerApi == GradApi::EnableGrad ? ir::GradValue::Enabled : ir::GradValue::Disabled;
        event.range = rangeOf(call);
        emit(event);
        return;
      }
    }
  }

  switch (api) {
  case GradApi::SetGradEnabled:
    // `guard = torch.set_grad_enabled(False)` then `with guard:` is a context kept and
    // entered: its exit restores the mode saved at construction.
    if (role == Role::Assigned && unit_.enteredNames.count(std::string(target))) return;
    // A lambda's body is its return value, but `lambda: torch.set_grad_enabled(False)` is a
    // callback that toggles: the constructor changes the mode.
    if (role == Role::Discarded || role == Role::Assigned ||
        (role == Role::Returned && unit_.kind == ir::UnitKind::Lambda) ||
        (role == Role::Other && !handedToExitStack(call, source_))) {
      emitSetGrad(call, api, ir::ApiFlavor::Public, callee);
    } else if (role == Role::WithItem) {
      Event enter;
      enter.kind = EventKind::EnterGuard;
      enter.guard = ir::GuardKind::SetGradEnabled;
      enter.value = modeArgument(call, source_);
      enter.callee = callee;
      enter.range = rangeOf(call);
      emit(enter);
    }
    return;
  case GradApi::PrivateSetGradEnabled:
    emitSetGrad(call, api, ir::ApiFlavor::Private, callee);
    return;
  case GradApi::IsGradEnabled:
    if (role == Role::Assigned && unit_.savedVars.count(std::string(target))) {
      Event save;
      save.kind = EventKind::SaveGrad;
      save.var = std::string(target);
      save.range = rangeOf(call);
      emit(save);
    }
    return;
  case GradApi::NoGrad:
  case GradApi::EnableGrad:
  case GradApi::InferenceMode:
    if (role == Role::WithItem) {
      Event enter;
      enter.kind = EventKind::EnterGuard;
      enter.guard = guardKindOf(api);
      enter.value = api == GradApi::InferenceMode ? modeArgument(call, source_)
                                                  : ir::GradValue::Unknown;
      enter.callee = callee;
      enter.range = rangeOf(call);
      emit(enter);
    } else if (role == Role::Discarded) {
      Event bare;
      bare.kind = EventKind::Call;
      bare.callee = callee;
      bare.resultDiscarded = true;
      bare.range = rangeOf(call);
      emit(bare);
    }
    return;
  case GradApi::None: break;
  }

  if (lowerTrainingCall(call, function, callee)) return;
  if (lowerPlacementCall(call, function, callee)) return;

  Event event;
  event.kind = EventKind::Call;
  event.callee = callee;
  event.spelled = std::string(text(function, source_));
  event.mayRaise = true;
  event.resultDiscarded = role == Role::Discarded;
  if (role == Role::Assigned) event.var = std::string(target);
  event.range = rangeOf(call);
  CallArguments arguments;
  bool positionalDone = false;
  for (TSNode argument : children(field(call, f.arguments))) {
    const Kind kind = kindOf(argument);
    if (kind == Kind::keyword_argument) {
      TSNode value = unparenthesize(field(argument, f.value));
      const Kind valueKind = kindOf(value);
      const std::string_view name = text(field(argument, f.name), source_);
      if (valueKind == Kind::identifier) {
        arguments.keywordVars.emplace_back(name, text(value, source_));
      }
      arguments.keywordBools.emplace_back(name, valueKind == Kind::true_    ? 1
                                                : valueKind == Kind::false_ ? 0
                                                                            : -1);
      continue;
    }
    if (kind == Kind::comment) continue;
    // Only the positional arguments before any *args line up with parameters.
    if (kind == Kind::list_splat || kind == Kind::dictionary_splat) {
      positionalDone = true;
      arguments.argsSplat = true;
    }
    if (positionalDone) continue;
    TSNode value = unparenthesize(argument);
    arguments.argVars.emplace_back(kindOf(value) == Kind::identifier ? text(value, source_)
                                                                     : std::string_view());
    arguments.argBools.push_back(kindOf(value) == Kind::true_    ? 1
                                 : kindOf(value) == Kind::false_ ? 0
                                                                 : -1);
  }
  if (!arguments.empty()) event.writeCall() = std::move(arguments);
  emit(event);
  if (role == Role::WithItem) {
    Event enter;
    enter.kind = EventKind::EnterGuard;
    enter.guard = ir::GuardKind::Other;
    enter.callee = callee;
    enter.range = rangeOf(call);
    emit(enter);
  }
}

// What an unnamed value is computed from, as an assignment's dependencies would list it: the
// names read in `expression` (`model`, `batch` of `model(**batch).loss`; `compute_loss`,
// `model`, `batch` of `compute_loss(model, batch)`), `self.x` for attributes of self, and not
// attribute or keyword names. Nothing inside lambdas or comprehensions.
std::vector<std::string> valueDependencies(TSNode expression, std::string_view source) {
  const Fields& f = fields();
  std::vector<std::string> deps;
  walkPreorderWithAncestors(unparenthesize(expression), [&](TSNode node,
                                                            const std::vector<TSNode>& ancestors) {
    switch (kindOf(node)) {
    case Kind::lambda:
    case Kind::list_comprehension:
    case Kind::set_comprehension:
    case Kind::dictionary_comprehension:
    case Kind::generator_expression: return Walk::Skip;
    case Kind::attribute:
      if (text(field(node, f.object), source) == "self") {
        deps.emplace_back(text(node, source));
        return Walk::Skip;
      }
      return Walk::Descend;
    case Kind::identifier: {
      const TSNode parent = ancestors.empty() ? TSNode{} : ancestors.back();
      const bool named = !isNull(parent) &&
                         ((kindOf(parent) == Kind::attribute &&
                           ts_node_eq(node, field(parent, f.attribute))) ||
                          (kindOf(parent) == Kind::keyword_argument &&
                           ts_node_eq(node, field(parent, f.name))));
      if (!named) deps.emplace_back(text(node, source));
      return Walk::Skip;
    }
    default: return Walk::Descend;
    }
  });
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

// The variable a value comes from: `loss` for `loss`, `loss.mean()`, `scaler.scale(loss)`;
// `self.loss` for attributes of self. "" when there is no single one.
std::string valueVariable(TSNode expression, std::string_view source) {
  const Fields& f = fields();
  TSNode node = unparenthesize(expression);
  while (!isNull(node)) {
    switch (kindOf(node)) {
    case Kind::identifier: return std::string(text(node, source));
    case Kind::attribute: {
      TSNode object = unparenthesize(field(node, f.object));
      if (text(object, source) == "self") return std::string(text(node, source));
      node = object;
      break;
    }
    case Kind::call: {
      TSNode function = unparenthesize(field(node, f.function));
      if (kindOf(function) != Kind::attribute) return {};
      if (text(field(function, f.attribute), source) == "scale") {
        // scaler.scale(loss): the value is the argument.
        std::vector<TSNode> arguments = children(field(node, f.arguments));
        if (arguments.empty()) return {};
        node = unparenthesize(arguments.front());
      } else {
        node = unparenthesize(field(function, f.object));
        // `self.model(x)` or `self.compute_loss(x)`: a submodule's or a method's output, not
        // `self` (a value of `self` would reach everything it holds).
        const std::string_view object = text(node, source);
        if (object == "self" || object == "cls") return {};
      }
      break;
    }
    default: return {};
    }
  }
  return {};
}

TSNode firstPositionalArgument(TSNode call) {
  for (TSNode argument : children(field(call, fields().arguments))) {
    const Kind kind = kindOf(argument);
    if (kind == Kind::keyword_argument || kind == Kind::comment) continue;
    return argument;
  }
  return TSNode{};
}

void UnitLowerer::dropClonedDependency(TSNode call, std::vector<std::string>& deps) const {
  TSNode function = unparenthesize(field(call, fields().function));
  if (kindOf(function) != Kind::attribute ||
      text(field(function, fields().attribute), source_) != "clone") {
    return;
  }
  const std::string_view object = text(unparenthesize(field(function, fields().object)), source_);
  auto it = std::find(deps.rbegin(), deps.rend(), object);
  if (it != deps.rend()) deps.erase(std::next(it).base());
}

catalog::DeviceMapPlacement UnitLowerer::devicePlacement(TSNode call) const {
  if (!isNull(keywordArgument(call, "offload_folder", source_))) {
    return catalog::DeviceMapPlacement::Offloads;
  }
  TSNode map = unparenthesize(keywordArgument(call, "device_map", source_));
  if (isNull(map)) map = splattedDeviceMap(call);
  if (isNull(map)) return catalog::DeviceMapPlacement::OnDevice;
  catalog::DeviceMapPlacement placement = catalog::DeviceMapPlacement::OnDevice;
  if (kindOf(map) != Kind::identifier) {
    placement = mapPlacement(map, source_);
  } else if (const std::vector<TSNode>& values = plainBindings(text(map, source_));
             !values.empty()) {
    for (TSNode value : values) placement = worsePlacement(placement, mapPlacement(value, source_));
  } else if (TSNode fallback = parameterDefault(text(map, source_)); !isNull(fallback)) {
    placement = mapPlacement(fallback, source_); // `def load(name, device_map="auto")`
  }
  // What may offload fails to load instead when quantized without cpu offload allowed, and a
  // small model fits whole on the GPU.
  if (placement == catalog::DeviceMapPlacement::MayOffload &&
      (quantizedWithoutCpuOffload(call) || loadsSmallCheckpoint(call))) {
    return catalog::DeviceMapPlacement::OnDevice;
  }
  return placement;
}

bool UnitLowerer::loadsSmallCheckpoint(TSNode call) const {
  TSNode checkpoint = firstPositionalArgument(call);
  if (isNull(checkpoint)) {
    checkpoint = keywordArgument(call, "pretrained_model_name_or_path", source_);
  }
  if (isNull(checkpoint)) return false;
  const std::vector<std::string_view> names = stringValues(unparenthesize(checkpoint));
  return !names.empty() && std::all_of(names.begin(), names.end(), catalog::namesSmallCheckpoint);
}

std::vector<std::string_view> UnitLowerer::stringValues(TSNode expression) const {
  const Fields& f = fields();
  // Literals, and `a if c else b` of literals (nested a few deep).
  auto literals = [&](const std::vector<TSNode>& values) {
    std::vector<std::string_view> strings;
    std::vector<std::pair<TSNode, int>> pending;
    for (TSNode value : values) pending.emplace_back(value, 0);
    while (!pending.empty()) {
      const auto [value, depth] = pending.back();
      pending.pop_back();
      TSNode node = unparenthesize(value);
      if (kindOf(node) == Kind::conditional_expression && depth < 8) {
        const std::vector<TSNode> parts = children(node); // value, condition, other value
        if (parts.size() != 3) return std::vector<std::string_view>{};
        pending.emplace_back(parts[0], depth + 1);
        pending.emplace_back(parts[2], depth + 1);
        continue;
      }
      const auto string = stringValue(node, source_);
      if (!string) return std::vector<std::string_view>{};
      strings.push_back(*string);
    }
    return strings;
  };
  if (kindOf(expression) != Kind::identifier && kindOf(expression) != Kind::attribute) {
    return literals({expression});
  }
  if (kindOf(expression) == Kind::identifier) {
    const std::string_view name = text(expression, source_);
    if (const std::vector<TSNode>& values = plainBindings(name); !values.empty()) {
      return literals(values);
    }
    if (TSNode fallback = parameterDefault(name); !isNull(fallback)) return literals({fallback});
    if (unit_.kind != ir::UnitKind::Function || boundInUnit(name)) return {};
    ++module_.outsideReads;
    return literals(module_.moduleBindings(name));
  }
  if (kindOf(expression) == Kind::attribute && unit_.classUnit >= 0) {
    const std::string_view object = text(field(expression, f.object), source_);
    if (object != "self" && object != "cls") return {};
    ++module_.outsideReads;
    return literals(module_.classAttributeBindings(unit_.classUnit,
                                                   text(field(expression, f.attribute), source_)));
  }
  return {};
}

// The `device_map` entry of a dict the call unpacks as keyword arguments: `**{"device_map":
// m}`, `**dict(device_map=m)`, or `**kwargs` where every binding of `kwargs` in the unit is
// such a dict. The first binding's entry when several have one (a literal, or a name read as
// the keyword's would be); null when none does.
TSNode UnitLowerer::splattedDeviceMap(TSNode call) const {
  const Fields& f = fields();
  auto entryOf = [&](TSNode dict) -> TSNode {
    dict = unparenthesize(dict);
    if (kindOf(dict) == Kind::dictionary) {
      for (TSNode pair : children(dict)) {
        if (kindOf(pair) != Kind::pair) continue;
        const auto key = stringValue(
            unparenthesize(ts_node_child_by_field_name(pair, "key", 3)), source_);
        if (key && *key == "device_map") return field(pair, f.value);
      }
    } else if (kindOf(dict) == Kind::call &&
               text(field(dict, f.function), source_) == "dict" &&
               module_.resolver.resolve(field(dict, f.function), source_).empty()) {
      return keywordArgument(dict, "device_map", source_);
    }
    return TSNode{};
  };
  for (TSNode argument : children(field(call, f.arguments))) {
    if (kindOf(argument) != Kind::dictionary_splat) continue;
    TSNode splatted{};
    for (TSNode inner : children(argument)) splatted = unparenthesize(inner);
    if (isNull(splatted)) continue;
    if (kindOf(splatted) != Kind::identifier) {
      if (TSNode entry = entryOf(splatted); !isNull(entry)) return unparenthesize(entry);
      continue;
    }
    for (TSNode binding : plainBindings(text(splatted, source_))) {
      if (TSNode entry = entryOf(binding); !isNull(entry)) return unparenthesize(entry);
    }
  }
  return TSNode{};
}

TSNode UnitLowerer::parameterDefault(std::string_view name) const {
  if (unit_.kind != ir::UnitKind::Function) return TSNode{};
  const Fields& f = fields();
  for (TSNode parameter : children(field(unit_.node, f.parameters))) {
    const Kind kind = kindOf(parameter);
    if ((kind == Kind::default_parameter || kind == Kind::typed_default_parameter) &&
        text(field(parameter, f.name), source_) == name) {
      return field(parameter, f.value);
    }
  }
  return TSNode{};
}

bool UnitLowerer::quantizedWithoutCpuOffload(TSNode call) const {
  auto isTrue = [](TSNode value) {
    return !isNull(value) && kindOf(unparenthesize(value)) == Kind::true_;
  };
  for (TSNode argument : children(field(call, fields().arguments))) {
    if (kindOf(argument) == Kind::keyword_argument &&
        catalog::isQuantizedLoadOption(text(field(argument, fields().name), source_)) &&
        isTrue(field(argument, fields().value))) {
      return true; // the loader's own load_in_8bit=True (no way to allow cpu offload there)
    }
  }
  TSNode config = unparenthesize(keywordArgument(call, "quantization_config", source_));
  if (isNull(config)) return false;
  std::vector<TSNode> configs{config};
  if (kindOf(config) == Kind::identifier) configs = plainBindings(text(config, source_));
  if (configs.empty()) return false;
  return std::all_of(configs.begin(), configs.end(), [&](TSNode value) {
    value = unparenthesize(value);
    if (kindOf(value) != Kind::call || !catalog::isBitsAndBytesConfig(module_.resolver.resolve(
                                           field(value, fields().function), source_))) {
      return false;
    }
    TSNode allowed = keywordArgument(value, catalog::kQuantizedCpuOffloadOption, source_);
    if (!isNull(allowed) && kindOf(unparenthesize(allowed)) != Kind::false_) return false;
    bool quantized = false;
    for (TSNode argument : children(field(value, fields().arguments))) {
      quantized |= kindOf(argument) == Kind::keyword_argument &&
                   catalog::isQuantizedLoadOption(text(field(argument, fields().name), source_)) &&
                   isTrue(field(argument, fields().value));
    }
    return quantized;
  });
}

// What one occurrence of a name does, by the nearest construct around it that binds names.
enum class Occurrence : uint8_t { Read, PlainBinding, OtherBinding };

// `ancestors`: the nodes above `identifier` in the walked unit, nearest last; above them is the
// unit's module or block, where an occurrence is a read. Sets `value` for a plain binding.
Occurrence classifyOccurrence(TSNode identifier, const std::vector<TSNode>& ancestors,
                              TSNode& value) {
  const Fields& f = fields();
  auto inField = [](TSNode node, TSNode part) {
    return !isNull(part) && ts_node_start_byte(node) >= ts_node_start_byte(part) &&
           ts_node_end_byte(node) <= ts_node_end_byte(part);
  };
  for (size_t up = 0; up < 64; ++up) {
    if (up == ancestors.size()) return Occurrence::Read;
    TSNode parent = ancestors[ancestors.size() - 1 - up];
    switch (kindOf(parent)) {
    case Kind::assignment: {
      TSNode left = field(parent, f.left);
      if (!inField(identifier, left)) return Occurrence::Read; // read on the right
      if (!ts_node_eq(left, identifier)) return Occurrence::OtherBinding; // unpacking, subscript
      TSNode right = field(parent, f.right);
      while (!isNull(right) && kindOf(right) == Kind::assignment) right = field(right, f.right);
      // An annotation alone binds nothing here.
      if (isNull(right)) return Occurrence::OtherBinding;
      value = unparenthesize(right);
      return Occurrence::PlainBinding;
    }
    case Kind::augmented_assignment:
    case Kind::for_statement:
    case Kind::for_in_clause:
      return inField(identifier, field(parent, f.left)) ? Occurrence::OtherBinding
                                                        : Occurrence::Read;
    case Kind::named_expression:
      return inField(identifier, field(parent, f.name)) ? Occurrence::OtherBinding
                                                        : Occurrence::Read;
    case Kind::as_pattern:
      return inField(identifier, field(parent, f.alias)) ? Occurrence::OtherBinding
                                                         : Occurrence::Read;
    case Kind::keyword_argument:
      if (inField(identifier, field(parent, f.name))) return Occurrence::Read; // `device_map=`
      break;
    case Kind::function_definition:
    case Kind::class_definition:
      return inField(identifier, field(parent, f.name)) ? Occurrence::OtherBinding
                                                        : Occurrence::Read;
    case Kind::parameters:
    case Kind::lambda_parameters:
    case Kind::global_statement:
    case Kind::nonlocal_statement:
    case Kind::import_statement:
    case Kind::import_from_statement:
    case Kind::case_pattern:
    case Kind::except_clause: return Occurrence::OtherBinding;
    case Kind::expression_statement:
    case Kind::block:
    case Kind::module: return Occurrence::Read;
    default: break;
    }
  }
  return Occurrence::OtherBinding; // nested too deep to tell
}

// The branch of a folded `if FLAG:` (flagTest) that does not run: its consequence when the
// flag is false, its `else` when true. `ancestors` end with the node's parent.
bool UnitLowerer::deadBranch(TSNode node, const std::vector<TSNode>& ancestors) const {
  if (ancestors.empty() || kindOf(ancestors.back()) != Kind::if_statement) return false;
  const bool consequence = ts_node_eq(node, field(ancestors.back(), fields().consequence));
  if (!consequence && kindOf(node) != Kind::else_clause) return false;
  for (TSNode clause : children(ancestors.back())) {
    if (kindOf(clause) == Kind::elif_clause) return false; // not folded
  }
  const std::optional<bool> taken = flagTest(field(ancestors.back(), fields().condition));
  return taken && *taken != consequence;
}

const std::vector<TSNode>& UnitLowerer::plainBindings(std::string_view name) const {
  static const std::vector<TSNode> kNone;
  if (!bindings_) {
    // One walk of the unit answers for every name: a file of many loading calls that read a
    // map from a local asks once per call.
    auto& index = bindings_.emplace();
    auto visit = [&](TSNode node, const std::vector<TSNode>& ancestors) {
      if (deadBranch(node, ancestors)) return Walk::Skip;
      if (kindOf(node) != Kind::identifier) return Walk::Descend;
      NameBindings& entry = index[text(node, source_)];
      if (!entry.plain) return Walk::Descend;
      TSNode value{};
      switch (classifyOccurrence(node, ancestors, value)) {
      case Occurrence::Read: break;
      case Occurrence::PlainBinding: entry.values.push_back(value); break;
      case Occurrence::OtherBinding:
        entry.plain = false;
        entry.values.clear();
        break;
      }
      return Walk::Descend;
    };
    if (unit_.kind == ir::UnitKind::Function) {
      walkPreorderWithAncestors(unit_.node, visit);
    } else if (unit_.kind == ir::UnitKind::Module || unit_.kind == ir::UnitKind::ScriptMain) {
      for (TSNode statement : unit_.statements) walkPreorderWithAncestors(statement, visit);
    } else {
      return kNone; // class bodies and lambdas: not looked into (an empty index)
    }
  }
  auto it = bindings_->find(name);
  return it == bindings_->end() || !it->second.plain ? kNone : it->second.values;
}

bool UnitLowerer::boundInUnit(std::string_view name) const {
  plainBindings(name); // builds the index
  auto it = bindings_->find(name);
  return it != bindings_->end() && (!it->second.plain || !it->second.values.empty());
}

bool UnitLowerer::mayBeModel(TSNode object) const {
  const std::string name(text(object, source_));
  if (module_.optimizerNames.count(name) || catalog::namedAsNonModule(name)) return false;
  // Built in this unit by an optimizer, scheduler or data-loader constructor, every time.
  bool built = false;
  for (const auto& [target, call] : unit_.assignedCalls) {
    if (target != name) continue;
    if (!catalog::buildsNonModule(
            module_.resolver.resolve(field(call, fields().function), source_))) {
      return true;
    }
    built = true;
  }
  return !built;
}

bool UnitLowerer::isOptimizer(std::string_view receiver) const {
  return module_.optimizerNames.count(std::string(receiver)) || catalog::namedAsOptimizer(receiver);
}

bool UnitLowerer::lowerTrainingCall(TSNode call, TSNode function, const std::string& callee) {
  const Fields& f = fields();
  Event event;
  event.range = rangeOf(call);
  event.callee = callee;
  event.spelled = std::string(text(function, source_));
  event.mayRaise = true;
  if (callee == "torch.autograd.backward") {
    event.kind = EventKind::Backward;
    event.var = valueVariable(firstPositionalArgument(call), source_);
    emit(event);
    return true;
  }
  if (kindOf(function) != Kind::attribute) return false;
  const std::string_view method = text(field(function, f.attribute), source_);
  TSNode receiver = unparenthesize(field(function, f.object));
  const std::string_view receiverText = text(receiver, source_);
  const bool noArguments = isNull(firstPositionalArgument(call));
  // A resolved name is a module's function (torch.distributed.autograd.backward), not a
  // tensor's or an accelerator's method.
  const bool selfMethod = receiverText == "self" || receiverText == "cls";
  if ((method == "train" || method == "fit") && lowerTrainerCall(call, method, receiver)) {
    return true;
  }
  if ((method == "backward" && (callee.empty() || selfMethod)) || method == "manual_backward") {
    // accelerator.backward(loss), fabric.backward(loss), self.manual_backward(loss)
    const bool takesValue = method == "manual_backward" || receiverText.ends_with("accelerator") ||
                            receiverText.ends_with("fabric");
    event.kind = EventKind::Backward;
    event.var = takesValue ? valueVariable(firstPositionalArgument(call), source_)
                           : valueVariable(receiver, source_);
    // A value with no name, a module's output (`model(**batch).loss.backward()`): the backward
    // reaches what it is computed from, the module called among them, as through a name bound
    // to it. Dependencies, not the value: the module is not the tensor differentiated.
    if (event.var.empty() && !takesValue) {
      const std::vector<std::string> deps = valueDependencies(receiver, source_);
      if (!deps.empty()) event.writeSources().deps.assign(deps.begin(), deps.end());
    }
  } else if (method == "step") {
    if (receiverText.find("scaler") != std::string_view::npos) {
      event.var = std::string(text(firstPositionalArgument(call), source_)); // scaler.step(opt)
    } else if (isOptimizer(receiverText)) {
      event.var = std::string(receiverText);
    } else {
      return false; // env.step(action), scheduler.step(): not an optimizer
    }
    event.kind = EventKind::Step;
  } else if (method == "zero_grad") {
    event.kind = EventKind::ZeroGrad;
    event.var = std::string(receiverText);
  } else if (method == "zero_" && kindOf(receiver) == Kind::attribute &&
             text(field(receiver, f.attribute), source_) == "grad") {
    event.kind = EventKind::ZeroGrad; // p.grad.zero_()
    event.var = std::string(text(field(receiver, f.object), source_));
  } else if ((method == "eval" && noArguments) || method == "train") {
    const ir::GradValue mode = modeArgument(call, source_);
    if (method == "train" && !noArguments && mode == ir::GradValue::Unknown) return false;
    event.kind = method == "eval" || mode == ir::GradValue::Disabled ? EventKind::Eval
                                                                     : EventKind::Train;
    event.moduleMode = true;
    event.var = std::string(receiverText);
  } else {
    return false;
  }
  emit(event);
  return true;
}

void UnitLowerer::emitObjectEvent(EventKind kind, std::string var, TSNode at, std::string detail,
                                  bool mayOffload, ir::PlacementScope placement) {
  if (var.empty()) return;
  Event event;
  event.kind = kind;
  event.var = std::move(var);
  event.callee = std::move(detail);
  event.mayOffload = mayOffload;
  event.placement = placement;
  event.range = rangeOf(at);
  emit(event);
}

std::vector<std::string> UnitLowerer::parameterOwners(TSNode expression) const {
  std::vector<std::string> owners;
  if (isNull(expression)) return owners;
  const Fields& f = fields();
  walkPreorder(expression, [&](TSNode node) {
    if (kindOf(node) == Kind::call) {
      TSNode function = unparenthesize(field(node, f.function));
      if (kindOf(function) == Kind::attribute) {
        const std::string_view method = text(field(function, f.attribute), source_);
        if (method == "parameters" || method == "named_parameters") {
          owners.emplace_back(text(field(function, f.object), source_));
        }
      }
    } else if (kindOf(node) == Kind::identifier) {
      const auto known = parameterSources_.find(std::string(text(node, source_)));
      if (known != parameterSources_.end()) {
        owners.insert(owners.end(), known->second.begin(), known->second.end());
      }
    }
    return Walk::Descend;
  });
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

void UnitLowerer::lowerComponents(const std::string& target, TSNode value,
                                  const std::string& callee) {
  const Fields& f = fields();
  Event event;
  event.kind = EventKind::Compose;
  event.var = target;
  event.range = rangeOf(value);
  if (kindOf(value) == Kind::dictionary) {
    for (TSNode entry : children(value)) {
      if (kindOf(entry) != Kind::pair) continue;
      std::string component = componentObject(field(entry, f.value), source_);
      if (!component.empty()) event.writeSources().components.emplace_back(component);
    }
  } else {
    TSNode function = unparenthesize(field(value, f.function));
    const std::string_view method =
        kindOf(function) == Kind::attribute ? text(field(function, f.attribute), source_) : "";
    const catalog::TrainerClass trainer = module_.trainerClass(callee);
    const std::string_view receiver =
        kindOf(function) == Kind::attribute ? text(field(function, f.object), source_) : "";
    const bool loader =
        catalog::isComponentLoader(receiver, method) || catalog::isComponentRegistration(method);
    if (!loader && !catalog::isComponentClass(callee) &&
        trainer.style == catalog::TrainerStyle::None) {
      return;
    }
    // A pipeline class takes its components by position too; a loader's first argument is
    // where to load from, except `from_pipe(pipe)`; a trainer's first is the model.
    const bool positional = !loader || catalog::takesPositionalComponents(method);
    bool first = true;
    for (TSNode argument : children(field(value, f.arguments))) {
      const Kind kind = kindOf(argument);
      if (kind == Kind::comment) continue;
      std::string component;
      if (kind == Kind::keyword_argument) {
        const std::string_view keyword = text(field(argument, f.name), source_);
        if (trainer.style == catalog::TrainerStyle::None ? !catalog::isLoaderOption(keyword)
                                                       : keyword == "model") {
          component = componentObject(field(argument, f.value), source_);
        }
      } else if (kind == Kind::dictionary_splat) {
        for (TSNode inner : children(argument)) component = componentObject(inner, source_);
      } else if (positional && (trainer.style == catalog::TrainerStyle::None || first)) {
        component = componentObject(argument, source_);
      }
      if (kind != Kind::keyword_argument) first = false;
      if (!component.empty()) event.writeSources().components.emplace_back(component);
    }
    if (trainer.style != catalog::TrainerStyle::None) {
      trainers_[target] = {trainer, callee.substr(callee.rfind('.') + 1)};
      event.callee = callee;
    }
  }
  if (!event.sources().components.empty()) emit(event);
}

UnitLowerer::DeviceMapCheck UnitLowerer::deviceMapCheck(TSNode expression) const {
  DeviceMapCheck check;
  if (isNull(expression)) return check;
  const bool readsMap = text(expression, source_).find("hf_device_map") != std::string::npos;
  if (!readsMap && deviceMapFlags_.empty() && deviceMapEntries_.empty()) return check;
  const Fields& f = fields();
  std::vector<std::string> mapObjects;
  bool namesOffloadDevice = false;
  // Each "cpu"/"disk" string and each flag says, through the `not`s and negated comparisons
  // above it, which outcome of the test means offloaded.
  bool offloadedWhenTrue = false;
  bool onDeviceWhenTrue = false;
  auto polarity = [&](const std::vector<TSNode>& ancestors, bool start) {
    bool offloaded = start;
    for (TSNode ancestor : ancestors) {
      if (kindOf(ancestor) == Kind::not_operator) offloaded = !offloaded;
      if (kindOf(ancestor) != Kind::comparison_operator) continue;
      bool number = false;
      std::string operators;
      const uint32_t count = ts_node_child_count(ancestor);
      for (uint32_t i = 0; i < count; ++i) {
        const TSNode child = ts_node_child(ancestor, i);
        if (ts_node_is_named(child)) {
          number = number || kindOf(child) == Kind::integer;
        } else {
          operators += std::string(text(child, source_)) + " ";
        }
      }
      // `"cpu" not in ...`, `d != "disk"`, `len(offloaded) == 0`: true means on the device.
      const bool negated = operators.find("not") != std::string::npos ||
                           operators.starts_with("!=") ||
                           (number && (operators.starts_with("==") || operators.starts_with("<")));
      const bool countTest = number && operators.starts_with("!=");
      if (negated && !countTest) offloaded = !offloaded;
    }
    (offloaded ? offloadedWhenTrue : onDeviceWhenTrue) = true;
  };
  walkPreorderWithAncestors(expression, [&](TSNode node, const std::vector<TSNode>& ancestors) {
    const Kind kind = kindOf(node);
    if (kind == Kind::attribute && text(field(node, f.attribute), source_) == "hf_device_map") {
      mapObjects.emplace_back(text(unparenthesize(field(node, f.object)), source_));
      return Walk::Skip;
    }
    if (kind == Kind::identifier) {
      const std::string name(text(node, source_));
      if (const auto flag = deviceMapFlags_.find(name); flag != deviceMapFlags_.end()) {
        const DeviceMapCheck& bound = flag->second;
        for (const std::string& object : bound.objects) check.objects.push_back(object);
        if (bound.test == MapTest::Mixed) {
          offloadedWhenTrue = onDeviceWhenTrue = true;
        } else {
          polarity(ancestors, bound.test == MapTest::OffloadedWhenTrue);
        }
      } else if (const auto entry = deviceMapEntries_.find(name);
                 entry != deviceMapEntries_.end()) {
        mapObjects.push_back(entry->second);
        check.onLoopVariable = true;
      }
      return Walk::Skip;
    }
    if (const auto value = stringValue(node, source_);
        value && (*value == "cpu" || *value == "disk")) {
      namesOffloadDevice = true;
      polarity(ancestors, true);
      return Walk::Skip;
    }
    return Walk::Descend;
  });
  if (namesOffloadDevice) {
    for (std::string& object : mapObjects) check.objects.push_back(std::move(object));
  } else {
    check.onLoopVariable = false;
  }
  if (check.objects.empty()) return check;
  std::sort(check.objects.begin(), check.objects.end());
  check.objects.erase(std::unique(check.objects.begin(), check.objects.end()), check.objects.end());
  check.test = offloadedWhenTrue && onDeviceWhenTrue ? MapTest::Mixed
               : offloadedWhenTrue                   ? MapTest::OffloadedWhenTrue
                                                     : MapTest::OnDeviceWhenTrue;
  return check;
}

void UnitLowerer::emitDeviceMapChecked(const DeviceMapCheck& check, TSNode at) {
  for (const std::string& object : check.objects) {
    emitObjectEvent(EventKind::ResetPlacement, object, at, "hf_device_map check", false,
                    ir::PlacementScope::Checked);
  }
}

bool UnitLowerer::endsInLoopJump(TSNode block) const {
  std::vector<TSNode> statements = children(block);
  std::erase_if(statements, [](TSNode node) { return kindOf(node) == Kind::comment; });
  if (statements.empty()) return false;
  const Kind last = kindOf(statements.back());
  return last == Kind::continue_statement || last == Kind::break_statement;
}

bool UnitLowerer::isExitCall(TSNode expression) const {
  const TSNode call = unparenthesize(expression);
  if (isNull(call) || kindOf(call) != Kind::call) return false;
  const TSNode function = unparenthesize(field(call, fields().function));
  std::string callee = resolveCallee(function);
  // A builtin resolves to nothing (a module's own `exit` resolves to its definition).
  if (callee.empty() && kindOf(function) == Kind::identifier) callee = text(function, source_);
  return callee == "sys.exit" || callee == "os._exit" || callee == "exit" || callee == "quit" ||
         callee == "builtins.exit" || callee == "builtins.quit";
}

void UnitLowerer::recordDeviceMapFlag(const std::string& target, TSNode value) {
  deviceMapFlags_.erase(target);
  DeviceMapCheck check = deviceMapCheck(value);
  if (check.test == MapTest::None || check.onLoopVariable) return;
  deviceMapFlags_.emplace(target, std::move(check));
}

bool UnitLowerer::lowerTrainerCall(TSNode call, std::string_view method, TSNode receiver) {
  const Fields& f = fields();
  // `Trainer(model=m, ...).train()`: the trainer is never named.
  Trainer unnamed;
  const Trainer* trainer = nullptr;
  std::string trained;
  if (kindOf(receiver) == Kind::call) {
    const std::string callee = module_.resolver.resolve(field(receiver, f.function), source_);
    unnamed = {module_.trainerClass(callee), callee.substr(callee.rfind('.') + 1)};
    if (unnamed.kind.style == catalog::TrainerStyle::None) return false;
    trainer = &unnamed;
    TSNode model = keywordArgument(receiver, "model", source_);
    trained = componentObject(isNull(model) ? firstPositionalArgument(receiver) : model, source_);
  } else {
    const auto known = trainers_.find(std::string(text(receiver, source_)));
    if (known == trainers_.end()) return false;
    trainer = &known->second;
    trained = std::string(text(receiver, source_)); // it holds the model (a Compose event)
  }
  const std::string described =
      fmt::format("`{}.{}()` ({} `{}`)",
                  kindOf(receiver) == Kind::call ? std::string_view(trainer->name)
                                                 : text(receiver, source_),
                  method, trainer->kind.library, trainer->name);
  if (trainer->kind.style == catalog::TrainerStyle::TrainMethod && method == "train") {
    emitObjectEvent(EventKind::Train, trained, call, described);
    return !trained.empty();
  }
  if (trainer->kind.style == catalog::TrainerStyle::FitMethod && method == "fit") {
    TSNode model = keywordArgument(call, "model", source_);
    emitObjectEvent(EventKind::Train,
                    componentObject(isNull(model) ? firstPositionalArgument(call) : model, source_),
                    call, described);
    return false; // still a call (it may raise)
  }
  return false;
}

bool UnitLowerer::lowerPlacementCall(TSNode call, TSNode function, const std::string& callee) {
  const Fields& f = fields();
  const TSNode first = firstPositionalArgument(call);
  const std::string firstText = isNull(first) ? std::string() : std::string(text(first, source_));
  const std::string spelled = callee.substr(callee.rfind('.') + 1) + "()";
  // Module functions: accelerate's cpu_offload(X), dispatch_model(X, device_map=...), ...
  switch (catalog::classifyOffloadFunction(callee)) {
  case catalog::OffloadFunction::Offload:
    emitObjectEvent(EventKind::Offload, firstText, call, spelled);
    return true;
  case catalog::OffloadFunction::DispatchModel:
  case catalog::OffloadFunction::LoadAndDispatch: {
    const catalog::DeviceMapPlacement placement = devicePlacement(call);
    if (placement == catalog::DeviceMapPlacement::OnDevice) break;
    emitObjectEvent(EventKind::Offload, firstText, call, spelled,
                    placement == catalog::DeviceMapPlacement::MayOffload,
                    ir::PlacementScope::DeviceMap);
    return true;
  }
  case catalog::OffloadFunction::RemoveHooks: {
    // Without recurse=True only the top module's hook goes; cpu_offload hooks submodules too.
    TSNode recurse = keywordArgument(call, "recurse", source_);
    std::vector<TSNode> positional;
    for (TSNode argument : children(field(call, f.arguments))) {
      if (kindOf(argument) != Kind::keyword_argument && kindOf(argument) != Kind::comment) {
        positional.push_back(argument);
      }
    }
    if (isNull(recurse) && positional.size() > 1) recurse = positional[1];
    if (!isNull(recurse) && kindOf(unparenthesize(recurse)) == Kind::true_) {
      emitObjectEvent(EventKind::ResetPlacement, firstText, call, spelled);
    }
    return true;
  }
  case catalog::OffloadFunction::RemoveAllHooks:
    emitObjectEvent(EventKind::ResetPlacement, firstText, call, spelled);
    return true;
  case catalog::OffloadFunction::None: break;
  }
  // An optimizer over X's parameters trains X.
  if ((callee.starts_with("torch.optim.") || callee.find(".optim.") != std::string::npos) &&
      callee.find("lr_scheduler") == std::string::npos) {
    for (const std::string& owner : parameterOwners(field(call, f.arguments))) {
      emitObjectEvent(EventKind::Train, owner, call, "optimizer over its parameters");
    }
    return false; // still a call (it may raise, and GL301 reads optimizer names)
  }
  if (kindOf(function) != Kind::attribute) return false;
  const std::string_view method = text(field(function, f.attribute), source_);
  const std::string receiver(text(unparenthesize(field(function, f.object)), source_));
  if (catalog::isOffloadMethod(method)) {
    emitObjectEvent(EventKind::Offload, receiver, call, std::string(method) + "()");
    return true;
  }
  if (const catalog::ResetScope scope = catalog::classifyResetMethod(method);
      scope != catalog::ResetScope::None) {
    emitObjectEvent(EventKind::ResetPlacement, receiver, call, std::string(method) + "()", false,
                    scope == catalog::ResetScope::DeviceMapLoad ? ir::PlacementScope::DeviceMap
                                                              : ir::PlacementScope::Hooks);
    return true;
  }
  if (catalog::isComponentRegistration(method)) {
    lowerComponents(receiver, call, callee); // pipe.register_modules(unet=unet)
    return false;
  }
  if (method == "requires_grad_" && modeArgument(call, source_) != ir::GradValue::Disabled) {
    emitObjectEvent(EventKind::Train, receiver, call, "requires_grad_()");
    return true;
  }
  if (method == "to" || method == "cuda") {
    emitObjectEvent(EventKind::MoveTo, receiver, call, std::string(method) + "()");
    return false; // keep the call: `.to()` results are values too
  }
  if ((method == "prepare" || method == "prepare_model") && receiver.ends_with("accelerator")) {
    // accelerator.prepare(model, optimizer, dataloader, scheduler) readies each object by its
    // type and only the models for training; prepare_model(m, evaluation_mode=True) for
    // inference only.
    TSNode evaluation = keywordArgument(call, "evaluation_mode", source_);
    if (method == "prepare_model" && !isNull(evaluation) &&
        kindOf(unparenthesize(evaluation)) != Kind::false_) {
      return false;
    }
    // The models are readied for training when the same call readies what trains them: an
    // optimizer, or a training data loader (`train_dataloader`), or prepare_model() is told
    // so (evaluation_mode=False). `prepare_model(m)` or `prepare(model, eval_loader)` alone
    // also readies a model for distributed inference (a frozen embedding model): then only
    // its later training counts.
    bool forTraining = method == "prepare_model" && !isNull(evaluation);
    for (TSNode argument : children(field(call, f.arguments))) {
      const Kind kind = kindOf(argument);
      if (kind != Kind::identifier && kind != Kind::attribute) continue;
      const std::string_view argumentText = text(argument, source_);
      const std::string_view last = argumentText.substr(argumentText.rfind('.') + 1);
      if (isOptimizer(argumentText) || isOptimizer(last) || last.find("train") != last.npos) {
        forTraining = true;
      }
    }
    if (!forTraining) return false;
    for (TSNode argument : children(field(call, f.arguments))) {
      const Kind kind = kindOf(argument);
      if ((kind == Kind::identifier || kind == Kind::attribute) && mayBeModel(argument)) {
        emitObjectEvent(EventKind::Train, std::string(text(argument, source_)), argument,
                        "accelerator.prepare()");
      }
    }
    return false;
  }
  return false;
}

} // namespace gradlint::python::detail
