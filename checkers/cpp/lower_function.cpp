// One function, method, constructor, destructor or lambda to a CFG of Grad IR events.
#include "checkers/cpp/lowering_units.h"

#include <fmt/format.h>

#include <algorithm>

namespace gradlint::cpp::detail {

// --- UnitLowerer ---------------------------------------------------------------------------

ir::SourceRange UnitLowerer::rangeOf(clang::SourceRange range) const {
  if (const auto span = tu_.bytes(range)) {
    return tu_.source().range(span->first, span->second);
  }
  // Spelled outside the main file (an #include inside a body): point at the function.
  return fn_.nameRange;
}

std::string UnitLowerer::textOf(clang::SourceRange range) const { return tu_.spelling(range); }

NodeId UnitLowerer::newNode(Event event) {
  if (fn_.nodes.size() >= kMaxNodesPerUnit) tooLarge_ = true;
  fn_.nodes.push_back(ir::Node{std::move(event), {}, kNoNode});
  return static_cast<NodeId>(fn_.nodes.size() - 1);
}

void UnitLowerer::link(NodeId from, NodeId to) {
  if (from == kNoNode || to == kNoNode) return;
  ir::Successors& succs = fn_.nodes[from].succs;
  if (std::find(succs.begin(), succs.end(), to) == succs.end()) succs.push_back(to);
}

NodeId UnitLowerer::emit(Event event, const clang::Stmt* at) {
  if (at != nullptr) {
    setRegion(event, at);
    event.loopDepth = loopDepthOf(at);
  }
  const bool mayRaise = event.mayRaise;
  const NodeId id = newNode(std::move(event));
  link(current_, id);
  if (mayRaise) fn_.nodes[id].exceptionSucc = at != nullptr ? landingFor(at) : exceptionalTarget_;
  current_ = id;
  return id;
}

NodeId UnitLowerer::blockEntry(const clang::CFGBlock* block) {
  auto [it, inserted] = blockEntries_.try_emplace(block->getBlockID(), kNoNode);
  if (inserted) it->second = newNode(Event{});
  return it->second;
}

std::string UnitLowerer::varName(const clang::ValueDecl* decl) const {
  std::string name = decl->getNameAsString();
  if (name.empty()) name = "<unnamed>";
  // Two variables of one name (shadowing, sibling scopes) stay apart: `g@12` for the later.
  auto it = nameCounts_.find(name);
  if (it != nameCounts_.end() && it->second > 1 && llvm::isa<clang::VarDecl>(decl) &&
      !llvm::isa<clang::ParmVarDecl>(decl)) {
    const auto span = tu_.bytes(decl->getLocation());
    if (span) name += fmt::format("@{}", tu_.source().lineOf(span->first) + 1);
  }
  return name;
}

bool UnitLowerer::resultDiscarded(const clang::Expr* expr) const {
  const clang::Stmt* child = expr;
  const clang::Stmt* parent = parents_->getParent(child);
  while (parent != nullptr &&
         (llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr, clang::ExprWithCleanups,
                    clang::CXXBindTemporaryExpr, clang::MaterializeTemporaryExpr,
                    clang::ConstantExpr>(parent) ||
          isVoidCast(parent))) {
    child = parent;
    parent = parents_->getParent(child);
  }
  return isStatementContext(parent, child);
}

std::string UnitLowerer::assignedTo(const clang::Expr* expr) const {
  const clang::Stmt* child = expr;
  const clang::Stmt* parent = parents_->getParent(child);
  while (parent != nullptr &&
         (llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr, clang::ExprWithCleanups,
                    clang::CXXBindTemporaryExpr, clang::MaterializeTemporaryExpr,
                    clang::ConstantExpr, clang::InitListExpr>(parent))) {
    child = parent;
    parent = parents_->getParent(child);
  }
  if (parent == nullptr) return "";
  if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(parent)) {
    for (const clang::Decl* d : decl->decls()) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
      if (var != nullptr && var->getInit() == child) return varName(var);
    }
    return "";
  }
  if (const auto* assign = llvm::dyn_cast<clang::BinaryOperator>(parent);
      assign != nullptr && assign->isAssignmentOp() && assign->getRHS() == child) {
    const clang::Expr* target = assign->getLHS()->IgnoreParenImpCasts();
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(target)) {
      return varName(ref->getDecl());
    }
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target)) {
      return member->getMemberDecl()->getNameAsString();
    }
  }
  return "";
}

ir::GradValue UnitLowerer::modeArgument(const clang::Expr* argument) const {
  if (argument == nullptr) return ir::GradValue::Unknown;
  const clang::Expr* bare = argument->IgnoreParenImpCasts();
  if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(bare)) {
    argument = defaulted->getExpr();
  }
  bool value = false;
  if (!argument->isValueDependent() && !argument->isTypeDependent() &&
      argument->EvaluateAsBooleanCondition(value, tu_.context())) {
    return value ? ir::GradValue::Enabled : ir::GradValue::Disabled;
  }
  return ir::GradValue::Unknown;
}

ir::GradValue UnitLowerer::guardArgument(const ObjectKind& kind, const clang::Expr* init) const {
  // The mode argument as Python's lowering records it: `AutoGradMode(false)` -> Disabled,
  // `InferenceMode()` -> Enabled (inference mode on); Unknown for guards that take none.
  if (kind.guard == nullptr || kind.typeName != kind.guard->qualifiedName) {
    return ir::GradValue::Unknown;
  }
  if (kind.guard->kind != ir::GuardKind::SetGradEnabled &&
      kind.guard->kind != ir::GuardKind::InferenceMode) {
    return ir::GradValue::Unknown;
  }
  const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(strip(init));
  if (construct == nullptr) return ir::GradValue::Unknown;
  if (construct->getNumArgs() == 0) {
    return kind.guard->kind == ir::GuardKind::InferenceMode ? ir::GradValue::Enabled
                                                            : ir::GradValue::Unknown;
  }
  return modeArgument(construct->getArg(0));
}

