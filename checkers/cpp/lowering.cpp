#include "checkers/cpp/lowering.h"
#include "checkers/cpp/lowering_units.h"

#include <fmt/format.h>

#include <algorithm>

namespace gradlint::cpp::detail {

std::string displayName(const clang::FunctionDecl* function, ir::UnitKind kind) {
  if (kind == ir::UnitKind::Lambda) return "<lambda>";
  std::string name = function->getNameAsString();
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function)) {
    name = method->getParent()->getNameAsString() + "::" + name;
  }
  return name;
}

ir::ModuleIR* TranslationUnitLowering::enterFileOf(clang::SourceLocation at) {
  const clang::SourceLocation location = sources_.getExpansionLoc(at);
  const clang::FileID file = sources_.getFileID(location);
  if (file == mainFile_ || headers_ == nullptr) {
    file_ = mainFile_;
    source_ = &mainSource_;
    return &result_.module;
  }
  const clang::OptionalFileEntryRef entry = sources_.getFileEntryRefForID(file);
  if (!entry) return nullptr;
  llvm::StringRef real = entry->getFileEntry().tryGetRealPathName();
  const std::string path = (real.empty() ? entry->getName() : real).str();
  // Each header function once per run, whichever translation unit reaches it first.
  if (!headers_->claim(path, sources_.getFileOffset(location))) return nullptr;
  auto [it, inserted] = headerIndex_.try_emplace(file.getHashValue(), result_.headers.size());
  if (inserted) {
    LoweredHeader header;
    header.realPath = path;
    header.source = std::make_shared<SourceText>(headers_->displayPath(path),
                                                 sources_.getBufferData(file).str());
    header.module.language = ir::Language::Cpp;
    header.module.path = header.source->path();
    result_.headers.push_back(std::move(header));
  }
  LoweredHeader& header = result_.headers[it->second];
  file_ = file;
  source_ = header.source.get();
  return &header.module;
}

namespace {

// Words of the grad-mode and training APIs (guards and scopes, GradMode, zero_grad, backward,
// optimizer steps, eval/train, restores), matched in lower case anywhere in a statement's
// text: a statement Clang could not type that names one may have been the guard, reset or
// restore a rule looks for. Over-matching (`train_loader`) only keeps a body unanalysed.
constexpr std::string_view kGradApiWords[] = {"grad",  "guard", "scope",   "inference",
                                              "backward", "step", "optim", "eval",
                                              "train", "restore", "set_enabled"};

bool namesGradApi(llvm::StringRef text) {
  const std::string lower = text.lower();
  return std::any_of(std::begin(kGradApiWords), std::end(kGradApiWords),
                     [&](std::string_view word) { return lower.find(word) != std::string::npos; });
}

bool hasError(const clang::Stmt* stmt) {
  if (const auto* expr = llvm::dyn_cast<clang::Expr>(stmt)) return expr->containsErrors();
  if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
    return std::any_of(declaration->decl_begin(), declaration->decl_end(),
                       [](const clang::Decl* decl) { return decl->isInvalidDecl(); });
  }
  return false;
}

} // namespace

TranslationUnitLowering::BodyErrors TranslationUnitLowering::bodyErrors(
    const clang::FunctionDecl* function) const {
  const clang::Stmt* body = function->getBody();
  if (body == nullptr || errors_.empty()) return BodyErrors::None;
  auto within = [&](clang::SourceLocation at, const clang::Stmt* stmt) {
    const clang::SourceLocation begin = sources_.getExpansionLoc(stmt->getBeginLoc());
    const clang::SourceLocation end = sources_.getExpansionLoc(stmt->getEndLoc());
    return !sources_.isBeforeInTranslationUnit(at, begin) &&
           !sources_.isBeforeInTranslationUnit(end, at);
  };
  std::vector<clang::SourceLocation> inBody;
  for (clang::SourceLocation error : errors_) {
    if (within(error, body)) inBody.push_back(error);
  }
  if (inBody.empty()) return BodyErrors::None;

  // The statements of the body's blocks that hold an expression Clang could not type or a
  // declaration it marked invalid (an undeclared type or function, a use of either). A walk
  // with a stack: a deep body does not deepen the C++ stack.
  std::vector<const clang::Stmt*> erroneous;
  std::vector<std::pair<const clang::Stmt*, const clang::Stmt*>> pending{{body, body}};
  while (!pending.empty()) {
    const auto [stmt, statement] = pending.back();
    pending.pop_back();
    if (stmt == nullptr) continue;
    if (hasError(stmt)) {
      erroneous.push_back(statement);
      continue;
    }
    const bool block = llvm::isa<clang::CompoundStmt>(stmt);
    for (const clang::Stmt* child : stmt->children()) {
      pending.emplace_back(child, block ? child : statement);
    }
  }
  std::sort(erroneous.begin(), erroneous.end());
  erroneous.erase(std::unique(erroneous.begin(), erroneous.end()), erroneous.end());

  // An error outside every kept statement is where Clang dropped one: it may have been anything.
  for (clang::SourceLocation error : inBody) {
    if (std::none_of(erroneous.begin(), erroneous.end(),
                     [&](const clang::Stmt* stmt) { return within(error, stmt); })) {
      return BodyErrors::Broken;
    }
  }
  for (const clang::Stmt* stmt : erroneous) {
    const clang::CharSourceRange range = sources_.getExpansionRange(stmt->getSourceRange());
    bool invalid = false;
    const llvm::StringRef text =
        clang::Lexer::getSourceText(range, sources_, context_.getLangOpts(), &invalid);
    if (invalid || namesGradApi(text)) return BodyErrors::Broken;
  }
  return BodyErrors::Recovered;
}

