// Per-thread grad-mode and inference-mode bookkeeping and leak detection. Both modes are
// thread-local in LibTorch, so each thread has its own "who engaged it" record per mode; a global
// registry (under a mutex) collects the toggle sites, leaks and backward() calls for the report
// written as events are recorded and again when the process exits.
//
// A leak: grad mode was disabled (or inference mode entered) by a function (Python frame, or C++
// frame identified by its canonical frame address) and that frame is gone - returned, yielded,
// or its thread ended - while the mode is still engaged. It is noticed at the next toggle or
// backward() of the thread, when a test ends (the pytest plugin), or when the thread or process
// ends.
//
// Contexts: the pytest plugin (gradlint_pytest.py) names the test or fixture that runs now
// through gradlint_probe_set_context; each toggle and backward() records it.
#include "tool/probe/tracer.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace gradlint::probe {
namespace {

constexpr size_t kMaxRecordedEvents = 1000; // leaks and backward calls kept for the report
constexpr size_t kMaxCallLines = 32;        // enclosing frames noted per Python toggle

const char* modeName(Mode mode) { return mode == Mode::Grad ? "grad" : "inference"; }

struct Site {
  Mode mode = Mode::Grad;
  CodeLocation location;
  std::string caller; // the C++ caller of set_enabled: object!symbol
  std::string module; // C++ toggles: the object holding the caller, and its offset there,
  uintptr_t offset = 0; // so that `gradlint probe run` can name the line (addr2line)
  bool python = false;
  size_t disabled = 0;
  size_t restored = 0;
  size_t leaked = 0;
  // Inference mode left by the user's own frame on the line that entered it, with no torch
  // frame between (`torch.inference_mode().__enter__()` whose dropped guard dies at once).
  size_t exitedInStatement = 0;
  // Autograd refusals of an inference tensor after this inference-mode block was the last one
  // its thread left (GL304's runtime evidence: made in the block, used after it).
  size_t refusals = 0;
  // Python: the same counts per call that led here (each enclosing frame's file and line), so
  // that a finding on a call into a helper that leaks is matched to the calls that ran.
  struct CallCounts {
    size_t disabled = 0;
    size_t leaked = 0;
  };
  std::map<CallLine, CallCounts> calls;
};

struct Leak {
  size_t site = 0;
  uint32_t context = 0;         // the test or fixture that ran when the mode was engaged
  uint32_t backwardContext = 0; // ... and when the first backward() ran in that state
  long thread = 0;
  bool mainThread = false;
  std::string how; // "returned", "thread-exit", "process-exit", "test-end"
  std::optional<CodeLocation> noticedAt;
  std::optional<CodeLocation> backwardAt; // the first backward() that ran in that state
  std::optional<std::pair<std::string, uintptr_t>> cppBackwardAt; // C++: object and offset
  size_t backwardCount = 0;
};

struct BackwardEvent {
  long thread = 0;
  uint32_t context = 0;
  CodeLocation location;
  std::optional<size_t> leak; // index into leaks
};

// A test that ended in another mode than the session started in (`--per-test`).
struct TestEnd {
  uint32_t context = 0;
  bool gradEnabled = true;
  bool inference = false;
  std::optional<size_t> leak[kModeCount];
  bool restored = false;
};

struct InferenceTensorError {
  long thread = 0;
  uint32_t context = 0;
  std::optional<size_t> lastInferenceSite;
  std::optional<CodeLocation> location;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::string> contexts{""}; // 0: no context
  std::unordered_map<std::string, uint32_t> contextIndex;
  std::atomic<uint32_t> currentContext{0}; // process-wide: a test's threads belong to it
  std::vector<TestEnd> testEnds;
  std::vector<InferenceTensorError> inferenceTensorErrors;
  std::map<std::string, std::string> virtualSources;
  // The session's starting mode (gradlint_probe_session_start) for --per-test.
  uint8_t sessionAutogradState = kDefaultAutogradState;
  uint64_t sessionDispatchKeySet[2] = {0, 0};
  std::vector<Site> sites;
  std::map<std::tuple<Mode, std::string, int, std::string, std::string>, size_t> siteIndex;
  std::vector<Leak> leaks;
  std::vector<BackwardEvent> disabledBackwards; // backward() with grad disabled
  size_t backwardCalls = 0;
  size_t droppedEvents = 0;
  // The report written while the process runs (snapshotIfDue): the events it held, and when.
  size_t eventsAtSnapshot = 0;
  std::chrono::steady_clock::time_point snapshotTime;
  // dladdr scans a library's symbol table: each call site is described once.
  struct CallerDescription {
    std::string name;
    std::string module;
    uintptr_t offset = 0;
  };
  std::unordered_map<uintptr_t, CallerDescription> callers;
  // Python sites by (code object, line, caller): no string compares on the hot path.
  struct PythonSiteKey {
    const void* code;
    int line;
    uintptr_t caller;
    Mode mode;
    bool operator==(const PythonSiteKey&) const = default;
  };
  struct PythonSiteHash {
    size_t operator()(const PythonSiteKey& key) const {
      return std::hash<const void*>()(key.code) ^ (std::hash<int>()(key.line) * 31) ^
             (std::hash<uintptr_t>()(key.caller) * 131) ^ static_cast<size_t>(key.mode);
    }
  };
  std::unordered_map<PythonSiteKey, size_t, PythonSiteHash> pythonSites;
};

Registry& registry() {
  static auto* instance = new Registry; // never destroyed: threads may outlive static dtors
  return *instance;
}

long currentThreadId() { return static_cast<long>(syscall(SYS_gettid)); }

// The function that engaged a mode and has not restored it yet.
struct Disabler {
  size_t site = 0;
  uint32_t context = 0;
  bool python = false;
  PyObjectPtr frame = nullptr; // Python: the frame, held so its identity stays unique
  uintptr_t cfa = 0;           // C++: the frame's canonical frame address and function start
  uintptr_t functionStart = 0;
  std::vector<CallLine> calls; // Python: the calls that led to the toggle, each line once
  std::optional<size_t> leak;  // set once the leak is recorded
};

struct ThreadState {
  long thread = currentThreadId();
  std::optional<Disabler> disablers[kModeCount];
  std::optional<size_t> lastExitedInferenceSite; // the inference-mode block left last
  std::unordered_map<uintptr_t, TogglerKind> callerKinds;
  ~ThreadState();
};

void snapshotIfDue(Registry& r);

void recordLeak(Registry& r, Disabler& disabler, long thread, const char* how,
                const std::optional<CodeLocation>& noticedAt) {
  if (disabler.leak) return;
  if (r.leaks.size() >= kMaxRecordedEvents) {
    ++r.droppedEvents;
    return;
  }
  Leak leak;
  leak.site = disabler.site;
  leak.context = disabler.context;
  leak.thread = thread;
  leak.mainThread = thread == static_cast<long>(getpid());
  leak.how = how;
  leak.noticedAt = noticedAt;
  Site& site = r.sites[disabler.site];
  ++site.leaked;
  for (const CallLine& call : disabler.calls) ++site.calls[call].leaked;
  disabler.leak = r.leaks.size();
  r.leaks.push_back(std::move(leak));
}

// The thread ends with grad mode disabled by a function that never restored it. Python objects
// are not touched here: the interpreter may already be gone.
ThreadState::~ThreadState() {
  Registry& r = registry();
  const bool main = thread == static_cast<long>(getpid());
  for (std::optional<Disabler>& disabler : disablers) {
    if (!disabler) continue;
    std::lock_guard lock(r.mutex);
    recordLeak(r, *disabler, thread, main ? "process-exit" : "thread-exit", std::nullopt);
    snapshotIfDue(r);
    disabler.reset();
  }
}

ThreadState& threadState() {
  thread_local ThreadState state;
  return state;
}

// --- C++ frames ----------------------------------------------------------------------------------

std::string baseName(const char* path);
bool isTorchLibrary(const std::string& name);

struct FrameId {
  uintptr_t cfa = 0;
  uintptr_t functionStart = 0;
};

struct UnwindSearch {
  int skip = 0;            // frames to skip (the tracer's own)
  FrameId found;           // first frame after the skipped ones
  const FrameId* target = nullptr;
  bool live = false;
};

_Unwind_Reason_Code findCallerFrame(_Unwind_Context* context, void* data) {
  auto* search = static_cast<UnwindSearch*>(data);
  const uintptr_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  const FrameId frame{_Unwind_GetCFA(context), _Unwind_GetRegionStart(context)};
  if (search->target != nullptr) {
    if (frame.cfa == search->target->cfa && frame.functionStart == search->target->functionStart) {
      search->live = true;
      return _URC_END_OF_STACK;
    }
    return _URC_NO_REASON;
  }
  if (frame.functionStart == search->found.functionStart && search->found.cfa != 0) {
    return _URC_NO_REASON;
  }
  // The first frame outside this library is the caller of set_enabled.
  Dl_info info{};
  static const void* self = [] {
    Dl_info own{};
    dladdr(reinterpret_cast<const void*>(&findCallerFrame), &own);
    return own.dli_fbase;
  }();
  if (dladdr(reinterpret_cast<void*>(ip), &info) != 0 && info.dli_fbase == self) {
    return _URC_NO_REASON;
  }
  search->found = frame;
  return _URC_END_OF_STACK;
}

// C++ backward(): the innermost frame outside LibTorch and the tracer (the user's call), as its
// object and offset there, for addr2line.
struct UserCallSearch {
  std::string module;
  uintptr_t offset = 0;
};

_Unwind_Reason_Code findUserCall(_Unwind_Context* context, void* data) {
  auto* search = static_cast<UserCallSearch*>(data);
  const uintptr_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(ip), &info) == 0 || info.dli_fname == nullptr) {
    return _URC_NO_REASON;
  }
  const std::string name = baseName(info.dli_fname);
  Dl_info own{};
  dladdr(reinterpret_cast<const void*>(&findUserCall), &own);
  if (info.dli_fbase == own.dli_fbase || isTorchLibrary(name)) return _URC_NO_REASON;
  search->module = info.dli_fname;
  search->offset = ip - reinterpret_cast<uintptr_t>(info.dli_fbase);
  return _URC_END_OF_STACK;
}

