#include "checkers/python/lowering.h"

#include "checkers/python/names.h"
#include "checkers/python/syntax.h"
#include "rules/grad_mode_api.h"
#include "rules/offload_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include <unordered_map>
#include <unordered_set>

namespace gradlint::python {
namespace {

using ir::Event;
using ir::EventKind;
using ir::kNoNode;
using ir::NodeId;
using rules::GradApi;

// Guards against pathological `finally` duplication (each jump through a `finally` copies it).
constexpr size_t kMaxNodesPerUnit = 200'000;

// A unit as found in the tree, before lowering.
struct UnitSource {
  ir::UnitKind kind = ir::UnitKind::Module;
  TSNode node{};                 // function_definition / class_definition / lambda
  int parent = -1;
  std::vector<TSNode> statements; // module and script-main units
  std::vector<TSNode> decorators;
  std::vector<std::pair<std::string, TSNode>> assignedCalls; // `target = call(...)`
  std::unordered_set<std::string> savedVars;  // targets assigned from torch.is_grad_enabled()
  std::unordered_set<std::string> savedAttrs; // class units: `self.X = torch.is_grad_enabled()`
  std::unordered_set<std::string> enteredNames; // `with name:` items: context objects kept
  std::vector<std::string> optimizerTargets;    // `target = torch.optim.X(...)` in this unit
  std::vector<std::string> savedSelfAttrs;      // methods: `self.X = torch.is_grad_enabled()`
  bool isGenerator = false;
  bool isAsync = false;
  std::string name;
  std::string qualifiedName;
  int classUnit = -1; // methods: their class body unit
  // The definition's header does not parse (or one around it does not): its code is not
  // analysed, the syntax error (GL000) is all that is reported for it.
  bool broken = false;
};

enum class Role { Other, Discarded, Assigned, Returned, WithItem };

ir::GuardKind guardKindOf(GradApi api) {
  switch (api) {
  case GradApi::NoGrad: return ir::GuardKind::NoGrad;
  case GradApi::EnableGrad: return ir::GuardKind::EnableGrad;
  case GradApi::InferenceMode: return ir::GuardKind::InferenceMode;
  case GradApi::SetGradEnabled: return ir::GuardKind::SetGradEnabled;
  default: return ir::GuardKind::Other;
  }
}

// A def or class whose header does not parse: `def f(x, y=):`, `class C(:`. Error recovery keeps
// the node, with an ERROR or a missing token before its body.
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

// A statement that is a definition whose header does not parse, or an ERROR that swallowed a
// def or class header (`def f[(x):`). The statements after it, indented deeper, are that
// definition's body (error recovery may leave them outside it), not code of the block around it.
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

// `a = f()` and `a, b = f(), g()`: the (target, value) pairs an assignment binds by name.
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

// The text of a plain string literal (no f-string interpolation), or nullopt.
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

// Whether a loading call (`from_pretrained`, `dispatch_model`, ...) offloads, by its
// `device_map=` and `offload_folder=` arguments.
rules::DeviceMapPlacement worsePlacement(rules::DeviceMapPlacement a, rules::DeviceMapPlacement b);

// Where a `device_map=` value sends weights: a literal, or `a if c else b` of such values
// (the worse of the two); anything else cannot be told.
rules::DeviceMapPlacement mapPlacement(TSNode map, std::string_view source, int depth = 0) {
  map = unparenthesize(map);
  if (kindOf(map) == Kind::conditional_expression && depth < 8) {
    const std::vector<TSNode> parts = children(map); // value, condition, other value
    if (parts.size() != 3) return rules::DeviceMapPlacement::MayOffload;
    return worsePlacement(mapPlacement(parts[0], source, depth + 1),
                          mapPlacement(parts[2], source, depth + 1));
  }
  if (auto value = stringValue(map, source)) return rules::classifyDeviceMapString(*value);
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
    return toDisk || (toHost && elsewhere) ? rules::DeviceMapPlacement::Offloads
                                           : rules::DeviceMapPlacement::OnDevice;
  }
  switch (kindOf(map)) {
  case Kind::none:
  case Kind::integer:
  case Kind::true_:
  case Kind::false_: return rules::DeviceMapPlacement::OnDevice; // literals: one device or none
  default: return rules::DeviceMapPlacement::MayOffload; // a variable or call: cannot tell
  }
}

// Of two placements a value may have, the one to report: offloads on some path, then maybe.
rules::DeviceMapPlacement worsePlacement(rules::DeviceMapPlacement a, rules::DeviceMapPlacement b) {
  auto rank = [](rules::DeviceMapPlacement p) {
    switch (p) {
    case rules::DeviceMapPlacement::OnDevice: return 0;
    case rules::DeviceMapPlacement::MayOffload: return 1;
    case rules::DeviceMapPlacement::Offloads: return 2;
    }
    return 1;
  };
  return rank(a) >= rank(b) ? a : b;
}

// `stack.enter_context(torch.set_grad_enabled(False))`: an ExitStack will exit it. Any other
// nested use (a tuple element, an argument) has toggled by construction and nothing exits it.
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

// The expression that selects a grad-mode call's mode: its first positional argument or `mode=`
// (`set_grad_enabled(False)`, `inference_mode(mode=False)`); null when there is none.
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

// The grad mode a context call selects: `set_grad_enabled(False)`, `inference_mode(False)`.
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

class ModuleLowering;

TSNode firstPositionalArgument(TSNode call);
std::string_view conditionKey(TSNode node, std::string_view source);

class UnitLowerer {
public:
  UnitLowerer(ModuleLowering& module, const UnitSource& unit, ir::FunctionIR& fn);
  void lower();
  bool tooDeep() const { return tooDeep_; }
  bool tooLarge() const { return tooLarge_; }
  TSNode tooDeepAt() const { return tooDeepAt_; }

private:
  struct Cleanup {
    bool isFinally = false;
    TSNode finallyBlock{};
    NodeId exceptionTarget = kNoNode; // for a finally: where exceptions inside it go
    ir::GuardKind guard = ir::GuardKind::Other;
    std::string key; // a with-item's save slot, shared by its EnterGuard and ExitGuard
    std::string callee; // a with-item's context (its class's `__exit__` runs at the exit)
    ir::SourceRange range;
    int depth = 0;
  };
  struct Loop {
    NodeId continueTarget;
    NodeId breakTarget;
    size_t cleanupDepth;
  };
  // A lexical grad-mode region: a with-block of a grad context, or the whole function under a
  // grad-mode decorator.
  struct Region {
    ir::GuardKind guard = ir::GuardKind::Other;
    bool disablesGrad = false;
    NodeId enter = kNoNode;
  };

  NodeId newNode(Event event);
  NodeId emit(Event event);
  void link(NodeId from, NodeId to);
  NodeId joinAll(const std::vector<NodeId>& ends);
  ir::SourceRange rangeOf(TSNode node) const;

