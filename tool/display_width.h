// How many terminal cells a character takes: 2 for East Asian wide and fullwidth characters
// (CJK, most emoji), 0 for combining marks, 1 otherwise. The full output format uses it to keep
// its carets under the reported code; columns in every format still count characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gradlint {

// The cells taken by the UTF-8 character that starts at text[start], and its length in bytes in
// `length`. A byte that does not start a valid UTF-8 sequence is one cell and one byte long.
uint32_t characterCells(std::string_view text, size_t start, size_t& length);

} // namespace gradlint