FrameId callerFrame() {
  UnwindSearch search;
  _Unwind_Backtrace(findCallerFrame, &search);
  return search.found;
}

bool cppFrameIsLive(uintptr_t cfa, uintptr_t functionStart) {
  const FrameId target{cfa, functionStart};
  UnwindSearch search;
  search.target = &target;
  _Unwind_Backtrace(findCallerFrame, &search);
  return search.live;
}

// --- Who called set_enabled ---------------------------------------------------------------------

std::string baseName(const char* path) {
  std::string name = path ? path : "";
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

bool isTorchLibrary(const std::string& name) {
  for (const char* prefix : {"libc10", "libtorch", "libcaffe2", "_C."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TogglerKind classifyCaller(ThreadState& state, void* caller) {
  const auto address = reinterpret_cast<uintptr_t>(caller);
  if (auto it = state.callerKinds.find(address); it != state.callerKinds.end()) return it->second;
  Dl_info info{};
  TogglerKind kind = TogglerKind::Cpp;
  if (dladdr(caller, &info) != 0) {
    const std::string object = baseName(info.dli_fname);
    if (object.rfind("libtorch_python", 0) == 0) kind = TogglerKind::Python;
    else if (isTorchLibrary(object)) kind = TogglerKind::Internal;
  }
  state.callerKinds.emplace(address, kind);
  return kind;
}

std::string describeCaller(void* caller, std::string& module, uintptr_t& offset) {
  Dl_info info{};
  if (dladdr(caller, &info) == 0) return "?";
  module = info.dli_fname ? info.dli_fname : "";
  offset = reinterpret_cast<uintptr_t>(caller) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  std::string symbol;
  if (info.dli_sname != nullptr) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status), &std::free);
    symbol = status == 0 && demangled ? demangled.get() : info.dli_sname;
  }
  return baseName(info.dli_fname) + (symbol.empty() ? "" : "!" + symbol);
}

size_t siteFor(Registry& r, Mode mode, const CodeLocation& location, void* caller, bool python) {
  const Registry::PythonSiteKey fastKey{location.code, location.line,
                                        reinterpret_cast<uintptr_t>(caller), mode};
  if (python && location.code != nullptr) {
    if (auto it = r.pythonSites.find(fastKey); it != r.pythonSites.end()) return it->second;
  }
  auto [known, added] = r.callers.try_emplace(reinterpret_cast<uintptr_t>(caller));
  if (added) {
    known->second.name = describeCaller(caller, known->second.module, known->second.offset);
  }
  const std::string& callerName = known->second.name;
  const std::string& module = known->second.module;
  const uintptr_t offset = known->second.offset;
  // Python sites are told apart by their source line, C++ ones by their call instruction.
  const std::string key = python ? callerName : module + "+" + std::to_string(offset);
  auto [it, inserted] = r.siteIndex.try_emplace(
      std::make_tuple(mode, location.file, location.line, location.function, key), r.sites.size());
  if (inserted) {
    Site site;
    site.mode = mode;
    site.location = location;
    site.caller = callerName;
    site.module = module;
    site.offset = offset;
    site.python = python;
    r.sites.push_back(std::move(site));
  }
  if (python && location.code != nullptr) r.pythonSites.emplace(fastKey, it->second);
  return it->second;
}

bool disablerIsLive(const Disabler& disabler) {
  if (disabler.python) return pythonThreadHoldsGil() && pythonFrameIsLive(disabler.frame);
  return cppFrameIsLive(disabler.cfa, disabler.functionStart);
}

// The user's location now (for "noticed at"), when there is a Python frame to name.
std::optional<CodeLocation> currentPythonLocation() {
  if (!pythonThreadHoldsGil()) return std::nullopt;
  CodeLocation location;
  PyObjectPtr frame = innermostUserFrame(location, nullptr);
  if (frame == nullptr) return std::nullopt;
  releasePythonObject(frame);
  return location;
}

void releaseDisabler(std::optional<Disabler>& disabler) {
  // Without the GIL the frame reference is kept (a few bytes) rather than released unsafely.
  if (disabler && disabler->frame != nullptr && pythonThreadHoldsGil()) {
    releasePythonObject(disabler->frame);
  }
  disabler.reset();
}

void onEngage(ThreadState& state, Mode mode, TogglerKind kind, void* caller) {
  Disabler disabler;
  disabler.python = kind == TogglerKind::Python;
  CodeLocation location;
  if (disabler.python) {
    if (!pythonThreadHoldsGil()) return;
    installPythonBackwardHook();
    bool madeByTorch = false;
    disabler.frame = innermostUserFrame(location, &madeByTorch);
    if (disabler.frame == nullptr) return; // torch's own code (nn.init, optimizers, import)
    disabler.calls = callLines(disabler.frame, kMaxCallLines);
    std::sort(disabler.calls.begin(), disabler.calls.end());
    disabler.calls.erase(std::unique(disabler.calls.begin(), disabler.calls.end()),
                         disabler.calls.end()); // recursion: each line counts once
  } else {
    const FrameId frame = callerFrame();
    disabler.cfa = frame.cfa;
    disabler.functionStart = frame.functionStart;
  }
  Registry& r = registry();
  disabler.context = r.currentContext.load(std::memory_order_relaxed);
  std::lock_guard lock(r.mutex);
  disabler.site = siteFor(r, mode, location, caller, disabler.python);
  Site& site = r.sites[disabler.site];
  ++site.disabled;
  for (const CallLine& call : disabler.calls) ++site.calls[call].disabled;
  state.disablers[static_cast<size_t>(mode)] = std::move(disabler);
}

void onRestore(ThreadState& state, Mode mode, TogglerKind kind) {
  std::optional<Disabler>& disabler = state.disablers[static_cast<size_t>(mode)];
  if (!disabler) return;
  std::optional<CodeLocation> here;
  bool sameFrameDirectly = false; // the engaging frame itself, with no torch frame between
  if (kind == TogglerKind::Python && pythonThreadHoldsGil()) {
    CodeLocation location;
    bool madeByTorch = false;
    bool passedTorchFrames = false;
    PyObjectPtr frame = innermostUserFrame(location, &madeByTorch, &passedTorchFrames);
    if (madeByTorch) return; // torch's own `enable_grad` region inside the user's: not a restore
    sameFrameDirectly = frame != nullptr && frame == disabler->frame && !passedTorchFrames;
    releasePythonObject(frame);
    if (frame != nullptr) here = location;
  }
  const bool live = disablerIsLive(*disabler);
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    Site& site = r.sites[disabler->site];
    if (mode == Mode::Inference) state.lastExitedInferenceSite = disabler->site;
    if (live && !disabler->leak) {
      ++site.restored;
      if (sameFrameDirectly && here && here->line == site.location.line) ++site.exitedInStatement;
    } else {
      recordLeak(r, *disabler, state.thread, "returned", here);
      snapshotIfDue(r);
    }
  }
  releaseDisabler(disabler);
}

} // namespace

