// Placement dataflow for GL201/GL202 and the summaries: which objects carry offload hooks at
// each point of a function, through aliases (`unet = pipe.unet`), containers and their
// components (`Pipeline.from_pretrained(..., transformer=t)`, `Trainer(model=m)`), resets, and
// helpers that offload their arguments.
#pragma once

#include "checkers/ir/dataflow.h"
#include "checkers/ir/grad_state.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace gradlint::ir {

struct OffloadedObject {
  std::string path;   // `pipe`, `self.pipe`, or an alias of one (`unet`)
  std::string origin; // the object as offloaded, for messages
  SourceRange offload; // the call in this function: an offload API, or a helper that offloads
  std::string how;     // `enable_model_cpu_offload()`, `log_validation()`
  std::string container; // offloaded as a component of this object (empty: itself)
  // When a helper attached the hooks: its own offload call (path empty: this file).
  std::string innerPath;
  SourceRange innerRange;
  std::string innerText;
  bool mayOffload = false; // device_map="auto"-style: only possibly offloaded
  bool deviceMap = false;  // by a device_map load (what reset_device_map() undoes)
  bool movedAfter = false; // `.to(device)` since, which leaves the hooks in place
  SourceRange moved;
  std::string movedText; // what was moved, as `pipe.unet.to(...)`
  int argument = -1; // the parameter the object was (maybe) bound to when it was offloaded
};

// `container` holds `component`: `pipe = Pipeline(unet=unet)` links `pipe` to `unet`.
struct ComponentLink {
  std::string container;
  std::string component;
  auto operator<=>(const ComponentLink&) const = default;
};

struct PlacementFact {
  std::vector<OffloadedObject> offloaded; // sorted by path
  std::vector<ComponentLink> components;  // sorted
  std::vector<std::string> arguments; // parameters still bound to the caller's arguments, sorted
  // Objects whose `hf_device_map` the code has checked for cpu/disk: a later dispatch of the
  // same object with a map gradlint cannot read (often the checked map, edited) is not a
  // "may offload". Sorted.
  std::vector<std::string> checked;
  bool empty() const {
    return offloaded.empty() && components.empty() && arguments.empty() && checked.empty();
  }
};

// Names assigned once, from another object path (`encoder = model.encoder`), are that object
// wherever they appear. Names rebound later are followed by the dataflow instead.
class StableAliases {
public:
  explicit StableAliases(const FunctionIR& fn);
  std::string resolve(std::string path) const;

private:
  std::unordered_map<std::string, std::string> targets_;
};

// `pipe` covers `pipe.unet` and the other way round: training a component of an offloaded
// pipeline, or the model containing an offloaded submodule, both hit the hooks.
bool relatedPaths(const std::string& a, const std::string& b);

// `path` and what it holds, transitively (a pipeline built from a dict of models).
std::vector<std::string> withComponents(const PlacementFact& fact, const std::string& path);

// True when the unit attaches hooks itself or calls a helper that does (else nothing to track).
bool hasPlacementEvents(const FunctionIR& fn, const SummaryTable& summaries);

// Runs the placement analysis of `fn` from `entry`. With `trackArguments`, the parameters start
// bound to the caller's arguments, and offloads record which one they reach (for summaries).
DataflowResult<PlacementFact> analyzePlacement(const FunctionIR& fn, const SummaryTable& summaries,
                                               const StableAliases& aliases, PlacementFact entry,
                                               bool trackArguments);

} // namespace gradlint::ir
