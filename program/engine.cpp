#include "program/engine.h"

#include "checkers/catalog/grad_mode_api.h"
#include "checkers/catalog/offload_api.h"
#include "checkers/cpp/checker_module.h"
#include "checkers/ir/placement.h"
#include "checkers/ir/summaries.h"
#include "checkers/python/chunks.h"
#include "checkers/python/frontend.h"
#include "program/cpp_module.h"
#include "program/discover.h"
#include "program/read_file.h"
#include "program/test_hooks.h"
#include "rules/rule.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <unordered_map>
#include <unordered_set>

// AddressSanitizer's leak checking must see a clean exit: GCC says it is on with
// __SANITIZE_ADDRESS__, Clang only through __has_feature (Clang 19 defines no macro).
#if defined(__SANITIZE_ADDRESS__)
#define GRADLINT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRADLINT_UNDER_ASAN 1
#endif
#endif
#ifndef GRADLINT_UNDER_ASAN
#define GRADLINT_UNDER_ASAN 0
#endif

namespace gradlint {
namespace {

bool mentionsAny(const std::string& text, const std::vector<std::string>& needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const std::string& needle) {
    return text.find(needle) != std::string::npos;
  });
}

// The selected rules' markers, compiled for one pass over each file.
struct MarkerSet {
  std::vector<python::Needle> needles;
  std::vector<std::string> all; // every needle's text (C++: any one makes a file worth a parse)
  python::NeedleSearch search{std::vector<python::Needle>{}};

  bool followsSelf = false; // a rule follows `self.attr` across methods (needsWholeClass)

  void add(const rules::Rule& rule) {
    followsSelf = followsSelf || rule.needsWholeClass();
    const python::ClassScope scope =
        rule.needsWholeClass() ? python::ClassScope::WholeClass : python::ClassScope::Member;
    for (std::string_view marker : rule.markers()) {
      needles.push_back({std::string(marker), python::Match::Marker, scope});
    }
    for (std::string_view marker : rule.wordMarkers()) {
      needles.push_back({std::string(marker), python::Match::WordMarker, scope});
    }
  }
  // After the last add().
  void compile() {
    for (const python::Needle& needle : needles) {
      if (std::find(all.begin(), all.end(), needle.text) == all.end()) all.push_back(needle.text);
    }
    search = python::NeedleSearch(needles);
  }
  bool empty() const { return all.empty(); }
};

struct FileState {
  const FileInput* input = nullptr;
  // To run on this file: a key of runCheck's markerSets (one copy per distinct selection).
  const std::vector<const rules::Rule*>* rules = nullptr;
  const MarkerSet* markers = nullptr; // of those rules: text that makes a chunk worth parsing
  // Null between steps for a file read from disk (releaseSource): the run keeps the file's plan
  // and lowering, not its text, and reads the text again when a step needs it.
  std::shared_ptr<SourceText> source;
  bool rereadable = false; // read from disk by the first pass: the text may be dropped
  // The run's kept-text budget (CheckOptions::keptTexts), and whether this text is charged to
  // it: a kept text is never dropped, so the file is not read again.
  ByteBudget* keptTexts = nullptr;
  bool textKept = false;
  size_t textCharge = 0; // given back when the run ends
  size_t sourceSize = 0;   // of the bytes first read, which a reading again must match
  uint64_t sourceHash = 0;
  // On the heap: most files of a large tree are never lowered (setLowering).
  std::unique_ptr<python::PythonFileResult> lowered;
  std::string error;
  // Python partial parsing: the file's chunks (split on its first mention of a needle) and the
  // byte ranges last lowered.
  python::ChunkLayout layout;
  std::vector<bool> chosen; // per chunk: mentions a needle
  // Split classes (header chunk indices) whose members mention a marker of a rule that follows
  // `self.X` from method to method (Rule::needsWholeClass): only those members are parsed until
  // one of them turns out to place a model (classesToComplete); then the whole class is.
  std::vector<uint32_t> deferredClasses;
  bool optimizersChosen = false;
  std::vector<bool> chosenAsBinding; // per chunk: chosen only as a binding of module code
  std::vector<python::ByteRange> ranges;
  // A large file's last lowering: if a rescan adds chunks, the definitions it lowered already
  // are not lowered again (lowering_memo.h).
  std::unique_ptr<python::DocumentMemo> keptMemo;
  // C++: the project headers whose functions this translation unit lowered, until the run
  // takes them as files of their own (adoptHeaders).
  std::vector<std::pair<std::shared_ptr<SourceText>, python::PythonFileResult>> headers;
  // C++: compiled by this run (not a header adopted from a translation unit), with errors, and
  // stopped by them (a fatal error, flags Clang rejects) before any function was lowered, in
  // the file or in a header it includes.
  bool cppCompiled = false;
  bool cppCompileFailed = false;
  bool cppNothingLowered = false;
  // A file read from disk past the budget of whole lowerings (kWholeIrBudgetBytes): per unit of
  // `lowered`, what summarisation reads, the units' nodes being dropped. Empty: `lowered` is
  // whole.
  std::vector<ir::UnitDigest> digests;
  size_t wholeCharge = 0; // the bytes parsed for `lowered`, while it is whole and charged
  ByteBudget* chargedTo = nullptr; // the budget wholeCharge was taken from
  // The file lowered again for the summaries (DroppedFiles::whole), kept for its rules: the
  // reports of its units' analyses are keyed by them.
  std::unique_ptr<python::PythonFileResult> whole;
};

bool readFile(const std::string& path, std::string& out, std::string& error) {
  deleteBeforeReadHook(path);
  if (readWholeFile(path, out, error)) return true;
  error = path + ": " + error;
  return false;
}

std::string changedWhileChecked(const std::string& path) {
  return path + ": changed while being checked (check it again)";
}

// Drops the text of a file read from disk, unless the run's kept-text budget has room for it:
// peak memory then follows the budget and the files in work, not the size of the tree. Text
// given by the caller, notebooks and C++ files are kept.
void releaseSource(FileState& state) {
  if (!state.rereadable || !state.source || state.textKept) return;
  const size_t size = state.source->bytes().size();
  if (state.keptTexts != nullptr && state.keptTexts->take(size)) {
    state.textKept = true;
    state.textCharge = size;
    return;
  }
  state.source.reset();
}

// Makes the file's text available again, reading it from disk if it was dropped. False when the
// file no longer holds the bytes the run analysed: it is then an error.
bool rereadSource(FileState& state) {
  if (state.source) return true;
  if (!state.rereadable || !state.error.empty()) return false;
  const std::string& path = state.input->ref.path;
  changeBeforeRereadHook(path);
  std::string bytes;
  std::string error;
  if (!readWholeFile(path, bytes, error) || bytes.size() != state.sourceSize ||
      XXH3_64bits(bytes.data(), bytes.size()) != state.sourceHash) {
    state.error = changedWhileChecked(path);
    state.rereadable = false;
    return false;
  }
  state.source = std::make_shared<SourceText>(path, std::move(bytes));
  return true;
}