  void lowerStatements(const std::vector<TSNode>& statements, int depth);
  void lowerBlock(TSNode block, int depth);
  void lowerStatement(TSNode statement, int depth);
  void lowerAssignment(TSNode assignment);
  void lowerIf(TSNode statement, int depth);
  // On the path where `condition` tested `taken`: Assume events for what that says about
  // names and attribute paths (`flag`, `self.training`, `not x`, `a and b`).
  void emitAssumptions(TSNode condition, bool taken);
  // Conditions tested by one `if` only correlate with nothing: their Assume events become Nop.
  void forgetUncorrelatedConditions();
  void lowerWhile(TSNode statement, int depth);
  void lowerFor(TSNode statement, int depth);
  void lowerWith(TSNode statement, int depth);
  void lowerDecoratorUses(TSNode statement);
  void lowerImport(TSNode statement);
  void lowerTry(TSNode statement, int depth);
  void lowerMatch(TSNode statement, int depth);
  void lowerJumpCleanups(size_t toDepth);
  // Lowers the calls in an expression in evaluation order; `deps`, when given, collects the
  // names the expression reads (for Assign events).
  void lowerExpression(TSNode expression, Role role, std::string_view target = {},
                       std::vector<std::string>* deps = nullptr);
  void lowerCall(TSNode call, Role role, std::string_view target);
  // `loss.backward()`, `opt.step()`, `opt.zero_grad()`, `model.eval()`...: true when the call
  // was lowered as a training event.
  bool lowerTrainingCall(TSNode call, TSNode function, const std::string& callee);
  void emitAssign(TSNode at, std::string var, std::vector<std::string> deps, bool freshValue);
  bool isOptimizer(std::string_view receiver) const;
  // Whether a loading call (`from_pretrained`, `dispatch_model`, ...) offloads, by its
  // `device_map=` and `offload_folder=` arguments; a map held in a local is judged by every
  // value the unit binds it to.
  rules::DeviceMapPlacement devicePlacement(TSNode call) const;
  // The values `name` is bound to in this unit when every binding is a plain `name = value`
  // (`device_map = "cpu"`, then `device_map = "cuda"` on a branch); empty when some binding
  // is anything else (a parameter, a loop or `with` target, an unpacking, `global`, `+=`).
  const std::vector<TSNode>& plainBindings(std::string_view name) const;
  // A bitsandbytes-quantized load that does not allow cpu offload: an automatic map that would
  // put layers on cpu or disk makes it fail (transformers checks), so it never offloads.
  bool quantizedWithoutCpuOffload(TSNode call) const;
  // An `accelerator.prepare()` argument that may be a model (not an optimizer, scheduler or
  // data loader by how it was built or what it is called).
  bool mayBeModel(TSNode object) const;
  bool optimizerOverNewLeaves(TSNode value, const std::string& callee) const;
  // `x.clone()` is a new tensor: the value no longer depends on how `x` was made.
  void dropClonedDependency(TSNode call, std::vector<std::string>& deps) const;
  // Offload, placement reset and training of objects (GL201/GL202); true when lowered.
  bool lowerPlacementCall(TSNode call, TSNode function, const std::string& callee);
  void emitObjectEvent(EventKind kind, std::string var, TSNode at, std::string detail,
                       bool mayOffload = false,
                       ir::PlacementScope placement = ir::PlacementScope::Hooks);
  // `target = Pipeline.from_pretrained(..., unet=unet)`, `Trainer(model=m)`, `{"unet": unet}`:
  // target holds the objects passed as components.
  void lowerComponents(const std::string& target, TSNode value, const std::string& callee);
  // `if "cpu" in model.hf_device_map.values(): raise ...`: the code checks where the model went.
  void lowerDeviceMapCheck(TSNode expression);
  // `trainer.train()` of a transformers/TRL trainer, `trainer.fit(model)` of Lightning's.
  bool lowerTrainerCall(TSNode call, std::string_view method, TSNode receiver);
  // `X.parameters()` / `X.named_parameters()` paths in an expression, and variables known to
  // hold such parameters.
  std::vector<std::string> parameterOwners(TSNode expression) const;
  void emitSetGrad(TSNode call, GradApi api, ir::ApiFlavor flavor, const std::string& callee);
  std::string resolveCallee(TSNode function) const;
  // A closure restoring the mode its enclosing function saved (a worker thread adopting its
  // parent's grad mode) is a restore, not a toggle.
  bool savedByEnclosingScope(const std::string& name) const;
  bool isCatchAll(TSNode handler) const;

  ModuleLowering& module_;
  const UnitSource& unit_;
  ir::FunctionIR& fn_;
  std::string_view source_;
  NodeId current_ = kNoNode;
  NodeId exceptionTarget_ = kNoNode;
  std::vector<Cleanup> cleanups_;
  std::vector<Loop> loops_;
  std::vector<Region> regions_;
  size_t comprehensionDepth_ = 0;
  // Per condition key: the first `if` (start byte) that tested it, and whether another did.
  std::unordered_map<std::string, std::pair<uint32_t, bool>> conditionTests_;
  std::unordered_map<std::string, NodeId> lastAssign_; // var -> its latest Assign, in source order
  // Object tracking for the offload rules, flow-insensitive within the unit:
  std::unordered_map<std::string, std::vector<std::string>> parameterSources_; // params = X.parameters()
  std::unordered_map<std::string, std::string> loopParameters_; // for p in X.parameters()
  struct Trainer {
    rules::TrainerClass kind;
    std::string name; // `Trainer`, `SFTTrainer`
  };
  std::unordered_map<std::string, Trainer> trainers_; // trainer = Trainer(model=m, ...)
  bool tooDeep_ = false;
  bool tooLarge_ = false;
  TSNode tooDeepAt_{};
  // plainBindings' answers for every name of the unit, built on its first call.
  struct NameBindings {
    bool plain = true;
    std::vector<TSNode> values;
  };
  mutable std::optional<std::unordered_map<std::string_view, NameBindings>> bindings_;
};

class ModuleLowering {
public:
  ModuleLowering(const SourceText& sourceText, const ModuleContext& moduleContext,
                 PythonFileResult& output)
      : source(sourceText), bytes(sourceText.bytes()), context(moduleContext), result(output),
        resolver(moduleContext.moduleName, moduleContext.isPackageInit) {}

  // Lowers every unit of `roots`. With `memo`, a top-level definition the memo holds (same text,
  // same parsed ranges) is taken from it when `reuse`; returns false, having lowered nothing,
  // when what was reused turns out to depend on module-wide facts that changed.
  bool run(const std::vector<TSNode>& roots, const std::vector<ByteRange>& parsed,
           LoweringMemo* memo, bool reuse);

  const SourceText& source;
  std::string_view bytes;
  const ModuleContext& context;
  PythonFileResult& result;
  NameResolver resolver;
  std::vector<UnitSource> units;
  std::unordered_set<const void*> mainGuards; // `if __name__ == "__main__":` lowered apart
  std::unordered_set<std::string> optimizerNames; // targets of torch.optim constructors

private:
  // A top-level statement, or a part of a top-level class (its header, a statement of its
  // body), and the units found in it, in the order of the walk.
  struct Piece {
    TSNode statement{};
    size_t firstUnit = 0;
    size_t endUnit = 0;
    int classUnit = -1; // a method of a top-level class: that class
    std::string key;    // a function or method, with a memo: what the memo knows it by
    const LoweredDefinition* reused = nullptr; // taken from the memo: no units of its own
    LoweredDefinition fresh; // what the memo will keep of it
  };

