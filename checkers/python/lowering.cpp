#include "checkers/python/lowering.h"
#include "checkers/python/lowering_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>

namespace gradlint::python::detail {

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
      if (catalog::classifyPythonName(callee) != GradApi::IsGradEnabled) continue;
      unit.savedVars.insert(target);
      if (target.starts_with("self.") && unit.classUnit >= 0) {
        units[static_cast<size_t>(unit.classUnit)].savedAttrs.insert(target.substr(5));
        unit.savedSelfAttrs.push_back(target.substr(5));
      }
    }
  }
}

void ModuleLowering::findTrainerSubclasses() {
  trainerBases.clear();
  // In source order, so a class deriving from one defined above it is found in one pass.
  for (const UnitSource& unit : units) {
    if (unit.kind != ir::UnitKind::ClassBody || unit.parent != 0 || isNull(unit.node) ||
        unit.qualifiedName.empty()) {
      continue;
    }
    TSNode bases = ts_node_child_by_field_name(unit.node, "superclasses", 12);
    if (isNull(bases)) continue;
    for (TSNode base : children(bases)) {
      if (kindOf(base) != Kind::identifier && kindOf(base) != Kind::attribute) continue;
      std::string name = resolver.resolve(base, bytes);
      if (const auto local = trainerBases.find(name); local != trainerBases.end()) {
        name = local->second;
      }
      if (catalog::classifyTrainerClass(name).style == catalog::TrainerStyle::None) continue;
      trainerBases.emplace(unit.qualifiedName, std::move(name));
      break;
    }
  }
}

catalog::TrainerClass ModuleLowering::trainerClass(const std::string& qualifiedName) const {
  const auto local = trainerBases.find(qualifiedName);
  return catalog::classifyTrainerClass(local == trainerBases.end() ? qualifiedName
                                                                    : local->second);
}

bool ModuleLowering::derivesFromThread(int classUnit) const {
  TSNode definition = units[static_cast<size_t>(classUnit)].node;
  if (isNull(definition)) return false;
  TSNode bases = ts_node_child_by_field_name(definition, "superclasses", 12);
  if (isNull(bases)) return false;
  for (TSNode base : children(bases)) {
    const std::string name = resolver.resolve(base, bytes);
    if (name == "threading.Thread") return true;
  }
  return false;
}

const std::optional<ModuleFlag>& ModuleLowering::flag(std::string_view name) {
  auto [entry, added] = flags_.try_emplace(std::string(name));
  if (added) entry->second = moduleFlag(bytes, name);
  return entry->second;
}

const std::vector<TSNode>& ModuleLowering::moduleBindings(std::string_view name) {
  if (!moduleScope_) moduleScope_ = std::make_unique<UnitLowerer>(*this, units[0], moduleScopeIR_);
  return moduleScope_->plainBindings(name);
}

const std::vector<TSNode>& ModuleLowering::classAttributeBindings(int classUnit,
                                                                  std::string_view attribute) {
  const std::string key = std::to_string(classUnit) + "." + std::string(attribute);
  if (auto known = classAttributes_.find(key); known != classAttributes_.end()) {
    return known->second;
  }
  const Fields& f = fields();
  std::vector<TSNode> values;
  bool plain = true;
  // `target = value` (or `a = target = value`) where `target` is what `isTarget` accepts.
  auto assigned = [&](TSNode node, auto isTarget) {
    if (kindOf(node) == Kind::augmented_assignment && isTarget(field(node, f.left))) {
      plain = false;
    } else if (kindOf(node) == Kind::assignment && isTarget(field(node, f.left))) {
      TSNode right = field(node, f.right);
      while (!isNull(right) && kindOf(right) == Kind::assignment) right = field(right, f.right);
      if (isNull(right)) return; // an annotation alone
      values.push_back(right);
    }
  };
  auto isName = [&](TSNode target) {
    return kindOf(target) == Kind::identifier && text(target, bytes) == attribute;
  };
  auto isSelfAttribute = [&](TSNode target) {
    if (kindOf(target) != Kind::attribute) return false;
    const std::string_view object = text(field(target, f.object), bytes);
    return (object == "self" || object == "cls") &&
           text(field(target, f.attribute), bytes) == attribute;
  };
  // The class's tree, not its units: a method the lowering memo reused has none.
  TSNode body = field(units[static_cast<size_t>(classUnit)].node, f.body);
  for (TSNode statement : children(body)) {
    const Kind kind = kindOf(statement);
    if (kind == Kind::expression_statement) {
      for (TSNode part : children(statement)) assigned(part, isName);
    } else if ((kind == Kind::function_definition || kind == Kind::class_definition) &&
               isName(field(statement, f.name))) {
      plain = false;
    }
  }
  if (!isNull(body)) {
    walkPreorder(body, [&](TSNode node) {
      assigned(node, isSelfAttribute);
      return Walk::Descend;
    });
  }
  if (!plain) values.clear();
  return classAttributes_.emplace(key, std::move(values)).first->second;
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
  // A thread's body leaves its mode to nobody: like the enter half of a guard, its toggles are
  // not leaks (grad mode is per thread, and its thread ends with it).
  if (unit.classUnit >= 0 && unit.name == "run") fn.enterHalf = derivesFromThread(unit.classUnit);
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
  // A run keeps every lowered unit until its rules have run: the slack of the nodes' doubling
  // growth (a quarter of the vector on average) is worth a copy.
  fn.nodes.shrink_to_fit();
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

} // namespace gradlint::python::detail

namespace gradlint::python {

using detail::ModuleLowering;

namespace {

// Functions of the module that run as a thread's body: handed by name to `Thread(target=f)`,
// `executor.submit(f, ...)` or `executor.map(f, ...)`, and never called directly in the
// module (a direct call runs them in the caller's thread, where what they leave stays).
void markThreadBodies(ir::ModuleIR& module) {
  std::unordered_set<std::string> handed;
  std::unordered_set<std::string> called; // last component of every direct callee
  for (const ir::FunctionIR& fn : module.units) {
    for (const ir::Node& node : fn.nodes) {
      const ir::Event& event = node.event;
      if (event.kind != ir::EventKind::Call) continue;
      const size_t dot = event.callee.rfind('.');
      called.insert(dot == std::string::npos ? event.callee.str() : event.callee.substr(dot + 1));
      if (event.callee == "threading.Thread") {
        for (const auto& [keyword, name] : event.call().keywordVars) {
          if (keyword == "target") handed.insert(name);
        }
      }
      const std::string_view spelled = event.spelled;
      if ((spelled.ends_with(".submit") || spelled.ends_with(".map")) &&
          !event.call().argVars.empty() && !event.call().argVars.front().empty()) {
        handed.insert(event.call().argVars.front());
      }
    }
  }
  for (ir::FunctionIR& fn : module.units) {
    if (fn.kind != ir::UnitKind::Function || !fn.className.empty() || fn.enterHalf) continue;
    // Marked as the enter half of a guard is: its toggles are not leaks (see lowerUnit).
    fn.enterHalf = handed.count(fn.name) > 0 && called.count(fn.name) == 0;
  }
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
      markThreadBodies(result.module);
      return;
    }
  }
  // What the memo gave was lowered in another module-wide context: lower everything afresh.
  result.suppressions = suppressions;
  ModuleLowering lowering(source, context, result);
  lowering.run(roots, parsed, memo, false);
  noteReexports(lowering.resolver);
  markThreadBodies(result.module);
}

} // namespace gradlint::python
