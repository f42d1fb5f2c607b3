#include "checkers/ir/placement.h"

#include "checkers/ir/attribute_paths.h"

#include <fmt/format.h>

#include <algorithm>

namespace gradlint::ir {
namespace {

std::vector<OffloadedObject>::iterator find(std::vector<OffloadedObject>& objects,
                                            const std::string& path) {
  return std::lower_bound(objects.begin(), objects.end(), path,
                          [](const OffloadedObject& o, const std::string& p) { return o.path < p; });
}

void add(std::vector<OffloadedObject>& objects, OffloadedObject object) {
  auto it = find(objects, object.path);
  if (it != objects.end() && it->path == object.path) {
    *it = std::move(object);
  } else {
    objects.insert(it, std::move(object));
  }
}

class PlacementAnalysis {
public:
  PlacementAnalysis(const FunctionIR& fn, const SummaryTable& summaries,
                    const StableAliases& aliases, PlacementFact entry)
      : fn_(fn), summaries_(summaries), aliases_(aliases), entry_(std::move(entry)) {}

  PlacementFact entryFact() const { return entry_; }

  bool join(PlacementFact& into, const PlacementFact& from) const {
    bool changed = false;
    for (const OffloadedObject& object : from.offloaded) {
      auto it = find(into.offloaded, object.path);
      if (it == into.offloaded.end() || it->path != object.path) {
        into.offloaded.insert(it, object);
        changed = true;
        continue;
      }
      // Offloaded for sure on one path beats "maybe" on another; a move on any path counts.
      if (it->mayOffload && !object.mayOffload) {
        *it = object;
        changed = true;
      }
      if (object.movedAfter && !it->movedAfter) {
        it->movedAfter = true;
        it->moved = object.moved;
        it->movedText = object.movedText;
        changed = true;
      }
      if (it->argument < 0 && object.argument >= 0) {
        it->argument = object.argument;
        changed = true;
      }
    }
    for (const ComponentLink& link : from.components) changed |= insertSorted(into.components, link);
    for (const std::string& argument : from.arguments) {
      changed |= insertSorted(into.arguments, argument);
    }
    // Checked on every path only.
    const size_t before = into.checked.size();
    std::erase_if(into.checked, [&](const std::string& path) {
      return !std::binary_search(from.checked.begin(), from.checked.end(), path);
    });
    return changed || into.checked.size() != before;
  }

  PlacementFact exceptionFact(NodeId, const Node&, const PlacementFact& in) const { return in; }

