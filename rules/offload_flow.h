// Where objects with offload hooks are trained, for GL201/GL202: the placement dataflow
// (checkers/ir/placement.h) per function, plus `self.attr` across the methods of a class.
#pragma once

#include "checkers/ir/placement.h"
#include "rules/rule.h"

#include <string>
#include <vector>

namespace gradlint::rules {

using ir::OffloadedObject;

struct TrainedWhileOffloaded {
  size_t unit;
  ir::NodeId training; // the first training action reached after the offload
  OffloadedObject object;
  std::string trainedPath; // as written, after alias resolution
  // The training comes before the offload in the source: it is reached around a loop.
  bool nextIteration = false;
};

// Every offloaded object trained in this module: one per offload per function, at the first
// training action in source order.
std::vector<TrainedWhileOffloaded> findTrainingAfterOffload(RuleContext& context);

// What the training action is, for messages: "`unet.train()`".
std::string describeTraining(const ir::FunctionIR& fn, ir::NodeId node);

// What the finding says about the offloaded object beyond its name: " (a component of
// `pipeline`)", " on the next pass of the loop".
std::string describeOffloadedObject(const TrainedWhileOffloaded& found);

// The related locations of a finding: the offload call, the helper's own offload, the move.
void addOffloadLocations(const RuleContext& context, const TrainedWhileOffloaded& found,
                         std::string_view offloadedHere, Diagnostic& diagnostic);

} // namespace gradlint::rules
