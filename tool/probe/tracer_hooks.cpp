// The interposed LibTorch entry points. LD_PRELOAD puts these definitions first in every
// object's lookup scope, so calls through the PLT (libtorch_python -> libc10, libtorch_cpu ->
// libc10, a user's program -> libc10) reach them; each forwards to the real function.
#include "tool/probe/tracer.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <string>

namespace gradlint::probe {
namespace {

constexpr const char* kSetEnabled = "_ZN3c108GradMode11set_enabledEb";
constexpr const char* kIsEnabled = "_ZN3c108GradMode10is_enabledEv";
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
// torch::autograd::backward(const std::vector<Tensor>&, const std::vector<Tensor>&,
// c10::optional<bool>, bool, const std::vector<Tensor>&): each argument is one integer-class
// eightbyte in the x86-64 and AArch64 calling conventions, so they are forwarded as words.
using BackwardFn = void (*)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

std::atomic<SetEnabledFn> realSetEnabled{nullptr};
std::atomic<IsEnabledFn> realIsEnabled{nullptr};
std::atomic<BackwardFn> realBackward{nullptr};

// A toggle made while the tracer itself runs (it never should) is forwarded untraced.
thread_local bool insideTracer = false;

} // namespace

bool realGradModeIsEnabled() {
  IsEnabledFn isEnabled = resolveOnce(realIsEnabled, kIsEnabled, "libc10.so");
  return isEnabled == nullptr || isEnabled();
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
  onToggle(caller, before, enabled);
  insideTracer = false;
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
