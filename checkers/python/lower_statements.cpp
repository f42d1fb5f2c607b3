// Pass B, statements: a unit's statements to a CFG of Grad IR events (control flow, with, try).
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

// ---------------------------------------------------------------------------------------------
// Pass B: lowering one unit's statements to a CFG of Grad IR events.

UnitLowerer::UnitLowerer(ModuleLowering& module, const UnitSource& unit, ir::FunctionIR& fn)
    : module_(module), unit_(unit), fn_(fn), source_(module.bytes) {}

ir::SourceRange UnitLowerer::rangeOf(TSNode node) const {
  return module_.source.range(ts_node_start_byte(node), ts_node_end_byte(node));
}

NodeId UnitLowerer::newNode(Event event) {
  fn_.nodes.push_back(ir::Node{std::move(event), {}, kNoNode});
  return static_cast<NodeId>(fn_.nodes.size() - 1);
}

void UnitLowerer::link(NodeId from, NodeId to) {
  if (from != kNoNode && to != kNoNode) fn_.nodes[from].succs.push_back(to);
}

NodeId UnitLowerer::emit(Event event) {
  if (expectedRaises_ > 0 &&
      (event.kind == EventKind::Train || event.kind == EventKind::Backward)) {
    event.kind = EventKind::Nop;
    event.var.clear();
  }
  event.loopDepth =
      static_cast<uint16_t>(std::min<size_t>(loops_.size() + comprehensionDepth_, UINT16_MAX));
  if (!regions_.empty()) {
    event.region = regions_.back().guard;
    event.regionDisablesGrad = regions_.back().disablesGrad;
    event.regionEnter = regions_.back().enter;
  }
  const bool mayRaise = event.mayRaise;
  const bool step = event.kind == EventKind::Step;
  const NodeId id = newNode(std::move(event));
  if (step) lastStep_ = id;
  link(current_, id);
  if (mayRaise) fn_.nodes[id].exceptionSucc = exceptionTarget_;
  current_ = id;
  return id;
}

NodeId UnitLowerer::joinAll(const std::vector<NodeId>& ends) {
  NodeId only = kNoNode;
  size_t live = 0;
  for (NodeId end : ends) {
    if (end != kNoNode) {
      only = end;
      ++live;
    }
  }
  if (live <= 1) return only;
  Event join;
  join.kind = EventKind::Nop;
  const NodeId id = newNode(join);
  for (NodeId end : ends) link(end, id);
  return id;
}

void UnitLowerer::lower() {
  const Fields& f = fields();
  Event entry;
  entry.kind = EventKind::Entry;
  entry.range = fn_.nameRange;
  fn_.entry = newNode(entry);
  Event normalExit;
  normalExit.kind = EventKind::NormalExit;
  fn_.normalExit = newNode(normalExit);
  Event exceptionalExit;
  exceptionalExit.kind = EventKind::ExceptionalExit;
  fn_.exceptionalExit = newNode(exceptionalExit);
  current_ = fn_.entry;
  exceptionTarget_ = fn_.exceptionalExit;

  // Parameters (methods drop self/cls so call arguments line up) and decorators.
  if (unit_.kind == ir::UnitKind::Function || unit_.kind == ir::UnitKind::Lambda) {
    TSNode parameters = field(unit_.node, f.parameters);
    if (!isNull(parameters)) {
      // Parameters after `*` or `*args` take keywords only.
      auto keywordsOnlyFromHere = [&] {
        if (fn_.positionalParams < 0) {
          fn_.positionalParams = static_cast<int32_t>(fn_.params.size());
        }
      };
      for (TSNode parameter : children(parameters)) {
        int8_t defaultValue = -1;
        switch (kindOf(parameter)) {
        case Kind::identifier: fn_.params.emplace_back(text(parameter, source_)); break;
        case Kind::default_parameter:
        case Kind::typed_default_parameter: {
          fn_.params.emplace_back(text(field(parameter, f.name), source_));
          const Kind value = kindOf(unparenthesize(field(parameter, f.value)));
          defaultValue = value == Kind::true_ ? 1 : value == Kind::false_ ? 0 : -1;
          break;
        }
        case Kind::typed_parameter: {
          std::vector<TSNode> parts = children(parameter);
          const Kind first = parts.empty() ? Kind::other : kindOf(parts.front());
          const bool splat =
              first == Kind::list_splat_pattern || first == Kind::dictionary_splat_pattern;
          if (splat) keywordsOnlyFromHere();
          fn_.params.emplace_back(parts.empty() || splat ? std::string_view("*")
                                                         : text(parts.front(), source_));
          break;
        }
        case Kind::list_splat_pattern:
        case Kind::dictionary_splat_pattern:
          keywordsOnlyFromHere();
          fn_.params.emplace_back("*");
          break;
        case Kind::keyword_separator: keywordsOnlyFromHere(); continue;
        default: continue;
        }
        fn_.paramDefaults.push_back(defaultValue);
      }
    }
  }
  for (TSNode decorator : unit_.decorators) {
    std::vector<TSNode> parts = children(decorator);
    if (parts.empty()) continue;
    TSNode expression = parts.front();
    const TSNode call = kindOf(expression) == Kind::call ? expression : TSNode{};
    if (!isNull(call)) expression = field(expression, f.function);
    std::string name = module_.resolver.resolve(expression, source_);
    // @torch.no_grad() and friends make the whole body a grad-mode region.
    const GradApi api = catalog::classifyPythonName(name);
    if (catalog::isGradContext(api) && unit_.kind == ir::UnitKind::Function) {
      const ir::GradValue mode =
          isNull(call) ? ir::GradValue::Unknown : modeArgument(call, source_);
      const ir::GuardKind guard = guardKindOf(api);
      regions_.push_back({guard, ir::guardDisablesGrad(guard, mode), kNoNode});
      // The decorator runs the body in its context, which restores on every exit: an enter
      // at entry, an exit at each return and on the way out of an exception.
      Event enter;
      enter.kind = EventKind::EnterGuard;
      enter.guard = guardKindOf(api);
      enter.value = mode;
      enter.callee = name;
      enter.var = fmt::format("<decorator@{}>", ts_node_start_byte(decorator));
      enter.range = fn_.nameRange;
      emit(enter);
      Cleanup cleanup;
      cleanup.guard = enter.guard;
      cleanup.key = enter.var;
      cleanup.range = fn_.nameRange;
      cleanups_.push_back(cleanup);
    } else if (unit_.kind == ir::UnitKind::Function && mayWrapInRegion(name, api)) {
      // A decorator of the project or a package: the analysis asks its summary which region
      // it runs the body in (none: these events do nothing).
      Event enter;
      enter.kind = EventKind::EnterGuard;
      enter.decoratorUse = isNull(call) ? ir::DecoratorUse::Bare : ir::DecoratorUse::Called;
      enter.callee = name;
      enter.var = fmt::format("<decorator@{}>", ts_node_start_byte(decorator));
      enter.range = fn_.nameRange;
      emit(enter);
      Cleanup cleanup;
      cleanup.key = enter.var;
      cleanup.callee = name;
      cleanup.decoratorUse = enter.decoratorUse;
      cleanup.range = fn_.nameRange;
      cleanups_.push_back(cleanup);
    }
    fn_.decorators.push_back(name.empty() ? std::string(text(expression, source_)) : name);
  }
  if (unit_.kind == ir::UnitKind::Function && unit_.classUnit < 0) {
    fn_.decoratorRegion = decoratorRegionOf(unit_.node, source_, module_.resolver);
  }
  NodeId decoratorRaiseLanding = kNoNode;
  if (!cleanups_.empty()) {
    decoratorRaiseLanding = newNode(Event{});
    exceptionTarget_ = decoratorRaiseLanding;
  }
  if (unit_.classUnit >= 0 && !fn_.params.empty() && !fn_.hasDecorator("staticmethod")) {
    fn_.params.erase(fn_.params.begin());
    fn_.paramDefaults.erase(fn_.paramDefaults.begin());
    if (fn_.positionalParams > 0) --fn_.positionalParams;
  }

  TSNode last{};
  switch (unit_.kind) {
  case ir::UnitKind::Module:
  case ir::UnitKind::ScriptMain:
    lowerStatements(unit_.statements, 1);
    if (!unit_.statements.empty()) last = unit_.statements.back();
    break;
  case ir::UnitKind::Lambda: {
    TSNode body = field(unit_.node, f.body);
    lowerExpression(body, Role::Returned);
    Event ret;
    ret.kind = EventKind::Return;
    ret.range = rangeOf(body);
    link(emit(ret), fn_.normalExit);
    current_ = kNoNode;
    break;
  }
  case ir::UnitKind::Function:
  case ir::UnitKind::ClassBody: {
    TSNode body = field(unit_.node, f.body);
    if (!isNull(body)) {
      lowerBlock(body, 1);
      std::vector<TSNode> statements = children(body);
      if (!statements.empty()) last = statements.back();
    }
    break;
  }
  }
  if (current_ != kNoNode) {
    lowerJumpCleanups(0);
    Event fallThrough;
    fallThrough.kind = EventKind::FallThrough;
    fallThrough.range = isNull(last) ? fn_.nameRange : rangeOf(last);
    link(emit(fallThrough), fn_.normalExit);
  }
  if (decoratorRaiseLanding != kNoNode) {
    exceptionTarget_ = fn_.exceptionalExit;
    current_ = decoratorRaiseLanding;
    lowerJumpCleanups(0);
    Event reraise;
    reraise.kind = EventKind::Raise;
    reraise.mayRaise = true;
    reraise.range = fn_.nameRange;
    emit(reraise);
    current_ = kNoNode;
  }
  forgetUncorrelatedConditions();
}

