// Splits a Python file into chunks without parsing it: each top-level definition (with its
// decorators) and each module-level statement; optionally each class further into its header
// and one chunk per member of its body. The engine parses only the chunks that can matter to the
// selected rules (plus every import), so a large file that mentions torch.no_grad once costs one
// method's parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::python {

struct SourceChunk {
  uint32_t start = 0; // byte offset of the chunk's first line
  uint32_t end = 0;   // exclusive: the next chunk's start, or the end of the file
  bool definition = false; // def/async def/class (with decorators); else a statement
  bool imports = false;    // a module statement that imports (always parsed: names resolve)
  // Split classes: a member's class header chunk (decorators and `class X(...):` up to the first
  // member), and a header's members, which follow it: indices (header, membersEnd).
  int32_t header = -1;     // members only
  uint32_t membersEnd = 0; // headers only; 0 for every other chunk
};

struct ByteRange {
  uint32_t start = 0;
  uint32_t end = 0;
  bool operator==(const ByteRange&) const = default;
};

struct ChunkLayout {
  std::vector<SourceChunk> chunks;
  // Comments and string literals other than f-strings, in order: text there calls nothing, so
  // a name mentioned only there does not make a chunk worth parsing.
  std::vector<ByteRange> inert;
};

// One linear pass that tracks strings (including triple-quoted ones), comments, brackets and
// backslash continuations, so a `def` at column 0 inside a docstring is not a boundary.
// `splitClasses`: a top-level class becomes its header chunk plus one chunk per member.
ChunkLayout scanChunks(std::string_view text, uint32_t contentStart, bool splitClasses);

// The top-level chunks only (classes whole).
std::vector<SourceChunk> splitTopLevel(std::string_view text, uint32_t contentStart);

// Names bound by `import x as NAME` / `from m import x as NAME` where the imported name
// contains one of `needles`: calls through the alias mention only NAME.
std::vector<std::string> importAliases(std::string_view text,
                                       const std::vector<SourceChunk>& chunks,
                                       const std::vector<std::string>& needles);

enum class Match : uint8_t {
  Substring, // rule markers: `grad_enabled` matches `set_grad_enabled`
  Marker,    // like Substring, but not a name right after `def` (`def backward(ctx, g):` of an
             // autograd Function calls nothing; a call elsewhere in the chunk still counts)
  WordMarker, // like Marker, but only as a whole identifier (`backward`, not `_backward_hooks`)
  Word,       // function names: whole identifiers, in one pass whatever their number
  Use, // like Word, but not where no call can resolve to the name: after `def`, or `).NAME`
};

// How a mention inside a member of a split class chooses chunks.
enum class ClassScope : uint8_t {
  Member,    // the member and its class header
  WholeClass // every member too (rules that follow `self.attr` from method to method)
};

struct Needle {
  std::string text;
  Match match = Match::Substring;
  ClassScope scope = ClassScope::Member;
};

struct Mention {
  uint32_t at = 0; // byte offset
  ClassScope scope = ClassScope::Member;
};

// A set of needles compiled for one pass over a text, whatever their number: only every s-th
// position is looked at (s: the shortest needle's length - 3), and a 64 Ki-bit filter of the
// hashes of each needle's first s 4-byte windows rejects almost all of them with one lookup.
// Needles too short for a good s (under 4 bytes, or a few short ones among long ones) are
// searched one by one. Build it once per set and search every file with it.
class NeedleSearch {
public:
  explicit NeedleSearch(std::vector<Needle> needles);
  NeedleSearch(const std::vector<std::string>& needles, Match match);
  // Where the needles occur in `text`, in order, before comments and strings are known: a file
  // with no mention is never split into chunks.
  std::vector<Mention> find(std::string_view text) const;
  bool empty() const { return needles_.empty(); }

private:
  struct Anchor {
    uint16_t hash;
    uint32_t window;  // the 4 bytes
    uint16_t needle;  // index into needles_
    uint16_t offset;  // of the window in the needle
    bool operator<(const Anchor& other) const { return hash < other.hash; }
  };
  bool matches(std::string_view text, size_t at, const Needle& needle, bool isName) const;