void TranslationUnitLowering::lowerUnit(const clang::FunctionDecl* function, ir::UnitKind kind) {
  ir::ModuleIR* module = enterFileOf(function->getLocation());
  if (module == nullptr) return;
  ir::FunctionIR fn;
  fn.kind = kind;
  fn.name = displayName(function, kind);
  if (kind == ir::UnitKind::Function) fn.qualifiedName = function->getQualifiedNameAsString();
  if (const auto span = bytes(function->getSourceRange())) {
    fn.range = source_->range(span->first, span->second);
  }
  if (const auto span = bytes(function->getNameInfo().getSourceRange());
      span && kind == ir::UnitKind::Function) {
    fn.nameRange = source_->range(span->first, span->second);
  } else if (const auto lambdaSpan = bytes(function->getSourceRange())) {
    fn.nameRange = source_->range(lambdaSpan->first, lambdaSpan->first);
  }
  for (const clang::ParmVarDecl* param : function->parameters()) {
    fn.params.push_back(param->getName().empty() ? "*" : param->getNameAsString());
  }
  // A guard's constructor is the enter half: its destructor restores what it changes.
  if (const auto* constructor = llvm::dyn_cast<clang::CXXConstructorDecl>(function)) {
    fn.enterHalf = types_.classify(constructor->getParent()).kind != ObjectKind::None;
  }
  UnitLowerer lowerer(*this, function, fn);
  // A body with a compile error that may have cost it a statement has no paths: what Clang's
  // recovery dropped or could not type (a guard of an undeclared type) would read as absent,
  // and rules that look for a missing guard, reset or restore would report it. How guards are
  // written is still checked. One whose errors are all in kept statements that name no
  // grad-mode or training API (`std::vector<mpi::Request> pending;`) is analysed as recovered.
  // GL001 already says the file does not compile.
  // The destructor of a class with a compile error (a member of an undeclared type) has no
  // CFG either: the implicit destructor calls of its members are what Clang could not form, and
  // building the CFG with them crashes Clang 19 (CFG::buildCFG, seen on
  // triton-inference-server/pytorch_backend with its Triton headers missing).
  const auto* destructor = llvm::dyn_cast<clang::CXXDestructorDecl>(function);
  const bool invalidClass = destructor != nullptr && destructor->getParent()->isInvalidDecl();
  const bool bodyBroken = invalidClass || bodyErrors(function) == BodyErrors::Broken;
  const bool built = bodyBroken ? lowerer.lowerWrittenOnly() : lowerer.lower();
  if (invalidClass) {
    result_.warnings.push_back(
        fmt::format("{}:{}: `{}` is the destructor of a class with a compile error; only how "
                    "guards are written was checked",
                    source_->path(), fn.range.startLine + 1, fn.name));
  } else if (bodyBroken) {
    result_.warnings.push_back(
        fmt::format("{}:{}: `{}` has a compile error in its body; only how guards are written "
                    "was checked",
                    source_->path(), fn.range.startLine + 1, fn.name));
  } else if (lowerer.tooLarge()) {
    result_.warnings.push_back(fmt::format(
        "{}:{}: `{}` has more than {} grad-relevant events and was not analysed", source_->path(),
        fn.range.startLine + 1, fn.name, kMaxNodesPerUnit));
    fn.nodes.clear();
    fn.entry = fn.normalExit = fn.exceptionalExit = kNoNode;
  } else if (!built && !function->isDependentContext()) {
    // A template Clang cannot build a CFG for (and that is not instantiated here) is skipped
    // quietly: that is a limit of reading templates as written, not a problem in the file.
    result_.warnings.push_back(fmt::format(
        "{}:{}: `{}`: Clang could not build its control-flow graph; only how guards are written "
        "was checked",
        source_->path(), fn.range.startLine + 1, fn.name));
  }
  module->units.push_back(std::move(fn));
  file_ = mainFile_;
  source_ = &mainSource_;
}

} // namespace gradlint::cpp::detail

namespace gradlint::cpp {

using detail::TranslationUnitLowering;


LoweredTranslationUnit lowerTranslationUnit(clang::ASTContext& context,
                                            const SourceText& mainFile,
                                            const HeaderSelection* headers,
                                            const std::vector<clang::SourceLocation>& errors,
                                            bool skipPrecompiled) {
  TranslationUnitLowering lowering(context, mainFile, headers, errors);
  lowering.run(skipPrecompiled);
  return lowering.take();
}

} // namespace gradlint::cpp
