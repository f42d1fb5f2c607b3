// The Python lowering's own declarations, shared by its files (not an interface for others):
//   lowering.cpp           the entry point and pass A: one walk collects units, imports, saves
//   lowering_memo.cpp      pieces: reusing lowered definitions for partial parsing and the LSP memo
//   lower_statements.cpp   pass B: a unit's statements to a CFG (control flow, with, try, loops)
//   lower_expressions.cpp  pass B: calls and expressions (grad-mode APIs, training, placement)
//   lowering_helpers.cpp   small questions about syntax nodes the passes share
#pragma once

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/catalog/offload_api.h"
#include "checkers/python/lowering.h"
#include "checkers/python/lowering_memo.h"
#include "checkers/python/names.h"
#include "checkers/python/syntax.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gradlint::python::detail {

using ir::CallArguments;
using ir::Event;
using ir::EventKind;
using ir::InternedString;
using ir::kNoNode;
using ir::NodeId;
using ir::ValueSources;
using catalog::GradApi;

// Guards against pathological `finally` duplication (each jump through a `finally` copies it).
inline constexpr size_t kMaxNodesPerUnit = 200'000;

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

ir::GuardKind guardKindOf(GradApi api);

// A def or class whose header does not parse: `def f(x, y=):`, `class C(:`. Error recovery keeps
// the node, with an ERROR or a missing token before its body.
bool headerDoesNotParse(TSNode definition);

// A statement that is a definition whose header does not parse, or an ERROR that swallowed a
// def or class header (`def f[(x):`). The statements after it, indented deeper, are that
// definition's body (error recovery may leave them outside it), not code of the block around it.
bool definitionDoesNotParse(TSNode statement, std::string_view source);

// `a = f()` and `a, b = f(), g()`: the (target, value) pairs an assignment binds by name.
std::vector<std::pair<TSNode, TSNode>> assignmentPairs(TSNode assignment);

// The text of a plain string literal (no f-string interpolation), or nullopt.
std::optional<std::string_view> stringValue(TSNode node, std::string_view source);

TSNode keywordArgument(TSNode call, std::string_view name, std::string_view source);

// Where a `device_map=` value sends weights: a literal, `infer_auto_device_map(...)`, or
// `a if c else b` of such values (the worse of the two). Anything else cannot be told, and counts
// as OnDevice (not reported).
catalog::DeviceMapPlacement mapPlacement(TSNode map, std::string_view source, int depth = 0);

// Of two placements a value may have, the one to report: offloads on some path, then maybe.
catalog::DeviceMapPlacement worsePlacement(catalog::DeviceMapPlacement a,
                                           catalog::DeviceMapPlacement b);

// `stack.enter_context(torch.set_grad_enabled(False))`: an ExitStack will exit it. Any other
// nested use (a tuple element, an argument) has toggled by construction and nothing exits it.
bool handedToExitStack(TSNode call, std::string_view source);

// `contextlib.ExitStack` / `AsyncExitStack`: contexts handed to its `enter_context` stay
// entered until the stack itself exits.
bool isExitStackClass(std::string_view qualifiedName);

// The expression that selects a grad-mode call's mode: its first positional argument or `mode=`
// (`set_grad_enabled(False)`, `inference_mode(mode=False)`); null when there is none.
TSNode modeExpression(TSNode call, std::string_view source);

// The grad mode a context call selects: `set_grad_enabled(False)`, `inference_mode(False)`.
ir::GradValue modeArgument(TSNode call, std::string_view source);

bool isMainGuard(TSNode condition, std::string_view source);

// Used as a decorator, the grad-mode region the function defined at `definition` (a
// function_definition) runs the decorated function in: `return torch.no_grad()(fn)`, a nested
// wrapper calling `fn` inside `with torch.inference_mode():` (or under a grad-mode decorator),
// or a factory returning such a decorator (then applied as `@factory(...)`). Every `return`
// must agree. In decorator_regions.cpp.
ir::DecoratorRegion decoratorRegionOf(TSNode definition, std::string_view source,
                                      const NameResolver& resolver);

