// The interposed LibTorch entry points. LD_PRELOAD puts these definitions first in every
// object's lookup scope, so calls through the PLT (libtorch_python -> libc10, libtorch_cpu ->
// libc10, a user's program -> libc10) reach them; each forwards to the real function.
#include "tool/probe/tracer.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

namespace gradlint::probe {
namespace {

constexpr const char* kSetEnabled = "_ZN3c108GradMode11set_enabledEb";
constexpr const char* kIsEnabled = "_ZN3c108GradMode10is_enabledEv";
constexpr const char* kGetTlsState = "_ZN3c1013AutogradState13get_tls_stateEv";
constexpr const char* kSetTlsState = "_ZN3c1013AutogradState13set_tls_stateES0_";
constexpr const char* kLocalDispatchKeySet = "_ZN3c104impl26raw_local_dispatch_key_setE";
// c10::Error's type name, and the message of the check that refuses inference tensors.
constexpr const char* kC10ErrorType = "N3c105ErrorE";
constexpr const char* kInferenceTensorMessage = "Inference tensors cannot be saved for backward";
constexpr const char* kBackward =
    "_ZN5torch8autograd8backwardERKSt6vectorIN2at6TensorESaIS3_EES7_N3c108optionalIbEEbS7_";

// Finds the path of a loaded object whose file name starts with `prefix` ("libc10.so").
struct FindLoaded {
  const char* prefix;
  std::string path;
};

int findLoadedObject(dl_phdr_info* info, size_t, void* data) {
  auto* find = static_cast<FindLoaded*>(data);
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  if (std::strncmp(base, find->prefix, std::strlen(find->prefix)) != 0) return 0;
  find->path = name;
  return 1;
}

// The real definition of `symbol` in the already loaded `library`. RTLD_NEXT finds it when the
// library is in the global scope (a C++ program linked to it); Python loads torch's libraries
// RTLD_LOCAL, so there the library is opened again, without loading it, by name or by path.
void* resolveReal(const char* symbol, const char* library) {
  if (void* next = dlsym(RTLD_NEXT, symbol)) return next;
  void* handle = dlopen(library, RTLD_NOLOAD | RTLD_LAZY);
  if (handle == nullptr) {
    FindLoaded find{library, {}};
    dl_iterate_phdr(findLoadedObject, &find);
    if (!find.path.empty()) handle = dlopen(find.path.c_str(), RTLD_NOLOAD | RTLD_LAZY);
  }
  if (handle == nullptr) return nullptr;
  void* real = dlsym(handle, symbol);
  dlclose(handle); // NOLOAD took a reference; the library stays loaded
  return real;
}

template <typename Function>
Function resolveOnce(std::atomic<Function>& cache, const char* symbol, const char* library) {
  Function real = cache.load(std::memory_order_acquire);
  if (real == nullptr) {
    real = reinterpret_cast<Function>(resolveReal(symbol, library));
    cache.store(real, std::memory_order_release);
  }
  return real;
}

using SetEnabledFn = void (*)(bool);
using IsEnabledFn = bool (*)();
// c10::AutogradState is one byte of bitfields, passed by value like an integer.
using GetTlsStateFn = const uint8_t* (*)();
using SetTlsStateFn = void (*)(uint8_t);
using CxaThrowFn = void (*)(void*, std::type_info*, void (*)(void*));
// torch::autograd::backward(const std::vector<Tensor>&, const std::vector<Tensor>&,
// c10::optional<bool>, bool, const std::vector<Tensor>&): each argument is one integer-class
// eightbyte in the x86-64 and AArch64 calling conventions, so they are forwarded as words.
using BackwardFn = void (*)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

std::atomic<SetEnabledFn> realSetEnabled{nullptr};
std::atomic<IsEnabledFn> realIsEnabled{nullptr};
std::atomic<BackwardFn> realBackward{nullptr};
std::atomic<GetTlsStateFn> realGetTlsState{nullptr};
std::atomic<SetTlsStateFn> realSetTlsState{nullptr};
std::atomic<CxaThrowFn> realCxaThrow{nullptr};

// A toggle made while the tracer itself runs (it never should) is forwarded untraced.
thread_local bool insideTracer = false;

} // namespace

bool realGradModeIsEnabled() {
  IsEnabledFn isEnabled = resolveOnce(realIsEnabled, kIsEnabled, "libc10.so");
  return isEnabled == nullptr || isEnabled();
}

void realSetGradEnabled(bool enabled) {
  if (SetEnabledFn real = resolveOnce(realSetEnabled, kSetEnabled, "libc10.so")) real(enabled);
}

bool realAutogradState(uint8_t& state) {
  GetTlsStateFn get = resolveOnce(realGetTlsState, kGetTlsState, "libc10.so");
  if (get == nullptr) return false;
  state = *get() & (kGradModeBit | kInferenceModeBit | 4);
  return true;
}

void realSetAutogradState(uint8_t state) {
  if (SetTlsStateFn real = resolveOnce(realSetTlsState, kSetTlsState, "libc10.so")) real(state);
}

void* localDispatchKeySet() {
  // A thread_local variable: dlsym gives this thread's copy, so it is not cached.
  return resolveReal(kLocalDispatchKeySet, "libc10.so");
}

} // namespace gradlint::probe