const ObjectKind& UnitLowerer::objectKind(const clang::VarDecl* var) const {
  static const ObjectKind kNone;
  if (!var->hasLocalStorage()) return kNone;
  clang::QualType type = var->getType();
  if (type->isReferenceType()) {
    // Only a reference that extends a temporary's life owns a guard.
    const clang::Expr* init = var->getInit();
    if (init == nullptr) return kNone;
    init = init->IgnoreImplicit();
    if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(init)) {
      init = cleanups->getSubExpr()->IgnoreImplicit();
    }
    if (!llvm::isa<clang::MaterializeTemporaryExpr>(init)) return kNone;
  }
  return tu_.types().classify(type);
}

bool UnitLowerer::isGuardObject(const clang::VarDecl* var) const {
  return objectKind(var).kind != ObjectKind::None;
}

void UnitLowerer::collectScopeObjects() {
  // One pass over the body: per compound statement, which guard objects each child statement
  // sees declared before it. Nested lambdas are their own units.
  std::vector<const clang::Stmt*> stack{body_};
  while (!stack.empty()) {
    const clang::Stmt* stmt = stack.back();
    stack.pop_back();
    if (stmt == nullptr) continue;
    if (llvm::isa<clang::LambdaExpr>(stmt)) continue;
    if (const auto* compound = llvm::dyn_cast<clang::CompoundStmt>(stmt)) {
      std::vector<const clang::VarDecl*> seen;
      for (const clang::Stmt* child : compound->body()) {
        if (!seen.empty()) declaredBefore_[child] = seen;
        if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(child)) {
          for (const clang::Decl* d : decl->decls()) {
            const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
            if (var != nullptr && isGuardObject(var)) seen.push_back(var);
          }
        }
      }
    }
    if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      for (const clang::Decl* d : decl->decls()) {
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(d)) {
          ++nameCounts_[var->getNameAsString()];
        }
      }
    }
    for (const clang::Stmt* child : stmt->children()) stack.push_back(child);
  }
}

UnitLowerer::Scope UnitLowerer::scopeOf(const clang::Stmt* stmt) const {
  Scope scope;
  auto addVar = [&](const clang::VarDecl* var) {
    if (var != nullptr && isGuardObject(var)) scope.live.push_back(var);
  };
  auto addDeclStmt = [&](const clang::Stmt* init) {
    if (const auto* decl = llvm::dyn_cast_or_null<clang::DeclStmt>(init)) {
      std::vector<const clang::VarDecl*> vars;
      for (const clang::Decl* d : decl->decls()) vars.push_back(llvm::dyn_cast<clang::VarDecl>(d));
      for (auto it = vars.rbegin(); it != vars.rend(); ++it) addVar(*it);
    }
  };
  const clang::Stmt* child = stmt;
  for (const clang::Stmt* parent = parents_->getParent(child); parent != nullptr;
       child = parent, parent = parents_->getParent(child)) {
    if (llvm::isa<clang::CompoundStmt>(parent)) {
      if (auto it = declaredBefore_.find(child); it != declaredBefore_.end()) {
        for (auto var = it->second.rbegin(); var != it->second.rend(); ++var) addVar(*var);
      }
    } else if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(parent)) {
      // `T a; ... T b = f();`: in a declaration, the declarators before the one being
      // initialised are alive.
      std::vector<const clang::VarDecl*> before;
      for (const clang::Decl* d : decl->decls()) {
        const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
        if (var == nullptr) continue;
        if (var->getInit() == child) break;
        before.push_back(var);
      }
      for (auto var = before.rbegin(); var != before.rend(); ++var) addVar(*var);
    } else if (const auto* ifStmt = llvm::dyn_cast<clang::IfStmt>(parent)) {
      if (child == ifStmt->getThen() || child == ifStmt->getElse()) {
        addVar(ifStmt->getConditionVariable());
        addDeclStmt(ifStmt->getInit());
      }
    } else if (const auto* switchStmt = llvm::dyn_cast<clang::SwitchStmt>(parent)) {
      if (child == switchStmt->getBody()) {
        addVar(switchStmt->getConditionVariable());
        addDeclStmt(switchStmt->getInit());
      }
    } else if (const auto* whileStmt = llvm::dyn_cast<clang::WhileStmt>(parent)) {
      if (child == whileStmt->getBody()) addVar(whileStmt->getConditionVariable());
    } else if (const auto* forStmt = llvm::dyn_cast<clang::ForStmt>(parent)) {
      if (child != forStmt->getInit()) {
        addVar(forStmt->getConditionVariable());
        addDeclStmt(forStmt->getInit());
      }
    } else if (const auto* rangeFor = llvm::dyn_cast<clang::CXXForRangeStmt>(parent)) {
      if (child == rangeFor->getBody()) addVar(rangeFor->getLoopVariable());
    } else if (const auto* tryStmt = llvm::dyn_cast<clang::CXXTryStmt>(parent)) {
      if (child == tryStmt->getTryBlock()) scope.tries.emplace_back(scope.live.size(), tryStmt);
    }
  }
  return scope;
}

NodeId UnitLowerer::cleanupChain(const std::vector<const clang::VarDecl*>& objects, NodeId target) {
  if (objects.empty()) return target;
  auto key = std::make_pair(objects, target);
  if (auto it = chains_.find(key); it != chains_.end()) return it->second;
  // Destructors run innermost first; each guard restores the mode it saved.
  NodeId first = kNoNode;
  NodeId previous = kNoNode;
  for (const clang::VarDecl* var : objects) {
    const ObjectKind& kind = objectKind(var);
    std::vector<Event> events;
    if (kind.kind == ObjectKind::Restorer || (kind.guard != nullptr && kind.guard->savesGradMode)) {
      Event restore;
      restore.kind = EventKind::RestoreGrad;
      restore.var = varName(var);
      restore.range = rangeOf(var->getSourceRange());
      events.push_back(std::move(restore));
    }
    if (kind.kind == ObjectKind::Guard) {
      Event exit;
      exit.kind = EventKind::ExitGuard;
      exit.guard = kind.guard->kind;
      exit.callee = kind.typeName;
      exit.var = varName(var);
      exit.range = rangeOf(var->getSourceRange());
      events.push_back(std::move(exit));
    }
    for (Event& event : events) {
      const NodeId id = newNode(std::move(event));
      if (first == kNoNode) first = id;
      link(previous, id);
      previous = id;
    }
  }
  link(previous, target);
  if (first == kNoNode) first = target;
  chains_.emplace(std::move(key), first);
  return first;
}

