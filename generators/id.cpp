#include "generators/id.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace idbench {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Uuid::to_string() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xF]);
  }
  return out;
}

std::optional<Uuid> Uuid::parse(std::string_view text) {
  const bool canonical = text.size() == 36;
  if (!canonical && text.size() != 32) return std::nullopt;
  Uuid u;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    if (canonical && (i == 4 || i == 6 || i == 8 || i == 10)) {
      if (text[pos] != '-') return std::nullopt;
      ++pos;
    }
    const int high = hex_value(text[pos]);
    const int low = hex_value(text[pos + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    u.bytes[i] = static_cast<std::uint8_t>(high << 4 | low);
    pos += 2;
  }
  return u;
}

std::uint64_t Uuid::v7_unix_ms() const { return load_be64(bytes.data()) >> 16; }

std::string to_text(const Id& id, IdWidth width) {
  return width == IdWidth::bits64 ? fmt::format("{}", id.lo) : id.to_uuid().to_string();
}

}  // namespace idbench
