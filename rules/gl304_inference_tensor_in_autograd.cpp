// GL304 inference-tensor-in-autograd: a value computed inside torch.inference_mode() used
// outside it in a computation that reaches backward(): "Inference tensors cannot be saved for
// backward".
#include "rules/training_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace gradlint::rules {
namespace {

class InferenceTensorInAutograd final : public Rule {
public:
  const RuleInfo& info() const override {
    static constexpr RuleInfo kInfo{
        "GL304", "inference-tensor-in-autograd",
        "A tensor made under inference_mode() feeds a computation that is backpropagated",
        Severity::Error};
    return kInfo;
  }
  std::vector<std::string_view> markers() const override { return {"inference_mode"}; }

  void check(RuleContext& context) const override {
    const auto& units = context.module().units;
    for (size_t index = 0; index < units.size(); ++index) {
      const ir::FunctionIR& fn = units[index];
      const std::unordered_set<std::string> feedsBackward = valuesReachingBackward(fn);
      if (feedsBackward.empty()) continue;
      DisabledDefinitions definitions(context, index);
      if (definitions.empty()) continue;
      for (ir::NodeId id = 0; id < fn.nodes.size(); ++id) {
        const ir::Event& use = fn.nodes[id].event;
        // A view (`y = x.detach()`) is the same inference tensor, not a use: the computation
        // that uses it is reported.
        const ir::ValueSources& sources = use.sources();
        if (use.kind != ir::EventKind::Assign || sources.freshValue || use.regionDisablesGrad ||
            !sources.viewOf.empty() || !feedsBackward.count(use.var)) {
          continue;
        }
        for (const std::string& dep : sources.deps) {
          if (dep == use.var) continue;
          const std::vector<ir::NodeId> defs = definitions.reaching(id, dep);
          auto inference = std::find_if(defs.begin(), defs.end(),
                                        [&](ir::NodeId d) { return definitions.inference(d); });
          if (inference == defs.end()) continue;
          Diagnostic diagnostic = makeDiagnostic(use.range);
          const bool cpp = context.module().language == ir::Language::Cpp;
          diagnostic.message = fmt::format(
              "`{}` is an inference tensor (made under `{}`) and is used to compute `{}`, "
              "which is backpropagated: autograd raises \"Inference tensors cannot be saved "
              "for backward\"",
              dep, cpp ? "c10::InferenceMode" : "torch.inference_mode()", use.var);
          diagnostic.help = fmt::format(
              "use `{}.clone()` here, outside inference mode, or compute `{}` under `{}` "
              "instead",
              dep, dep, cpp ? "torch::NoGradGuard" : "torch.no_grad()");
          diagnostic.related.push_back(
              {std::string(), definitions.cause(*inference), "inference mode starts here"});
          context.report(std::move(diagnostic));
          break; // one finding per use
        }
      }
    }
  }

  // Variables whose value flows into a backward() call (flow-insensitive closure over Assign).
  static std::unordered_set<std::string> valuesReachingBackward(const ir::FunctionIR& fn) {
    std::unordered_set<std::string> reached;
    for (const ir::Node& node : fn.nodes) {
      if (node.event.kind == ir::EventKind::Backward && !node.event.var.empty()) {
        reached.insert(node.event.var);
      }
    }
    if (reached.empty()) return reached;
    bool grew = true;
    while (grew) {
      grew = false;
      for (const ir::Node& node : fn.nodes) {
        const ir::Event& event = node.event;
        if (event.kind != ir::EventKind::Assign || event.sources().freshValue ||
            !reached.count(event.var)) {
          continue;
        }
        for (const std::string& dep : event.sources().deps) grew |= reached.insert(dep).second;
      }
    }
    return reached;
  }
};

} // namespace
} // namespace gradlint::rules

GRADLINT_REGISTER_RULE(gradlint::rules::InferenceTensorInAutograd)
