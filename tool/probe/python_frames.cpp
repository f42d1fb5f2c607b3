// The CPython C API, found with dlsym in the running interpreter: the tracer has no link-time
// Python dependency and does nothing in a process without Python. Only functions of the stable
// C API (plus the frame accessors that exist since 3.9) are used.
#include "tool/probe/tracer.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint::probe {
namespace {

using PyObject = void;

struct PyMethodDef {
  const char* name;
  PyObject* (*method)(PyObject*, PyObject*, PyObject*);
  int flags;
  const char* doc;
};
constexpr int kMethVarargsKeywords = 0x0001 | 0x0002; // METH_VARARGS | METH_KEYWORDS

struct PythonApi {
  int (*isInitialized)() = nullptr;
  int (*gilStateCheck)() = nullptr;
  PyObject* (*getFrame)() = nullptr;       // PyEval_GetFrame: borrowed
  PyObject* (*frameGetBack)(PyObject*) = nullptr; // new reference
  PyObject* (*frameGetCode)(PyObject*) = nullptr; // new reference
  int (*frameGetLineNumber)(PyObject*) = nullptr;
  PyObject* (*getAttrString)(PyObject*, const char*) = nullptr;
  int (*setAttrString)(PyObject*, const char*, PyObject*) = nullptr;
  const char* (*unicodeAsUtf8)(PyObject*) = nullptr;
  void (*incRef)(PyObject*) = nullptr;
  void (*decRef)(PyObject*) = nullptr;
  PyObject* (*getModuleDict)() = nullptr;
  PyObject* (*dictGetItemString)(PyObject*, const char*) = nullptr;
  PyObject* (*cFunctionNew)(PyMethodDef*, PyObject*, PyObject*) = nullptr;
  PyObject* (*call)(PyObject*, PyObject*, PyObject*) = nullptr;
  void (*errClear)() = nullptr;
  PyObject* (*callFunction)(PyObject*, const char*, ...) = nullptr;
  PyObject* (*unicodeFromString)(const char*) = nullptr;
  PyObject* (*unicodeJoin)(PyObject*, PyObject*) = nullptr;
  bool complete = false;
};

template <typename Function>
void bind(Function& function, const char* name, bool& complete) {
  function = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
  if (function == nullptr) complete = false;
}

const PythonApi& python() {
  static const PythonApi api = [] {
    PythonApi p;
    p.complete = true;
    bind(p.isInitialized, "Py_IsInitialized", p.complete);
    if (!p.complete) return p; // not a Python process
    bind(p.gilStateCheck, "PyGILState_Check", p.complete);
    bind(p.getFrame, "PyEval_GetFrame", p.complete);
    bind(p.frameGetBack, "PyFrame_GetBack", p.complete);
    bind(p.frameGetCode, "PyFrame_GetCode", p.complete);
    bind(p.frameGetLineNumber, "PyFrame_GetLineNumber", p.complete);
    bind(p.getAttrString, "PyObject_GetAttrString", p.complete);
    bind(p.setAttrString, "PyObject_SetAttrString", p.complete);
    bind(p.unicodeAsUtf8, "PyUnicode_AsUTF8", p.complete);
    bind(p.incRef, "Py_IncRef", p.complete);
    bind(p.decRef, "Py_DecRef", p.complete);
    bind(p.getModuleDict, "PyImport_GetModuleDict", p.complete);
    bind(p.dictGetItemString, "PyDict_GetItemString", p.complete);
    bind(p.cFunctionNew, "PyCFunction_NewEx", p.complete);
    bind(p.call, "PyObject_Call", p.complete);
    bind(p.errClear, "PyErr_Clear", p.complete);
    bind(p.callFunction, "PyObject_CallFunction", p.complete);
    bind(p.unicodeFromString, "PyUnicode_FromString", p.complete);
    bind(p.unicodeJoin, "PyUnicode_Join", p.complete);
    return p;
  }();
  return api;
}

// A string attribute of `object` ("co_filename"), or "" (with the error cleared).
std::string stringAttribute(PyObject* object, const char* name) {
  const PythonApi& py = python();
  PyObject* value = py.getAttrString(object, name);
  if (value == nullptr) {
    py.errClear();
    return {};
  }
  const char* text = py.unicodeAsUtf8(value);
  std::string result = text ? text : "";
  if (text == nullptr) py.errClear();
  py.decRef(value);
  return result;
}

// torch's package folder ("/usr/lib/python3/dist-packages/torch/"): frames there are torch's own
// (grad_mode.py, _tensor.py, autograd/__init__.py) and are walked past.
const std::string& torchPackageDir() {
  static std::string dir;
  if (!dir.empty()) return dir;
  const PythonApi& py = python();
  PyObject* torch = py.dictGetItemString(py.getModuleDict(), "torch"); // borrowed
  if (torch == nullptr) return dir;
  std::string file = stringAttribute(torch, "__file__");
  const size_t slash = file.rfind('/');
  if (slash != std::string::npos) dir = file.substr(0, slash + 1);
  return dir;
}

bool isTorchFile(const std::string& file) {
  const std::string& dir = torchPackageDir();
  return !dir.empty() && file.compare(0, dir.size(), dir) == 0;
}

bool isGradModeApiFile(const std::string& file) {
  const std::string& dir = torchPackageDir();
  const std::string_view inside = std::string_view(file).substr(dir.size());
  return inside == "autograd/grad_mode.py" || inside == "utils/_contextlib.py" ||
         inside == "__init__.py";
}

// The source linecache holds for `file` (IPython registers each cell it compiles there), or "".
std::string linecacheSource(const std::string& file) {
  const PythonApi& py = python();
  PyObject* linecache = py.dictGetItemString(py.getModuleDict(), "linecache"); // borrowed
  if (linecache == nullptr) return {};
  PyObject* getlines = py.getAttrString(linecache, "getlines");
  if (getlines == nullptr) {
    py.errClear();
    return {};
  }
  std::string source;
  PyObject* lines = py.callFunction(getlines, "s", file.c_str());
  PyObject* empty = py.unicodeFromString("");
  PyObject* joined = lines != nullptr && empty != nullptr ? py.unicodeJoin(empty, lines) : nullptr;
  if (joined != nullptr) {
    const char* text = py.unicodeAsUtf8(joined);
    if (text != nullptr) source = text;
  }
  for (PyObject* object : {joined, empty, lines, getlines}) {
    if (object != nullptr) py.decRef(object);
  }
  py.errClear();
  return source;
}

// What the frame walk needs of a code object, computed once per code object. The cache holds a
// reference to each code object, so an address is never reused for another; the GIL guards it.
struct CodeInfo {
  std::string file;
  std::string function;
  bool torch = false;
  bool gradModeApi = false;
};

const CodeInfo& codeInfo(PyObject* code) {
  static auto* cache = new std::unordered_map<PyObject*, CodeInfo>;
  auto [it, added] = cache->try_emplace(code);
  // A reference, not the iterator: linecache below runs Python code, which may come back here
  // (a finalizer that toggles a mode) and rehash the map; its elements stay where they are.
  CodeInfo& info = it->second;
  if (added) {
    python().incRef(code);
    info.file = stringAttribute(code, "co_filename");
    info.function = stringAttribute(code, "co_qualname");
    if (info.function.empty()) info.function = stringAttribute(code, "co_name");
    info.torch = isTorchFile(info.file);
    info.gradModeApi = info.torch && isGradModeApiFile(info.file);
    // A notebook cell: no file on disk, its source in linecache; noted once per code object.
    if (!info.torch && !info.file.empty() && access(info.file.c_str(), F_OK) != 0) {
      const std::string source = linecacheSource(info.file);
      if (!source.empty()) noteVirtualSource(info.file, source);
    }
  }
  return info;
}

PyObject* backwardHookMethod(PyObject* original, PyObject* args, PyObject* kwargs);
PyMethodDef backwardHookDef{"backward", backwardHookMethod, kMethVarargsKeywords,
                            "torch.autograd.backward, observed by gradlint's probe"};

PyObject* backwardHookMethod(PyObject* original, PyObject* args, PyObject* kwargs) {
  CodeLocation location;
  if (PyObject* frame = innermostUserFrame(location, nullptr)) releasePythonObject(frame);
  onBackward(realGradModeIsEnabled(), &location);
  return python().call(original, args, kwargs);
}

} // namespace

