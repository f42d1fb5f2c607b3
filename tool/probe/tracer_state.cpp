// Per-thread grad-mode bookkeeping and leak detection. Grad mode is thread-local in LibTorch, so
// each thread has its own "who disabled it" record; a global registry (under a mutex) collects
// the toggle sites, leaks and backward() calls for the report written when the process exits.
//
// A leak: grad mode was disabled by a function (Python frame, or C++ frame identified by its
// canonical frame address) and that frame is gone - returned, yielded, or its thread ended -
// while grad mode is still disabled. It is noticed at the next toggle or backward() of the
// thread, or when the thread or process ends.
#include "tool/probe/tracer.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
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

struct Site {
  CodeLocation location;
  std::string caller; // the C++ caller of set_enabled: object!symbol
  std::string module; // C++ toggles: the object holding the caller, and its offset there,
  uintptr_t offset = 0; // so that `gradlint probe run` can name the line (addr2line)
  bool python = false;
  size_t disabled = 0;
  size_t restored = 0;
  size_t leaked = 0;
};

struct Leak {
  size_t site = 0;
  long thread = 0;
  bool mainThread = false;
  std::string how; // "returned", "thread-exit", "process-exit"
  std::optional<CodeLocation> noticedAt;
  std::optional<CodeLocation> backwardAt; // the first backward() that ran in that state
  std::optional<std::pair<std::string, uintptr_t>> cppBackwardAt; // C++: object and offset
  size_t backwardCount = 0;
};

struct BackwardEvent {
  long thread = 0;
  CodeLocation location;
  std::optional<size_t> leak; // index into leaks
};

struct Registry {
  std::mutex mutex;
  std::vector<Site> sites;
  std::map<std::tuple<std::string, int, std::string, std::string>, size_t> siteIndex;
  std::vector<Leak> leaks;
  std::vector<BackwardEvent> disabledBackwards; // backward() with grad disabled
  size_t backwardCalls = 0;
  size_t droppedEvents = 0;
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
    bool operator==(const PythonSiteKey&) const = default;
  };
  struct PythonSiteHash {
    size_t operator()(const PythonSiteKey& key) const {
      return std::hash<const void*>()(key.code) ^ (std::hash<int>()(key.line) * 31) ^
             (std::hash<uintptr_t>()(key.caller) * 131);
    }
  };
  std::unordered_map<PythonSiteKey, size_t, PythonSiteHash> pythonSites;
};

Registry& registry() {
  static auto* instance = new Registry; // never destroyed: threads may outlive static dtors
  return *instance;
}

long currentThreadId() { return static_cast<long>(syscall(SYS_gettid)); }

// The function that disabled grad mode and has not restored it yet.
struct Disabler {
  size_t site = 0;
  bool python = false;
  PyObjectPtr frame = nullptr; // Python: the frame, held so its identity stays unique
  uintptr_t cfa = 0;           // C++: the frame's canonical frame address and function start
  uintptr_t functionStart = 0;
  std::optional<size_t> leak; // set once the leak is recorded
};

struct ThreadState {
  long thread = currentThreadId();
  std::optional<Disabler> disabler;
  std::unordered_map<uintptr_t, TogglerKind> callerKinds;
  ~ThreadState();
};

void recordLeak(Registry& r, Disabler& disabler, long thread, const char* how,
                const std::optional<CodeLocation>& noticedAt) {
  if (disabler.leak) return;
  if (r.leaks.size() >= kMaxRecordedEvents) {
    ++r.droppedEvents;
    return;
  }
  Leak leak;
  leak.site = disabler.site;
  leak.thread = thread;
  leak.mainThread = thread == static_cast<long>(getpid());
  leak.how = how;
  leak.noticedAt = noticedAt;
  ++r.sites[disabler.site].leaked;
  disabler.leak = r.leaks.size();
  r.leaks.push_back(std::move(leak));
}