NodeId UnitLowerer::landing(const Scope& scope, size_t tryLevel) {
  const size_t from = tryLevel == 0 ? 0 : scope.tries[tryLevel - 1].first;
  const size_t to = tryLevel < scope.tries.size() ? scope.tries[tryLevel].first : scope.live.size();
  std::vector<const clang::VarDecl*> objects(scope.live.begin() + static_cast<ptrdiff_t>(from),
                                             scope.live.begin() + static_cast<ptrdiff_t>(to));
  NodeId target = exceptionalTarget_;
  if (tryLevel < scope.tries.size()) {
    target = dispatch(scope.tries[tryLevel].second, scope, tryLevel + 1);
  }
  if (target == kNoNode) return kNoNode; // a noexcept function terminates: nothing runs
  return cleanupChain(objects, target);
}

NodeId UnitLowerer::dispatch(const clang::CXXTryStmt* tryStmt, const Scope& outer,
                             size_t tryLevel) {
  if (auto it = dispatches_.find(tryStmt); it != dispatches_.end()) return it->second;
  const NodeId id = newNode(Event{});
  dispatches_.emplace(tryStmt, id);
  bool catchesAll = false;
  for (unsigned i = 0; i < tryStmt->getNumHandlers(); ++i) {
    const clang::CXXCatchStmt* handler = tryStmt->getHandler(i);
    if (handler->getExceptionDecl() == nullptr) catchesAll = true; // catch (...)
    if (auto block = catchBlocks_.find(handler); block != catchBlocks_.end()) {
      link(id, blockEntry(block->second));
    }
  }
  if (!catchesAll) link(id, landing(outer, tryLevel));
  return id;
}

NodeId UnitLowerer::landingFor(const clang::Stmt* stmt) {
  return landing(scopeOf(stmt), 0);
}

void UnitLowerer::setRegion(Event& event, const clang::Stmt* at) const {
  const Scope scope = scopeOf(at);
  for (const clang::VarDecl* var : scope.live) {
    const ObjectKind& kind = objectKind(var);
    if (kind.kind != ObjectKind::Guard || kind.guard->kind == ir::GuardKind::Other) continue;
    event.region = kind.guard->kind;
    event.regionDisablesGrad =
        ir::guardDisablesGrad(kind.guard->kind, guardArgument(kind, var->getInit()));
    auto enter = guardEnters_.find(var);
    event.regionEnter = enter == guardEnters_.end() ? UINT32_MAX : enter->second;
    return;
  }
}

void UnitLowerer::lowerSetEnabled(const clang::CallExpr* call, const std::string& callee) {
  Event event;
  event.kind = EventKind::SetGrad;
  event.callee = callee;
  event.spelled = textOf(call->getCallee()->getSourceRange());
  if (event.spelled.empty()) event.spelled = callee;
  event.range = rangeOf(call);
  const clang::Expr* argument = call->getNumArgs() > 0 ? call->getArg(0) : nullptr;
  event.value = modeArgument(argument);
  if (argument != nullptr) {
    const std::string written = textOf(argument->getSourceRange());
    event.writeCall().argVars.emplace_back(written);
  }
  if (event.value == ir::GradValue::Unknown && argument != nullptr) {
    const clang::Expr* value = argument->IgnoreParenImpCasts();
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(value)) {
      if (const auto* param = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl());
          param != nullptr && param->getDeclContext() == function_) {
        event.kind = EventKind::RestoreArg;
        event.argIndex = static_cast<int32_t>(param->getFunctionScopeIndex());
        event.var = varName(param);
      } else if (const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
                 var != nullptr && var->hasLocalStorage()) {
        // A local holding a mode: restoring whatever it saved (the caller's mode when it was
        // never saved on the path).
        event.kind = EventKind::RestoreGrad;
        event.var = varName(var);
      }
    } else if (llvm::isa<clang::MemberExpr>(value)) {
      // A member: a guard object's saved mode (`set_enabled(prev_)` in a destructor).
      event.kind = EventKind::RestoreGrad;
      event.var = textOf(value->getSourceRange());
      if (event.var.empty()) {
        event.var = llvm::cast<clang::MemberExpr>(value)->getMemberDecl()->getNameAsString();
      }
    }
  }
  emit(std::move(event), call);
}

void UnitLowerer::lowerCall(const clang::CallExpr* call) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  std::string name = callee != nullptr ? callee->getQualifiedNameAsString() : std::string();
  switch (catalog::classifyCppFunction(name)) {
  case catalog::CppGradApi::SetEnabled: lowerSetEnabled(call, name); return;
  case catalog::CppGradApi::IsEnabled: return; // a save, lowered at its declaration/assignment
  case catalog::CppGradApi::None: break;
  }
  if (callee != nullptr && callee->getBuiltinID() != 0) return;
  if (lowerTrainingCall(call) || lowerDependentTrainingCall(call)) return;
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
      op != nullptr && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2) {
    // `loss = criterion(output, target)` on a class type (a tensor): a definition.
    if (const std::string target = objectName(op->getArg(0)); !target.empty()) {
      lowerAssign(target, op->getArg(1), call);
      return;
    }
  }
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
      op != nullptr && op->getNumArgs() == 2 &&
      (op->getOperator() == clang::OO_PlusEqual || op->getOperator() == clang::OO_MinusEqual ||
       op->getOperator() == clang::OO_StarEqual || op->getOperator() == clang::OO_SlashEqual)) {
    // `loss += criterion(output, target)`: a definition computed from the old value and the
    // right side (the whole call holds both).
    if (const std::string target = objectName(op->getArg(0)); !target.empty()) {
      lowerAssign(target, op, call);
      return;
    }
  }
  Event event;
  event.kind = EventKind::Call;
  event.callee = std::move(name);
  event.spelled = textOf(call->getCallee()->getSourceRange());
  // A module's forward pass is spelled `model.forward` whichever way it is called
  // (`model->forward(x)`, `model(x)` through a ModuleHolder), as GL303 looks for it.
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    const clang::CXXMethodDecl* method = member->getMethodDecl();
    if (method != nullptr && method->getIdentifier() != nullptr && method->getName() == "forward" &&
        (derivesFrom(method->getParent(), kModuleClass) ||
         derivesFrom(method->getParent(), kScriptModuleClass))) {
      if (const std::string object = objectName(member->getImplicitObjectArgument());
          !object.empty()) {
        event.spelled = object + ".forward";
      }
    }
  } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
             op != nullptr && op->getOperator() == clang::OO_Call && op->getNumArgs() >= 1 &&
             isModuleType(op->getArg(0)->getType())) {
    if (const std::string object = objectName(op->getArg(0)); !object.empty()) {
      event.spelled = object;
    }
  }
  event.mayRaise = mayThrow(call);
  event.resultDiscarded = resultDiscarded(call);
  event.var = assignedTo(call);
  event.range = rangeOf(call);
  ir::CallArguments arguments;
  for (const clang::Expr* argument : call->arguments()) {
    const clang::Expr* value = argument->IgnoreParenImpCasts();
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(value);
    arguments.argVars.emplace_back(ref != nullptr && llvm::isa<clang::VarDecl>(ref->getDecl())
                                       ? varName(ref->getDecl())
                                       : std::string());
    int8_t literal = -1;
    if (const auto* boolean = llvm::dyn_cast<clang::CXXBoolLiteralExpr>(value)) {
      literal = boolean->getValue() ? 1 : 0;
    }
    arguments.argBools.push_back(literal);
  }
  if (!arguments.empty()) event.writeCall() = std::move(arguments);
  emit(std::move(event), call);
}