void onToggle(Mode mode, void* caller, bool wasEngaged, bool isEngaged) {
  if (wasEngaged == isEngaged) return;
  ThreadState& state = threadState();
  const TogglerKind kind = classifyCaller(state, caller);
  if (kind == TogglerKind::Internal) return;
  if (isEngaged) {
    // Engaged again by code the tracer does not follow: the old record says nothing now.
    releaseDisabler(state.disablers[static_cast<size_t>(mode)]);
    onEngage(state, mode, kind, caller);
  } else {
    onRestore(state, mode, kind);
  }
}

void onBackward(bool gradEnabled, const CodeLocation* pythonLocation) {
  Registry& r = registry();
  if (gradEnabled) {
    std::lock_guard lock(r.mutex);
    ++r.backwardCalls;
    return;
  }
  ThreadState& state = threadState();
  // A backward() inside the disabling function's own no_grad region is not a leak (GL302's
  // business); one after that function is gone is. Grad mode comes first: inference mode
  // disables grad mode too, so a grad-mode leak inside it is the nearer cause.
  std::optional<Disabler>* leakedBy = nullptr;
  for (std::optional<Disabler>& disabler : state.disablers) {
    if (disabler && !disablerIsLive(*disabler)) {
      leakedBy = &disabler;
      break;
    }
  }
  std::optional<CodeLocation> here =
      pythonLocation ? std::optional<CodeLocation>(*pythonLocation) : currentPythonLocation();
  UserCallSearch cppCall;
  if (!here && leakedBy) _Unwind_Backtrace(findUserCall, &cppCall);
  const uint32_t context = r.currentContext.load(std::memory_order_relaxed);
  std::lock_guard lock(r.mutex);
  ++r.backwardCalls;
  BackwardEvent event;
  event.thread = state.thread;
  event.context = context;
  if (here) event.location = *here;
  if (leakedBy) {
    Disabler& disabler = **leakedBy;
    recordLeak(r, disabler, state.thread, "returned", here);
    if (disabler.leak) {
      Leak& leak = r.leaks[*disabler.leak];
      if (leak.backwardCount++ == 0) {
        leak.backwardAt = here;
        leak.backwardContext = context;
        if (!cppCall.module.empty()) leak.cppBackwardAt.emplace(cppCall.module, cppCall.offset);
      }
      event.leak = disabler.leak;
    }
  }
  if (r.disabledBackwards.size() < kMaxRecordedEvents) {
    r.disabledBackwards.push_back(std::move(event));
  } else {
    ++r.droppedEvents;
  }
  snapshotIfDue(r);
}

