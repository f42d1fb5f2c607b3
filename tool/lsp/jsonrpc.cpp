#include "tool/lsp/jsonrpc.h"

#include "checkers/ir/ascii.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

namespace gradlint::lsp {
namespace {

constexpr std::string_view kContentLength = "content-length:";
constexpr size_t kChunkBytes = 64 * 1024;

// The value of a `Content-Length:` header found anywhere in `line` (case-insensitive, so a
// header glued to the rest of a body whose length was understated is still found). Returns
// false when the line has no such header; sets `valid` to false when its value is not a number.
bool findContentLength(std::string_view line, size_t& length, bool& valid) {
  const std::string lower = asciiLower(line);
  const size_t at = lower.rfind(kContentLength);
  if (at == std::string::npos) return false;
  size_t pos = at + kContentLength.size();
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  size_t end = pos;
  length = 0;
  valid = true;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) {
    const size_t digit = static_cast<size_t>(line[end] - '0');
    if (length > (std::numeric_limits<size_t>::max() - digit) / 10) {
      length = std::numeric_limits<size_t>::max(); // saturate: "too large" rather than wrap
    } else {
      length = length * 10 + digit;
    }
    ++end;
  }
  while (end < line.size() && (line[end] == ' ' || line[end] == '\t')) ++end;
  if (end == pos || end != line.size()) valid = false;
  return true;
}

} // namespace

MessageReader::MessageReader(std::istream& in, size_t maxMessageBytes)
    : in_(in), maxMessageBytes_(maxMessageBytes) {}

bool MessageReader::readHeaderLine(std::string& line, bool& tooLong) {
  line.clear();
  tooLong = false;
  std::streambuf* buffer = in_.rdbuf();
  bool any = false;
  while (true) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) return any;
    any = true;
    if (c == '\n') break;
    if (line.size() < kMaxHeaderLineBytes) {
      line.push_back(static_cast<char>(c));
    } else {
      tooLong = true; // keep consuming up to the newline, but store no more
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool MessageReader::skipBytes(size_t count) {
  std::array<char, kChunkBytes> chunk{};
  while (count > 0) {
    const auto want = static_cast<std::streamsize>(std::min(count, chunk.size()));
    const std::streamsize got = in_.rdbuf()->sgetn(chunk.data(), want);
    if (got <= 0) return false;
    count -= static_cast<size_t>(got);
  }
  return true;
}

ReadResult MessageReader::next() {
  ReadResult result;
  std::string line;
  bool sawHeader = false;
  bool haveLength = false;
  bool lengthValid = true;
  bool malformedLine = false;
  size_t length = 0;
  while (true) {
    bool tooLong = false;
    if (!readHeaderLine(line, tooLong)) {
      if (!sawHeader) return result; // EndOfInput
      result.status = ReadStatus::Truncated;
      result.error = "the input ended inside a message header";
      return result;
    }
    if (line.empty() && !tooLong) {
      if (!sawHeader) continue; // stray blank lines between messages
      break;
    }
    sawHeader = true;
    size_t value = 0;
    bool valid = true;
    if (!tooLong && findContentLength(line, value, valid)) {
      haveLength = true;
      lengthValid = valid;
      length = value;
    } else if (tooLong || line.find(':') == std::string::npos) {
      malformedLine = true;
    }
  }
  if (!haveLength || !lengthValid) {
    result.status = ReadStatus::BadHeader;
    result.error = !haveLength ? "a message header without Content-Length was skipped"
                               : "a message header with a malformed Content-Length was skipped";
    if (malformedLine) result.error += " (it also had a line that is not a header)";
    return result;
  }
  if (length > maxMessageBytes_) {
    result.status = ReadStatus::TooLarge;
    result.error = "a message of " + std::to_string(length) + " bytes exceeds the limit of " +
                   std::to_string(maxMessageBytes_) + " bytes and was skipped";
    skipBytes(length);
    return result;
  }
  // Read in chunks: memory grows with the bytes that arrive, not with what the header claims.
  std::string body;
  std::array<char, kChunkBytes> chunk{};
  while (body.size() < length) {
    const auto want = static_cast<std::streamsize>(std::min(length - body.size(), chunk.size()));
    const std::streamsize got = in_.rdbuf()->sgetn(chunk.data(), want);
    if (got <= 0) {
      result.status = ReadStatus::Truncated;
      result.error = "the input ended after " + std::to_string(body.size()) + " of " +
                     std::to_string(length) + " message bytes";
      return result;
    }
    body.append(chunk.data(), static_cast<size_t>(got));
  }
  result.status = ReadStatus::Message;
  result.body = std::move(body);
  return result;
}

void MessageWriter::write(const nlohmann::json& message) {
  // Documents may hold invalid UTF-8, and messages quote them: replace, never throw.
  const std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out_.flush();
}

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  const auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

} // namespace gradlint::lsp