bool pythonThreadHoldsGil() {
  const PythonApi& py = python();
  return py.complete && py.isInitialized() && py.gilStateCheck();
}

PyObjectPtr innermostUserFrame(CodeLocation& location, bool* madeByTorch,
                               bool* passedTorchFrames) {
  const PythonApi& py = python();
  if (madeByTorch != nullptr) *madeByTorch = false;
  if (passedTorchFrames != nullptr) *passedTorchFrames = false;
  PyObject* frame = py.getFrame();
  if (frame == nullptr) return nullptr;
  py.incRef(frame);
  // The innermost frames are torch's own (grad_mode.py): walk outward to the caller's.
  bool insideGradModeApi = true;
  while (frame != nullptr) {
    PyObject* code = py.frameGetCode(frame);
    const CodeInfo& info = codeInfo(code);
    py.decRef(code);
    if (!info.torch) {
      location.file = info.file;
      location.line = py.frameGetLineNumber(frame);
      location.function = info.function;
      location.code = code; // the CodeInfo cache holds a reference: the address stays unique
      return frame;
    }
    // Past the grad-mode API itself, a torch frame means torch's own code made the toggle
    // (nn.init, optimizers): a guard it always restores, not the user's.
    insideGradModeApi = insideGradModeApi && info.gradModeApi;
    if (passedTorchFrames != nullptr) *passedTorchFrames = true;
    if (!insideGradModeApi && madeByTorch != nullptr) {
      *madeByTorch = true;
      py.decRef(frame);
      return nullptr;
    }
    PyObject* back = py.frameGetBack(frame);
    py.decRef(frame);
    frame = back;
  }
  return nullptr;
}