// Stores a file's lowering. A file lowered again keeps the object of its first lowering (the
// summaries and DroppedFiles point into its module between rounds).
void setLowering(FileState& state, python::PythonFileResult lowering) {
  if (state.lowered) {
    *state.lowered = std::move(lowering);
  } else {
    state.lowered = std::make_unique<python::PythonFileResult>(std::move(lowering));
  }
}

// rereadSource, dropping the lowering (made from the old bytes) of a file that changed, so
// nothing is reported at positions of another text.
bool acquireSource(FileState& state) {
  if (rereadSource(state)) return true;
  state.lowered.reset();
  return false;
}

// The offset of the first byte of `bytes` that is not part of well-formed UTF-8 (no overlong
// forms, no surrogates, nothing past U+10FFFF); nullopt for UTF-8 text.
std::optional<size_t> firstNonUtf8Byte(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    if (lead < 0x80) {
      // Source is mostly ASCII: skip it eight bytes at a time.
      ++i;
      while (i + sizeof(uint64_t) <= bytes.size()) {
        uint64_t word = 0;
        std::memcpy(&word, bytes.data() + i, sizeof word);
        if ((word & 0x8080808080808080u) != 0) break;
        i += sizeof word;
      }
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80; // the range the second byte must lie in
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;  // overlong
      if (lead == 0xED) high = 0x9F; // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;  // overlong
      if (lead == 0xF4) high = 0x8F; // past U+10FFFF
    } else {
      return i;
    }
    if (i + length > bytes.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(bytes[i + k]);
      if (k == 1 ? (next < low || next > high) : (next & 0xC0) != 0x80) return i;
    }
    i += length;
  }
  return std::nullopt;
}

// Python source is UTF-8 text (PEP 3120). A checked file that is not (a binary file named .py,
// a Latin-1 file) is an error naming the first bad byte, as ruff reports it: its findings would
// rest on what the parser guessed. Context modules are read leniently: they are not checked.
bool isCheckableText(const FileInput& input, std::string_view bytes, std::string& error) {
  if (input.context || isCppPath(input.ref.path) || isNotebookPath(input.ref.path)) return true;
  const std::optional<size_t> bad = firstNonUtf8Byte(bytes);
  if (!bad) return true;
  const std::string_view before = bytes.substr(0, *bad);
  const size_t lineStart = before.rfind('\n');
  const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const size_t column = lineStart == std::string_view::npos ? *bad + 1 : *bad - lineStart;
  error = fmt::format("{}: not UTF-8 text (byte 0x{:02X} at line {}, column {})",
                      input.ref.path, static_cast<unsigned char>(bytes[*bad]), line, column);
  return false;
}

// The qualified name of the innermost function, lambda or class containing `byte`.
std::string enclosingScope(const ir::ModuleIR& module, uint32_t byte) {
  const ir::FunctionIR* innermost = nullptr;
  for (const ir::FunctionIR& unit : module.units) {
    if (unit.kind == ir::UnitKind::Module || byte < unit.range.startByte ||
        byte >= unit.range.endByte) {
      continue;
    }
    if (innermost == nullptr || unit.range.endByte - unit.range.startByte <
                                    innermost->range.endByte - innermost->range.startByte) {
      innermost = &unit;
    }
  }
  if (innermost == nullptr) return "";
  return innermost->qualifiedName.empty() ? innermost->name : innermost->qualifiedName;
}

void lowerCppFile(FileState& state, const CheckOptions& options) {
  setLowering(state, {});
  state.lowered->module.language = ir::Language::Cpp;
  state.lowered->module.path = state.source->path();
  // The C++ module is opened by the first C++ file that needs a parse (program/cpp_module.h).
  std::string error;
  const cpp::CheckerModule* checker = cppCheckerModule(error);
  if (checker == nullptr) {
    state.error = state.source->path() + ": " + error;
    return;
  }
  cpp::CppFileResult result =
      checker->analyzeFile(*state.source, options.cppCommands.get(), cppRuleNames());
  state.cppCompiled = true;
  state.cppCompileFailed = result.compilerErrors > 0;
  state.cppNothingLowered =
      result.compileStopped && result.module.units.empty() &&
      std::all_of(result.headers.begin(), result.headers.end(),
                  [](const cpp::CppHeaderResult& header) { return header.module.units.empty(); });
  state.lowered->module = std::move(result.module);
  state.lowered->suppressions = std::move(result.suppressions);
  state.lowered->frontendDiagnostics = std::move(result.frontendDiagnostics);
  state.lowered->warnings = std::move(result.warnings);
  for (cpp::CppHeaderResult& header : result.headers) {
    python::PythonFileResult lowered;
    lowered.module = std::move(header.module);
    lowered.suppressions = std::move(header.suppressions);
    state.headers.emplace_back(std::move(header.source), std::move(lowered));
  }
}

// C++ files are compiled whole; a notebook is parsed whole because its kernel carries grad mode
// from each cell into every later one (a toggle's cell alone cannot tell whether it leaks).
bool selectsInvalidSyntax(const FileState& state) {
  return std::any_of(state.rules->begin(), state.rules->end(),
                     [](const rules::Rule* rule) { return rule->info().code == "GL000"; });
}

bool parsedWhole(const FileState& state) {
  // A dropped text is never a notebook's (releaseSource).
  return isCppPath(state.input->ref.path) ||
         (state.source != nullptr && state.source->notebook() != nullptr);
}

// Headers lowered through the translation units that include them become files of the run:
// their units are analysed and reported at the header's lines. A header's functions may come
// from several translation units (each function from the first to claim it): they are merged.
// `named`: how many states are the run's own inputs (the rest were adopted earlier).
void adoptHeaders(std::vector<FileState>& states, std::deque<FileInput>& headerInputs,
                  size_t named) {
  std::unordered_map<std::string, size_t> byPath;
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i].input->ref.path.empty()) continue;
    byPath.emplace(states[i].input->ref.path, i);
  }
  const size_t count = states.size();
  for (size_t i = 0; i < count; ++i) {
    auto headers = std::move(states[i].headers);
    states[i].headers.clear();
    for (auto& [source, lowered] : headers) {
      const std::string path = source->path();
      auto found = byPath.find(path);
      if (found != byPath.end() && found->second >= named && states[found->second].lowered) {
        ir::ModuleIR& module = states[found->second].lowered->module;
        for (ir::FunctionIR& unit : lowered.module.units) module.units.push_back(std::move(unit));
        std::stable_sort(module.units.begin(), module.units.end(),
                         [](const ir::FunctionIR& a, const ir::FunctionIR& b) {
                           return a.range.startByte < b.range.startByte;
                         });
        continue;
      }
      if (found != byPath.end()) continue; // named on the command line: checked on its own
      FileInput& input = headerInputs.emplace_back();
      input.ref = describeFile(path);
      FileState header;
      header.input = &input;
      header.rules = states[i].rules;
      header.markers = states[i].markers;
      header.source = std::move(source);
      setLowering(header, std::move(lowered));
      byPath.emplace(path, states.size());
      states.push_back(std::move(header));
    }
  }
}