// A module's flag: `name` bound exactly once in the whole file, by `NAME = True` or
// `NAME = False` at column 0, and nowhere else (no other assignment, augmented assignment,
// `global`, `for`/`as`/import target or parameter; comments are skipped, and a mention in a
// string that looks like one counts). Its value and where its name ends; nullopt otherwise.
// One scan of the file: ModuleLowering keeps the answer per name.
struct ModuleFlag {
  bool value = false;
  size_t end = 0; // byte offset past the name in its binding: a test before it reads no flag
};
std::optional<ModuleFlag> moduleFlag(std::string_view source, std::string_view name);

// The object an argument passes as a component: `unet`, `self.unet`, `unwrap_model(unet)`,
// `unet.to(device)`; `pipe.components` is all of `pipe`. Empty for anything else: a copy
// (`copy.deepcopy(unet)`), a fresh load, a literal.
std::string componentObject(TSNode value, std::string_view source);

// What a call returns the same modules of, hooks and all: a move's receiver (`.to()` and its
// kind return it), a wrapper's first argument (`get_peft_model(m, config)`,
// `PeftModel.from_pretrained(m, path)`, `accelerator.unwrap_model(m)`). Null for other calls.
TSNode sameModuleSource(TSNode call, std::string_view source);

// The object a chain of moves and wrappers returns (`pipe.unet.to("cuda")`,
// `model.cuda().half()`, `get_peft_model(model, config)`): a new name for the same module.
// Empty when `value` is no such chain on a name or attribute.
std::string sameModuleObject(TSNode value, std::string_view source);

// The name a return's value goes by when it has no name of its own but placement events
// (`return AutoModel.from_pretrained(..., device_map="auto")`). No Python name is spelled so.
inline constexpr std::string_view kReturnedValue = "<returned>";

class ModuleLowering;

TSNode firstPositionalArgument(TSNode call);
std::string_view conditionKey(TSNode node, std::string_view source);

