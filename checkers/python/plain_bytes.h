// Skipping the bytes of Python source that change no line scanner's state, 16 at a time where
// SSE2 is there. scanImports (every checked file) and scanChunks (every file that mentions a
// marker) walk whole files, and most of a file is plain code, string bodies and comments.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gradlint::python {

// What a scan is inside of. A scan of statements (scanImports) also stops at their ends, `:` and
// `;`; a scan of lines (scanChunks) does not: Python has a colon on most lines.
enum class PlainRun { Code, CodeToStatementEnd, String, Comment };

namespace detail {

// The bytes that end a run of `kind`, for the bytes after the last full 16.
constexpr std::array<bool, 256> plainRunStops(PlainRun kind) {
  std::array<bool, 256> stops{};
  std::string_view bytes = "\n\r";
  if (kind == PlainRun::String) bytes = "\n\r'\"\\";
  if (kind == PlainRun::Code) bytes = "\n\r'\"\\#()[]{}";
  if (kind == PlainRun::CodeToStatementEnd) bytes = "\n\r'\"\\#()[]{}:;";
  for (const char c : bytes) stops[static_cast<unsigned char>(c)] = true;
  return stops;
}

} // namespace detail

// The first byte at or after `at` that may end a run of `kind` (`text.size()` when none does):
// line ends always; in code also `#`, quotes, backslashes and brackets (and for
// CodeToStatementEnd `:` and `;`); in a string quotes and backslashes. It may stop early, at a
// byte the caller then takes as plain: pairs of bytes that differ in one bit are matched with one
// compare after an OR, so code also stops at `&`, and a string at `#` and `&`.
template <PlainRun kind>
size_t skipPlainBytes(std::string_view text, size_t at) {
  const size_t size = text.size();
#if defined(__SSE2__)
  const char* const data = text.data();
  const auto equal = [](__m128i bytes, int value) {
    return _mm_cmpeq_epi8(bytes, _mm_set1_epi8(static_cast<char>(value)));
  };
  while (at + 16 <= size) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at));
    __m128i hits = _mm_or_si128(equal(bytes, '\n'), equal(bytes, '\r'));
    if constexpr (kind != PlainRun::Comment) {
      const __m128i low = _mm_or_si128(bytes, _mm_set1_epi8(0x01));
      hits = _mm_or_si128(hits, _mm_or_si128(equal(low, 0x23), equal(low, 0x27))); // "# &'
      hits = _mm_or_si128(hits, equal(bytes, '\\'));
      if constexpr (kind == PlainRun::Code || kind == PlainRun::CodeToStatementEnd) {
        const __m128i upper = _mm_or_si128(bytes, _mm_set1_epi8(0x20));
        hits = _mm_or_si128(hits, equal(low, 0x29)); // ( )
        hits = _mm_or_si128(hits, _mm_or_si128(equal(upper, 0x7B), equal(upper, 0x7D))); // [{ ]}
      }
      if constexpr (kind == PlainRun::CodeToStatementEnd) {
        hits = _mm_or_si128(hits, equal(low, 0x3B)); // : ;
      }
    }
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    at += 16;
  }
#endif
  static constexpr std::array<bool, 256> kStops = detail::plainRunStops(kind);
  while (at < size && !kStops[static_cast<unsigned char>(text[at])]) ++at;
  return at;
}

} // namespace gradlint::python
