// JSON-RPC 2.0 framing as LSP uses it over a byte stream: `Content-Length: N\r\n\r\n` headers,
// then N bytes of JSON. The reader never trusts the peer: header lines and bodies are capped,
// and every problem is reported as a value, not an exception, so a fuzzer can drive it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <istream>
#include <mutex>
#include <ostream>
#include <string>

namespace gradlint::lsp {

// 64 MiB: far above any real document, low enough that a bad length cannot exhaust memory.
inline constexpr size_t kDefaultMaxMessageBytes = size_t{64} << 20;
// A header line longer than this is not a header (no client sends one).
inline constexpr size_t kMaxHeaderLineBytes = 8192;

enum class ReadStatus {
  Message,    // `body` holds one message's bytes (not yet parsed as JSON)
  EndOfInput, // the stream ended cleanly between messages
  BadHeader,  // a header block without a usable Content-Length; the next block is read next
  TooLarge,   // Content-Length above the cap; the body was skipped (or the input ended)
  Truncated,  // the input ended inside a header block or body
};

struct ReadResult {
  ReadStatus status = ReadStatus::EndOfInput;
  std::string body;  // ReadStatus::Message
  std::string error; // otherwise: what was wrong, for a log message
};

// Reads framed messages from a stream, one per next() call.
class MessageReader {
public:
  explicit MessageReader(std::istream& in, size_t maxMessageBytes = kDefaultMaxMessageBytes);
  ReadResult next();

private:
  // One header line without its terminator; false at the end of input.
  bool readHeaderLine(std::string& line, bool& tooLong);
  // Reads and drops `count` bytes; false when the input ends first.
  bool skipBytes(size_t count);

  std::istream& in_;
  size_t maxMessageBytes_;
};

// Writes messages framed with Content-Length; safe to call from several threads.
class MessageWriter {
public:
  explicit MessageWriter(std::ostream& out) : out_(out) {}
  void write(const nlohmann::json& message);

private:
  std::ostream& out_;
  std::mutex mutex_;
};

// `object[key]`, or null when `object` is not an object or has no such member (params of a
// message from a client are never trusted to have a shape).
const nlohmann::json& member(const nlohmann::json& object, const char* key);

} // namespace gradlint::lsp
