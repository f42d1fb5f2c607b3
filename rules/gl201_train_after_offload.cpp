// GL201 train-after-offload: an object given memory-saving offload hooks (built for inference)
// is then trained: parameters, gradients and optimizer state end up on different devices.
#include "rules/offload_flow.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class TrainAfterOffload final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{"GL201", "train-after-offload",
                                    "A model with CPU/disk offload hooks is trained",
                                    Severity::Error};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override {
    return {"offload", "device_map", "dispatch_model", "_and_dispatch"};
  }
  bool needsWholeClass() const override { return true; }

  void check(RuleContext& context) const override {
    for (const TrainedWhileOffloaded& found : findTrainingAfterOffload(context)) {
      if (found.object.mayOffload) continue; // GL202
      const ir::FunctionIR& fn = context.module().units[found.unit];
      Diagnostic diagnostic = makeDiagnostic(fn.nodes[found.training].event.range);
      diagnostic.message = fmt::format(
          "`{}`{} has offload hooks from `{}` and is trained here ({}{}): the hooks move weights "
          "between CPU and GPU around each forward, so parameters, gradients and optimizer "
          "state end up on different devices (\"Expected all tensors to be on the same "
          "device\") or training silently goes wrong{}",
          found.object.origin, describeOffloadedObject(found), found.object.how,
          describeTraining(fn, found.training),
          found.nextIteration ? ", on the loop's next pass" : "",
          found.object.movedAfter
              ? fmt::format("; `{}` does not remove the hooks", found.object.movedText)
              : std::string());
      diagnostic.help = "offload only for inference; to train, remove the hooks first "
                        "(`pipe.remove_all_hooks()` in diffusers, "
                        "`remove_hook_from_module(model, recurse=True)` in accelerate), then "
                        "move the model with `.to(device)`";
      addOffloadLocations(context, found, fmt::format("`{}` is offloaded here", found.object.origin),
                          diagnostic);
      context.report(std::move(diagnostic));
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::TrainAfterOffload)
