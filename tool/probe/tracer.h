// The LD_PRELOAD tracer (libgradlint_probe.so): shared declarations of its three parts.
//   tracer_hooks.cpp   interposes c10::GradMode::set_enabled and torch::autograd::backward
//   python_frames.cpp  the CPython C API, resolved with dlsym at run time (no libpython link)
//   tracer_state.cpp   per-thread grad-mode state, leak detection, the report written at exit
// The library links neither LibTorch nor libpython: it must load into any process.
#pragma once

#include <cstdint>
#include <string>

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
// grad-mode API's frames) gives nullptr and sets it.
PyObjectPtr innermostUserFrame(CodeLocation& location, bool* madeByTorch);
// True when `frame` is on this thread's Python stack now.
bool pythonFrameIsLive(PyObjectPtr frame);
void releasePythonObject(PyObjectPtr object);
// Wraps torch.autograd.backward (which Tensor.backward calls) once torch.autograd is imported,
// so that a backward() is seen before PyTorch rejects it for having no graph.
void installPythonBackwardHook();

// --- tracer_state.cpp ----------------------------------------------------------------------------
enum class TogglerKind : uint8_t {
  Python,   // torch.set_grad_enabled / no_grad from Python (caller: libtorch_python)
  Cpp,      // user C++ code (a guard or a direct call)
  Internal, // LibTorch's own RAII guards: always restored, not the user's doing
};

// c10::GradMode::set_enabled was called: grad mode went from `before` to `after`.
void onToggle(void* caller, bool before, bool after);
// A backward() is about to run; `gradEnabled`: grad mode at that moment. `pythonLocation` is
// set when it came from Python.
void onBackward(bool gradEnabled, const CodeLocation* pythonLocation);

// --- tracer_hooks.cpp ----------------------------------------------------------------------------
bool realGradModeIsEnabled();

} // namespace gradlint::probe