bool UnitLowerer::lowerTrainingCall(const clang::CallExpr* call) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (callee == nullptr) return false;
  Event event;
  event.callee = callee->getQualifiedNameAsString();
  event.range = rangeOf(call);
  event.mayRaise = mayThrow(call);
  if (event.callee == "torch::autograd::backward") {
    event.kind = EventKind::Backward;
    event.spelled = textOf(call->getCallee()->getSourceRange());
    if (call->getNumArgs() > 0) {
      // `torch::autograd::backward({loss})`: the list's first tensor.
      const clang::Expr* tensors = strip(call->getArg(0));
      if (const auto* list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(tensors)) {
        tensors = strip(list->getSubExpr());
      }
      if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(tensors);
          construct != nullptr && construct->getNumArgs() == 1) {
        tensors = strip(construct->getArg(0)); // a std::vector built from the list
        if (const auto* list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(tensors)) {
          tensors = strip(list->getSubExpr());
        }
      }
      if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(tensors);
          list != nullptr && list->getNumInits() > 0) {
        tensors = list->getInit(0);
      }
      event.var = objectName(tensors);
    }
    emit(std::move(event), call);
    return true;
  }
  const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
  if (member == nullptr) return false;
  const clang::CXXMethodDecl* method = member->getMethodDecl();
  if (method == nullptr || method->getIdentifier() == nullptr) return false;
  const llvm::StringRef name = method->getName();
  const clang::CXXRecordDecl* owner = method->getParent();
  if (name == "backward" && derivesFrom(owner, kTensorClass)) {
    event.kind = EventKind::Backward;
  } else if (name == "step" && derivesFrom(owner, kOptimizerClass)) {
    event.kind = EventKind::Step;
  } else if (name == "zero_grad" &&
             (derivesFrom(owner, kOptimizerClass) || derivesFrom(owner, kModuleClass))) {
    event.kind = EventKind::ZeroGrad;
  } else if (name == "eval" &&
             (derivesFrom(owner, kModuleClass) || derivesFrom(owner, kScriptModuleClass))) {
    event.kind = EventKind::Eval;
    event.moduleMode = true;
  } else if (name == "train" &&
             (derivesFrom(owner, kModuleClass) || derivesFrom(owner, kScriptModuleClass))) {
    // `train()` / `train(true)` trains, `train(false)` evaluates, `train(flag)` is unknown.
    const ir::GradValue mode =
        call->getNumArgs() > 0 ? modeArgument(call->getArg(0)) : ir::GradValue::Enabled;
    if (mode == ir::GradValue::Unknown) return false;
    event.kind = mode == ir::GradValue::Enabled ? EventKind::Train : EventKind::Eval;
    event.moduleMode = true;
  } else {
    return false;
  }
  const clang::Expr* object = member->getImplicitObjectArgument();
  event.var = objectName(object);
  const std::string written =
      event.var.empty() ? textOf(object->getSourceRange()) : event.var.str();
  event.spelled = written.empty() ? name.str() : written + "." + name.str();
  emit(std::move(event), call);
  return true;
}

// In a template, `loss.backward()` and `model.zero_grad()` whose object's type depends on a
// template parameter (`auto loss = criterion(model->forward(batch.data), batch.target)` in a
// loop over a `Loader`) name no method yet: they are read by name, as Python's are. Only these
// two: `backward` is the tensor's in practice, and a reset read where there is none would only
// silence GL301; a dependent `step()` may be an environment's and is left unknown.
bool UnitLowerer::lowerDependentTrainingCall(const clang::CallExpr* call) {
  const auto* member =
      llvm::dyn_cast<clang::CXXDependentScopeMemberExpr>(call->getCallee()->IgnoreParens());
  if (member == nullptr || member->isImplicitAccess() ||
      !member->getMember().isIdentifier()) {
    return false;
  }
  const std::string name = member->getMember().getAsString();
  Event event;
  if (name == "backward") {
    event.kind = EventKind::Backward;
  } else if (name == "zero_grad") {
    event.kind = EventKind::ZeroGrad;
  } else {
    return false;
  }
  event.range = rangeOf(call);
  event.mayRaise = true;
  event.var = objectName(member->getBase());
  const std::string written =
      event.var.empty() ? textOf(member->getBase()->getSourceRange()) : event.var.str();
  event.spelled = written.empty() ? name : written + "." + name;
  emit(std::move(event), call);
  return true;
}

// `x.clone()` on a tensor: a copy, a normal tensor whatever mode made `x`.
bool isTensorClone(const clang::Stmt* stmt) {
  const auto* call = llvm::dyn_cast_or_null<clang::CXXMemberCallExpr>(stmt);
  const clang::CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
  return method != nullptr && method->getIdentifier() != nullptr &&
         method->getName() == "clone" && derivesFrom(method->getParent(), kTensorClass);
}

