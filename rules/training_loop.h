// Analyses shared by the training-loop rules (GL301-GL305): how gradients accumulate between
// backward, step and zero_grad, and where values computed with grad disabled flow.
#pragma once

#include "rules/rule.h"

#include <optional>
#include <string>
#include <vector>

namespace gradlint::rules {

// backward -> step -> backward with no reset between the backwards (GL301), and
// backward -> zero_grad -> step with no backward between the last two (GL305).
struct AccumulationFindings {
  struct StaleStep {
    ir::NodeId step;
    ir::NodeId nextBackward; // the backward that adds to the already-applied gradients
  };
  struct ZeroBeforeStep {
    ir::NodeId zeroGrad;
    ir::NodeId step; // the step that then applies zeroed gradients
  };
  std::vector<StaleStep> staleSteps;
  std::vector<ZeroBeforeStep> zeroBeforeStep;
};

AccumulationFindings analyzeAccumulation(const ir::FunctionIR& fn,
                                         const ir::SummaryTable& summaries);

// True when grad is certainly off at `node`: a disabling with-block or decorator around it, or
// a toggle that is in force on every path.
bool gradDisabledAt(RuleContext& context, size_t unitIndex, ir::NodeId node);
// Where grad was turned off for `node` (the with-block, the function for a decorator, or the
// toggle in force), when gradDisabledAt() holds.
std::optional<ir::SourceRange> gradDisabledCause(RuleContext& context, size_t unitIndex,
                                                 ir::NodeId node);

// Reaching definitions of the variables defined with grad disabled somewhere in the unit.
class DisabledDefinitions {
public:
  DisabledDefinitions(RuleContext& context, size_t unitIndex);
  // Definitions of `var` that may reach `node` (Assign node ids; empty when `var` has no
  // tracked definition, e.g. a parameter).
  std::vector<ir::NodeId> reaching(ir::NodeId node, const std::string& var) const;
  bool disabled(ir::NodeId definition) const;
  // Where grad was turned off for a disabled definition.
  ir::SourceRange cause(ir::NodeId definition) const { return causes_[definition]; }
  bool inference(ir::NodeId definition) const;
  bool empty() const { return tracked_.empty(); }

private:
  using Definitions = std::vector<std::pair<std::string, std::vector<ir::NodeId>>>;
  const ir::FunctionIR& fn_;
  std::vector<std::string> tracked_; // sorted
  std::vector<bool> disabled_;       // per node
  std::vector<bool> inference_;      // per node: an inference tensor (made in, or a view of one)
  std::vector<ir::SourceRange> causes_; // per node
  ir::DataflowResult<Definitions> flow_;
};


} // namespace gradlint::rules
