// The third-party headers a run's translation units start with (LibTorch's above all), parsed
// once into a precompiled header (PCH) that every unit beginning with the same `#include <...>`
// lines under the same flags reuses, as clangd reuses a preamble: without it each unit parses
// <torch/torch.h> again. Only headers outside the project are precompiled (the project's are
// lowered and checked: frontend.cpp's ProjectHeaders); the frontend checks that and falls back
// to the plain parse whenever a unit cannot use one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradlint::cpp {

// One of the leading `#include <...>` lines of a file.
struct PrefixInclude {
  std::string spelled; // between the angle brackets
  size_t end = 0;      // the offset just past its line (and its newline)
};

// The leading run of `#include <...>` lines of `source`, with blank lines and comments between
// them. It ends at anything else: a quoted include, a macro definition, a conditional, code,
// a line continuation. Empty when the file starts otherwise (a byte order mark included).
std::vector<PrefixInclude> scanIncludePrefix(std::string_view source);

// Where the first `-I` or `-isystem` folder of `arguments` holding `spelled` finds it (as
// `#include <spelled>` would, before the compiler's own folders), and whether that folder is a
// system one. nullopt when none does: the compiler's own folders, or nowhere.
std::optional<std::pair<std::string, bool>>
findAngledInclude(const std::string& spelled, const std::vector<std::string>& arguments,
                  const std::string& directory);

// A file a precompiled header holds (read when it was built).
struct PrecompiledFile {
  std::string path; // real path
  bool system = false;
};

struct PrecompiledHeader {
  std::string path; // for -include-pch
  // The headers it holds, the prefix file it was built from excepted.
  std::vector<PrecompiledFile> headers;
};

// What a precompiled header is built from: the compile arguments of the units that share it
// (as the compiler gets them, without the file name) and the `#include <...>` lines it holds.
struct PrefixRequest {
  std::string directory;
  std::vector<std::string> arguments;
  std::vector<std::string> includes; // spelled, in order
};

// The run's precompiled headers. Thread-safe: a header is built once, by the first unit that
// asks for it, while the others that need it wait.
class PrecompiledHeaders {
public:
  // `folder`: where they are kept across runs (built once, then reused while the compiler,
  // the flags and every header they hold are unchanged); empty: a temporary folder, removed
  // with this object. `trace`: one line on stderr for each built, reused or failed one.
  PrecompiledHeaders(std::string folder, bool trace);
  ~PrecompiledHeaders();
  PrecompiledHeaders(const PrecompiledHeaders&) = delete;
  PrecompiledHeaders& operator=(const PrecompiledHeaders&) = delete;

  // The header for `request`, or null when it cannot be built (a header missing or broken,
  // flags the compiler rejects): the units that asked parse their headers themselves.
  std::shared_ptr<const PrecompiledHeader> get(const PrefixRequest& request);

private:
  struct Slot {
    std::mutex mutex;
    bool done = false;
    std::shared_ptr<const PrecompiledHeader> header;
    // A header built without the units' -I folders: whether each folder a unit asked with
    // hides one of its files.
    std::map<std::string, bool> hides;
  };
  std::shared_ptr<Slot> slotFor(const std::string& key);
  // The slot's header, loaded or built by the first unit that asks for it.
  std::shared_ptr<const PrecompiledHeader> headerOf(Slot& slot, const PrefixRequest& request,
                                                    const std::string& key,
                                                    std::string_view variant);
  std::string folderOf();
  std::shared_ptr<const PrecompiledHeader> load(const std::string& base, const std::string& key);
  std::shared_ptr<const PrecompiledHeader> build(const PrefixRequest& request,
                                                 const std::string& base, const std::string& key,
                                                 std::string_view variant);

  std::string folder_;
  bool temporary_ = false;
  bool trace_ = false;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Slot>> slots_; // by key digest
};

} // namespace gradlint::cpp