// Decorators whose summary cannot give a grad-mode region: unresolved names, the catalog's
// APIs, and the standard library's and torch's (never read: no summaries).
bool UnitLowerer::mayWrapInRegion(std::string_view decorator, GradApi api) {
  if (decorator.empty() || api != GradApi::None) return false;
  constexpr std::string_view kBuiltins[] = {"property", "staticmethod", "classmethod"};
  for (std::string_view builtin : kBuiltins) {
    if (decorator == builtin) return false;
  }
  constexpr std::string_view kUnread[] = {"functools.", "typing.",     "abc.",
                                          "dataclasses.", "contextlib.", "torch."};
  for (std::string_view module : kUnread) {
    if (decorator.starts_with(module)) return false;
  }
  return true;
}

void UnitLowerer::lowerStatements(const std::vector<TSNode>& statements, int depth) {
  // The column of a definition whose header does not parse, while its body follows.
  std::optional<uint32_t> brokenDefinitionColumn;
  for (TSNode statement : statements) {
    if (tooDeep_) return;
    const uint32_t column = ts_node_start_point(statement).column;
    if (brokenDefinitionColumn && column > *brokenDefinitionColumn) continue;
    brokenDefinitionColumn.reset();
    if (definitionDoesNotParse(statement, source_)) {
      brokenDefinitionColumn = column;
      continue;
    }
    if (unit_.kind == ir::UnitKind::Module && module_.mainGuards.count(statement.id)) continue;
    lowerStatement(statement, depth);
  }
}

void UnitLowerer::lowerBlock(TSNode block, int depth) {
  if (isNull(block)) return;
  if (depth >= kMaxBlockDepth) {
    if (!tooDeep_) tooDeepAt_ = block;
    tooDeep_ = true;
    return;
  }
  if (kindOf(block) != Kind::block) {
    lowerStatement(block, depth);
    return;
  }
  lowerStatements(children(block), depth);
}