void onInferenceTensorError() {
  Registry& r = registry();
  ThreadState& state = threadState();
  InferenceTensorError error;
  error.thread = state.thread;
  error.lastInferenceSite = state.lastExitedInferenceSite;
  error.context = r.currentContext.load(std::memory_order_relaxed);
  error.location = currentPythonLocation(); // when the op kept the GIL
  std::lock_guard lock(r.mutex);
  if (error.lastInferenceSite) ++r.sites[*error.lastInferenceSite].refusals;
  if (r.inferenceTensorErrors.size() < kMaxRecordedEvents) {
    r.inferenceTensorErrors.push_back(std::move(error));
  } else {
    ++r.droppedEvents;
  }
  snapshotIfDue(r);
}

void noteVirtualSource(const std::string& file, const std::string& source) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.virtualSources.try_emplace(file, source);
}

namespace {

nlohmann::json locationJson(const CodeLocation& location) {
  return {{"file", location.file}, {"line", location.line}, {"function", location.function}};
}

// $GRADLINT_PROBE_OUTPUT/probe-<pid>.json, which `gradlint probe run` reads; the registry's lock
// is held. Nothing is written by a process that never toggled grad mode nor ran backward().
void writeReportLocked(const Registry& r) {
  const char* folder = std::getenv("GRADLINT_PROBE_OUTPUT");
  if (folder == nullptr || *folder == '\0') return;
  if (r.sites.empty() && r.backwardCalls == 0 && r.inferenceTensorErrors.empty()) return;
  nlohmann::json sites = nlohmann::json::array();
  for (const Site& site : r.sites) {
    nlohmann::json entry = locationJson(site.location);
    entry["mode"] = modeName(site.mode);
    entry["python"] = site.python;
    entry["caller"] = site.caller;
    entry["module"] = site.module;
    entry["offset"] = site.offset;
    entry["disabled"] = site.disabled;
    entry["restored"] = site.restored;
    entry["leaked"] = site.leaked;
    if (site.mode == Mode::Inference) {
      entry["exited_in_statement"] = site.exitedInStatement;
      entry["refusals"] = site.refusals;
    }
    if (!site.calls.empty()) {
      nlohmann::json calls = nlohmann::json::array();
      for (const auto& [call, counts] : site.calls) {
        calls.push_back({{"file", *call.file},
                         {"line", call.line},
                         {"disabled", counts.disabled},
                         {"leaked", counts.leaked}});
      }
      entry["calls"] = std::move(calls);
    }
    sites.push_back(std::move(entry));
  }
  nlohmann::json leaks = nlohmann::json::array();
  for (const Leak& leak : r.leaks) {
    nlohmann::json entry{{"site", leak.site},
                         {"thread", leak.thread},
                         {"main_thread", leak.mainThread},
                         {"how", leak.how},
                         {"mode", modeName(r.sites[leak.site].mode)},
                         {"context", leak.context},
                         {"backward_calls", leak.backwardCount}};
    if (leak.backwardCount > 0) entry["backward_context"] = leak.backwardContext;
    if (leak.noticedAt) entry["noticed_at"] = locationJson(*leak.noticedAt);
    if (leak.backwardAt) entry["backward_at"] = locationJson(*leak.backwardAt);
    if (leak.cppBackwardAt) {
      entry["backward_at"] = {{"module", leak.cppBackwardAt->first},
                              {"offset", leak.cppBackwardAt->second}};
    }
    leaks.push_back(std::move(entry));
  }
  nlohmann::json backwards = nlohmann::json::array();
  for (const BackwardEvent& event : r.disabledBackwards) {
    nlohmann::json entry = locationJson(event.location);
    entry["thread"] = event.thread;
    entry["context"] = event.context;
    entry["leak"] = event.leak ? nlohmann::json(*event.leak) : nlohmann::json(nullptr);
    backwards.push_back(std::move(entry));
  }
  nlohmann::json testEnds = nlohmann::json::array();
  for (const TestEnd& end : r.testEnds) {
    nlohmann::json entry{{"context", end.context},
                         {"grad_enabled", end.gradEnabled},
                         {"inference_mode", end.inference},
                         {"restored", end.restored}};
    for (size_t mode = 0; mode < kModeCount; ++mode) {
      if (end.leak[mode]) entry[std::string(modeName(static_cast<Mode>(mode))) + "_leak"] =
          *end.leak[mode];
    }
    testEnds.push_back(std::move(entry));
  }
  nlohmann::json inferenceErrors = nlohmann::json::array();
  for (const InferenceTensorError& error : r.inferenceTensorErrors) {
    nlohmann::json entry{{"thread", error.thread}, {"context", error.context}};
    if (error.lastInferenceSite) entry["last_inference_site"] = *error.lastInferenceSite;
    if (error.location) entry["location"] = locationJson(*error.location);
    inferenceErrors.push_back(std::move(entry));
  }
  const nlohmann::json report{{"pid", getpid()},
                              {"contexts", r.contexts},
                              {"sites", sites},
                              {"leaks", leaks},
                              {"backward_with_grad_disabled", backwards},
                              {"test_ends", testEnds},
                              {"inference_tensor_errors", inferenceErrors},
                              {"sources", r.virtualSources},
                              {"xdist_worker", std::getenv("PYTEST_XDIST_WORKER") != nullptr
                                                   ? std::getenv("PYTEST_XDIST_WORKER")
                                                   : ""},
                              {"backward_calls", r.backwardCalls},
                              {"dropped_events", r.droppedEvents}};
  // Written whole under another name, then renamed: the reader never sees half a report, and a
  // later report of the process replaces an earlier one.
  const std::string path = std::string(folder) + "/probe-" + std::to_string(getpid()) + ".json";
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out.flush()) return;
  }
  std::rename(partial.c_str(), path.c_str());
}