void UnitLowerer::lowerAssign(const std::string& var, const clang::Expr* value,
                              const clang::Stmt* at) {
  Event assign;
  assign.kind = EventKind::Assign;
  assign.var = var;
  assign.range = rangeOf(at);
  // The names the value is computed from (not in nested lambdas, nor in the object of a
  // `clone()`: a copy is a new tensor, whatever mode made what it copies, so `head(x.clone())`
  // does not depend on how `x` was made).
  std::vector<std::string> deps;
  std::vector<const clang::Stmt*> stack{value};
  while (!stack.empty()) {
    const clang::Stmt* stmt = stack.back();
    stack.pop_back();
    if (stmt == nullptr || llvm::isa<clang::LambdaExpr>(stmt)) continue;
    if (stmt != value && isTensorClone(stmt)) continue;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(stmt);
        ref != nullptr && llvm::isa<clang::VarDecl>(ref->getDecl())) {
      deps.push_back(varName(ref->getDecl()));
      continue;
    }
    if (const auto* field = llvm::dyn_cast<clang::MemberExpr>(stmt);
        field != nullptr &&
        llvm::isa<clang::CXXThisExpr>(field->getBase()->IgnoreParenImpCasts())) {
      deps.push_back(field->getMemberDecl()->getNameAsString());
      continue;
    }
    for (const clang::Stmt* child : stmt->children()) stack.push_back(child);
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  // `x.clone()` copies: not a view of what it was computed from.
  const bool freshValue = isTensorClone(strip(value));
  if (!deps.empty() || freshValue) {
    ir::ValueSources& sources = assign.writeSources();
    sources.deps.assign(deps.begin(), deps.end());
    sources.freshValue = freshValue;
  }
  emit(std::move(assign), at);
}

std::string UnitLowerer::objectName(const clang::Expr* expr) const {
  // `a.b.c` is read from the outside in: collect the member names, then the root variable.
  std::vector<std::string> parts;
  const clang::Expr* current = expr;
  while (current != nullptr) {
    current = throughHolder(strip(current));
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(current)) {
      if (!llvm::isa<clang::VarDecl>(ref->getDecl())) return "";
      parts.push_back(varName(ref->getDecl()));
      break;
    }
    const auto* member = llvm::dyn_cast<clang::MemberExpr>(current);
    if (member == nullptr || parts.size() > 16) return "";
    parts.push_back(member->getMemberDecl()->getNameAsString());
    const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
    if (llvm::isa<clang::CXXThisExpr>(base)) break; // `this->opt_` or `opt_`: the member
    current = base;
  }
  std::string name;
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (!name.empty()) name += '.';
    name += *part;
  }
  return name;
}

uint16_t UnitLowerer::loopDepthOf(const clang::Stmt* stmt) const {
  uint16_t depth = 0;
  const clang::Stmt* child = stmt;
  for (const clang::Stmt* parent = parents_->getParent(child); parent != nullptr;
       child = parent, parent = parents_->getParent(child)) {
    if (llvm::isa<clang::WhileStmt, clang::DoStmt>(parent)) {
      ++depth;
    } else if (const auto* forStmt = llvm::dyn_cast<clang::ForStmt>(parent)) {
      if (child != forStmt->getInit()) ++depth;
    } else if (const auto* rangeFor = llvm::dyn_cast<clang::CXXForRangeStmt>(parent)) {
      if (child == rangeFor->getBody() || child == rangeFor->getLoopVarStmt()) ++depth;
    }
  }
  return depth;
}

void UnitLowerer::lowerConstruct(const clang::CXXConstructExpr* construct) {
  const clang::CXXConstructorDecl* constructor = construct->getConstructor();
  if (constructor == nullptr || constructor->isTrivial()) return;
  // Guards are lowered where they are declared (or as GL105 temporaries).
  if (tu_.types().classify(construct->getType()).kind != ObjectKind::None) return;
  if (cannotThrow(constructor->getType()->getAs<clang::FunctionProtoType>())) return;
  Event event;
  event.kind = EventKind::Call;
  event.callee = constructor->getQualifiedNameAsString();
  event.mayRaise = true;
  event.range = rangeOf(construct);
  emit(std::move(event), construct);
}

void UnitLowerer::lowerVarDecl(const clang::VarDecl* var, const clang::Stmt* at) {
  if (var->getInit() != nullptr && isIsEnabledCall(var->getInit())) {
    Event save;
    save.kind = EventKind::SaveGrad;
    save.var = varName(var);
    save.range = rangeOf(var->getSourceRange());
    emit(std::move(save), at);
    return;
  }
  const ObjectKind& kind = objectKind(var);
  if (kind.kind == ObjectKind::None && var->getInit() != nullptr && var->hasLocalStorage() &&
      !var->getType()->isReferenceType()) {
    // `auto output = model->forward(x);`: a definition, for the value-flow rules.
    lowerAssign(varName(var), var->getInit(), at);
    return;
  }
  if (kind.kind != ObjectKind::Guard) return; // restorers only matter when they are destroyed
  const clang::SourceRange declared = var->getSourceRange();
  if (kind.guard->savesGradMode) {
    Event save;
    save.kind = EventKind::SaveGrad;
    save.var = varName(var);
    save.range = rangeOf(declared);
    emit(std::move(save), at);
  }
  Event enter;
  enter.kind = EventKind::EnterGuard;
  enter.guard = kind.guard->kind;
  enter.value = guardArgument(kind, var->getInit());
  enter.callee = kind.typeName;
  enter.var = varName(var);
  enter.range = rangeOf(declared);
  guardEnters_[var] = emit(std::move(enter), at);
}

