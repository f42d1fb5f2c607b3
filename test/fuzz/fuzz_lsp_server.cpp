// libFuzzer target: bytes -> the LSP server, in-process (tool/lsp/server.h), two ways per input.
//   1. The bytes as the raw stream: framing (headers, Content-Length, truncation, size caps).
//   2. The bytes split at "\n---\n" into message bodies, each framed correctly after a fixed
//      `initialize`: the JSON and protocol layers (methods, params, document sync, positions,
//      code actions) without the fuzzer having to learn the framing first.
// Analysis runs at once (debounce 0); the server must answer or log, never crash or hang.
#include "tool/lsp/server.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kSeparator = "\n---\n";
constexpr std::string_view kInitialize =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})";

void frame(std::string& stream, std::string_view body) {
  stream += "Content-Length: ";
  stream += std::to_string(body.size());
  stream += "\r\n\r\n";
  stream += body;
}

void serve(const std::string& stream) {
  std::istringstream in(stream);
  std::ostringstream out;
  gradlint::lsp::ServerOptions options;
  options.debounce = std::chrono::milliseconds(0);
  options.maxMessageBytes = size_t{1} << 20; // the cap's code path, without 64 MiB inputs
  // The workspace warm-up would read whatever folder of this machine an input names.
  options.warmUp = false;
  (void)gradlint::lsp::runLanguageServer(in, out, options);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  serve(std::string(bytes));

  std::string framed;
  frame(framed, kInitialize);
  frame(framed, R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  for (size_t start = 0; start <= bytes.size();) {
    const size_t end = bytes.find(kSeparator, start);
    const std::string_view body =
        bytes.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!body.empty()) frame(framed, body);
    if (end == std::string_view::npos) break;
    start = end + kSeparator.size();
  }
  serve(framed);
  return 0;
}