  std::vector<Needle> needles_;
  std::vector<bool> isName_;        // all identifier characters
  std::vector<uint16_t> short_;     // needles too short for the stride: searched one by one
  std::vector<Anchor> anchors_;     // sorted by hash
  std::vector<uint64_t> filter_;    // 65,536 bits, one per anchor hash
  size_t stride_ = 1;               // positions looked at: every stride_-th
};

// A character of a Python identifier (ASCII letters, digits, `_`), by table.
bool isWordChar(char c);

// The identifier that starts at `at` (empty when none does there).
std::string_view nameAt(std::string_view text, size_t at);
// The identifier around the bytes [start, end): extended over identifier characters, forward
// and (unless `backwards` is false) backward. Empty where there is none; always a view of `text`.
std::string_view nameAround(std::string_view text, size_t start, size_t end,
                            bool backwards = true);

// Whether a call can resolve to the name at `at` (Match::Use): not after `def`, nor an attribute
// of a call or subscript (`super().NAME`).
bool mayCall(std::string_view text, size_t at);

// NeedleSearch(needles, match).find(text), for one-off searches.
std::vector<Mention> findMentions(std::string_view text, const std::vector<std::string>& needles,
                                  Match match);

// Lines that start with a merge-conflict marker (`<<<<<<< `, `=======`, `>>>>>>> `). No Python
// line starts so, and the chunk around one must be parsed for its syntax error (GL000) to show
// whether or not it names a grad API.
std::vector<Mention> conflictMarkers(std::string_view text);
// Whether a merge-conflict marker line starts at byte `at`.
bool conflictMarkerAt(std::string_view text, size_t at);

// Whether the mention at `at` opens a region that restores the mode it found, spelled so that
// no rule reports it: a decorator line `@torch.no_grad()` / `@torch.inference_mode()` or a
// statement `with torch.no_grad():` (`with torch.no_grad(), other:`), any dotted spelling, with
// empty parentheses. `with torch.no_grad:`, a bare `torch.no_grad()` and `@torch.no_grad` are
// not (GL105 and friends report them).
bool restoringRegionAt(std::string_view text, size_t at);

// Removes from `mentions` those that are restoring regions (restoringRegionAt) in the chunk of
// a function that names nothing else a rule acts on: no toggle, backward, gradient reset,
// train/eval switch or offload (outside comments and strings). Such a function restores what
// it found and holds no finding, and its summary says nothing to callers, so it need not be
// parsed; a rescan still parses it if it calls a summarised helper. Returns how many it removed.
size_t dropRestoringRegions(std::string_view text, const ChunkLayout& layout,
                            std::vector<Mention>& mentions);

// Removes from `mentions` the backwards (`backward`, `manual_backward`) that are not called, and
// those in the chunk of a function that calls no `.step(` and names no API that disables grad
// (nor a name the file binds to one). No rule acts on such a backward: the training-loop rules
// need a step in the same function, GL302/GL304 a value computed with grad disabled there, and
// no summary carries a backward. A call that disables grad through a summarised helper is found
// by the rescans, which parse the callers of such helpers. Module statements and class bodies
// keep theirs (a script offloads in one statement and trains in the next). Returns how many it
// removed.
size_t dropLoneBackwards(std::string_view text, const ChunkLayout& layout,
                         std::vector<Mention>& mentions);

// Removes from `mentions` those of `marker` inside a name that `known(name, called)` rejects
// (`called`: `(` follows the name). A marker stands for a family of names the lowering reads
// whole (`offload` for `cpu_offload(`, `enable_model_cpu_offload(`, ...); inside another name
// (FSDP's `offload_params`) it tells no rule anything. Returns how many it removed.
size_t dropForeignNames(std::string_view text, std::string_view marker,
                        bool (*known)(std::string_view name, bool called),
                        std::vector<Mention>& mentions);

// Where `text` names an optimizer or its module (`optim`, `torch.optim.SGD`, `self.optimizer`,
// `optimizers`), not optimising (`optimize_for_inference`, `choose_qparams_optimized`,
// `optimal`): the chunks that may build the optimizer whose `step()` a training loop takes.
std::vector<Mention> optimizerMentions(std::string_view text);