void UnitLowerer::lowerStatement(TSNode statement, int depth) {
  if (tooDeep_) return;
  if (fn_.nodes.size() > kMaxNodesPerUnit) {
    tooDeep_ = tooLarge_ = true;
    tooDeepAt_ = statement;
    return;
  }
  const Fields& f = fields();
  switch (kindOf(statement)) {
  case Kind::expression_statement:
    for (TSNode child : children(statement)) {
      switch (kindOf(child)) {
      case Kind::assignment: lowerAssignment(child); break;
      case Kind::augmented_assignment: {
        std::vector<std::string> deps;
        lowerExpression(field(child, f.right), Role::Other, {}, &deps);
        TSNode left = field(child, f.left);
        if (kindOf(left) == Kind::identifier || kindOf(left) == Kind::attribute) {
          deps.emplace_back(text(left, source_));
          emitAssign(child, std::string(text(left, source_)), std::move(deps), false);
        }
        break;
      }
      default:
        lowerExpression(child, Role::Discarded);
        if (isExitCall(child)) {
          // `sys.exit(1)` raises SystemExit: the code after it does not run.
          Event exit;
          exit.kind = EventKind::Raise;
          exit.mayRaise = true;
          exit.range = rangeOf(child);
          emit(exit);
          current_ = kNoNode;
        }
        break;
      }
    }
    break;
  case Kind::return_statement: {
    std::vector<TSNode> values = children(statement);
    Event ret;
    ret.kind = EventKind::Return;
    ret.range = rangeOf(statement);
    if (!values.empty()) {
      TSNode value = unparenthesize(values.front());
      if (kindOf(value) == Kind::identifier) {
        ret.var = std::string(text(value, source_));
      } else {
        ret.var = sameModuleObject(value, source_); // `return get_peft_model(model, config)`
      }
      lowerExpression(values.front(), Role::Returned);
      if (kindOf(value) == Kind::call) {
        ret.callee = module_.resolver.resolve(field(value, f.function), source_);
        // `return AutoModel.from_pretrained(name, device_map="auto")` returns a loaded model
        // with the hooks the map attaches, as `model = ...; return model` does.
        TSNode function = unparenthesize(field(value, f.function));
        if (ret.var.empty() && kindOf(function) == Kind::attribute &&
            catalog::isPretrainedLoader(text(field(function, f.attribute), source_))) {
          const catalog::DeviceMapPlacement placement = devicePlacement(value);
          if (placement != catalog::DeviceMapPlacement::OnDevice) {
            ret.var = std::string(kReturnedValue);
            emitObjectEvent(EventKind::Offload, ret.var, value, "from_pretrained(device_map=...)",
                            placement == catalog::DeviceMapPlacement::MayOffload,
                            ir::PlacementScope::DeviceMap);
          }
        }
      }
    }
    lowerJumpCleanups(0);
    link(emit(ret), fn_.normalExit);
    current_ = kNoNode;
    break;
  }
  case Kind::raise_statement: {
    for (TSNode child : children(statement)) lowerExpression(child, Role::Other);
    Event raise;
    raise.kind = EventKind::Raise;
    raise.mayRaise = true;
    raise.range = rangeOf(statement);
    emit(raise);
    current_ = kNoNode;
    break;
  }
  case Kind::assert_statement: {
    for (TSNode child : children(statement)) lowerExpression(child, Role::Other);
    // `assert "cpu" not in model.hf_device_map.values()`: past it, the model is on the device.
    const std::vector<TSNode> tested = children(statement);
    if (!tested.empty()) {
      const DeviceMapCheck mapCheck = deviceMapCheck(tested.front());
      if (mapCheck.test != MapTest::None && mapCheck.test != MapTest::OffloadedWhenTrue) {
        emitDeviceMapChecked(mapCheck, statement);
      }
    }
    Event check;
    check.kind = EventKind::Nop;
    check.var = "assert";
    check.mayRaise = true;
    check.range = rangeOf(statement);
    emit(check);
    break;
  }
  case Kind::break_statement:
  case Kind::continue_statement: {
    if (loops_.empty()) break;
    const Loop loop = loops_.back();
    lowerJumpCleanups(loop.cleanupDepth);
    link(current_, kindOf(statement) == Kind::break_statement ? loop.breakTarget
                                                             : loop.continueTarget);
    current_ = kNoNode;
    break;
  }
  case Kind::if_statement: lowerIf(statement, depth); break;
  case Kind::while_statement: lowerWhile(statement, depth); break;
  case Kind::for_statement: lowerFor(statement, depth); break;
  case Kind::with_statement: lowerWith(statement, depth); break;
  case Kind::try_statement: lowerTry(statement, depth); break;
  case Kind::match_statement: lowerMatch(statement, depth); break;
  case Kind::import_statement:
  case Kind::import_from_statement: lowerImport(statement); break;
  // Definitions bind a name; their bodies are units of their own. A decorator runs here.
  case Kind::decorated_definition: {
    lowerDecoratorUses(statement);
    const TSNode definition = field(statement, fields().definition);
    if (!isNull(definition) && kindOf(definition) == Kind::class_definition) {
      lowerClassBodyRun(definition);
    }
    break;
  }
  case Kind::class_definition: lowerClassBodyRun(statement); break;
  case Kind::function_definition:
  case Kind::future_import_statement:
  case Kind::type_alias_statement:
  case Kind::comment: break;
  default:
    // pass/global/del/... and ERROR nodes: still look for calls inside.
    lowerExpression(statement, Role::Other);
    break;
  }
}

// `x.clone()` and `torch.clone(x)` make a new tensor outside whatever mode made `x`.
bool isFreshCopy(TSNode value, std::string_view source, const std::string& callee) {
  if (kindOf(value) != Kind::call) return false;
  if (callee == "torch.clone") return true;
  TSNode function = unparenthesize(field(value, fields().function));
  return kindOf(function) == Kind::attribute &&
         text(field(function, fields().attribute), source) == "clone";
}

void UnitLowerer::emitAssign(TSNode at, std::string var, std::vector<std::string> deps,
                             bool freshValue) {
  Event assign;
  assign.kind = EventKind::Assign;
  assign.var = std::move(var);
  if (!deps.empty() || freshValue) {
    ValueSources& sources = assign.writeSources();
    sources.deps.assign(deps.begin(), deps.end());
    sources.freshValue = freshValue;
  }
  assign.range = rangeOf(at);
  const std::string bound = assign.var;
  lastAssign_[bound] = emit(assign);
}

// Methods whose result is a view of the receiver's data: of an inference tensor, an inference
// tensor too (`.detach()` included; only a copy such as `.clone()` is a normal tensor).
bool isViewMethod(std::string_view method) {
  static constexpr std::string_view kViews[] = {
      "detach", "detach_", "view", "view_as", "reshape", "t", "transpose", "permute", "squeeze",
      "unsqueeze", "expand", "expand_as", "narrow", "flatten", "unflatten", "as_strided"};
  return std::find(std::begin(kViews), std::end(kViews), method) != std::end(kViews);
}

// `y = x.detach()`, `y = x.detach().view(-1)`: "x"; "" for anything else.
std::string viewSource(TSNode value, std::string_view source) {
  TSNode receiver = unparenthesize(value);
  bool viewed = false;
  while (kindOf(receiver) == Kind::call) {
    TSNode function = unparenthesize(field(receiver, fields().function));
    if (kindOf(function) != Kind::attribute ||
        !isViewMethod(text(field(function, fields().attribute), source))) {
      return {};
    }
    receiver = unparenthesize(field(function, fields().object));
    viewed = true;
  }
  return !viewed || conditionKey(receiver, source).empty() ? std::string()
                                                           : std::string(text(receiver, source));
}