std::vector<CallLine> callLines(PyObjectPtr frame, size_t limit) {
  const PythonApi& py = python();
  std::vector<CallLine> lines;
  PyObject* outer = frame != nullptr ? py.frameGetBack(static_cast<PyObject*>(frame)) : nullptr;
  while (outer != nullptr && lines.size() < limit) {
    PyObject* code = py.frameGetCode(outer);
    const CodeInfo& info = codeInfo(code); // its cache keeps `info.file` where it is
    py.decRef(code);
    if (!info.torch) lines.push_back({&info.file, py.frameGetLineNumber(outer)});
    PyObject* back = py.frameGetBack(outer);
    py.decRef(outer);
    outer = back;
  }
  if (outer != nullptr) py.decRef(outer);
  return lines;
}

bool pythonFrameIsLive(PyObjectPtr target) {
  const PythonApi& py = python();
  PyObject* frame = py.getFrame();
  if (frame == nullptr) return false;
  py.incRef(frame);
  while (frame != nullptr) {
    if (frame == target) {
      py.decRef(frame);
      return true;
    }
    PyObject* back = py.frameGetBack(frame);
    py.decRef(frame);
    frame = back;
  }
  return false;
}

void releasePythonObject(PyObjectPtr object) {
  if (object != nullptr) python().decRef(object);
}

void installPythonBackwardHook() {
  static bool installed = false; // the GIL serialises callers
  if (installed) return;
  const PythonApi& py = python();
  PyObject* autograd = py.dictGetItemString(py.getModuleDict(), "torch.autograd"); // borrowed
  if (autograd == nullptr) return; // not imported yet: try again at the next toggle
  PyObject* original = py.getAttrString(autograd, "backward");
  if (original == nullptr) {
    py.errClear();
    return;
  }
  installed = true;
  // The wrapper holds the original as its `self`; it lives as long as the process.
  PyObject* wrapper = py.cFunctionNew(&backwardHookDef, original, nullptr);
  py.decRef(original);
  if (wrapper == nullptr) {
    py.errClear();
    return;
  }
  if (py.setAttrString(autograd, "backward", wrapper) != 0) py.errClear();
  py.decRef(wrapper);
}

} // namespace gradlint::probe
