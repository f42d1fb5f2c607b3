// Object tracking for GL201/GL202: which objects carry offload hooks at each point, through
// aliases (`unet = pipe.unet`), `self.attr` across the methods of a class, and helpers that
// offload their argument; and where such an object is then trained.
#pragma once

#include "rules/rule.h"

#include <string>
#include <vector>

namespace gradlint::rules {

struct OffloadedObject {
  std::string path;   // `pipe`, `self.pipe`, or an alias of one (`unet`)
  std::string origin; // the object as offloaded, for messages
  ir::SourceRange offload;
  std::string how; // `enable_model_cpu_offload()`
  bool mayOffload = false; // device_map="auto"-style: only possibly offloaded
  bool movedAfter = false; // `.to(device)` since, which leaves the hooks in place
  ir::SourceRange moved;
};

struct TrainedWhileOffloaded {
  size_t unit;
  ir::NodeId training; // the first training action reached after the offload
  OffloadedObject object;
  std::string trainedPath; // as written, after alias resolution
};

// Every offloaded object trained in this module: one per offload per function, at the first
// training action in source order.
std::vector<TrainedWhileOffloaded> findTrainingAfterOffload(RuleContext& context);

// What the training action is, for messages: "`unet.train()`".
std::string describeTraining(const ir::FunctionIR& fn, ir::NodeId node);

} // namespace gradlint::rules
