#include "checkers/ir/cfg_dump.h"

#include <fmt/format.h>

namespace gradlint::ir {

std::string dumpCfg(const FunctionIR& fn) {
  std::string out = fmt::format("unit {} ({})\n", fn.qualifiedName.empty() ? fn.name
                                                                           : fn.qualifiedName,
                                fn.nodes.size());
  for (NodeId id = 0; id < fn.nodes.size(); ++id) {
    const Node& node = fn.nodes[id];
    const Event& event = node.event;
    out += fmt::format("  {}: {}", id, toString(event.kind));
    switch (event.kind) {
    case EventKind::SetGrad: out += fmt::format("({})", toString(event.value)); break;
    case EventKind::EnterGuard:
    case EventKind::ExitGuard: out += fmt::format("({})", toString(event.guard)); break;
    case EventKind::RestoreArg: out += fmt::format("(arg {})", event.argIndex); break;
    default: break;
    }
    if (!event.callee.empty()) out += " " + event.callee.str();
    if (!event.var.empty()) out += " var=" + event.var.str();
    for (const std::string& component : event.sources().components) out += " +" + component;
    if (event.kind != EventKind::Entry && event.kind != EventKind::NormalExit &&
        event.kind != EventKind::ExceptionalExit && event.kind != EventKind::Nop) {
      out += fmt::format(" @{}:{}", event.range.startLine + 1, event.range.startColumn + 1);
    }
    if (!node.succs.empty()) {
      out += " ->";
      for (NodeId succ : node.succs) out += fmt::format(" {}", succ);
    }
    if (node.exceptionSucc != kNoNode) out += fmt::format(" !{}", node.exceptionSucc);
    out += '\n';
  }
  return out;
}

} // namespace gradlint::ir