// The thread ends with grad mode disabled by a function that never restored it. Python objects
// are not touched here: the interpreter may already be gone.
ThreadState::~ThreadState() {
  if (!disabler) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const bool main = thread == static_cast<long>(getpid());
  recordLeak(r, *disabler, thread, main ? "process-exit" : "thread-exit", std::nullopt);
  disabler.reset();
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

size_t siteFor(Registry& r, const CodeLocation& location, void* caller, bool python) {
  const Registry::PythonSiteKey fastKey{location.code, location.line,
                                        reinterpret_cast<uintptr_t>(caller)};
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
      std::make_tuple(location.file, location.line, location.function, key), r.sites.size());
  if (inserted) {
    Site site;
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

void releaseDisabler(ThreadState& state) {
  // Without the GIL the frame reference is kept (a few bytes) rather than released unsafely.
  if (state.disabler && state.disabler->frame != nullptr && pythonThreadHoldsGil()) {
    releasePythonObject(state.disabler->frame);
  }
  state.disabler.reset();
}

void onDisable(ThreadState& state, TogglerKind kind, void* caller) {
  Disabler disabler;
  disabler.python = kind == TogglerKind::Python;
  CodeLocation location;
  if (disabler.python) {
    if (!pythonThreadHoldsGil()) return;
    installPythonBackwardHook();
    bool madeByTorch = false;
    disabler.frame = innermostUserFrame(location, &madeByTorch);
    if (disabler.frame == nullptr) return; // torch's own code (nn.init, optimizers, import)
  } else {
    const FrameId frame = callerFrame();
    disabler.cfa = frame.cfa;
    disabler.functionStart = frame.functionStart;
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  disabler.site = siteFor(r, location, caller, disabler.python);
  ++r.sites[disabler.site].disabled;
  state.disabler = std::move(disabler);
}

void onEnable(ThreadState& state, TogglerKind kind) {
  if (!state.disabler) return;
  std::optional<CodeLocation> here;
  if (kind == TogglerKind::Python && pythonThreadHoldsGil()) {
    CodeLocation location;
    bool madeByTorch = false;
    PyObjectPtr frame = innermostUserFrame(location, &madeByTorch);
    if (madeByTorch) return; // torch's own `enable_grad` region inside the user's: not a restore
    releasePythonObject(frame);
    if (frame != nullptr) here = location;
  }
  const bool live = disablerIsLive(*state.disabler);
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    if (live && !state.disabler->leak) {
      ++r.sites[state.disabler->site].restored;
    } else {
      recordLeak(r, *state.disabler, state.thread, "returned", here);
    }
  }
  releaseDisabler(state);
}

} // namespace

void onToggle(void* caller, bool before, bool after) {
  if (before == after) return;
  ThreadState& state = threadState();
  const TogglerKind kind = classifyCaller(state, caller);
  if (kind == TogglerKind::Internal) return;
  if (!after) {
    if (state.disabler) releaseDisabler(state); // disabled by code the tracer does not follow
    onDisable(state, kind, caller);
  } else {
    onEnable(state, kind);
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
  // business); one after that function is gone is.
  const bool leaked = state.disabler && !disablerIsLive(*state.disabler);
  std::optional<CodeLocation> here =
      pythonLocation ? std::optional<CodeLocation>(*pythonLocation) : currentPythonLocation();
  UserCallSearch cppCall;
  if (!here && leaked) _Unwind_Backtrace(findUserCall, &cppCall);
  std::lock_guard lock(r.mutex);
  ++r.backwardCalls;
  BackwardEvent event;
  event.thread = state.thread;
  if (here) event.location = *here;
  if (leaked) {
    recordLeak(r, *state.disabler, state.thread, "returned", here);
    if (state.disabler->leak) {
      Leak& leak = r.leaks[*state.disabler->leak];
      if (leak.backwardCount++ == 0) {
        leak.backwardAt = here;
        if (!cppCall.module.empty()) leak.cppBackwardAt.emplace(cppCall.module, cppCall.offset);
      }
      event.leak = state.disabler->leak;
    }
  }
  if (r.disabledBackwards.size() < kMaxRecordedEvents) {
    r.disabledBackwards.push_back(std::move(event));
  } else {
    ++r.droppedEvents;
  }
}

namespace {

nlohmann::json locationJson(const CodeLocation& location) {
  return {{"file", location.file}, {"line", location.line}, {"function", location.function}};
}

// Written at exit into $GRADLINT_PROBE_OUTPUT/probe-<pid>.json, which `gradlint probe run`
// reads. Nothing is written by a process that never toggled grad mode nor ran backward().
void writeReport() {
  const char* folder = std::getenv("GRADLINT_PROBE_OUTPUT");
  if (folder == nullptr || *folder == '\0') return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.sites.empty() && r.backwardCalls == 0) return;
  nlohmann::json sites = nlohmann::json::array();
  for (const Site& site : r.sites) {
    nlohmann::json entry = locationJson(site.location);
    entry["python"] = site.python;
    entry["caller"] = site.caller;
    entry["module"] = site.module;
    entry["offset"] = site.offset;
    entry["disabled"] = site.disabled;
    entry["restored"] = site.restored;
    entry["leaked"] = site.leaked;
    sites.push_back(std::move(entry));
  }
  nlohmann::json leaks = nlohmann::json::array();
  for (const Leak& leak : r.leaks) {
    nlohmann::json entry{{"site", leak.site},
                         {"thread", leak.thread},
                         {"main_thread", leak.mainThread},
                         {"how", leak.how},
                         {"backward_calls", leak.backwardCount}};
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
    entry["leak"] = event.leak ? nlohmann::json(*event.leak) : nlohmann::json(nullptr);
    backwards.push_back(std::move(entry));
  }
  const nlohmann::json report{{"pid", getpid()},
                              {"sites", sites},
                              {"leaks", leaks},
                              {"backward_with_grad_disabled", backwards},
                              {"backward_calls", r.backwardCalls},
                              {"dropped_events", r.droppedEvents}};
  std::ofstream out(std::string(folder) + "/probe-" + std::to_string(getpid()) + ".json");
  out << report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
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
  r.backwardCalls = 0;
  r.droppedEvents = 0;
}

void lockRegistry() { registry().mutex.lock(); }
void unlockRegistry() { registry().mutex.unlock(); }
void unlockAndClearInChild() {
  clearInChild();
  threadState().disabler.reset(); // its site index pointed into the parent's registry
  registry().mutex.unlock();
}

__attribute__((constructor)) void startTracer() {
  registry();
  std::atexit(writeReport);
  pthread_atfork(lockRegistry, unlockRegistry, unlockAndClearInChild);
}

} // namespace
} // namespace gradlint::probe
