// The Grad IR: a small, language-neutral control-flow graph per function whose nodes are the
// events that matter for gradient state. Both frontends lower to it; every rule reads it.
#pragma once

#include "checkers/ir/interned_string.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gradlint::ir {

// A half-open byte range with 0-based lines and 0-based columns counted in characters (code
// points), as users and ruff count them. The LSP server derives UTF-16 columns from the bytes.
struct SourceRange {
  uint32_t startByte = 0;
  uint32_t endByte = 0;
  uint32_t startLine = 0;
  uint32_t startColumn = 0;
  uint32_t endLine = 0;
  uint32_t endColumn = 0;
};

enum class GradValue : uint8_t { Enabled, Disabled, Unknown };

enum class GuardKind : uint8_t { NoGrad, EnableGrad, InferenceMode, SetGradEnabled, Other };

// How a decorator is applied: `@f` hands the function to `f`; `@f(...)` hands it to what the
// call returns (a decorator factory's product).
enum class DecoratorUse : uint8_t { None, Bare, Called };

// The region a decorator runs the function it decorates in (`torch.no_grad()(fn)`, a wrapper
// that calls `fn` inside `with torch.inference_mode():`): `use` says how it must be applied
// for that (None: it is no such decorator).
struct DecoratorRegion {
  DecoratorUse use = DecoratorUse::None;
  GuardKind guard = GuardKind::Other;
  GradValue mode = GradValue::Unknown; // the guard's mode argument (`inference_mode(False)`)
  bool operator==(const DecoratorRegion&) const = default;
};

// Whether entering a guard turns grad off, given its mode argument (Unknown when none).
constexpr bool guardDisablesGrad(GuardKind guard, GradValue mode) {
  switch (guard) {
  case GuardKind::NoGrad: return true;
  // inference_mode(True) (the default) turns inference mode on; inference_mode(False) is off.
  case GuardKind::InferenceMode: return mode != GradValue::Disabled;
  case GuardKind::SetGradEnabled: return mode == GradValue::Disabled;
  default: return false;
  }
}

// Offload/ResetPlacement: which hooks an offload attaches or a reset takes off.
enum class PlacementScope : uint8_t {
  Hooks,     // Offload: offload hooks (`enable_model_cpu_offload()`); reset: every hook
  DeviceMap, // Offload: a device_map load; reset: only a device_map load's (`reset_device_map()`)
  Checked,   // reset: the code checks `hf_device_map` for cpu/disk: ends only "may offload"
};

enum class EventKind : uint8_t {
  Entry,        // function entry
  Nop,          // join point, carries no event
  SetGrad,      // a global toggle: value says to what
  SaveGrad,     // var <- current grad mode (torch.is_grad_enabled())
  RestoreGrad,  // grad mode <- var saved earlier
  RestoreArg,   // grad mode <- a value the caller passed in (argIndex)
  EnterGuard,   // with-block / decorator / RAII guard: restores on exit
  ExitGuard,
  Call,         // any other call; may raise
  Return,
  FallThrough,  // the implicit return at the end of a body
  Raise,
  Yield,
  Await,
  NormalExit,      // the single normal exit of the graph
  ExceptionalExit, // the single exceptional exit of the graph
  // Training events (var: the object or value they act on).
  Backward, // var.backward(), scaler.scale(var).backward(), accelerator.backward(var)
  Step,     // optimizer step: var.step(), scaler.step(var)
  ZeroGrad, // var.zero_grad(), var.grad = None, var.grad.zero_()
  Train,    // var is trained: .train(), .requires_grad_(), optimizer over its parameters, ...
  Eval,     // var.eval() / var.train(False)
  Assign,   // var <- deps: a definition, for value-flow rules
  // Placement: `var` gets offload hooks (weights moved between devices around each forward),
  // or has them removed.
  Offload,
  ResetPlacement,
  MoveTo, // var.to(device): moves the weights but leaves offload hooks in place
  // var holds the objects in `components` (a pipeline built or loaded around models, a trainer
  // given a model, a dict of models): offloading var offloads them, training var trains them.
  Compose,
  // C++: `T name();` at block scope declares a function (the most vexing parse), so no object
  // is made. callee: the declared return type (qualified), var: the name, spelled: T as written.
  LocalFunctionDecl,
  // A branch was taken: the condition `var` (a name or attribute path as written, unchanged
  // until it is assigned again) tested true (value Enabled) or false (value Disabled).
  Assume,
};

std::string_view toString(EventKind kind);
std::string_view toString(GradValue value);
std::string_view toString(GuardKind kind);

// How the grad-mode API was spelled, for rules that care about more than the effect.
enum class ApiFlavor : uint8_t { Public, Private, ContextEnteredByHand };