void writeReport() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  writeReportLocked(r);
}

// Exit handlers do not run when a process ends by os._exit (multiprocessing's workers do), by a
// signal, or by a kill after a shutdown timeout (a notebook kernel's): the report is also
// written while the process runs, when a recorded event doubles the count of the last report's
// or comes a second or more after it. The lock is held.
void snapshotIfDue(Registry& r) {
  const size_t events = r.leaks.size() + r.disabledBackwards.size() + r.testEnds.size() +
                        r.inferenceTensorErrors.size() + r.droppedEvents;
  if (events <= r.eventsAtSnapshot) return;
  const auto now = std::chrono::steady_clock::now();
  if (events < 2 * r.eventsAtSnapshot && now - r.snapshotTime < std::chrono::seconds(1)) return;
  r.eventsAtSnapshot = events;
  r.snapshotTime = now;
  writeReportLocked(r);
}

// A forked child reports only what it does itself.
void clearInChild() {
  Registry& r = registry();
  r.callers.clear();
  r.pythonSites.clear();
  r.sites.clear();
  r.siteIndex.clear();
  r.leaks.clear();
  r.disabledBackwards.clear();
  r.testEnds.clear();
  r.inferenceTensorErrors.clear();
  r.backwardCalls = 0;
  r.droppedEvents = 0;
}

