// GL202 device-map-may-offload (preview): a model loaded with device_map="auto" (or
// "balanced", "sequential", a variable) is trained: when GPU memory is short accelerate puts
// layers on CPU or disk behind offload hooks, and training then fails like GL201.
#include "rules/offload_flow.h"

#include <fmt/format.h>

namespace gradlint::rules {
namespace {

class DeviceMapMayOffload final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL202", "device-map-may-offload",
        "A model loaded with an automatic device_map (may offload to CPU/disk) is trained",
        Severity::Warning, /*preview=*/true};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {"device_map"}; }
  bool needsWholeClass() const override { return true; }

  void check(RuleContext& context) const override {
    for (const TrainedWhileOffloaded& found : findTrainingAfterOffload(context)) {
      if (!found.object.mayOffload) continue;
      const ir::FunctionIR& fn = context.module().units[found.unit];
      Diagnostic diagnostic = makeDiagnostic(fn.nodes[found.training].event.range);
      diagnostic.message = fmt::format(
          "`{}`{} is loaded with an automatic device map and trained here ({}{}): when GPU "
          "memory is short, layers go to CPU or disk behind offload hooks and training fails "
          "with tensors on different devices",
          found.object.origin, describeOffloadedObject(found), describeTraining(fn, found.training),
          found.nextIteration ? ", on the loop's next pass" : "");
      diagnostic.help = "for training, load onto one device (`device_map={\"\": 0}` or "
                        "`.to(\"cuda\")`), or check `hf_device_map` for cpu/disk entries first";
      addOffloadLocations(context, found, fmt::format("`{}` is loaded here", found.object.origin),
                          diagnostic);
      context.report(std::move(diagnostic));
    }
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::DeviceMapMayOffload)