// Room for a value allocated only once something is stored in it: most events never hold one
// (a run keeps every lowered node until its rules are done). Reading an empty one sees T{}.
template <class T>
class AllocatedOnWrite {
public:
  AllocatedOnWrite() = default;
  AllocatedOnWrite(const AllocatedOnWrite& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  AllocatedOnWrite(AllocatedOnWrite&&) noexcept = default;
  AllocatedOnWrite& operator=(const AllocatedOnWrite& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  AllocatedOnWrite& operator=(AllocatedOnWrite&&) noexcept = default;

  const T& read() const {
    static const T kEmpty{};
    return value_ ? *value_ : kEmpty;
  }
  T& write() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }

private:
  std::unique_ptr<T> value_;
};

// A call's arguments, as far as rules look at them.
struct CallArguments {
  std::vector<InternedString> argVars; // arguments that are plain names ("" otherwise)
  std::vector<int8_t> argBools;        // 1/0 for literal True/False arguments, -1 otherwise
  std::vector<std::pair<InternedString, InternedString>> keywordVars; // name=variable arguments
  // Every keyword argument's name with 1/0 for a literal True/False value, -1 otherwise.
  std::vector<std::pair<InternedString, int8_t>> keywordBools;
  bool argsSplat = false; // a `*args` or `**kwargs` argument (omitted ones are unknown)

  bool empty() const {
    return argVars.empty() && argBools.empty() && keywordVars.empty() && keywordBools.empty() &&
           !argsSplat;
  }
};

// Where an assigned (Assign) or composed (Compose) value comes from.
struct ValueSources {
  std::vector<InternedString> deps;       // Assign: names the value was computed from
  std::vector<InternedString> components; // Compose: the objects var now holds
  InternedString aliasOf;  // Assign: `unet = pipe.unet` -> "pipe.unet"
  InternedString viewOf;   // Assign: `y = x.detach()` -> "x" (a view of the same data)
  bool freshValue = false; // Assign: the value is a copy (`x.clone()`), not a view
};

struct Event {
  EventKind kind = EventKind::Nop;
  GradValue value = GradValue::Unknown; // SetGrad
  GuardKind guard = GuardKind::Other;   // EnterGuard/ExitGuard
  ApiFlavor flavor = ApiFlavor::Public; // SetGrad
  bool mayRaise = false;
  bool resultDiscarded = false; // Call used as a bare statement
  bool importsModule = false;   // Call: an import statement, running module `callee`'s top level
  bool guardNotCalled = false;  // EnterGuard: `with torch.no_grad:` (the class, not an instance)
  bool guardTemporary = false;  // EnterGuard (C++): an unnamed temporary `T();`, destroyed (and
                                // so exited) at the end of its statement
  // Train/Eval: the module's mode switch (`.train()`, `.eval()`, `.train(False)`), as opposed to
  // making it trainable (`requires_grad_()`, an optimizer over its parameters).
  bool moduleMode = false;
  // EnterGuard/ExitGuard (guard Other) of a decorator `callee` that is no grad-mode API: the
  // region its summary says it wraps the function in, if it is applied as that summary says.
  DecoratorUse decoratorUse = DecoratorUse::None;
  bool mayOffload = false;      // Offload: only possibly (device_map="auto", a variable)
  PlacementScope placement = PlacementScope::Hooks; // Offload/ResetPlacement
  // Where the event sits: loop nesting, and the innermost lexical grad-mode region (with-block
  // or function decorator) with the node that entered it (kNoNode for a decorator).
  GuardKind region = GuardKind::Other;
  bool regionDisablesGrad = false;
  uint16_t loopDepth = 0;
  uint32_t regionEnter = UINT32_MAX;
  int32_t argIndex = -1; // RestoreArg: which parameter
  SourceRange range;
  InternedString callee;  // Call/SetGrad/EnterGuard: resolved qualified name (or spelled name)
                          // Assign/Return: the function called for the value (`m = load()`)
  InternedString var;     // SaveGrad/RestoreGrad: variable; Call: assignment target; Return: value
  InternedString spelled; // Call: the callee as written (`self.model`, `opt.step`)