void UnitLowerer::lowerDestructor(const clang::VarDecl* var, const clang::Stmt* trigger) {
  const ObjectKind& kind = objectKind(var);
  if (kind.kind == ObjectKind::None) return;
  ir::SourceRange where = rangeOf(var->getSourceRange());
  if (const auto* compound = llvm::dyn_cast_or_null<clang::CompoundStmt>(trigger)) {
    where = rangeOf(clang::SourceRange(compound->getRBracLoc(), compound->getRBracLoc()));
  } else if (trigger != nullptr) {
    where = rangeOf(trigger);
  }
  if (kind.kind == ObjectKind::Restorer || kind.guard->savesGradMode) {
    Event restore;
    restore.kind = EventKind::RestoreGrad;
    restore.var = varName(var);
    restore.range = where;
    emit(std::move(restore), nullptr);
  }
  if (kind.kind == ObjectKind::Guard) {
    Event exit;
    exit.kind = EventKind::ExitGuard;
    exit.guard = kind.guard->kind;
    exit.callee = kind.typeName;
    exit.var = varName(var); // restores the mode its EnterGuard saved
    exit.range = where;
    emit(std::move(exit), nullptr);
  }
}

void UnitLowerer::lowerInitializer(const clang::CXXCtorInitializer* initializer) {
  // `prev_(c10::GradMode::is_enabled())` in a guard's constructor saves the mode.
  if (initializer->getMember() == nullptr || !isIsEnabledCall(initializer->getInit())) return;
  Event save;
  save.kind = EventKind::SaveGrad;
  save.var = initializer->getMember()->getNameAsString();
  save.range = rangeOf(initializer->getSourceRange());
  emit(std::move(save), nullptr);
}

void UnitLowerer::lowerStmt(const clang::Stmt* stmt, const clang::ReturnStmt*& pendingReturn,
                            bool& terminated) {
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) {
    lowerCall(call);
  } else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(stmt)) {
    lowerConstruct(construct);
  } else if (const auto* throwExpr = llvm::dyn_cast<clang::CXXThrowExpr>(stmt)) {
    Event raise;
    raise.kind = EventKind::Raise;
    raise.mayRaise = true;
    raise.range = rangeOf(throwExpr);
    emit(std::move(raise), throwExpr);
    terminated = true;
  } else if (const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(stmt)) {
    pendingReturn = ret;
  } else if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
    const clang::DeclStmt* original = decl;
    if (auto it = syntheticDecls_.find(decl); it != syntheticDecls_.end()) original = it->second;
    for (const clang::Decl* d : decl->decls()) {
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(d)) lowerVarDecl(var, original);
    }
  } else if (const auto* store = llvm::dyn_cast<clang::BinaryOperator>(stmt);
             store != nullptr && store->getOpcode() == clang::BO_Assign &&
             !isIsEnabledCall(store->getRHS())) {
    if (const std::string target = objectName(store->getLHS()); !target.empty()) {
      lowerAssign(target, store->getRHS(), store);
    }
  } else if (const auto* update = llvm::dyn_cast<clang::CompoundAssignOperator>(stmt)) {
    // `total += value` on a built-in type: computed from the old value and the right side.
    if (const std::string target = objectName(update->getLHS()); !target.empty()) {
      lowerAssign(target, update, update);
    }
  } else if (const auto* assign = llvm::dyn_cast<clang::BinaryOperator>(stmt);
             assign != nullptr && assign->getOpcode() == clang::BO_Assign &&
             isIsEnabledCall(assign->getRHS())) {
    const clang::Expr* target = assign->getLHS()->IgnoreParenImpCasts();
    Event save;
    save.kind = EventKind::SaveGrad;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(target)) {
      save.var = varName(ref->getDecl());
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target)) {
      save.var = textOf(member->getSourceRange());
      if (save.var.empty()) save.var = member->getMemberDecl()->getNameAsString();
    } else {
      return;
    }
    save.range = rangeOf(assign);
    emit(std::move(save), assign);
  }
}

void UnitLowerer::lowerBlock(const clang::CFGBlock* block) {
  current_ = blockEntry(block);
  const clang::ReturnStmt* pendingReturn = nullptr;
  bool terminated = false;
  for (const clang::CFGElement& element : *block) {
    if (tooLarge_) return;
    if (auto stmt = element.getAs<clang::CFGStmt>()) {
      lowerStmt(stmt->getStmt(), pendingReturn, terminated);
    } else if (auto destructor = element.getAs<clang::CFGAutomaticObjDtor>()) {
      lowerDestructor(destructor->getVarDecl(), destructor->getTriggerStmt());
    } else if (auto initializer = element.getAs<clang::CFGInitializer>()) {
      lowerInitializer(initializer->getInitializer());
    }
    if (terminated) return;
  }
  if (block->hasNoReturnElement()) return; // abort(), or a [[noreturn]] call that throws
  if (const clang::Stmt* terminator = block->getTerminatorStmt();
      terminator != nullptr && llvm::isa<clang::CXXTryStmt>(terminator)) {
    return; // the try's dispatch block: exceptions reach handlers through landing()
  }
  for (const clang::CFGBlock::AdjacentBlock& succ : block->succs()) {
    const clang::CFGBlock* next = succ.getReachableBlock();
    if (next == nullptr) continue;
    if (next != &cfg_->getExit()) {
      link(current_, blockEntry(next));
      continue;
    }
    Event exit;
    if (pendingReturn != nullptr) {
      exit.kind = EventKind::Return;
      exit.range = rangeOf(pendingReturn);
      if (const clang::Expr* value = pendingReturn->getRetValue()) {
        if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(value))) {
          exit.var = varName(ref->getDecl());
        }
      }
    } else {
      exit.kind = EventKind::FallThrough;
      const auto* compound = llvm::dyn_cast<clang::CompoundStmt>(body_);
      const clang::SourceLocation brace =
          compound != nullptr ? compound->getRBracLoc() : clang::SourceLocation();
      exit.range = brace.isValid() ? rangeOf(clang::SourceRange(brace, brace)) : fn_.nameRange;
    }
    link(emit(std::move(exit), nullptr), fn_.normalExit);
  }
}

