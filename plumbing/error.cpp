// error.cpp — one_line() and the Error that carries its result (see error.hpp).
#include "plumbing/error.hpp"

#include <fmt/format.h>

namespace idbench {

namespace {

// Length of the valid UTF-8 sequence starting at text[i] (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF), or 0 when the byte there does not start one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong 3-byte form
    if (c == 0xED) hi = 0x9F;  // no UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong 4-byte form
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  }
  if (n == 0 || i + n > text.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  }
  return n;
}

// As utf8_length, but 0 for the C1 control characters U+0080..U+009F (0xC2 0x80..0x9F),
// which a terminal may act on like the C0 ones.
std::size_t c1_free_utf8_length(std::string_view text, std::size_t i) {
  const std::size_t n = utf8_length(text, i);
  const bool c1 = n == 2 && static_cast<unsigned char>(text[i]) == 0xC2 &&
                  static_cast<unsigned char>(text[i + 1]) < 0xA0;
  return c1 ? 0 : n;
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? c1_free_utf8_length(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += c == '\n'   ? std::string("\\n")
             : c == '\r' ? std::string("\\r")
             : c == '\t' ? std::string("\\t")
                         : fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

Error::Error(const std::string& what) : std::runtime_error(one_line(what)) {}

}  // namespace idbench