// The bytes a lowering of `state` hands to the parser.
size_t parsedBytes(const FileState& state) {
  if (state.ranges.empty()) return state.source ? state.source->bytes().size() : state.sourceSize;
  size_t bytes = 0;
  for (const python::ByteRange& range : state.ranges) bytes += range.end - range.start;
  return bytes;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Files parsed in part whose lowering is kept for the run, for rescans: large ones only (only
// large files make a rescan round wait), and only up to a total of parsed bytes (the kept IR
// takes ~10-15 times them). Files are lowered largest first, so the budget goes to the largest:
// on the torch corpus every file a rescan re-parses fits in it. Their trees are not kept
// (DocumentMemo::remember says why).
constexpr size_t kMemoKeptFromBytes = 32 * 1024;
constexpr size_t kMemosKeptBudgetBytes = 1024 * 1024;

// Lowerings kept whole from lowering to the rules, in bytes parsed (a lowering takes ~10-15
// times them): enough for the torch corpus. Past it a file keeps only its units' digests
// (keepOrDigest) and is lowered again when the summaries analyse one of its units, a call of it
// turns out to reach a summary, or its rules run; files whose rules could report stay whole while
// kReportingIrBudgetBytes lasts.
constexpr size_t kWholeIrBudgetBytes = 2 * 1024 * 1024;

// Past kWholeIrBudgetBytes, the files whose rules could report stay whole up to this many bytes
// parsed; the rest are digested too and lowered again for their rules, one at a time. Without
// it such files are what grows with the tree: on ten copies of torch's sources they held 26 MB
// of the 90 MB heap peak, and digesting all of them cost 1.3x the CPU time.
constexpr size_t kReportingIrBudgetBytes = 2 * 1024 * 1024;

// The budgets of one run.
struct LoweringBudgets {
  ByteBudget keptMemos{kMemosKeptBudgetBytes};
  ByteBudget wholeIr{wholeIrBudgetHook(kWholeIrBudgetBytes)};
  ByteBudget reportingIr{wholeIrBudgetHook(kReportingIrBudgetBytes)};
};

// Returns true when the lowering started from one this run kept for the file.
bool lowerFile(FileState& state, const CheckOptions& options, ByteBudget& budget) {
  if (!acquireSource(state)) return false;
  const SourceFileRef& ref = state.input->ref;
  if (isCppPath(ref.path)) {
    lowerCppFile(state, options);
    return false;
  }
  python::ModuleContext context{ref.moduleName, ref.isPackageInit, ref.inPackage};
  if (state.source->notebook() != nullptr) {
    // Nothing imports a notebook: its top level is the kernel's session, run cell by cell.
    context = {ref.moduleName, false, false, true};
  }
  python::DocumentMemo* memo = state.input->documentMemo.get();
  const bool fromKeptMemo = state.keptMemo != nullptr;
  if (memo == nullptr && !state.ranges.empty()) {
    const size_t bytes = parsedBytes(state);
    if (!state.keptMemo && bytes >= kMemoKeptFromBytes && budget.take(bytes)) {
      state.keptMemo = std::make_unique<python::DocumentMemo>();
    }
    memo = state.keptMemo.get();
  }
  setLowering(state, python::analyzePythonFile(*state.source, context, state.ranges, memo));
  state.lowered->module.origin = state.input->origin;
  return fromKeptMemo;
}

// The lowering lowerFile made of a file read from disk, made again from its text (as
// deterministic as the first: the same bytes and ranges; a kept lowering gives what lowering
// its definitions again would).
python::PythonFileResult lowerAgain(const FileState& state) {
  const SourceFileRef& ref = state.input->ref;
  const python::ModuleContext context{ref.moduleName, ref.isPackageInit, ref.inPackage};
  python::DocumentMemo* memo = state.input->documentMemo.get();
  if (memo == nullptr && !state.ranges.empty()) memo = state.keptMemo.get();
  python::PythonFileResult result =
      python::analyzePythonFile(*state.source, context, state.ranges, memo);
  result.module.origin = state.input->origin;
  return result;
}

// Summaries aside, whether the rules could report anything in a file, from its units' digests:
// some unit has an event beyond control flow, calls and assignments, or calls a grad-mode
// context (GL105 reports one used as a statement).
bool eventsMayReport(const std::vector<ir::UnitDigest>& digests) {
  using Kind = ir::EventKind;
  uint64_t quiet = 0;
  for (Kind kind : {Kind::Entry, Kind::Nop, Kind::Call, Kind::Return, Kind::FallThrough,
                    Kind::Raise, Kind::Yield, Kind::Await, Kind::NormalExit,
                    Kind::ExceptionalExit, Kind::Assign, Kind::Assume}) {
    quiet |= uint64_t{1} << static_cast<unsigned>(kind);
  }
  for (const ir::UnitDigest& digest : digests) {
    if ((digest.kinds & ~quiet) != 0) return true;
    for (const ir::UnitDigest::Call& called : digest.calls) {
      if (catalog::isGradContext(catalog::classifyPythonName(called.callee))) return true;
    }
  }
  return false;
}

// The summary a call that a unit's digest keeps resolves to (null when none): the lookup the
// lowered call's event would make.
const ir::FunctionSummary* summaryOfDigestCall(const ir::UnitDigest::Call& called,
                                               const ir::SummaryTable& summaries) {
  ir::Event call;
  call.kind = called.kind;
  call.callee = called.callee;
  call.importsModule = called.importsModule;
  return summaries.findFor(call);
}

// eventsMayReport, or a call reaches a function with a summary. Else the rules of a file whose
// units were dropped find nothing, and it is not lowered again for them.
bool rulesMayReport(const std::vector<ir::UnitDigest>& digests, const ir::SummaryTable& summaries) {
  if (eventsMayReport(digests)) return true;
  for (const ir::UnitDigest& digest : digests) {
    for (const ir::UnitDigest::Call& called : digest.calls) {
      if (summaryOfDigestCall(called, summaries) != nullptr) return true;
    }
  }
  return false;
}

// After a lowering: keeps it whole while the budget lasts, else keeps its units' digests and
// drops their nodes (the bulk of it). Only files read from disk: they can be lowered again.
void keepOrDigest(FileState& state, LoweringBudgets& budgets) {
  state.whole.reset();
  state.digests.clear();
  if (state.chargedTo != nullptr) state.chargedTo->give(state.wholeCharge); // the replaced one's
  state.wholeCharge = 0;
  state.chargedTo = nullptr;
  if (!state.lowered || !state.rereadable || !state.error.empty()) return;
  const size_t bytes = parsedBytes(state);
  const auto keepWhole = [&](ByteBudget& budget) {
    if (!budget.take(bytes)) return false;
    state.wholeCharge = bytes;
    state.chargedTo = &budget;
    return true;
  };
  if (keepWhole(budgets.wholeIr)) return;
  state.digests.reserve(state.lowered->module.units.size());
  for (ir::FunctionIR& unit : state.lowered->module.units) {
    state.digests.push_back(ir::digestUnit(unit));
  }
  // A file its rules will check stays whole while their own budget lasts (lowering it again
  // costs more than it holds: few files of a tree have grad-mode, training or placement events).
  if (eventsMayReport(state.digests) && keepWhole(budgets.reportingIr)) {
    state.digests.clear();
    return;
  }
  for (ir::FunctionIR& unit : state.lowered->module.units) std::vector<ir::Node>().swap(unit.nodes);
}

// The dropped units of a run's files, for the summaries: their digests, and the units whole
// again, lowered from the file's text once more.
class DroppedFiles final : public ir::DroppedUnits {
public:
  explicit DroppedFiles(std::vector<FileState>& states) : states_(states) {}

  // After any lowering, before the summaries.
  void index() {
    byModule_.clear();
    for (size_t i = 0; i < states_.size(); ++i) {
      if (states_[i].lowered && !states_[i].digests.empty()) {
        byModule_.emplace(&states_[i].lowered->module, i);
      }
    }
  }

  const ir::UnitDigest* digest(const ir::ModuleIR& module,
                               const ir::FunctionIR& fn) const override {
    const FileState* state = stateOf(module);
    const std::optional<size_t> unit = unitOf(module, fn);
    return state != nullptr && unit ? &state->digests[*unit] : nullptr;
  }

  const ir::FunctionIR* whole(const ir::ModuleIR& module, const ir::FunctionIR& fn) override {
    const auto found = byModule_.find(&module);
    const std::optional<size_t> unit = unitOf(module, fn);
    if (found == byModule_.end() || !unit) return nullptr;
    FileState& state = states_[found->second];
    if (!state.whole) {
      // A file changed on disk since it was lowered is reported so by the rules' step; its
      // `lowered` stays, as the summaries point into it.
      if (!rereadSource(state)) return nullptr;
      state.whole = std::make_unique<python::PythonFileResult>(lowerAgain(state));
      releaseSource(state);
    }
    const std::vector<ir::FunctionIR>& units = state.whole->module.units;
    return units.size() == state.digests.size() ? &units[*unit] : nullptr;
  }

private:
  const FileState* stateOf(const ir::ModuleIR& module) const {
    const auto found = byModule_.find(&module);
    return found == byModule_.end() ? nullptr : &states_[found->second];
  }
  // The index of `fn` among the units of `module`, if it is one of them.
  static std::optional<size_t> unitOf(const ir::ModuleIR& module, const ir::FunctionIR& fn) {
    const std::vector<ir::FunctionIR>& units = module.units;
    if (units.empty() || &fn < units.data() || &fn >= units.data() + units.size()) {
      return std::nullopt;
    }
    return static_cast<size_t>(&fn - units.data());
  }

  std::vector<FileState>& states_;
  std::unordered_map<const ir::ModuleIR*, size_t> byModule_;
};

// Python: parse only the chunks that mention a needle (plus every import). The file is split
// into chunks at its first mention (`needles` then also name the imports whose aliases count).
// Returns true when more chunks were chosen (and so the file needs lowering again).
// Splits the file into chunks, once. Returns true when the imports' aliases of `needles` chose
// chunks.
bool splitIntoChunks(FileState& state, const std::vector<std::string>& needles) {
  if (!state.layout.chunks.empty()) return false;
  const std::string& text = state.source->bytes();
  state.layout = python::scanChunks(text, state.source->contentStart(), true);
  // Kept for rescans, for every file that mentions a needle: no spare capacity.
  state.layout.chunks.shrink_to_fit();
  state.layout.inert.shrink_to_fit();
  state.chosen.assign(state.layout.chunks.size(), false);
  // `from torch import no_grad as ng`: chunks that call `ng` matter too.
  const std::vector<std::string> aliases =
      python::importAliases(text, state.layout.chunks, needles);
  return python::chooseChunks(text, state.layout, aliases, state.chosen, python::Match::Word);
}

bool chooseMentions(FileState& state, const std::vector<python::Mention>& mentions,
                    const std::vector<std::string>& needles) {
  if (mentions.empty()) return false;
  const bool chosen = splitIntoChunks(state, needles);
  return python::chooseMentioned(state.layout, mentions, state.chosen) || chosen;
}

// After choosing: the ranges to parse. Once anything is parsed, so is every mention of an
// optimizer (`self.opt = torch.optim.SGD(...)` in an `__init__` that names no marker tells the
// training rules which `.step()` is an optimizer's), and the module-level statements that use
// what a chosen one binds (python::chooseModuleFlow).
void planRanges(FileState& state) {
  if (!state.optimizersChosen) {
    state.optimizersChosen = true;
    python::chooseMentioned(state.layout, python::optimizerMentions(state.source->bytes()),
                            state.chosen);
  }
  python::chooseModuleFlow(state.source->bytes(), state.layout, state.chosen,
                           state.chosenAsBinding);
  python::chooseTrainerSubclasses(state.source->bytes(), state.layout, state.chosen);
  state.ranges = python::chosenRanges(state.layout.chunks, state.chosen);
}

bool planPythonRanges(FileState& state) {
  const MarkerSet& markers = *state.markers;
  std::vector<python::Mention> mentions = markers.search.find(state.source->bytes());
  // A merge-conflict marker makes its chunk worth parsing, so GL000 does not depend on which
  // chunks name a grad API.
  std::vector<python::Mention> conflicts = python::conflictMarkers(state.source->bytes());
  mentions.insert(mentions.end(), conflicts.begin(), conflicts.end());
  if (mentions.empty()) return false;
  // `@torch.no_grad()` over a function that does nothing else with grad mode is no reason to
  // parse it (diffusers decorates every pipeline's `__call__` so).
  bool chosen = splitIntoChunks(state, markers.all);
  python::dropRestoringRegions(state.source->bytes(), state.layout, mentions);
  python::dropBoundNames(state.source->bytes(), state.layout, mentions);
  python::dropLoneBackwards(state.source->bytes(), state.layout, mentions);
  for (std::string_view marker : {"offload", "device_map"}) {
    python::dropForeignNames(state.source->bytes(), marker, catalog::isOffloadVocabulary,
                             mentions);
  }
  chosen = python::chooseMentioned(state.layout, mentions, state.chosen, &state.deferredClasses) ||
           chosen;
  if (!chosen) return false;
  planRanges(state);
  return true;
}

// A summarised function's last name (`f` of `pkg.mod.f`, of a C++ `ns::Class::f`), with every
// qualified name in the run it stands for.
struct RescanName {
  std::string name;
  std::vector<std::string> qualified;
  // When every qualified name is a method: the classes' names. Outside the defining module a
  // call resolves to a method only as `Class.method(...)` (`obj.method()` resolves to nothing).
  std::vector<std::string> classes;
  bool onlyMethods = true;
  // One of them offloads an argument or returns a model with hooks: a method that calls it
  // places a model, so GL201/GL202 read its whole class (as an offload written there makes them).
  bool placesModel = false;
};

// Whether `qualified` is a grad-mode API of the catalog (`torch.autograd.grad_mode.no_grad`) or
// one of its methods (`...no_grad.__enter__`). A run over PyTorch's own sources summarises
// these classes, but the lowering turns a use of one into the API's own event, never into a
// call of that summary: its name is no reason to parse a caller (the rules that act on the
// API's events choose those chunks by their own markers). Else every `@torch.no_grad()` that
// the first pass proved not worth parsing would be parsed by the first rescan.
bool isGradApiOrMember(std::string_view qualified) {
  if (catalog::classifyPythonName(qualified) != catalog::GradApi::None) return true;
  const size_t dot = qualified.rfind('.');
  return dot != std::string_view::npos &&
         catalog::classifyPythonName(qualified.substr(0, dot)) != catalog::GradApi::None;
}

// The names whose callers are worth parsing: those of summaries with an effect on callers that
// were not scanned for yet. A name comes back when it stands for a new qualified name too.
std::vector<RescanName> namesToRescan(const ir::SummaryTable& summaries,
                                      const std::vector<const ir::ModuleIR*>& modules,
                                      const std::vector<ir::EventKind>& callersNeededOf,
                                      std::unordered_set<std::string>& scannedQualified,
                                      const ir::DroppedUnits& dropped) {
  std::map<std::string, RescanName> byName; // ordered: the same needles in every run
  std::unordered_set<std::string> fresh;
  std::vector<std::string> wanted;
  std::unordered_set<std::string_view> placing;
  for (const auto& [qualified, summary] : summaries.all()) {
    // Only effects a caller's rules act on make its callers worth parsing.
    if (summary.affectsCallers()) wanted.push_back(qualified);
    if (!summary.offloadsArgs.empty() || summary.returnsOffloaded) placing.insert(qualified);
  }
  // Rules that ask how a function is called (GL303: only with grad disabled?) need all of its
  // call sites: the callers of every function with such an event are parsed too.
  for (const ir::ModuleIR* module : callersNeededOf.empty() ? decltype(modules){} : modules) {
    for (const ir::FunctionIR& fn : module->units) {
      // Dunder methods run implicitly (`Model(...)`, `with x:`), so their call sites are not
      // calls by name: searching files for `__init__` would parse every class around.
      if (fn.qualifiedName.empty() || fn.kind == ir::UnitKind::Module ||
          (fn.name.starts_with("__") && fn.name.ends_with("__"))) {
        continue;
      }
      const ir::UnitDigest* digest = dropped.digest(*module, fn);
      if (digest != nullptr
              ? std::any_of(callersNeededOf.begin(), callersNeededOf.end(),
                            [&](ir::EventKind kind) { return digest->has(kind); })
              : std::any_of(fn.nodes.begin(), fn.nodes.end(), [&](const ir::Node& node) {
                  return std::find(callersNeededOf.begin(), callersNeededOf.end(),
                                   node.event.kind) != callersNeededOf.end();
                })) {
        wanted.push_back(fn.qualifiedName);
      }
    }
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::unordered_map<std::string_view, std::string_view> classOf; // methods' qualified names
  for (const ir::ModuleIR* module : modules) {
    if (module->language != ir::Language::Python) continue;
    for (const ir::FunctionIR& fn : module->units) {
      if (!fn.className.empty() && !fn.qualifiedName.empty()) {
        classOf.emplace(fn.qualifiedName, fn.className);
      }
    }
  }
  for (const std::string& qualified : wanted) {
    if (isGradApiOrMember(qualified)) continue;
    const size_t dot = qualified.rfind('.');
    const size_t scope = qualified.rfind("::");
    std::string name = dot != std::string::npos     ? qualified.substr(dot + 1)
                       : scope != std::string::npos ? qualified.substr(scope + 2)
                                                    : qualified;
    // A method Python runs for a use of its class (`Cls(...)` runs `__init__`, `with Cls():`
    // `__enter__` and `__exit__`, `@Cls()` `__call__`): its callers name the class, so the class
    // is what is searched for, as a function's name is. (Its summary may come from a module not
    // lowered in this run: the class is the name before the method's.)
    const bool runByUse = dot != std::string::npos && dot > 0 &&
                          (name == "__init__" || name == "__new__" || name == "__enter__" ||
                           name == "__exit__" || name == "__aenter__" || name == "__aexit__" ||
                           name == "__call__");
    if (runByUse) {
      const size_t classStart = qualified.rfind('.', dot - 1);
      name = qualified.substr(classStart == std::string::npos ? 0 : classStart + 1,
                              dot - (classStart == std::string::npos ? 0 : classStart + 1));
    }
    if (scannedQualified.insert(qualified).second) fresh.insert(name);
    RescanName& entry = byName[name];
    entry.name = name;
    entry.qualified.push_back(qualified);
    entry.placesModel = entry.placesModel || placing.count(qualified) != 0;
    const auto method = runByUse ? classOf.end() : classOf.find(qualified);
    if (method == classOf.end()) {
      entry.onlyMethods = false;
    } else {
      entry.classes.emplace_back(method->second);
    }
  }
  std::vector<RescanName> names;
  for (auto& [name, entry] : byName) {
    if (fresh.count(name) != 0) names.push_back(std::move(entry));
  }
  return names;
}

// One rescan round's names, compiled once for every file.
struct RescanSearch {
  explicit RescanSearch(const std::vector<RescanName>& rescanned)
      : names(plainNames(rescanned)), search(names, python::Match::Word) {
    for (const RescanName& name : rescanned) byName.emplace(name.name, &name);
  }
  static std::vector<std::string> plainNames(const std::vector<RescanName>& names) {
    std::vector<std::string> out;
    for (const RescanName& name : names) out.push_back(name.name);
    return out;
  }
  std::vector<std::string> names;
  python::NeedleSearch search;
  std::unordered_map<std::string_view, const RescanName*> byName;
};

// Python: chooses the chunks that use one of the round's names. A `def NAME` alone does not
// count unless it can define one of the summarised functions itself (same module): then it makes
// that name ambiguous (unsummarised), as in a full parse. Returns true when more chunks were
// chosen.
bool allChunksChosen(const FileState& state) {
  return !state.chosen.empty() &&
         std::all_of(state.chosen.begin(), state.chosen.end(), std::identity());
}

bool planRescan(FileState& state, const RescanSearch& round) {
  if (allChunksChosen(state)) return false; // nothing left to add
  const std::string& text = state.source->bytes();
  std::vector<python::Mention> mentions = round.search.find(text);
  if (mentions.empty()) return false;
  const std::string& module = state.input->ref.moduleName;
  // Whether a call at `at` of `name` can reach one of its summarised functions.
  auto reaches = [&](size_t at, const RescanName& name) {
    const bool mayDefine =
        std::any_of(name.qualified.begin(), name.qualified.end(), [&](const std::string& q) {
          return q.size() > module.size() && q.starts_with(module) && q[module.size()] == '.';
        });
    if (mayDefine) return true;
    if (!python::mayCall(text, at)) return false;
    if (!name.onlyMethods) return true;
    // Another module reaches a method only through its class: `Class.method`.
    if (at == 0 || text[at - 1] != '.') return false;
    const std::string_view owner = python::nameAround(text, at - 1, at - 1);
    return std::find(name.classes.begin(), name.classes.end(), owner) != name.classes.end();
  };
  std::vector<python::Mention> reaching;
  for (python::Mention mention : mentions) {
    const auto found = round.byName.find(python::nameAt(text, mention.at));
    if (found != round.byName.end() && !module.empty() && !reaches(mention.at, *found->second)) {
      continue;
    }
    if (state.markers->followsSelf && found != round.byName.end() &&
        found->second->placesModel) {
      mention.scope = python::ClassScope::WholeClass;
    }
    reaching.push_back(mention);
  }
  mentions = std::move(reaching);
  std::vector<bool> before = state.chosen; // empty if not split yet: then never parsed in part
  if (!chooseMentions(state, mentions, round.names)) return false;
  // A large file parsed in part is re-parsed whole by each round (a partial parse is never
  // incremental: DocumentMemo::remember), so it takes in what calls the functions added now.
  if (!before.empty() && !state.ranges.empty() && parsedBytes(state) >= kMemoKeptFromBytes) {
    python::chooseLocalCallers(text, state.layout, state.chosen, std::move(before));
  }
  planRanges(state);
  return true;
}

// Whether a unit places a model: an offload, or a call of a helper that offloads its argument or
// returns a model with hooks (ir::hasPlacementEvents, or the same read from a digest).
bool placesModel(const ir::ModuleIR& module, const ir::FunctionIR& fn,
                 const ir::SummaryTable& summaries, const ir::DroppedUnits& dropped) {
  const ir::UnitDigest* digest = dropped.digest(module, fn);
  if (digest == nullptr) return ir::hasPlacementEvents(fn, summaries);
  if (digest->has(ir::EventKind::Offload)) return true;
  for (const ir::UnitDigest::Call& called : digest->calls) {
    const ir::FunctionSummary* summary = summaryOfDigestCall(called, summaries);
    if (summary != nullptr && (!summary->offloadsArgs.empty() || summary->returnsOffloaded)) {
      return true;
    }
  }
  return false;
}

// The deferred classes (FileState::deferredClasses) of a lowered file in which a lowered unit
// places a model: GL201/GL202 then follow what a method leaves on `self` into every other method
// (rules/offload_flow.cpp), and a class body's statements into the next ones, so the whole class
// is parsed. Until then its other members cannot change what they report.
std::vector<uint32_t> classesToComplete(const FileState& state, const ir::SummaryTable& summaries,
                                        const ir::DroppedUnits& dropped) {
  std::vector<uint32_t> complete;
  if (state.deferredClasses.empty() || !state.lowered) return complete;
  const ir::ModuleIR& module = state.lowered->module;
  // Where the units that place a model start: methods, and class bodies (their statements run
  // as one flow, as module code does).
  std::vector<uint32_t> placing;
  for (const ir::FunctionIR& fn : module.units) {
    if (fn.kind != ir::UnitKind::Module && placesModel(module, fn, summaries, dropped)) {
      placing.push_back(fn.range.startByte);
    }
  }
  if (placing.empty()) return complete;
  std::sort(placing.begin(), placing.end());
  const std::vector<python::SourceChunk>& chunks = state.layout.chunks;
  for (uint32_t header : state.deferredClasses) {
    const auto members = state.chosen.begin() + header;
    if (std::all_of(members, state.chosen.begin() + chunks[header].membersEnd, std::identity())) {
      continue; // chosen whole already (a mention in its header, an enclosing class)
    }
    const uint32_t end = chunks[chunks[header].membersEnd - 1].end;
    const auto first = std::lower_bound(placing.begin(), placing.end(), chunks[header].start);
    if (first != placing.end() && *first < end) complete.push_back(header);
  }
  return complete;
}

struct LoweredCount {
  size_t files = 0;
  size_t bytes = 0;        // handed to the parser
  size_t fromKeptMemo = 0; // files whose last lowering was kept (lowerFile)
};

// Lowers the wanted files, the largest first: a large file started last would leave the other
// threads idle at the end (the longest-processing-time-first rule).
LoweredCount lowerLargestFirst(std::vector<FileState>& states, const std::vector<char>& wanted,
                               const CheckOptions& options, LoweringBudgets& budgets) {
  std::vector<std::pair<size_t, size_t>> order; // (bytes to parse, index)
  for (size_t i = 0; i < states.size(); ++i) {
    if (wanted[i]) order.emplace_back(parsedBytes(states[i]), i);
  }
  std::sort(order.begin(), order.end(), std::greater<>());
  LoweredCount count;
  std::atomic<size_t> fromKeptMemo{0};
  parallelFor(order.size(), options.threads, [&](size_t at) {
    FileState& state = states[order[at].second];
    if (lowerFile(state, options, budgets.keptMemos)) ++fromKeptMemo;
    keepOrDigest(state, budgets);
    releaseSource(state);
  });
  count.fromKeptMemo = fromKeptMemo;
  count.files = order.size();
  for (const auto& [bytes, index] : order) count.bytes += bytes;
  return count;
}

// The text that makes a file worth lowering: the selected rules' markers, or for C++ the
// names of LibTorch's grad-mode API (compiling is expensive; most files name none of it).
const std::vector<std::string>& markersFor(const FileState& state) {
  static const std::vector<std::string> kCpp = [] {
    std::vector<std::string> out;
    for (std::string_view marker : catalog::cppMarkers()) out.emplace_back(marker);
    // A quoted include is usually a project header, whose functions are checked through the
    // files that include it.
    out.emplace_back("#include \"");
    return out;
  }();
  if (isCppPath(state.input->ref.path) && !state.markers->empty()) return kCpp;
  return state.markers->all;
}

} // namespace

void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, count));
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++) fn(i);
  };
  // The calling thread is one of the workers: one thread fewer to start (and, under jemalloc, one
  // thread cache fewer to set up and flush) per phase.
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
}