using namespace gradlint::probe;

// c10::GradMode::set_enabled(bool)
extern "C" __attribute__((visibility("default"))) void
gradlintProbeSetEnabled(bool enabled) __asm__("_ZN3c108GradMode11set_enabledEb");
extern "C" void gradlintProbeSetEnabled(bool enabled) {
  void* caller = __builtin_return_address(0);
  SetEnabledFn real = resolveOnce(realSetEnabled, kSetEnabled, "libc10.so");
  if (real == nullptr) return; // no LibTorch loaded: nobody could have called this
  if (insideTracer) {
    real(enabled);
    return;
  }
  const bool before = realGradModeIsEnabled();
  real(enabled);
  insideTracer = true;
  onToggle(Mode::Grad, caller, !before, !enabled);
  insideTracer = false;
}

// c10::AutogradState::set_tls_state(AutogradState): how c10::InferenceMode's constructor and
// destructor (inlined into libtorch_python or the user's program) switch inference mode.
// LibTorch's ThreadLocalStateGuard calls it too, mostly with the state unchanged: that path
// costs two loads and a compare.
extern "C" __attribute__((visibility("default"))) void
gradlintProbeSetTlsState(uint8_t state) __asm__("_ZN3c1013AutogradState13set_tls_stateES0_");
extern "C" void gradlintProbeSetTlsState(uint8_t state) {
  void* caller = __builtin_return_address(0);
  SetTlsStateFn real = resolveOnce(realSetTlsState, kSetTlsState, "libc10.so");
  if (real == nullptr) return;
  uint8_t before = 0;
  if (insideTracer || !realAutogradState(before)) {
    real(state);
    return;
  }
  real(state);
  const bool wasInference = (before & kInferenceModeBit) != 0;
  const bool isInference = (state & kInferenceModeBit) != 0;
  if (wasInference == isInference) return;
  insideTracer = true;
  onToggle(Mode::Inference, caller, wasInference, isInference);
  insideTracer = false;
}

// __cxa_throw: every C++ exception LibTorch throws passes here. Only autograd's refusal of an
// inference tensor (a c10::Error with that message) is noted; the rest is forwarded at once.
extern "C" __attribute__((visibility("default"), noreturn)) void
gradlintProbeCxaThrow(void* thrown, std::type_info* type, void (*destroy)(void*)) __asm__(
    "__cxa_throw");
extern "C" void gradlintProbeCxaThrow(void* thrown, std::type_info* type,
                                      void (*destroy)(void*)) {
  CxaThrowFn real = realCxaThrow.load(std::memory_order_acquire);
  if (real == nullptr) {
    real = reinterpret_cast<CxaThrowFn>(dlsym(RTLD_NEXT, "__cxa_throw"));
    realCxaThrow.store(real, std::memory_order_release);
  }
  if (!insideTracer && type != nullptr && std::strcmp(type->name(), kC10ErrorType) == 0) {
    // c10::Error derives from std::exception alone: the object starts with it.
    const char* what = static_cast<std::exception*>(thrown)->what();
    if (what != nullptr && std::strstr(what, kInferenceTensorMessage) != nullptr) {
      insideTracer = true;
      onInferenceTensorError();
      insideTracer = false;
    }
  }
  if (real == nullptr) std::abort(); // no C++ runtime to throw with: cannot happen here
  real(thrown, type, destroy);
  __builtin_unreachable();
}

// torch::autograd::backward: what Tensor::backward reaches in C++ (Python goes through the
// engine directly, and is hooked at the Python level instead).
extern "C" __attribute__((visibility("default"))) void
gradlintProbeBackward(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e) __asm__(
    "_ZN5torch8autograd8backwardERKSt6vectorIN2at6TensorESaIS3_EES7_N3c108optionalIbEEbS7_");
extern "C" void gradlintProbeBackward(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d,
                                      uintptr_t e) {
  BackwardFn real = resolveOnce(realBackward, kBackward, "libtorch_cpu.so");
  if (!insideTracer) {
    insideTracer = true;
    onBackward(realGradModeIsEnabled(), nullptr);
    insideTracer = false;
  }
  if (real != nullptr) real(a, b, c, d, e);
}
