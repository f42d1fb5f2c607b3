// Small questions about Clang's AST that the C++ lowering asks (lowering_units.h).
#include "checkers/cpp/lowering_units.h"

#include <fmt/format.h>

#include <algorithm>

namespace gradlint::cpp::detail {

bool isSetEnabledCall(const clang::Stmt* stmt) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(stmt);
  if (call == nullptr) return false;
  const clang::FunctionDecl* callee = call->getDirectCallee();
  return callee != nullptr && catalog::classifyCppFunction(callee->getQualifiedNameAsString()) ==
                                  catalog::CppGradApi::SetEnabled;
}

bool callsSetEnabled(const clang::Stmt* root) {
  std::vector<const clang::Stmt*> stack{root};
  while (!stack.empty()) {
    const clang::Stmt* stmt = stack.back();
    stack.pop_back();
    if (stmt == nullptr || llvm::isa<clang::LambdaExpr>(stmt)) continue;
    if (isSetEnabledCall(stmt)) return true;
    for (const clang::Stmt* child : stmt->children()) stack.push_back(child);
  }
  return false;
}

const clang::Expr* strip(const clang::Expr* expr) {
  while (expr != nullptr) {
    const clang::Expr* next = expr->IgnoreParenImpCasts();
    if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(next)) {
      next = cleanups->getSubExpr();
    } else if (const auto* bind = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(next)) {
      next = bind->getSubExpr();
    } else if (const auto* temporary = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(next)) {
      next = temporary->getSubExpr();
    } else if (const auto* constant = llvm::dyn_cast<clang::ConstantExpr>(next)) {
      next = constant->getSubExpr();
    } else if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(next);
               list != nullptr && list->getNumInits() == 1) {
      next = list->getInit(0);
    }
    if (next == expr) return expr;
    expr = next;
  }
  return expr;
}

bool isIsEnabledCall(const clang::Expr* expr) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(strip(expr));
  if (call == nullptr) return false;
  const clang::FunctionDecl* callee = call->getDirectCallee();
  return callee != nullptr && catalog::classifyCppFunction(callee->getQualifiedNameAsString()) ==
                                  catalog::CppGradApi::IsEnabled;
}

bool cannotThrow(const clang::FunctionProtoType* proto) {
  return proto != nullptr && proto->canThrow() == clang::CT_Cannot;
}

bool mayThrow(const clang::CallExpr* call) {
  if (const clang::FunctionDecl* callee = call->getDirectCallee()) {
    if (callee->getBuiltinID() != 0 || llvm::isa<clang::CXXDestructorDecl>(callee)) return false;
    return !cannotThrow(callee->getType()->getAs<clang::FunctionProtoType>());
  }
  clang::QualType type = call->getCallee()->getType();
  if (type.isNull()) return true;
  if (const auto* pointer = type->getAs<clang::PointerType>()) type = pointer->getPointeeType();
  if (const auto* member = type->getAs<clang::MemberPointerType>()) type = member->getPointeeType();
  return !cannotThrow(type->getAs<clang::FunctionProtoType>());
}

bool isStatementContext(const clang::Stmt* parent, const clang::Stmt* child) {
  if (parent == nullptr) return false;
  if (llvm::isa<clang::CompoundStmt, clang::CaseStmt, clang::DefaultStmt, clang::LabelStmt,
                clang::AttributedStmt>(parent)) {
    return true;
  }
  if (const auto* ifStmt = llvm::dyn_cast<clang::IfStmt>(parent)) {
    return child == ifStmt->getThen() || child == ifStmt->getElse();
  }
  if (const auto* whileStmt = llvm::dyn_cast<clang::WhileStmt>(parent)) {
    return child == whileStmt->getBody();
  }
  if (const auto* doStmt = llvm::dyn_cast<clang::DoStmt>(parent)) return child == doStmt->getBody();
  if (const auto* forStmt = llvm::dyn_cast<clang::ForStmt>(parent)) {
    return child == forStmt->getBody() || child == forStmt->getInc();
  }
  if (const auto* rangeFor = llvm::dyn_cast<clang::CXXForRangeStmt>(parent)) {
    return child == rangeFor->getBody();
  }
  return false;
}

bool isVoidCast(const clang::Stmt* stmt) {
  const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(stmt);
  return cast != nullptr && cast->getType()->isVoidType();
}

bool derivesFrom(const clang::CXXRecordDecl* record, std::string_view qualifiedName) {
  std::vector<const clang::CXXRecordDecl*> stack{record};
  for (size_t visited = 0; !stack.empty() && visited < 64; ++visited) {
    const clang::CXXRecordDecl* current = stack.back();
    stack.pop_back();
    if (current == nullptr) continue;
    if (const clang::CXXRecordDecl* definition = current->getDefinition()) current = definition;
    if (current->getQualifiedNameAsString() == qualifiedName) return true;
    if (!current->hasDefinition()) continue;
    for (const clang::CXXBaseSpecifier& base : current->bases()) {
      stack.push_back(base.getType()->getAsCXXRecordDecl());
    }
  }
  return false;
}

bool derivesFrom(clang::QualType type, std::string_view qualifiedName) {
  if (type.isNull()) return false;
  type = type.getNonReferenceType();
  if (const auto* pointer = type->getAs<clang::PointerType>()) type = pointer->getPointeeType();
  return derivesFrom(type->getAsCXXRecordDecl(), qualifiedName);
}

const clang::Expr* throughHolder(const clang::Expr* expr) {
  expr = expr->IgnoreParenImpCasts();
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(expr);
      op != nullptr &&
      (op->getOperator() == clang::OO_Arrow || op->getOperator() == clang::OO_Star) &&
      op->getNumArgs() >= 1) {
    return op->getArg(0)->IgnoreParenImpCasts();
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr);
      unary != nullptr && unary->getOpcode() == clang::UO_Deref) {
    return unary->getSubExpr()->IgnoreParenImpCasts();
  }
  return expr;
}

bool isModuleType(clang::QualType type) {
  return derivesFrom(type, kModuleClass) || derivesFrom(type, kModuleHolderClass);
}

} // namespace gradlint::cpp::detail
