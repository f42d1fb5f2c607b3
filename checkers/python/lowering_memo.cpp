// Pieces of a module: reusing lowered definitions from a LoweringMemo (partial parsing, the LSP).
#include "checkers/python/lowering.h"
#include "checkers/python/lowering_units.h"

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/catalog/offload_api.h"
#include "checkers/python/chunks.h"
#include "checkers/python/names.h"
#include "checkers/python/syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace gradlint::python::detail {

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

// The module-scope names bound differently now than when the memo's pieces were lowered (added,
// removed or rebound), by their first dotted component: the word a use spells.
std::vector<std::string> ModuleLowering::rebound(const LoweringMemo& memo) const {
  std::unordered_set<std::string> names;
  const auto& now = resolver.bindings();
  const auto note = [&](const std::string& name) { names.insert(name.substr(0, name.find('.'))); };
  for (const auto& [name, target] : now) {
    const auto before = memo.bindings.find(name);
    if (before == memo.bindings.end() || before->second != target) note(name);
  }
  for (const auto& [name, target] : memo.bindings) {
    if (now.count(name) == 0) note(name);
  }
  return {names.begin(), names.end()};
}

// What reused pieces were lowered against must be what this lowering arrived at. A module-scope
// name bound anew (the rescan of a partial parse chose another definition, an editor's buffer
// gained a function) matters only to the pieces that spell it: a piece resolves names only
// through the words in its text.
bool ModuleLowering::reusedContextHolds(const LoweringMemo& memo,
                                        const std::vector<Piece>& pieces) const {
  if (optimizerNames != memo.optimizerNames || trainerBases != memo.trainerBases ||
      units[0].savedVars != memo.moduleSavedVars) {
    return false;
  }
  if (resolver.bindings() != memo.bindings) {
    const std::vector<std::string> names = rebound(memo);
    const NeedleSearch uses(names, Match::Word);
    const std::string_view text = source.bytes();
    for (const Piece& piece : pieces) {
      if (piece.reused == nullptr) continue;
      const uint32_t start = ts_node_start_byte(piece.statement);
      if (!uses.find(text.substr(start, ts_node_end_byte(piece.statement) - start)).empty()) {
        return false;
      }
    }
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
  findTrainerSubclasses();
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
    const size_t readOutside = outsideReads;
    for (size_t i = piece.firstUnit; i < piece.endUnit; ++i) lowerUnit(units[i]);
    // A definition that could not be lowered whole is lowered again next time, to say so again;
    // one that read facts outside it, because an edit there may change them.
    if (!piece.key.empty() && result.warnings.size() == warnings &&
        result.frontendDiagnostics.size() == diagnostics && outsideReads == readOutside) {
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
    memo->trainerBases = trainerBases;
    memo->moduleSavedVars = units[0].savedVars;
  }
  return true;
}

} // namespace gradlint::python::detail