// `torch.optim.X([a, b], ...)` over tensors each bound anew (new leaves): the optimizer starts
// from tensors that hold no gradient yet. Anew: earlier in the same iteration of the innermost
// loop, or, outside loops, after the last `step()` lowered (a test that trains a model, then
// builds another model and its optimizer).
bool UnitLowerer::optimizerOverNewLeaves(TSNode value, const std::string& callee) const {
  auto buildsOptimizer = [](const std::string& name) {
    return name.starts_with("torch.optim.") && name.find("lr_scheduler") == std::string::npos;
  };
  const NodeId since = loops_.empty() ? lastStep_ : loops_.back().breakTarget;
  if (since == kNoNode) return false;
  if (!buildsOptimizer(callee)) {
    // A wrapper of an optimizer built right here (`OptimWrapper(SGD(model.parameters()))`,
    // Lookahead, LARS) is as new as the optimizer it wraps.
    const TSNode inner = unparenthesize(firstPositionalArgument(value));
    if (isNull(inner) || kindOf(inner) != Kind::call) return false;
    const std::string innerCallee =
        module_.resolver.resolve(field(inner, fields().function), source_);
    return buildsOptimizer(innerCallee) && optimizerOverNewLeaves(inner, innerCallee);
  }
  const TSNode first = firstPositionalArgument(value);
  if (isNull(first)) return false;
  // Bound anew (its node comes after `since`); for a model, by a value not made from its old
  // value (`model = model.to(d)` is the same model, while `x = x.detach().requires_grad_()` is
  // a new leaf).
  auto boundAnew = [&](TSNode name, bool model = false) {
    if (kindOf(name) != Kind::identifier) return false;
    const std::string var(text(name, source_));
    const auto bound = lastAssign_.find(var);
    if (bound == lastAssign_.end() || bound->second == kNoNode || bound->second <= since) {
      return false;
    }
    const std::vector<InternedString>& deps = fn_.nodes[bound->second].event.sources().deps;
    return !model || std::find(deps.begin(), deps.end(), var) == deps.end();
  };
  // `torch.optim.SGD(model.parameters())` where the loop built `model` anew: a new model's
  // parameters hold no gradient yet (a loop that trains one fresh model per configuration).
  if (kindOf(first) == Kind::call) {
    TSNode function = unparenthesize(field(first, fields().function));
    if (kindOf(function) != Kind::attribute) return false;
    const std::string_view method = text(field(function, fields().attribute), source_);
    return (method == "parameters" || method == "named_parameters") &&
           boundAnew(unparenthesize(field(function, fields().object)), true);
  }
  // A list of parameter groups bound anew from values bound anew (`param_groups = []` filled
  // from a new model's parameters). What is appended to it later is not looked at.
  if (kindOf(first) == Kind::identifier) {
    if (!boundAnew(first)) return false;
    const std::vector<InternedString>& deps =
        fn_.nodes[lastAssign_.at(std::string(text(first, source_)))].event.sources().deps;
    return std::all_of(deps.begin(), deps.end(), [&](const std::string& dep) {
      const auto bound = lastAssign_.find(dep);
      return bound != lastAssign_.end() && bound->second != kNoNode && bound->second > since;
    });
  }
  if (kindOf(first) != Kind::list && kindOf(first) != Kind::tuple) return false;
  const std::vector<TSNode> elements = children(first);
  if (elements.empty()) return false;
  return std::all_of(elements.begin(), elements.end(),
                     [&](TSNode element) { return boundAnew(element); });
}

void UnitLowerer::lowerAssignment(TSNode assignment) {
  const Fields& f = fields();
  const std::vector<std::pair<TSNode, TSNode>> pairs = assignmentPairs(assignment);
  if (!pairs.empty()) {
    for (const auto& [target, value] : pairs) {
      // `p.grad = None` resets a gradient.
      if (kindOf(target) == Kind::attribute &&
          text(field(target, f.attribute), source_) == "grad" && text(value, source_) == "None") {
        Event reset;
        reset.kind = EventKind::ZeroGrad;
        reset.var = std::string(text(field(target, f.object), source_));
        reset.spelled = std::string(text(assignment, source_));
        reset.range = rangeOf(assignment);
        emit(reset);
        continue;
      }
      // `p.requires_grad = True` over X's parameters trains X.
      if (kindOf(target) == Kind::attribute &&
          text(field(target, f.attribute), source_) == "requires_grad" &&
          kindOf(value) == Kind::true_) {
        const auto owner =
            loopParameters_.find(std::string(text(field(target, f.object), source_)));
        if (owner != loopParameters_.end()) {
          emitObjectEvent(EventKind::Train, owner->second, assignment, "requires_grad = True");
          continue;
        }
      }
      std::vector<std::string> deps;
      const std::string targetText(text(target, source_));
      lowerExpression(value, Role::Assigned, targetText, &deps);
      const std::string callee = kindOf(value) == Kind::call
                                     ? module_.resolver.resolve(field(value, f.function), source_)
                                     : std::string();
      const bool newOptimizer =
          kindOf(value) == Kind::call && optimizerOverNewLeaves(value, callee);
      emitAssign(assignment, targetText, std::move(deps),
                 isFreshCopy(value, source_, callee) || newOptimizer);
      Event& assigned = fn_.nodes[current_].event;
      assigned.callee = callee;
      if (kindOf(value) == Kind::identifier || kindOf(value) == Kind::attribute) {
        assigned.writeSources().aliasOf = text(value, source_);
      } else if (std::string same = sameModuleObject(value, source_); !same.empty()) {
        // `unet = pipe.unet.to("cuda")` is `pipe.unet`, hooks and all; `peft_model =
        // get_peft_model(model, config)` wraps `model`'s modules, hooks and all.
        assigned.writeSources().aliasOf = same;
      }
      if (std::string view = viewSource(value, source_); !view.empty()) {
        assigned.writeSources().viewOf = view;
      }
      if (text(value, source_).find("parameters(") != std::string_view::npos) {
        parameterSources_[targetText] = parameterOwners(value);
      }
      // `pipe = Pipeline.from_pretrained(..., device_map=...)` loads with offload hooks.
      if (kindOf(value) == Kind::call) {
        TSNode function = unparenthesize(field(value, f.function));
        if (kindOf(function) == Kind::attribute &&
            catalog::isPretrainedLoader(text(field(function, f.attribute), source_))) {
          const catalog::DeviceMapPlacement placement = devicePlacement(value);
          lowerComponents(targetText, value, callee);
          if (placement != catalog::DeviceMapPlacement::OnDevice) {
            emitObjectEvent(EventKind::Offload, targetText, value,
                            "from_pretrained(device_map=...)",
                            placement == catalog::DeviceMapPlacement::MayOffload,
                            ir::PlacementScope::DeviceMap);
          }
        } else {
          lowerComponents(targetText, value, callee);
        }
      } else if (kindOf(value) == Kind::dictionary) {
        lowerComponents(targetText, value, callee);
      }
      recordDeviceMapFlag(targetText, value);
    }
    return;
  }
  // Other targets (subscripts, starred, mismatched tuples): the value still runs, and the names
  // unpacked (`a, b = f(x)`) are bound anew.
  TSNode right = field(assignment, f.right);
  while (!isNull(right) && kindOf(right) == Kind::assignment) right = field(right, f.right);
  std::vector<std::string> deps;
  lowerExpression(right, Role::Other, {}, &deps);
  const TSNode left = field(assignment, f.left);
  const Kind leftKind = kindOf(left);
  if (leftKind == Kind::pattern_list || leftKind == Kind::tuple_pattern ||
      leftKind == Kind::list_pattern) {
    for (TSNode part : children(left)) {
      if (kindOf(part) == Kind::identifier || kindOf(part) == Kind::attribute) {
        emitAssign(part, std::string(text(part, source_)), deps, false);
      }
    }
  }
}

