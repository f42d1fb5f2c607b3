// A forward monotone dataflow solver over the Grad IR (worklist, no recursion).
//
// An analysis supplies:
//   Fact entryFact();                       the fact at the entry node
//   bool join(Fact& into, const Fact& from) merge; true when `into` changed
//   Fact transfer(NodeId, const Node&, const Fact&)  the fact after the event on normal edges
//   Fact exceptionFact(NodeId, const Node&, const Fact&)  the fact on the exception edge
// Usually the fact from *before* the event: an exception raised by a call leaves the state the
// call started from.
#pragma once

#include "checkers/ir/grad_ir.h"

#include <deque>
#include <vector>

namespace gradlint::ir {

template <typename Fact> struct DataflowResult {
  std::vector<Fact> in;       // fact on entry to each node
  std::vector<bool> reached;  // node reachable from the entry
};

template <typename Analysis>
auto solveForward(const FunctionIR& fn, Analysis& analysis)
    -> DataflowResult<decltype(analysis.entryFact())> {
  using Fact = decltype(analysis.entryFact());
  DataflowResult<Fact> result;
  const size_t count = fn.nodes.size();
  result.in.assign(count, Fact{});
  result.reached.assign(count, false);
  if (fn.entry == kNoNode) return result;

  std::vector<bool> queued(count, false);
  std::deque<NodeId> worklist;
  auto propagate = [&](NodeId to, const Fact& fact) {
    bool changed;
    if (!result.reached[to]) {
      result.reached[to] = true;
      result.in[to] = fact;
      changed = true;
    } else {
      changed = analysis.join(result.in[to], fact);
    }
    if (changed && !queued[to]) {
      queued[to] = true;
      worklist.push_back(to);
    }
  };

  propagate(fn.entry, analysis.entryFact());
  while (!worklist.empty()) {
    const NodeId id = worklist.front();
    worklist.pop_front();
    queued[id] = false;
    const Node& node = fn.nodes[id];
    if (node.exceptionSucc != kNoNode) {
      propagate(node.exceptionSucc, analysis.exceptionFact(id, node, result.in[id]));
    }
    if (node.succs.empty()) continue;
    const Fact out = analysis.transfer(id, node, result.in[id]);
    for (NodeId succ : node.succs) propagate(succ, out);
  }
  return result;
}

} // namespace gradlint::ir
