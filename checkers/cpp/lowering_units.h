// The C++ lowering's own declarations, shared by its files (not an interface for others):
//   lowering.cpp           the translation-unit walk: which functions are lowered, into which file
//   lower_function.cpp     one function to a CFG of Grad IR events, from clang::CFG
//   lowering_helpers.cpp   small questions about Clang's AST that both ask
#pragma once

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/cpp/lowering.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMap.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Analysis/CFG.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gradlint::cpp::detail {

using ir::Event;
using ir::EventKind;
using ir::kNoNode;
using ir::NodeId;

// Guards against pathological functions: the IR of one unit stays below this many nodes.
inline constexpr size_t kMaxNodesPerUnit = 200'000;

// What a class does to grad mode when an object of it lives in a scope.
struct ObjectKind {
  enum Kind : uint8_t {
    None,
    Guard,    // a catalog guard, or a class derived from one or holding one as a member
    Restorer, // a user class whose destructor calls `c10::GradMode::set_enabled`
  } kind = None;
  const catalog::CppGuardType* guard = nullptr; // Guard: the catalog entry it comes from
  std::string typeName;                       // qualified name of the class itself
};

bool isSetEnabledCall(const clang::Stmt* stmt);

// True when some call in `root` (not in nested lambdas) is `c10::GradMode::set_enabled`.
bool callsSetEnabled(const clang::Stmt* root);

// Strips what does not change which value an expression is.
const clang::Expr* strip(const clang::Expr* expr);

bool isIsEnabledCall(const clang::Expr* expr);

bool cannotThrow(const clang::FunctionProtoType* proto);

bool mayThrow(const clang::CallExpr* call);

// A statement position: the value of an expression directly here is thrown away.
bool isStatementContext(const clang::Stmt* parent, const clang::Stmt* child);

bool isVoidCast(const clang::Stmt* stmt);

// LibTorch's training API: a tensor's backward, an optimizer's step and zero_grad, a module's
// train/eval/zero_grad/forward. Methods are recognised by the class they belong to, so an
// environment's `step()` or a scheduler's is not an optimizer step.
inline constexpr std::string_view kTensorClass = "at::Tensor";
inline constexpr std::string_view kOptimizerClass = "torch::optim::Optimizer";
inline constexpr std::string_view kModuleClass = "torch::nn::Module";
inline constexpr std::string_view kModuleHolderClass = "torch::nn::ModuleHolder";
// A TorchScript module (`torch::jit::script::Module`): not a torch::nn::Module, but its
// train/eval/forward are the same switches and the same forward pass.
inline constexpr std::string_view kScriptModuleClass = "torch::jit::Module";

// True when `record` is the class named `qualifiedName` or derives from it.
bool derivesFrom(const clang::CXXRecordDecl* record, std::string_view qualifiedName);

bool derivesFrom(clang::QualType type, std::string_view qualifiedName);

// `model` of `model->f()` (a torch::nn::ModuleHolder or a std::shared_ptr) and of `(*model).f()`.
const clang::Expr* throughHolder(const clang::Expr* expr);

bool isModuleType(clang::QualType type);

class TypeClassifier {
public:
  const ObjectKind& classify(const clang::CXXRecordDecl* record, int depth = 0) {
    static const ObjectKind kNone;
    if (record == nullptr) return kNone;
    if (const clang::CXXRecordDecl* definition = record->getDefinition()) record = definition;
    if (auto it = cache_.find(record); it != cache_.end()) return it->second;
    cache_[record] = ObjectKind{}; // None while being computed: breaks cycles
    ObjectKind result;
    result.typeName = record->getQualifiedNameAsString();
    if (const catalog::CppGuardType* guard = catalog::findCppGuard(result.typeName)) {
      result.kind = ObjectKind::Guard;
      result.guard = guard;
    } else if (record->hasDefinition() && depth < 8) {
      for (const clang::CXXBaseSpecifier& base : record->bases()) {
        const ObjectKind& inner = classify(base.getType()->getAsCXXRecordDecl(), depth + 1);
        if (inner.kind == ObjectKind::Guard) {
          result.kind = ObjectKind::Guard;
          result.guard = inner.guard;
          break;
        }
      }
      if (result.kind == ObjectKind::None) {
        for (const clang::FieldDecl* field : record->fields()) {
          const ObjectKind& inner =
              classify(field->getType()->getAsCXXRecordDecl(), depth + 1);
          if (inner.kind == ObjectKind::Guard) {
            result.kind = ObjectKind::Guard;
            result.guard = inner.guard;
            break;
          }
        }
      }
      if (result.kind == ObjectKind::None) {
        if (const clang::CXXDestructorDecl* destructor = record->getDestructor()) {
          const clang::FunctionDecl* definition = nullptr;
          if (destructor->hasBody(definition) && definition != nullptr &&
              callsSetEnabled(definition->getBody())) {
            result.kind = ObjectKind::Restorer;
          }
        }
      }
    }
    // References into an unordered_map survive rehashing.
    ObjectKind& stored = cache_[record];
    stored = std::move(result);
    return stored;
  }

  const ObjectKind& classify(clang::QualType type) {
    static const ObjectKind kNone;
    if (type.isNull() || type->isDependentType()) return kNone;
    return classify(type.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  }

private:
  std::unordered_map<const clang::CXXRecordDecl*, ObjectKind> cache_;
};

class TranslationUnitLowering;

class UnitLowerer {
public:
  UnitLowerer(TranslationUnitLowering& tu, const clang::FunctionDecl* function,
              ir::FunctionIR& fn)
      : tu_(tu), function_(function), body_(function->getBody()), fn_(fn),
        parents_(std::make_unique<clang::ParentMap>(function->getBody())) {}

  // False when Clang could not build the function's CFG; the unit then holds only the
  // syntactic findings (GL105/GL106 nodes).
  bool lower();
  // Only what is read from the code as written (how guards are written), no paths: false.
  bool lowerWrittenOnly() {
    lowerSyntacticFindings();
    return false;
  }
  bool tooLarge() const { return tooLarge_; }

private:
  // --- positions ---------------------------------------------------------------------------
  ir::SourceRange rangeOf(clang::SourceRange range) const;
  ir::SourceRange rangeOf(const clang::Stmt* stmt) const {
    return rangeOf(stmt->getSourceRange());
  }
  std::string textOf(clang::SourceRange range) const;

  // --- building the graph ------------------------------------------------------------------
  NodeId newNode(Event event);
  void link(NodeId from, NodeId to);
  NodeId emit(Event event, const clang::Stmt* at);
  NodeId blockEntry(const clang::CFGBlock* block);

  // --- scopes ------------------------------------------------------------------------------
  struct Scope {
    std::vector<const clang::VarDecl*> live; // guard objects alive here, innermost first
    // Try blocks around the statement, innermost first, with live.size() at each boundary.
    std::vector<std::pair<size_t, const clang::CXXTryStmt*>> tries;
  };
  Scope scopeOf(const clang::Stmt* stmt) const;
  void collectScopeObjects();
  bool isGuardObject(const clang::VarDecl* var) const;
  const ObjectKind& objectKind(const clang::VarDecl* var) const;
  NodeId landing(const Scope& scope, size_t tryLevel);
  NodeId landingFor(const clang::Stmt* stmt);
  NodeId dispatch(const clang::CXXTryStmt* tryStmt, const Scope& outer, size_t tryLevel);
  NodeId cleanupChain(const std::vector<const clang::VarDecl*>& objects, NodeId target);
  void setRegion(Event& event, const clang::Stmt* at) const;

  // --- events ------------------------------------------------------------------------------
  void lowerBlock(const clang::CFGBlock* block);
  void lowerStmt(const clang::Stmt* stmt, const clang::ReturnStmt*& pendingReturn,
                 bool& terminated);
  void lowerCall(const clang::CallExpr* call);
  bool lowerTrainingCall(const clang::CallExpr* call);
  bool lowerDependentTrainingCall(const clang::CallExpr* call);
  void lowerAssign(const std::string& var, const clang::Expr* value, const clang::Stmt* at);
  // The object a training call acts on, as written: `model` for `model->eval()`, `opt_` for a
  // member; "" when it is not a variable or a member.
  std::string objectName(const clang::Expr* expr) const;
  uint16_t loopDepthOf(const clang::Stmt* stmt) const;
  void lowerSetEnabled(const clang::CallExpr* call, const std::string& callee);
  void lowerConstruct(const clang::CXXConstructExpr* construct);
  void lowerVarDecl(const clang::VarDecl* var, const clang::Stmt* at);
  void lowerDestructor(const clang::VarDecl* var, const clang::Stmt* trigger);
  void lowerInitializer(const clang::CXXCtorInitializer* initializer);
  void lowerSyntacticFindings();
  std::string varName(const clang::ValueDecl* decl) const;
  // The variable a call's value is stored in: `x = f()`, `T x = f()`; "" otherwise.
  std::string assignedTo(const clang::Expr* expr) const;
  bool resultDiscarded(const clang::Expr* expr) const;
  ir::GradValue modeArgument(const clang::Expr* argument) const;
  ir::GradValue guardArgument(const ObjectKind& kind, const clang::Expr* init) const;

  TranslationUnitLowering& tu_;
  const clang::FunctionDecl* function_;
  const clang::Stmt* body_;
  ir::FunctionIR& fn_;
  std::unique_ptr<clang::ParentMap> parents_;
  std::unique_ptr<clang::CFG> cfg_;
  NodeId current_ = kNoNode;
  NodeId exceptionalTarget_ = kNoNode; // kNoNode: the function is noexcept (terminate)
  bool tooLarge_ = false;
  std::unordered_map<unsigned, NodeId> blockEntries_;
  std::unordered_map<const clang::CXXCatchStmt*, const clang::CFGBlock*> catchBlocks_;
  std::unordered_map<const clang::DeclStmt*, const clang::DeclStmt*> syntheticDecls_;
  // Per statement directly in a compound statement: the guard objects declared before it there.
  std::unordered_map<const clang::Stmt*, std::vector<const clang::VarDecl*>> declaredBefore_;
  std::unordered_map<const clang::VarDecl*, NodeId> guardEnters_;
  std::unordered_map<const clang::CXXTryStmt*, NodeId> dispatches_;
  std::map<std::pair<std::vector<const clang::VarDecl*>, NodeId>, NodeId> chains_;
  std::unordered_map<std::string, int> nameCounts_;
};

class TranslationUnitLowering : public clang::RecursiveASTVisitor<TranslationUnitLowering> {
public:
  TranslationUnitLowering(clang::ASTContext& context, const SourceText& source,
                          const HeaderSelection* headers,
                          const std::vector<clang::SourceLocation>& errors)
      : context_(context), sources_(context.getSourceManager()), mainSource_(source),
        source_(&source), mainFile_(sources_.getMainFileID()), file_(mainFile_),
        headers_(headers), errors_(errors) {}

  void run(bool skipPrecompiled) {
    result_.module.language = ir::Language::Cpp;
    result_.module.path = mainSource_.path();
    clang::TranslationUnitDecl* unit = context_.getTranslationUnitDecl();
    if (skipPrecompiled) {
      // The declarations parsed in this translation unit only (noload_decls), not the
      // precompiled header's.
      for (clang::Decl* decl : unit->noload_decls()) TraverseDecl(decl);
    } else {
      TraverseDecl(unit);
    }
    auto byPosition = [](const ir::FunctionIR& a, const ir::FunctionIR& b) {
      return a.range.startByte < b.range.startByte;
    };
    std::stable_sort(result_.module.units.begin(), result_.module.units.end(), byPosition);
    for (LoweredHeader& header : result_.headers) {
      std::stable_sort(header.module.units.begin(), header.module.units.end(), byPosition);
    }
  }
  LoweredTranslationUnit take() { return std::move(result_); }

  // Templates are analysed as written, once; their instantiations are not visited.
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseDecl(clang::Decl* decl) {
    // Declarations from headers hold nothing to report; skipping them keeps big includes cheap.
    if (decl != nullptr && !llvm::isa<clang::TranslationUnitDecl>(decl) &&
        !llvm::isa<clang::NamespaceDecl, clang::LinkageSpecDecl, clang::ExportDecl>(decl) &&
        !inLoweredFile(decl->getLocation())) {
      return true;
    }
    if (decl != nullptr && llvm::isa<clang::NamespaceDecl, clang::LinkageSpecDecl>(decl) &&
        !declaresInMainFile(llvm::cast<clang::DeclContext>(decl))) {
      return true;
    }
    return RecursiveASTVisitor::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->doesThisDeclarationHaveABody() || function->getBody() == nullptr) return true;
    if (function->isTemplateInstantiation()) return true;
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
        method != nullptr && method->getParent()->isLambda()) {
      return true; // VisitLambdaExpr
    }
    if (!inLoweredFile(function->getLocation())) return true;
    lowerUnit(function, ir::UnitKind::Function);
    return true;
  }

  bool VisitLambdaExpr(clang::LambdaExpr* lambda) {
    const clang::CXXMethodDecl* call = lambda->getCallOperator();
    if (call == nullptr || call->getBody() == nullptr || !inLoweredFile(lambda->getBeginLoc())) {
      return true;
    }
    lowerUnit(call, ir::UnitKind::Lambda);
    return true;
  }

  bool inMainFile(clang::SourceLocation location) const {
    if (location.isInvalid()) return false;
    return sources_.getFileID(sources_.getExpansionLoc(location)) == mainFile_;
  }

  // The main file, or a header of the project (HeaderSelection) whose functions are lowered.
  bool inLoweredFile(clang::SourceLocation location) {
    if (location.isInvalid()) return false;
    const clang::FileID file = sources_.getFileID(sources_.getExpansionLoc(location));
    if (file == mainFile_) return headers_ == nullptr || headers_->lowersMainFile();
    if (headers_ == nullptr || file.isInvalid()) return false;
    auto [it, inserted] = lowered_.try_emplace(file.getHashValue(), false);
    if (inserted) {
      const clang::OptionalFileEntryRef entry = sources_.getFileEntryRefForID(file);
      if (entry) {
        llvm::StringRef real = entry->getFileEntry().tryGetRealPathName();
        it->second =
            headers_->wants(real.empty() ? entry->getName() : real,
                            sources_.isInSystemHeader(sources_.getLocForStartOfFile(file)));
      }
    }
    return it->second;
  }

  // A namespace spread over headers and the main file: only worth entering when some of its
  // declarations are in the main file.
  bool inMainFileOrHeader(clang::SourceLocation location) { return inLoweredFile(location); }
  bool declaresInMainFile(const clang::DeclContext* context) {
    for (const clang::Decl* decl : context->decls()) {
      if (inMainFileOrHeader(decl->getLocation())) return true;
      if (const auto* inner = llvm::dyn_cast<clang::DeclContext>(decl);
          inner != nullptr && llvm::isa<clang::NamespaceDecl, clang::LinkageSpecDecl>(decl) &&
          declaresInMainFile(inner)) {
        return true;
      }
    }
    return false;
  }

  clang::ASTContext& context() { return context_; }
  const clang::SourceManager& sources() const { return sources_; }
  // The file of the unit being lowered (the main file or a header) and its bytes.
  const SourceText& source() const { return *source_; }
  TypeClassifier& types() { return types_; }

  // Byte offsets in the main file of a range, as the user sees it: spellings inside a macro are
  // placed at the macro's use.
  std::optional<std::pair<uint32_t, uint32_t>> bytes(clang::SourceRange range) const {
    if (range.isInvalid()) return std::nullopt;
    const clang::SourceLocation begin = sources_.getExpansionLoc(range.getBegin());
    const clang::CharSourceRange endRange = sources_.getExpansionRange(range.getEnd());
    clang::SourceLocation end = endRange.getEnd();
    if (endRange.isTokenRange()) {
      end = clang::Lexer::getLocForEndOfToken(end, 0, sources_, context_.getLangOpts());
    }
    if (begin.isInvalid() || end.isInvalid()) return std::nullopt;
    const auto [beginFile, beginOffset] = sources_.getDecomposedLoc(begin);
    const auto [endFile, endOffset] = sources_.getDecomposedLoc(end);
    if (beginFile != file_ || endFile != file_ || endOffset < beginOffset ||
        endOffset > source_->bytes().size()) {
      return std::nullopt;
    }
    return std::make_pair(beginOffset, endOffset);
  }

  // The text of a range when it is spelled entirely in the main file (not in a macro).
  std::string spelling(clang::SourceRange range) const {
    if (range.isInvalid() || range.getBegin().isMacroID() || range.getEnd().isMacroID()) {
      return "";
    }
    const auto span = bytes(range);
    if (!span) return "";
    return source_->bytes().substr(span->first, span->second - span->first);
  }

private:
  void lowerUnit(const clang::FunctionDecl* function, ir::UnitKind kind);
  // How the function's body came through the compiler's errors: none in it; errors only in
  // statements Clang kept (marked as containing errors) that name no grad-mode or training API,
  // so its paths hold every grad-mode event it has; or errors that may have cost it one.
  enum class BodyErrors { None, Recovered, Broken };
  BodyErrors bodyErrors(const clang::FunctionDecl* function) const;

  clang::ASTContext& context_;
  const clang::SourceManager& sources_;
  // Switches to the file `at` is in; returns the module its unit goes to, or null when
  // another translation unit of the run lowers it.
  ir::ModuleIR* enterFileOf(clang::SourceLocation at);

  const SourceText& mainSource_;
  const SourceText* source_; // of file_
  clang::FileID mainFile_;
  clang::FileID file_; // the file of the unit being lowered
  const HeaderSelection* headers_;
  const std::vector<clang::SourceLocation>& errors_;
  std::unordered_map<unsigned, bool> lowered_;       // FileID -> its functions are lowered
  std::unordered_map<unsigned, size_t> headerIndex_; // FileID -> index in result_.headers
  TypeClassifier types_;
  LoweredTranslationUnit result_;
};

} // namespace gradlint::cpp::detail