bool isRuleSelected(std::string_view code, bool preview, const CheckOptions& options) {
  // Like ruff's syntax errors, GL000 is always on: without it a broken file looks clean.
  if (code == "GL000") return true;
  auto matches = [&](const std::vector<std::string>& prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& prefix) {
      return prefix == "ALL" || code.starts_with(prefix);
    });
  };
  if (matches(options.ignore)) return false;
  // GL001 (a C++ file that does not compile) is kept by a selection of other rules: only an
  // ignore turns it off (config.cpp's enabledRules does the same).
  if (code == kCompileErrorCode) return true;
  if (options.select.empty()) return !preview;
  // A preview rule runs only when named (or its exact prefix is), not through ALL.
  if (preview) {
    return std::any_of(options.select.begin(), options.select.end(),
                       [&](const std::string& p) { return p != "ALL" && code.starts_with(p); });
  }
  return matches(options.select);
}

std::shared_ptr<ByteBudget> keptTextBudgetFor(const std::vector<FileInput>& inputs,
                                              unsigned threads) {
  const size_t limit = keptTextBudgetHook(kKeptTextBudgetBytes);
  std::atomic<size_t> total{0};
  parallelFor(inputs.size(), threads, [&](size_t i) {
    if (inputs[i].contents || total.load() > limit) return;
    const std::optional<FileStat> stat = statFile(inputs[i].ref.path);
    if (stat && stat->size > 0) total += static_cast<size_t>(stat->size);
  });
  return std::make_shared<ByteBudget>(total.load() <= limit ? limit : 0);
}