class UnitLowerer {
public:
  UnitLowerer(ModuleLowering& module, const UnitSource& unit, ir::FunctionIR& fn);
  void lower();
  bool tooDeep() const { return tooDeep_; }
  // The values `name` is bound to in this unit when every binding is a plain `name = value`
  // (`device_map = "cpu"`, then `device_map = "cuda"` on a branch); empty when some binding
  // is anything else (a parameter, a loop or `with` target, an unpacking, `global`, `+=`).
  const std::vector<TSNode>& plainBindings(std::string_view name) const;
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
    ir::DecoratorUse decoratorUse = ir::DecoratorUse::None; // a decorator's region, by summary
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
  // `with ExitStack() as stack:` open around the code being lowered. A context handed to
  // `stack.enter_context(...)` is exited when that with block ends, so it becomes one more
  // cleanup of the block; only at the block's own level (no loop, `with` or `try` opened in
  // between), where appending to cleanups_ keeps their nesting.
  struct ExitStackScope {
    std::string name;
    size_t cleanupsEnd = 0; // cleanups_.size() at the block's own level
    size_t loops = 0;       // loops_.size() there
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
  std::optional<bool> flagTest(TSNode condition) const;
  bool deadBranch(TSNode node, const std::vector<TSNode>& ancestors) const;
  // On the path where `condition` tested `taken`: Assume events for what that says about
  // names and attribute paths (`flag`, `self.training`, `not x`, `a and b`).
  void emitAssumptions(TSNode condition, bool taken);
  // Conditions tested by one `if` only correlate with nothing: their Assume events become Nop.
  void forgetUncorrelatedConditions();
  void lowerWhile(TSNode statement, int depth);
  void lowerFor(TSNode statement, int depth);
  void lowerWith(TSNode statement, int depth);
  void lowerDecoratorUses(TSNode statement);
  static bool mayWrapInRegion(std::string_view decorator, GradApi api);
  void lowerImport(TSNode statement);
  // `class C:` at module level or in a class body: its body runs here (ir::kClassBodySuffix).
  void lowerClassBodyRun(TSNode definition);
  void lowerTry(TSNode statement, int depth);
  void lowerMatch(TSNode statement, int depth);
  void lowerJumpCleanups(size_t toDepth);
  // Lowers the calls in an expression in evaluation order; `deps`, when given, collects the
  // names the expression reads (for Assign events).
  void lowerExpression(TSNode expression, Role role, std::string_view target = {},
                       std::vector<std::string>* deps = nullptr);
  void lowerCall(TSNode call, Role role, std::string_view target);
  // `stack.enter_context(torch.no_grad())` on an open ExitStack: enters the context until the
  // stack's with block ends. False when the call is not one.
  bool lowerEnterContext(TSNode call, TSNode function);
  // `loss.backward()`, `opt.step()`, `opt.zero_grad()`, `model.eval()`...: true when the call
  // was lowered as a training event.
  bool lowerTrainingCall(TSNode call, TSNode function, const std::string& callee);
  void emitAssign(TSNode at, std::string var, std::vector<std::string> deps, bool freshValue);
  bool isOptimizer(std::string_view receiver) const;
  // Whether a loading call (`from_pretrained`, `dispatch_model`, ...) offloads, by its
  // `device_map=` and `offload_folder=` arguments; a map held in a local is judged by every
  // value the unit binds it to.
  catalog::DeviceMapPlacement devicePlacement(TSNode call) const;
  // Whether the unit binds `name` at all (a parameter, an assignment, a loop target, ...).
  bool boundInUnit(std::string_view name) const;
  // The default value of the unit's parameter `name` (`device_map="auto"`), or null.
  TSNode parameterDefault(std::string_view name) const;
  // The `device_map=` value a call passes through `**kwargs` (a dict built in the unit), or null.
  TSNode splattedDeviceMap(TSNode call) const;
  // A loading call whose checkpoint (its first argument or `pretrained_model_name_or_path=`)
  // names, in every value it may hold, a model under 1B parameters (catalog's
  // namesSmallCheckpoint): an automatic map keeps it whole on the GPU.
  bool loadsSmallCheckpoint(TSNode call) const;
  // The strings `expression` may hold: a literal; a name bound in the unit, a parameter's
  // default, or a module constant; `self.X`/`cls.X` bound in the class. Empty when any value
  // is something else or unknown.
  std::vector<std::string_view> stringValues(TSNode expression) const;
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
  // A test of where models went: `"cpu" in model.hf_device_map.values()`,
  // `any(d in ("cpu", "disk") for d in m.hf_device_map.values())`, a name bound to such a test
  // (`offloaded = [...]`), or a loop variable over the map compared with "cpu"/"disk". `test`
  // says which outcome means "some layers are on cpu or disk".
  enum class MapTest : uint8_t { None, OffloadedWhenTrue, OnDeviceWhenTrue, Mixed };
  struct DeviceMapCheck {
    std::vector<std::string> objects;
    MapTest test = MapTest::None;
    bool onLoopVariable = false; // `for name, device in m.hf_device_map.items(): if device ...`
  };
  DeviceMapCheck deviceMapCheck(TSNode expression) const;
  // The models `check` covers are checked from here on (a placement reset of "may offload").
  void emitDeviceMapChecked(const DeviceMapCheck& check, TSNode at);
  // `offloaded = any(...)` binds a test for a later `if offloaded:`.
  void recordDeviceMapFlag(const std::string& target, TSNode value);
  // A block whose last statement is `continue` or `break`: it skips, it does not end the run.
  bool endsInLoopJump(TSNode block) const;
  // `sys.exit(...)`, `os._exit(...)`, the builtins `exit(...)` and `quit(...)`.
  bool isExitCall(TSNode expression) const;
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
  std::vector<ExitStackScope> exitStacks_;
  size_t comprehensionDepth_ = 0;
  // Blocks of `with pytest.raises(E):` and the like open around the code being lowered: what
  // they train or differentiate is expected to fail (a negative test), so it is not training.
  size_t expectedRaises_ = 0;
  // Per condition key: the first `if` (start byte) that tested it, and whether another did.
  std::unordered_map<std::string, std::pair<uint32_t, bool>> conditionTests_;
  std::unordered_map<std::string, NodeId> lastAssign_; // var -> its latest Assign, in source order
  NodeId lastStep_ = kNoNode; // the latest Step event, in source order
  // Object tracking for the offload rules, flow-insensitive within the unit:
  std::unordered_map<std::string, std::vector<std::string>>
      parameterSources_;                                        // params = X.parameters()
  std::unordered_map<std::string, std::string> loopParameters_; // for p in X.parameters()
  std::unordered_map<std::string, DeviceMapCheck> deviceMapFlags_; // offloaded = any(...)
  std::unordered_map<std::string, std::string> deviceMapEntries_;  // for k, d in m.hf_device_map...
  // Loops over a model's hf_device_map being lowered, innermost last: whether an entry on cpu
  // or disk ends the run (raise, return, exit) in the loop's body.
  struct MapLoop {
    std::string object;
    bool refuses = false;
  };
  std::vector<MapLoop> mapLoops_;
  struct Trainer {
    catalog::TrainerClass kind;
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
  // Top-level classes that derive from a library's trainer (`class MyTrainer(SFTTrainer)`),
  // directly or through another such class here: qualified name -> the library class.
  std::unordered_map<std::string, std::string> trainerBases;
  // The trainer class `qualifiedName` is or derives from here (style None: no trainer).
  catalog::TrainerClass trainerClass(const std::string& qualifiedName) const;
  // Module-level plain bindings of `name` (UnitLowerer::plainBindings of the module unit), for
  // a function that reads a module constant (`MODEL_ID = "gpt2"`).
  const std::vector<TSNode>& moduleBindings(std::string_view name);
  // The values `self.attribute` (or `cls.`) is bound to in class unit `classUnit`: `attribute =
  // v` in its body and `self.attribute = v` in its methods. Empty when one binding is not
  // such an assignment (`+=`, a method of that name).
  const std::vector<TSNode>& classAttributeBindings(int classUnit, std::string_view attribute);
  // moduleFlag(bytes, name), asked once per name: every module-level `if NAME:` asks.
  const std::optional<ModuleFlag>& flag(std::string_view name);
  // What lowering read outside the unit it lowered (module constants, class attributes): the
  // lowering memo keeps no definition whose lowering read such facts, which edits elsewhere
  // change.
  size_t outsideReads = 0;

private:
  ir::FunctionIR moduleScopeIR_; // what moduleScope_ would lower into: nothing is lowered
  std::unique_ptr<UnitLowerer> moduleScope_; // the module unit, asked for its bindings
  std::unordered_map<std::string, std::vector<TSNode>> classAttributes_;
  std::unordered_map<std::string, std::optional<ModuleFlag>> flags_;

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
  void findTrainerSubclasses();
  std::string qualify(int parent, std::string_view name) const;
  std::string definitionKey(TSNode statement, const std::vector<ByteRange>& parsed) const;
  std::vector<std::string> rebound(const LoweringMemo& memo) const;
  bool reusedContextHolds(const LoweringMemo& memo, const std::vector<Piece>& pieces) const;
  LoweringMemo::ClassFacts classFacts(int classUnit) const;
  void lowerUnit(const UnitSource& unit);
  // A class deriving `threading.Thread`: its `run` is the body of a thread of its own.
  bool derivesFromThread(int classUnit) const;
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

} // namespace gradlint::python::detail