  // Walks `from`'s subtree (not below `skipBelow`) with `stack` the units around it.
  void collect(TSNode from, std::vector<int> stack, int depth, TSNode skipBelow = {});
  void addPiece(std::vector<Piece>& pieces, TSNode statement, std::vector<int> stack, int depth,
                std::string key);
  void addClassPieces(std::vector<Piece>& pieces, TSNode statement, TSNode classNode,
                      const std::vector<int>& stack, int depth);
  void enter(TSNode node, int depth, std::vector<int>& stack);
  void classifySavedModes();
  std::string qualify(int parent, std::string_view name) const;
  std::string definitionKey(TSNode statement, const std::vector<ByteRange>& parsed) const;
  bool reusedContextHolds(const LoweringMemo& memo, const std::vector<Piece>& pieces) const;
  LoweringMemo::ClassFacts classFacts(int classUnit) const;
  void lowerUnit(const UnitSource& unit);
  void appendReused(const Piece& piece);
  void keep(Piece& piece, size_t outFirst);

  std::unordered_map<const void*, std::vector<TSNode>> decoratorsOf_;
  Piece* recording_ = nullptr; // the definition whose suppressions the memo will keep
  // Set while building pieces with a memo.
  const std::vector<ByteRange>* parsed_ = nullptr;
  LoweringMemo* memo_ = nullptr;
  bool reuse_ = false;
  bool reusedAny_ = false;
};

// ---------------------------------------------------------------------------------------------
// Pass A: one iterative walk over the tree collects units, imports, suppressions and saves.

std::string ModuleLowering::qualify(int parent, std::string_view name) const {
  const UnitSource& owner = units[static_cast<size_t>(parent)];
  if (owner.kind == ir::UnitKind::Module || owner.kind == ir::UnitKind::ScriptMain) {
    return context.moduleName.empty() ? std::string(name)
                                      : context.moduleName + "." + std::string(name);
  }
  if (owner.kind == ir::UnitKind::ClassBody && !owner.qualifiedName.empty()) {
    return owner.qualifiedName + "." + std::string(name);
  }
  return {}; // nested in a function: not reachable by name from other functions
}

void ModuleLowering::enter(TSNode node, int depth, std::vector<int>& stack) {
  const Fields& f = fields();
  const int top = stack.back();
  switch (kindOf(node)) {
  case Kind::decorated_definition: {
    std::vector<TSNode> decorators;
    for (TSNode child : children(node)) {
      if (kindOf(child) == Kind::decorator) decorators.push_back(child);
    }
    decoratorsOf_[field(node, f.definition).id] = std::move(decorators);
    break;
  }
  case Kind::function_definition:
  case Kind::class_definition:
  case Kind::lambda: {
    UnitSource unit;
    unit.node = node;
    unit.parent = top;
    const Kind kind = kindOf(node);
    unit.kind = kind == Kind::lambda           ? ir::UnitKind::Lambda
                : kind == Kind::class_definition ? ir::UnitKind::ClassBody
                                                 : ir::UnitKind::Function;
    unit.broken = units[static_cast<size_t>(top)].broken ||
                  (kind != Kind::lambda && headerDoesNotParse(node));
    if (kind == Kind::lambda) {
      unit.name = "<lambda>";
    } else {
      unit.name = std::string(text(field(node, f.name), bytes));
      unit.qualifiedName = qualify(top, unit.name);
      const ir::UnitKind parentKind = units[static_cast<size_t>(top)].kind;
      if (parentKind == ir::UnitKind::Module || parentKind == ir::UnitKind::ScriptMain) {
        resolver.addDefinition(unit.name);
      }
    }
    if (kind == Kind::function_definition) {
      TSNode first = ts_node_child(node, 0);
      unit.isAsync = !isNull(first) && std::string_view(ts_node_type(first)) == "async";
      if (units[static_cast<size_t>(top)].kind == ir::UnitKind::ClassBody) unit.classUnit = top;
    }
    if (auto it = decoratorsOf_.find(node.id); it != decoratorsOf_.end()) {
      unit.decorators = std::move(it->second);
      decoratorsOf_.erase(it);
    }
    units.push_back(std::move(unit));
    stack.push_back(static_cast<int>(units.size() - 1));
    break;
  }
  case Kind::if_statement:
    // `if __name__ == "__main__":` at top level runs only as a script: a unit of its own.
    if (depth == 1 && top == 0 && isMainGuard(field(node, f.condition), bytes)) {
      UnitSource unit;
      unit.kind = ir::UnitKind::ScriptMain;
      unit.parent = 0;
      unit.name = "<main>";
      unit.statements = children(field(node, f.consequence));
      unit.node = node;
      mainGuards.insert(node.id);
      units.push_back(std::move(unit));
      stack.push_back(static_cast<int>(units.size() - 1));
    }
    break;
  case Kind::import_statement:
  case Kind::import_from_statement: resolver.addImport(node, bytes); break;
  case Kind::comment: {
    const uint32_t line = source.lineOf(ts_node_start_byte(node));
    const std::string_view comment = text(node, bytes);
    if (result.suppressions.addComment(line, comment) && recording_ != nullptr) {
      const uint32_t firstLine = source.lineOf(ts_node_start_byte(recording_->statement));
      recording_->fresh.suppressionComments.emplace_back(line - firstLine, comment);
    }
    break;
  }
  case Kind::assignment:
    for (const auto& [target, value] : assignmentPairs(node)) {
      if (kindOf(value) == Kind::call) {
        units[static_cast<size_t>(top)].assignedCalls.emplace_back(
            std::string(text(target, bytes)), value);
      }
    }
    break;
  case Kind::yield: units[static_cast<size_t>(top)].isGenerator = true; break;
  case Kind::with_item: {
    TSNode value = unparenthesize(field(node, f.value));
    if (!isNull(value) && kindOf(value) == Kind::as_pattern) {
      std::vector<TSNode> parts = children(value);
      value = parts.empty() ? TSNode{} : unparenthesize(parts.front());
    }
    if (!isNull(value) && kindOf(value) == Kind::identifier) {
      units[static_cast<size_t>(top)].enteredNames.insert(std::string(text(value, bytes)));
    }
    break;
  }
  default: break;
  }
}

void ModuleLowering::collect(TSNode from, std::vector<int> stack, int depth, TSNode skipBelow) {
  const size_t outer = stack.size();
  std::vector<const void*> unitNodes(outer, nullptr); // the node that opened each stack entry
  TSTreeCursor cursor = ts_tree_cursor_new(from);
  auto leave = [&](TSNode node) {
    if (stack.size() > outer && unitNodes.back() == node.id) {
      stack.pop_back();
      unitNodes.pop_back();
    }
  };
  while (true) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    const size_t before = stack.size();
    if (ts_node_is_named(node)) enter(node, depth, stack);
    if (stack.size() > before) unitNodes.push_back(node.id);
    if (!ts_node_eq(node, skipBelow) && ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    leave(node);
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      --depth;
      leave(ts_tree_cursor_current_node(&cursor));
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
}

void ModuleLowering::classifySavedModes() {
  for (UnitSource& unit : units) {
    for (const auto& [target, call] : unit.assignedCalls) {
      const std::string callee = resolver.resolve(field(call, fields().function), bytes);
      if (callee.starts_with("torch.optim.") && !callee.starts_with("torch.optim.lr_scheduler")) {
        optimizerNames.insert(target);
        unit.optimizerTargets.push_back(target);
      }
      if (rules::classifyPythonName(callee) != GradApi::IsGradEnabled) continue;
      unit.savedVars.insert(target);
      if (target.starts_with("self.") && unit.classUnit >= 0) {
        units[static_cast<size_t>(unit.classUnit)].savedAttrs.insert(target.substr(5));
        unit.savedSelfAttrs.push_back(target.substr(5));
      }
    }
  }
}

void ModuleLowering::lowerUnit(const UnitSource& unit) {
  ir::FunctionIR fn;
  fn.kind = unit.kind;
  fn.name = unit.name;
  fn.qualifiedName = unit.qualifiedName;
  fn.isGenerator = unit.isGenerator;
  fn.isAsync = unit.isAsync;
  if (unit.classUnit >= 0) fn.className = units[static_cast<size_t>(unit.classUnit)].name;
  if (unit.kind == ir::UnitKind::ClassBody) fn.className = unit.name;
  if (!isNull(unit.node)) {
    fn.range = source.range(ts_node_start_byte(unit.node), ts_node_end_byte(unit.node));
    TSNode name = field(unit.node, fields().name);
    fn.nameRange = isNull(name) ? fn.range
                                : source.range(ts_node_start_byte(name), ts_node_end_byte(name));
  } else {
    fn.range = source.range(source.contentStart(), static_cast<uint32_t>(bytes.size()));
    fn.nameRange = source.range(source.contentStart(), source.contentStart());
  }
  if (unit.broken) {
    result.module.units.push_back(std::move(fn)); // no entry: nothing to analyse
    return;
  }
  UnitLowerer lowerer(*this, unit, fn);
  lowerer.lower();
  if (lowerer.tooLarge()) {
    // Not a syntax error, so not a finding: the unit is skipped and the user told why.
    result.warnings.push_back(fmt::format(
        "{}:{}: `{}` has more than {} grad-relevant events and was not analysed", source.path(),
        fn.range.startLine + 1, fn.name, kMaxNodesPerUnit));
    fn.nodes.clear();
    fn.entry = fn.normalExit = fn.exceptionalExit = kNoNode;
  } else if (lowerer.tooDeep()) {
    // The parse error, if the file has one, is the first GL000 and says more.
    if (result.frontendDiagnostics.empty()) {
      Diagnostic diagnostic;
      diagnostic.code = "GL000";
      diagnostic.message = fmt::format(
          "invalid syntax: too many levels of indentation (Python allows at most {})",
          kMaxBlockDepth);
      diagnostic.help = fmt::format("`{}` was not analysed; flatten the nesting", fn.name);
      TSNode at = lowerer.tooDeepAt();
      diagnostic.range = source.range(ts_node_start_byte(at), ts_node_start_byte(at));
      result.frontendDiagnostics.push_back(std::move(diagnostic));
    }
    fn.nodes.clear();
    fn.entry = fn.normalExit = fn.exceptionalExit = kNoNode;
  }
  result.module.units.push_back(std::move(fn));
}

// The text of a top-level statement's lines up to its end (what precedes it on its first line
// decides its columns), then the parts of it that were parsed.
std::string ModuleLowering::definitionKey(TSNode statement,
                                          const std::vector<ByteRange>& parsed) const {
  const uint32_t start = ts_node_start_byte(statement);
  const uint32_t end = ts_node_end_byte(statement);
  const uint32_t lineStart = source.lineStart(source.lineOf(start));
  std::string key(bytes.substr(lineStart, end - lineStart));
  key += '\0';
  for (const ByteRange& range : parsed) {
    const uint32_t from = std::max(range.start, start);
    const uint32_t to = std::min(range.end, end);
    if (from < to) key += fmt::format("{}-{};", from - start, to - start);
  }
  return key;
}

namespace {

void shift(ir::SourceRange& range, uint32_t bytes, uint32_t lines) {
  range.startByte += bytes;
  range.endByte += bytes;
  range.startLine += lines;
  range.endLine += lines;
}

// Moves a unit's positions by (bytes, lines); unsigned wrap-around makes "back" work too.
void shift(ir::FunctionIR& fn, uint32_t bytes, uint32_t lines) {
  shift(fn.range, bytes, lines);
  shift(fn.nameRange, bytes, lines);
  for (ir::Node& node : fn.nodes) shift(node.event.range, bytes, lines);
}

} // namespace

LoweringMemo::ClassFacts ModuleLowering::classFacts(int classUnit) const {
  const UnitSource& unit = units[static_cast<size_t>(classUnit)];
  return {unit.savedAttrs, unit.savedVars};
}

// What reused pieces were lowered against must be what this lowering arrived at.
bool ModuleLowering::reusedContextHolds(const LoweringMemo& memo,
                                        const std::vector<Piece>& pieces) const {
  if (resolver.bindings() != memo.bindings || optimizerNames != memo.optimizerNames ||
      units[0].savedVars != memo.moduleSavedVars) {
    return false;
  }
  for (const Piece& piece : pieces) {
    if (piece.reused == nullptr) continue;
    for (int at = piece.classUnit; at > 0; at = units[static_cast<size_t>(at)].parent) {
      const auto facts = memo.classes.find(units[static_cast<size_t>(at)].qualifiedName);
      if (facts == memo.classes.end() || !(facts->second == classFacts(at))) return false;
    }
  }
  return true;
}

void ModuleLowering::appendReused(const Piece& piece) {
  const uint32_t start = ts_node_start_byte(piece.statement);
  const uint32_t line = source.lineOf(start);
  for (const ir::FunctionIR& kept : piece.reused->units) {
    result.module.units.push_back(kept);
    shift(result.module.units.back(), start, line);
  }
}

// Copies what lowering `piece` produced (result.module.units from `outFirst`) into its memo
// entry, positions made relative.
void ModuleLowering::keep(Piece& piece, size_t outFirst) {
  const uint32_t start = ts_node_start_byte(piece.statement);
  const uint32_t line = source.lineOf(start);
  for (size_t i = outFirst; i < result.module.units.size(); ++i) {
    piece.fresh.units.push_back(result.module.units[i]);
    shift(piece.fresh.units.back(), 0u - start, 0u - line);
  }
  for (size_t i = piece.firstUnit; i < piece.endUnit; ++i) {
    const UnitSource& unit = units[i];
    piece.fresh.optimizerNames.insert(piece.fresh.optimizerNames.end(),
                                      unit.optimizerTargets.begin(), unit.optimizerTargets.end());
    if (unit.classUnit == piece.classUnit) {
      piece.fresh.classSavedAttrs.insert(piece.fresh.classSavedAttrs.end(),
                                         unit.savedSelfAttrs.begin(), unit.savedSelfAttrs.end());
    }
  }
}

// Takes the piece from the memo when it holds it, else walks it.
void ModuleLowering::addPiece(std::vector<Piece>& pieces, TSNode statement,
                              std::vector<int> stack, int depth, std::string key) {
  Piece& piece = pieces.emplace_back();
  piece.statement = statement;
  piece.classUnit = stack.size() > 1 ? stack.back() : -1;
  piece.key = std::move(key);
  if (reuse_ && !piece.key.empty()) {
    if (auto hit = memo_->definitions.find(piece.key); hit != memo_->definitions.end()) {
      piece.reused = &hit->second;
      reusedAny_ = true;
      resolver.replay(piece.reused->bindings);
      const uint32_t line = source.lineOf(ts_node_start_byte(statement));
      for (const auto& [offset, comment] : piece.reused->suppressionComments) {
        result.suppressions.addComment(line + offset, comment);
      }
      return;
    }
  }
  piece.firstUnit = units.size();
  if (!piece.key.empty()) {
    recording_ = &piece;
    resolver.setJournal(&piece.fresh.bindings);
  }
  collect(statement, std::move(stack), depth);
  recording_ = nullptr;
  resolver.setJournal(nullptr);
  piece.endUnit = units.size();
}

namespace {

// The definition a statement makes, seen through its decorators.
TSNode definitionOf(TSNode statement) {
  return kindOf(statement) == Kind::decorated_definition
             ? field(statement, fields().definition)
             : statement;
}

} // namespace

// A class at top level or in such a class, in pieces: its header (and the class unit), then each
// statement of its body; its methods are kept in the memo one by one, so that an edit in one
// method of a long class lowers that method again, not the class.
void ModuleLowering::addClassPieces(std::vector<Piece>& pieces, TSNode statement,
                                    TSNode classNode, const std::vector<int>& stack, int depth) {
  TSNode body = field(classNode, fields().body);
  Piece& header = pieces.emplace_back();
  header.statement = statement;
  header.classUnit = stack.size() > 1 ? stack.back() : -1;
  header.firstUnit = units.size();
  collect(statement, stack, depth, body);
  header.endUnit = units.size();
  int classUnit = -1;
  for (size_t i = header.firstUnit; i < header.endUnit && classUnit < 0; ++i) {
    if (units[i].node.id == classNode.id) classUnit = static_cast<int>(i);
  }
  if (classUnit < 0 || isNull(body)) return;
  const UnitSource& owner = units[static_cast<size_t>(classUnit)];
  const std::string owners = owner.qualifiedName + '\0' + owner.name + '\0';
  std::vector<int> inside = stack;
  inside.push_back(classUnit);
  for (TSNode member : children(body)) {
    const Kind kind = kindOf(definitionOf(member));
    if (kind == Kind::class_definition) {
      addClassPieces(pieces, member, definitionOf(member), inside, depth + 2);
      continue;
    }
    const bool method = kind == Kind::function_definition;
    addPiece(pieces, member, inside, depth + 2,
             method ? owners + definitionKey(member, *parsed_) : std::string());
  }
}

bool ModuleLowering::run(const std::vector<TSNode>& roots, const std::vector<ByteRange>& parsed,
                         LoweringMemo* memo, bool reuse) {
  UnitSource moduleUnit;
  moduleUnit.kind = ir::UnitKind::Module;
  moduleUnit.name = "<module>";
  moduleUnit.qualifiedName = context.moduleName;
  units.push_back(std::move(moduleUnit));
  if (memo != nullptr && (memo->moduleName != context.moduleName ||
                          memo->isPackageInit != context.isPackageInit)) {
    reuse = false;
  }
  parsed_ = &parsed;
  memo_ = memo;
  reuse_ = reuse && memo != nullptr;

  std::vector<Piece> pieces;
  for (TSNode root : roots) {
    for (TSNode statement : children(root)) {
      if (kindOf(statement) != Kind::comment) units[0].statements.push_back(statement);
      const Kind kind = kindOf(definitionOf(statement));
      if (memo != nullptr && kind == Kind::class_definition) {
        addClassPieces(pieces, statement, definitionOf(statement), {0}, 1);
      } else {
        const bool keyed = memo != nullptr && kind == Kind::function_definition;
        addPiece(pieces, statement, {0}, 1, keyed ? definitionKey(statement, parsed) : "");
      }
    }
  }
  classifySavedModes();
  if (reusedAny_) {
    for (const Piece& piece : pieces) {
      if (piece.reused == nullptr) continue;
      optimizerNames.insert(piece.reused->optimizerNames.begin(),
                            piece.reused->optimizerNames.end());
      if (piece.classUnit >= 0) {
        units[static_cast<size_t>(piece.classUnit)].savedAttrs.insert(
            piece.reused->classSavedAttrs.begin(), piece.reused->classSavedAttrs.end());
      }
    }
    if (!reusedContextHolds(*memo, pieces)) return false;
  }

  auto& out = result.module.units;
  out.reserve(units.size());
  lowerUnit(units[0]);
  for (Piece& piece : pieces) {
    if (piece.reused != nullptr) {
      appendReused(piece);
      continue;
    }
    const size_t outFirst = out.size();
    const size_t warnings = result.warnings.size();
    const size_t diagnostics = result.frontendDiagnostics.size();
    for (size_t i = piece.firstUnit; i < piece.endUnit; ++i) lowerUnit(units[i]);
    // A definition that could not be lowered whole is lowered again next time, to say so again.
    if (!piece.key.empty() && result.warnings.size() == warnings &&
        result.frontendDiagnostics.size() == diagnostics) {
      keep(piece, outFirst);
    } else {
      piece.key.clear();
    }
  }

  if (memo != nullptr) {
    std::unordered_map<std::string, LoweredDefinition> kept;
    std::unordered_map<std::string, LoweringMemo::ClassFacts> classes;
    std::unordered_set<std::string> ambiguous; // two classes of one name: neither is kept
    // Every class around a kept method, by qualified name (the same class is seen once per
    // method: a second class of that name with other facts makes the name ambiguous).
    std::unordered_map<std::string, int> classUnitOf;
    for (const Piece& piece : pieces) {
      if (piece.key.empty()) continue;
      for (int at = piece.classUnit; at > 0; at = units[static_cast<size_t>(at)].parent) {
        const std::string& name = units[static_cast<size_t>(at)].qualifiedName;
        auto [seen, added] = classUnitOf.try_emplace(name, at);
        if (added) {
          classes.emplace(name, classFacts(at));
        } else if (seen->second != at) {
          ambiguous.insert(name);
        }
      }
    }
    auto inAmbiguousClass = [&](const Piece& piece) {
      for (int at = piece.classUnit; at > 0; at = units[static_cast<size_t>(at)].parent) {
        if (ambiguous.count(units[static_cast<size_t>(at)].qualifiedName) != 0) return true;
      }
      return false;
    };
    for (Piece& piece : pieces) {
      if (piece.key.empty() || kept.count(piece.key) != 0 || inAmbiguousClass(piece)) continue;
      if (piece.reused != nullptr) {
        kept.insert(memo->definitions.extract(piece.key));
      } else {
        kept.emplace(std::move(piece.key), std::move(piece.fresh));
      }
    }
    for (const std::string& name : ambiguous) classes.erase(name);
    memo->definitions = std::move(kept);
    memo->classes = std::move(classes);
    memo->moduleName = context.moduleName;
    memo->isPackageInit = context.isPackageInit;
    memo->bindings = resolver.bindings();
    memo->optimizerNames = optimizerNames;
    memo->moduleSavedVars = units[0].savedVars;
  }
  return true;
}

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
  event.loopDepth =
      static_cast<uint16_t>(std::min<size_t>(loops_.size() + comprehensionDepth_, UINT16_MAX));
  if (!regions_.empty()) {
    event.region = regions_.back().guard;
    event.regionDisablesGrad = regions_.back().disablesGrad;
    event.regionEnter = regions_.back().enter;
  }
  const bool mayRaise = event.mayRaise;
  const NodeId id = newNode(std::move(event));
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
      for (TSNode parameter : children(parameters)) {
        switch (kindOf(parameter)) {
        case Kind::identifier: fn_.params.emplace_back(text(parameter, source_)); break;
        case Kind::default_parameter:
        case Kind::typed_default_parameter:
          fn_.params.emplace_back(text(field(parameter, f.name), source_));
          break;
        case Kind::typed_parameter: {
          std::vector<TSNode> parts = children(parameter);
          fn_.params.emplace_back(parts.empty() ? std::string_view("*")
                                                : text(parts.front(), source_));
          break;
        }
        case Kind::list_splat_pattern:
        case Kind::dictionary_splat_pattern: fn_.params.emplace_back("*"); break;
        default: break;
        }
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
    const GradApi api = rules::classifyPythonName(name);
    if (rules::isGradContext(api) && unit_.kind == ir::UnitKind::Function) {
      const ir::GradValue mode = isNull(call) ? ir::GradValue::Unknown : modeArgument(call, source_);
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
    }
    fn_.decorators.push_back(name.empty() ? std::string(text(expression, source_)) : name);
  }
  NodeId decoratorRaiseLanding = kNoNode;
  if (!cleanups_.empty()) {
    decoratorRaiseLanding = newNode(Event{});
    exceptionTarget_ = decoratorRaiseLanding;
  }
  if (unit_.classUnit >= 0 && !fn_.params.empty() && !fn_.hasDecorator("staticmethod")) {
    fn_.params.erase(fn_.params.begin());
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
      default: lowerExpression(child, Role::Discarded); break;
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
      if (kindOf(value) == Kind::identifier) ret.var = std::string(text(value, source_));
      lowerExpression(values.front(), Role::Returned);
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
    lowerDeviceMapCheck(statement);
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
  case Kind::decorated_definition: lowerDecoratorUses(statement); break;
  case Kind::function_definition:
  case Kind::class_definition:
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

TSNode firstPositionalArgument(TSNode call);

// The object an argument passes as a component: `unet`, `self.unet`, `unwrap_model(unet)`,
// `unet.to(device)`; `pipe.components` is all of `pipe`. Empty for anything else: a copy
// (`copy.deepcopy(unet)`), a fresh load, a literal.
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
      TSNode function = unparenthesize(field(node, f.function));
      const bool method = kindOf(function) == Kind::attribute;
      const std::string_view last = method ? text(field(function, f.attribute), source)
                                           : text(function, source);
      if (rules::returnsSameModel(last)) {
        node = unparenthesize(firstPositionalArgument(node));
      } else if (method && rules::isModuleMoveMethod(last)) {
        node = unparenthesize(field(function, f.object));
      } else {
        return {};
      }
      break;
    }
    default: return {};
    }
  }
  return {};
}