void lockRegistry() { registry().mutex.lock(); }
void unlockRegistry() { registry().mutex.unlock(); }
void unlockAndClearInChild() {
  clearInChild();
  for (std::optional<Disabler>& disabler : threadState().disablers) {
    disabler.reset(); // its site index pointed into the parent's registry
  }
  threadState().lastExitedInferenceSite.reset();
  threadState().thread = currentThreadId(); // the child's main thread, not the forking one
  registry().mutex.unlock();
}

__attribute__((constructor)) void startTracer() {
  registry();
  std::atexit(writeReport);
  pthread_atfork(lockRegistry, unlockRegistry, unlockAndClearInChild);
}

uint32_t contextFor(Registry& r, const std::string& label) {
  auto [it, added] = r.contextIndex.try_emplace(label, static_cast<uint32_t>(r.contexts.size()));
  if (added) r.contexts.push_back(label);
  return it->second;
}

// A test ended (`--per-test`): when its mode is not the session's, the test is recorded as having
// changed it, the records of the functions that engaged the modes become leaks, and with
// `restore` the session's mode (and inference mode's dispatch keys) is set back.
int testEnded(const char* label, bool restore) {
  Registry& r = registry();
  uint8_t now = 0;
  if (!realAutogradState(now)) return 0; // torch never loaded: nothing can have changed
  uint8_t start = 0;
  uint64_t startKeys[2] = {0, 0};
  {
    std::lock_guard lock(r.mutex);
    start = r.sessionAutogradState;
    std::memcpy(startKeys, r.sessionDispatchKeySet, sizeof startKeys);
  }
  const uint8_t watched = kGradModeBit | kInferenceModeBit;
  if ((now & watched) == (start & watched)) return 0;
  ThreadState& state = threadState();
  TestEnd end;
  end.gradEnabled = (now & kGradModeBit) != 0;
  end.inference = (now & kInferenceModeBit) != 0;
  end.restored = restore;
  {
    std::lock_guard lock(r.mutex);
    end.context = contextFor(r, label ? label : "");
    for (size_t mode = 0; mode < kModeCount; ++mode) {
      std::optional<Disabler>& disabler = state.disablers[mode];
      if (!disabler) continue;
      recordLeak(r, *disabler, state.thread, "test-end", std::nullopt);
      end.leak[mode] = disabler->leak;
    }
    if (r.testEnds.size() < kMaxRecordedEvents) r.testEnds.push_back(end);
    else ++r.droppedEvents;
    snapshotIfDue(r);
  }
  if (restore) {
    for (std::optional<Disabler>& disabler : state.disablers) releaseDisabler(disabler);
    if ((now & kInferenceModeBit) != (start & kInferenceModeBit)) {
      realSetAutogradState(start);
      if (void* keys = localDispatchKeySet()) std::memcpy(keys, startKeys, sizeof startKeys);
    } else {
      realSetGradEnabled((start & kGradModeBit) != 0);
    }
  }
  return 1;
}

} // namespace
} // namespace gradlint::probe

// The pytest plugin's entry points (ctypes.PyDLL: called with the GIL held).
using namespace gradlint::probe;

extern "C" __attribute__((visibility("default"))) void gradlint_probe_set_context(
    const char* label) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.currentContext.store(contextFor(r, label ? label : ""), std::memory_order_relaxed);
}

// The mode at the start of the session, which --per-test gives back to each test. Before torch
// is loaded it is LibTorch's default (grad on, inference off, the default dispatch keys).
extern "C" __attribute__((visibility("default"))) void gradlint_probe_session_start() {
  Registry& r = registry();
  uint8_t state = kDefaultAutogradState;
  uint64_t keys[2] = {0, 0};
  if (realAutogradState(state)) {
    if (void* current = localDispatchKeySet()) std::memcpy(keys, current, sizeof keys);
  }
  std::lock_guard lock(r.mutex);
  r.sessionAutogradState = state;
  std::memcpy(r.sessionDispatchKeySet, keys, sizeof keys);
}

extern "C" __attribute__((visibility("default"))) int gradlint_probe_test_ended(const char* label,
                                                                               int restore) {
  return testEnded(label, restore != 0);
}
