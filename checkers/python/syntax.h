// Thin helpers over tree-sitter-python nodes: node kinds as an enum (looked up once per symbol,
// not by string compare), fields, children and text.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gradlint::python {

#define GRADLINT_PY_KINDS(X)                                                                     \
  X(module) X(block) X(expression_statement) X(function_definition) X(class_definition)          \
  X(decorated_definition) X(decorator) X(if_statement) X(elif_clause) X(else_clause)             \
  X(for_statement) X(while_statement) X(try_statement) X(except_clause) X(except_group_clause)   \
  X(finally_clause) X(with_statement) X(with_clause) X(with_item) X(match_statement)             \
  X(case_clause) X(case_pattern) X(return_statement) X(raise_statement) X(break_statement)       \
  X(continue_statement) X(assert_statement) X(import_statement) X(import_from_statement)         \
  X(future_import_statement) X(aliased_import) X(dotted_name) X(relative_import)                 \
  X(import_prefix) X(wildcard_import) X(assignment) X(augmented_assignment) X(call)              \
  X(attribute) X(identifier) X(argument_list) X(keyword_argument) X(lambda) X(yield) X(await)   \
  X(comment) X(string) X(true_) X(false_) X(integer) X(parenthesized_expression)                 \
  X(as_pattern) X(comparison_operator) X(generator_expression) X(list_splat) X(dictionary_splat) \
  X(parameters) X(lambda_parameters) X(default_parameter) X(typed_parameter)                     \
  X(typed_default_parameter) X(list_splat_pattern) X(dictionary_splat_pattern) X(pattern_list)   \
  X(keyword_separator)                                                                           \
  X(tuple_pattern) X(expression_list) X(tuple) X(dictionary) X(pair) X(none) X(list_comprehension) X(set_comprehension) X(dictionary_comprehension) X(type_alias_statement) X(named_expression) X(not_operator) \
  X(boolean_operator) X(list) X(list_pattern) X(for_in_clause) X(global_statement)                \
  X(nonlocal_statement) X(conditional_expression) X(subscript) X(ERROR)

enum class Kind : uint8_t {
  other,
#define GRADLINT_KIND_ENUM(name) name,
  GRADLINT_PY_KINDS(GRADLINT_KIND_ENUM)
#undef GRADLINT_KIND_ENUM
};

// Field ids of the grammar, resolved once.
struct Fields {
  TSFieldId name, body, value, alias, function, arguments, object, attribute, left, right,
      condition, consequence, alternative, subject, moduleName, parameters, definition, guard;
};

const TSLanguage* pythonLanguage();
const Fields& fields();
Kind kindOf(TSNode node);

inline TSNode field(TSNode node, TSFieldId id) { return ts_node_child_by_field_id(node, id); }
inline bool isNull(TSNode node) { return ts_node_is_null(node); }

// All children (named only when `named`), through a cursor: linear, where ts_node_child(i) in a
// loop would be quadratic on wide nodes.
std::vector<TSNode> children(TSNode node, bool named = true);

inline std::string_view text(TSNode node, std::string_view source) {
  // Error recovery can leave a field empty (`x.` with no attribute): a null node, no text.
  if (ts_node_is_null(node)) return {};
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  if (start >= source.size() || end > source.size() || end < start) return {};
  return source.substr(start, end - start);
}

// Skips parentheses around an expression.
TSNode unparenthesize(TSNode node);

enum class Walk : uint8_t { Descend, Skip, Stop };

// Visits `root` and its descendants in document order through a cursor, without recursion
// (trees nest thousands deep). `visit(node)` says whether to go into the node's children,
// skip them, or stop the walk.
template <typename Visit> void walkPreorder(TSNode root, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  while (true) {
    const Walk next = visit(ts_tree_cursor_current_node(&cursor));
    if (next == Walk::Stop) break;
    if (next == Walk::Descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
}

// walkPreorder that also hands `visit` the node's ancestors below and including `root`, nearest
// last. They are kept on the way down: ts_node_parent searches down from the tree's root on each
// call, so climbing from every node of a wide module with it is quadratic.
template <typename Visit> void walkPreorderWithAncestors(TSNode root, Visit&& visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  std::vector<TSNode> ancestors;
  while (true) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const Walk next = visit(node, static_cast<const std::vector<TSNode>&>(ancestors));
    if (next == Walk::Stop) break;
    if (next == Walk::Descend && ts_tree_cursor_goto_first_child(&cursor)) {
      ancestors.push_back(node);
      continue;
    }
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      ancestors.pop_back();
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
}

} // namespace gradlint::python