void UnitLowerer::lowerSyntacticFindings() {
  // GL105 and GL106 are about how a guard is written, not about paths: their nodes stand
  // alone (no edges), found by walking the body, so they are reported in code Clang could not
  // build a CFG for and in unreachable code too.
  std::vector<const clang::Stmt*> stack{body_};
  while (!stack.empty()) {
    const clang::Stmt* stmt = stack.back();
    stack.pop_back();
    if (stmt == nullptr || llvm::isa<clang::LambdaExpr>(stmt)) continue;
    for (const clang::Stmt* child : stmt->children()) stack.push_back(child);

    if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      for (const clang::Decl* d : decl->decls()) {
        const auto* declared = llvm::dyn_cast<clang::FunctionDecl>(d);
        if (declared == nullptr || declared->getNumParams() != 0) continue;
        const ObjectKind& kind = tu_.types().classify(declared->getReturnType());
        if (kind.kind != ObjectKind::Guard) continue;
        const clang::FunctionTypeLoc loc = declared->getFunctionTypeLoc();
        if (!loc) continue;
        // `T name()` only: `T name(void)` says it means a function.
        const std::string parens =
            textOf(clang::SourceRange(loc.getLParenLoc(), loc.getRParenLoc()));
        if (parens.find("void") != std::string::npos) continue;
        Event event;
        event.kind = EventKind::LocalFunctionDecl;
        event.callee = kind.typeName;
        event.guard = kind.guard->kind;
        event.var = declared->getNameAsString();
        event.spelled = textOf(declared->getReturnTypeSourceRange());
        event.range = rangeOf(clang::SourceRange(declared->getLocation(), loc.getRParenLoc()));
        newNode(std::move(event));
      }
      continue;
    }

    // A guard is made by its constructor, or, for an aggregate derived from one
    // (`struct EvalGuard : torch::NoGradGuard {}; EvalGuard{};`), by list-initialisation.
    const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(stmt);
    const auto* aggregate = llvm::dyn_cast<clang::InitListExpr>(stmt);
    if (aggregate != nullptr && aggregate->isSyntacticForm() &&
        aggregate->getSemanticForm() != nullptr) {
      continue; // the semantic form is the one with the type
    }
    const clang::Expr* made = construct != nullptr ? static_cast<const clang::Expr*>(construct)
                                                   : aggregate;
    if (made == nullptr || (construct != nullptr && construct->isElidable())) continue;
    const ObjectKind& kind = tu_.types().classify(made->getType());
    if (kind.kind != ObjectKind::Guard) continue;
    // Climb to the full expression: `T(false)` is a functional cast around the construction.
    const clang::Stmt* expr = made;
    const clang::Stmt* written = made;
    const clang::Stmt* parent = parents_->getParent(expr);
    while (parent != nullptr &&
           (llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr, clang::ExprWithCleanups,
                      clang::CXXBindTemporaryExpr, clang::MaterializeTemporaryExpr,
                      clang::ConstantExpr, clang::CXXFunctionalCastExpr>(parent) ||
            isVoidCast(parent) ||
            (llvm::isa<clang::CXXConstructExpr>(parent) &&
             llvm::cast<clang::CXXConstructExpr>(parent)->isElidable()))) {
      if (llvm::isa<clang::CXXFunctionalCastExpr>(parent)) written = parent;
      expr = parent;
      parent = parents_->getParent(expr);
    }
    if (!isStatementContext(parent, expr)) continue;
    clang::SourceRange typeRange;
    if (const auto* temporary = llvm::dyn_cast_or_null<clang::CXXTemporaryObjectExpr>(construct)) {
      typeRange = temporary->getTypeSourceInfo()->getTypeLoc().getSourceRange();
    } else if (const auto* cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(written)) {
      typeRange = cast->getTypeInfoAsWritten()->getTypeLoc().getSourceRange();
    }
    Event enter;
    enter.kind = EventKind::EnterGuard;
    enter.guardTemporary = true;
    enter.guard = kind.guard->kind;
    enter.value = construct != nullptr ? guardArgument(kind, construct) : ir::GradValue::Unknown;
    enter.callee = kind.typeName;
    enter.spelled = textOf(typeRange);
    enter.range = rangeOf(written);
    const auto arguments = construct != nullptr
                               ? llvm::ArrayRef<const clang::Expr*>(construct->getArgs(),
                                                                    construct->getNumArgs())
                               : llvm::ArrayRef<const clang::Expr*>(aggregate->getInits(),
                                                                    aggregate->getNumInits());
    for (const clang::Expr* argument : arguments) {
      const clang::Expr* value = argument->IgnoreParenImpCasts();
      const auto* boolean = llvm::dyn_cast<clang::CXXBoolLiteralExpr>(value);
      enter.writeCall().argBools.push_back(boolean == nullptr ? -1 : boolean->getValue() ? 1 : 0);
    }
    Event exit;
    exit.kind = EventKind::ExitGuard;
    exit.guard = enter.guard;
    exit.callee = enter.callee;
    exit.range = enter.range;
    const NodeId enterId = newNode(std::move(enter));
    link(enterId, newNode(std::move(exit)));
  }
}

// The instantiations of a template (function template, or member of a class template) in
// this translation unit, for when Clang cannot build a CFG of the template as written (a
// range-for over a dependent range, for instance).
std::vector<const clang::FunctionDecl*> instantiationsOf(const clang::FunctionDecl* pattern) {
  std::vector<const clang::FunctionDecl*> out;
  auto add = [&](const clang::FunctionDecl* candidate) {
    if (candidate != nullptr && candidate->getBody() != nullptr && !candidate->isInvalidDecl() &&
        candidate->getTemplateInstantiationPattern() == pattern && out.size() < 4) {
      out.push_back(candidate);
    }
  };
  if (const clang::FunctionTemplateDecl* described = pattern->getDescribedFunctionTemplate()) {
    for (const clang::FunctionDecl* specialization : described->specializations()) {
      add(specialization);
    }
  }
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(pattern)) {
    if (const clang::ClassTemplateDecl* owner = method->getParent()->getDescribedClassTemplate()) {
      for (const clang::ClassTemplateSpecializationDecl* specialization :
           owner->specializations()) {
        for (const clang::Decl* member : specialization->decls()) {
          add(llvm::dyn_cast<clang::FunctionDecl>(member));
        }
      }
    }
  }
  return out;
}

