// The LD_PRELOAD tracer (libgradlint_probe.so): shared declarations of its three parts.
//   tracer_hooks.cpp   interposes c10::GradMode::set_enabled, c10::AutogradState::set_tls_state
//                      (inference mode), torch::autograd::backward and __cxa_throw (to see
//                      autograd refuse an inference tensor)
//   python_frames.cpp  the CPython C API, resolved with dlsym at run time (no libpython link)
//   tracer_state.cpp   per-thread grad-mode state, leak detection, the report written at exit
// The library links neither LibTorch nor libpython: it must load into any process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gradlint::probe {

// Where a toggle or a backward() happened, in the user's code.
struct CodeLocation {
  std::string file;
  int line = 0;
  std::string function;
  const void* code = nullptr; // Python: the code object (kept alive by the tracer), a fast key
};

// --- python_frames.cpp ---------------------------------------------------------------------------
using PyObjectPtr = void*; // an opaque PyObject* / PyFrameObject*

// True when the process hosts an initialised Python and this thread holds the GIL.
bool pythonThreadHoldsGil();
// The innermost frame outside torch's own package, as a new reference (nullptr when none),
// and its location. With `madeByTorch`, a toggle made by torch's own Python code (past the
// grad-mode API's frames) gives nullptr and sets it. `passedTorchFrames` is set when torch's
// frames (the grad-mode API's) were walked past to get there.
PyObjectPtr innermostUserFrame(CodeLocation& location, bool* madeByTorch,
                               bool* passedTorchFrames = nullptr);
// The calls that led to `frame`: the file and current line of each frame outside torch that
// encloses it, innermost first, at most `limit`. The file strings live as long as the process,
// one per code object: they compare by address (fast, on every toggle), so one file may show up
// under more than one, which the report's reader adds up.
struct CallLine {
  const std::string* file = nullptr;
  int line = 0;
  bool operator<(const CallLine& other) const {
    if (file != other.file) return std::less<const std::string*>()(file, other.file);
    return line < other.line;
  }
  bool operator==(const CallLine& other) const {
    return file == other.file && line == other.line;
  }
};
std::vector<CallLine> callLines(PyObjectPtr frame, size_t limit);
// True when `frame` is on this thread's Python stack now.
bool pythonFrameIsLive(PyObjectPtr frame);
void releasePythonObject(PyObjectPtr object);
// Wraps torch.autograd.backward (which Tensor.backward calls) once torch.autograd is imported,
// so that a backward() is seen before PyTorch rejects it for having no graph.
void installPythonBackwardHook();

// --- tracer_state.cpp ----------------------------------------------------------------------------
// The two thread-local switches the tracer follows. Each has a normal state (grad enabled,
// inference mode off) and an engaged one (grad disabled, inference mode on); a function that
// engages one and is gone without restoring it leaks it.
enum class Mode : uint8_t { Grad = 0, Inference = 1 };
constexpr size_t kModeCount = 2;

enum class TogglerKind : uint8_t {
  Python,   // torch.set_grad_enabled / no_grad from Python (caller: libtorch_python)
  Cpp,      // user C++ code (a guard or a direct call)
  Internal, // LibTorch's own RAII guards: always restored, not the user's doing
};

// `mode` went from `wasEngaged` to `isEngaged`; `caller` is the C++ caller of LibTorch's setter.
void onToggle(Mode mode, void* caller, bool wasEngaged, bool isEngaged);
// A backward() is about to run; `gradEnabled`: grad mode at that moment. `pythonLocation` is
// set when it came from Python.
void onBackward(bool gradEnabled, const CodeLocation* pythonLocation);
// Autograd refused to save an inference tensor for backward (GL304's error) in this thread.
void onInferenceTensorError();
// A Python file that is not on disk (a notebook cell compiled by ipykernel) and its source, from
// linecache: `gradlint probe run` matches it to the notebook's cell.
void noteVirtualSource(const std::string& file, const std::string& source);

// --- tracer_hooks.cpp ----------------------------------------------------------------------------
bool realGradModeIsEnabled();
void realSetGradEnabled(bool enabled);
// c10::AutogradState of this thread as its byte (bit 0 grad mode, bit 1 inference mode, bit 2
// forward grad mode: the bitfields' order in LibTorch 1.13), and setting it back.
constexpr uint8_t kGradModeBit = 1;
constexpr uint8_t kInferenceModeBit = 2;
constexpr uint8_t kDefaultAutogradState = 1 | 4; // grad and forward grad on, inference off
bool realAutogradState(uint8_t& state);
void realSetAutogradState(uint8_t state);
// c10::impl::raw_local_dispatch_key_set of this thread (two 64-bit words, which inference
// mode changes too), or nullptr when libc10 is not loaded.
void* localDispatchKeySet();

} // namespace gradlint::probe