// The name or attribute path a condition tests (`flag`, `self.cfg.flag`), or "".
std::string_view conditionKey(TSNode node, std::string_view source) {
  TSNode at = node;
  while (kindOf(at) == Kind::attribute) at = unparenthesize(field(at, fields().object));
  return kindOf(at) == Kind::identifier ? text(node, source) : std::string_view();
}

void UnitLowerer::emitAssumptions(TSNode condition, bool taken) {
  // Iterative over `not`/`and`/`or`: a long chain of `and`s nests deep.
  std::vector<std::pair<TSNode, bool>> pending{{condition, taken}};
  while (!pending.empty()) {
    auto [node, holds] = pending.back();
    pending.pop_back();
    node = unparenthesize(node);
    switch (kindOf(node)) {
    case Kind::not_operator: {
      std::vector<TSNode> operand = children(node);
      if (!operand.empty()) pending.emplace_back(operand.back(), !holds);
      break;
    }
    case Kind::boolean_operator: {
      // `a and b` taken says both hold; `a or b` not taken says neither does.
      const TSNode op = ts_node_child_by_field_name(node, "operator", 8);
      const bool conjunction = !isNull(op) && std::string_view(ts_node_type(op)) == "and";
      if (conjunction == holds) {
        pending.emplace_back(field(node, fields().right), holds);
        pending.emplace_back(field(node, fields().left), holds);
      }
      break;
    }
    case Kind::identifier:
    case Kind::attribute: {
      const std::string_view key = conditionKey(node, source_);
      if (key.empty() || key == "True" || key == "False") break;
      Event assumption;
      assumption.kind = EventKind::Assume;
      assumption.var = std::string(key);
      assumption.value = holds ? ir::GradValue::Enabled : ir::GradValue::Disabled;
      assumption.range = rangeOf(node);
      emit(assumption);
      const uint32_t test = ts_node_start_byte(condition);
      auto [entry, first] = conditionTests_.try_emplace(assumption.var, test, false);
      if (!first && entry->second.first != test) entry->second.second = true;
      break;
    }
    default: break;
    }
  }
}

void UnitLowerer::forgetUncorrelatedConditions() {
  for (ir::Node& node : fn_.nodes) {
    if (node.event.kind != EventKind::Assume) continue;
    const auto found = conditionTests_.find(node.event.var);
    if (found != conditionTests_.end() && found->second.second) continue;
    node.event.kind = EventKind::Nop;
    node.event.var.clear();
  }
}

// `if FLAG:` / `if not FLAG:` at a module's top level, FLAG a module flag (moduleFlag): the
// branch it takes, as the module runs; nullopt for any other test. Functions are not folded:
// their lowering is kept across edits of other parts of the module (LoweringMemo).
std::optional<bool> UnitLowerer::flagTest(TSNode condition) const {
  if (unit_.kind != ir::UnitKind::Module) return std::nullopt;
  condition = unparenthesize(condition);
  bool negated = false;
  if (kindOf(condition) == Kind::not_operator) {
    negated = true;
    condition = unparenthesize(ts_node_named_child(condition, 0));
  }
  if (kindOf(condition) != Kind::identifier) return std::nullopt;
  const std::string_view name = text(condition, source_);
  const std::optional<ModuleFlag>& flag = module_.flag(name);
  if (!flag || flag->end > ts_node_start_byte(condition)) return std::nullopt; // bound after
  return flag->value != negated;
}

void UnitLowerer::lowerIf(TSNode statement, int depth) {
  const Fields& f = fields();
  TSNode condition = field(statement, f.condition);
  lowerExpression(condition, Role::Other);
  // A notebook's or script's switch (`FP8 = False` ... `if FP8:`): only the branch it takes
  // runs. Folded only without `elif`, which would need the next test's outcome too.
  if (const std::optional<bool> taken = flagTest(condition)) {
    TSNode otherwise{};
    bool hasElif = false;
    for (TSNode clause : children(statement)) {
      if (kindOf(clause) == Kind::elif_clause) hasElif = true;
      if (kindOf(clause) == Kind::else_clause) otherwise = field(clause, f.body);
    }
    if (!hasElif) {
      if (*taken) {
        lowerBlock(field(statement, f.consequence), depth + 1);
      } else if (!isNull(otherwise)) {
        lowerBlock(otherwise, depth + 1);
      }
      return;
    }
  }
  // A test of where a model went (`if "cpu" in model.hf_device_map.values(): raise ...`): the
  // model is on the device on the branch where the test says so. The other branch ends the run
  // (raise, return, sys.exit) or comes back with the model maybe offloaded (a warning only).
  const DeviceMapCheck mapCheck = deviceMapCheck(condition);
  if (mapCheck.test == MapTest::Mixed) emitDeviceMapChecked(mapCheck, condition);
  auto onDeviceSide = [&](bool taken) {
    if ((taken && mapCheck.test == MapTest::OnDeviceWhenTrue) ||
        (!taken && mapCheck.test == MapTest::OffloadedWhenTrue)) {
      emitDeviceMapChecked(mapCheck, statement);
    }
  };
  NodeId branchPoint = current_;
  std::vector<NodeId> ends;
  emitAssumptions(condition, true);
  onDeviceSide(true);
  lowerBlock(field(statement, f.consequence), depth + 1);
  // Inside a loop over the map (`for name, device in m.hf_device_map.items():`), an entry on
  // cpu/disk that ends the run makes the whole loop a check (see lowerFor).
  if (mapCheck.test == MapTest::OffloadedWhenTrue && current_ == kNoNode &&
      !endsInLoopJump(field(statement, f.consequence))) {
    for (MapLoop& loop : mapLoops_) {
      if (std::binary_search(mapCheck.objects.begin(), mapCheck.objects.end(), loop.object)) {
        loop.refuses = true;
      }
    }
  }
  ends.push_back(current_);
  bool hasElse = false;
  bool sawElif = false;
  for (TSNode clause : children(statement)) {
    const Kind kind = kindOf(clause);
    if (kind == Kind::elif_clause) {
      current_ = branchPoint;
      emitAssumptions(condition, false);
      if (!sawElif) onDeviceSide(false);
      sawElif = true;
      condition = field(clause, f.condition);
      lowerExpression(condition, Role::Other);
      branchPoint = current_;
      emitAssumptions(condition, true);
      lowerBlock(field(clause, f.consequence), depth + 1);
      ends.push_back(current_);
    } else if (kind == Kind::else_clause) {
      current_ = branchPoint;
      emitAssumptions(condition, false);
      if (!sawElif) onDeviceSide(false);
      lowerBlock(field(clause, f.body), depth + 1);
      ends.push_back(current_);
      hasElse = true;
    }
  }
  // `if p.grad is not None: p.grad.zero_()` resets every gradient there is: when the test
  // fails there is nothing to reset, so the skip path does not leave gradients behind.
  const bool guardsGradient =
      text(field(statement, f.condition), source_).ends_with(".grad is not None") &&
      ends.size() == 1;
  if (!hasElse && !guardsGradient) {
    current_ = branchPoint;
    emitAssumptions(condition, false);
    if (!sawElif) onDeviceSide(false);
    ends.push_back(current_);
  }
  current_ = joinAll(ends);
}