// Stands in, for the time a template's CFG is built, a loop Clang can build for each range-for
// over a dependent range: Sema gives those no begin/end variables, and without them Clang builds
// no CFG of the whole template. `{ range; while (?) { loop variable; body } }` runs the range
// expression once and the body any number of times, as the range-for does; the loop's condition
// is unknown to Clang, so both the exit and the back edge stay. Put back on destruction: the AST
// is shared with whatever reads it after the lowering.
class DependentRangeForStandIns {
public:
  DependentRangeForStandIns(clang::ASTContext& context, clang::Stmt* body) : context_(context) {
    replaceUnder(body);
  }
  ~DependentRangeForStandIns() {
    for (auto swap = swaps_.rbegin(); swap != swaps_.rend(); ++swap) *swap->first = swap->second;
  }
  DependentRangeForStandIns(const DependentRangeForStandIns&) = delete;
  DependentRangeForStandIns& operator=(const DependentRangeForStandIns&) = delete;
  bool any() const { return !swaps_.empty(); }

private:
  void replaceUnder(clang::Stmt* parent) {
    for (clang::Stmt*& child : parent->children()) {
      if (child == nullptr || llvm::isa<clang::LambdaExpr>(child)) continue; // its own unit
      replaceUnder(child); // inner loops first: an outer stand-in reuses the body they are in
      auto* rangeFor = llvm::dyn_cast<clang::CXXForRangeStmt>(child);
      if (rangeFor == nullptr || rangeFor->getBeginStmt() != nullptr ||
          rangeFor->getBody() == nullptr) {
        continue;
      }
      swaps_.emplace_back(&child, child);
      child = standInFor(rangeFor);
    }
  }

  clang::Stmt* standInFor(clang::CXXForRangeStmt* rangeFor) {
    const clang::SourceLocation begin = rangeFor->getBeginLoc();
    const clang::SourceLocation end = rangeFor->getEndLoc();
    std::vector<clang::Stmt*> iteration;
    if (clang::Stmt* loopVariable = rangeFor->getLoopVarStmt()) iteration.push_back(loopVariable);
    iteration.push_back(rangeFor->getBody());
    auto* iterationBody = clang::CompoundStmt::Create(context_, iteration,
                                                      clang::FPOptionsOverride(), begin, end);
    auto* unknown = new (context_)
        clang::OpaqueValueExpr(rangeFor->getColonLoc(), context_.BoolTy, clang::VK_PRValue);
    auto* loop = clang::WhileStmt::Create(context_, nullptr, unknown, iterationBody,
                                          rangeFor->getForLoc(), rangeFor->getForLoc(),
                                          rangeFor->getRParenLoc());
    std::vector<clang::Stmt*> statements;
    if (clang::Expr* range = rangeFor->getRangeInit()) statements.push_back(range);
    statements.push_back(loop);
    return clang::CompoundStmt::Create(context_, statements, clang::FPOptionsOverride(), begin,
                                       end);
  }

  clang::ASTContext& context_;
  std::vector<std::pair<clang::Stmt**, clang::Stmt*>> swaps_;
};

bool UnitLowerer::lower() {
  // How guards are written is read from the code as written.
  lowerSyntacticFindings();

  clang::CFG::BuildOptions options;
  options.AddImplicitDtors = true;
  options.AddInitializers = true;
  options.AddCXXDefaultInitExprInCtors = true;
  options.setAllAlwaysAdd();
  cfg_ = clang::CFG::buildCFG(function_, const_cast<clang::Stmt*>(body_), &tu_.context(), options);
  if (!cfg_ && function_->isDependentContext()) {
    // Paths are read from an instantiation when the template itself has no CFG; its
    // statements carry the template's source locations.
    for (const clang::FunctionDecl* instance : instantiationsOf(function_)) {
      cfg_ = clang::CFG::buildCFG(instance, instance->getBody(), &tu_.context(), options);
      if (!cfg_) continue;
      function_ = instance;
      body_ = instance->getBody();
      parents_ = std::make_unique<clang::ParentMap>(const_cast<clang::Stmt*>(body_));
      break;
    }
  }
  // Nor an instantiation in this file (a member template a header declares, used elsewhere):
  // the template as written, its dependent range-fors standing in as plain loops.
  std::optional<DependentRangeForStandIns> standIns;
  if (!cfg_ && function_->isDependentContext()) {
    standIns.emplace(tu_.context(), const_cast<clang::Stmt*>(body_));
    if (standIns->any()) {
      cfg_ =
          clang::CFG::buildCFG(function_, const_cast<clang::Stmt*>(body_), &tu_.context(), options);
      if (cfg_) parents_ = std::make_unique<clang::ParentMap>(const_cast<clang::Stmt*>(body_));
    }
  }
  if (!cfg_) return false;
  collectScopeObjects();

  Event entry;
  entry.kind = EventKind::Entry;
  entry.range = fn_.nameRange;
  Event normalExit;
  normalExit.kind = EventKind::NormalExit;
  Event exceptionalExit;
  exceptionalExit.kind = EventKind::ExceptionalExit;
  const auto* proto = function_->getType()->getAs<clang::FunctionProtoType>();
  const bool noexceptFunction =
      cannotThrow(proto) || llvm::isa<clang::CXXDestructorDecl>(function_);

  fn_.entry = newNode(entry);
  fn_.normalExit = newNode(normalExit);
  fn_.exceptionalExit = newNode(exceptionalExit);
  exceptionalTarget_ = noexceptFunction ? kNoNode : fn_.exceptionalExit;

  for (const clang::CFGBlock* block : *cfg_) {
    if (const clang::Stmt* label = block->getLabel()) {
      if (const auto* handler = llvm::dyn_cast<clang::CXXCatchStmt>(label)) {
        catchBlocks_[handler] = block;
      }
    }
  }
  for (auto it = cfg_->synthetic_stmt_begin(); it != cfg_->synthetic_stmt_end(); ++it) {
    syntheticDecls_[it->first] = it->second;
  }

  for (const clang::CFGBlock::AdjacentBlock& succ : cfg_->getEntry().succs()) {
    if (const clang::CFGBlock* next = succ.getReachableBlock()) {
      link(fn_.entry, next == &cfg_->getExit() ? fn_.normalExit : blockEntry(next));
    }
  }
  for (const clang::CFGBlock* block : *cfg_) {
    if (block == &cfg_->getEntry() || block == &cfg_->getExit()) continue;
    lowerBlock(block);
    if (tooLarge_) return true;
  }
  return true;
}

// --- TranslationUnitLowering -----------------------------------------------------------------

} // namespace gradlint::cpp::detail