void UnitLowerer::emitAssign(TSNode at, std::string var, std::vector<std::string> deps,
                             bool freshValue) {
  Event assign;
  assign.kind = EventKind::Assign;
  assign.var = std::move(var);
  assign.deps = std::move(deps);
  assign.freshValue = freshValue;
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

// `torch.optim.X([a, b], ...)` inside a loop over tensors each bound earlier in the same
// iteration (new leaves): the optimizer starts from tensors that hold no gradient yet.
bool UnitLowerer::optimizerOverNewLeaves(TSNode value, const std::string& callee) const {
  if (loops_.empty() || !callee.starts_with("torch.optim.") ||
      callee.find("lr_scheduler") != std::string::npos) {
    return false;
  }
  const TSNode first = firstPositionalArgument(value);
  if (isNull(first) || (kindOf(first) != Kind::list && kindOf(first) != Kind::tuple)) return false;
  const std::vector<TSNode> elements = children(first);
  if (elements.empty()) return false;
  return std::all_of(elements.begin(), elements.end(), [&](TSNode element) {
    if (kindOf(element) != Kind::identifier) return false;
    const auto bound = lastAssign_.find(std::string(text(element, source_)));
    return bound != lastAssign_.end() && bound->second > loops_.back().breakTarget;
  });
}

void UnitLowerer::lowerAssignment(TSNode assignment) {
  const Fields& f = fields();
  const std::vector<std::pair<TSNode, TSNode>> pairs = assignmentPairs(assignment);
  if (!pairs.empty()) {
    for (const auto& [target, value] : pairs) {
      // `p.grad = None` resets a gradient.
      if (kindOf(target) == Kind::attribute && text(field(target, f.attribute), source_) == "grad" &&
          text(value, source_) == "None") {
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
        const auto owner = loopParameters_.find(std::string(text(field(target, f.object), source_)));
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
      const bool newOptimizer = kindOf(value) == Kind::call && optimizerOverNewLeaves(value, callee);
      emitAssign(assignment, targetText, std::move(deps),
                 isFreshCopy(value, source_, callee) || newOptimizer);
      if (kindOf(value) == Kind::identifier || kindOf(value) == Kind::attribute) {
        fn_.nodes[current_].event.aliasOf = std::string(text(value, source_));
      }
      fn_.nodes[current_].event.viewOf = viewSource(value, source_);
      if (text(value, source_).find("parameters(") != std::string_view::npos) {
        parameterSources_[targetText] = parameterOwners(value);
      }
      // `pipe = Pipeline.from_pretrained(..., device_map=...)` loads with offload hooks.
      if (kindOf(value) == Kind::call) {
        TSNode function = unparenthesize(field(value, f.function));
        if (kindOf(function) == Kind::attribute &&
            rules::isPretrainedLoader(text(field(function, f.attribute), source_))) {
          const rules::DeviceMapPlacement placement = devicePlacement(value);
          lowerComponents(targetText, value, callee);
          if (placement != rules::DeviceMapPlacement::OnDevice) {
            emitObjectEvent(EventKind::Offload, targetText, value, "from_pretrained(device_map=...)",
                            placement == rules::DeviceMapPlacement::MayOffload,
                            ir::PlacementScope::DeviceMap);
          }
        } else {
          lowerComponents(targetText, value, callee);
        }
      } else if (kindOf(value) == Kind::dictionary) {
        lowerComponents(targetText, value, callee);
      }
      lowerDeviceMapCheck(value);
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

void UnitLowerer::lowerIf(TSNode statement, int depth) {
  const Fields& f = fields();
  TSNode condition = field(statement, f.condition);
  lowerExpression(condition, Role::Other);
  lowerDeviceMapCheck(condition);
  NodeId branchPoint = current_;
  std::vector<NodeId> ends;
  emitAssumptions(condition, true);
  lowerBlock(field(statement, f.consequence), depth + 1);
  ends.push_back(current_);
  bool hasElse = false;
  for (TSNode clause : children(statement)) {
    const Kind kind = kindOf(clause);
    if (kind == Kind::elif_clause) {
      current_ = branchPoint;
      emitAssumptions(condition, false);
      condition = field(clause, f.condition);
      lowerExpression(condition, Role::Other);
      branchPoint = current_;
      emitAssumptions(condition, true);
      lowerBlock(field(clause, f.consequence), depth + 1);
      ends.push_back(current_);
    } else if (kind == Kind::else_clause) {
      current_ = branchPoint;
      emitAssumptions(condition, false);
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
  // A loop over a model's parameters runs at least once: a reset done there is not skippable.
  const bool atLeastOnce =
      text(field(statement, f.right), source_).find("parameters(") != std::string_view::npos;
  link(current_, atLeastOnce ? bodyStart : head);
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
  // `for p in X.parameters():` / `for name, p in X.named_parameters():` - p belongs to X.
  if (!targets.empty()) {
    const std::vector<std::string> owners = parameterOwners(field(statement, f.right));
    if (owners.size() == 1) {
      loopParameters_[std::string(text(targets.back(), source_))] = owners.front();
    }
  }
  lowerBlock(field(statement, f.body), depth + 1);
  link(current_, head);
  loops_.pop_back();
  current_ = head;
  TSNode alternative = field(statement, f.alternative);
  if (!isNull(alternative)) lowerBlock(field(alternative, f.body), depth + 1);
  link(current_, after);
  current_ = after;
}

// An import runs the imported module's top level (the first time): a call to the module, which
// its summary describes when it is part of the program (tool/project_context.h).
void UnitLowerer::lowerImport(TSNode statement) {
  for (std::string& module : module_.resolver.importedModules(statement, source_)) {
    // torch is modelled by the API catalogs, never summarised: `from torch import no_grad` is
    // no call to the API it names.
    const std::string_view top = std::string_view(module).substr(0, module.find('.'));
    if (top == "torch" || top == "functorch" || top == "torchgen") continue;
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
    if (callee.empty() || rules::classifyPythonName(callee) != GradApi::None) continue;
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
      } else {
        // `with torch.no_grad:` enters the class itself, which fails at run time.
        lowerExpression(value, Role::Other);
        const GradApi api =
            rules::classifyPythonName(module_.resolver.resolve(value, source_));
        Event enter;
        enter.kind = EventKind::EnterGuard;
        enter.guard = guardKindOf(api);
        enter.guardNotCalled = rules::isGradContext(api);
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
      cleanup.key = entered.kind == EventKind::EnterGuard ? entered.var : std::string();
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
  // A grad-mode `with` restores its mode when an exception leaves the block too.
  const bool restoresOnRaise =
      std::any_of(cleanups_.begin() + static_cast<ptrdiff_t>(cleanupsBefore), cleanups_.end(),
                  [](const Cleanup& c) { return !c.key.empty(); });
  const NodeId outerTarget = exceptionTarget_;
  NodeId raiseLanding = kNoNode;
  if (restoresOnRaise) {
    raiseLanding = newNode(Event{});
    exceptionTarget_ = raiseLanding;
  }
  lowerBlock(field(statement, f.body), depth + 1);
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

void UnitLowerer::lowerExpression(TSNode expression, Role role, std::string_view target,
                                  std::vector<std::string>* deps) {
  TSNode root = unparenthesize(expression);
  if (isNull(root)) return;
  const Fields& f = fields();
  // Post-order (arguments before the call that takes them), iteratively: expressions can nest
  // thousands deep.
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  auto visit = [&](TSNode node) {
    if (deps != nullptr) {
      const TSFieldId fieldId = ts_node_eq(node, root) ? 0 : ts_tree_cursor_current_field_id(&cursor);
      if (kindOf(node) == Kind::identifier && fieldId != f.attribute && fieldId != f.name) {
        deps->emplace_back(text(node, source_));
      } else if (kindOf(node) == Kind::attribute &&
                 text(field(node, f.object), source_) == "self") {
        deps->emplace_back(text(node, source_));
      }
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
  return owner.qualifiedName + "." + std::string(text(field(function, fields().attribute), source_));
}

void UnitLowerer::emitSetGrad(TSNode call, GradApi api, ir::ApiFlavor flavor,
                              const std::string& callee) {
  Event event;
  event.kind = EventKind::SetGrad;
  event.flavor = flavor;
  event.callee = callee.empty() ? std::string(rules::displayName(api)) : callee;
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

void UnitLowerer::lowerCall(TSNode call, Role role, std::string_view target) {
  const Fields& f = fields();
  TSNode function = unparenthesize(field(call, f.function));
  const std::string callee = resolveCallee(function);
  const GradApi api = rules::classifyPythonName(callee);

  // torch.no_grad().__enter__() keeps no reference to the context, so nothing can exit it.
  if (api == GradApi::None && kindOf(function) == Kind::attribute &&
      text(field(function, f.attribute), source_) == "__enter__") {
    TSNode inner = unparenthesize(field(function, f.object));
    if (kindOf(inner) == Kind::call) {
      const std::string innerCallee = resolveCallee(field(inner, f.function));
      const GradApi innerApi = rules::classifyPythonName(innerCallee);
      if (rules::isGradContext(innerApi)) {
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
  bool positionalDone = false;
  for (TSNode argument : children(field(call, f.arguments))) {
    const Kind kind = kindOf(argument);
    if (kind == Kind::keyword_argument) {
      TSNode value = unparenthesize(field(argument, f.value));
      if (kindOf(value) == Kind::identifier) {
        event.keywordVars.emplace_back(text(field(argument, f.name), source_),
                                       text(value, source_));
      }
      continue;
    }
    if (kind == Kind::comment) continue;
    // Only the positional arguments before any *args line up with parameters.
    if (kind == Kind::list_splat || kind == Kind::dictionary_splat) positionalDone = true;
    if (positionalDone) continue;
    TSNode value = unparenthesize(argument);
    event.argVars.emplace_back(kindOf(value) == Kind::identifier ? text(value, source_)
                                                                 : std::string_view());
    event.argBools.push_back(kindOf(value) == Kind::true_ ? 1
                             : kindOf(value) == Kind::false_ ? 0
                                                             : -1);
  }
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

rules::DeviceMapPlacement UnitLowerer::devicePlacement(TSNode call) const {
  if (!isNull(keywordArgument(call, "offload_folder", source_))) {
    return rules::DeviceMapPlacement::Offloads;
  }
  TSNode map = unparenthesize(keywordArgument(call, "device_map", source_));
  if (isNull(map)) return rules::DeviceMapPlacement::OnDevice;
  rules::DeviceMapPlacement placement = rules::DeviceMapPlacement::MayOffload;
  if (kindOf(map) != Kind::identifier) {
    placement = mapPlacement(map, source_);
  } else if (const std::vector<TSNode>& values = plainBindings(text(map, source_));
             !values.empty()) {
    placement = rules::DeviceMapPlacement::OnDevice;
    for (TSNode value : values) placement = worsePlacement(placement, mapPlacement(value, source_));
  }
  // What may offload fails to load instead when quantized without cpu offload allowed.
  if (placement == rules::DeviceMapPlacement::MayOffload && quantizedWithoutCpuOffload(call)) {
    return rules::DeviceMapPlacement::OnDevice;
  }
  return placement;
}

bool UnitLowerer::quantizedWithoutCpuOffload(TSNode call) const {
  auto isTrue = [](TSNode value) { return !isNull(value) && kindOf(unparenthesize(value)) == Kind::true_; };
  for (TSNode argument : children(field(call, fields().arguments))) {
    if (kindOf(argument) == Kind::keyword_argument &&
        rules::isQuantizedLoadOption(text(field(argument, fields().name), source_)) &&
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
    if (kindOf(value) != Kind::call ||
        !rules::isBitsAndBytesConfig(module_.resolver.resolve(field(value, fields().function), source_))) {
      return false;
    }
    TSNode allowed = keywordArgument(value, rules::kQuantizedCpuOffloadOption, source_);
    if (!isNull(allowed) && kindOf(unparenthesize(allowed)) != Kind::false_) return false;
    bool quantized = false;
    for (TSNode argument : children(field(value, fields().arguments))) {
      quantized |= kindOf(argument) == Kind::keyword_argument &&
                   rules::isQuantizedLoadOption(text(field(argument, fields().name), source_)) &&
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

const std::vector<TSNode>& UnitLowerer::plainBindings(std::string_view name) const {
  static const std::vector<TSNode> kNone;
  if (!bindings_) {
    // One walk of the unit answers for every name: a file of many loading calls that read a
    // map from a local asks once per call.
    auto& index = bindings_.emplace();
    auto visit = [&](TSNode node, const std::vector<TSNode>& ancestors) {
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

bool UnitLowerer::mayBeModel(TSNode object) const {
  const std::string name(text(object, source_));
  if (module_.optimizerNames.count(name) || rules::namedAsNonModule(name)) return false;
  // Built in this unit by an optimizer, scheduler or data-loader constructor, every time.
  bool built = false;
  for (const auto& [target, call] : unit_.assignedCalls) {
    if (target != name) continue;
    if (!rules::buildsNonModule(module_.resolver.resolve(field(call, fields().function), source_))) {
      return true;
    }
    built = true;
  }
  return !built;
}

bool UnitLowerer::isOptimizer(std::string_view receiver) const {
  return module_.optimizerNames.count(std::string(receiver)) || rules::namedAsOptimizer(receiver);
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
      if (!component.empty()) event.components.push_back(std::move(component));
    }
  } else {
    TSNode function = unparenthesize(field(value, f.function));
    const std::string_view method =
        kindOf(function) == Kind::attribute ? text(field(function, f.attribute), source_) : "";
    const rules::TrainerClass trainer = rules::classifyTrainerClass(callee);
    const std::string_view receiver =
        kindOf(function) == Kind::attribute ? text(field(function, f.object), source_) : "";
    const bool loader =
        rules::isComponentLoader(receiver, method) || rules::isComponentRegistration(method);
    if (!loader && !rules::isComponentClass(callee) && trainer.style == rules::TrainerStyle::None) {
      return;
    }
    // A pipeline class takes its components by position too; a loader's first argument is
    // where to load from, except `from_pipe(pipe)`; a trainer's first is the model.
    const bool positional = !loader || rules::takesPositionalComponents(method);
    bool first = true;
    for (TSNode argument : children(field(value, f.arguments))) {
      const Kind kind = kindOf(argument);
      if (kind == Kind::comment) continue;
      std::string component;
      if (kind == Kind::keyword_argument) {
        const std::string_view keyword = text(field(argument, f.name), source_);
        if (trainer.style == rules::TrainerStyle::None ? !rules::isLoaderOption(keyword)
                                                       : keyword == "model") {
          component = componentObject(field(argument, f.value), source_);
        }
      } else if (kind == Kind::dictionary_splat) {
        for (TSNode inner : children(argument)) component = componentObject(inner, source_);
      } else if (positional && (trainer.style == rules::TrainerStyle::None || first)) {
        component = componentObject(argument, source_);
      }
      if (kind != Kind::keyword_argument) first = false;
      if (!component.empty()) event.components.push_back(std::move(component));
    }
    if (trainer.style != rules::TrainerStyle::None) {
      trainers_[target] = {trainer, callee.substr(callee.rfind('.') + 1)};
      event.callee = callee;
    }
  }
  if (!event.components.empty()) emit(event);
}

void UnitLowerer::lowerDeviceMapCheck(TSNode expression) {
  if (isNull(expression) || text(expression, source_).find("hf_device_map") == std::string::npos) {
    return;
  }
  const Fields& f = fields();
  std::vector<std::string> checked;
  bool namesOffloadDevice = false;
  walkPreorder(expression, [&](TSNode node) {
    if (kindOf(node) == Kind::attribute && text(field(node, f.attribute), source_) == "hf_device_map") {
      checked.emplace_back(text(unparenthesize(field(node, f.object)), source_));
      return Walk::Skip;
    }
    if (const auto value = stringValue(node, source_); value && (*value == "cpu" || *value == "disk")) {
      namesOffloadDevice = true;
    }
    return Walk::Descend;
  });
  if (!namesOffloadDevice) return;
  for (std::string& object : checked) {
    emitObjectEvent(EventKind::ResetPlacement, std::move(object), expression,
                    "hf_device_map check", false, ir::PlacementScope::Checked);
  }
}

bool UnitLowerer::lowerTrainerCall(TSNode call, std::string_view method, TSNode receiver) {
  const Fields& f = fields();
  // `Trainer(model=m, ...).train()`: the trainer is never named.
  Trainer unnamed;
  const Trainer* trainer = nullptr;
  std::string trained;
  if (kindOf(receiver) == Kind::call) {
    const std::string callee = module_.resolver.resolve(field(receiver, f.function), source_);
    unnamed = {rules::classifyTrainerClass(callee), callee.substr(callee.rfind('.') + 1)};
    if (unnamed.kind.style == rules::TrainerStyle::None) return false;
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
  if (trainer->kind.style == rules::TrainerStyle::TrainMethod && method == "train") {
    emitObjectEvent(EventKind::Train, trained, call, described);
    return !trained.empty();
  }
  if (trainer->kind.style == rules::TrainerStyle::FitMethod && method == "fit") {
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
  switch (rules::classifyOffloadFunction(callee)) {
  case rules::OffloadFunction::Offload:
    emitObjectEvent(EventKind::Offload, firstText, call, spelled);
    return true;
  case rules::OffloadFunction::DispatchModel:
  case rules::OffloadFunction::LoadAndDispatch: {
    const rules::DeviceMapPlacement placement = devicePlacement(call);
    if (placement == rules::DeviceMapPlacement::OnDevice) break;
    emitObjectEvent(EventKind::Offload, firstText, call, spelled,
                    placement == rules::DeviceMapPlacement::MayOffload,
                    ir::PlacementScope::DeviceMap);
    return true;
  }
  case rules::OffloadFunction::RemoveHooks: {
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
  case rules::OffloadFunction::None: break;
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
  if (rules::isOffloadMethod(method)) {
    emitObjectEvent(EventKind::Offload, receiver, call, std::string(method) + "()");
    return true;
  }
  if (const rules::ResetScope scope = rules::classifyResetMethod(method);
      scope != rules::ResetScope::None) {
    emitObjectEvent(EventKind::ResetPlacement, receiver, call, std::string(method) + "()", false,
                    scope == rules::ResetScope::DeviceMapLoad ? ir::PlacementScope::DeviceMap
                                                              : ir::PlacementScope::Hooks);
    return true;
  }
  if (rules::isComponentRegistration(method)) {
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

} // namespace

void lowerModule(const SourceText& source, const ModuleContext& context,
                 const std::vector<TSNode>& roots, const std::vector<ByteRange>& parsed,
                 PythonFileResult& result, LoweringMemo* memo) {
  const Suppressions suppressions = result.suppressions;
  // Names bound by imports, for callers reaching a definition through this module (re-exports).
  auto noteReexports = [&](const NameResolver& resolver) {
    const std::string prefix = context.moduleName + ".";
    auto note = [&](const std::string& name, const std::string& target) {
      if (target != name && target != prefix + name) {
        result.module.reexports.emplace_back(name, target);
      }
    };
    for (const auto& [name, target] : resolver.bindings()) note(name, target);
    for (const auto& [name, target] : resolver.importedBindings()) note(name, target);
    std::vector<std::pair<std::string, std::string>>& reexports = result.module.reexports;
    std::sort(reexports.begin(), reexports.end());
    reexports.erase(std::unique(reexports.begin(), reexports.end()), reexports.end());
  };
  {
    ModuleLowering lowering(source, context, result);
    if (lowering.run(roots, parsed, memo, true)) {
      noteReexports(lowering.resolver);
      return;
    }
  }
  // What the memo gave was lowered in another module-wide context: lower everything afresh.
  result.suppressions = suppressions;
  ModuleLowering lowering(source, context, result);
  lowering.run(roots, parsed, memo, false);
  noteReexports(lowering.resolver);
}

} // namespace gradlint::python