  PlacementFact transfer(NodeId, const Node& node, const PlacementFact& in) const {
    const Event& event = node.event;
    switch (event.kind) {
    case EventKind::Offload: {
      const std::string path = aliases_.resolve(event.var);
      if (event.mayOffload && std::binary_search(in.checked.begin(), in.checked.end(), path)) {
        return in;
      }
      PlacementFact out = in;
      OffloadedObject object;
      object.offload = event.range;
      object.how = event.callee;
      object.mayOffload = event.mayOffload;
      object.deviceMap = event.placement == PlacementScope::DeviceMap;
      offloadWithComponents(out, path, object);
      return out;
    }
    case EventKind::ResetPlacement: {
      PlacementFact out = in;
      if (event.placement == PlacementScope::Checked) {
        insertSorted(out.checked, aliases_.resolve(event.var));
      }
      for (const std::string& target : withComponents(in, aliases_.resolve(event.var))) {
        std::erase_if(out.offloaded, [&](const OffloadedObject& o) {
          if (!relatedPaths(o.path, target)) return false;
          switch (event.placement) {
          case PlacementScope::Hooks: return true;
          case PlacementScope::DeviceMap: return o.deviceMap;
          case PlacementScope::Checked: return o.mayOffload;
          }
          return false;
        });
      }
      return out;
    }
    case EventKind::MoveTo: {
      if (in.offloaded.empty()) return in;
      PlacementFact out = in;
      // `pipe.unet.to("cuda")` moves the weights of what it names; every hook stays.
      const std::string movedText =
          fmt::format("{}.{}(...)", event.var,
                      std::string_view(event.callee).substr(0, event.callee.find('(')));
      for (const std::string& target : withComponents(in, aliases_.resolve(event.var))) {
        for (OffloadedObject& object : out.offloaded) {
          if (relatedPaths(object.path, target) && !object.movedAfter) {
            object.movedAfter = true;
            object.moved = event.range;
            object.movedText = movedText;
          }
        }
      }
      return out;
    }
    case EventKind::Compose: {
      PlacementFact out = in;
      const std::string container = aliases_.resolve(event.var);
      for (const std::string& component : event.sources().components) {
        const std::string path = aliases_.resolve(component);
        if (path != container && !isAttributeOf(path, container)) {
          insertSorted(out.components, ComponentLink{container, path});
        }
      }
      return out;
    }
    case EventKind::Assign: return assign(event, in);
    case EventKind::Call: return call(event, in);
    default: return in;
    }
  }

private:
  // Rebinding a name to another object ends tracking of what the name held, unless the value
  // came from the same object (`model = accelerator.prepare(model)`). What was offloaded stays
  // offloaded: a pipeline rebound or deleted leaves the hooks on the components it shared.
  PlacementFact assign(const Event& event, const PlacementFact& in) const {
    PlacementFact out = rebind(event, in);
    // `model = load(name)`, where `load` returns a model with hooks (a device_map load).
    const FunctionSummary* summary =
        event.callee.empty() ? nullptr : summaries_.find(event.callee);
    const std::string path = aliases_.resolve(event.var);
    auto known = find(out.offloaded, path);
    // Offloaded already by the call itself (`pipe = setup(pipe)` offloads its argument).
    const bool offloaded = known != out.offloaded.end() && known->path == path;
    if (summary != nullptr && summary->returnsOffloaded && !offloaded) {
      OffloadedObject object;
      object.offload = event.range;
      object.how = fmt::format("{}()", event.callee.substr(event.callee.rfind('.') + 1));
      object.mayOffload = summary->returnedMayOffload;
      object.deviceMap = summary->returnedDeviceMap;
      object.innerPath = summary->returnedOffloadPath;
      object.innerRange = summary->returnedOffloadRange;
      object.innerText = summary->returnedOffloadText;
      offloadWithComponents(out, path, object);
    }
    return out;
  }

  PlacementFact rebind(const Event& event, const PlacementFact& in) const {
    const std::vector<InternedString>& deps = event.sources().deps;
    if (in.empty() || std::find(deps.begin(), deps.end(), event.var) != deps.end()) {
      return in;
    }
    PlacementFact out = in;
    std::erase_if(out.offloaded,
                  [&](const OffloadedObject& o) { return isPathUnder(o.path, event.var); });
    std::erase_if(out.components, [&](const ComponentLink& link) {
      return isPathUnder(link.container, event.var) || isPathUnder(link.component, event.var);
    });
    std::erase(out.arguments, event.var);
    std::erase_if(out.checked,
                  [&](const std::string& path) { return isPathUnder(path, event.var); });
    if (!event.sources().aliasOf.empty()) {
      // `unet = pipe.unet` makes an alias of the offloaded object.
      const std::string target = aliases_.resolve(event.sources().aliasOf);
      for (const OffloadedObject& object : in.offloaded) {
        if (!relatedPaths(object.path, target)) continue;
        OffloadedObject alias = object;
        alias.path = event.var;
        add(out.offloaded, std::move(alias));
        break;
      }
    }
    return out;
  }

  PlacementFact call(const Event& event, const PlacementFact& in) const {
    const FunctionSummary* summary = summaries_.findFor(event);
    if (summary == nullptr || summary->offloadsArgs.empty()) return in;
    PlacementFact out = in;
    OffloadedObject object;
    object.offload = event.range;
    object.how = fmt::format("{}()", event.spelled);
    object.innerPath = summary->offloadPath;
    object.innerRange = summary->offloadRange;
    object.innerText = summary->offloadText;
    auto offload = [&](const std::string& var) {
      if (!var.empty()) offloadWithComponents(out, aliases_.resolve(var), object);
    };
    for (size_t i = 0; i < summary->offloadsArgs.size(); ++i) {
      const auto at = static_cast<size_t>(summary->offloadsArgs[i]);
      if (at < event.call().argVars.size()) offload(event.call().argVars[at]);
      for (const auto& [name, var] : event.call().keywordVars) {
        if (name == summary->offloadsParams[i]) offload(var);
      }
    }
    return out;
  }