void UnitLowerer::lowerWhile(TSNode statement, int depth) {
  const Fields& f = fields();
  Event nop;
  const NodeId head = newNode(nop);
  link(current_, head);
  current_ = head;
  TSNode condition = unparenthesize(field(statement, f.condition));
  lowerExpression(condition, Role::Other);
  const NodeId test = current_;
  const std::string_view conditionText = text(condition, source_);
  const bool forever = conditionText == "True" || conditionText == "1";
  const NodeId after = newNode(nop);
  loops_.push_back({head, after, cleanups_.size()});
  lowerBlock(field(statement, f.body), depth + 1);
  link(current_, head);
  loops_.pop_back();
  current_ = forever ? kNoNode : test;
  TSNode alternative = field(statement, f.alternative);
  if (!isNull(alternative)) lowerBlock(field(alternative, f.body), depth + 1);
  link(current_, after);
  current_ = after;
}

void UnitLowerer::lowerFor(TSNode statement, int depth) {
  const Fields& f = fields();
  std::vector<std::string> deps;
  lowerExpression(field(statement, f.right), Role::Other, {}, &deps);
  Event nop;
  const NodeId head = newNode(nop);
  const NodeId after = newNode(nop);
  const NodeId bodyStart = newNode(nop);
  // Where the loop is entered from is linked once the body is known (see below).
  const NodeId entry = current_;
  link(head, bodyStart);
  current_ = bodyStart;
  loops_.push_back({head, after, cleanups_.size()});
  // Each iteration binds the loop target(s).
  TSNode left = field(statement, f.left);
  std::vector<TSNode> targets;
  if (kindOf(left) == Kind::identifier) {
    targets.push_back(left);
  } else {
    for (TSNode part : children(left)) {
      if (kindOf(part) == Kind::identifier) targets.push_back(part);
    }
  }
  for (TSNode target : targets) emitAssign(target, std::string(text(target, source_)), deps, false);
  // `for name, device in model.hf_device_map.items():` - each target is an entry of the map.
  std::string mapObject;
  walkPreorder(field(statement, f.right), [&](TSNode node) {
    if (kindOf(node) == Kind::attribute &&
        text(field(node, f.attribute), source_) == "hf_device_map") {
      mapObject = std::string(text(unparenthesize(field(node, f.object)), source_));
      return Walk::Stop;
    }
    return Walk::Descend;
  });
  if (!mapObject.empty()) {
    for (TSNode target : targets) deviceMapEntries_[std::string(text(target, source_))] = mapObject;
    mapLoops_.push_back({mapObject, false});
  }
  // `for p in X.parameters():` / `for name, p in X.named_parameters():` - p belongs to X.
  if (!targets.empty()) {
    const std::vector<std::string> owners = parameterOwners(field(statement, f.right));
    if (owners.size() == 1) {
      loopParameters_[std::string(text(targets.back(), source_))] = owners.front();
    }
  }
  lowerBlock(field(statement, f.body), depth + 1);
  // Some loops run at least once, so the path that skips the body is not a real one:
  // - a loop over a model's parameters (a reset done there is not skippable);
  // - a loop whose body calls backward(): the micro-batches of one optimizer step. A step with
  //   no data is no step; taking the skip path would pair a step with no backward() at all.
  bool atLeastOnce =
      text(field(statement, f.right), source_).find("parameters(") != std::string_view::npos;
  for (std::size_t id = bodyStart + 1; !atLeastOnce && id < fn_.nodes.size(); ++id) {
    atLeastOnce = fn_.nodes[id].event.kind == EventKind::Backward;
  }
  link(entry, atLeastOnce ? bodyStart : head);
  link(current_, head);
  loops_.pop_back();
  current_ = head;
  if (!mapObject.empty()) {
    // Every entry was looked at, and one on cpu/disk would have ended the run.
    if (mapLoops_.back().refuses) {
      emitObjectEvent(EventKind::ResetPlacement, mapObject, field(statement, f.right),
                      "hf_device_map check", false, ir::PlacementScope::Checked);
    }
    mapLoops_.pop_back();
    for (TSNode target : targets) deviceMapEntries_.erase(std::string(text(target, source_)));
  }
  TSNode alternative = field(statement, f.alternative);
  if (!isNull(alternative)) lowerBlock(field(alternative, f.body), depth + 1);
  link(current_, after);
  current_ = after;
}

// An import runs the imported module's top level (the first time): a call to the module, which
// its summary describes when it is part of the program (program/project_context.h).
void UnitLowerer::lowerImport(TSNode statement) {
  // `import a.b.c` and `from a.b.c import x` run `a/__init__.py`, then `a/b/__init__.py`, then
  // `a/b/c.py` (each once per process): one import event per package above, in that order.
  std::vector<std::string> modules;
  std::unordered_set<std::string> listed; // a statement may name many: no search per name
  for (const std::string& module : module_.resolver.importedModules(statement, source_)) {
    for (size_t dot = module.find('.'); dot != std::string::npos; dot = module.find('.', dot + 1)) {
      std::string parent = module.substr(0, dot);
      if (listed.insert(parent).second) modules.push_back(std::move(parent));
    }
    if (listed.insert(module).second) modules.push_back(module);
  }
  for (std::string& module : modules) {
    // torch is modelled by the API catalogs, never summarised: `from torch import no_grad` is
    // no call to the API it names.
    const std::string_view top = std::string_view(module).substr(0, module.find('.'));
    if (top == "torch" || top == "functorch" || top == "torchgen") continue;
    // This module, or a package above it (`from . import sub` in `pkg/mod.py` imports `pkg`):
    // Python imports the packages above a module before its top level runs, so the import finds
    // them in `sys.modules` (finished, or under way in a cycle) and runs nothing.
    const std::string& self = module_.resolver.moduleName();
    if (self.starts_with(module) && (self.size() == module.size() || self[module.size()] == '.')) {
      continue;
    }
    Event event;
    event.kind = EventKind::Call;
    event.importsModule = true;
    event.resultDiscarded = true;
    event.range = rangeOf(statement);
    event.spelled = module;
    event.callee = std::move(module);
    emit(std::move(event));
  }
}

