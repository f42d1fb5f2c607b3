// Qualified-name resolution through imports: `th.set_grad_enabled` is
// `torch.set_grad_enabled` after `import torch as th`; a local `def set_grad_enabled` is not.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gradlint::python {

class NameResolver {
public:
  // `moduleName` is the dotted name of the file being analysed (may be empty for a script);
  // `isPackageInit` when the file is a package's __init__.py (relative imports start there).
  NameResolver(std::string moduleName, bool isPackageInit);

  // Records the names an import statement binds. Later bindings win, as at run time.
  void addImport(TSNode statement, std::string_view source);
  // The absolute names of the modules an import statement imports (`import a.b` and
  // `from a.b import c`: `a.b`; `from . import c` in package `p`: `p`).
  std::vector<std::string> importedModules(TSNode statement, std::string_view source) const;
  // Records a module-level def/class: the name now means `module.name`.
  void addDefinition(std::string_view name);

  // The qualified name an identifier or attribute chain refers to, or "" when its root name is
  // not bound by an import or definition.
  std::string resolve(TSNode expression, std::string_view source) const;
  const std::string& moduleName() const { return moduleName_; }

  using Binding = std::pair<std::string, std::string>; // name -> qualified target
  // While a journal is set, every binding made is also appended to it (null: none).
  void setJournal(std::vector<Binding>* journal) { journal_ = journal; }
  // Makes bindings recorded in a journal again, in order.
  void replay(const std::vector<Binding>& bindings);
  const std::unordered_map<std::string, std::string>& bindings() const { return bindings_; }
  // Every `from m import x` binding made, in order, also those a later one replaced (`try:` /
  // `except ImportError:` and `if`/`else` fallbacks bind one name twice; either may run).
  const std::vector<Binding>& importedBindings() const { return imported_; }

private:
  std::string absoluteModule(TSNode moduleNode, std::string_view source) const;
  void bind(std::string_view name, std::string target);

  std::string moduleName_;
  std::string package_; // the package relative imports resolve against
  std::unordered_map<std::string, std::string> bindings_;
  std::vector<Binding>* journal_ = nullptr;
  std::vector<Binding> imported_;
};

} // namespace gradlint::python
