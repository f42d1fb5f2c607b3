#include "tool/display_width.h"

#include <utf8proc.h>

namespace gradlint {

uint32_t characterCells(std::string_view text, size_t start, size_t& length) {
  utf8proc_int32_t codePoint = 0;
  const utf8proc_ssize_t read =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + start),
                       static_cast<utf8proc_ssize_t>(text.size() - start), &codePoint);
  if (read <= 0) {
    length = 1;
    return 1;
  }
  length = static_cast<size_t>(read);
  const int cells = utf8proc_charwidth(codePoint);
  return cells < 0 ? 1 : static_cast<uint32_t>(cells);
}

} // namespace gradlint