CheckResult runCheck(const std::vector<FileInput>& inputs, const CheckOptions& options) {
  CheckResult result;
  std::vector<FileState> states(inputs.size());
  const std::shared_ptr<ByteBudget> keptTexts =
      options.keptTexts ? options.keptTexts : keptTextBudgetFor(inputs, options.threads);
  for (size_t i = 0; i < inputs.size(); ++i) {
    states[i].input = &inputs[i];
    states[i].keptTexts = keptTexts.get();
  }

  const auto& rules = rules::allRules();
  std::vector<const rules::Rule*> selected;
  for (const rules::Rule* rule : rules) {
    if (isRuleSelected(rule->info().code, rule->info().preview, options)) selected.push_back(rule);
  }
  // Files with a selection of their own (from their configuration) run only those rules; each
  // distinct selection compiles its markers once.
  std::map<std::vector<const rules::Rule*>, MarkerSet> markerSets;
  for (FileState& state : states) {
    std::vector<const rules::Rule*> fileRules;
    if (!state.input->enabledRules) {
      fileRules = selected;
    } else {
      for (const std::string& code : *state.input->enabledRules) {
        if (const rules::Rule* rule = rules::findRule(code)) fileRules.push_back(rule);
      }
    }
    auto [entry, added] = markerSets.try_emplace(std::move(fileRules));
    if (added) {
      for (const rules::Rule* rule : entry->first) entry->second.add(*rule);
      entry->second.compile();
    }
    state.rules = &entry->first;
    state.markers = &entry->second;
  }

  // Read every file; lower those that contain a marker of a selected rule.
  std::atomic<size_t> bytesRead{0};
  auto phaseStart = std::chrono::steady_clock::now();
  std::vector<char> wanted(states.size(), 0);
  parallelFor(states.size(), options.threads, [&](size_t i) {
    FileState& state = states[i];
    std::string bytes;
    const auto& kept = state.input->keptText;
    if (state.input->contents) {
      bytes = *state.input->contents;
    } else if (kept && *kept) {
      // The bytes an earlier step read and hashed, charged to the budget already.
      bytes = std::move(**kept);
      kept->reset();
      state.textKept = true;
      state.textCharge = bytes.size();
    } else if (!readFile(state.input->ref.path, bytes, state.error)) {
      return;
    } else if (state.input->contentsHash &&
               XXH3_64bits(bytes.data(), bytes.size()) != *state.input->contentsHash) {
      state.error = changedWhileChecked(state.input->ref.path);
      return;
    }
    bytesRead += bytes.size();
    if (!isCheckableText(*state.input, bytes, state.error)) return;
    if (isNotebookPath(state.input->ref.path)) {
      std::string error;
      std::optional<Notebook> notebook = Notebook::parse(std::move(bytes), error);
      if (!notebook) {
        state.error = state.input->ref.path + ": " + error;
        return;
      }
      state.source = std::make_shared<SourceText>(
          state.input->ref.path, std::make_shared<const Notebook>(std::move(*notebook)));
    } else {
      if (!state.input->contents && !isCppPath(state.input->ref.path)) {
        state.rereadable = true;
        state.sourceSize = bytes.size();
        // An earlier step's hash is these bytes' (kept texts are handed over only when they
        // match it; a file read here was just checked against it).
        state.sourceHash = state.input->contentsHash
                               ? *state.input->contentsHash
                               : XXH3_64bits(bytes.data(), bytes.size());
      }
      state.source = std::make_shared<SourceText>(state.input->ref.path, std::move(bytes));
    }
    if (!options.prefilter) {
      wanted[i] = 1; // every file, whole
    } else if (parsedWhole(state)) {
      wanted[i] = mentionsAny(state.source->bytes(), markersFor(state));
      // A notebook's syntax is always checked, torch or not: a broken cell stops "Run all", so
      // the cells after it (the training cells, often) never run. Notebooks are few and small
      // next to a tree's modules: the parse costs little (docs/notebooks.md).
      if (!wanted[i] && state.source->notebook() != nullptr && selectsInvalidSyntax(state)) {
        wanted[i] = python::hasSyntaxError(*state.source);
      }
    } else {
      wanted[i] = planPythonRanges(state);
    }
    releaseSource(state); // unless kept, lowering reads it again
  });
  LoweringBudgets budgets;
  const LoweredCount firstPass = lowerLargestFirst(states, wanted, options, budgets);
  std::deque<FileInput> headerInputs; // the headers' (adoptHeaders); outlives `states`
  adoptHeaders(states, headerInputs, inputs.size());
  result.stats.bytesRead = bytesRead;
  result.stats.firstPassFiles = firstPass.files;
  result.stats.firstPassBytes = firstPass.bytes;
  result.stats.readAndFirstPassSeconds = secondsSince(phaseStart);
  phaseStart = std::chrono::steady_clock::now();

  std::vector<ir::EventKind> callersNeededOf;
  for (const FileState& state : states) {
    for (const rules::Rule* rule : *state.rules) {
      const std::optional<ir::EventKind> kind = rule->needsCallersOf();
      if (kind && std::find(callersNeededOf.begin(), callersNeededOf.end(), *kind) ==
                      callersNeededOf.end()) {
        callersNeededOf.push_back(*kind);
      }
    }
  }

  // Summaries across files. A file that never names a grad API can still call a helper that
  // leaks: re-scan the skipped files for the names of summarised functions until none is new.
  ir::SummaryTable summaries;
  ir::GradStateReports gradStates; // of the last summaries, for the rules
  std::unordered_set<std::string> scannedQualified;
  DroppedFiles dropped(states);
  while (true) {
    std::vector<const ir::ModuleIR*> modules;
    for (const FileState& state : states) {
      if (state.lowered) modules.push_back(&state.lowered->module);
    }
    gradStates.clear();
    dropped.index();
    summaries =
        ir::computeSummaries(modules, &gradStates, options.knownSummaries.get(), &dropped);
    const std::vector<RescanName> names =
        namesToRescan(summaries, modules, callersNeededOf, scannedQualified, dropped);
    std::vector<std::vector<uint32_t>> completing(states.size());
    bool anyCompleting = false;
    for (size_t i = 0; i < states.size(); ++i) {
      completing[i] = classesToComplete(states[i], summaries, dropped);
      anyCompleting = anyCompleting || !completing[i].empty();
    }
    if (names.empty() && !anyCompleting) break;
    const RescanSearch round(names);
    const std::vector<std::string>& plainNames = round.names;
    ++result.stats.rescanRounds;
    std::vector<char> wantedAgain(states.size(), 0);
    parallelFor(states.size(), options.threads, [&](size_t i) {
      FileState& state = states[i];
      if (!options.prefilter) return;
      if (parsedWhole(state)) {
        if (!state.source || names.empty()) return; // unreadable, or no name to look for
        wantedAgain[i] = !state.lowered && mentionsAny(state.source->bytes(), plainNames);
      } else if (!allChunksChosen(state) && acquireSource(state)) {
        bool more = false;
        for (uint32_t header : completing[i]) {
          more = python::chooseClass(state.layout, header, state.chosen) || more;
          std::erase(state.deferredClasses, header);
        }
        if (more) planRanges(state);
        if (!names.empty()) more = planRescan(state, round) || more;
        wantedAgain[i] = more;
        releaseSource(state);
      }
    });
    const LoweredCount added = lowerLargestFirst(states, wantedAgain, options, budgets);
    adoptHeaders(states, headerInputs, inputs.size());
    result.stats.rescanLowerings += added.files;
    result.stats.rescanBytes += added.bytes;
    result.stats.rescanFromKeptMemo += added.fromKeptMemo;
    if (added.files == 0) break;
  }
  result.stats.summariesAndRescanSeconds = secondsSince(phaseStart);
  if (options.keepSummaries) {
    result.summaries = std::make_shared<const ir::SummaryTable>(summaries);
  }
  phaseStart = std::chrono::steady_clock::now();

  // Rules.
  std::vector<std::vector<Diagnostic>> perFile(states.size());
  std::vector<std::vector<std::string>> perFileScopes(states.size());
  parallelFor(states.size(), options.threads, [&](size_t i) {
    FileState& state = states[i];
    if (!state.lowered || state.input->context || !acquireSource(state)) return;
    // The modules are as last summarised: the loop above stops before lowering anything again.
    // A file whose units were dropped is lowered again, for its rules only, when they could
    // report in it; else they see none of its units (their nodes are gone), only what its
    // lowering reported (GL000).
    std::optional<python::PythonFileResult> again;
    const bool digested = !state.digests.empty() && !state.whole;
    if (digested && rulesMayReport(state.digests, summaries)) again = lowerAgain(state);
    const python::PythonFileResult& lowered =
        again ? *again : state.whole ? *state.whole : *state.lowered;
    static const ir::ModuleIR kNoUnits;
    const ir::ModuleIR& module = digested && !again ? kNoUnits : lowered.module;
    rules::RuleContext context(module, summaries, lowered.frontendDiagnostics,
                               state.source.get(), &gradStates);
    for (const rules::Rule* rule : *state.rules) rule->check(context);
    std::vector<Diagnostic> diagnostics = context.takeDiagnostics();
    const Suppressions& suppressions = lowered.suppressions;
    std::erase_if(diagnostics, [&](const Diagnostic& d) {
      // A syntax or compile error is the parser's or the compiler's: no comment silences it.
      return d.code != "GL000" && d.code != kCompileErrorCode &&
             suppressions.suppresses(d.range.startLine, d.code);
    });
    std::sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::tie(a.range.startByte, a.code, a.range.endByte) <
             std::tie(b.range.startByte, b.code, b.range.endByte);
    });
    // A `finally` body is lowered once per way out; its events are reported once.
    diagnostics.erase(std::unique(diagnostics.begin(), diagnostics.end(),
                                  [](const Diagnostic& a, const Diagnostic& b) {
                                    return a.code == b.code &&
                                           a.range.startByte == b.range.startByte &&
                                           a.range.endByte == b.range.endByte;
                                  }),
                      diagnostics.end());
    for (const Diagnostic& d : diagnostics) {
      perFileScopes[i].push_back(enclosingScope(lowered.module, d.range.startByte));
    }
    perFile[i] = std::move(diagnostics);
    // Only the files with findings keep their text, to be shown with them.
    if (perFile[i].empty()) releaseSource(state);
  });
  result.stats.rulesSeconds = secondsSince(phaseStart);

  for (size_t i = 0; i < states.size(); ++i) {
    FileState& state = states[i];
    if (state.input->context) {
      // Code the run does not check: only its effect on the checked files is reported.
      ++result.stats.contextFiles;
      result.stats.contextLowered += state.lowered != nullptr;
      continue;
    }
    if (!state.error.empty()) {
      result.errors.push_back(state.error);
      continue;
    }
    ++result.filesRead;
    if (state.cppCompiled) {
      ++result.cppFilesCompiled;
      const bool reported =
          std::any_of(perFile[i].begin(), perFile[i].end(),
                      [](const Diagnostic& d) { return d.code == kCompileErrorCode; });
      result.cppFilesNotCompiled += state.cppCompileFailed && reported;
      result.cppFilesNothingLowered += state.cppNothingLowered;
    }
    if (state.lowered) {
      ++result.filesAnalysed;
      for (std::string& warning : state.lowered->warnings) result.warnings.push_back(warning);
    }
    if (!perFile[i].empty()) {
      result.files.push_back({state.source, std::move(perFile[i]), std::move(perFileScopes[i])});
    }
  }
  std::sort(result.files.begin(), result.files.end(), [](const FileReport& a, const FileReport& b) {
    return a.source->path() < b.source->path();
  });
  // The kept texts leave with the states: a later run sharing the budget (--fix) has it whole.
  for (const FileState& state : states) {
    if (state.textKept) keptTexts->give(state.textCharge);
  }
#if GRADLINT_UNDER_ASAN
  const bool releaseMemory = true; // leak checking must see a clean exit
#else
  const bool releaseMemory = options.releaseMemory;
#endif
  if (!releaseMemory) {
    // Deliberately never freed: the process exits next (CheckOptions::releaseMemory).
    static_cast<void>(new std::vector<FileState>(std::move(states)));
    static_cast<void>(new ir::GradStateReports(std::move(gradStates)));
  }
  return result;
}

} // namespace gradlint
