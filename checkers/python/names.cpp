#include "checkers/python/names.h"

#include "checkers/python/syntax.h"

#include <vector>

namespace gradlint::python {

NameResolver::NameResolver(std::string moduleName, bool isPackageInit)
    : moduleName_(std::move(moduleName)) {
  if (isPackageInit) {
    package_ = moduleName_;
  } else if (auto dot = moduleName_.rfind('.'); dot != std::string::npos) {
    package_ = moduleName_.substr(0, dot);
  }
}

void NameResolver::bind(std::string_view name, std::string target) {
  if (journal_ != nullptr) journal_->emplace_back(name, target);
  bindings_[std::string(name)] = std::move(target);
}

void NameResolver::replay(const std::vector<Binding>& bindings) {
  for (const auto& [name, target] : bindings) bind(name, target);
}

void NameResolver::addDefinition(std::string_view name) {
  bind(name, moduleName_.empty() ? std::string(name) : moduleName_ + "." + std::string(name));
}

std::string NameResolver::absoluteModule(TSNode moduleNode, std::string_view source) const {
  if (kindOf(moduleNode) != Kind::relative_import) return std::string(text(moduleNode, source));
  // `from ..a.b import c`: one dot is the current package, each further dot its parent.
  size_t dots = 0;
  std::string rest;
  for (TSNode child : children(moduleNode)) {
    if (kindOf(child) == Kind::import_prefix) {
      for (char c : text(child, source)) dots += c == '.';
    } else if (kindOf(child) == Kind::dotted_name) {
      rest = std::string(text(child, source));
    }
  }
  std::string base = package_;
  for (size_t up = 1; up < dots && !base.empty(); ++up) {
    auto dot = base.rfind('.');
    base = dot == std::string::npos ? std::string() : base.substr(0, dot);
  }
  if (base.empty()) return rest;
  return rest.empty() ? base : base + "." + rest;
}

void NameResolver::addImport(TSNode statement, std::string_view source) {
  const Fields& f = fields();
  const Kind kind = kindOf(statement);
  if (kind == Kind::import_statement) {
    for (TSNode child : children(statement)) {
      if (kindOf(child) == Kind::aliased_import) {
        // import a.b as c  ->  c = a.b
        bind(text(field(child, f.alias), source),
             std::string(text(field(child, f.name), source)));
      } else if (kindOf(child) == Kind::dotted_name) {
        // import a.b  ->  binds `a`
        std::string_view dotted = text(child, source);
        std::string_view root = dotted.substr(0, dotted.find('.'));
        bind(root, std::string(root));
      }
    }
    return;
  }
  if (kind != Kind::import_from_statement) return;
  TSNode moduleNode = field(statement, f.moduleName);
  if (isNull(moduleNode)) return;
  const std::string module = absoluteModule(moduleNode, source);
  const uint32_t moduleEnd = ts_node_end_byte(moduleNode);
  for (TSNode child : children(statement)) {
    if (ts_node_start_byte(child) < moduleEnd) continue; // the module name itself
    std::string_view imported;
    std::string_view boundAs;
    if (kindOf(child) == Kind::aliased_import) {
      imported = text(field(child, f.name), source);
      boundAs = text(field(child, f.alias), source);
    } else if (kindOf(child) == Kind::dotted_name) {
      imported = boundAs = text(child, source);
    } else {
      continue;
    }
    std::string target =
        module.empty() ? std::string(imported) : module + "." + std::string(imported);
    imported_.emplace_back(boundAs, target);
    bind(boundAs, std::move(target));
  }
}

std::vector<std::string> NameResolver::importedModules(TSNode statement,
                                                       std::string_view source) const {
  const Fields& f = fields();
  std::vector<std::string> modules;
  const Kind kind = kindOf(statement);
  if (kind == Kind::import_statement) {
    for (TSNode child : children(statement)) {
      if (kindOf(child) == Kind::aliased_import) {
        modules.emplace_back(text(field(child, f.name), source));
      } else if (kindOf(child) == Kind::dotted_name) {
        modules.emplace_back(text(child, source));
      }
    }
  } else if (kind == Kind::import_from_statement) {
    TSNode moduleNode = field(statement, f.moduleName);
    if (!isNull(moduleNode)) {
      const std::string module = absoluteModule(moduleNode, source);
      if (!module.empty()) modules.push_back(module);
      // `from pkg import sub` imports pkg.sub when that is a module (a name otherwise).
      const uint32_t moduleEnd = ts_node_end_byte(moduleNode);
      for (TSNode child : children(statement)) {
        if (module.empty() || ts_node_start_byte(child) < moduleEnd) continue;
        TSNode name = kindOf(child) == Kind::aliased_import ? field(child, f.name) : child;
        if (kindOf(name) == Kind::dotted_name) {
          modules.push_back(module + "." + std::string(text(name, source)));
        }
      }
    }
  }
  return modules;
}

std::string NameResolver::resolve(TSNode expression, std::string_view source) const {
  const Fields& f = fields();
  std::vector<std::string_view> attributes;
  TSNode node = unparenthesize(expression);
  while (!isNull(node) && kindOf(node) == Kind::attribute) {
    attributes.push_back(text(field(node, f.attribute), source));
    node = unparenthesize(field(node, f.object));
  }
  if (isNull(node) || kindOf(node) != Kind::identifier) return {};
  auto it = bindings_.find(std::string(text(node, source)));
  if (it == bindings_.end()) return {};
  std::string qualified = it->second;
  for (auto at = attributes.rbegin(); at != attributes.rend(); ++at) {
    qualified += '.';
    qualified += *at;
  }
  return qualified;
}

} // namespace gradlint::python
