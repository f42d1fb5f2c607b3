#include "checkers/python/syntax.h"

#include <array>
#include <cstring>
#include <string>

namespace gradlint::python {
namespace {

struct KindTable {
  std::vector<Kind> bySymbol;
  Fields fieldIds{};
  KindTable() {
    const TSLanguage* language = tree_sitter_python();
    const uint32_t count = ts_language_symbol_count(language);
    bySymbol.assign(count, Kind::other);
    struct Named { const char* name; Kind kind; };
    static constexpr Named kNames[] = {
#define GRADLINT_KIND_NAME(n) {#n, Kind::n},
        GRADLINT_PY_KINDS(GRADLINT_KIND_NAME)
#undef GRADLINT_KIND_NAME
    };
    for (uint32_t symbol = 0; symbol < count; ++symbol) {
      if (ts_language_symbol_type(language, static_cast<TSSymbol>(symbol)) !=
          TSSymbolTypeRegular) {
        continue;
      }
      std::string name = ts_language_symbol_name(language, static_cast<TSSymbol>(symbol));
      if (name == "true") name = "true_";
      if (name == "false") name = "false_";
      for (const Named& entry : kNames) {
        if (name == entry.name) bySymbol[symbol] = entry.kind;
      }
    }
    auto id = [&](const char* name) {
      return ts_language_field_id_for_name(language, name, static_cast<uint32_t>(strlen(name)));
    };
    fieldIds = {id("name"),      id("body"),        id("value"),       id("alias"),
                id("function"),  id("arguments"),   id("object"),      id("attribute"),
                id("left"),      id("right"),       id("condition"),   id("consequence"),
                id("alternative"), id("subject"),   id("module_name"), id("parameters"),
                id("definition"), id("guard")};
  }
};

const KindTable& table() {
  static const KindTable instance;
  return instance;
}

} // namespace

const TSLanguage* pythonLanguage() { return tree_sitter_python(); }
const Fields& fields() { return table().fieldIds; }

Kind kindOf(TSNode node) {
  const TSSymbol symbol = ts_node_symbol(node);
  if (symbol == static_cast<TSSymbol>(-1)) return Kind::ERROR; // ts_builtin_sym_error
  const auto& bySymbol = table().bySymbol;
  return symbol < bySymbol.size() ? bySymbol[symbol] : Kind::other;
}

std::vector<TSNode> children(TSNode node, bool named) {
  std::vector<TSNode> result;
  if (ts_node_child_count(node) == 0) return result;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (!named || ts_node_is_named(child)) result.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return result;
}

TSNode unparenthesize(TSNode node) {
  while (!ts_node_is_null(node) && kindOf(node) == Kind::parenthesized_expression &&
         ts_node_named_child_count(node) == 1) {
    node = ts_node_named_child(node, 0);
  }
  return node;
}

} // namespace gradlint::python