  // Offloads `path` and every object it holds (each marked with the container it came with).
  void offloadWithComponents(PlacementFact& fact, const std::string& path,
                             const OffloadedObject& how) const {
    for (const std::string& reached : withComponents(fact, path)) {
      OffloadedObject object = how;
      object.path = reached;
      object.origin = reached;
      if (reached != path) object.container = path;
      // The argument itself, not an attribute of it (`args.revision` passed to a loader).
      if (std::binary_search(fact.arguments.begin(), fact.arguments.end(), reached)) {
        const auto param = std::find(fn_.params.begin(), fn_.params.end(), reached);
        if (param != fn_.params.end()) object.argument = static_cast<int>(param - fn_.params.begin());
      }
      add(fact.offloaded, std::move(object));
    }
  }

  const FunctionIR& fn_;
  const SummaryTable& summaries_;
  const StableAliases& aliases_;
  PlacementFact entry_;
};

} // namespace

StableAliases::StableAliases(const FunctionIR& fn) {
  std::unordered_map<std::string, int> definitions;
  for (const Node& node : fn.nodes) {
    if (node.event.kind == EventKind::Assign) ++definitions[node.event.var];
  }
  for (const Node& node : fn.nodes) {
    const Event& event = node.event;
    if (event.kind == EventKind::Assign && !event.sources().aliasOf.empty() &&
        definitions[event.var] == 1 && event.sources().aliasOf != event.var) {
      targets_[event.var] = event.sources().aliasOf;
    }
  }
}

std::string StableAliases::resolve(std::string path) const {
  for (int hop = 0; hop < 8 && !targets_.empty(); ++hop) {
    const size_t dot = path.find('.');
    auto it = targets_.find(path.substr(0, dot));
    if (it == targets_.end()) break;
    path = it->second + (dot == std::string::npos ? std::string() : path.substr(dot));
  }
  return path;
}

bool relatedPaths(const std::string& a, const std::string& b) {
  return a == b || isAttributeOf(a, b) || isAttributeOf(b, a);
}

std::vector<std::string> withComponents(const PlacementFact& fact, const std::string& path) {
  std::vector<std::string> reached{path};
  // Breadth-first over the links; each link is followed once, so cycles end.
  std::vector<bool> used(fact.components.size(), false);
  for (size_t next = 0; next < reached.size(); ++next) {
    const std::string current = reached[next];
    for (size_t i = 0; i < fact.components.size(); ++i) {
      const ComponentLink& link = fact.components[i];
      if (used[i] || link.container != current) continue;
      used[i] = true;
      if (std::find(reached.begin(), reached.end(), link.component) == reached.end()) {
        reached.push_back(link.component);
      }
    }
  }
  return reached;
}

bool hasPlacementEvents(const FunctionIR& fn, const SummaryTable& summaries) {
  return std::any_of(fn.nodes.begin(), fn.nodes.end(), [&](const Node& node) {
    const Event& event = node.event;
    if (event.kind == EventKind::Offload) return true;
    if (event.kind == EventKind::Call) {
      const FunctionSummary* summary = summaries.findFor(event);
      return summary != nullptr && !summary->offloadsArgs.empty();
    }
    // A helper's result with hooks: assigned (`model = load()`) or returned (`return load()`).
    if ((event.kind == EventKind::Assign || event.kind == EventKind::Return) &&
        !event.callee.empty()) {
      const FunctionSummary* summary = summaries.find(event.callee);
      return summary != nullptr && summary->returnsOffloaded;
    }
    return false;
  });
}

DataflowResult<PlacementFact> analyzePlacement(const FunctionIR& fn, const SummaryTable& summaries,
                                               const StableAliases& aliases, PlacementFact entry,
                                               bool trackArguments) {
  if (trackArguments) {
    entry.arguments = fn.params;
    std::sort(entry.arguments.begin(), entry.arguments.end());
    entry.arguments.erase(std::unique(entry.arguments.begin(), entry.arguments.end()),
                          entry.arguments.end());
  }
  PlacementAnalysis analysis(fn, summaries, aliases, std::move(entry));
  return solveForward(fn, analysis);
}

} // namespace gradlint::ir