void UnitLowerer::lowerClassBodyRun(TSNode definition) {
  // Only a class reachable by name has a body summary: one at module level or in a class body
  // that is (the qualified names of ModuleLowering::qualify).
  std::string owner;
  if (unit_.kind == ir::UnitKind::Module) {
    owner = module_.context.moduleName;
  } else if (unit_.kind == ir::UnitKind::ClassBody && !unit_.qualifiedName.empty()) {
    owner = unit_.qualifiedName;
  } else {
    return;
  }
  const std::string_view name = text(field(definition, fields().name), source_);
  if (name.empty()) return;
  Event event;
  event.kind = EventKind::Call;
  event.resultDiscarded = true;
  event.range = rangeOf(definition);
  event.spelled = std::string(name);
  event.callee = (owner.empty() ? std::string(name) : owner + "." + std::string(name)) +
                 std::string(ir::kClassBodySuffix);
  emit(std::move(event));
}

// `@C(args)` over a definition: `C(args)` runs where the definition is, then its `__call__`
// takes the function. (Grad-mode contexts as decorators are regions of the function: see
// lower().) A class that changes the mode in `__init__` must put it back in `__call__`.
void UnitLowerer::lowerDecoratorUses(TSNode statement) {
  const Fields& f = fields();
  for (TSNode decorator : children(statement)) {
    if (kindOf(decorator) != Kind::decorator) continue;
    std::vector<TSNode> parts = children(decorator);
    if (parts.empty() || kindOf(parts.front()) != Kind::call) continue;
    const TSNode call = parts.front();
    const std::string callee = resolveCallee(unparenthesize(field(call, f.function)));
    if (callee.empty() || catalog::classifyPythonName(callee) != GradApi::None) continue;
    lowerExpression(call, Role::Other);
    Event apply;
    apply.kind = EventKind::Call;
    apply.callee = callee + ".__call__";
    apply.spelled = std::string(text(call, source_));
    apply.mayRaise = true;
    apply.range = rangeOf(call);
    emit(apply);
  }
}

void UnitLowerer::lowerWith(TSNode statement, int depth) {
  const Fields& f = fields();
  const size_t cleanupsBefore = cleanups_.size();
  const size_t regionsBefore = regions_.size();
  const size_t stacksBefore = exitStacks_.size();
  std::vector<std::string> stackNames; // `with ExitStack() as stack:`
  size_t expectsRaise = 0;             // `with pytest.raises(E):`
  for (TSNode clause : children(statement)) {
    if (kindOf(clause) != Kind::with_clause) continue;
    for (TSNode item : children(clause)) {
      if (kindOf(item) != Kind::with_item) continue;
      TSNode value = unparenthesize(field(item, f.value));
      if (!isNull(value) && kindOf(value) == Kind::as_pattern) {
        std::vector<TSNode> parts = children(value);
        value = parts.empty() ? TSNode{} : unparenthesize(parts.front());
      }
      if (isNull(value)) continue;
      if (kindOf(value) == Kind::call) {
        lowerExpression(value, Role::WithItem);
        TSNode alias = unparenthesize(field(item, f.value));
        alias = kindOf(alias) == Kind::as_pattern ? field(alias, f.alias) : TSNode{};
        // `as stack` parses as an as_pattern_target around the name.
        if (!isNull(alias) && kindOf(alias) != Kind::identifier) {
          std::vector<TSNode> names = children(alias);
          alias = names.size() == 1 ? names.front() : TSNode{};
        }
        const std::string context = module_.resolver.resolve(field(value, f.function), source_);
        if (!isNull(alias) && kindOf(alias) == Kind::identifier && isExitStackClass(context)) {
          stackNames.emplace_back(text(alias, source_));
        }
        const TSNode function = unparenthesize(field(value, f.function));
        if (catalog::expectsRaise(context.empty() ? text(function, source_) : context)) {
          ++expectsRaise;
        }
      } else {
        // `with torch.no_grad:` enters the class itself, which fails at run time.
        lowerExpression(value, Role::Other);
        const GradApi api =
            catalog::classifyPythonName(module_.resolver.resolve(value, source_));
        Event enter;
        enter.kind = EventKind::EnterGuard;
        enter.guard = guardKindOf(api);
        enter.guardNotCalled = catalog::isGradContext(api);
        enter.callee = module_.resolver.resolve(value, source_);
        enter.range = rangeOf(value);
        emit(enter);
      }
      Event& entered = fn_.nodes[current_ == kNoNode ? fn_.entry : current_].event;
      // Enter and exit share a key: the exit restores the mode saved on entry, or (a context
      // object made here, `with C(...):`) the mode saved when the call made it.
      if (entered.kind == EventKind::EnterGuard &&
          (entered.guard != ir::GuardKind::Other || kindOf(value) == Kind::call)) {
        entered.var = ir::contextSlot(ts_node_start_byte(value));
      }
      Cleanup cleanup;
      cleanup.guard = entered.guard;
      cleanup.key = entered.kind == EventKind::EnterGuard ? entered.var.str() : std::string();
      if (entered.kind == EventKind::EnterGuard) cleanup.callee = entered.callee;
      cleanup.range = rangeOf(value);
      cleanups_.push_back(cleanup);
      if (entered.kind == EventKind::EnterGuard && entered.guard != ir::GuardKind::Other &&
          !entered.guardNotCalled) {
        regions_.push_back({entered.guard, ir::guardDisablesGrad(entered.guard, entered.value),
                            current_});
      }
    }
  }
  for (std::string& name : stackNames) {
    exitStacks_.push_back({std::move(name), cleanups_.size(), loops_.size()});
  }
  // A grad-mode `with` restores its mode when an exception leaves the block too; so does an
  // ExitStack, for what the body enters on it.
  const bool restoresOnRaise =
      exitStacks_.size() > stacksBefore ||
      std::any_of(cleanups_.begin() + static_cast<ptrdiff_t>(cleanupsBefore), cleanups_.end(),
                  [](const Cleanup& c) { return !c.key.empty(); });
  const NodeId outerTarget = exceptionTarget_;
  NodeId raiseLanding = kNoNode;
  if (restoresOnRaise) {
    raiseLanding = newNode(Event{});
    exceptionTarget_ = raiseLanding;
  }
  expectedRaises_ += expectsRaise;
  lowerBlock(field(statement, f.body), depth + 1);
  expectedRaises_ -= expectsRaise;
  exitStacks_.resize(stacksBefore);
  exceptionTarget_ = outerTarget;
  if (restoresOnRaise) {
    const NodeId afterBody = current_;
    current_ = raiseLanding;
    for (size_t index = cleanups_.size(); index-- > cleanupsBefore;) {
      if (cleanups_[index].key.empty()) continue;
      Event exit;
      exit.kind = EventKind::ExitGuard;
      exit.guard = cleanups_[index].guard;
      exit.var = cleanups_[index].key;
      exit.callee = cleanups_[index].callee;
      exit.range = cleanups_[index].range;
      emit(exit);
    }
    Event reraise;
    reraise.kind = EventKind::Raise;
    reraise.mayRaise = true;
    reraise.range = rangeOf(statement);
    emit(reraise);
    current_ = afterBody;
  }
  regions_.resize(regionsBefore);
  while (cleanups_.size() > cleanupsBefore) {
    Event exit;
    exit.kind = EventKind::ExitGuard;
    exit.guard = cleanups_.back().guard;
    exit.var = cleanups_.back().key;
    exit.callee = cleanups_.back().callee;
    exit.range = cleanups_.back().range;
    if (current_ != kNoNode) emit(exit);
    cleanups_.pop_back();
  }
}