  const CallArguments& call() const { return call_.read(); }
  CallArguments& writeCall() { return call_.write(); }
  const ValueSources& sources() const { return sources_.read(); }
  ValueSources& writeSources() { return sources_.write(); }

private:
  AllocatedOnWrite<CallArguments> call_;
  AllocatedOnWrite<ValueSources> sources_;
};

// A class body runs where its `class` statement is (at import, for a module-level class): the
// enclosing unit calls it, as `CLASS.<class body>`, whose summary is the body's (ClassBody).
inline constexpr std::string_view kClassBodySuffix = ".<class body>";
inline bool runsClassBody(const Event& event) {
  return event.kind == EventKind::Call && event.callee.ends_with(kClassBodySuffix);
}

// The save slot of a with-item (or a context object made by the call) starting at `startByte`:
// its EnterGuard and ExitGuard, and a decorator use's `__call__`, name the same one.
std::string contextSlot(uint32_t startByte);

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// A node's normal successors: nearly always one or two, kept in the node; more go to the heap.
class Successors {
public:
  Successors() = default;
  Successors(const Successors& other) { *this = other; }
  Successors& operator=(const Successors& other) {
    if (this == &other) return *this;
    clear();
    for (NodeId id : other) push_back(id);
    return *this;
  }
  Successors(Successors&& other) noexcept { *this = std::move(other); }
  Successors& operator=(Successors&& other) noexcept {
    if (this == &other) return *this;
    clear();
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, kInline);
    if (capacity_ > kInline) {
      heap_ = std::exchange(other.heap_, nullptr);
    } else {
      std::copy_n(other.inline_, size_, inline_);
    }
    return *this;
  }
  ~Successors() { clear(); }

  void push_back(NodeId id) {
    if (size_ == capacity_) grow();
    data()[size_++] = id;
  }
  void clear() {
    if (capacity_ > kInline) delete[] heap_;
    size_ = 0;
    capacity_ = kInline;
  }
  const NodeId* begin() const { return data(); }
  const NodeId* end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  NodeId operator[](size_t i) const { return data()[i]; }

private:
  static constexpr uint32_t kInline = 2;
  NodeId* data() { return capacity_ > kInline ? heap_ : inline_; }
  const NodeId* data() const { return capacity_ > kInline ? heap_ : inline_; }
  void grow() {
    auto* grown = new NodeId[capacity_ * 2];
    std::copy_n(data(), size_, grown);
    if (capacity_ > kInline) delete[] heap_;
    heap_ = grown;
    capacity_ *= 2;
  }

  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  union {
    NodeId inline_[kInline] = {};
    NodeId* heap_;
  };
};

struct Node {
  Event event;
  Successors succs; // normal successors
  NodeId exceptionSucc = kNoNode; // where an exception raised by this event goes
};

enum class UnitKind : uint8_t { Function, Lambda, Module, ScriptMain, ClassBody };

// One analysable unit: a function, lambda, class body or module top level.
struct FunctionIR {
  UnitKind kind = UnitKind::Function;
  std::string name;          // as written: `load`, `<module>`, `<lambda>`
  std::string qualifiedName; // `pkg.mod.Class.load`; empty when not addressable from callers
  std::string className;     // enclosing class for methods
  SourceRange range;         // the whole definition
  SourceRange nameRange;     // where to point when naming the function
  std::vector<std::string> params;
  // Per parameter: 1/0 for a literal True/False default value, -1 otherwise (C++: empty).
  std::vector<int8_t> paramDefaults;
  // How many leading parameters positional arguments can fill (those after `*` or `*args` take
  // keywords only); -1: all of them.
  int32_t positionalParams = -1;
  std::vector<std::string> decorators; // resolved qualified names
  // Used as a decorator, the region this function runs the decorated function in (Python).
  DecoratorRegion decoratorRegion;
  bool isGenerator = false;
  bool isAsync = false;
  // The enter half of a guard whose exit half restores grad mode: a C++ constructor of a class
  // whose destructor restores it (like Python's `__enter__`). Its toggles are not leaks.
  bool enterHalf = false;
  std::vector<Node> nodes;
  NodeId entry = kNoNode;
  NodeId normalExit = kNoNode;
  NodeId exceptionalExit = kNoNode;

  bool hasDecorator(std::string_view qualified) const;
  bool isPrivate() const { return !name.empty() && name[0] == '_' && !isDunder(); }
  bool isDunder() const {
    return name.size() > 4 && name.starts_with("__") && name.ends_with("__");
  }
};

enum class Language : uint8_t { Python, Cpp };

// Everything one source file lowers to.
struct ModuleIR {
  Language language = Language::Python; // messages and help text depend on it
  std::string path;
  std::string moduleName; // dotted, from the package layout; empty for a loose script
  bool inPackage = false; // its folder has __init__.py
  // The top level is an interactive session (a notebook's kernel running its cells in order):
  // grad mode it leaves disabled is still disabled for every later statement of it.
  bool topLevelIsSession = false;
  std::vector<FunctionIR> units;
  // Names the module binds by importing them (`from .checker import Checker` in pkg/__init__.py:
  // Checker -> pkg.checker.Checker): a caller's `pkg.Checker` is that definition.
  std::vector<std::pair<std::string, std::string>> reexports;
  // Code the user does not own: the installed distribution it comes from ("name version"),
  // named in the related locations of findings its summaries cause. Empty for project code.
  std::string origin;
};

} // namespace gradlint::ir