// Removes from `mentions` those inside the name that a module or class-body statement binds
// first (`model_cpu_offload_seq = "unet->vae"`): binding a name is no event, and every use of
// the name mentions the marker too (module code reaches the binding from a chosen use). Returns
// how many it removed.
size_t dropBoundNames(std::string_view text, const ChunkLayout& layout,
                      std::vector<Mention>& mentions);

// Marks the chunks holding one of `mentions` outside comments and strings (`chosen` has one flag
// per chunk and keeps earlier marks). A mention in a class header chooses the whole class.
// With `deferredClasses`, a ClassScope::WholeClass mention in a member chooses that member only
// and adds its class's header index there (once): the caller chooses the rest (chooseClass) if
// what the member turns out to do calls for it. Returns true when a chunk was newly marked.
bool chooseMentioned(const ChunkLayout& layout, const std::vector<Mention>& mentions,
                     std::vector<bool>& chosen, std::vector<uint32_t>* deferredClasses = nullptr);

// Marks a split class's chunks: its header, every member (nested classes' included) and the
// headers of the classes around it. Returns true when a chunk was newly marked.
bool chooseClass(const ChunkLayout& layout, uint32_t header, std::vector<bool>& chosen);

// Module code is one flow, like a function's body. From the chosen module-level statements,
// forward: a statement that names (as a whole word, outside comments and strings) what a
// chosen one binds at its start (`heavy = ...`, `a, b = ...`, `x: T = ...`) or acts on there
// (`heavy.enable_model_cpu_offload()`, for a name module code binds) is chosen, and so on over
// what it binds; then backward from all of those: the statements binding what they
// name, and so on over what those name; the chosen definitions start that backward walk too (a
// function loading `MODEL_ID` makes `MODEL_ID = "..."` matter). `heavy = X.from_pretrained(...,
// device_map=offload_map)` makes `heavy.train()` below and `offload_map = {...}` above matter,
// whichever rules' markers chose it. One search over the text for every bound name, then two
// walks over the statements: linear in the mentions. True when a chunk was newly marked.
// `asBinding` (one flag per chunk, kept between calls) marks the statements chosen only as a
// binding (backward): a later call does not walk forward from them, so calling again after
// more chunks were chosen adds only what those reach.
bool chooseModuleFlow(std::string_view text, const ChunkLayout& layout, std::vector<bool>& chosen,
                      std::vector<bool>& asBinding);

// The chunks that call (Match::Use mentions outside comments and strings) a function whose
// chunk is chosen and was not in `before` (the chosen flags before the latest choice), then
// those that call the functions this adds, and so on, for at most 8 passes; dunders aside.
// A rescan of a large file takes them in at once: the next round would parse the whole file
// again to add them. True when a chunk was newly marked.
bool chooseLocalCallers(std::string_view text, const ChunkLayout& layout,
                        std::vector<bool>& chosen, std::vector<bool> before);

// Classes deriving from a library's trainer (a base named `...Trainer`, as in
// `class MyTrainer(SFTTrainer):`) that a chosen chunk instantiates (`MyTrainer(`): chosen whole,
// so that lowering knows `MyTrainer(model=m).train()` trains `m`. True when a chunk was newly
// marked.
bool chooseTrainerSubclasses(std::string_view text, const ChunkLayout& layout,
                             std::vector<bool>& chosen);

// The names a module-level statement binds at its start, before its first `=` (not `==`):
// `a = 1`, `a, b = f()`, `a: int = 1`, `a = b = 2` (both). Empty for any other statement.
std::vector<std::string> namesBoundAtStart(std::string_view statement);

// findMentions and chooseMentioned in one call.
bool chooseChunks(std::string_view text, const ChunkLayout& layout,
                  const std::vector<std::string>& needles, std::vector<bool>& chosen,
                  Match match = Match::Substring);

// The byte ranges worth parsing: the chosen chunks plus every import, merged where adjacent.
// Empty when no chunk is chosen.
std::vector<ByteRange> chosenRanges(const std::vector<SourceChunk>& chunks,
                                    const std::vector<bool>& chosen);

} // namespace gradlint::python