bool UnitLowerer::isCatchAll(TSNode handler) const {
  if (kindOf(handler) != Kind::except_clause) return false;
  TSNode value = field(handler, fields().value);
  if (isNull(value)) return true;
  // Handlers of Exception or BaseException take every exception a rule reasons about.
  for (std::string_view name : {"BaseException", "Exception"}) {
    const std::string_view spelled = text(value, source_);
    size_t at = spelled.find(name);
    while (at != std::string_view::npos) {
      const size_t end = at + name.size();
      const bool startOk = at == 0 || spelled[at - 1] == '(' || spelled[at - 1] == ' ' ||
                           spelled[at - 1] == ',';
      const bool endOk = end == spelled.size() || spelled[end] == ')' || spelled[end] == ',' ||
                         spelled[end] == ' ';
      if (startOk && endOk) return true;
      at = spelled.find(name, end);
    }
  }
  return false;
}

void UnitLowerer::lowerTry(TSNode statement, int depth) {
  const Fields& f = fields();
  std::vector<TSNode> handlers;
  TSNode elseClause{};
  TSNode finallyBlock{};
  for (TSNode clause : children(statement)) {
    switch (kindOf(clause)) {
    case Kind::except_clause:
    case Kind::except_group_clause: handlers.push_back(clause); break;
    case Kind::else_clause: elseClause = clause; break;
    case Kind::finally_clause:
      for (TSNode part : children(clause)) {
        if (kindOf(part) == Kind::block) finallyBlock = part;
      }
      break;
    default: break;
    }
  }
  const NodeId outerTarget = exceptionTarget_;
  Event nop;
  NodeId finallyLanding = kNoNode;
  if (!isNull(finallyBlock)) {
    finallyLanding = newNode(nop);
    Cleanup cleanup;
    cleanup.isFinally = true;
    cleanup.finallyBlock = finallyBlock;
    cleanup.exceptionTarget = outerTarget;
    cleanup.depth = depth + 1;
    cleanups_.push_back(cleanup);
  }
  const NodeId handlerTarget = finallyLanding != kNoNode ? finallyLanding : outerTarget;
  const NodeId dispatch = handlers.empty() ? handlerTarget : newNode(nop);

  exceptionTarget_ = dispatch;
  lowerBlock(field(statement, f.body), depth + 1);
  exceptionTarget_ = handlerTarget;
  if (!isNull(elseClause)) lowerBlock(field(elseClause, f.body), depth + 1);
  std::vector<NodeId> ends{current_};
  bool caughtAll = false;
  for (TSNode handler : handlers) {
    current_ = dispatch;
    for (TSNode part : children(handler)) {
      if (kindOf(part) == Kind::block) lowerBlock(part, depth + 1);
    }
    ends.push_back(current_);
    caughtAll = caughtAll || isCatchAll(handler);
  }
  if (!handlers.empty() && !caughtAll) link(dispatch, handlerTarget);
  exceptionTarget_ = outerTarget;
  if (isNull(finallyBlock)) {
    current_ = joinAll(ends);
    return;
  }
  cleanups_.pop_back();
  // The finally body runs once per way out: here for normal completion and for exceptions;
  // return/break/continue copies are made where those jumps are lowered.
  current_ = joinAll(ends);
  if (current_ != kNoNode) lowerBlock(finallyBlock, depth + 1);
  const NodeId afterNormal = current_;
  current_ = finallyLanding;
  lowerBlock(finallyBlock, depth + 1);
  if (current_ != kNoNode) {
    Event reraise;
    reraise.kind = EventKind::Raise;
    reraise.mayRaise = true;
    reraise.range = rangeOf(finallyBlock);
    emit(reraise);
  }
  current_ = afterNormal;
}

void UnitLowerer::lowerMatch(TSNode statement, int depth) {
  const Fields& f = fields();
  lowerExpression(field(statement, f.subject), Role::Other);
  const NodeId branchPoint = current_;
  std::vector<NodeId> ends;
  bool irrefutable = false;
  for (TSNode body : children(statement)) {
    if (kindOf(body) != Kind::block) continue;
    for (TSNode clause : children(body)) {
      if (kindOf(clause) != Kind::case_clause) continue;
      current_ = branchPoint;
      TSNode guard = field(clause, f.guard);
      if (!isNull(guard)) lowerExpression(guard, Role::Other);
      std::vector<TSNode> patterns;
      for (TSNode part : children(clause)) {
        if (kindOf(part) == Kind::case_pattern) patterns.push_back(part);
      }
      if (isNull(guard) && patterns.size() == 1) {
        std::vector<TSNode> inner = children(patterns.front());
        // `case _:` and `case name:` match anything.
        irrefutable = irrefutable || inner.empty() ||
                      (inner.size() == 1 && kindOf(inner.front()) == Kind::dotted_name &&
                       text(inner.front(), source_).find('.') == std::string_view::npos);
      }
      lowerBlock(field(clause, f.consequence), depth + 1);
      ends.push_back(current_);
    }
  }
  if (!irrefutable) ends.push_back(branchPoint);
  current_ = joinAll(ends);
}

void UnitLowerer::lowerJumpCleanups(size_t toDepth) {
  for (size_t index = cleanups_.size(); index-- > toDepth;) {
    const Cleanup cleanup = cleanups_[index];
    if (!cleanup.isFinally) {
      Event exit;
      exit.kind = EventKind::ExitGuard;
      exit.guard = cleanup.guard;
      exit.var = cleanup.key;
      exit.callee = cleanup.callee;
      exit.decoratorUse = cleanup.decoratorUse;
      exit.range = cleanup.range;
      if (current_ != kNoNode) emit(exit);
      continue;
    }
    // Lower a copy of the finally body as it runs on this jump: outside its own try.
    std::vector<Cleanup> saved(cleanups_.begin() + static_cast<ptrdiff_t>(index), cleanups_.end());
    cleanups_.resize(index);
    const NodeId savedTarget = exceptionTarget_;
    exceptionTarget_ = cleanup.exceptionTarget;
    lowerBlock(cleanup.finallyBlock, cleanup.depth);
    exceptionTarget_ = savedTarget;
    cleanups_.insert(cleanups_.end(), saved.begin(), saved.end());
  }
}

} // namespace gradlint::python::detail
